"""``releasekit operator import``: record one release's operator facts from the operator repository.

Reads ``bundle/manifests/*``, ``bundle/metadata/annotations.yaml``, ``bundle.Dockerfile`` and
``related_images.json`` at a ref (:mod:`releasekit.io.operator_repo`, no work tree), applies the
``related_images.json`` substitution the bundle image build does, leaves out the prose
(:mod:`releasekit.plan.operator_record`) and writes ``streams/operator/<version>.yaml`` atomically.
Unreadable input (no such ref, no bundle, a file that is not YAML, a CSV of another version) stops with
one line (exit 2); nothing is written then.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasekit.errors import InputError, UsageError
from releasekit.io.atomic import write_text_atomic
from releasekit.io.operator_records import render_record
from releasekit.io.operator_repo import (
    ANNOTATIONS_PATH,
    DOCKERFILE_PATH,
    MANIFESTS_DIR,
    read_operator_snapshot,
)
from releasekit.io.upstream import check_ref
from releasekit.io.yamlio import YamlContentError, load_yaml_documents
from releasekit.model.version import Version
from releasekit.plan.operator_record import dockerfile_labels, make_record, substitute_related_images

__all__ = ["OPERATOR_DIR", "ImportedOperator", "import_operator", "record_path"]

OPERATOR_DIR = "operator"
"""Records live in ``streams/operator/`` (not top-level ``streams/*.yaml``, which are streams)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportedOperator:
    """What ``operator import`` wrote."""

    path: Path
    commit: str
    manifests: int
    substituted: int


def record_path(streams_dir: Path, version: str) -> Path:
    """``<streams>/operator/<version>.yaml``."""
    return streams_dir / OPERATOR_DIR / f"{version}.yaml"


def _text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _one_document(text: str, where: str) -> Any:
    try:
        docs = [
            d.data
            for d in load_yaml_documents(text, track_paths=False, last_key_wins=True)
            if d.data is not None
        ]
    except YamlContentError as exc:
        raise InputError(f"{where}: not YAML: {exc.message} (line {exc.line})") from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError(f"{where}: expected one YAML mapping, found {len(docs)} documents")
    return docs[0]


def import_operator(
    repo: str, ref: str, version: str, streams_dir: Path, *, cache: Path | None = None
) -> ImportedOperator:
    """Read the operator repository ``repo`` at ``ref`` and write the record of release ``version``.

    Raises:
        UsageError: an unsafe ref, a version that is not semver, or a CSV whose ``spec.version`` is another.
        InputError, UpstreamError: the repository, ref or files cannot be read.
    """
    check_ref(ref)  # before anything touches git
    try:
        Version.parse(version)
    except ValueError:
        raise UsageError(f"--version {version!r} is not a semantic version (X.Y.Z)") from None
    snap = read_operator_snapshot(repo, ref, cache=cache)
    dockerfile = _text(snap.dockerfile, f"{ref}:{DOCKERFILE_PATH}") if snap.dockerfile is not None else None
    related = (
        _text(snap.related_images, f"{ref}:related_images.json") if snap.related_images is not None else None
    )
    csv_file: str | None = None
    csv: Any = None
    others: list[tuple[str, Any]] = []
    substituted: tuple[tuple[str, str], ...] = ()
    for name, data in snap.manifests:
        where = f"{ref}:{MANIFESTS_DIR}/{name}"
        text = _text(data, where)
        if ".clusterserviceversion." in name:
            try:
                text, substituted = substitute_related_images(text, dockerfile, related)
            except ValueError as exc:
                raise InputError(f"{ref}: {exc}") from None
        obj = _one_document(text, where)
        if obj.get("kind") == "ClusterServiceVersion":
            if csv is not None:
                raise InputError(
                    f"{ref}: {MANIFESTS_DIR}/ holds two ClusterServiceVersions ({csv_file}, {name})"
                )
            csv_file, csv = name, obj
        else:
            others.append((name, obj))
    if csv is None or csv_file is None:
        raise InputError(f"{ref}: {MANIFESTS_DIR}/ holds no ClusterServiceVersion")
    found = str((csv.get("spec") or {}).get("version", ""))
    if found != version:
        raise UsageError(f"{ref}: the CSV is version {found or '(none)'}, not --version {version}")
    annotations_doc = _one_document(
        _text(snap.annotations, f"{ref}:{ANNOTATIONS_PATH}"), f"{ref}:{ANNOTATIONS_PATH}"
    )
    annotations = annotations_doc.get("annotations")
    if not isinstance(annotations, dict):
        raise InputError(f"{ref}:{ANNOTATIONS_PATH}: no annotations mapping")
    try:
        labels = dockerfile_labels(dockerfile) if dockerfile is not None else None
    except ValueError as exc:
        raise InputError(f"{ref}:{DOCKERFILE_PATH}: {exc}") from None
    record = make_record(
        version=version,
        commit=snap.commit,
        csv_file=csv_file,
        csv=csv,
        manifests=others,
        annotations=annotations,
        labels=labels,
        substituted=substituted,
    )
    path = record_path(streams_dir, version)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, render_record(record))
    return ImportedOperator(
        path=path, commit=snap.commit, manifests=len(others) + 1, substituted=len(substituted)
    )
