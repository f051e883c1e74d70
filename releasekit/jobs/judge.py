"""The one way a revision is judged: opm's rules, Konflux's, the upgrade graph, the stream policies.

Shared by ``build`` (through :func:`releasekit.jobs.catalog_validate.validate_tree`) and ``check``: the
callers read a tree's fragments (:func:`releasekit.io.catalog_tree.catalog_fragments`), this judges, with the policies, OpenShift order and upgrade edges taken from ``streams/``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from releasekit.io.catalog_tree import Fragment
from releasekit.io.fbc_load import LOAD_RULES
from releasekit.io.operator_records import load_operator_records
from releasekit.io.streams import LoadedStreams
from releasekit.jobs.streams_validate import StreamsCheck
from releasekit.model.fbc import Bundle, Channel, DeclarativeConfig, Package
from releasekit.model.finding import Finding, Severity
from releasekit.model.stream import openshift_order
from releasekit.plan.operator_bundle import record_findings
from releasekit.rules import graph as graph_rules
from releasekit.rules import policy as policy_rules
from releasekit.rules.diff import PackageCatalog
from releasekit.rules.fbc import RULES as FBC_RULES
from releasekit.rules.fbc import validate_config
from releasekit.rules.konflux import RULE_IDS as KONFLUX_RULES
from releasekit.rules.konflux import check_fragment
from releasekit.rules.tech_preview import CATALOG_RULES, check_catalog_blocking

__all__ = [
    "JUDGED_RULES",
    "POLICY_RULES",
    "judge_fragments",
    "judge_policies",
    "package_catalog",
    "package_catalogs",
    "package_config",
    "package_strandings",
]

JUDGED_RULES: tuple[str, ...] = (
    *LOAD_RULES,
    *sorted(FBC_RULES),
    *KONFLUX_RULES,
    *sorted(graph_rules.RULES),
)
"""The rules :func:`judge_fragments` runs (with the loaders' own)."""

POLICY_RULES: tuple[str, ...] = (
    *policy_rules.RULES,
    *CATALOG_RULES,
    "RK-BUNDLE-100",
    "RK-BUNDLE-101",
    "RK-BUNDLE-102",
)
"""The rules :func:`judge_policies` runs (the operator records' as ``bundle build`` does)."""


def package_catalogs(fragments: Iterable[Fragment]) -> list[PackageCatalog]:
    """Each package of each fragment: those it declares and those it has a folder for, by OpenShift folder."""
    out = []
    for fragment in fragments:
        if fragment.loaded is None:
            continue
        facts, config = fragment.facts, fragment.loaded.config
        for package in sorted(
            {p.name for p in config.packages} | {p for p, _, _ in facts.package_files if p}
        ):
            shown = f"{facts.folder_path}/{fragment.root}/{package}"
            out.append(package_catalog(facts.folder, package, package_config(config, package), shown))
    return out


def package_catalog(openshift: str, package: str, config: DeclarativeConfig, fallback: str) -> PackageCatalog:
    """``package``'s catalog, shown as the first file holding one of its objects (else ``fallback``)."""
    objects: tuple[Package | Channel | Bundle, ...] = (*config.packages, *config.channels, *config.bundles)
    file = next((o.location.file for o in objects if o.location.file), fallback)
    return PackageCatalog(openshift=openshift, package=package, config=config, file=file)


def package_config(config: DeclarativeConfig, package: str) -> DeclarativeConfig:
    """The part of ``config`` that belongs to ``package``."""
    return DeclarativeConfig(
        packages=tuple(p for p in config.packages if p.name == package),
        channels=tuple(c for c in config.channels if c.package == package),
        bundles=tuple(b for b in config.bundles if b.package == package),
        deprecations=tuple(d for d in config.deprecations if d.package == package),
    )


def judge_fragments(
    fragments: Sequence[Fragment],
    packages: Iterable[PackageCatalog],
    *,
    streams: StreamsCheck | None = None,
    stranding_severity: Severity | Callable[[graph_rules.Stranding], Severity] = Severity.WARNING,
) -> tuple[list[Finding], list[str]]:
    """Every finding over a tree's fragments, and the files read.

    What loading found, opm's rules per fragment, the graph rules per package catalog (per stream
    policy), Konflux's per fragment, and each package's strandings along the OpenShift upgrades of
    ``streams``' lifecycle (every minor without one).
    """
    loaded = [f.loaded for f in fragments if f.loaded is not None]
    findings = [finding for result in loaded for finding in result.findings]
    for result in loaded:
        findings.extend(validate_config(result.config))
    policies = (
        {s.package: graph_rules.GraphPolicy.from_stream(s) for s in streams.loaded.streams} if streams else {}
    )
    packages = list(packages)
    for item in packages:
        policy = policies.get(item.package, graph_rules.DEFAULT_POLICY)
        findings.extend(graph_rules.check_graph(item.config, policy, file=item.file))
    for fragment in fragments:
        findings.extend(check_fragment(fragment.facts))
    lifecycle = streams.lifecycle if streams is not None else None
    present = sorted({p.openshift for p in packages}, key=openshift_order)
    edges = lifecycle.pairs_among(present) if lifecycle is not None else None
    findings.extend(package_strandings(packages, stranding_severity, edges))
    return findings, [file for result in loaded for file in result.files]


def package_strandings(
    catalogs: Iterable[PackageCatalog],
    severity: Severity | Callable[[graph_rules.Stranding], Severity],
    edges: Sequence[tuple[str, str]] | None = None,
) -> list[Finding]:
    """RK-GRAPH-010 of each package along the cluster upgrades ``edges`` (None: each catalog to the next)."""
    by_package: dict[str, dict[str, PackageCatalog]] = {}
    for item in catalogs:
        by_package.setdefault(item.package, {})[item.openshift] = item
    findings: list[Finding] = []
    for _, items in sorted(by_package.items()):
        order = sorted(items, key=openshift_order)
        findings.extend(
            graph_rules.check_openshift_upgrades(
                [(o, items[o].config) for o in order],
                severity=severity,
                files={o: items[o].file for o in order},
                edges=edges,
            )
        )
    return findings


def judge_policies(
    streams: LoadedStreams,
    catalogs: Sequence[tuple[str, DeclarativeConfig]],
    *,
    streams_dir: Path,
    display_root: str | None = None,
) -> list[Finding]:
    """The release policies and tech-preview gates of ``streams`` over ``(openshift, config)`` catalogs.

    With them RK-BUNDLE-100…102, from the operator records in ``streams_dir/operator/``.
    """
    records, unreadable = load_operator_records(streams_dir, display_root=display_root)
    return [
        *policy_rules.check_policy(streams.streams, streams.inventories, catalogs),
        *check_catalog_blocking(streams.streams, catalogs),
        *unreadable,
        *record_findings(list(streams.streams), records),
    ]
