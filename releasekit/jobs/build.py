"""The release job: streams → catalogs → every check, as ``releasekit build`` and ``catalog build`` run it.

All or nothing: ``catalog/`` is written only when no check reports an error. ``build`` is ``check --base
HEAD`` (:mod:`releasekit.jobs.compare`); tests/scenarios/test_one_verdict.py holds the two to the same findings.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.acknowledgements import load_acknowledgements
from releasekit.io.atomic import (
    check_output_target,
    output_lock,
    read_generated,
    target_stat,
    write_files,
    write_tree_atomic,
)
from releasekit.io.config import RULES as CONFIG_RULES
from releasekit.io.config import load_layout
from releasekit.io.fbc_write import blobs_in_render_order
from releasekit.io.gitrev import committed_files
from releasekit.io.yamlio import dump_yaml_block
from releasekit.jobs.carry import carried_at_head, carry_findings, history_hints, working_findings
from releasekit.jobs.catalog_build import CatalogBuild, build_catalogs, compare_files, drift
from releasekit.jobs.catalog_validate import validate_tree
from releasekit.jobs.compare import (
    COMPARISON_RULES,
    Comparison,
    compare_with_head,
    published_by_streams,
    streams_at_head,
)
from releasekit.jobs.judge import POLICY_RULES, judge_policies
from releasekit.jobs.streams_validate import check_streams_folder
from releasekit.model.acknowledgement import RULES as ACK_RULES
from releasekit.model.acknowledgement import acknowledge
from releasekit.model.fbc import SCHEMA_BUNDLE, DeclarativeConfig
from releasekit.model.finding import Finding, Severity
from releasekit.model.layout import CatalogLayout
from releasekit.model.report import Report
from releasekit.model.stream import ReleaseStatus, Stream
from releasekit.plan.template_basic import BASIC_SCHEMA
from releasekit.rules.carry import RULES as CARRY_RULES
from releasekit.rules.carry import nothing_compared

__all__ = ["BuildRequest", "BuildResult", "build", "run_build"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildRequest:
    """What to build and where (paths as the user gave them, shown in findings).

    ``catalog_dir`` None is the root ``releasekit.yaml`` beside ``streams_dir`` configures (default ``catalog``).
    """

    streams_dir: Path = Path("streams")
    templates_dir: Path = Path("bundle-templates")
    catalog_dir: Path | None = None
    check: bool = False
    candidates: bool = False
    command: str = "build"
    bundles: bool = False
    upstream: str | None = None
    bundles_dir: Path = Path("bundles")
    allow_unpinned: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildResult:
    """The report, and the line a failed build ends with (``catalog/ left unchanged: 3 errors``) or ""."""

    report: Report
    unchanged: str = ""


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


_UNLOADABLE = frozenset({"RK-STREAM-001", "RK-STREAM-002", "RK-STREAM-003", "RK-STREAM-004"})
"""Stream errors that leave a release out of what was loaded: compared with HEAD it would look removed."""


def _without_derived(stream_findings: Iterable[Finding], tree_findings: list[Finding]) -> list[Finding]:
    """The staged tree's findings less those about a release reported at its line in ``streams/`` already."""
    broken = {
        f'bundle "{f.subject[0]}.v{f.subject[1]}"'
        for f in stream_findings
        if f.severity is Severity.ERROR and len(f.subject) == 2
    }
    return [f for f in tree_findings if not broken.intersection(f.subject)] if broken else tree_findings


def _check_root(repo_root: Path, catalog_dir: Path) -> None:
    """Refuse a configured catalog root that is a symbolic link or leaves the repository."""
    if catalog_dir.is_symlink():
        raise SafetyLimitError(
            f"{catalog_dir}: the catalog root is a symbolic link; refusing to write through it"
        )
    real, top = os.path.realpath(catalog_dir), os.path.realpath(repo_root)
    if real != top and not real.startswith(top.rstrip("/") + "/"):
        raise SafetyLimitError(
            f"{catalog_dir}: the catalog root leaves the repository (to {real}); refusing it"
        )


def _compare_with_head(
    request: BuildRequest,
    committed: Mapping[PurePosixPath, bytes],
    built: CatalogBuild,
    layout: CatalogLayout,
) -> Comparison:
    """``check --base HEAD``'s comparisons over what this build generates (none for a preview catalog).

    Without a committed catalog what ``streams/`` marks released is what counts as published.
    """
    if request.candidates:
        return Comparison()
    if not committed:
        return Comparison(stranding_severity=published_by_streams(built.loaded.streams))
    head = streams_at_head(request.streams_dir, built.loaded)
    display = str(request.streams_dir.parent / layout.root)
    return compare_with_head(
        committed, built.files, layout, display=display, base_streams=head, head_streams=built.loaded
    )


TEMPLATE = "catalog-template.yaml"


def _basic_templates(built: CatalogBuild) -> dict[PurePosixPath, bytes]:
    """Each fragment's ``olm.template.basic`` template: its blobs, every bundle given by its image alone."""
    out = {}
    for fragment in built.fragments:
        config = DeclarativeConfig()
        for _package, package_config in fragment.packages:
            config = config.merged(package_config)
        entries = [
            {"schema": SCHEMA_BUNDLE, "image": blob["image"]}
            if blob["schema"] == SCHEMA_BUNDLE
            else json.loads(json.dumps(blob))
            for blob in blobs_in_render_order(config)
        ]
        text = dump_yaml_block({"schema": BASIC_SCHEMA, "entries": entries})
        out[PurePosixPath(str(fragment.openshift), TEMPLATE)] = text.encode()
    return out


def build(request: BuildRequest) -> BuildResult:
    """Run the job and return its result (nothing is printed).

    Raises:
        InputError, TemplateError, SafetyLimitError: input that cannot be read (exit 2).
    """
    repo_root = request.streams_dir.parent
    layout, config_findings = load_layout(repo_root)
    catalog_dir = request.catalog_dir or repo_root / layout.root
    if request.catalog_dir is None:
        _check_root(repo_root, catalog_dir)
    if request.check:
        return _build(request, layout, config_findings, catalog_dir)
    if not layout.owns_tree:  # file by file: the lock is inside the root (which may be the repository's)
        if catalog_dir.exists() and not catalog_dir.is_dir():
            raise InputError(f"{catalog_dir}: the catalog root is not a folder")
        with output_lock(catalog_dir, inside=True):
            return _build(request, layout, config_findings, catalog_dir)
    inputs = (request.streams_dir, request.templates_dir)
    check_output_target(catalog_dir, owned=layout.owns, inputs=inputs)  # before any work
    with output_lock(catalog_dir):  # a second build of this checkout stops here at once
        return _build(request, layout, config_findings, catalog_dir)


def _build(
    request: BuildRequest, layout: CatalogLayout, config_findings: list[Finding], catalog_dir: Path
) -> BuildResult:
    repo_root = request.streams_dir.parent
    acknowledgements, ack_findings = load_acknowledgements(repo_root)  # unreadable: exit 2 before any work
    published_dir = repo_root / layout.root
    streams_check = check_streams_folder(request.streams_dir, display_root=str(request.streams_dir))
    loaded, streams_report = streams_check.loaded, streams_check.report
    findings: list[Finding] = [*config_findings, *ack_findings, *streams_report.findings]
    checked: list[str] = list(streams_report.checked)
    rules: list[str] = [*streams_report.rules, *CONFIG_RULES, *ACK_RULES]
    committed_bytes: dict[PurePosixPath, bytes] = {}
    committed = committed_files(published_dir)  # git HEAD: the base build is compared with
    if committed is None:
        findings.append(nothing_compared(str(published_dir).rstrip("/") or "."))
    carried = carried_at_head(
        committed, loaded.streams, layout, display=str(published_dir), committed_bytes=committed_bytes
    )
    built = build_catalogs(
        request.streams_dir,
        request.templates_dir,
        candidates=request.candidates,
        loaded=loaded,
        carried=carried,
        layout=layout,
        upstream=request.upstream if request.candidates and not request.bundles else None,
    )
    if layout.name == "kueue-fbc":  # its generate-fbc.sh renders each fragment's template with opm
        built = replace(built, files={**built.files, **_basic_templates(built)})
    findings.extend(
        history_hints(
            carry_findings(built.carried, built.regenerated, loaded.streams),
            built.carried,
            published_dir,
            layout,
            display=str(published_dir),
        )
    )
    if catalog_dir.is_dir():  # refuse a path through a link or a file before the working tree is read
        for rel in built.files:
            target_stat(catalog_dir, rel)
    if published_dir == catalog_dir:
        findings.extend(
            working_findings(
                published_dir,
                built.carried,
                layout,
                display=str(published_dir),
                committed_bytes=committed_bytes,
            )
        )
    rules.extend(CARRY_RULES)
    catalogs = [(str(f.openshift), config) for f in built.fragments for _, config in f.packages]
    findings.extend(judge_policies(loaded, catalogs, streams_dir=request.streams_dir))
    rules.extend(POLICY_RULES)
    rules.append("RK-DIFF-001")
    comparison = (
        _compare_with_head(request, committed_bytes, built, layout)
        if not any(f.severity is Severity.ERROR and f.rule in _UNLOADABLE for f in streams_report.findings)
        else Comparison()  # root causes only: a release streams/ cannot load would look removed
    )
    findings.extend(comparison.findings)
    rules.extend(COMPARISON_RULES)

    def check_tree(files: Mapping[PurePosixPath, bytes] | None) -> None:
        tree_findings, tree_checked, tree_rules = validate_tree(
            catalog_dir, files=files, streams=streams_check, stranding_severity=comparison.stranding_severity
        )
        if request.candidates:
            tree_findings = _development_images_allowed(tree_findings, loaded.streams)
        findings.extend(tree_findings)
        checked.extend(tree_checked)
        rules.extend(tree_rules)

    unchanged = ""
    if request.check:
        if layout.owns_tree:
            findings.extend(drift(catalog_dir, built.files, str(catalog_dir)))
        else:
            on_disk = {rel: read_generated(catalog_dir, rel) for rel in built.files}
            existing = {
                rel: functools.partial(bytes, data) for rel, data in on_disk.items() if data is not None
            }
            findings.extend(compare_files(built.files, existing, str(catalog_dir)))
        if catalog_dir.is_dir():
            check_tree(None)
    else:
        before = len(findings)
        check_tree(built.files)  # judged in memory, as it is going to be written
        findings[before:] = _without_derived(streams_report.findings, findings[before:])
        errors = sum(1 for f in findings if f.severity is Severity.ERROR)
        if errors:
            noun = "error" if errors == 1 else "errors"
            unchanged = f"{str(catalog_dir).rstrip('/')}/ left unchanged: {errors} {noun}"
        elif layout.owns_tree:
            inputs = (request.streams_dir, request.templates_dir)
            write_tree_atomic(catalog_dir, built.files, owned=layout.owns, inputs=inputs)
        else:
            write_files(catalog_dir, built.files)  # file by file: every other file there is left alone
    if request.bundles and not unchanged:
        # imported here: the bundle job's rules and gitpython cost about 70 ms that an offline build never uses
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
    acknowledged, ack_problems = acknowledge(findings, acknowledgements)
    report = Report(
        command=request.command,
        findings=(*findings, *ack_problems),
        checked=tuple(checked),
        rules=tuple(sorted(set(rules))),
        acknowledged=acknowledged,
        changes=comparison.changes,  # what the build writes (or would) into each catalog, against HEAD
    )
    return BuildResult(report=report, unchanged=unchanged)


def run_build(request: BuildRequest) -> Report:
    """Run the job and return its report (see :func:`build`)."""
    return build(request).report
