"""Build the committed catalogs from ``streams/`` and ``bundle-templates/``, offline."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from releasekit.errors import UsageError
from releasekit.io.atomic import MARKER, read_generated, written_files
from releasekit.io.fbc_write import render_json
from releasekit.io.operator_records import load_operator_records
from releasekit.io.streams import LoadedStreams, load_streams
from releasekit.io.templates import TemplateSet
from releasekit.model.fbc import Bundle, PublishedBlob, PublishedKey
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.layout import DEFAULT_LAYOUT, CatalogLayout
from releasekit.model.stream import CrdPlacement, CrossMinor, OpenShiftVersion, Release, Stream
from releasekit.plan.catalog import (
    CSV_METADATA_SINCE,
    CatalogFragment,
    ReleaseManifests,
    containerfile,
    plan_catalogs,
    with_carried,
)
from releasekit.plan.csv import csv_context, operand_crds, with_prose
from releasekit.plan.operator_bundle import choose_operator_facts

if TYPE_CHECKING:
    from releasekit.jobs.bundle_build import UpstreamReader

__all__ = [
    "CSV_FACTS",
    "CSV_TEMPLATE",
    "CatalogBuild",
    "OPERATOR_CRD_TEMPLATE",
    "PROSE",
    "build_catalogs",
    "catalog_files",
    "compare_files",
    "drift",
]

CSV_TEMPLATE = "clusterserviceversion.yaml.j2"
OPERATOR_CRD_TEMPLATE = "kueue-operator-crd.yaml.j2"
CSV_FACTS = "csv-facts.yaml"
PROSE = "prose.yaml"


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogBuild:
    """One catalog build: fragments, files, the blobs carried and the bundles generated in their place."""

    loaded: LoadedStreams
    fragments: tuple[CatalogFragment, ...]
    files: Mapping[PurePosixPath, bytes]
    manifests: Mapping[tuple[str, str], ReleaseManifests]
    carried: Mapping[PublishedKey, PublishedBlob] = field(default_factory=dict)
    regenerated: Mapping[PublishedKey, Bundle] = field(default_factory=dict)


def render_operator_crd(templates: TemplateSet, release: Release, cache: dict[Any, Any]) -> dict[str, Any]:
    """The operator's own CRD for the API ``release`` owns, rendered once per API (``cache``)."""
    api = release.owned_api
    owned = {"group": api.group, "version": api.version, "kind": api.kind} if api else None
    key = tuple(owned.items()) if owned else None
    if key not in cache:
        cache[key] = templates.render_yaml(OPERATOR_CRD_TEMPLATE, {"owned_api": owned})
    crd: dict[str, Any] = cache[key]
    return crd


def catalog_files(
    fragments: tuple[CatalogFragment, ...],
    layout: CatalogLayout = DEFAULT_LAYOUT,
    carried: Mapping[PublishedKey, PublishedBlob] | None = None,
) -> dict[PurePosixPath, bytes]:
    """The files of the catalog tree, relative to the layout's root; carried blobs keep their exact text."""
    files: dict[PurePosixPath, bytes] = {}
    for fragment in fragments:
        openshift = str(fragment.openshift)
        build_file = containerfile(fragment.openshift, layout.fbc_dir)
        files[layout.containerfile_path(openshift)] = build_file.encode()
        for package, config in fragment.packages:
            mine = [(key, blob) for key, blob in (carried or {}).items() if key[:2] == (openshift, package)]
            verbatim = {(p, name): blob.text for (_, p, name), blob in mine}
            files[layout.catalog_file(openshift, package)] = render_json(config, verbatim).encode()
    return files


def build_catalogs(
    streams_dir: Path,
    templates_dir: Path,
    *,
    candidates: bool = False,
    cross_minor: CrossMinor | None = None,
    loaded: LoadedStreams | None = None,
    carried: Mapping[PublishedKey, PublishedBlob] | None = None,
    layout: CatalogLayout = DEFAULT_LAYOUT,
    upstream: str | None = None,
) -> CatalogBuild:
    """Plan and render every catalog fragment from ``streams_dir``, keeping ``carried`` (writes nothing)."""
    if loaded is None:
        loaded = load_streams(streams_dir, display_root=str(streams_dir))
    templates = TemplateSet(templates_dir)
    manifests: dict[tuple[str, str], ReleaseManifests] = {}
    crds: dict[Any, dict[str, Any]] = {}
    records = functools.cache(lambda: load_operator_records(streams_dir)[0])  # read on first need
    reader = None
    if upstream is not None:  # imported here: the bundle job's rules and gitpython (70 ms) serve this alone
        from releasekit.jobs.bundle_build import UpstreamReader

        reader = UpstreamReader(upstream)  # opens the repository on first use
    for stream in loaded.streams:
        for release in stream.releases:
            if release.status.value == "candidate" and not candidates:
                continue
            inventory = loaded.inventories.get(release.upstream.inventory)
            operands = operand_crds(stream, inventory) if inventory is not None else ()
            context = csv_context(stream, release, crds=operands, defaults=templates.read_yaml(CSV_FACTS))
            csv = templates.render_yaml(CSV_TEMPLATE, with_prose(context, templates.read_yaml(PROSE)))
            old = [c for c in release.catalogs if c < CSV_METADATA_SINCE]
            objects: tuple[Mapping[str, Any], ...] = (render_operator_crd(templates, release, crds),)
            if old:  # the catalog carries every object the bundle ships (olm.bundle.object)
                record = choose_operator_facts(stream, release, records()).record
                if record is not None:
                    objects = tuple(obj for _, obj in record.manifests)
                if stream.crd_placement is CrdPlacement.BUNDLE:
                    objects += _operand_crds(stream, release, old[0], loaded, reader)
            manifests[(stream.name, str(release.version))] = ReleaseManifests(csv=csv, objects=objects)
    fragments = plan_catalogs(loaded.streams, manifests, candidates=candidates, cross_minor=cross_minor)
    regenerated: dict[PublishedKey, Bundle] = {}
    if carried:  # planned once: a carried bundle takes the place of the one generated under its name
        generated = {
            (str(f.openshift), p, b.name): b for f in fragments for p, c in f.packages for b in c.bundles
        }
        regenerated = {key: generated[key] for key in carried if key in generated}
        carried = {key: blob for key, blob in carried.items() if key in generated}
        fragments = with_carried(fragments, {key: blob.bundle for key, blob in carried.items()})
    return CatalogBuild(
        loaded=loaded,
        fragments=fragments,
        files=catalog_files(fragments, layout, carried),
        manifests=manifests,
        carried=carried or {},
        regenerated=regenerated,
    )


def _operand_crds(
    stream: Stream,
    release: Release,
    old: OpenShiftVersion,
    loaded: LoadedStreams,
    reader: UpstreamReader | None,
) -> tuple[dict[str, Any], ...]:
    """Kueue's CRDs ``release`` bundles, read at its pin, for a catalog that carries ``olm.bundle.object``."""
    where = f"catalog {old} of stream {stream.name} (release {release.version})"
    if reader is None:
        raise UsageError(
            f"{where} carries every bundled object as olm.bundle.object (OpenShift before 4.17), and the "
            f"stream bundles Kueue's CRDs, which are never committed: render it as a preview with "
            "`releasekit catalog build --candidates --out DIR --upstream KUEUE`"
        )
    inventory = loaded.inventories.get(release.upstream.inventory)
    if inventory is None:
        raise UsageError(f"{where}: inventory {release.upstream.inventory!r} does not exist")
    return reader.bundled_crds(stream, release, inventory)


_DRIFT = {
    "missing": ("is missing", "run `releasekit catalog build` and commit the result"),
    "stale": ("is not generated from streams/ (stale)", "run `releasekit catalog build` to remove it"),
    "changed": ("differs from what streams/ generates", "run `releasekit catalog build` and commit"),
    "foreign": (
        "is not generated from streams/ (releasekit did not write it and keeps it)",
        "delete it by hand unless it is meant to ship in the catalog image",
    ),
}


def compare_files(
    generated: Mapping[PurePosixPath, bytes],
    existing: Mapping[PurePosixPath, Callable[[], bytes]],
    display: str,
    *,
    report_stale: Callable[[PurePosixPath], bool] = lambda _rel: True,
    foreign: Callable[[PurePosixPath], bool] = lambda _rel: False,
    words: Mapping[str, tuple[str, str]] = _DRIFT,
    subject: tuple[str, ...] = ("catalog/ in sync with streams/",),
) -> tuple[Finding, ...]:
    """RK-DIFF-001 for every file that is missing, stale (where ``report_stale`` says) or different.

    ``words``: the problem and the hint of each kind of drift (``bundle build`` names its own command).
    """
    findings: list[Finding] = []
    for rel in sorted(set(generated) | set(existing)):
        if rel.name == MARKER:  # releasekit's own bookkeeping (committed), never catalog content
            continue
        if rel not in existing:
            kind = "missing"
        elif rel not in generated:
            if not report_stale(rel):
                continue
            kind = "foreign" if foreign(rel) else "stale"
        elif existing[rel]() != generated[rel]:
            kind = "changed"
        else:
            continue
        problem, hint = words[kind]
        shown = f"{display.rstrip('/')}/{rel}"
        findings.append(
            Finding(
                rule="RK-DIFF-001",
                severity=Severity.ERROR,
                message=f"{shown} {problem}",
                location=Location(file=shown),
                hint=hint,
                subject=subject,
            )
        )
    return tuple(findings)


def drift(target: Path, files: Mapping[PurePosixPath, bytes], display: str) -> tuple[Finding, ...]:
    """Findings for every file under ``target`` that differs from ``files``, is missing or is extra."""
    existing: dict[PurePosixPath, Callable[[], bytes]] = {}
    for folder, _, filenames in os.walk(target):  # no symlinked folder followed; nothing for a missing target
        for rel in (PurePosixPath(Path(folder).relative_to(target).as_posix()) / name for name in filenames):
            existing[rel] = functools.partial(_read_or_empty, target, rel)
    listed = written_files(target)
    return compare_files(files, existing, display, foreign=lambda rel: rel not in listed)


def _read_or_empty(target: Path, rel: PurePosixPath) -> bytes:
    return read_generated(target, rel) or b""
