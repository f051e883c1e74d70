"""Read the Kueue operator's bundle sources from its git repository at one ref, without a work tree.

Adapter module (git through gitpython). The openshift/kueue-operator layout it reads::

    bundle/manifests/*                  the CSV, the operator's CRD, the ClusterRoles ...
    bundle/metadata/annotations.yaml    the registry+v1 annotations
    bundle.Dockerfile                   the bundle image (LABELs; from 1.2.0 on it substitutes images)
    related_images.json                 the images bundle.Dockerfile substitutes for ``:latest``

The safety of ``upstream import`` applies: the ref is checked before git sees it
(:func:`releasekit.io.upstream.check_ref`), a URL is cloned once (bare) into the cache, and anything
missing or unreadable raises an error the CLI shows as one line (exit 2).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasekit.errors import UpstreamError
from releasekit.io.upstream import check_ref, open_repository, resolve_ref

__all__ = [
    "ANNOTATIONS_PATH",
    "DOCKERFILE_PATH",
    "MANIFESTS_DIR",
    "RELATED_IMAGES_PATH",
    "OperatorSnapshot",
    "read_operator_snapshot",
]

MANIFESTS_DIR = "bundle/manifests"
ANNOTATIONS_PATH = "bundle/metadata/annotations.yaml"
DOCKERFILE_PATH = "bundle.Dockerfile"
RELATED_IMAGES_PATH = "related_images.json"

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Largest bundle source file read (a real CSV is ~15 KiB, the operator's CRD ~50 KiB)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorSnapshot:
    """The operator repository's bundle sources at one commit (file bytes; None where the file is absent)."""

    ref: str
    commit: str
    manifests: tuple[tuple[str, bytes], ...]
    annotations: bytes
    dockerfile: bytes | None
    related_images: bytes | None


def _read_blob(blob: Any, ref: str) -> bytes:
    if blob.size > MAX_FILE_BYTES:
        raise UpstreamError(f"{ref}:{blob.path}: {blob.size} bytes, over the {MAX_FILE_BYTES}-byte limit")
    data: bytes = blob.data_stream.read()
    return data


def _optional(tree: Any, path: str, ref: str) -> bytes | None:
    try:
        blob = tree / path
    except KeyError:
        return None
    if blob.type != "blob":
        raise UpstreamError(f"{ref}:{path}: not a file")
    return _read_blob(blob, ref)


def read_operator_snapshot(spec: str, ref: str, *, cache: Path | None = None) -> OperatorSnapshot:
    """The bundle sources of the operator repository ``spec`` (path or URL) at ``ref``.

    Raises:
        UsageError: an unsafe ref or repository argument.
        InputError: a local path that is not a git repository.
        UpstreamError: a missing ref, no ``bundle/manifests/`` or ``annotations.yaml`` at it.
    """
    check_ref(ref)  # before git sees it
    os.environ.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait for credentials
    repo = open_repository(spec, cache=cache)
    commit = resolve_ref(repo, ref)
    tree = commit.tree
    try:
        folder = tree / MANIFESTS_DIR
    except KeyError:
        raise UpstreamError(
            f"{ref}: no {MANIFESTS_DIR}/ folder; is this the Kueue operator repository?"
        ) from None
    manifests = tuple(
        (str(blob.name), _read_blob(blob, ref))
        for blob in sorted(folder.blobs, key=lambda b: b.name)
        if blob.name.endswith((".yaml", ".yml", ".json"))
    )
    if not manifests:
        raise UpstreamError(f"{ref}: {MANIFESTS_DIR}/ holds no manifest")
    annotations = _optional(tree, ANNOTATIONS_PATH, ref)
    if annotations is None:
        raise UpstreamError(f"{ref}: no {ANNOTATIONS_PATH}")
    return OperatorSnapshot(
        ref=ref,
        commit=str(commit.hexsha),
        manifests=manifests,
        annotations=annotations,
        dockerfile=_optional(tree, DOCKERFILE_PATH, ref),
        related_images=_optional(tree, RELATED_IMAGES_PATH, ref),
    )
