"""Pull-request rules: what changed between a base and a head revision, and what must not change.

Pure core: the caller (:mod:`releasekit.jobs.check`) loads both revisions and hands over each touched
package's catalog at base and head (:class:`PackageCatalog`) and the streams of both; nothing here reads
files or git.

Rule ids (``RK-DIFF-NNN``, stable, never renumbered), titles and severities: :data:`RULES`.

Stranding across OpenShift upgrades is :mod:`releasekit.rules.graph`'s RK-GRAPH-010; ``check`` runs it
with the base's published pairs, so a stranding new at head is an error and a published one a warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from releasekit.model.fbc import Bundle, DeclarativeConfig
from releasekit.model.finding import Finding, Findings, Location, Severity
from releasekit.model.finding import make_finding as _f
from releasekit.model.graph import Edge, Node, PackageGraph
from releasekit.model.ruledoc import RuleFacts
from releasekit.model.stream import Release, Stream, openshift_order
from releasekit.model.version import Version
from releasekit.rules.graph import (
    analyze_package,
    entry_sources,
    shortest_paths,
    upgrade_adjacency,
)

__all__ = [
    "EXEMPT_CHANNEL_WORDS",
    "RULES",
    "RULE_BUNDLE_CONTENT",
    "RULE_BUNDLE_REMOVED",
    "RULE_CHANGES",
    "RULE_CHANNEL_REMOVED",
    "RULE_DRIFT",
    "RULE_RECORDED_FACTS",
    "RULE_STRANDED",
    "CatalogChange",
    "PackageCatalog",
    "bundle_field_changes",
    "changed_bundles",
    "check_bundle_content",
    "check_changes",
    "check_diff",
    "check_pruning",
    "check_recorded_facts",
    "check_stranded",
    "in_catalog_order",
    "release_facts",
    "summarize_changes",
]

RULE_DRIFT = "RK-DIFF-001"
RULE_CHANGES = "RK-DIFF-002"
RULE_BUNDLE_REMOVED = "RK-DIFF-003"
RULE_CHANNEL_REMOVED = "RK-DIFF-004"
RULE_BUNDLE_CONTENT = "RK-DIFF-005"
RULE_RECORDED_FACTS = "RK-DIFF-006"
RULE_STRANDED = "RK-DIFF-007"

RULES: Final[dict[str, RuleFacts]] = {
    RULE_DRIFT: RuleFacts("catalog/ is out of sync with streams/"),
    RULE_CHANGES: RuleFacts("a catalog changed (bundles, channels, edges, default channel)", Severity.INFO),
    RULE_BUNDLE_REMOVED: RuleFacts("a published bundle was removed from a channel or catalog"),
    RULE_CHANNEL_REMOVED: RuleFacts("a published channel was removed"),
    RULE_BUNDLE_CONTENT: RuleFacts("a released bundle's content changed"),
    RULE_RECORDED_FACTS: RuleFacts("a released version's recorded facts in streams/ changed"),
    RULE_STRANDED: RuleFacts("a version installable at base no longer reaches a channel head"),
}

EXEMPT_CHANNEL_WORDS: Final = ("dev-preview", "pre-ga", "candidate")
"""Channel-name parts whose channels may lose entries (Konflux's pruning-check exception)."""

_PRUNING_HINT = (
    "published bundles and channels stay in every catalog they were in (Konflux "
    "fbc-target-index-pruning-check); deprecate or withdraw a release instead of removing it"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PackageCatalog:
    """One package's catalog in one OpenShift version, at one revision."""

    openshift: str
    package: str
    config: DeclarativeConfig
    file: str = ""


CatalogKey = tuple[str, str]
"""``(openshift, package)``."""


def in_catalog_order(keys: Iterable[CatalogKey]) -> list[CatalogKey]:
    """``keys`` sorted by OpenShift version (in upgrade order), then package."""
    return sorted(keys, key=lambda k: (openshift_order(k[0]), k[1]))


# ---------------------------------------------------------------------------------- graph helpers


def _head_reacher(graph: PackageGraph | None, config: DeclarativeConfig | None) -> Callable[[Node], bool]:
    """Whether a user on a node (of any revision) can follow ``graph``'s edges to the head of its channel.

    The goal is the newest head of each channel that lists the bundle (one that lost its edge and became a
    second head has not arrived). A bundle gone from ``graph`` may reach any channel's head, through an
    entry that still replaces or skips it or whose skipRange holds its version.
    """
    if graph is None or config is None:
        return lambda _node: False

    def rank(name: str) -> tuple[bool, Version, str]:
        node = graph.node(name)
        version = node.version if node is not None else None
        return (version is not None, version or Version(major=0, minor=0, patch=0), name)

    tops = {channel.name: max(channel.heads, key=rank) for channel in graph.channels if channel.heads}
    adjacency = upgrade_adjacency(graph.edges)

    def reaches(node: Node) -> bool:
        mine = graph.node(node.name)
        goals = {tops[c] for c in mine.channels if c in tops} if mine is not None else set(tops.values())
        sources = adjacency
        if mine is None:
            sources = {**adjacency, node.name: entry_sources(config, graph.package, node.name, node.version)}
        return not goals.isdisjoint(shortest_paths(node.name, sources))

    return reaches


def _contents(catalog: PackageCatalog | None, package: str) -> tuple[set[str], set[str], set[Edge], str]:
    """Bundle names, channel names, upgrade edges and default channel of one package catalog (or none)."""
    if catalog is None:
        return set(), set(), set(), ""
    config = catalog.config
    graph = analyze_package(config, package)
    return (
        {b.name for b in config.bundles},
        {c.name for c in config.channels},
        set(graph.edges) if graph is not None else set(),
        config.packages[0].default_channel if config.packages else "",
    )


# ------------------------------------------------------------------------------------------ changes


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogChange:
    """What changed in one package's catalog of one OpenShift version (names sorted)."""

    openshift: str
    package: str
    bundles_added: tuple[str, ...] = ()
    bundles_removed: tuple[str, ...] = ()
    channels_added: tuple[str, ...] = ()
    channels_removed: tuple[str, ...] = ()
    edges_added: tuple[Edge, ...] = ()
    edges_removed: tuple[Edge, ...] = ()
    default_before: str = ""
    default_after: str = ""
    file: str = ""

    def _named(self) -> list[tuple[str, str, str, tuple[str, ...]]]:
        """(noun, verb, sign, names) of the bundles and channels added and removed."""
        return [
            ("bundle", "added", "+", self.bundles_added),
            ("bundle", "removed", "-", self.bundles_removed),
            ("channel", "added", "+", self.channels_added),
            ("channel", "removed", "-", self.channels_removed),
        ]

    def lines(self) -> tuple[str, ...]:
        """What changed, one kind per line (``bundles added: a, b``; ``default channel: x → y``)."""
        out = [f"{noun}s {verb}: {', '.join(names)}" for noun, verb, _, names in self._named() if names]
        if self.default_before != self.default_after:
            out.append(
                f"default channel: {self.default_before or '(none)'} → {self.default_after or '(none)'}"
            )
        for verb, edges in (("added", self.edges_added), ("removed", self.edges_removed)):
            if edges:
                out.append(f"edges {verb}: {', '.join(_edge_text(e, '→') for e in edges)}")
        return tuple(out)

    def describe(self) -> str:
        """One line: ``+bundle kueue-operator.v1.4.2; +edge ...; default channel a -> b``."""
        parts = [f"{sign}{noun} {name}" for noun, _, sign, names in self._named() for name in names]
        parts += [f"+edge {_edge_text(e, '->')}" for e in self.edges_added]
        parts += [f"-edge {_edge_text(e, '->')}" for e in self.edges_removed]
        if self.default_before != self.default_after:
            parts.append(
                f"default channel {self.default_before or '(none)'} -> {self.default_after or '(none)'}"
            )
        return "; ".join(parts)


def _edge_text(edge: Edge, arrow: str) -> str:
    return f"{edge.source} {arrow} {edge.target} ({edge.kind}, {edge.channel})"


def summarize_changes(
    base: Mapping[CatalogKey, PackageCatalog], head: Mapping[CatalogKey, PackageCatalog]
) -> tuple[CatalogChange, ...]:
    """The change of every (OpenShift version, package) present at base or head, non-empty ones only."""
    out: list[CatalogChange] = []
    for key in in_catalog_order(set(base) | set(head)):
        b_bundles, b_channels, b_edges, b_default = _contents(base.get(key), key[1])
        a_bundles, a_channels, a_edges, a_default = _contents(head.get(key), key[1])
        change = CatalogChange(
            openshift=key[0],
            package=key[1],
            bundles_added=tuple(sorted(a_bundles - b_bundles)),
            bundles_removed=tuple(sorted(b_bundles - a_bundles)),
            channels_added=tuple(sorted(a_channels - b_channels)),
            channels_removed=tuple(sorted(b_channels - a_channels)),
            edges_added=tuple(sorted(a_edges - b_edges)),
            edges_removed=tuple(sorted(b_edges - a_edges)),
            default_before=b_default,
            default_after=a_default,
            file=(head[key] if key in head else base[key]).file,
        )
        if change.lines():  # something a user sees changed (content changes are RK-DIFF-005's)
            out.append(change)
    return tuple(out)


def check_changes(changes: Iterable[CatalogChange]) -> tuple[Finding, ...]:
    """RK-DIFF-002: one note per changed package catalog, listing what changed."""
    return tuple(
        _f(
            RULE_CHANGES,
            f"{c.openshift} {c.package}: {c.describe()}",
            Location(file=c.file),
            "check that every user still reaches a channel head; `--format markdown` draws the "
            "before/after upgrade graph",
            (c.openshift, c.package),
            Severity.INFO,
        )
        for c in changes
    )


# ------------------------------------------------------------------------------------------ pruning


def _where(head: PackageCatalog | None, base: PackageCatalog, line: int | None = None) -> Location:
    if head is not None:
        package_line = head.config.packages[0].location.line if head.config.packages else None
        return Location(file=head.file, line=package_line)
    return Location(file=base.file, line=line)


def check_pruning(
    base: Mapping[CatalogKey, PackageCatalog], head: Mapping[CatalogKey, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-003 (a bundle left a channel) and RK-DIFF-004 (a channel went away)."""
    out = Findings()
    for key in in_catalog_order(base):
        old = base[key]
        new = head.get(key)
        new_channels = {c.name: c for c in new.config.channels} if new else {}
        lost: dict[str, list[str]] = {}
        for channel in old.config.channels:
            if any(word in channel.name.lower() for word in EXEMPT_CHANNEL_WORDS):
                continue
            after = new_channels.get(channel.name)
            if after is None:
                members = ", ".join(e.name for e in channel.entry_list) or "no entries"
                out.add(
                    RULE_CHANNEL_REMOVED,
                    f"published channel {channel.name!r} of {old.package} was removed from the "
                    f"{old.openshift} catalog (it held {members})",
                    _where(new, old, channel.location.line),
                    _PRUNING_HINT,
                    (old.openshift, old.package, channel.name),
                )
            kept = {e.name for e in after.entry_list} if after else set()
            for entry in channel.entry_list:
                if entry.name not in kept:
                    lost.setdefault(entry.name, []).append(channel.name)
        for bundle, channels in sorted(lost.items()):
            out.add(
                RULE_BUNDLE_REMOVED,
                f"published bundle {bundle} was removed from the {old.openshift} catalog of "
                f"{old.package} (channel {', '.join(channels)})",
                _where(new, old),
                _PRUNING_HINT,
                (old.openshift, old.package, bundle),
            )
    return tuple(out)


# ----------------------------------------------------------------------------------- bundle content


def _leaf_diffs(path: str, before: Any, after: Any, out: list[str]) -> None:
    if before == after:
        return
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in sorted(set(before) | set(after), key=str):
            _leaf_diffs(f"{path}.{key}", before.get(key), after.get(key), out)
        return
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (b, a) in enumerate(zip(before, after, strict=True)):
            _leaf_diffs(f"{path}[{index}]", b, a, out)
        return
    out.append(path)


def _bundle_wire(bundle: Bundle) -> dict[str, Any]:
    grouped: dict[str, list[Any]] = {}
    for prop in bundle.properties:
        grouped.setdefault(prop.type, []).append(prop.value)
    properties = {k: v[0] if len(v) == 1 else v for k, v in grouped.items()}
    return {
        "image": bundle.image,
        "properties": json.loads(json.dumps(properties, default=str)),
        "relatedImages": [{"name": r.name, "image": r.image} for r in bundle.related_images or ()],
        "objects": json.loads(json.dumps(list(bundle.objects), default=str)),
    }


def bundle_field_changes(before: Bundle, after: Bundle) -> tuple[str, ...]:
    """Paths of the fields that differ between two versions of one bundle (``properties.olm.csv.metadata.annotations.containerImage``)."""
    out: list[str] = []
    _leaf_diffs("", _bundle_wire(before), _bundle_wire(after), out)
    return tuple(p.lstrip(".") for p in out)


def changed_bundles(
    base: Mapping[CatalogKey, PackageCatalog], head: Mapping[CatalogKey, PackageCatalog]
) -> Iterator[tuple[CatalogKey, Bundle, Bundle, str]]:
    """Each bundle at base and head whose content differs: its key, both versions, the first fields changed."""
    for key in in_catalog_order(set(base) & set(head)):
        old = {b.name: b for b in base[key].config.bundles}
        for bundle in head[key].config.bundles:
            previous = old.get(bundle.name)
            fields = bundle_field_changes(previous, bundle) if previous is not None else ()
            if previous is not None and fields:
                more = f" and {len(fields) - 4} more" if len(fields) > 4 else ""
                yield key, previous, bundle, ", ".join(fields[:4]) + more


def check_bundle_content(
    base: Mapping[CatalogKey, PackageCatalog], head: Mapping[CatalogKey, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-005: a bundle present at base and head whose content differs; names the fields."""
    out = Findings()
    for key, _, bundle, shown in changed_bundles(base, head):
        out.add(
            RULE_BUNDLE_CONTENT,
            f"released bundle {bundle.name} changed in the {key[0]} catalog: {shown}",
            Location(file=head[key].file, line=bundle.location.line),
            "a published bundle is immutable: revert the change, or cut a new z-stream release",
            (key[0], key[1], bundle.name),
        )
    return tuple(out)


# ---------------------------------------------------------------------------------- recorded facts


def release_facts(release: Release) -> dict[str, str]:
    """The facts of a release that never change once it is published, keyed as ``streams/`` spells them.

    Status and deprecation message are left out (a release may be deprecated or withdrawn later), and so
    are its catalogs (adding an OpenShift version is fine; removing one is RK-DIFF-003's).
    """
    facts: dict[str, str] = {"bundle": release.bundle_image}
    for name, image in release.images.items():
        facts[f"images.{name}"] = image
    facts["createdAt"] = release.created_at or ""
    facts["openshiftVersionsLabel"] = release.openshift_versions_label or ""
    for name in ("line", "inventory", "describe", "tag", "commit"):
        facts[f"upstream.{name}"] = getattr(release.upstream, name) or ""
    facts["ownedApi"] = str(release.owned_api) if release.owned_api else ""
    for setting in release.gate_settings:
        facts[f"featureGates.settings.{setting.gate}"] = str(setting.enabled).lower()
    for opt in release.opt_in_gates:
        facts[f"featureGates.optIn.{opt.gate}"] = opt.config_field
    rec = release.recorded
    if rec is not None:
        for index, gvk in enumerate(rec.gvks):
            facts[f"recorded.gvks[{index}]"] = str(gvk)
        for index, related in enumerate(rec.related_images):
            facts[f"recorded.relatedImages[{index}].name"] = related.name
            facts[f"recorded.relatedImages[{index}].image"] = related.image
        _flatten("recorded.csvMetadata", rec.csv_metadata.to_wire(created_at=None), facts)
    return facts


def _flatten(path: str, value: Any, facts: dict[str, str]) -> None:
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            _flatten(f"{path}.{key}", value[key], facts)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _flatten(f"{path}[{index}]", item, facts)
        if not value:
            facts[path] = "[]"
    else:
        facts[path] = json.dumps(value)


def _fact_location(release: Release, field: str) -> Location:
    if field.startswith("recorded.") and release.recorded is not None:
        sub = field[len("recorded") :]
        return release.recorded.origin.at(sub)
    if field.startswith("featureGates."):
        return release.origin.at(".featureGates")
    return release.origin.at("." + field)


def check_recorded_facts(base: Sequence[Stream], head: Sequence[Stream]) -> tuple[Finding, ...]:
    """RK-DIFF-006: every published release at base keeps its facts at head (names the field)."""
    out = Findings()
    head_streams = {s.name: s for s in head}
    head_by_version = {str(r.version): (s, r) for s in head for r in s.releases}
    for stream in base:
        for release in stream.releases:
            if not release.status.is_published:
                continue
            label = release.csv_name(stream.package)
            now = head_streams.get(stream.name)
            current = now.release(release.version) if now else None
            if current is None:
                moved = head_by_version.get(str(release.version))
                where = moved[1].origin.at("") if moved else Location(file=stream.origin.file)
                out.add(
                    RULE_RECORDED_FACTS,
                    f"released version {release.version} ({label}) is no longer in stream "
                    f"{stream.name!r}" + (f" (it moved to {moved[0].name!r})" if moved else ""),
                    where,
                    "a published release stays in its stream for good; mark it deprecated or withdrawn",
                    (stream.name, label),
                )
                continue
            if current.status.value == "candidate":
                out.add(
                    RULE_RECORDED_FACTS,
                    f"released version {release.version} ({label}) went back to status candidate",
                    current.origin.at(".status"),
                    "a published release cannot become a candidate again",
                    (stream.name, label),
                )
            before, after = release_facts(release), release_facts(current)
            for field in sorted(set(before) | set(after)):
                old, new = before.get(field, "(absent)"), after.get(field, "(absent)")
                if old == new:
                    continue
                out.add(
                    RULE_RECORDED_FACTS,
                    f"{field} of released version {release.version} ({label}) changed: {old} -> {new}",
                    _fact_location(current, field),
                    "recorded facts of a published release never change; revert the edit, or cut a "
                    "new release with the new value",
                    (stream.name, label),
                )
            lost = sorted(set(map(str, release.catalogs)) - set(map(str, current.catalogs)))
            if lost:
                out.add(
                    RULE_RECORDED_FACTS,
                    f"catalogs of released version {release.version} ({label}) lost {', '.join(lost)}",
                    current.origin.at(".catalogs"),
                    "a published release stays in every catalog it was published to",
                    (stream.name, label),
                )
    return tuple(out)


# ------------------------------------------------------------------------------------------ strands


def check_stranded(
    base: Mapping[CatalogKey, PackageCatalog], head: Mapping[CatalogKey, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-007: every bundle that reached a channel head at base still does at head.

    Bundles that reached none at base are left alone (published history, not this change).
    """
    out = Findings()
    for key in in_catalog_order(base):
        old = base[key]
        new = head.get(key)
        graph = analyze_package(old.config, key[1])
        if graph is None:
            continue
        new_graph = analyze_package(new.config, key[1]) if new is not None else None
        reached_before = _head_reacher(graph, old.config)
        reached_after = _head_reacher(new_graph, new.config if new is not None else None)
        for node in graph.nodes:
            if not reached_before(node) or reached_after(node):
                continue
            if new is None or new_graph is None:
                why = f"the {key[0]} catalog no longer has package {key[1]}"
            elif new_graph.node(node.name) is None:
                why = "it left every channel and no entry replaces, skips or skipRanges it"
            else:
                why = "no upgrade path leads from it to a channel head any more"
            out.add(
                RULE_STRANDED,
                f"users of {node.name} on OpenShift {key[0]} are stranded: {why}",
                _where(new, old),
                "keep the bundle in its channel with a path to the head, or give a head a "
                "replaces/skips/skipRange that covers it",
                (key[0], key[1], node.name),
            )
    return tuple(out)


def check_diff(
    base: Mapping[CatalogKey, PackageCatalog],
    head: Mapping[CatalogKey, PackageCatalog],
    base_streams: Sequence[Stream] = (),
    head_streams: Sequence[Stream] = (),
) -> tuple[Finding, ...]:
    """Every RK-DIFF rule but 001 over the given package catalogs and streams."""
    return (
        check_changes(summarize_changes(base, head))
        + check_pruning(base, head)
        + check_bundle_content(base, head)
        + check_recorded_facts(base_streams, head_streams)
        + check_stranded(base, head)
    )
