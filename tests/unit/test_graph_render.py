"""The graph renderers: exact Mermaid, DOT and JSON for a small hand-made package.

The expected texts are written by hand: channels sorted by name, entries in channel order, heads marked,
edges in the graph's order (channel, target, replaces < skips < skipRange, source).
"""

from __future__ import annotations

import json

from releasekit.model.fbc import Bundle, Channel, ChannelEntry, DeclarativeConfig, Package, Property
from releasekit.model.graph import PackageGraph
from releasekit.plan.graph_render import render_dot, render_json, render_mermaid
from releasekit.rules.graph import analyze_package


def _bundle(version: str, package: str = "p") -> Bundle:
    return Bundle(
        name=f"{package}.v{version}",
        package=package,
        image=f"quay.io/example/{package}:v{version}",
        properties=(Property(type="olm.package", value={"packageName": package, "version": version}),),
    )


def small() -> DeclarativeConfig:
    """stable-v1.0: 1.0.0, 1.0.1 (skips 1.0.0); stable-v1.1 (default): 1.1.0 (replaces 1.0.1, skipRange)."""
    return DeclarativeConfig(
        packages=(Package(name="p", default_channel="stable-v1.1"),),
        channels=(
            Channel(
                name="stable-v1.1",
                package="p",
                entries=(ChannelEntry(name="p.v1.1.0", replaces="p.v1.0.1", skip_range=">=1.0.0 <1.0.1"),),
            ),
            Channel(
                name="stable-v1.0",
                package="p",
                entries=(ChannelEntry(name="p.v1.0.0"), ChannelEntry(name="p.v1.0.1", skips=("p.v1.0.0",))),
            ),
        ),
        bundles=tuple(_bundle(v) for v in ("1.0.0", "1.0.1", "1.1.0")),
    )


def graph() -> PackageGraph:
    result = analyze_package(small(), "p")
    assert result is not None
    return result


MERMAID = """\
flowchart LR
  %% package p, default channel stable-v1.1
  classDef head stroke-width:3px
  subgraph c1["stable-v1.0"]
    c1b1["p.v1.0.0"]
    c1b2["p.v1.0.1 (head)"]:::head
  end
  subgraph c2["stable-v1.1 (default)"]
    c2b1["p.v1.1.0 (head)"]:::head
  end
  c1b1 -- skips --> c1b2
  c1b2 -- replaces --> c2b1
  c1b1 -- skipRange --> c2b1
"""

DOT = """\
digraph upgrades {
  rankdir=LR;
  node [shape=box];
  subgraph cluster_p1 {
    label="p (default channel stable-v1.1)";
    subgraph cluster_p1c1 {
      label="stable-v1.0";
      p1c1b1 [label="p.v1.0.0"];
      p1c1b2 [label="p.v1.0.1", peripheries=2];
    }
    subgraph cluster_p1c2 {
      label="stable-v1.1 (default)";
      style=bold;
      p1c2b1 [label="p.v1.1.0", peripheries=2];
    }
  }
  p1c1b1 -> p1c1b2 [label="skips", style=dashed];
  p1c1b2 -> p1c2b1 [label="replaces", style=solid];
  p1c1b1 -> p1c2b1 [label="skipRange", style=dotted];
}
"""


def test_mermaid() -> None:
    assert render_mermaid(graph()) == MERMAID


def test_dot() -> None:
    assert render_dot([graph()]) == DOT


def test_json() -> None:
    document = json.loads(render_json([graph()]))
    assert document["schema"] == "releasekit/graph/v1"
    (package,) = document["packages"]
    assert package["defaultHead"] == "p.v1.1.0"
    assert package["channels"] == [
        {"name": "stable-v1.0", "entries": ["p.v1.0.0", "p.v1.0.1"], "heads": ["p.v1.0.1"]},
        {"name": "stable-v1.1", "entries": ["p.v1.1.0"], "heads": ["p.v1.1.0"]},
    ]
    assert package["edges"] == [
        {"from": "p.v1.0.0", "to": "p.v1.0.1", "channel": "stable-v1.0", "kind": "skips"},
        {"from": "p.v1.0.1", "to": "p.v1.1.0", "channel": "stable-v1.1", "kind": "replaces"},
        {"from": "p.v1.0.0", "to": "p.v1.1.0", "channel": "stable-v1.1", "kind": "skipRange"},
    ]
    assert package["nodes"][0] == {
        "name": "p.v1.0.0",
        "version": "1.0.0",
        "channels": ["stable-v1.0"],
        "apiGroups": [],
    }
    assert package["reachability"] == [
        {
            "bundle": "p.v1.0.0",
            "version": "1.0.0",
            "reachable": True,
            "path": ["p.v1.0.0", "p.v1.1.0"],
            "reason": None,
        },
        {
            "bundle": "p.v1.0.1",
            "version": "1.0.1",
            "reachable": True,
            "path": ["p.v1.0.1", "p.v1.1.0"],
            "reason": None,
        },
        {"bundle": "p.v1.1.0", "version": "1.1.0", "reachable": True, "path": ["p.v1.1.0"], "reason": None},
    ]


def test_output_is_deterministic_whatever_the_blob_order() -> None:
    shuffled = small()
    shuffled = DeclarativeConfig(
        packages=shuffled.packages,
        channels=tuple(reversed(shuffled.channels)),
        bundles=tuple(reversed(shuffled.bundles)),
    )
    again = analyze_package(shuffled, "p")
    assert again is not None
    assert render_mermaid(again) == MERMAID
    assert render_dot([again]) == DOT
    assert render_json([again]) == render_json([graph()])


def test_a_bundle_in_two_channels_appears_in_both_and_outside_edges_start_at_its_first() -> None:
    cfg = DeclarativeConfig(
        packages=(Package(name="q", default_channel="stable"),),
        channels=(
            Channel(name="fast", package="q", entries=(ChannelEntry(name="q.v1.0.0"),)),
            Channel(
                name="stable",
                package="q",
                entries=(ChannelEntry(name="q.v1.0.0"), ChannelEntry(name="q.v1.1.0", replaces="q.v1.0.0")),
            ),
            Channel(
                name="candidate", package="q", entries=(ChannelEntry(name="q.v1.2.0", skips=("q.v1.0.0",)),)
            ),
        ),
        bundles=tuple(_bundle(v, "q") for v in ("1.0.0", "1.1.0", "1.2.0")),
    )
    g = analyze_package(cfg, "q")
    assert g is not None
    text = render_mermaid(g)
    assert '    c2b1["q.v1.0.0 (head)"]:::head' in text  # fast (c2) has it as its head
    assert '    c3b1["q.v1.0.0"]' in text  # stable (c3) has it too
    assert "  c3b1 -- replaces --> c3b2" in text  # inside stable: its own node
    assert "  c2b1 -- skips --> c1b1" in text  # into candidate (c1): from its first channel, fast


def test_quotes_in_names_are_escaped() -> None:
    cfg = DeclarativeConfig(
        packages=(Package(name="r", default_channel='a"b'),),
        channels=(Channel(name='a"b', package="r", entries=(ChannelEntry(name="r.v1.0.0"),)),),
        bundles=(_bundle("1.0.0", "r"),),
    )
    g = analyze_package(cfg, "r")
    assert g is not None
    assert 'subgraph c1["a#quot;b (default)"]' in render_mermaid(g)
    assert 'label="a\\"b (default)";' in render_dot([g])
