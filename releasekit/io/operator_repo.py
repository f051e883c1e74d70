"""Read the Kueue operator's bundle sources from its git repository at one ref, without a work tree.

Adapter module (git, through :func:`releasekit.io.gitrev.list_revision`). The repository may be anyone's,
so besides the checks of ``upstream import``, only regular files with UTF-8 names are read, and every
file's size comes from the listing before any is read (the limits below). Anything missing, of the wrong
kind, unreadable or over a limit is one line (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.errors import SafetyLimitError, UpstreamError, printable
from releasekit.io.gitrev import RepoTree, list_revision
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
"""Most bytes one import reads from git (the size limit of one catalog file)."""
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


def _kind(tree: RepoTree, path: PurePosixPath) -> str | None:
    """What ``path`` is at the revision: a file, a folder, a symbolic link or a submodule (None: absent)."""
    if path in tree.files:
        return "a file"
    if path in tree.special:
        return tree.special[path]
    return "a folder" if any(path in p.parents for p in (*tree.files, *tree.special)) else None


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
    tree = list_revision(
        commit, rev=ref, max_file_bytes=MAX_FILE_BYTES, paths=("bundle", DOCKERFILE_PATH, RELATED_IMAGES_PATH)
    )
    manifests_dir = PurePosixPath(MANIFESTS_DIR)
    for folder in (PurePosixPath("bundle"), manifests_dir, PurePosixPath(ANNOTATIONS_PATH).parent):
        if (kind := _kind(tree, folder)) not in (None, "a folder"):
            raise UpstreamError(f"{ref}:{folder}: is {kind}, not a folder")
    if _kind(tree, manifests_dir) is None:
        raise UpstreamError(f"{ref}: no {MANIFESTS_DIR}/ folder; is this the Kueue operator repository?")
    inside = (p for p in (*tree.files, *tree.special) if manifests_dir in p.parents)
    entries = {manifests_dir / p.relative_to(manifests_dir).parts[0] for p in inside}  # files and folders
    listed = sorted(p for p in entries if p.name.endswith((".yaml", ".yml", ".json")))
    if len(listed) > MAX_MANIFESTS:
        raise SafetyLimitError(
            f"{ref}:{MANIFESTS_DIR}: {len(listed):,} manifests, over the limit of {MAX_MANIFESTS:,}"
        )
    if not listed:
        raise UpstreamError(f"{ref}: {MANIFESTS_DIR}/ holds no manifest")
    if _kind(tree, PurePosixPath(ANNOTATIONS_PATH)) is None:
        raise UpstreamError(f"{ref}: no {ANNOTATIONS_PATH}")
    wanted = [*listed, *(PurePosixPath(p) for p in (ANNOTATIONS_PATH, DOCKERFILE_PATH, RELATED_IMAGES_PATH))]
    left = MAX_TOTAL_BYTES
    for path in wanted:  # all checked and counted first, then read
        kind, where = _kind(tree, path), f"{ref}:{printable(str(path))}"
        if kind is None:
            continue
        try:
            path.name.encode("utf-8")
        except UnicodeEncodeError:
            raise UpstreamError(f"{where}: the file name is not UTF-8; rename it") from None
        if kind != "a file":
            raise UpstreamError(f"{where}: is {kind}, not a file; releasekit reads files only")
        left -= tree.sizes[path] or 0
        if left < 0:
            raise SafetyLimitError(
                f"{where}: reading its {tree.sizes[path]:,} bytes would take the bundle sources over "
                f"{MAX_TOTAL_BYTES:,} bytes, the limit of one import; refusing it"
            )

    def read(path: str) -> bytes | None:
        found = tree.files.get(PurePosixPath(path))
        return found.read() if found is not None else None

    return OperatorSnapshot(
        ref=ref,
        commit=str(commit.hexsha),
        manifests=tuple((p.name, tree.files[p].read()) for p in listed),
        annotations=tree.files[PurePosixPath(ANNOTATIONS_PATH)].read(),
        dockerfile=read(DOCKERFILE_PATH),
        related_images=read(RELATED_IMAGES_PATH),
    )
