"""Read the Kueue operator's bundle sources from its git repository at one ref, without a work tree.

Adapter module (git through gitpython). It reads ``bundle/manifests/*``, ``bundle/metadata/annotations.yaml``,
``bundle.Dockerfile`` and ``related_images.json``. The repository may be anyone's, so besides the checks of
``upstream import`` (:func:`releasekit.io.upstream.check_ref`, ``check_repository``, the clone cache):
only regular files with UTF-8 names are read (a link, submodule or folder where a file is expected, or the
other way round, is refused), and every object's size comes from its git header before it is read: at most
:data:`MAX_FILE_BYTES` a file, :data:`MAX_TOTAL_BYTES` in all, :data:`MAX_MANIFESTS` manifests. Anything
missing, unreadable or over a limit is one line (exit 2), names shown with :func:`printable`.
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
    if obj.type == "blob":
        return "a symbolic link" if stat.S_ISLNK(obj.mode) else "a file"
    return {"tree": "a folder", "submodule": "a submodule"}.get(obj.type, f"a git {obj.type}")


def _name(obj: Any) -> str:
    """An entry's own name (a submodule without ``.gitmodules`` has no ``name``, only its path)."""
    return str(obj.path).rsplit("/", 1)[-1]


class _Reader:
    """Entries of one commit's tree, each object's size (from its git header) counted once per path."""

    def __init__(self, ref: str) -> None:
        self.ref, self.left = ref, MAX_TOTAL_BYTES
        self.counted: set[str] = set()

    def where(self, path: str) -> str:
        return f"{self.ref}:{printable(path)}"

    def take(self, obj: Any, path: str) -> None:
        """Count ``obj`` against the budget; SafetyLimitError past :data:`MAX_FILE_BYTES` or the budget."""
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

    def entry(self, tree: Any, path: str, kind: str) -> Any | None:
        """The ``kind`` ("tree" or "blob") entry at ``path`` (None when absent), each folder on the way checked."""
        node, walked = tree, ""
        for part in path.split("/"):
            self.ensure(node, walked, "tree")
            self.take(node, walked)
            node = next((e for e in node if _name(e) == part), None)
            if node is None:
                return None
            walked = f"{walked}/{part}" if walked else part
        return self.ensure(node, path, kind)

    def ensure(self, obj: Any, path: str, kind: str) -> Any:
        """``obj`` when it is a folder (``tree``) or a regular file (``blob``, counted); else UpstreamError."""
        if kind == "tree" and obj.type != "tree":
            raise UpstreamError(f"{self.where(path)}: is {_kind(obj)}, not a folder")
        if kind == "blob":
            if obj.type != "blob" or not stat.S_ISREG(obj.mode):
                raise UpstreamError(
                    f"{self.where(path)}: is {_kind(obj)}, not a file; releasekit reads files only"
                )
            self.take(obj, path)
        return obj

    def read(self, tree: Any, path: str) -> bytes | None:
        found = self.entry(tree, path, "blob")
        return None if found is None else bytes(found.data_stream.read())


def read_operator_snapshot(spec: str, ref: str, *, cache: Path | None = None) -> OperatorSnapshot:
    """The bundle sources of the operator repository ``spec`` (path or URL) at ``ref``.

    Raises:
        UsageError: an unsafe ref or repository argument.
        InputError: a local path that is not a git repository; a clone cache that is not a folder.
        UpstreamError: a missing ref, no ``bundle/manifests/`` or ``annotations.yaml``, an entry of the wrong
            kind (link, submodule, folder), a file name not UTF-8.
        SafetyLimitError: a file or the sources together over the limits.
    """
    check_ref(ref)  # before git sees it
    commit = resolve_ref(open_repository(spec, cache=cache), ref)
    reader, tree = _Reader(ref), commit.tree
    folder = reader.entry(tree, MANIFESTS_DIR, "tree")
    if folder is None:
        raise UpstreamError(f"{ref}: no {MANIFESTS_DIR}/ folder; is this the Kueue operator repository?")
    reader.take(folder, MANIFESTS_DIR)
    listed = sorted(
        ((_name(e), e) for e in folder if _name(e).endswith((".yaml", ".yml", ".json"))), key=lambda i: i[0]
    )
    if len(listed) > MAX_MANIFESTS:
        raise SafetyLimitError(
            f"{reader.where(MANIFESTS_DIR)}: {len(listed):,} manifests, over the limit of {MAX_MANIFESTS:,}"
        )
    for name, entry in listed:  # all checked and counted first, then read
        path = f"{MANIFESTS_DIR}/{name}"
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise UpstreamError(f"{reader.where(path)}: the file name is not UTF-8; rename it") from None
        reader.ensure(entry, path, "blob")
    if not listed:
        raise UpstreamError(f"{ref}: {MANIFESTS_DIR}/ holds no manifest")
    annotations = reader.read(tree, ANNOTATIONS_PATH)
    if annotations is None:
        raise UpstreamError(f"{ref}: no {ANNOTATIONS_PATH}")
    return OperatorSnapshot(
        ref=ref,
        commit=str(commit.hexsha),
        manifests=tuple((name, bytes(entry.data_stream.read())) for name, entry in listed),
        annotations=annotations,
        dockerfile=reader.read(tree, DOCKERFILE_PATH),
        related_images=reader.read(tree, RELATED_IMAGES_PATH),
    )
