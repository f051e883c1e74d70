"""``releasekit bundle build``: generate registry+v1 bundles from ``streams/``, the templates and upstream Kueue.

Every bundle is rendered and validated before anything is written; an error finding writes nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from releasekit.errors import InputError, UpstreamError
from releasekit.io.atomic import write_tree_atomic
from releasekit.io.bundle_load import load_bundle, load_manifests_dir
from releasekit.io.inputs import contained
from releasekit.io.operator_records import load_operator_records
from releasekit.io.streams import LoadedStreams, load_streams
from releasekit.io.templates import TemplateSet
from releasekit.io.upstream import check_ref, open_repository, read_crd_files, resolve_ref
from releasekit.io.yamlio import dump_yaml_block
from releasekit.model.bundle import StreamPolicy, ValidationOptions
from releasekit.model.finding import Finding, Location, Severity, has_errors
from releasekit.model.inventory import Crd
from releasekit.model.operator import OperatorRecord
from releasekit.model.stream import CrdPlacement, OlmV1Readiness, Release, ReleaseStatus, Stream
from releasekit.model.tech_preview import (
    ANNOTATION_OLM_PROPERTIES,
    olm_properties_annotation,
    written_max_openshift,
)
from releasekit.plan.bundle import (
    BundlePlan,
    manifest_document,
    plan_bundle,
    require_pinned,
    select_releases,
    template_context,
    upstream_ref,
)
from releasekit.plan.operator_bundle import OperatorFacts, choose_operator_facts, recorded_files
from releasekit.rules.bundle import DEFAULT_VALIDATORS, validate_bundle
from releasekit.rules.bundle.policy import check_alpha_crds
from releasekit.rules.olmv1 import check_olmv1
from releasekit.rules.tech_preview import check_csv_blocking

__all__ = ["CSV_TEMPLATE", "DEFAULT_UPSTREAM", "UpstreamReader", "build_bundles", "validate_built"]

DEFAULT_UPSTREAM = "https://github.com/kubernetes-sigs/kueue.git"
"""The public Kueue repository, cloned once into the cache when ``--upstream`` is not given."""

CSV_TEMPLATE = "clusterserviceversion.yaml.j2"
ANNOTATIONS_TEMPLATE = "annotations.yaml.j2"
DOCKERFILE_TEMPLATE = "bundle.Dockerfile.j2"
OPERATOR_CRD_TEMPLATE = "kueue-operator-crd.yaml.j2"
CSV_FACTS = "csv-facts.yaml"
PROSE = "prose.yaml"

RULE_DRIFT = "RK-DIFF-001"


@dataclass(frozen=True, slots=True, kw_only=True)
class BuiltBundle:
    """One generated bundle: its plan, its files (relative to its folder), where it goes, and what it came from."""

    plan: BundlePlan
    files: Mapping[PurePosixPath, bytes]
    target: Path
    display: str
    operator: OperatorFacts | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleBuild:
    """What a ``bundle build`` run produced: the bundles and every finding (load, drift, validation)."""

    bundles: tuple[BuiltBundle, ...]
    findings: tuple[Finding, ...]
    checked: tuple[str, ...]


# ------------------------------------------------------------------------------------------ upstream


def _one_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    fatal = [line for line in lines if line.lower().startswith(("fatal:", "error:"))]
    return "; ".join(fatal or lines[-1:] or [str(text)])


def read_upstream_crds(repo: Any, ref: str) -> tuple[str, tuple[tuple[Crd, bytes], ...]]:
    """The commit ``ref`` resolves to and every CRD file at it (facts and bytes), read from git blobs."""
    check_ref(ref)
    commit = resolve_ref(repo, ref)
    out: list[tuple[Crd, bytes]] = []
    for path, data, crds in read_crd_files(commit.tree, ref):
        if len(crds) > 1:
            raise UpstreamError(f"{ref}:{path}: holds {len(crds)} CRDs; expected one per file")
        if crds:
            out.append((crds[0], data))
    return str(commit.hexsha), tuple(out)


class UpstreamReader:
    """Opens the upstream repository once, on first use, and reads CRDs at refs (cached per ref)."""

    def __init__(self, spec: str, *, cache: Path | None = None) -> None:
        self.spec = spec
        self.cache = cache
        self._repo: Any = None
        self._by_ref: dict[str, tuple[str, tuple[tuple[Crd, bytes], ...]]] = {}

    def _open(self) -> Any:
        if self._repo is None:
            os.environ.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait for credentials
            try:
                self._repo = open_repository(self.spec, cache=self.cache)
            except UpstreamError as exc:
                raise UpstreamError(
                    f"upstream Kueue repository {self.spec} is unreachable: {_one_line(str(exc))}; "
                    "pass --upstream PATH to use a local clone"
                ) from None
        return self._repo

    def crds(self, ref: str) -> tuple[str, tuple[tuple[Crd, bytes], ...]]:
        """The commit and CRD files of ``ref``."""
        if ref not in self._by_ref:
            check_ref(ref)  # before git sees it
            self._by_ref[ref] = read_upstream_crds(self._open(), ref)
        return self._by_ref[ref]


# ------------------------------------------------------------------------------------------ rendering


def _recorded_header(path: PurePosixPath) -> str:
    return (
        "" if path.parent.name == "manifests" else "# Generated by `releasekit bundle build`; do not edit.\n"
    )


def render_bundle(
    plan: BundlePlan,
    contents: Mapping[str, bytes],
    templates: TemplateSet,
    operator: OperatorFacts | None = None,
) -> dict[PurePosixPath, bytes]:
    """Every file of the bundle ``plan`` plans (``contents``: upstream file -> bytes)."""
    files: dict[PurePosixPath, bytes]
    if operator is not None and operator.record is not None:
        documents = recorded_files(
            plan.stream,
            plan.release,
            operator,
            bundle_annotations=plan.annotations,
            prose_doc=templates.read_yaml(PROSE),
        )
        files = {
            path: (doc if isinstance(doc, str) else _recorded_header(path) + dump_yaml_block(doc)).encode(
                "utf-8"
            )
            for path, doc in documents.items()
        }
    else:
        context = template_context(
            plan, defaults=templates.read_yaml(CSV_FACTS), prose=templates.read_yaml(PROSE)
        )
        files = {
            plan.csv_path: templates.render(CSV_TEMPLATE, context).encode("utf-8"),
            plan.operator_crd_path: templates.render(OPERATOR_CRD_TEMPLATE, context).encode("utf-8"),
            plan.annotations_path: templates.render(ANNOTATIONS_TEMPLATE, context).encode("utf-8"),
            plan.dockerfile_path: templates.render(DOCKERFILE_TEMPLATE, context).encode("utf-8"),
        }
    for planned in plan.crds:
        if planned.path is not None:
            files[planned.path] = contents[planned.crd.file]
    header = (
        "# Generated by `releasekit bundle build`; do not edit.\n"
        "# The upstream Kueue CRD files this bundle was built from, by name and sha256.\n"
    )
    files[plan.manifest_path] = (header + dump_yaml_block(dict(manifest_document(plan)))).encode("utf-8")
    return files


# ------------------------------------------------------------------------------------------ checks


def _bundle_layout(rel: PurePosixPath) -> bool:
    return bool(rel.parts) and rel.parts[0] in ("manifests", "metadata", "bundle.Dockerfile")


def _tree_files(root: Path) -> dict[PurePosixPath, Path]:
    if not root.is_dir():
        return {}
    return {PurePosixPath(p.relative_to(root).as_posix()): p for p in sorted(root.rglob("*")) if p.is_file()}


def drift_findings(target: Path, files: Mapping[PurePosixPath, bytes], display: str) -> tuple[Finding, ...]:
    """RK-DIFF-001 for every file under ``target`` that is missing, stale (not generated) or different."""
    existing = _tree_files(target)
    out: list[Finding] = []
    for rel in sorted(set(files) | set(existing)):
        shown = f"{display.rstrip('/')}/{rel}"
        if rel not in existing:
            problem = "is missing"
        elif rel not in files:
            problem = "is not generated any more (stale)"
        elif existing[rel].read_bytes() != files[rel]:
            problem = "differs from a fresh build"
        else:
            continue
        out.append(
            Finding(
                rule=RULE_DRIFT,
                severity=Severity.ERROR,
                message=f"{shown} {problem}",
                location=Location(file=shown),
                hint="run `releasekit bundle build` without --check to regenerate the bundle",
                subject=(display,),
            )
        )
    return tuple(out)


def _as_history(finding: Finding, release: Release) -> Finding:
    """A published fact the rules would refuse in a new release is history: a warning."""
    api = release.owned_api
    own_crd = f'"kueues.{api.group}"' if api else None
    historic = (
        finding.rule == "RK-BUNDLE-093" and "not a valid OpenShift version range" in finding.message
    ) or (finding.rule == "RK-BUNDLE-090" and own_crd is not None and own_crd in finding.message)
    if not historic or finding.severity is not Severity.ERROR:
        return finding
    return replace(finding, severity=Severity.WARNING, message=f"{finding.message} (published history)")


def _own_properties_allowed(
    findings: list[Finding], bundle: Any, stream: Stream, release: Release
) -> list[Finding]:
    """Drop RK-BUNDLE-029 (olm.properties used) when the annotation is exactly what releasekit writes."""
    value = written_max_openshift(stream, release)
    if value is None or bundle.csv is None:
        return findings
    if bundle.csv.annotations.get(ANNOTATION_OLM_PROPERTIES) != olm_properties_annotation(value):
        return findings
    return [f for f in findings if f.rule != "RK-BUNDLE-029"]


def validate_built(root: Path, display: str, stream: Stream, release: Release) -> tuple[Finding, ...]:
    """Validate a generated bundle folder: operator-sdk's default validators plus releasekit's own rules."""
    policy = StreamPolicy(
        stream=stream.name,
        alpha_kinds=stream.api_maturity.alpha_apis,
        released=release.status is not ReleaseStatus.CANDIDATE,
    )
    bundle = load_bundle(root, shown=display)
    options = ValidationOptions(
        validators=DEFAULT_VALIDATORS,
        index_dockerfile=bundle.dockerfile,
        release_checks=release.status is not ReleaseStatus.CANDIDATE,
        allowed_registries=stream.released_registries,
        stream=policy,
        openshift_catalogs=tuple(str(c) for c in release.catalogs),
    )
    findings = _own_properties_allowed(list(validate_bundle(bundle, options)), bundle, stream, release)
    if release.status is not ReleaseStatus.CANDIDATE:
        findings = [_as_history(f, release) for f in findings]
    required = stream.olmv1 is OlmV1Readiness.REQUIRED
    findings += check_olmv1(bundle, Severity.ERROR if required else Severity.WARNING)
    if bundle.csv is not None:
        findings += check_csv_blocking(
            stream, release, bundle.csv.annotations, bundle.csv.loc("$.metadata.annotations")
        )
    assets = root / "operator-assets" / "crds"
    if assets.is_dir():
        shown = f"{display.rstrip('/')}/operator-assets/crds"
        findings += check_alpha_crds(load_manifests_dir(assets, shown=shown), policy)
    return tuple(findings)


# ------------------------------------------------------------------------------------------ the build


def _build_one(
    stream: Stream,
    release: Release,
    loaded: LoadedStreams,
    records: Mapping[str, OperatorRecord],
    templates: TemplateSet,
    reader: UpstreamReader,
    out: Path,
    allow_unpinned: bool = False,
) -> BuiltBundle:
    inventory = loaded.inventories.get(release.upstream.inventory)
    if inventory is None:
        raise InputError(
            f"release {release.version} of stream {stream.name}: inventory {release.upstream.inventory!r} "
            "not found under upstream/; record it with `releasekit upstream import`"
        )
    pin = upstream_ref(release, inventory)
    operator = choose_operator_facts(stream, release, records)
    read: tuple[tuple[Crd, bytes], ...]
    if stream.crd_placement is CrdPlacement.OPERATOR_ASSETS:
        # the bundle holds no Kueue file: cite the inventory, read no git (offline)
        commit, read = inventory.commit, tuple((crd, b"") for crd in inventory.crds)
    else:
        require_pinned(inventory, repo=reader.spec, ref=pin.ref, allow_unpinned=allow_unpinned)  # before git
        commit, read = reader.crds(pin.ref)
    plan = plan_bundle(
        stream,
        release,
        inventory,
        [crd for crd, _ in read],
        pin=pin,
        commit=commit,
        repo=reader.spec,
        allow_unpinned=allow_unpinned,
    )
    files = render_bundle(plan, {crd.file: data for crd, data in read}, templates, operator)
    target = contained(out.joinpath(*plan.root.parts), out, "the bundle folder named after the release")
    display = f"{str(out).rstrip('/')}/{plan.root}"
    return BuiltBundle(plan=plan, files=files, target=target, display=display, operator=operator)


def _validate_staged(bundle: BuiltBundle) -> tuple[Finding, ...]:
    staging = Path(tempfile.mkdtemp(prefix=".releasekit-bundle-check."))
    try:
        write_tree_atomic(staging / "bundle", bundle.files)
        return validate_built(staging / "bundle", bundle.display, bundle.plan.stream, bundle.plan.release)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def build_bundles(
    streams_dir: Path,
    templates_dir: Path,
    out: Path,
    *,
    upstream: str = DEFAULT_UPSTREAM,
    stream: str | None = None,
    version: str | None = None,
    every: bool = False,
    check: bool = False,
    allow_unpinned: bool = False,
    cache: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> BundleBuild:
    """Build (or with ``check`` compare) the chosen bundles and validate them; an error writes nothing."""
    loaded = load_streams(streams_dir, display_root=str(streams_dir))
    chosen = select_releases(loaded.streams, stream=stream, version=version, every=every)
    templates = TemplateSet(templates_dir)
    reader = UpstreamReader(upstream, cache=cache)
    records, record_findings = load_operator_records(streams_dir, display_root=str(streams_dir))
    built = [_build_one(s, r, loaded, records, templates, reader, out, allow_unpinned) for s, r in chosen]
    findings: list[Finding] = list(loaded.findings) + record_findings
    for bundle in built:
        if bundle.operator is not None:
            findings += bundle.operator.findings
        if check:
            findings += drift_findings(bundle.target, bundle.files, bundle.display)
        findings += _validate_staged(bundle)
    # an error anywhere (a record left out, a bundle the validators refuse) writes nothing at all
    write = not check and not has_errors(findings)
    checked: list[str] = []
    for bundle in built:
        if write:
            write_tree_atomic(bundle.target, bundle.files, owned=_bundle_layout, marker=False, lock=False)
        if progress is not None:
            verb = "checked" if check else "wrote" if write else "did not write (error findings)"
            progress(f"{verb} {bundle.display} ({len(bundle.files)} files, upstream {bundle.plan.pin.ref})")
        checked += [f"{bundle.display}/{rel}" for rel in sorted(bundle.files)]
    return BundleBuild(bundles=tuple(built), findings=tuple(findings), checked=tuple(checked))


def render_release_bundle(
    streams_dir: Path, templates_dir: Path, stream: Stream, release: Release
) -> BuiltBundle:
    """One release's bundle rendered in memory, offline (a stream whose bundles hold no Kueue file)."""
    loaded = load_streams(streams_dir, display_root=str(streams_dir))
    records, _ = load_operator_records(streams_dir, display_root=str(streams_dir))
    reader = UpstreamReader(DEFAULT_UPSTREAM)  # never opened: the bundle holds no Kueue file
    return _build_one(stream, release, loaded, records, TemplateSet(templates_dir), reader, Path("bundles"))
