"""Upgrade-graph analysis: what ``opm validate`` misses about who can upgrade to what.

Pure core: takes loaded or planned catalogs and returns data and findings; no I/O. opm's own per-channel
checks (one head, no ``replaces`` cycle, nothing stranded) are :mod:`releasekit.rules.fbc`'s.

**Edges.** An upgrade edge goes from an installed bundle (the *source*) to a channel entry (the
*target*): the entry's ``replaces``, each of its ``skips``, and -- unlike opm's graph checks -- its
``skipRange``, which makes every bundle of the package whose version is in the range a source. Edges
are known by bundle name, so a ``replaces`` may name a bundle of another channel (that is how
``replace-previous-minor`` links minors).

**Reaching the head.** OLM upgrades inside the channel a subscription names, but a user may switch the
subscription to another channel, and OLM then looks in that channel for an entry with an edge from the
installed bundle. So releasekit follows every edge of every channel of the package, by bundle name:
from bundle X one can move to entry Y of channel C when Y ``replaces``/``skips`` X or Y's ``skipRange``
contains X's version -- whichever channel X was installed from. (The special case "the same bundle is in
both channels" is covered: the bundle's edges are the same in each.) A bundle *reaches* the head when
such a path leads to the head of the package's default channel. Every bundle that does not is reported
with the reason, checked in this order: a stream boundary, a major-version boundary, a change of the
owned API group, an island channel the policy declares (``cross-minor: none``), else no reason.

**Across OpenShift versions.** When a cluster moves from OpenShift N to M (each cluster upgrade of the
OpenShift lifecycle -- minor, EUS to EUS, into a new major -- or, without one, each catalog to the next
in the stream's ``openshift`` order), every bundle of N's catalog must be in M's or have an edge there
(some entry of the package in M replaces or skips it, or its skipRange contains its version), or its
``olm.maxOpenShiftVersion`` keeps the cluster below M. Otherwise the cluster upgrade strands it; the severity is the caller's choice (a fixed one,
or :func:`published_severity`: known cases warn, new ones are errors).

Rule ids (stable, never renumbered), default severities, titles and hints: :data:`RULES`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from releasekit.model.fbc import PROP_GVK, PROP_PACKAGE, Bundle, Channel, ChannelEntry, DeclarativeConfig
from releasekit.model.finding import Finding, Location, Severity, make_finding
from releasekit.model.graph import (
    KIND_ORDER,
    ChannelView,
    Edge,
    EdgeKind,
    Node,
    PackageGraph,
    Reachability,
    Stranding,
)
from releasekit.model.stream import CrossMinor, OpenShiftVersion, Stream
from releasekit.model.tech_preview import PROP_MAX_OPENSHIFT, parse_max_openshift
from releasekit.model.version import (
    RangeError,
    Version,
    VersionError,
    go_quote,
    parse_range,
    parse_version,
)
from releasekit.rules.fbc import RuleInfo, channel_heads, entry_index

__all__ = [
    "ChannelView",
    "DEFAULT_POLICY",
    "Edge",
    "EdgeKind",
    "GraphPolicy",
    "Node",
    "PackageGraph",
    "RULES",
    "Reachability",
    "Stranding",
    "analyze_config",
    "analyze_package",
    "blocks_upgrade",
    "bundle_version",
    "check_graph",
    "check_openshift_upgrades",
    "entry_sources",
    "find_strandings",
    "published_pairs",
    "published_severity",
    "shortest_paths",
    "upgrade_adjacency",
]


# ------------------------------------------------------------------------------------------ rules


RULES: Final[Mapping[str, RuleInfo]] = {
    rid: RuleInfo(rid, title, hint, severity)
    for rid, (severity, title, hint) in {
        "RK-GRAPH-001": (
            Severity.ERROR,
            "edge to a lower or equal version",
            "an upgrade edge must come from an older bundle; drop the edge or narrow the skipRange",
        ),
        "RK-GRAPH-002": (
            Severity.WARNING,
            "replaces names no bundle of the package",
            "drop the replaces (a chain may simply end), or fix the bundle name",
        ),
        "RK-GRAPH-003": (
            Severity.ERROR,
            "edge across a change of the owned API group",
            "remove the edge: OLM cannot migrate objects of the old API group; document a manual "
            "migration instead",
        ),
        "RK-GRAPH-004": (
            Severity.ERROR,
            "edge across streams",
            "remove the edge: releases of different streams never upgrade into each other",
        ),
        "RK-GRAPH-005": (
            Severity.INFO,
            "island channel declared by the policy",
            "users switch to the newer channel by hand (cross-minor: none); set cross-minor: "
            "replace-previous-minor to link the minors",
        ),
        "RK-GRAPH-006": (
            Severity.WARNING,
            "bundle cannot reach the default channel's head",
            "give a newer bundle an edge from it (replaces, skips or a skipRange that contains its version)",
        ),
        "RK-GRAPH-007": (
            Severity.INFO,
            "major-version boundary",
            "nothing upgrades across a major version; users reinstall or migrate by hand",
        ),
        "RK-GRAPH-008": (
            Severity.INFO,
            "stream boundary",
            "streams never upgrade into each other; users move between streams by hand",
        ),
        "RK-GRAPH-009": (
            Severity.INFO,
            "owned API group differs from the head's",
            "no edge may cross an API-group change; document the manual migration",
        ),
        "RK-GRAPH-010": (
            Severity.WARNING,
            "OpenShift upgrade strands a bundle",
            "keep the bundle in the {to} catalog (add {to} to the release's catalogs), or give a bundle "
            "there an edge from it (replaces, skips or a skipRange that contains {version})",
        ),
    }.items()
}


# ----------------------------------------------------------------------------------------- policy


@dataclass(frozen=True, slots=True, kw_only=True)
class GraphPolicy:
    """What the release policy says about the graph, so that the rules work on any catalog.

    Attributes:
        islands_declared: minor channels are islands by design (``cross-minor: none``): a bundle that
            cannot leave its channel is RK-GRAPH-005 (info) instead of RK-GRAPH-006 (warning).
        api_group_of: bundle name → owned API group; bundles not in it (or all, when None) use the groups
            of their ``olm.gvk`` properties.
        stream_of: bundle name → stream; edges between streams are RK-GRAPH-004, and a bundle of another
            stream than the head's is RK-GRAPH-008. None: one stream.
    """

    islands_declared: bool = False
    api_group_of: Mapping[str, str] | None = None
    stream_of: Mapping[str, str] | None = None

    @classmethod
    def from_stream(cls, stream: Stream) -> GraphPolicy:
        """The policy of one stream: islands declared by ``cross-minor: none``, the releases' owned API."""
        groups = {
            r.csv_name(stream.package): r.owned_api.group for r in stream.releases if r.owned_api is not None
        }
        return cls(
            islands_declared=stream.upgrades.cross_minor is CrossMinor.NONE,
            api_group_of=groups,
            stream_of={r.csv_name(stream.package): stream.name for r in stream.releases},
        )


DEFAULT_POLICY: Final = GraphPolicy()
"""What ``catalog validate`` uses on a catalog without streams: undeclared islands are warnings."""


# ---------------------------------------------------------------------------------------- helpers


_q = go_quote


def _subject(package: str, channel: str = "", bundle: str = "") -> tuple[str, ...]:
    named = (("package", package), ("channel", channel), ("bundle", bundle))
    return tuple(f"{kind} {_q(name)}" for kind, name in named if name or kind == "package")


def _where(location: Location, file: str, path: str = "") -> Location:
    """The object's location, or the caller's catalog file for generated objects (which have none)."""
    return Location(
        file=location.file or file, line=location.line if location.file else None, path=path or location.path
    )


class _Findings(list[Finding]):
    """Findings whose hint and default severity come from :data:`RULES`."""

    def add(
        self,
        rule: str,
        message: str,
        location: Location,
        subject: tuple[str, ...],
        *,
        severity: Severity | None = None,
        facts: tuple[tuple[str, str], ...] = (),
        **hint_args: str,
    ) -> None:
        info = RULES[rule]
        hint = info.hint.format(**hint_args) if hint_args else info.hint
        finding = make_finding(rule, message, location, hint, subject, severity or info.severity)
        self.append(replace(finding, facts=facts) if facts else finding)


def bundle_version(bundle: Bundle) -> Version | None:
    """The version of a bundle's first ``olm.package`` property with one, None when it does not parse."""
    for prop in bundle.properties_of(PROP_PACKAGE):
        value = prop.value
        if isinstance(value, Mapping) and isinstance(value.get("version"), str):
            try:
                return parse_version(value["version"])
            except VersionError:
                return None
    return None


def _unique(entries: Iterable[ChannelEntry]) -> tuple[tuple[int, ChannelEntry], ...]:
    """Entries with a name, the first of a repeated name only (as opm's model keeps one), with indexes."""
    seen: set[str] = set()
    out = []
    for index, entry in enumerate(entries):
        if entry.name and entry.name not in seen:
            seen.add(entry.name)
            out.append((index, entry))
    return tuple(out)


def _version_key(node: Node) -> tuple[bool, Version, str]:
    return (node.version is None, node.version if node.version is not None else Version(0, 0, 0), node.name)


@dataclass(slots=True)
class _Package:
    """One package's blobs, gathered once."""

    name: str
    default_channel: str = ""
    channels: list[Channel] = field(default_factory=list)
    bundles: dict[str, Bundle] = field(default_factory=dict)


def _packages(config: DeclarativeConfig) -> dict[str, _Package]:
    packages: dict[str, _Package] = {}
    for pkg in config.packages:
        if pkg.name and pkg.name not in packages:
            packages[pkg.name] = _Package(name=pkg.name, default_channel=pkg.default_channel)
    for ch in config.channels:
        if (
            ch.package in packages
            and ch.name
            and all(c.name != ch.name for c in packages[ch.package].channels)
        ):
            packages[ch.package].channels.append(ch)
    for b in config.bundles:
        if b.package in packages:
            packages[b.package].bundles.setdefault(b.name, b)
    return packages


# --------------------------------------------------------------------------------------- analysis


def _api_groups(name: str, bundle: Bundle | None, policy: GraphPolicy) -> tuple[str, ...]:
    if policy.api_group_of is not None and name in policy.api_group_of:
        return (policy.api_group_of[name],)
    gvks = bundle.properties_of(PROP_GVK) if bundle is not None else ()
    groups = {p.value.get("group") if isinstance(p.value, Mapping) else None for p in gvks}
    return tuple(sorted(g for g in groups if isinstance(g, str)))


def _nodes(pkg: _Package, policy: GraphPolicy) -> dict[str, Node]:
    channels_of: dict[str, list[str]] = {}
    for ch in pkg.channels:
        for _, entry in _unique(ch.entry_list):
            channels_of.setdefault(entry.name, []).append(ch.name)
    nodes = {}
    for name, channels in channels_of.items():
        bundle = pkg.bundles.get(name)
        nodes[name] = Node(
            name=name,
            version=bundle_version(bundle) if bundle is not None else None,
            channels=tuple(sorted(channels)),
            api_groups=_api_groups(name, bundle, policy),
        )
    return nodes


def _edges(pkg: _Package, nodes: Mapping[str, Node]) -> list[tuple[Edge, Channel, str]]:
    """Every edge between bundles of the package, with the channel blob and the JSON path that makes it."""
    out: list[tuple[Edge, Channel, str]] = []
    for ch in pkg.channels:
        for index, entry in _unique(ch.entry_list):
            base = f"$.entries[{index}]"
            if entry.replaces in nodes:
                edge = Edge(channel=ch.name, target=entry.name, kind=EdgeKind.REPLACES, source=entry.replaces)
                out.append((edge, ch, f"{base}.replaces"))
            for j, skip in enumerate(entry.skips):
                if skip in nodes:
                    edge = Edge(channel=ch.name, target=entry.name, kind=EdgeKind.SKIPS, source=skip)
                    out.append((edge, ch, f"{base}.skips[{j}]"))
            if entry.skip_range:
                try:
                    skip_range = parse_range(entry.skip_range)
                except RangeError:
                    continue  # RK-FBC-051
                for node in nodes.values():
                    if (
                        node.name != entry.name
                        and node.version is not None
                        and skip_range.contains(node.version)
                    ):
                        edge = Edge(
                            channel=ch.name, target=entry.name, kind=EdgeKind.SKIP_RANGE, source=node.name
                        )
                        out.append((edge, ch, f"{base}.skipRange"))
    return out


def upgrade_adjacency(edges: Iterable[Edge]) -> dict[str, list[str]]:
    """Where each bundle can upgrade to: the distinct targets of its edges, sorted (deterministic paths)."""
    targets: dict[str, set[str]] = {}
    for edge in edges:
        targets.setdefault(edge.source, set()).add(edge.target)
    return {source: sorted(names) for source, names in targets.items()}


def shortest_paths(start: str, adjacency: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """Breadth-first from ``start``; neighbours in sorted order, so every path is deterministic."""
    paths: dict[str, tuple[str, ...]] = {start: (start,)}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        for nxt in adjacency.get(current, ()):
            if nxt not in paths:
                paths[nxt] = (*paths[current], nxt)
                queue.append(nxt)
    return paths


def _reason(node: Node, head: Node, pkg: _Package, policy: GraphPolicy) -> str:
    stream_of = policy.stream_of or {}
    if stream_of.get(node.name, "") != stream_of.get(head.name, ""):
        return "RK-GRAPH-008"
    if node.version is not None and head.version is not None and node.version.major != head.version.major:
        return "RK-GRAPH-007"
    if node.api_groups and head.api_groups and not set(node.api_groups) <= set(head.api_groups):
        return "RK-GRAPH-009"
    if policy.islands_declared and pkg.default_channel not in node.channels:
        return "RK-GRAPH-005"
    return "RK-GRAPH-006"


def _analyze(pkg: _Package, policy: GraphPolicy) -> tuple[PackageGraph, list[tuple[Edge, Channel, str]]]:
    nodes = _nodes(pkg, policy)
    located = _edges(pkg, nodes)
    edges = sorted(
        {edge for edge, _, _ in located}, key=lambda e: (e.channel, e.target, KIND_ORDER[e.kind], e.source)
    )
    channels = tuple(
        ChannelView(
            name=ch.name,
            entries=tuple(e.name for _, e in _unique(ch.entry_list)),
            heads=channel_heads(e for _, e in _unique(ch.entry_list)),
        )
        for ch in sorted(pkg.channels, key=lambda c: c.name)
    )
    default = next((c for c in channels if c.name == pkg.default_channel), None)
    head = default.heads[0] if default is not None and len(default.heads) == 1 else None
    adjacency = upgrade_adjacency(edges)
    ordered = sorted(nodes.values(), key=_version_key)
    rows = []
    for node in ordered:
        path = shortest_paths(node.name, adjacency).get(head) if head is not None else None
        rows.append(
            Reachability(
                bundle=node.name,
                version=str(node.version) if node.version is not None else "",
                reachable=path is not None,
                path=path or (),
                reason=_reason(node, nodes[head], pkg, policy) if head is not None and path is None else None,
            )
        )
    graph = PackageGraph(
        package=pkg.name,
        default_channel=pkg.default_channel,
        default_head=head,
        nodes=tuple(ordered),
        edges=tuple(edges),
        channels=channels,
        reachability=tuple(rows),
    )
    return graph, located


def analyze_package(
    config: DeclarativeConfig, package: str, policy: GraphPolicy = DEFAULT_POLICY
) -> PackageGraph | None:
    """The upgrade graph of ``package`` in ``config`` (None when the config declares no such package)."""
    pkg = _packages(config).get(package)
    return _analyze(pkg, policy)[0] if pkg is not None else None


def analyze_config(
    config: DeclarativeConfig, policy: GraphPolicy = DEFAULT_POLICY
) -> tuple[PackageGraph, ...]:
    """The upgrade graph of every package of ``config``, sorted by package name."""
    return tuple(_analyze(pkg, policy)[0] for _, pkg in sorted(_packages(config).items()))


# ---------------------------------------------------------------------------------------- findings


def _edge_findings(
    pkg: _Package,
    graph: PackageGraph,
    located: Sequence[tuple[Edge, Channel, str]],
    policy: GraphPolicy,
    file: str,
) -> list[Finding]:
    findings = _Findings()
    nodes = {n.name: n for n in graph.nodes}
    stream_of = policy.stream_of or {}
    for edge, ch, path in located:
        source, target = nodes[edge.source], nodes[edge.target]
        where = _where(ch.location, file, path)
        subject = _subject(pkg.name, ch.name, edge.target)
        how = (
            f"{edge.kind.value} {_q(edge.source)}"
            if edge.kind is not EdgeKind.SKIP_RANGE
            else f"skipRange covers {_q(edge.source)}"
        )
        if source.version is not None and target.version is not None and target.version <= source.version:
            findings.add(
                "RK-GRAPH-001",
                f"bundle {_q(edge.target)} ({target.version}) {how} ({source.version}): an upgrade edge "
                f"to a {'lower' if target.version < source.version else 'equal'} version",
                where,
                subject,
            )
        if source.api_groups and target.api_groups and not set(source.api_groups) <= set(target.api_groups):
            findings.add(
                "RK-GRAPH-003",
                f"bundle {_q(edge.target)} {how} across a change of the owned API group "
                f"({', '.join(source.api_groups)} -> {', '.join(target.api_groups)})",
                where,
                subject,
            )
        if stream_of.get(edge.source, "") != stream_of.get(edge.target, ""):
            findings.add(
                "RK-GRAPH-004",
                f"bundle {_q(edge.target)} (stream {_q(stream_of.get(edge.target, ''))}) {how} "
                f"(stream {_q(stream_of.get(edge.source, ''))}): an edge across streams",
                where,
                subject,
            )
    names = set(nodes) | set(pkg.bundles)
    for ch in pkg.channels:
        for index, entry in _unique(ch.entry_list):
            if entry.replaces and entry.replaces not in names:
                findings.add(
                    "RK-GRAPH-002",
                    f"bundle {_q(entry.name)} replaces {_q(entry.replaces)}, which is no bundle of package "
                    f"{_q(pkg.name)}: the replaces chain of channel {_q(ch.name)} ends in nothing",
                    _where(ch.location, file, f"$.entries[{index}].replaces"),
                    _subject(pkg.name, ch.name, entry.name),
                )
    return findings


def _reach_message(row: Reachability, graph: PackageGraph, node: Node, head: Node, furthest: str) -> str:
    start = f"bundle {_q(row.bundle)} cannot reach {_q(head.name)}, the head of default channel {_q(graph.default_channel)}"
    end = f" (its upgrades end at {_q(furthest)})" if furthest != row.bundle else ""
    reason = row.reason
    if reason == "RK-GRAPH-005":
        why = f": channel {_q(node.channels[0])} is an island, as the policy declares (cross-minor: none)"
    elif reason == "RK-GRAPH-007":
        major_from = node.version.major if node.version is not None else "?"
        major_to = head.version.major if head.version is not None else "?"
        why = f": it is of major version {major_from} and nothing upgrades across a major (to {major_to})"
    elif reason == "RK-GRAPH-008":
        why = ": it belongs to another stream than the head"
    elif reason == "RK-GRAPH-009":
        why = (
            f": it owns API group {', '.join(node.api_groups)} and the head owns {', '.join(head.api_groups)}; "
            "no edge may cross that change"
        )
    else:
        islands = [c for c in node.channels if c != graph.default_channel]
        why = (
            f": channel {_q(islands[0])} has no edge into the rest of the package"
            if islands and furthest == row.bundle
            else ": no upgrade path leads there"
        )
    return start + end + why


def _furthest(bundle: str, graph: PackageGraph) -> str:
    reached = shortest_paths(bundle, upgrade_adjacency(graph.edges))
    nodes = [n for n in graph.nodes if n.name in reached]
    return max(nodes, key=_version_key).name if nodes else bundle


def _reach_findings(pkg: _Package, graph: PackageGraph, file: str) -> list[Finding]:
    if graph.default_head is None:
        return []  # no single head: opm's RK-FBC-041/043/044 say so
    head = graph.node(graph.default_head)
    assert head is not None
    findings = _Findings()
    for row in graph.reachability:
        if row.reachable or row.reason is None:
            continue
        node = graph.node(row.bundle)
        assert node is not None
        bundle = pkg.bundles.get(row.bundle)
        channel = next(c for c in pkg.channels if c.name == node.channels[0])
        location = (
            _where(bundle.location, file, "$.name")
            if bundle is not None and bundle.location.file
            else _where(channel.location, file, f"$.entries[{entry_index(channel, row.bundle)}]")
        )
        findings.add(
            row.reason,
            _reach_message(row, graph, node, head, _furthest(row.bundle, graph)),
            location,
            _subject(pkg.name, node.channels[0], row.bundle),
        )
    return findings


def check_graph(
    config: DeclarativeConfig, policy: GraphPolicy = DEFAULT_POLICY, *, file: str = ""
) -> tuple[Finding, ...]:
    """RK-GRAPH-001 … 009 for every package of ``config``.

    ``file`` is the catalog path to point at when objects carry no location (generated configs).
    """
    findings = _Findings()
    for _, pkg in sorted(_packages(config).items()):
        graph, located = _analyze(pkg, policy)
        findings.extend(_edge_findings(pkg, graph, located, policy, file))
        findings.extend(_reach_findings(pkg, graph, file))
    return tuple(findings)


# ------------------------------------------------------------------------------ across OpenShift


def entry_sources(config: DeclarativeConfig, package: str, name: str, version: Version | None) -> list[str]:
    """Entries of ``package`` that upgrade from bundle ``name``: they replace or skip it, or skipRange its version."""
    pkg = _packages(config).get(package)
    source = {name: Node(name=name, version=version, channels=())}
    return sorted({edge.target for edge, _, _ in _edges(pkg, source)}) if pkg is not None else []


def blocks_upgrade(bundle: Bundle | None, target: str) -> str | None:
    """The bundle's ``olm.maxOpenShiftVersion`` when it is below ``target`` (vX.Y), else None.

    While it is installed the cluster reports Upgradeable=False and never reaches ``target`` with it, so
    the upgrade cannot strand it.
    """
    if bundle is None:
        return None
    try:
        wanted = OpenShiftVersion.parse(target)
    except ValueError:
        return None
    for prop in bundle.properties_of(PROP_MAX_OPENSHIFT):
        limit = parse_max_openshift(prop.value)
        if limit is not None and limit < wanted:
            return str(prop.value)
    return None


def find_strandings(
    catalogs: Sequence[tuple[str, DeclarativeConfig]], edges: Sequence[tuple[str, str]] | None = None
) -> tuple[Stranding, ...]:
    """Bundles that a cluster upgrade from one catalog to another strands, along each upgrade edge.

    ``catalogs`` are ``(openshift, config)`` in cluster-upgrade order; ``edges`` the cluster upgrades
    ``(from, to)`` to check (the OpenShift lifecycle's, EUS to EUS and into a new major included); None:
    each catalog to the next. What strands a bundle: see the module docstring.
    """
    out: list[Stranding] = []
    by_name = dict(catalogs)
    pairs = (
        list(zip(catalogs, catalogs[1:], strict=False))
        if edges is None
        else [((a, by_name[a]), (b, by_name[b])) for a, b in edges if a in by_name and b in by_name]
    )
    for (older, old_config), (newer, new_config) in pairs:
        new_packages = _packages(new_config)
        for name, pkg in sorted(_packages(old_config).items()):
            nodes = _nodes(pkg, DEFAULT_POLICY)
            target = new_packages.get(name, _Package(name))
            # a bundle of the newer catalog, or the source of an edge there, is not stranded
            kept = set(_nodes(target, DEFAULT_POLICY)) | {edge.source for edge, _, _ in _edges(target, nodes)}
            for node in sorted(nodes.values(), key=_version_key):
                if node.name in kept:
                    continue
                if blocks_upgrade(pkg.bundles.get(node.name), newer):
                    continue  # the cluster cannot upgrade to ``newer`` while it is installed
                out.append(
                    Stranding(
                        package=name,
                        bundle=node.name,
                        version=str(node.version) if node.version is not None else "",
                        openshift_from=older,
                        openshift_to=newer,
                    )
                )
    return tuple(out)


def published_pairs(catalogs: Iterable[tuple[str, DeclarativeConfig]]) -> frozenset[tuple[str, str]]:
    """``(bundle, openshift)`` for every bundle in a channel entry of each catalog (what is published)."""
    pairs: set[tuple[str, str]] = set()
    for openshift, config in catalogs:
        for ch in config.channels:
            pairs.update((e.name, openshift) for e in ch.entry_list if e.name)
    return frozenset(pairs)


def published_severity(
    published: Iterable[tuple[str, str]],
    *,
    known: Severity = Severity.WARNING,
    new: Severity = Severity.ERROR,
) -> Callable[[Stranding], Severity]:
    """A severity callback: a stranding that is already published is ``known``, any other is ``new``.

    ``published`` holds ``(bundle, openshift)`` pairs of the published catalogs. A stranding is already
    published when the bundle was published on the older version, the newer version's catalog is published
    too, and the bundle was never published there: so a new catalog that drops a bundle, or removing a
    published bundle from a catalog, is new.
    """
    pairs = frozenset(published)
    catalogs = {openshift for _, openshift in pairs}

    def severity(stranding: Stranding) -> Severity:
        was_published = (stranding.bundle, stranding.openshift_from) in pairs
        target_published = stranding.openshift_to in catalogs
        removed = (stranding.bundle, stranding.openshift_to) in pairs
        return known if was_published and target_published and not removed else new

    return severity


def check_openshift_upgrades(
    catalogs: Sequence[tuple[str, DeclarativeConfig]],
    *,
    severity: Severity | Callable[[Stranding], Severity] = Severity.WARNING,
    files: Mapping[str, str] | None = None,
    edges: Sequence[tuple[str, str]] | None = None,
) -> tuple[Finding, ...]:
    """RK-GRAPH-010: one finding per stranding (see :func:`find_strandings`; ``edges`` as there).

    ``severity`` is fixed or decided per stranding (:func:`published_severity`); ``files`` maps an
    OpenShift version to its catalog path, for bundle blobs without a location.
    """
    bundles = {(openshift, b.package, b.name): b for openshift, config in catalogs for b in config.bundles}
    findings = _Findings()
    for s in find_strandings(catalogs, edges):
        level = severity(s) if callable(severity) else severity
        bundle = bundles.get((s.openshift_from, s.package, s.bundle))
        file = (files or {}).get(s.openshift_from, "")
        location = _where(bundle.location, file, "$.name") if bundle is not None else Location(file=file)
        findings.add(
            "RK-GRAPH-010",
            f"bundle {_q(s.bundle)} is in the {s.openshift_from} catalog but not in "
            f"{s.openshift_to}, and no bundle there upgrades from it: a cluster upgraded from "
            f"{s.openshift_from} to {s.openshift_to} strands it",
            location,
            _subject(s.package, "", s.bundle),
            severity=level,
            facts=(("from", s.openshift_from), ("to", s.openshift_to)),
            to=s.openshift_to,
            version=s.version or "its version",
        )
    return tuple(findings)
