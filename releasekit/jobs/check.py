"""``releasekit check``: a pull request's catalog and stream changes, judged against a base revision.

The head is judged as ``build --check`` judges (only the package catalogs the change touches are loaded),
then compared with the base; the base judged the same way is the baseline that marks findings new or
unchanged. A catalog repository without ``streams/`` is :mod:`releasekit.jobs.fbc_repo_check`'s.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from releasekit.errors import ReleasekitError, UsageError
from releasekit.io.acknowledgements import load_acknowledgements
from releasekit.io.catalog_tree import CONTAINERFILES, FBC_ROOTS, Fragment, catalog_fragments
from releasekit.io.config import load_layout
from releasekit.io.fbc_load import LoadLimits
from releasekit.io.gitrev import (
    FileRef,
    Snapshot,
    branch_point,
    open_repo,
    resolve_commit,
    snapshot_commit,
    snapshot_worktree,
)
from releasekit.io.streams import LoadedStreams, load_streams
from releasekit.jobs.carry import carried_at, carry_findings
from releasekit.jobs.catalog_build import build_catalogs, compare_files
from releasekit.jobs.compare import (
    COMPARISON_RULES,
    Key,
    catalog_changes,
    compare_streams,
    published_in,
)
from releasekit.jobs.judge import (
    JUDGED_RULES,
    POLICY_RULES,
    judge_fragments,
    judge_policies,
    package_catalogs,
)
from releasekit.jobs.published import parse_published
from releasekit.jobs.streams_validate import StreamsCheck, check_streams_folder
from releasekit.model.acknowledgement import ACKNOWLEDGEMENTS_FILE, Acknowledgement, acknowledge
from releasekit.model.acknowledgement import RULES as ACK_RULES
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.layout import DEFAULT_LAYOUT
from releasekit.model.lifecycle import OpenShiftLifecycle
from releasekit.model.report import BaselineState, FailOn, Report, match_baseline
from releasekit.model.stream import Stream, openshift_order
from releasekit.model.stream_ids import RULE_EMPTY
from releasekit.plan.graph_render import render_mermaid
from releasekit.plan.matrix_render import render_changed_markdown
from releasekit.rules import carry as carry_rules
from releasekit.rules import diff as diff_rules
from releasekit.rules import graph as graph_rules
from releasekit.rules.diff import PackageCatalog
from releasekit.rules.upgrade_matrix import upgrade_matrix

__all__ = ["CheckRequest", "CheckResult", "run_check"]

CATALOG = "catalog"


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRequest:
    """What to compare: the base ref and the head ref (None: the working tree); ``--fail-on``, ``--published``."""

    base: str
    head: str | None = None
    repo: Path = Path()
    command: str = "check"
    fail_on: FailOn = FailOn.ERROR
    published: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """The report and what was re-checked in full (for benchmarks and tests)."""

    report: Report
    touched: tuple[Key, ...]
    packages: set[str] = field(default_factory=set)


def _catalog_key(rel: PurePosixPath) -> Key | None:
    """``(openshift, package)`` of ``v4.18/configs/<package>/<file>``; None for other files."""
    parts = rel.parts
    return (parts[0], parts[2]) if len(parts) == 4 and parts[1] in ("configs", "catalog") else None


def _changed(
    base: Mapping[PurePosixPath, FileRef], head: Mapping[PurePosixPath, FileRef]
) -> set[PurePosixPath]:
    return {
        p for p in base.keys() | head.keys() if p not in base or p not in head or base[p].sha != head[p].sha
    }


def _drift(
    generated: Mapping[PurePosixPath, bytes],
    head: Mapping[PurePosixPath, FileRef],
    changed: set[PurePosixPath],
    stream_packages: set[str],
) -> list[Finding]:
    """RK-DIFF-001 (same wording as ``build --check``), stale files only where the change or a stream reaches."""

    def report_stale(rel: PurePosixPath) -> bool:
        key = _catalog_key(rel)
        return rel in changed or (key is not None and key[1] in stream_packages)

    existing = {rel: ref.read for rel, ref in head.items()}
    return list(compare_files(generated, existing, CATALOG, report_stale=report_stale))


def _generated_files(
    head: Snapshot, base: Snapshot, loaded: LoadedStreams
) -> tuple[dict[PurePosixPath, bytes], list[Finding]]:
    """What ``streams/`` generates at head, carrying the blobs published at base (and RK-DIFF-011)."""
    files = {rel: ref.read for rel, ref in base.under(CATALOG).items()}
    carried = carried_at(files, loaded.streams, DEFAULT_LAYOUT, display=CATALOG, revision=base.label)
    built = build_catalogs(
        head.root / "streams", head.root / "bundle-templates", loaded=loaded, carried=carried
    )
    return dict(built.files), carry_findings(built.carried, built.regenerated, loaded.streams)


def _openshift_order(stream: Stream | None, keys: Iterable[str]) -> list[str]:
    present = set(keys)
    order = [str(v) for v in stream.openshift if str(v) in present] if stream is not None else []
    return order + sorted(present - set(order), key=openshift_order)


def _graphs_block(
    package: str,
    base: Mapping[Key, PackageCatalog],
    head: Mapping[Key, PackageCatalog],
    changed: set[Key],
    stream: Stream | None,
) -> list[tuple[str, str]]:
    """Before/after Mermaid pictures of ``package``, one per group of OpenShift versions that look alike."""

    def picture(cat: PackageCatalog | None) -> str:
        if cat is None:
            return "_(not in this catalog)_\n"
        graph = graph_rules.analyze_package(cat.config, package)
        return f"```mermaid\n{render_mermaid(graph)}```\n" if graph is not None else "_(no package blob)_\n"

    groups: dict[tuple[str, str], list[str]] = {}
    openshifts = {k[0] for k in changed if k[1] == package}
    for openshift in _openshift_order(stream, openshifts):
        before, after = base.get((openshift, package)), head.get((openshift, package))
        groups.setdefault((picture(before), picture(after)), []).append(openshift)
    return [
        (
            f"Upgrade graph of {package} ({', '.join(versions)})",
            f"**Before**\n\n{before}\n**After**\n\n{after}",
        )
        for (before, after), versions in groups.items()
    ]


def _releasekit_revision(commit: Any) -> bool:
    """True when the revision (the base: deleting ``streams/`` changes no mode) has a ``streams/`` folder."""
    try:
        commit.tree / "streams"
    except KeyError:
        return False
    return True  # a streams/ that is not a folder is refused when the base is read, naming it


def _catalog_repository_check(request: CheckRequest, head_commit: Any, limits: LoadLimits) -> CheckResult:
    """The check of a catalog repository without ``streams/`` (or laid out otherwise), acknowledgements applied."""
    from releasekit.jobs.fbc_repo_check import run_repo_check  # which imports this module

    result = run_repo_check(request, limits=limits)
    with tempfile.TemporaryDirectory(prefix="releasekit-check-acks-") as tmp:
        root = request.repo if head_commit is None else _root_files(head_commit, Path(tmp))
        return replace(result, report=_acknowledged(result.report, *load_acknowledgements(root)))


def _acknowledged(
    report: Report, acknowledgements: Iterable[Acknowledgement], ack_findings: Iterable[Finding]
) -> Report:
    """``report`` with the head's acknowledgements applied; what the file itself is found to hold is new."""
    # a check judges only what the change touches, so an entry matching nothing there is not stale
    acknowledged, problems = acknowledge(report.findings, acknowledgements, complete=False)
    extra = (*ack_findings, *problems)
    states = (
        None if report.baseline is None else {**report.baseline, **dict.fromkeys(extra, BaselineState.NEW)}
    )
    return replace(
        report,
        findings=(*report.findings, *extra),
        acknowledged=acknowledged,
        baseline=states,
        rules=tuple(sorted({*report.rules, *ACK_RULES})),
    )


def _root_files(commit: Any, folder: Path) -> Path:
    """Write the revision's root files check reads (the acknowledgements) into ``folder``; return it."""
    try:
        blob = commit.tree / ACKNOWLEDGEMENTS_FILE
    except KeyError:
        return folder
    if blob.type == "blob" and blob.mode != 0o120000 and blob.size <= LoadLimits().max_file_bytes:
        (folder / ACKNOWLEDGEMENTS_FILE).write_bytes(blob.data_stream.read())
    return folder


def run_check(request: CheckRequest, *, limits: LoadLimits | None = None) -> CheckResult:
    """Compare head with base and run every check; nothing is printed.

    Raises:
        UsageError: a ref that is unsafe or names no commit.
        InputError, SafetyLimitError, TemplateError: input that cannot be read.
    """
    limits = limits or LoadLimits()
    published = parse_published(request.published)  # bad syntax: exit 2 before any work
    repo = open_repo(request.repo)
    base_commit = resolve_commit(repo, request.base, "--base")
    head_commit = resolve_commit(repo, request.head, "--head") if request.head is not None else None
    base_commit = branch_point(repo, base_commit, head_commit)
    if not _releasekit_revision(base_commit) or load_layout(request.repo)[0] != DEFAULT_LAYOUT:
        return _catalog_repository_check(request, head_commit, limits)
    if published:
        raise UsageError("--published: in a releasekit repository streams/ say what is released")
    with tempfile.TemporaryDirectory(prefix="releasekit-check-") as tmp:

        def snapshot(commit: Any, side: str, rev: str) -> Snapshot:
            folder, label = Path(tmp) / side, f"{side} {rev}"
            return snapshot_commit(commit, folder, label=label, rev=rev, max_file_bytes=limits.max_file_bytes)

        base = snapshot(base_commit, "base", request.base)
        head = (
            snapshot_worktree(request.repo)
            if request.head is None
            else snapshot(head_commit, "head", request.head)
        )
        base_loaded = _base_streams(base)
        result = _check(request, base, head, limits, base_loaded)
        acknowledgements, ack_findings = load_acknowledgements(head.root)
        baseline = _baseline(
            base,
            limits,
            result.packages,
            base_loaded,
            head=head,
            head_findings=result.report.findings,
        )
    states, fixed = match_baseline(result.report.findings, baseline)
    report = replace(result.report, baseline=states, fixed=fixed, fail_on=request.fail_on)
    return CheckResult(report=_acknowledged(report, acknowledgements, ack_findings), touched=result.touched)


def _base_streams(base: Snapshot) -> LoadedStreams:
    """``streams/`` at base (read once for the check and its baseline); empty when the base has none."""
    folder = base.root / "streams"
    return load_streams(folder, display_root="streams") if folder.is_dir() else _empty_streams()


def _baseline(
    base: Snapshot,
    limits: LoadLimits,
    packages: set[str],
    base_loaded: LoadedStreams,
    *,
    head: Snapshot | None = None,
    head_findings: Iterable[Finding] = (),
) -> list[Finding]:
    """The base's own findings over the packages the head was checked on; none when it cannot be read."""
    if not (base.root / "streams").is_dir():
        return []
    if head is not None and not _changed(base.files, head.files):  # the same blobs
        return list(head_findings)  # nothing releasekit reads changed: the base's findings are the head's
    try:
        streams_check = check_streams_folder(
            base.root / "streams", display_root="streams", loaded=base_loaded
        )
        stream_packages = {s.package for s in base_loaded.streams}
        findings, _, _, cats = _judge_revision(
            base, base, streams_check, _keys(base, base, packages), set(), stream_packages, None, limits
        )
        return list(dict.fromkeys(_without_history_notes(findings, cats, cats)))
    except ReleasekitError:
        return []


def _streams_deleted() -> StreamsCheck:
    """The head of a releasekit repository without ``streams/``: one error says so (RK-STREAM-028)."""
    finding = Finding(
        rule=RULE_EMPTY,
        severity=Severity.ERROR,
        message="streams/ is gone: this repository's releases are defined nowhere",
        location=Location(file="streams"),
        hint="restore streams/; a catalog repository without releasekit keeps no streams/ to begin with",
    )
    report = Report(command="streams validate", findings=(finding,), rules=(RULE_EMPTY,))
    return StreamsCheck(loaded=_empty_streams(), report=report, lifecycle=None)


def _empty_streams() -> LoadedStreams:
    return LoadedStreams(streams=(), inventories={}, findings=(), files=())


def _judge_revision(
    rev: Snapshot,
    base: Snapshot,
    streams_check: StreamsCheck,
    keys: set[Key],
    changed_catalog: set[PurePosixPath],
    stream_packages: set[str],
    published: frozenset[tuple[str, str]] | None,
    limits: LoadLimits,
) -> tuple[list[Finding], list[str], set[str], dict[Key, PackageCatalog]]:
    """Everything that judges one revision on its own (the head of a check, or its base for the baseline).

    ``published``: the bundles the base publishes (None: this revision is the base). Returns the findings,
    the files read, the rules run and the revision's package catalogs.
    """
    loaded, report = streams_check.loaded, streams_check.report
    findings: list[Finding] = [*report.findings]
    checked: list[str] = [*report.checked]
    rules: set[str] = {*report.rules, diff_rules.RULE_DRIFT, carry_rules.RULE_CARRIED_FACTS}
    catalog = rev.under(CATALOG)
    generated, carry_found = _generated_files(rev, base, loaded)
    findings.extend(carry_found)
    findings.extend(_drift(generated, catalog, changed_catalog, stream_packages))
    touched = changed_catalog | {rel for rel in catalog if (k := _catalog_key(rel)) is not None and k in keys}
    fragments, cats = _catalogs(
        catalog, {rel.parts[0] for rel in touched if len(rel.parts) > 1}, keys, limits
    )
    if published is None:
        published = published_in(cats)
    judged, read = judge_fragments(
        fragments,
        [c for _, c in sorted(cats.items())],
        streams=streams_check,
        stranding_severity=graph_rules.published_severity(published),
    )
    # the fragments are judged whole, as build judges them; their untouched packages are not this change's
    shown = {f"{CATALOG}/{rel}" for rel in touched}
    untouched = {path for f in fragments for _, _, path in f.facts.package_files if path not in shown}
    findings.extend(f for f in judged if f.location.file not in untouched)
    checked.extend(file for file in read if file not in untouched)
    configs = [(o, c.config) for (o, _), c in sorted(cats.items())]
    findings.extend(judge_policies(loaded, configs, streams_dir=rev.root / "streams", display_root="streams"))
    rules.update(JUDGED_RULES, POLICY_RULES)
    return findings, checked, rules, cats


def _catalogs(
    catalog: Mapping[PurePosixPath, FileRef], folders: set[str], keys: set[Key], limits: LoadLimits
) -> tuple[list[Fragment], dict[Key, PackageCatalog]]:
    """The fragments ``folders`` of a revision's catalog tree, read as ``build`` reads them; the ``keys``' catalogs."""
    wanted = (*FBC_ROOTS, *CONTAINERFILES)
    held = {
        rel: ref.read()
        for rel, ref in catalog.items()
        if len(rel.parts) > 1 and rel.parts[0] in folders and rel.parts[1] in wanted
    }
    fragments = catalog_fragments(CATALOG, held, limits)
    return fragments, {
        (c.openshift, c.package): c for c in package_catalogs(fragments) if (c.openshift, c.package) in keys
    }


def _keys(base: Snapshot, head: Snapshot, packages: set[str]) -> set[Key]:
    return {
        k
        for rel in (*base.under(CATALOG), *head.under(CATALOG))
        if (k := _catalog_key(rel)) is not None and k[1] in packages
    }


def _check(
    request: CheckRequest,
    base: Snapshot,
    head: Snapshot,
    limits: LoadLimits,
    base_loaded: LoadedStreams,
) -> CheckResult:
    """The check of ``head`` against ``base``: ``head`` judged on its own, then compared with ``base``."""
    streams_check = (
        check_streams_folder(head.root / "streams", display_root="streams")
        if (head.root / "streams").is_dir()
        else _streams_deleted()
    )
    loaded = streams_check.loaded
    base_catalog, head_catalog = base.under(CATALOG), head.under(CATALOG)
    changed_catalog = _changed(base_catalog, head_catalog)
    stream_packages = {s.package for s in (*loaded.streams, *base_loaded.streams)}
    touched_packages = _touched_packages(base, head, changed_catalog, stream_packages)
    keys = _keys(base, head, touched_packages)
    base_cats = _catalogs(base_catalog, {k[0] for k in keys}, keys, limits)[1]
    findings, checked, rules, head_cats = _judge_revision(
        head, base, streams_check, keys, changed_catalog, stream_packages, published_in(base_cats), limits
    )

    # the comparison with the base (the rules that need one)
    findings.extend(compare_streams(base_loaded, loaded))
    findings.extend(diff_rules.check_diff(base_cats, head_cats))
    rules.update(COMPARISON_RULES)
    changes = catalog_changes(base_cats, head_cats)
    findings = _without_history_notes(findings, base_cats, head_cats)

    extras: list[tuple[str, str]] = []
    changed_keys = {k for rel in changed_catalog if (k := _catalog_key(rel)) is not None}
    streams_by_package = {s.package: s for s in loaded.streams}
    for package in sorted({k[1] for k in changed_keys}):
        extras.extend(
            _graphs_block(package, base_cats, head_cats, changed_keys, streams_by_package.get(package))
        )
    extras.extend(_matrix_block(base_cats, head_cats, changed_keys, streams_check.lifecycle))

    report = Report(
        command=request.command,
        findings=tuple(dict.fromkeys(findings)),
        checked=tuple(sorted(set(checked))),
        rules=tuple(sorted(rules)),
        extras=tuple(extras),
        changes=changes,
    )
    return CheckResult(report=report, touched=tuple(sorted(keys)), packages=touched_packages)


def _touched_packages(
    base: Snapshot, head: Snapshot, changed_catalog: set[PurePosixPath], stream_packages: set[str]
) -> set[str]:
    """The packages of the catalog files a change changes; every stream's when its sources changed."""
    sources_changed = any(
        p.parts[0] in ("streams", "bundle-templates") for p in _changed(base.files, head.files)
    )
    touched = {k[1] for rel in changed_catalog if (k := _catalog_key(rel)) is not None}
    return touched | stream_packages if sources_changed else touched


def _matrix_block(
    base: Mapping[Key, PackageCatalog],
    head: Mapping[Key, PackageCatalog],
    changed: set[Key],
    lifecycle: OpenShiftLifecycle | None,
) -> list[tuple[str, str]]:
    """The upgrade-matrix rows the change alters, for the Markdown report (nothing when none change)."""
    blocks = []
    for package in sorted({k[1] for k in changed}):
        old = {o: c.config for (o, p), c in base.items() if p == package}
        new = {o: c.config for (o, p), c in head.items() if p == package}
        present = sorted(set(old) | set(new), key=openshift_order)
        if lifecycle is None:
            edges = [(a, b, "minor") for a, b in zip(present, present[1:], strict=False)]
        else:
            edges = [(str(e.source), str(e.target), e.kind.value) for e in lifecycle.edges_among(present)]
        text = render_changed_markdown(upgrade_matrix(old, edges), upgrade_matrix(new, edges))
        if text:
            blocks.append((f"OpenShift upgrade matrix of {package}: rows this change alters", text))
    return blocks


def _without_history_notes(
    findings: list[Finding], base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> list[Finding]:
    """Drop the upgrade graph's notes (RK-GRAPH INFO) about bundles the base already had in that catalog."""
    had = {
        (cat.file, f'bundle "{b.name}"')
        for key, cat in head.items()
        if key in base
        for b in base[key].config.bundles
    }
    return [
        f
        for f in findings
        if not (
            f.rule.startswith("RK-GRAPH-")
            and f.severity is Severity.INFO
            and f.subject
            and (f.location.file, f.subject[-1]) in had
        )
    ]
