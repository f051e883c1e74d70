"""Upgrade-graph invariants (FBC spec §3.3) on generated channels.

A generated channel is sound by construction: one head, a ``replaces`` chain from it, every other
entry skipped by someone. Then one mutation at a time must produce exactly the matching finding:
dropping every edge into a bundle makes a second head, a back edge makes a replaces cycle, and the
head skipping the bundle it replaces strands the chain below.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from releasekit.model.fbc import (
    Bundle,
    Channel,
    ChannelEntry,
    DeclarativeConfig,
    Package,
    Property,
)
from releasekit.model.finding import Severity
from releasekit.rules.fbc import channel_heads, check_channel_graph, validate_config


@dataclass(frozen=True)
class Graph:
    entries: tuple[ChannelEntry, ...]
    head: str
    path: tuple[str, ...]  # head first, then its replaces chain


def name(i: int) -> str:
    return f"op.v0.{i}.0"


@st.composite
def sound_graphs(draw: st.DrawFn, min_size: int = 1) -> Graph:
    n = draw(st.integers(min_value=min_size, max_value=12))
    head = n - 1
    below = draw(st.sets(st.integers(0, max(head - 1, 0)), max_size=head)) if head else set()
    path = [head, *sorted(below, reverse=True)]
    off_path = [i for i in range(n) if i not in path]
    replaces: dict[int, str] = {}
    for a, b in zip(path, path[1:], strict=False):
        replaces[a] = name(b)
    replaces[path[-1]] = draw(st.sampled_from(["", "op.v0.gone.0"]))  # a tail may replace an absent bundle
    for i in off_path:  # their own replaces edges go anywhere earlier (never upward: no cycles)
        replaces[i] = draw(st.sampled_from(["", *[name(j) for j in range(i)]]))
    skips: dict[int, list[str]] = {i: [] for i in range(n)}
    for i in off_path:
        skipper = draw(st.sampled_from([j for j in range(n) if j != i]))
        skips[skipper].append(name(i))
    for i in range(n):
        if draw(st.booleans()):
            skips[i].append(f"op.v0.absent{i}.0")  # skipping absent names is fine
    order = draw(st.permutations(range(n)))
    entries = tuple(
        ChannelEntry(
            name=name(i),
            replaces=replaces[i],
            skips=tuple(skips[i]),
            skip_range=draw(st.sampled_from(["", f"<{i}.0.0"])) if i else "",
        )
        for i in order
    )
    return Graph(entries, name(head), tuple(name(i) for i in path))


def as_config(entries: tuple[ChannelEntry, ...]) -> DeclarativeConfig:
    bundles = tuple(
        Bundle(
            name=e.name,
            package="op",
            image=f"quay.io/example/op-bundle:{k}",
            properties=(Property(type="olm.package", value={"packageName": "op", "version": f"1.{k}.0"}),),
        )
        for k, e in enumerate(entries)
    )
    return DeclarativeConfig(
        packages=(Package(name="op", default_channel="stable"),),
        channels=(Channel(name="stable", package="op", entries=entries),),
        bundles=bundles,
    )


def _rewrite(entries: tuple[ChannelEntry, ...], target: str, **changes: object) -> tuple[ChannelEntry, ...]:
    return tuple(
        ChannelEntry(
            name=e.name,
            replaces=str(changes.get("replaces", e.replaces)),
            skips=tuple(changes.get("skips", e.skips)),  # type: ignore[call-overload]
            skip_range=e.skip_range,
        )
        if e.name == target
        else e
        for e in entries
    )


@given(sound_graphs())
def test_sound_graph_has_one_head_and_nothing_stranded(graph: Graph) -> None:
    assert channel_heads(graph.entries) == (graph.head,)
    assert check_channel_graph(graph.entries) is None
    assert [f for f in validate_config(as_config(graph.entries)) if f.severity is Severity.ERROR] == []


@given(sound_graphs(min_size=2), st.data())
def test_dropping_every_edge_into_a_bundle_makes_a_second_head(graph: Graph, data: st.DataObject) -> None:
    victim = data.draw(st.sampled_from([e.name for e in graph.entries if e.name != graph.head]))
    entries = tuple(
        ChannelEntry(
            name=e.name,
            replaces="" if e.replaces == victim else e.replaces,
            skips=tuple(s for s in e.skips if s != victim),
            skip_range=e.skip_range,
        )
        for e in graph.entries
    )
    problem = check_channel_graph(entries)
    assert problem is not None and problem.rule == "RK-FBC-044"
    assert (
        problem.message == f"multiple channel heads found in graph: {', '.join(sorted([graph.head, victim]))}"
    )
    assert "RK-FBC-044" in {f.rule for f in validate_config(as_config(entries))}


@given(sound_graphs(min_size=2), st.data())
def test_a_back_edge_from_the_tail_is_a_replaces_cycle(graph: Graph, data: st.DataObject) -> None:
    if len(graph.path) < 2:
        return
    tail = graph.path[-1]
    target = data.draw(st.sampled_from(graph.path[1:]))  # never the head: it must stay the only head
    entries = _rewrite(graph.entries, tail, replaces=target)
    problem = check_channel_graph(entries)
    cycle = [*graph.path[graph.path.index(target) :], target]
    assert problem is not None and problem.rule == "RK-FBC-045"
    assert problem.message == f"detected cycle in replaces chain of upgrade graph: {' -> '.join(cycle)}"


@given(sound_graphs(min_size=3))
def test_head_skipping_its_replaces_target_strands_the_chain_below(graph: Graph) -> None:
    if len(graph.path) < 3:
        return
    head_entry = next(e for e in graph.entries if e.name == graph.head)
    entries = _rewrite(graph.entries, graph.head, skips=(*head_entry.skips, graph.path[1]))
    problem = check_channel_graph(entries)
    assert problem is not None and problem.rule == "RK-FBC-046"
    assert problem.names == tuple(sorted(graph.path[2:]))
    assert (
        problem.message
        == f"channel contains one or more stranded bundles: {', '.join(sorted(graph.path[2:]))}"
    )
