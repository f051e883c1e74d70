"""The release job: streams → catalogs → every check, as ``releasekit build`` and ``catalog build`` run it.

Adapter module (it reads and writes the repository); the decisions are the pure core's. Steps:

1. load and validate ``streams/`` (schemas and cross-checks);
2. plan and render every catalog fragment (:mod:`releasekit.jobs.catalog_build`);
3. write ``catalog/`` atomically, or with ``check`` compare it and report each drifted file;
4. check the catalog tree as it stands: opm's rules, Konflux's layout rules, the upgrade graph;
5. with ``bundles``, generate every release's bundle from upstream Kueue (the only step that needs it)
   and validate them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from releasekit.jobs.catalog_build import CatalogBuild, build_catalogs, catalog_layout, drift
from releasekit.jobs.catalog_validate import validate_tree
from releasekit.jobs.streams_validate import validate_streams
from releasekit.model.finding import Finding, Severity
from releasekit.model.lifecycle import OpenShiftLifecycle
from releasekit.model.report import Report
from releasekit.model.stream import CrossMinor, ReleaseStatus, Stream

__all__ = ["BuildRequest", "run_build"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildRequest:
    """What to build and where (paths as the user gave them, shown in findings)."""

    streams_dir: Path = Path("streams")
    templates_dir: Path = Path("bundle-templates")
    catalog_dir: Path = Path("catalog")
    check: bool = False
    candidates: bool = False
    cross_minor: CrossMinor | None = None
    command: str = "build"
    extra_rules: tuple[str, ...] = field(default=())
    bundles: bool = False
    upstream: str | None = None
    bundles_dir: Path = Path("bundles")
    allow_unpinned: bool = False


_DEVELOPMENT_IMAGE_RULES = ("RK-KONFLUX-009", "RK-KONFLUX-010")


def _development_images_allowed(findings: list[Finding], streams: tuple[Stream, ...]) -> list[Finding]:
    """In a candidate preview, development image references of candidates are warnings, not errors."""
    candidates = {
        f'bundle "{r.csv_name(s.package)}"'
        for s in streams
        for r in s.releases
        if r.status is ReleaseStatus.CANDIDATE
    }
    return [
        replace(f, severity=Severity.WARNING, hint=f"{f.hint} (allowed for a candidate in a preview catalog)")
        if f.rule in _DEVELOPMENT_IMAGE_RULES and f.subject and f.subject[-1] in candidates
        else f
        for f in findings
    ]


def _lifecycle(streams_dir: Path) -> OpenShiftLifecycle | None:
    """``streams/openshift/lifecycle.yaml`` (None when absent; its findings are the streams check's)."""
    from releasekit.io.lifecycle import load_lifecycle

    return load_lifecycle(streams_dir, display_root=str(streams_dir))[0]


def _tech_preview_findings(streams: tuple[Stream, ...], built: CatalogBuild) -> list[Finding]:
    """RK-POLICY-010…012 over the catalogs just planned (what ``catalog/`` holds when in sync)."""
    from releasekit.rules.tech_preview import check_catalog_blocking

    configs = [(str(f.openshift), config) for f in built.fragments for _, config in f.packages]
    return list(check_catalog_blocking(streams, configs))


def run_build(request: BuildRequest) -> Report:
    """Run the job and return one report (nothing is printed).

    Raises:
        InputError, TemplateError, SafetyLimitError: input that cannot be read (exit 2).
    """
    if request.check:
        return _run_build(request)
    from releasekit.io.atomic import check_output_target, output_lock

    inputs = (request.streams_dir, request.templates_dir)
    check_output_target(request.catalog_dir, owned=catalog_layout, inputs=inputs)  # before any work
    with output_lock(request.catalog_dir):  # a second build of this checkout stops here at once
        return _run_build(request)


def _run_build(request: BuildRequest) -> Report:
    loaded, streams_report = validate_streams(request.streams_dir, display_root=str(request.streams_dir))
    findings: list[Finding] = list(streams_report.findings)
    checked: list[str] = list(streams_report.checked)
    rules: list[str] = list(streams_report.rules)
    built = build_catalogs(
        request.streams_dir,
        request.templates_dir,
        candidates=request.candidates,
        cross_minor=request.cross_minor,
        loaded=loaded,
        upstream=request.upstream if request.candidates and not request.bundles else None,
    )
    if request.check:
        findings.extend(drift(request.catalog_dir, built.files, str(request.catalog_dir)))
    else:
        from releasekit.io.atomic import write_tree_atomic  # only a write needs tempfile and shutil

        write_tree_atomic(
            request.catalog_dir,
            built.files,
            owned=catalog_layout,
            inputs=(request.streams_dir, request.templates_dir),
        )
    rules.append("RK-DIFF-001")
    lifecycle = _lifecycle(request.streams_dir)
    findings.extend(_tech_preview_findings(loaded.streams, built))
    rules.extend(("RK-POLICY-010", "RK-POLICY-011", "RK-POLICY-012"))
    if request.catalog_dir.is_dir():
        from releasekit.rules.graph import GraphPolicy

        policies = {s.package: GraphPolicy.from_stream(s) for s in loaded.streams}
        order = tuple(dict.fromkeys(str(v) for s in loaded.streams for v in s.openshift))
        tree_findings, tree_checked, tree_rules = validate_tree(
            request.catalog_dir,
            policies=policies,
            upgrade_order=order,
            upgrade_edges=lifecycle.pairs_among(order) if lifecycle is not None else None,
        )
        if request.candidates:
            tree_findings = _development_images_allowed(tree_findings, loaded.streams)
        findings.extend(tree_findings)
        checked.extend(tree_checked)
        rules.extend(tree_rules)
    if request.bundles:
        from releasekit.jobs.bundle_build import DEFAULT_UPSTREAM, build_bundles

        bundles = build_bundles(
            request.streams_dir,
            request.templates_dir,
            request.bundles_dir,
            upstream=request.upstream or DEFAULT_UPSTREAM,
            every=True,
            check=request.check,
            allow_unpinned=request.allow_unpinned,
        )
        findings.extend(bundles.findings)
        checked.extend(bundles.checked)
        rules.extend(f.rule for f in bundles.findings)
    return Report(
        command=request.command,
        findings=tuple(findings),
        checked=tuple(checked),
        rules=tuple(sorted(set(rules) | set(request.extra_rules))),
    )
