"""The one way a revision is judged: opm's rules, Konflux's, the upgrade graph, the stream policies.

Shared by ``build`` (through :func:`releasekit.jobs.catalog_validate.validate_tree`) and ``check``: the
callers load, this judges, with the policies, OpenShift order and upgrade edges taken from ``streams/``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from releasekit.io.fbc_load import LOAD_RULES
from releasekit.io.operator_records import load_operator_records
from releasekit.io.streams import LoadedStreams
from releasekit.jobs.streams_validate import StreamsCheck
from releasekit.model.fbc import DeclarativeConfig, FragmentFacts
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

__all__ = ["JUDGED_RULES", "POLICY_RULES", "judge_catalogs", "judge_policies"]

JUDGED_RULES: tuple[str, ...] = (
    *LOAD_RULES,
    *sorted(FBC_RULES),
    *KONFLUX_RULES,
    *sorted(graph_rules.RULES),
)
"""The rules :func:`judge_catalogs` runs (with the loaders' own)."""

POLICY_RULES: tuple[str, ...] = (
    *policy_rules.RULES,
    *CATALOG_RULES,
    "RK-BUNDLE-100",
    "RK-BUNDLE-101",
    "RK-BUNDLE-102",
)
"""The rules :func:`judge_policies` runs (the operator records' as ``bundle build`` does)."""


def judge_catalogs(
    catalogs: Iterable[DeclarativeConfig],
    packages: Iterable[PackageCatalog],
    fragments: Iterable[FragmentFacts],
    *,
    streams: StreamsCheck | None = None,
    stranding_severity: Severity | Callable[[graph_rules.Stranding], Severity] = Severity.WARNING,
) -> list[Finding]:
    """Every finding: opm's rules, the graph rules (per stream policy), Konflux's, and the strandings.

    opm's rules per catalog, the graph rules per package catalog, Konflux's per fragment, and each
    package's strandings along the OpenShift upgrades of ``streams``' lifecycle (every minor without one).
    """
    loaded = streams.loaded.streams if streams is not None else ()
    policies = {s.package: graph_rules.GraphPolicy.from_stream(s) for s in loaded}
    findings: list[Finding] = []
    for config in catalogs:
        findings.extend(validate_config(config))
    by_package: dict[str, dict[str, PackageCatalog]] = {}
    for item in packages:
        policy = policies.get(item.package, graph_rules.DEFAULT_POLICY)
        findings.extend(graph_rules.check_graph(item.config, policy, file=item.file))
        by_package.setdefault(item.package, {})[item.openshift] = item
    for facts in fragments:
        findings.extend(check_fragment(facts))
    present = sorted({o for items in by_package.values() for o in items}, key=openshift_order)
    lifecycle = streams.lifecycle if streams is not None else None
    edges = lifecycle.pairs_among(present) if lifecycle is not None else None
    for package in sorted(by_package):
        order = [o for o in present if o in by_package[package]]
        if len(order) < 2:
            continue
        findings.extend(
            graph_rules.check_openshift_upgrades(
                [(o, by_package[package][o].config) for o in order],
                severity=stranding_severity,
                files={o: by_package[package][o].file for o in order},
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
