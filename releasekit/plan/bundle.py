"""One release's registry+v1 bundle: files, names, CRD placement and the checks that stop a build.

Pure core: no I/O, no git, no jinja2. The job reads the upstream CRDs and writes the files
:func:`plan_bundle` names under ``<stream>/<version>/``; operand CRDs keep their upstream names and bytes,
and which ship is decided from the files read at the ref, not from the inventory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from releasekit.errors import SafetyLimitError, UpstreamError, UsageError
from releasekit.model.inventory import Crd, Inventory, InventorySource
from releasekit.model.stream import (
    DEFAULT_NEWEST_MINOR,
    CrdPlacement,
    Release,
    ReleaseStatus,
    Stream,
)
from releasekit.plan.csv import csv_context, openshift_versions_value, operand_crds, with_prose

__all__ = [
    "ANNOTATIONS_FILE",
    "ASSETS_DIR",
    "DOCKERFILE",
    "MANIFEST_FILE",
    "MANIFEST_SCHEMA",
    "OPERATOR_CRD_FILE",
    "BundlePlan",
    "PlannedCrd",
    "UpstreamPin",
    "bundle_annotations",
    "check_hashes",
    "import_hint",
    "manifest_document",
    "plan_bundle",
    "require_pinned",
    "select_releases",
    "template_context",
    "upstream_ref",
]

MANIFESTS_DIR = PurePosixPath("manifests")
METADATA_DIR = PurePosixPath("metadata")
ASSETS_DIR = PurePosixPath("operator-assets") / "crds"
ANNOTATIONS_FILE = METADATA_DIR / "annotations.yaml"
DOCKERFILE = PurePosixPath("bundle.Dockerfile")
MANIFEST_FILE = PurePosixPath("upstream-crds.yaml")
OPERATOR_CRD_FILE = MANIFESTS_DIR / "kueue.openshift.io_kueues.yaml"
MANIFEST_SCHEMA = "releasekit/upstream-crds/v1"

EXCLUDED = "excluded"
CITED_REASON = "embedded in the operator image; the inventory is cited, not hash-checked"

_SAFE_COMPONENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
_DESCRIBE_COMMIT = re.compile(r"-g([0-9a-f]{7,40})$")


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamPin:
    """The upstream ref a release's CRDs are read at, and which fact it came from.

    ``source`` is ``tag``, ``commit``, ``describe`` or ``inventory`` (the release records no pin of its own).
    """

    ref: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedCrd:
    """One upstream CRD file read at the ref: where it goes (``path``, None when left out) and why."""

    crd: Crd
    placement: str
    path: PurePosixPath | None
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BundlePlan:
    """Everything one bundle is made of, before rendering.

    Paths are relative to ``root`` (``<stream>/<version>``). ``crds`` are every upstream CRD file read, with
    its placement (``bundle``, ``operator-assets``, ``excluded``); ``shipped`` the operand CRDs that ship.
    ``pinned``: the hashes were checked against an exact inventory.
    """

    stream: Stream
    release: Release
    root: PurePosixPath
    csv_path: PurePosixPath
    operator_crd_path: PurePosixPath
    annotations_path: PurePosixPath
    dockerfile_path: PurePosixPath
    manifest_path: PurePosixPath
    crds: tuple[PlannedCrd, ...]
    shipped: tuple[Crd, ...]
    annotations: Mapping[str, str]
    pin: UpstreamPin
    commit: str
    inventory: Inventory
    pinned: bool

    @property
    def csv_name(self) -> str:
        """``<package>.v<version>``."""
        return self.release.csv_name(self.stream.package)

    @property
    def bundle_crds(self) -> tuple[PlannedCrd, ...]:
        """CRDs placed in ``manifests/``."""
        return tuple(c for c in self.crds if c.placement == CrdPlacement.BUNDLE.value)

    @property
    def excluded_crds(self) -> tuple[PlannedCrd, ...]:
        """CRDs read upstream but left out (alpha APIs the stream does not ship)."""
        return tuple(c for c in self.crds if c.placement == EXCLUDED)


# ------------------------------------------------------------------------------------------ selection


def select_releases(
    streams: Sequence[Stream], *, stream: str | None = None, version: str | None = None, every: bool = False
) -> tuple[tuple[Stream, Release], ...]:
    """The releases to build: ``version`` (in ``stream`` or anywhere), every release, or the candidates.

    Raises:
        UsageError: an unknown stream or version, or ``version`` together with ``every``.
    """
    if version is not None and every:
        raise UsageError("give either --version or --all, not both")
    chosen = list(streams)
    if stream is not None:
        chosen = [s for s in streams if s.name == stream]
        if not chosen:
            known = ", ".join(s.name for s in streams) or "none"
            raise UsageError(f"no stream named {stream!r} (streams: {known})")
    out: list[tuple[Stream, Release]] = []
    for item in chosen:
        for release in item.releases:
            if version is not None:
                if str(release.version) == version:
                    out.append((item, release))
            elif every or release.status is ReleaseStatus.CANDIDATE:
                out.append((item, release))
    if version is not None and not out:
        where = f"stream {stream!r}" if stream is not None else "any stream"
        raise UsageError(f"no release {version} in {where}")
    return tuple(out)


# ------------------------------------------------------------------------------------------ upstream


def upstream_ref(release: Release, inventory: Inventory | None) -> UpstreamPin:
    """The ref to read the release's CRDs at: tag, else commit, else describe pin, else the inventory's.

    A describe pin gives its ``g<hex>`` commit (``v0.19.0-devel-19-g982b8b02``), else the string itself.

    Raises:
        UpstreamError: the release names no pin and there is no inventory to fall back on.
    """
    up = release.upstream
    if up.tag:
        return UpstreamPin(ref=up.tag, source="tag")
    if up.commit:
        return UpstreamPin(ref=up.commit, source="commit")
    if up.describe:
        match = _DESCRIBE_COMMIT.search(up.describe)
        return UpstreamPin(ref=match.group(1) if match else up.describe, source="describe")
    if inventory is not None and inventory.ref:
        return UpstreamPin(ref=inventory.ref, source="inventory")
    raise UpstreamError(
        f"release {release.version}: no upstream tag, commit or describe pin, and no inventory "
        f"{up.inventory!r} to take a ref from"
    )


def import_hint(repo: str, ref: str) -> str:
    """The command that records an exact inventory (with CRD hashes) for ``ref`` of ``repo``."""
    return f"releasekit upstream import --repo {repo} --ref {ref}"


def require_pinned(inventory: Inventory, *, repo: str, ref: str, allow_unpinned: bool) -> None:
    """Stop unless ``inventory`` records a sha256 per CRD file (or ``allow_unpinned``).

    Raises:
        UpstreamError: the inventory is transcribed or lacks hashes; the message names the import command.
    """
    if allow_unpinned:
        return
    unpinned = inventory.source is not InventorySource.EXACT or any(c.sha256 is None for c in inventory.crds)
    if unpinned:
        where = inventory.file or inventory.name
        raise UpstreamError(
            f"{where}: inventory {inventory.name} is {inventory.source.value} and records no CRD hashes, so the "
            f"upstream CRDs cannot be checked; pin them with `{import_hint(repo, ref)}` "
            "(or pass --allow-unpinned to build from whatever the ref holds)"
        )


def check_hashes(inventory: Inventory, read: Sequence[Crd], *, ref: str, repo: str) -> None:
    """Stop when an exact inventory disagrees with the CRD files read at ``ref``.

    Transcribed inventories are not checked here.

    Raises:
        UpstreamError: listing every file whose sha256 differs, that the ref lacks, or that is not listed.
    """
    if inventory.source is not InventorySource.EXACT:
        return
    recorded = {c.file: c for c in inventory.crds}
    found = {c.file: c for c in read}
    problems: list[str] = []
    for file in sorted(set(recorded) | set(found)):
        want, got = recorded.get(file), found.get(file)
        if got is None:
            problems.append(f"{file} is listed but missing at {ref}")
        elif want is None:
            problems.append(f"{file} is at {ref} but not listed")
        elif want.sha256 != got.sha256:
            problems.append(f"{file} has sha256 {got.sha256}, the inventory records {want.sha256}")
    if problems:
        where = inventory.file or inventory.name
        raise UpstreamError(
            f"{where}: upstream CRDs at {ref} do not match inventory {inventory.name}: {'; '.join(problems)}; "
            f"the build stops. If the upstream change is intended, re-pin with `{import_hint(repo, ref)}`"
        )


# ------------------------------------------------------------------------------------------ planning


def _component(text: str, what: str) -> str:
    if not _SAFE_COMPONENT.match(text):
        raise SafetyLimitError(f"refusing {what} {text!r} as a folder name in the build output")
    return text


def bundle_annotations(stream: Stream, release: Release) -> dict[str, str]:
    """The registry+v1 annotations of a release's bundle, in the conventional order.

    The default channel is the stream's literal default, or for ``newest-minor`` the release's own channel
    (a bundle's default must be one of its channels; the catalog planner decides the package's real one).
    """
    channel = stream.channel_of(release)
    default = channel if stream.channels.default == DEFAULT_NEWEST_MINOR else stream.channels.default
    annotations = {
        "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
        "operators.operatorframework.io.bundle.manifests.v1": f"{MANIFESTS_DIR}/",
        "operators.operatorframework.io.bundle.metadata.v1": f"{METADATA_DIR}/",
        "operators.operatorframework.io.bundle.package.v1": stream.package,
        "operators.operatorframework.io.bundle.channels.v1": channel,
        "operators.operatorframework.io.bundle.channel.default.v1": default,
    }
    versions = openshift_versions_value(stream, release)
    if versions:
        annotations["com.redhat.openshift.versions"] = versions
    return annotations


def _alpha_reason(stream: Stream, crd: Crd) -> str:
    alpha = ", ".join(v.name for v in crd.versions if v.maturity.value == "alpha")
    if stream.api_maturity.alpha_apis:
        allowed = ", ".join(stream.api_maturity.alpha_apis)
        return f"alpha API ({alpha}) not in stream {stream.name}'s apiMaturity.alphaApis ({allowed})"
    return f"alpha API ({alpha}); stream {stream.name} ships no alpha API"


def plan_bundle(
    stream: Stream,
    release: Release,
    inventory: Inventory,
    read: Sequence[Crd],
    *,
    pin: UpstreamPin,
    commit: str,
    repo: str,
    allow_unpinned: bool = False,
) -> BundlePlan:
    """Plan the bundle of ``release`` from the CRD files ``read`` at ``pin`` (facts with file and sha256).

    With placement ``operator-assets`` the CRDs are in the operator image: the inventory is cited, not
    hash-checked.

    Raises:
        UpstreamError: see :func:`require_pinned` and :func:`check_hashes`.
        SafetyLimitError: a stream name, version or CRD file name unfit for a path, or two CRD files that
            would land on the same path.
    """
    cited = stream.crd_placement is CrdPlacement.OPERATOR_ASSETS
    if not cited:
        require_pinned(inventory, repo=repo, ref=pin.ref, allow_unpinned=allow_unpinned)
        check_hashes(inventory, read, ref=pin.ref, repo=repo)
    root = PurePosixPath(_component(stream.name, "stream name")) / _component(str(release.version), "version")
    ordered = tuple(sorted(read, key=lambda c: (c.name, c.file)))
    shipped = operand_crds(stream, replace(inventory, crds=ordered))
    shipped_files = {c.file for c in shipped}
    folder = MANIFESTS_DIR if stream.crd_placement is CrdPlacement.BUNDLE else ASSETS_DIR
    planned: list[PlannedCrd] = []
    taken: dict[PurePosixPath, str] = {OPERATOR_CRD_FILE: "the operator's own CRD"}
    for crd in ordered:
        if crd.file not in shipped_files:
            planned.append(
                PlannedCrd(crd=crd, placement=EXCLUDED, path=None, reason=_alpha_reason(stream, crd))
            )
            continue
        if cited:  # embedded in the operator image: the bundle holds no Kueue file, the inventory is cited
            planned.append(
                PlannedCrd(crd=crd, placement=stream.crd_placement.value, path=None, reason=CITED_REASON)
            )
            continue
        path = folder / _component(PurePosixPath(crd.file).name, "CRD file name")
        if path in taken:
            raise SafetyLimitError(f"{crd.file} and {taken[path]} would both be written to {path}")
        taken[path] = crd.file
        planned.append(PlannedCrd(crd=crd, placement=stream.crd_placement.value, path=path))
    csv_name = release.csv_name(stream.package)
    return BundlePlan(
        stream=stream,
        release=release,
        root=root,
        csv_path=MANIFESTS_DIR / _component(f"{csv_name}.clusterserviceversion.yaml", "CSV file name"),
        operator_crd_path=OPERATOR_CRD_FILE,
        annotations_path=ANNOTATIONS_FILE,
        dockerfile_path=DOCKERFILE,
        manifest_path=MANIFEST_FILE,
        crds=tuple(planned),
        shipped=shipped,
        annotations=bundle_annotations(stream, release),
        pin=pin,
        commit=commit,
        inventory=inventory,
        pinned=inventory.source is InventorySource.EXACT and not cited,
    )


def template_context(
    plan: BundlePlan, *, defaults: Mapping[str, Any] | None, prose: Mapping[str, Any]
) -> dict[str, Any]:
    """The context every bundle template receives."""
    context = csv_context(plan.stream, plan.release, crds=plan.shipped, defaults=defaults)
    full = with_prose(context, prose)
    full["bundle_annotations"] = dict(plan.annotations)
    return full


def _crd_entry(planned: PlannedCrd) -> dict[str, Any]:
    crd = planned.crd
    entry: dict[str, Any] = {
        "file": crd.file,
        "name": crd.name,
        "versions": [v.name for v in crd.versions],
        "sha256": crd.sha256,
    }
    if planned.path is not None:
        entry["path"] = str(planned.path)
        return entry
    if planned.placement != EXCLUDED:
        entry["placement"] = planned.placement
    entry["reason"] = planned.reason
    return entry


def manifest_document(plan: BundlePlan) -> dict[str, Any]:
    """``upstream-crds.yaml``: the upstream CRD files a bundle was built from, by name and sha256."""
    return {
        "schema": MANIFEST_SCHEMA,
        "stream": plan.stream.name,
        "package": plan.stream.package,
        "version": str(plan.release.version),
        "csv": plan.csv_name,
        "upstream": {
            "ref": plan.pin.ref,
            "refFrom": plan.pin.source,
            "commit": plan.commit,
            "inventory": plan.inventory.name,
            "inventorySource": plan.inventory.source.value,
            "pinned": plan.pinned,
        },
        "crdPlacement": plan.stream.crd_placement.value,
        "crds": [_crd_entry(c) for c in plan.crds if c.placement != EXCLUDED],
        "excluded": [_crd_entry(c) for c in plan.excluded_crds],
    }
