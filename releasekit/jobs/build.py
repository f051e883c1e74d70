"""The release job: streams → catalogs → every check, as ``releasekit build`` and ``catalog build`` run it.

Job module (it reads and writes the repository through the adapters); the decisions are the pure core's. Steps:

1. load and validate ``streams/`` (schemas, cross-checks, feature-gate policy);
2. carry every published bundle blob the catalog tree holds at git HEAD (:mod:`releasekit.jobs.carry`)
   and plan and render every catalog fragment around them (:mod:`releasekit.jobs.catalog_build`);
3. check the result: carried blobs against their releases (RK-DIFF-010/011), the operator records
   (RK-BUNDLE-100…102), the release policy (RK-POLICY), the comparison with git HEAD (RK-DIFF-002…007,
   RK-STREAM-031) and the catalog tree -- opm's rules, Konflux's layout rules, the upgrade graph. With
   ``check`` the tree on disk is checked and compared file by file (RK-DIFF-001); otherwise the new
   tree is checked in a temporary folder before anything is written;
4. all or nothing: only when no finding is an error is ``catalog/`` written (atomically); otherwise it
   is left as it was and the result says so in one line;
5. with ``bundles``, generate every release's bundle from upstream Kueue (the only step that needs it)
   and validate them.

One verdict: ``build`` is ``check --base HEAD``. Every rule ``check`` runs runs here too, with the same
severity, the comparisons with a base revision included (:mod:`releasekit.jobs.compare`, with git HEAD as
the base: a published bundle removed, a published blob changed, users stranded, the strandings the change
brings); tests/scenarios/test_one_verdict.py holds the two to the same findings.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from releasekit.io.streams import LoadedStreams
from releasekit.jobs.catalog_build import CatalogBuild, build_catalogs, compare_files, drift
from releasekit.jobs.catalog_validate import validate_tree
from releasekit.jobs.compare import Comparison
from releasekit.jobs.streams_validate import check_streams_folder
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.layout import CatalogLayout
from releasekit.model.report import Report
from releasekit.model.stream import CrossMinor, ReleaseStatus, Stream

__all__ = ["BuildRequest", "BuildResult", "RECORD_RULES", "build", "record_findings_of", "run_build"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildRequest:
    """What to build and where (paths as the user gave them, shown in findings).

    ``layout`` None reads ``releasekit.yaml`` beside ``streams_dir`` (the repository root); ``catalog_dir``
    None is the layout's root there. ``published_dir`` is the committed catalog tree whose HEAD blobs are
    carried (default: the layout's root, so a preview written elsewhere still carries them).
    """

    streams_dir: Path = Path("streams")
    templates_dir: Path = Path("bundle-templates")
    catalog_dir: Path | None = None
    check: bool = False
    candidates: bool = False
    cross_minor: CrossMinor | None = None
    command: str = "build"
    extra_rules: tuple[str, ...] = field(default=())
    bundles: bool = False
    upstream: str | None = None
    bundles_dir: Path = Path("bundles")
    allow_unpinned: bool = False
    layout: CatalogLayout | None = None
    published_dir: Path | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildResult:
    """The report, and whether the catalog tree was written.

    ``unchanged`` is the one line a failed build ends with (``catalog/ left unchanged: 3 errors``), or
    empty when the tree was written or only checked.
    """

    report: Report
    written: bool
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


def _shown_as(findings: Iterable[Finding], staged: Path, shown: Path) -> list[Finding]:
    """Findings about the staged tree, pointing at where it is going (``catalog/...``)."""
    old, new = str(staged), str(shown)

    def fix(text: str) -> str:
        return text.replace(old, new)

    return [
        replace(
            f,
            message=fix(f.message),
            hint=fix(f.hint),
            location=Location(file=fix(f.location.file), line=f.location.line, path=f.location.path),
            subject=tuple(fix(s) for s in f.subject),
        )
        for f in findings
    ]


_UNLOADABLE = frozenset({"RK-STREAM-001", "RK-STREAM-002", "RK-STREAM-003", "RK-STREAM-004"})
"""Stream errors that leave a release out of what was loaded (schema, duplicate key, version, duplicate
version): the comparison with HEAD would report the release removed, a finding derived from them."""

RECORD_RULES = ("RK-BUNDLE-100", "RK-BUNDLE-101", "RK-BUNDLE-102")
"""The operator-record rules ``build`` runs as ``bundle build`` does (which record a bundle is built from)."""


def record_findings_of(
    streams_dir: Path, streams: Sequence[Stream], *, display_root: str | None = None
) -> list[Finding]:
    """RK-BUNDLE-100…102 for every release, from the operator records in ``streams/operator/``.

    ``build`` and ``check`` report them as ``bundle build`` does.
    """
    from releasekit.io.operator_records import load_operator_records
    from releasekit.plan.operator_bundle import record_findings

    records, unreadable = load_operator_records(streams_dir, display_root=display_root)
    return [*unreadable, *record_findings(list(streams), records)]


def _without_derived(stream_findings: Iterable[Finding], tree_findings: list[Finding]) -> list[Finding]:
    """The staged tree's findings less those about a release whose stream entry holds an error.

    A release with an error in ``streams/`` (a short digest, say) is reported once, at its line; the
    catalog built from it is never written (an error stops the build), so what the catalog rules find in
    its blobs would point at lines of a file that does not exist.
    """
    broken = {
        f'bundle "{f.subject[0]}.v{f.subject[1]}"'
        for f in stream_findings
        if f.severity is Severity.ERROR and len(f.subject) == 2
    }
    return [f for f in tree_findings if not broken.intersection(f.subject)] if broken else tree_findings


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _owned(layout: CatalogLayout) -> Callable[[PurePosixPath], bool]:
    """Which top-level entry of a folder without a marker shows it is laid out as ``layout``.

    That is a ``v<X.Y>`` fragment: :func:`write_tree_atomic` refuses a folder without one. What releasekit
    replaces or removes is only ever what its marker lists.
    """
    return layout.owns


def _write(
    target_dir: Path, layout: CatalogLayout, files: Mapping[PurePosixPath, bytes], inputs: tuple[Path, ...]
) -> None:
    from releasekit.io.atomic import write_files, write_tree_atomic  # a write needs tempfile, shutil

    if layout.owns_tree:
        write_tree_atomic(target_dir, files, owned=_owned(layout), inputs=inputs)
    else:
        write_files(target_dir, files)  # file by file: every other file there is left alone


def _check_root(repo_root: Path, catalog_dir: Path) -> None:
    """Refuse a configured catalog root that is a symbolic link or leaves the repository.

    Raises:
        SafetyLimitError: naming the root.
    """
    import os

    from releasekit.errors import SafetyLimitError

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
    committed: object | None,
    committed_bytes: Mapping[PurePosixPath, bytes],
    generated: Mapping[PurePosixPath, bytes],
    layout: CatalogLayout,
    loaded: LoadedStreams,
    *,
    display: str,
) -> Comparison:
    """``check --base HEAD``'s comparisons over what this build generates (none for a preview catalog).

    Without a committed catalog (outside git, or a first build) what ``streams/`` marks released is what
    counts as published: a stranding of a released bundle is history, any other is new.
    """
    from releasekit.jobs.compare import compare_with_head, published_by_streams, streams_at_head

    if request.candidates:
        return Comparison()
    if committed is None or not committed_bytes:
        return Comparison(stranding_severity=published_by_streams(loaded.streams))
    return compare_with_head(
        committed_bytes,
        generated,
        layout,
        display=display,
        base_streams=streams_at_head(request.streams_dir, loaded),
        head_streams=loaded,
    )


def _check_targets(catalog_dir: Path, files: Mapping[PurePosixPath, bytes]) -> None:
    """Refuse, before the working tree is read, a generated path that is not a plain file of the tree.

    That is a path through a symbolic link or a file, or a FIFO, device or folder (whether the file is
    releasekit's to replace is checked when it is written, after the checks: an error finding says more
    than a refusal).

    Raises:
        SafetyLimitError, InputError: naming the path (see :func:`releasekit.io.atomic.target_stat`).
    """
    from releasekit.io.atomic import target_stat

    if catalog_dir.is_dir():
        for rel in files:
            target_stat(catalog_dir, rel)


def _tech_preview_findings(streams: tuple[Stream, ...], built: CatalogBuild) -> list[Finding]:
    """RK-POLICY-010…012 over the catalogs just planned (what ``catalog/`` holds when in sync)."""
    from releasekit.rules.tech_preview import check_catalog_blocking

    configs = [(str(f.openshift), config) for f in built.fragments for _, config in f.packages]
    return list(check_catalog_blocking(streams, configs))


TEMPLATE = "catalog-template.yaml"


def _basic_templates(built: CatalogBuild) -> dict[PurePosixPath, bytes]:
    """Each fragment's ``olm.template.basic`` template, which opm renders to the fragment's catalog.

    Its entries are the catalog's blobs with every bundle given by its image alone (a semver template
    cannot express the edges releasekit plans).
    """
    import json

    from releasekit.io.fbc_write import blobs_in_render_order
    from releasekit.io.yamlio import dump_yaml_block
    from releasekit.model.fbc import SCHEMA_BUNDLE, DeclarativeConfig
    from releasekit.plan.template_basic import BASIC_SCHEMA

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
    from releasekit.io.config import load_layout

    repo_root = request.streams_dir.parent
    layout, config_findings = (request.layout, []) if request.layout else load_layout(repo_root)
    catalog_dir = request.catalog_dir or repo_root / layout.root
    if request.catalog_dir is None:
        _check_root(repo_root, catalog_dir)
    if request.check:
        return _build(request, layout, config_findings, catalog_dir)
    from releasekit.io.atomic import check_output_target, output_lock

    if not layout.owns_tree:  # file by file: the lock is inside the root (which may be the repository's)
        if catalog_dir.exists() and not catalog_dir.is_dir():
            from releasekit.errors import InputError

            raise InputError(f"{catalog_dir}: the catalog root is not a folder")
        with output_lock(catalog_dir, inside=True):
            return _build(request, layout, config_findings, catalog_dir)
    inputs = (request.streams_dir, request.templates_dir)
    check_output_target(catalog_dir, owned=_owned(layout), inputs=inputs)  # before any work
    with output_lock(catalog_dir):  # a second build of this checkout stops here at once
        return _build(request, layout, config_findings, catalog_dir)


def _build(
    request: BuildRequest, layout: CatalogLayout, config_findings: list[Finding], catalog_dir: Path
) -> BuildResult:
    from releasekit.io.acknowledgements import load_acknowledgements
    from releasekit.io.config import RULES as CONFIG_RULES
    from releasekit.io.gitrev import committed_files
    from releasekit.jobs.carry import carried_at_head, carry_findings, history_hints, working_findings
    from releasekit.jobs.compare import COMPARISON_RULES
    from releasekit.model.acknowledgement import RULES as ACK_RULES
    from releasekit.rules import policy as policy_rules
    from releasekit.rules.carry import RULES as CARRY_RULES
    from releasekit.rules.carry import nothing_compared
    from releasekit.rules.graph import GraphPolicy

    repo_root = request.streams_dir.parent
    acknowledgements, ack_findings = load_acknowledgements(repo_root)  # unreadable: exit 2 before any work
    published_dir = request.published_dir or repo_root / layout.root
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
        cross_minor=request.cross_minor,
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
    _check_targets(catalog_dir, built.files)  # before the working tree is read
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
    findings.extend(record_findings_of(request.streams_dir, loaded.streams))
    rules.extend(RECORD_RULES)
    catalogs = [(str(f.openshift), config) for f in built.fragments for _, config in f.packages]
    findings.extend(policy_rules.check_policy(loaded.streams, loaded.inventories, catalogs))
    rules.extend(policy_rules.RULES)
    rules.append("RK-DIFF-001")
    lifecycle = streams_check.lifecycle
    comparison = (
        _compare_with_head(
            request, committed, committed_bytes, built.files, layout, loaded, display=str(published_dir)
        )
        if not any(f.severity is Severity.ERROR and f.rule in _UNLOADABLE for f in streams_report.findings)
        else Comparison()  # root causes only: a release streams/ cannot load would look removed
    )
    findings.extend(comparison.findings)
    rules.extend(COMPARISON_RULES)
    findings.extend(_tech_preview_findings(loaded.streams, built))
    rules.extend(("RK-POLICY-010", "RK-POLICY-011", "RK-POLICY-012"))

    policies = {s.package: GraphPolicy.from_stream(s) for s in loaded.streams}
    order = tuple(dict.fromkeys(str(v) for s in loaded.streams for v in s.openshift))

    def check_tree(tree: Path) -> None:
        tree_findings, tree_checked, tree_rules = validate_tree(
            tree,
            policies=policies,
            upgrade_order=order,
            upgrade_edges=lifecycle.pairs_among(order) if lifecycle is not None else None,
            stranding_severity=comparison.stranding_severity,
        )
        if request.candidates:
            tree_findings = _development_images_allowed(tree_findings, loaded.streams)
        findings.extend(tree_findings)
        checked.extend(tree_checked)
        rules.extend(tree_rules)

    written = False
    unchanged = ""
    if request.check:
        if layout.owns_tree:
            findings.extend(drift(catalog_dir, built.files, str(catalog_dir)))
        else:
            from releasekit.io.atomic import read_generated

            on_disk = {rel: read_generated(catalog_dir, rel) for rel in built.files}
            existing = {
                rel: functools.partial(bytes, data) for rel, data in on_disk.items() if data is not None
            }
            findings.extend(compare_files(built.files, existing, str(catalog_dir)))
        if catalog_dir.is_dir():
            check_tree(catalog_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="releasekit-build-") as tmp:
            staged = Path(tmp) / (catalog_dir.absolute().name or "catalog")
            from releasekit.io.atomic import write_tree_atomic

            write_tree_atomic(staged, built.files, marker=False, lock=False)
            before = len(findings)
            check_tree(staged)
            findings[before:] = _shown_as(
                _without_derived(streams_report.findings, findings[before:]), staged, catalog_dir
            )
            checked[:] = [c.replace(str(staged), str(catalog_dir)) for c in checked]
        errors = sum(1 for f in findings if f.severity is Severity.ERROR)
        if errors:
            unchanged = f"{str(catalog_dir).rstrip('/')}/ left unchanged: {_count(errors, 'error')}"
        else:
            _write(catalog_dir, layout, built.files, (request.streams_dir, request.templates_dir))
            written = True
    if request.bundles and not unchanged:
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
    from releasekit.model.acknowledgement import acknowledge

    acknowledged, ack_problems = acknowledge(findings, acknowledgements)
    report = Report(
        command=request.command,
        findings=(*findings, *ack_problems),
        checked=tuple(checked),
        rules=tuple(sorted(set(rules) | set(request.extra_rules))),
        acknowledged=acknowledged,
        changes=comparison.changes,  # what the build writes (or would) into each catalog, against HEAD
    )
    return BuildResult(report=report, written=written, unchanged=unchanged)


def run_build(request: BuildRequest) -> Report:
    """Run the job and return its report (see :func:`build`)."""
    return build(request).report
