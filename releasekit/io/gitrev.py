"""Read ``streams/``, ``bundle-templates/`` and ``catalog/`` at a git revision, or from the working tree.

Adapter module (gitpython, files). A revision is read from its tree's blobs -- nothing is checked out
and the repository's index and working tree are never touched. The loaders of ``streams/`` and
``bundle-templates/`` want folders, so those (small) folders are written into a temporary folder;
``catalog/`` files stay in git and are read only when a caller asks for them, and each file carries
its git blob id so unchanged files are recognised without reading them.

Revisions come from pull requests: :func:`resolve_commit` hands them to
:func:`releasekit.io.gitcmd.resolve_revision` (any revision git resolves to a commit -- ``HEAD~1``,
``main^``, ``@{upstream}``, a short id -- never read as an option; git's reason and the fix when it
names nothing or the repository belongs to another user). Paths come from git trees, where ``..`` and absolute paths cannot
occur; they are checked again before anything is written, and symbolic links are refused.

A revision's tree is as hostile as its files: one ``git ls-tree -r -l`` lists the folders with each
object's mode and size, so a blob over the input policy's limit per file (or folders over a total) is
refused before a byte of it is read, and a folder that is a file, link or submodule, a submodule
inside one, or an object a shallow clone lacks is refused in one line naming ``REV:path``.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from releasekit.errors import InputError, SafetyLimitError, UsageError, printable
from releasekit.io.gitcmd import check_revision, git_reason, resolve_revision, trust_hint
from releasekit.io.inputs import MAX_FILE_BYTES, MAX_WALK_DEPTH, read_input
from releasekit.model.acknowledgement import ACKNOWLEDGEMENTS_FILE

__all__ = [
    "FOLDERS",
    "FileRef",
    "MAX_MATERIALISED_BYTES",
    "Snapshot",
    "blob_id",
    "branch_point",
    "committed_files",
    "is_shallow",
    "read_blob",
    "open_repo",
    "resolve_commit",
    "snapshot_commit",
    "snapshot_worktree",
]

FOLDERS = ("streams", "bundle-templates", "catalog")
"""What a check reads from a revision."""

MATERIALISED = ("streams", "bundle-templates")
"""Folders written to disk for the loaders (``catalog/`` is read from blobs on demand)."""

ROOT_FILES = (ACKNOWLEDGEMENTS_FILE,)
"""Files at the repository root a check reads from a revision (written to disk beside the folders)."""

_SYMLINK_MODE = 0o120000
_SUBMODULE_MODE = 0o160000


def blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (``git hash-object``), so working-tree files compare with tree entries."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


@dataclass(slots=True)
class FileRef:
    """One file of a snapshot: its blob id and its bytes (read once, on first use)."""

    sha: str
    reader: Callable[[], bytes] = field(repr=False)
    _data: bytes | None = field(default=None, repr=False)

    def read(self) -> bytes:
        """The file's bytes."""
        if self._data is None:
            self._data = self.reader()
        return self._data


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """The three folders at one revision.

    Attributes:
        label: what was read (``base 1a2b3c4d (main)``, ``working tree``).
        root: a folder holding ``streams/`` and ``bundle-templates/`` (the repository itself for the
            working tree, else a temporary folder).
        files: every file under :data:`FOLDERS` and each of :data:`ROOT_FILES`, keyed by its
            repository-relative path.
    """

    label: str
    root: Path
    files: Mapping[PurePosixPath, FileRef]

    def under(self, folder: str) -> dict[PurePosixPath, FileRef]:
        """Files under ``folder`` (``catalog``), keyed relative to it."""
        prefix = PurePosixPath(folder)
        return {p.relative_to(prefix): ref for p, ref in self.files.items() if p.parts[:1] == prefix.parts}


def open_repo(path: Path) -> Any:
    """The git repository at ``path`` (its top folder).

    Raises:
        InputError: ``path`` is not the top of a git repository.
    """
    import git

    if str(path).startswith("-"):
        raise UsageError(f"refusing repository {str(path)!r}: it starts with '-'")
    try:
        return git.Repo(path, search_parent_directories=False)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"{path}: not a git repository (give --repo the repository's top folder)") from None


def resolve_commit(repo: Any, ref: str, option: str = "--base") -> Any:
    """The commit ``ref`` names (any revision git resolves to a commit, see :mod:`releasekit.io.gitcmd`).

    Raises:
        UsageError: the revision is unsafe (see :func:`releasekit.io.gitcmd.check_revision`; also C1 and
            bidirectional controls, bytes that are not UTF-8) or names no commit.
        InputError: git refuses the repository (another user's).
    """
    if printable(ref) != ref:  # C1 controls, bidirectional controls, bytes that are not UTF-8
        raise UsageError(f"{option}: refusing {printable(ref)!r}: it contains control characters")
    return repo.commit(resolve_revision(repo, ref, option))


def _safe_parts(path: str) -> PurePosixPath:
    rel = PurePosixPath(path)
    if rel.is_absolute() or any(part in ("", ".", "..") for part in rel.parts):
        raise SafetyLimitError(f"refusing path {printable(path)!r} from git: it leaves the repository")
    return rel


MAX_MATERIALISED_BYTES = 256 * 1024 * 1024
"""Most bytes ``streams/`` and ``bundle-templates/`` may hold together at a revision (they are written out)."""


@dataclass(frozen=True, slots=True)
class _Entry:
    mode: int
    kind: str
    sha: str
    size: int | None  # None: git has not the object (a shallow or damaged clone)
    path: PurePosixPath


def branch_point(repo: Any, base: Any, head: Any | None) -> Any:
    """The commit a change branched from: the merge-base of ``base`` and ``head`` (HEAD when None).

    A pull request is judged against where it started, so what the base branch gained after that (a
    release merged meanwhile) does not look removed by the change. Without a common ancestor (unrelated
    histories) or without the history to find one (a shallow clone), ``base`` itself.
    """
    import git

    try:
        tip = head if head is not None else repo.head.commit
        bases = repo.merge_base(base, tip)
    except (git.GitCommandError, ValueError):
        return base
    return bases[0] if bases else base


def _list_tree(commit: Any, rev: str) -> list[_Entry]:
    """Every entry under :data:`FOLDERS` at ``commit`` with its mode and size (one ``git ls-tree -r -l``).

    The sizes come from the object headers, so nothing is read before it is measured.
    """
    import git

    def ls_tree(*paths: str) -> bytes:
        out: bytes = commit.repo.git.ls_tree(
            "-r", "-z", "-l", "--full-tree", commit.hexsha, "--", *paths, stdout_as_string=False
        )
        return out

    try:
        out = ls_tree(*FOLDERS, *ROOT_FILES)
    except git.GitCommandError as exc:
        where = rev
        for folder in FOLDERS:  # name the folder git cannot list
            try:
                ls_tree(folder)
            except git.GitCommandError:
                where = f"{rev}:{folder}"
                break
        raise InputError(
            f"{where}: git cannot list it ({printable(git_reason(exc))}); "
            "fetch the revision in full (a shallow or damaged clone?)"
        ) from None
    entries: list[_Entry] = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha, size = meta.decode("ascii").split()
        path = _safe_parts(name.decode("utf-8", "surrogateescape"))
        if path.parts[0] in FOLDERS or str(path) in ROOT_FILES:  # ls-tree also matches a sibling's prefix
            entries.append(_Entry(int(mode, 8), kind, sha, int(size) if size.isdigit() else None, path))
    return entries


def _refuse_entry(entry: _Entry, where: str) -> None:
    """Raise for what a revision may not hold under :data:`FOLDERS` (``where``: ``REV:path``, printable)."""
    if len(entry.path.parts) == 1 and str(entry.path) not in ROOT_FILES:  # a folder of FOLDERS is a file
        what = {_SYMLINK_MODE: "a symbolic link", _SUBMODULE_MODE: "a submodule"}.get(entry.mode, "a file")
        raise InputError(f"{where}: is {what}, not a folder; check reads it only as a folder of files")
    if entry.mode == _SYMLINK_MODE:
        raise SafetyLimitError(f"{where}: is a symbolic link; refusing it")
    if entry.mode == _SUBMODULE_MODE or entry.kind != "blob":
        raise InputError(f"{where}: is a submodule; check reads no submodule")
    if len(entry.path.parts) > MAX_WALK_DEPTH + 1:
        raise SafetyLimitError(f"{where}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them")
    if entry.size is None:
        raise InputError(
            f"{where}: git does not have object {entry.sha[:12]} (a shallow or damaged clone); "
            "fetch the revision in full"
        )


def read_blob(odb: Any, sha: str, size: int | None, where: str) -> bytes:
    """The bytes of git object ``sha``, which must be ``size`` long (``where``: ``REV:path`` for messages).

    Raises:
        InputError: git cannot read it (a shallow or damaged clone), or it is not ``size`` bytes.
    """
    from gitdb.exc import ODBError

    try:
        data: bytes = odb.stream(bytes.fromhex(sha)).read()
    except (ValueError, OSError, ODBError):
        raise InputError(
            f"{where}: git cannot read object {sha[:12]} (a shallow or damaged clone); fetch the revision in full"
        ) from None
    if len(data) != size:
        raise InputError(f"{where}: git object {sha[:12]} is {len(data)} bytes, not {size}")
    return data


def _blob_reader(odb: Any, entry: _Entry, where: str) -> Callable[[], bytes]:
    def read() -> bytes:
        return read_blob(odb, entry.sha, entry.size, where)

    return read


def snapshot_commit(
    commit: Any,
    workdir: Path,
    *,
    label: str = "",
    rev: str = "",
    max_file_bytes: int = MAX_FILE_BYTES,
    max_total_bytes: int = MAX_MATERIALISED_BYTES,
) -> Snapshot:
    """Read :data:`FOLDERS` at ``commit`` (named ``rev`` in messages); write :data:`MATERIALISED` under ``workdir``.

    Each file is measured from its git object before it is read: over ``max_file_bytes`` (the input
    policy's limit per file), or :data:`MATERIALISED` over ``max_total_bytes`` together, is refused.

    Raises:
        SafetyLimitError: a symbolic link, an unsafe path, or a file or folder over a size limit.
        InputError: a folder of :data:`FOLDERS` that is a file, link or submodule; a submodule in one;
            an object git has not (a shallow or damaged clone).
    """
    name = printable(rev or commit.hexsha[:12])
    files: dict[PurePosixPath, FileRef] = {}
    total = 0
    entries = _list_tree(commit, name)
    for entry in entries:
        where = f"{name}:{printable(str(entry.path))}"
        _refuse_entry(entry, where)
        assert entry.size is not None  # _refuse_entry refused a missing object
        if entry.size > max_file_bytes:
            raise SafetyLimitError(
                f"{where}: {entry.size:,} bytes is over the {max_file_bytes:,}-byte limit per file"
            )
        if entry.path.parts[0] in MATERIALISED:
            total += entry.size
            if total > max_total_bytes:
                raise SafetyLimitError(
                    f"{name}: {', '.join(MATERIALISED)} hold more than {max_total_bytes:,} bytes; refusing them"
                )
    odb = commit.repo.odb
    for entry in entries:
        where = f"{name}:{printable(str(entry.path))}"
        ref = FileRef(sha=entry.sha, reader=_blob_reader(odb, entry, where))
        files[entry.path] = ref
        if entry.path.parts[0] in MATERIALISED or str(entry.path) in ROOT_FILES:
            target = workdir.joinpath(*entry.path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(ref.read())
    return Snapshot(label=label or commit.hexsha[:12], root=workdir, files=files)


def _git_top(start: Path) -> Path | None:
    """The top folder of the git work tree holding ``start`` (the nearest folder with a ``.git``), or None."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _git(top: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    """Run one git plumbing command in ``top``; its output, or None when git refuses (say, no commit yet)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(top), *args], input=stdin, capture_output=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise InputError("git not found: it is needed to read the committed catalog (install git)") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"{top}: git did not answer within 120 s") from None
    return done.stdout if done.returncode == 0 else None


def _refuse_unreadable_repository(top: Path) -> bool:
    """Raise when git refuses the repository at ``top`` (another user's, corrupt): never a silent "no HEAD".

    A repository with no commit yet is fine (git answers). A ``.git`` git does not take for a repository
    at all is no repository: False, and the caller reads nothing from git, as outside one.
    """
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(top), "rev-parse", "--git-dir"], capture_output=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise InputError("git not found: it is needed to read the committed catalog (install git)") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"{top}: git did not answer within 120 s") from None
    if done.returncode == 0:
        return True
    stderr = done.stderr.decode("utf-8", "replace")
    if "not a git repository" in stderr:
        return False
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip().startswith(("fatal:", "error:"))]
    reason = printable("; ".join(lines) or stderr.strip() or f"exit {done.returncode}")
    folder = printable(str(top))
    fix = trust_hint(folder) if "dubious ownership" in stderr else "repair or re-clone it"
    raise InputError(f"{folder}: git refuses the repository: {reason}; {fix}")


def is_shallow(folder: Path) -> bool:
    """True when ``folder`` is in a shallow clone (history that needs older commits is incomplete)."""
    top = _git_top(Path(os.path.realpath(folder.absolute())))
    if top is None:
        return False
    out = _git(top, "rev-parse", "--is-shallow-repository")
    return out is not None and out.strip() == b"true"


def _cat_blobs(top: Path, shas: list[str], rev: str) -> dict[str, bytes]:
    """The contents of blobs ``shas`` (one ``git cat-file --batch``; each was measured by ``ls-tree -l``)."""
    out = _git(top, "cat-file", "--batch", stdin="".join(f"{sha}\n" for sha in shas).encode())
    if out is None:
        raise InputError(f"{top}: git cat-file could not read the committed catalog")
    blobs: dict[str, bytes] = {}
    pos = 0
    for _ in shas:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode("ascii", "replace").split(" ")
        if len(header) != 3:  # "<sha> missing": the object went away after the listing
            raise InputError(
                f"{rev}: git cannot read object {header[0][:12]} (a shallow or damaged clone); fetch it in full"
            )
        sha, _kind, size = header
        start = end + 1
        blobs[sha] = out[start : start + int(size)]
        pos = start + int(size) + 1
    return blobs


def _constant(data: bytes) -> Callable[[], bytes]:
    def read() -> bytes:
        return data

    return read


def committed_files(
    folder: Path, rev: str = "HEAD", *, max_file_bytes: int = MAX_FILE_BYTES
) -> tuple[dict[PurePosixPath, FileRef], str] | None:
    """The files under ``folder`` as committed at ``rev`` in the git work tree that holds it.

    Returns the files keyed relative to ``folder`` and a label (``HEAD 1a2b3c4d5e6f``), or None when
    ``folder`` is in no git work tree or the repository has no commit yet. Symbolic links and submodules
    are left out (they are never a catalog file). Two git plumbing calls (``ls-tree``, then one
    ``cat-file --batch`` for the files whose working-tree copy is not already the committed blob) read it
    without gitpython, whose import alone would cost ``build --check`` more than the rest of its reading.

    Each file is measured from its git object (``ls-tree -l``) before it is read.

    Raises:
        InputError: git is missing, or cannot read what it listed (an object a shallow clone lacks).
        SafetyLimitError: a file over ``max_file_bytes``.
    """
    check_revision(rev, "revision")
    start = Path(os.path.realpath(folder.absolute()))
    top = _git_top(start)
    if top is None:
        return None
    rel = PurePosixPath(start.relative_to(top).as_posix())
    if not _refuse_unreadable_repository(top):
        return None
    head = _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    listing = _git(top, "ls-tree", "-r", "-z", "-l", "--full-tree", rev, "--", str(rel) if rel.parts else ".")
    if head is None or listing is None:
        return None
    entries: dict[PurePosixPath, tuple[str, int | None]] = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha, listed = meta.decode("ascii").split()
        if kind != "blob" or int(mode, 8) == _SYMLINK_MODE:
            continue
        path = _safe_parts(name.decode("utf-8", "surrogateescape"))
        size = int(listed) if listed.isdigit() else None  # None: git has not the object
        if path.parts[: len(rel.parts)] != rel.parts:  # the pathspec also matched a sibling's prefix
            continue
        if size is not None and size > max_file_bytes:
            raise SafetyLimitError(
                f"{rev}:{printable(str(path))}: {size:,} bytes is over the {max_file_bytes:,}-byte limit per file"
            )
        entries[path.relative_to(rel) if rel.parts else path] = (sha, size)
    wanted: list[str] = []
    local: dict[str, bytes] = {}
    for path, (sha, size) in entries.items():
        copy = folder.joinpath(*path.parts)
        try:
            st = copy.lstat()
            # only a regular file of the committed size (unknown: within the limit) can hold its bytes
            fits = stat.S_ISREG(st.st_mode) and (
                st.st_size <= max_file_bytes if size is None else st.st_size == size
            )
            data = copy.read_bytes() if fits else None
        except OSError:
            data = None
        if data is not None and blob_id(data) == sha:
            local[sha] = data  # the working tree holds the committed bytes: no need to ask git
        elif size is None:  # git has no such object (a shallow or damaged clone) and no copy matches it
            raise InputError(
                f"{rev}:{printable(str(rel / path))}: git does not have object {sha[:12]} "
                "(a shallow or damaged clone); fetch it in full"
            )
        elif sha not in wanted:
            wanted.append(sha)
    contents = {**local, **(_cat_blobs(top, wanted, rev) if wanted else {})}
    files = {
        path: FileRef(sha=sha, reader=_constant(contents[sha]), _data=contents[sha])
        for path, (sha, _size) in entries.items()
    }
    return files, f"{rev} {head.decode().strip()[:12]}"


def _file_reader(path: Path) -> Callable[[], bytes]:
    def read() -> bytes:  # the input policy: a regular file, no link, the size limit
        return read_input(path, links=False, what="the working tree")

    return read


def _walk(root: Path, folder: str) -> Iterable[tuple[PurePosixPath, Path]]:
    base = root / folder
    if not base.is_dir():
        return
    for directory, dirnames, filenames in os.walk(base):
        if len(Path(directory).relative_to(base).parts) > MAX_WALK_DEPTH:
            raise SafetyLimitError(
                f"{directory}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them"
            )
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(directory) / name
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise SafetyLimitError(f"{path} is a symbolic link; refusing it")
            if stat.S_ISREG(mode):
                yield PurePosixPath(path.relative_to(root).as_posix()), path
            else:  # a FIFO, socket or device is never opened (reading one would hang or never end)
                raise InputError(f"{path}: not a regular file (FIFO, socket or device); refusing to open it")


def snapshot_worktree(root: Path) -> Snapshot:
    """The working tree's :data:`FOLDERS` and :data:`ROOT_FILES` as they are on disk (untracked files included).

    Raises:
        InputError: ``root`` is not a folder.
        SafetyLimitError: a symbolic link in one of the folders.
    """
    if not root.is_dir():
        raise InputError(f"{root}: not a folder")
    files: dict[PurePosixPath, FileRef] = {}
    for folder in FOLDERS:
        for rel, path in _walk(root, folder):
            reader = _file_reader(path)
            data = reader()
            files[rel] = FileRef(sha=blob_id(data), reader=reader, _data=data)
    for name in ROOT_FILES:
        path = root / name
        if path.is_symlink() or path.exists():  # read under the input policy: a link or a FIFO is refused
            reader = _file_reader(path)
            data = reader()
            files[PurePosixPath(name)] = FileRef(sha=blob_id(data), reader=reader, _data=data)
    return Snapshot(label="working tree", root=root, files=files)
