"""The one way a catalog tree is judged: opm's rules, Konflux's, the upgrade graph within and across catalogs.

Shared by ``catalog validate`` (and so ``build``) and ``check``: the callers load, this judges.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from releasekit.io.fbc_load import LOAD_RULES
from releasekit.model.fbc import DeclarativeConfig, FragmentFacts
from releasekit.model.finding import Finding, Severity
from releasekit.rules import graph as graph_rules
from releasekit.rules.diff import PackageCatalog
from releasekit.rules.fbc import RULES as FBC_RULES
from releasekit.rules.fbc import validate_config
from releasekit.rules.konflux import RULE_IDS as KONFLUX_RULES
from releasekit.rules.konflux import check_fragment

__all__ = ["JUDGED_RULES", "judge_catalogs"]

JUDGED_RULES: tuple[str, ...] = (
    *LOAD_RULES,
    *sorted(FBC_RULES),
    *KONFLUX_RULES,
    *sorted(graph_rules.RULES),
)
"""The rules :func:`judge_catalogs` runs (with the loaders' own)."""


def judge_catalogs(
    catalogs: Iterable[DeclarativeConfig],
    packages: Iterable[PackageCatalog],
    fragments: Iterable[FragmentFacts],
    *,
    policies: Mapping[str, graph_rules.GraphPolicy],
    upgrade_order: Sequence[str],
    upgrade_edges: Sequence[tuple[str, str]] | None,
    stranding_severity: Severity | Callable[[graph_rules.Stranding], Severity] = Severity.WARNING,
) -> list[Finding]:
    """Every finding: opm's rules, the graph rules (per stream policy), Konflux's, and the strandings.

    opm's rules per catalog, the graph rules per package catalog, Konflux's per fragment, and each
    package's OpenShift-upgrade strandings along ``upgrade_edges``.
    """
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
    for package in sorted(by_package):
        present = by_package[package]
        order = [o for o in upgrade_order if o in present]
        if len(order) < 2:
            continue
        findings.extend(
            graph_rules.check_openshift_upgrades(
                [(o, present[o].config) for o in order],
                severity=stranding_severity,
                files={o: present[o].file for o in order},
                edges=upgrade_edges,
            )
        )
    return findings
