"""Release policy: API maturity of what releasekit generates, and what an upgrade edge may join.

Pure core: takes the loaded streams, the upstream inventories and the catalogs (``(openshift, config)``
pairs) and returns findings; each points at the line in ``streams/`` that decides it.

The feature-gate policy of a release (RK-STREAM-014 … 018) is :mod:`releasekit.rules.stream`'s.

Rule ids (stable, never renumbered), titles and severities: :data:`RULES`. RK-POLICY-001 is a warning
for recorded history (releases made before releasekit); RK-POLICY-002 an info per edge while the old
versions stay served.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Finding, Findings, Location, Severity
from releasekit.model.inventory import Inventory, Maturity, version_maturity
from releasekit.model.ruledoc import RuleFacts
from releasekit.model.stream import CrdPlacement, Release, Stream, openshift_order, operand_crds
from releasekit.rules.graph import analyze_config

__all__ = [
    "RULES",
    "RULE_ALPHA_API",
    "RULE_API_CHANGE",
    "RULE_CROSS_EDGE",
    "RULE_STORAGE",
    "UpgradeEdge",
    "check_alpha_apis",
    "check_edges",
    "check_policy",
    "is_stable",
    "upgrade_edges",
]

RULE_ALPHA_API = "RK-POLICY-001"
RULE_STORAGE = "RK-POLICY-002"
RULE_API_CHANGE = "RK-POLICY-003"
RULE_CROSS_EDGE = "RK-POLICY-004"

RULES: Final[dict[str, RuleFacts]] = {
    RULE_ALPHA_API: RuleFacts(
        "a stable release ships a CRD with an alpha version (bundle or operator image)"
    ),
    RULE_STORAGE: RuleFacts(
        "a storage-version change across an upgrade edge stops serving the old storage version"
    ),
    RULE_API_CHANGE: RuleFacts("an upgrade edge joins releases that own a different API group or kind"),
    RULE_CROSS_EDGE: RuleFacts("an upgrade edge joins two streams or two packages"),
}


def is_stable(stream: Stream) -> bool:
    """True for the stable stream: named ``stable`` or with ``stable...`` channels."""
    return stream.name == "stable" or stream.channels.pattern.startswith("stable")


# ------------------------------------------------------------------------------------ API maturity


def _shipped(
    stream: Stream, release: Release, inventory: Inventory | None
) -> Iterator[tuple[str, tuple[str, ...], str, Location, str]]:
    """Each CRD ``release`` ships: name, versions, place, the line in ``streams/`` that decides it, the fix.

    The owned API goes in the bundle; the operand CRDs where the stream's ``crdPlacement`` puts them.
    """
    owned = release.owned_api
    if owned is not None:
        decided = release if release.owned_api_override is not None else stream
        yield (
            f"{owned.kind} ({owned.group}/{owned.version})",
            (owned.version,),
            "bundle",
            decided.origin.at(".ownedApi"),
            "own a beta or GA version of the operator's API in a stable release",
        )
    if inventory is None:
        return
    place = "bundle" if stream.crd_placement is CrdPlacement.BUNDLE else "operator image"
    listed = stream.api_maturity.alpha_apis
    for crd in operand_crds(stream, inventory):
        yield (
            crd.name,
            tuple(v.name for v in crd.versions),
            place,
            stream.api_maturity.origin.at(f".alphaApis[{listed.index(crd.kind)}]")
            if crd.kind in listed
            else release.origin.at(""),
            "stable ships no CRD with an alpha version: drop the kind from apiMaturity.alphaApis, "
            "or ship it in the experimental stream",
        )


def check_alpha_apis(stream: Stream, inventories: Mapping[str, Inventory]) -> tuple[Finding, ...]:
    """RK-POLICY-001 for every release of ``stream`` (nothing for a stream that is not stable)."""
    if not is_stable(stream):
        return ()
    out = Findings()
    for release in stream.releases:
        label = release.csv_name(stream.package)
        history = release.recorded is not None
        inventory = inventories.get(release.upstream.inventory)
        for name, versions, place, where, hint in _shipped(stream, release, inventory):
            alpha = [v for v in versions if version_maturity(v) is Maturity.ALPHA]
            if not alpha:
                continue
            out.add(
                RULE_ALPHA_API,
                f"stable release {release.version} ({label}) ships {name} in the {place}, "
                f"which has the alpha version {', '.join(alpha)}"
                + (" (published before releasekit; kept as history)" if history else ""),
                where,
                hint,
                (stream.name, label),
                Severity.WARNING if history else Severity.ERROR,
            )
    return tuple(out)


# ------------------------------------------------------------------------------------------- edges


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class UpgradeEdge:
    """An upgrade edge of a package (``target`` replaces, skips or skipRanges ``source``) and where it is."""

    package: str
    source: str
    target: str
    kind: str
    openshift: tuple[str, ...]
    location: Location


def upgrade_edges(catalogs: Iterable[tuple[str, DeclarativeConfig]]) -> tuple[UpgradeEdge, ...]:
    """Every edge of every catalog, once per (package, source, target), with the OpenShift versions.

    ``replaces`` and ``skips`` are taken as written, whatever bundle they name (so an edge from another
    package's bundle is seen); skipRange edges come from :mod:`releasekit.rules.graph`.
    """
    found: dict[tuple[str, str, str], tuple[str, set[str], Location]] = {}

    def add(package: str, source: str, target: str, kind: str, openshift: str, where: Location) -> None:
        key = (package, source, target)
        if key not in found:
            found[key] = (kind, set(), where)
        found[key][1].add(openshift)

    for openshift, config in catalogs:
        for channel in config.channels:
            for entry in channel.entry_list:
                where = channel.location
                if entry.replaces:
                    add(channel.package, entry.replaces, entry.name, "replaces", openshift, where)
                for skipped in entry.skips:
                    add(channel.package, skipped, entry.name, "skips", openshift, where)
        for graph in analyze_config(config):
            for edge in graph.edges:
                if edge.kind.value == "skipRange":
                    add(graph.package, edge.source, edge.target, "skipRange", openshift, Location())
    return tuple(
        sorted(
            UpgradeEdge(
                package=package,
                source=source,
                target=target,
                kind=kind,
                openshift=tuple(sorted(versions, key=openshift_order)),
                location=where,
            )
            for (package, source, target), (kind, versions, where) in found.items()
        )
    )


def _in(edge: UpgradeEdge) -> str:
    return f"{edge.target} {edge.kind} {edge.source} (catalogs {', '.join(edge.openshift)})"


def check_edges(
    streams: Sequence[Stream],
    inventories: Mapping[str, Inventory],
    edges: Iterable[UpgradeEdge],
    *,
    package_of_bundle: Mapping[str, str] | None = None,
) -> tuple[Finding, ...]:
    """RK-POLICY-002, 003 and 004 for each edge.

    ``package_of_bundle`` maps the catalogs' bundles to their packages: an edge from another package's
    bundle is RK-POLICY-004 even when no stream knows that bundle.
    """
    owner: dict[str, tuple[Stream, Release]] = {
        r.csv_name(s.package): (s, r) for s in streams for r in s.releases
    }
    packages = dict(package_of_bundle or {})
    out = Findings()
    for edge in edges:
        target = owner.get(edge.target)
        source = owner.get(edge.source)
        where = target[1].origin.at("") if target is not None else edge.location
        subject = (target[0].name if target else edge.package, edge.target)
        source_package = source[0].package if source is not None else packages.get(edge.source)
        joined = {s[0].name: None for s in (source, target) if s is not None}
        if len(joined) > 1 or source_package not in (None, edge.package):
            names = (
                " and ".join(f"stream {name!r}" for name in joined)
                if len(joined) > 1
                else f"package {source_package} and package {edge.package}"
            )
            out.add(
                RULE_CROSS_EDGE,
                f"upgrade edge {_in(edge)} joins {names}",
                where,
                "each stream is its own package; nothing upgrades from one stream or package into "
                "another. Remove the edge",
                subject,
            )
            continue
        if source is None or target is None:
            continue
        stream = target[0]
        old, new = source[1], target[1]
        _api_change(old, new, edge, where, subject, out)
        _storage(stream, old, new, edge, inventories, where, subject, out)
    return tuple(out)


def _api_change(
    old: Release, new: Release, edge: UpgradeEdge, where: Location, subject: tuple[str, ...], out: Findings
) -> None:
    a, b = old.owned_api, new.owned_api
    if a is None or b is None or (a.group == b.group and a.kind == b.kind):
        return
    out.add(
        RULE_API_CHANGE,
        f"upgrade edge {_in(edge)} changes the owned {'API group' if a.group != b.group else 'kind'}: "
        f"{old.version} owns {a.kind} ({a.group}/{a.version}), {new.version} owns {b.kind} ({b.group}/{b.version})",
        where,
        "OLM cannot migrate objects across an API group or kind change: remove the edge and document "
        "the manual migration",
        subject,
    )


def _storage(
    stream: Stream,
    old: Release,
    new: Release,
    edge: UpgradeEdge,
    inventories: Mapping[str, Inventory],
    where: Location,
    subject: tuple[str, ...],
    out: Findings,
) -> None:
    old_inv = inventories.get(old.upstream.inventory)
    new_inv = inventories.get(new.upstream.inventory)
    if old_inv is None or new_inv is None:
        return
    before = {c.name: c for c in operand_crds(stream, old_inv)}
    migrated: list[str] = []
    for crd in operand_crds(stream, new_inv):
        previous = before.get(crd.name)
        if previous is None:
            continue
        was, now = previous.storage_version, crd.storage_version
        if was is None or now is None or was == now:
            continue
        if was in crd.served_versions:
            migrated.append(f"{crd.name} {was} -> {now}")
            continue
        out.add(
            RULE_STORAGE,
            f"upgrade edge {_in(edge)}: {crd.name} moves its storage version from {was} "
            f"({old_inv.name}) to {now} ({new_inv.name}), but {new.version} no longer serves {was}",
            where,
            "objects stored as the old version must stay readable: keep serving it for at least one "
            "release, or remove the edge",
            subject,
        )
    if migrated:
        out.add(
            RULE_STORAGE,
            f"upgrade edge {_in(edge)} moves the storage version of {len(migrated)} CRD(s), the old "
            f"versions still served ({old_inv.name} -> {new_inv.name}): {', '.join(migrated)}",
            where,
            "a storage migration happens on this upgrade; the operator must migrate stored objects",
            subject,
            Severity.INFO,
        )


def check_policy(
    streams: Sequence[Stream],
    inventories: Mapping[str, Inventory],
    catalogs: Sequence[tuple[str, DeclarativeConfig]] = (),
) -> tuple[Finding, ...]:
    """Every RK-POLICY rule: API maturity per stable release, and every edge of ``catalogs``."""
    out: list[Finding] = []
    for stream in streams:
        out.extend(check_alpha_apis(stream, inventories))
    package_of_bundle = {b.name: b.package for _, config in catalogs for b in config.bundles}
    out.extend(
        check_edges(streams, inventories, upgrade_edges(catalogs), package_of_bundle=package_of_bundle)
    )
    return tuple(out)
