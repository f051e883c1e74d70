"""Read the Kueue operator's bundle sources from its git repository at one ref, without a work tree.

Adapter module (git through gitpython). The openshift/kueue-operator layout it reads::

    bundle/manifests/*                  the CSV, the operator's CRD, the ClusterRoles ...
    bundle/metadata/annotations.yaml    the registry+v1 annotations
    bundle.Dockerfile                   the bundle image (LABELs; from 1.2.0 on it substitutes images)
    related_images.json                 the images bundle.Dockerfile substitutes for ``:latest``

The safety of ``upstream import`` applies, and more, since the repository may be anyone's:

- the ref is checked before git sees it (:func:`releasekit.io.upstream.check_ref`), and ``--repo`` must be a
  local path or a ``file://``, ``https://``, ``ssh://`` or ``git@host:path`` URL (:func:`check_repository`:
  git's ``ext::`` transport runs commands);
- a URL is cloned once (bare) into the cache, whose folder must be a folder;
- only regular files are read (a symbolic link, submodule or folder where a file or folder is expected is
  refused), and only file names that are UTF-8;
- every object's size comes from its git object header before it is read: one file at most
  :data:`MAX_FILE_BYTES`, everything read together at most :data:`MAX_TOTAL_BYTES` (like one catalog file),
  at most :data:`MAX_MANIFESTS` manifests.

Anything missing, unreadable or over a limit raises an error the CLI shows as one line (exit 2); names
from the repository are shown with :func:`printable`.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasekit.errors import SafetyLimitError, UpstreamError, printable
from releasekit.io.upstream import check_ref, open_repository, resolve_ref

__all__ = [
    "ANNOTATIONS_PATH",
    "DOCKERFILE_PATH",
    "MANIFESTS_DIR",
    "MAX_FILE_BYTES",
    "MAX_MANIFESTS",
    "MAX_TOTAL_BYTES",
    "RELATED_IMAGES_PATH",
    "OperatorSnapshot",
    "read_operator_snapshot",
]

MANIFESTS_DIR = "bundle/manifests"
ANNOTATIONS_PATH = "bundle/metadata/annotations.yaml"
DOCKERFILE_PATH = "bundle.Dockerfile"
RELATED_IMAGES_PATH = "related_images.json"
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Largest bundle source file read (a real CSV is ~15 KiB, the operator's CRD ~50 KiB)."""

MAX_TOTAL_BYTES = 64 * 1024 * 1024
"""Most bytes one import reads from git, folders included (the size limit of one catalog file)."""

MAX_MANIFESTS = 1000
"""Most manifests ``bundle/manifests/`` may hold (a real bundle has about a dozen)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorSnapshot:
    """The operator repository's bundle sources at one commit (file bytes; None where the file is absent)."""

    ref: str
    commit: str
    manifests: tuple[tuple[str, bytes], ...]
    annotations: bytes
    dockerfile: bytes | None
    related_images: bytes | None


def _kind(obj: Any) -> str:
    if obj.type == "tree":
        return "a folder"
    if obj.type == "submodule":
        return "a submodule"
    if obj.type == "blob" and stat.S_ISLNK(obj.mode):
        return "a symbolic link"
    if obj.type == "blob":
        return "a file"
    return f"a git {obj.type}"  # pragma: no cover - trees hold trees, blobs and submodules only


def _name(obj: Any) -> str:
    """An entry's own name (a submodule without ``.gitmodules`` has no ``name``, only its path)."""
    return str(obj.path).rsplit("/", 1)[-1]


class _TreeReader:
    """Reads entries of one commit's tree, each object's size counted against the budget once per path.

    The size comes from the git object header, before the object is read.
    """

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self.left = MAX_TOTAL_BYTES
        self.counted: set[str] = set()

    def where(self, path: str) -> str:
        return f"{self.ref}:{printable(path)}"

    def take(self, obj: Any, path: str) -> None:
        """Count ``obj`` at ``path`` against the budget (its size from the git object header; nothing is read).

        Raises:
            SafetyLimitError: a file over :data:`MAX_FILE_BYTES`, or the budget spent.
        """
        if path in self.counted:
            return
        size = int(obj.size)
        if obj.type == "blob" and size > MAX_FILE_BYTES:
            raise SafetyLimitError(
                f"{self.where(path)}: {size:,} bytes is over the {MAX_FILE_BYTES:,}-byte limit per file"
            )
        if size > self.left:
            raise SafetyLimitError(
                f"{self.where(path)}: reading its {size:,} bytes would take the bundle sources over "
                f"{MAX_TOTAL_BYTES:,} bytes, the limit of one import; refusing it"
            )
        self.left -= size
        self.counted.add(path)

    def entries(self, tree: Any, path: str) -> list[Any]:
        self.take(tree, path)
        return list(tree)

    def entry(self, tree: Any, path: str) -> Any | None:
        """The entry at ``path`` below ``tree`` (None when absent), each folder on the way checked."""
        node, walked = tree, ""
        for part in path.split("/"):
            if node.type != "tree":
                raise UpstreamError(f"{self.where(walked)}: is {_kind(node)}, not a folder")
            node = next((e for e in self.entries(node, walked) if _name(e) == part), None)
            if node is None:
                return None
            walked = f"{walked}/{part}" if walked else part
        return node

    def folder(self, tree: Any, path: str) -> Any | None:
        found = self.entry(tree, path)
        if found is not None and found.type != "tree":
            raise UpstreamError(f"{self.where(path)}: is {_kind(found)}, not a folder")
        return found

    def file(self, blob: Any, path: str) -> Any:
        """``blob`` when it is a regular file within the limits (counted; not read yet)."""
        if blob.type != "blob" or not stat.S_ISREG(blob.mode):
            raise UpstreamError(
                f"{self.where(path)}: is {_kind(blob)}, not a file; releasekit reads files only"
            )
        self.take(blob, path)
        return blob

    def optional(self, tree: Any, path: str) -> bytes | None:
        found = self.entry(tree, path)
        return None if found is None else _read(self.file(found, path))


def _read(blob: Any) -> bytes:
    data: bytes = blob.data_stream.read()
    return data


def _manifests(reader: _TreeReader, folder: Any) -> tuple[tuple[str, bytes], ...]:
    """Every manifest of ``folder``: all checked and counted first, then read."""
    listed = sorted(
        (
            (_name(e), e)
            for e in reader.entries(folder, MANIFESTS_DIR)
            if _name(e).endswith(MANIFEST_SUFFIXES)
        ),
        key=lambda item: item[0],
    )
    if len(listed) > MAX_MANIFESTS:
        raise SafetyLimitError(
            f"{reader.where(MANIFESTS_DIR)}: {len(listed):,} manifests, over the limit of {MAX_MANIFESTS:,}"
        )
    for name, entry in listed:
        path = f"{MANIFESTS_DIR}/{name}"
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise UpstreamError(f"{reader.where(path)}: the file name is not UTF-8; rename it") from None
        reader.file(entry, path)
    return tuple((name, _read(entry)) for name, entry in listed)


def read_operator_snapshot(spec: str, ref: str, *, cache: Path | None = None) -> OperatorSnapshot:
    """The bundle sources of the operator repository ``spec`` (path or URL) at ``ref``.

    Raises:
        UsageError: an unsafe ref or repository argument.
        InputError: a local path that is not a git repository; a clone cache that is not a folder.
        UpstreamError: a missing ref, no ``bundle/manifests/`` or ``annotations.yaml`` at it, a link,
            submodule or folder where a file is expected (or the other way round), a file name not UTF-8.
        SafetyLimitError: a file or the sources together over the limits.
    """
    check_ref(ref)  # before git sees it
    repo = open_repository(spec, cache=cache)  # checks the spec and the clone cache first
    commit = resolve_ref(repo, ref)
    reader = _TreeReader(ref)
    tree = commit.tree
    folder = reader.folder(tree, MANIFESTS_DIR)
    if folder is None:
        raise UpstreamError(
            f"{ref}: no {MANIFESTS_DIR}/ folder; is this the Kueue operator repository?"
        ) from None
    manifests = _manifests(reader, folder)
    if not manifests:
        raise UpstreamError(f"{ref}: {MANIFESTS_DIR}/ holds no manifest")
    annotations = reader.optional(tree, ANNOTATIONS_PATH)
    if annotations is None:
        raise UpstreamError(f"{ref}: no {ANNOTATIONS_PATH}")
    return OperatorSnapshot(
        ref=ref,
        commit=str(commit.hexsha),
        manifests=manifests,
        annotations=annotations,
        dockerfile=reader.optional(tree, DOCKERFILE_PATH),
        related_images=reader.optional(tree, RELATED_IMAGES_PATH),
    )
