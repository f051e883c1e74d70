"""Every file of a git revision, or of the working tree, measured before it is read.

Adapter module (git, files). :mod:`releasekit.io.gitrev` reads the three folders of a releasekit
repository; a file-based catalog repository keeps its catalogs anywhere, so this lists the whole tree.
Nothing is read while listing: a revision's files come from one ``git ls-tree -r -l`` (each object's
mode and size from its header), the working tree's from ``git ls-files`` (tracked and untracked files
git does not ignore) and ``lstat``. Each file is read only when a caller asks, through its
:class:`~releasekit.io.gitrev.FileRef`, and a file over the limit per file is refused then, before a
byte of it is read.

Symbolic links, submodules and special files are never followed or opened: they are listed apart
(:attr:`RepoTree.special`), so the caller can ignore those outside what it reads and refuse those inside.
"""

from __future__ import annotations

import hashlib
import stat
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from releasekit.errors import InputError, SafetyLimitError, printable
from releasekit.io.gitcmd import git_reason
from releasekit.io.gitrev import _SUBMODULE_MODE, _SYMLINK_MODE, FileRef, read_blob
from releasekit.io.gitrev import _safe_parts as _safe
from releasekit.io.inputs import MAX_FILE_BYTES, MAX_WALK_DEPTH, read_input

__all__ = ["RepoTree", "list_revision", "list_worktree"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoTree:
    """Every file of one revision.

    Attributes:
        label: what was read (``base main``, ``working tree``).
        files: each regular file by its repository-relative path: its blob id and a reader that refuses
            it when it is over the limit per file (``sizes`` holds the measured size).
        sizes: each file's size in bytes, as measured before reading (None: git lacks the object).
        special: symbolic links, submodules and special files, with what they are; never read.
    """

    label: str
    files: Mapping[PurePosixPath, FileRef]
    sizes: Mapping[PurePosixPath, int | None]
    special: Mapping[PurePosixPath, str]


def _too_big(where: str, size: int, limit: int) -> SafetyLimitError:
    return SafetyLimitError(f"{where}: {size:,} bytes is over the {limit:,}-byte limit per file")


def _blob_reader(odb: Any, sha: str, size: int | None, where: str, limit: int) -> Callable[[], bytes]:
    def read() -> bytes:
        if size is None:
            raise InputError(
                f"{where}: git does not have object {sha[:12]} (a shallow or damaged clone); "
                "fetch the revision in full"
            )
        if size > limit:
            raise _too_big(where, size, limit)
        return read_blob(odb, sha, size, where)

    return read


def list_revision(
    commit: Any, *, rev: str = "", label: str = "", max_file_bytes: int = MAX_FILE_BYTES
) -> RepoTree:
    """Every file of ``commit`` (gitpython), named ``rev`` in messages; nothing is read yet.

    Raises:
        InputError: git cannot list the revision (a shallow or damaged clone).
        SafetyLimitError: a path that leaves the repository, or folders nested too deep.
    """
    import git

    name = printable(rev or commit.hexsha[:12])
    try:
        out: bytes = commit.repo.git.ls_tree(
            "-r", "-z", "-l", "--full-tree", commit.hexsha, stdout_as_string=False
        )
    except git.GitCommandError as exc:
        raise InputError(
            f"{name}: git cannot list it ({printable(git_reason(exc))}); "
            "fetch the revision in full (a shallow or damaged clone?)"
        ) from None
    odb = commit.repo.odb
    files: dict[PurePosixPath, FileRef] = {}
    sizes: dict[PurePosixPath, int | None] = {}
    special: dict[PurePosixPath, str] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw = record.partition(b"\t")
        mode_text, kind, sha, size_text = meta.decode("ascii").split()
        path = _safe(raw.decode("utf-8", "surrogateescape"))
        where = f"{name}:{printable(str(path))}"
        if len(path.parts) > MAX_WALK_DEPTH + 1:
            raise SafetyLimitError(
                f"{where}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them"
            )
        mode = int(mode_text, 8)
        if mode == _SYMLINK_MODE:
            special[path] = "a symbolic link"
            continue
        if mode == _SUBMODULE_MODE or kind != "blob":
            special[path] = "a submodule"
            continue
        size = int(size_text) if size_text.isdigit() else None
        files[path] = FileRef(sha=sha, reader=_blob_reader(odb, sha, size, where, max_file_bytes))
        sizes[path] = size
    return RepoTree(label=label or name, files=files, sizes=sizes, special=special)


def _listed(top: Path) -> list[str]:
    """Tracked files and untracked ones git does not ignore, below ``top`` (``git ls-files``)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(top), "ls-files", "-z", "-c", "-o", "--exclude-standard", "--full-name"],
            capture_output=True,
            check=False,
            timeout=120,
        )
    except FileNotFoundError:
        raise InputError("git not found: it is needed to list the working tree (install git)") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"{top}: git did not answer within 120 s") from None
    if done.returncode != 0:
        reason = printable(done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}")
        raise InputError(f"{printable(str(top))}: git cannot list the working tree: {reason}")
    return sorted({name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name})


def _hash_file(path: Path, size: int) -> str:
    """The git blob id of a regular file, read in pieces (never whole in memory)."""
    digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return digest.hexdigest()


def _file_reader(path: Path, where: str, limit: int) -> Callable[[], bytes]:
    def read() -> bytes:  # the input policy: a regular file, no link, the size limit, checked again on open
        return read_input(path, links=False, display=where, max_bytes=limit, what="the working tree")

    return read


def list_worktree(root: Path, *, max_file_bytes: int = MAX_FILE_BYTES) -> RepoTree:
    """Every file of the working tree at ``root`` that git tracks or would add (untracked, not ignored).

    Each regular file is hashed in pieces for its blob id (a file over the limit, or in a hidden folder such
    as an untracked ``.venv``, is measured, not hashed: it is refused if it is ever read, and it compares
    as changed); links, FIFOs, sockets and devices are listed apart, never opened.

    Raises:
        InputError: ``root`` is not a folder, or git cannot list it.
        SafetyLimitError: folders nested too deep.
    """
    if not root.is_dir():
        raise InputError(f"{root}: not a folder")
    files: dict[PurePosixPath, FileRef] = {}
    sizes: dict[PurePosixPath, int | None] = {}
    special: dict[PurePosixPath, str] = {}
    for name in _listed(root):
        rel = _safe(name)
        where = printable(str(rel))
        if len(rel.parts) > MAX_WALK_DEPTH + 1:
            raise SafetyLimitError(
                f"{where}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them"
            )
        path = root.joinpath(*rel.parts)
        try:
            st = path.lstat()
        except FileNotFoundError:
            continue  # tracked, deleted in the working tree
        except OSError as exc:
            raise InputError(f"{where}: cannot read: {exc.strerror or exc}") from None
        if stat.S_ISLNK(st.st_mode):
            special[rel] = "a symbolic link"
        elif stat.S_ISDIR(st.st_mode):
            special[rel] = "a submodule"
        elif not stat.S_ISREG(st.st_mode):
            special[rel] = "not a regular file (FIFO, socket or device)"
        else:
            if st.st_size > max_file_bytes:
                sha = f"size:{st.st_size}"
            elif any(part.startswith(".") for part in rel.parts[:-1]):
                # a hidden folder (.venv, .tox, .tekton): not hashed, so it never equals a committed blob
                # and a root holding it is checked in full -- the safe side
                sha = f"unhashed:{st.st_size}:{st.st_mtime_ns}"
            else:
                sha = _hash_file(path, st.st_size)
            files[rel] = FileRef(sha=sha, reader=_file_reader(path, where, max_file_bytes))
            sizes[rel] = st.st_size
    return RepoTree(label="working tree", files=files, sizes=sizes, special=special)
