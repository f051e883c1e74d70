"""Read a git revision or the working tree: every file measured before a byte of it is read.

Adapter module (git, files). Nothing is checked out and the index is never touched. A revision is read
with git plumbing alone: its files from one ``git ls-tree -r -l`` (each object's mode and size from its
header), their bytes on demand from one ``git cat-file --batch`` (gitpython only opens a repository and
resolves a revision; importing it would cost ``build`` more than its reading). Paths from git never
leave the repository; symbolic links, submodules and special files are never followed or opened; a file
over the limit per file, or an object a shallow clone lacks, is refused in one line naming ``REV:path``.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from releasekit.errors import InputError, SafetyLimitError, UsageError, printable
from releasekit.io.gitcmd import git_reason, refused_repository, resolve_revision
from releasekit.io.inputs import MAX_FILE_BYTES, MAX_WALK_DEPTH, read_input, too_big, walk_files
from releasekit.model.acknowledgement import ACKNOWLEDGEMENTS_FILE

__all__ = [
    "FOLDERS",
    "FileRef",
    "FileVersion",
    "MAX_MATERIALISED_BYTES",
    "RepoTree",
    "Snapshot",
    "blob_id",
    "branch_point",
    "committed_files",
    "file_history",
    "is_shallow",
    "list_revision",
    "list_worktree",
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
"""Files at the repository root a check reads (written to disk beside the folders)."""

MAX_MATERIALISED_BYTES = 256 * 1024 * 1024
"""Most bytes ``streams/`` and ``bundle-templates/`` may hold together at a revision (they are written out)."""

_SYMLINK_MODE = "120000"
_NO_GIT = "git not found: releasekit needs it to read a repository (install git)"


def blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (``git hash-object``), so working-tree files compare with tree entries."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


@dataclass(slots=True)
class FileRef:
    """One file: its blob id and its bytes (read once, on first use)."""

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
    """The :data:`FOLDERS` and :data:`ROOT_FILES` at one revision.

    Attributes:
        label: what was read (``base 1a2b3c4d (main)``, ``working tree``).
        root: a folder holding ``streams/`` and ``bundle-templates/`` (the repository itself for the
            working tree, else a temporary folder).
        files: every file, keyed by its repository-relative path.
    """

    label: str
    root: Path
    files: Mapping[PurePosixPath, FileRef]

    def under(self, folder: str) -> dict[PurePosixPath, FileRef]:
        """Files under ``folder`` (``catalog``), keyed relative to it."""
        prefix = PurePosixPath(folder)
        return {p.relative_to(prefix): ref for p, ref in self.files.items() if p.parts[:1] == prefix.parts}


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoTree:
    """Every file of one revision.

    Attributes:
        label: what was read (``base main``, ``working tree``).
        files: each regular file: its blob id and a reader that refuses it when it is over the limit.
        sizes: each file's size, measured before reading (None: git lacks the object).
        special: symbolic links, submodules and special files, with what they are; never read.
    """

    label: str
    files: Mapping[PurePosixPath, FileRef]
    sizes: Mapping[PurePosixPath, int | None]
    special: Mapping[PurePosixPath, str]


# ------------------------------------------------------------------------------ repositories, commits


def open_repo(path: Path) -> Any:
    """The git repository at ``path`` (its top folder).

    Raises:
        InputError: ``path`` is missing or not the top of a git repository.
    """
    import git

    if str(path).startswith("-"):
        raise UsageError(f"refusing repository {str(path)!r}: it starts with '-'")
    try:
        return git.Repo(path)
    except git.NoSuchPathError:
        raise InputError(f"{path}: no such repository folder") from None
    except git.InvalidGitRepositoryError:
        raise InputError(f"{path}: not a git repository (give the repository's top folder)") from None


def resolve_commit(repo: Any, ref: str, option: str = "--base") -> Any:
    """The commit ``ref`` names (see :func:`releasekit.io.gitcmd.resolve_revision`).

    Raises:
        UsageError: the revision is unsafe or names no commit.
        InputError: git refuses the repository (another user's).
    """
    return repo.commit(resolve_revision(repo, ref, option))


def branch_point(repo: Any, base: Any, head: Any | None) -> Any:
    """The merge-base of ``base`` and ``head`` (HEAD when None): where a change started.

    What the base branch gained since (a release merged meanwhile) then does not look removed by the
    change. Without a common ancestor or the history to find one (a shallow clone): ``base`` itself.
    """
    import git

    try:
        bases = repo.merge_base(base, head if head is not None else repo.head.commit)
    except (git.GitCommandError, ValueError):
        return base
    return bases[0] if bases else base


# ------------------------------------------------------------------------------ a revision's tree


def _safe_parts(path: str, where: str = "") -> PurePosixPath:
    """``path`` from git, refused when it leaves the repository or nests too deep (named ``where:path``)."""
    rel = PurePosixPath(path)
    if rel.is_absolute() or any(part in ("", ".", "..") for part in rel.parts):
        raise SafetyLimitError(f"refusing path {printable(path)!r} from git: it leaves the repository")
    if len(rel.parts) > MAX_WALK_DEPTH + 1:
        raise SafetyLimitError(
            f"{where}{printable(str(rel))}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them"
        )
    return rel


def _missing(where: str, sha: str) -> InputError:
    return InputError(
        f"{where}: git does not have object {sha[:12]} (a shallow or damaged clone); fetch the revision in full"
    )


def _refuse(error: Exception) -> bytes:
    raise error


class _Objects:
    """One ``git cat-file --batch`` in a repository, started on the first read, ended with this object."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.proc: subprocess.Popen[bytes] | None = None

    def read(self, spec: str) -> bytes | None:
        """The object ``spec`` names (an id, or ``REV:path``); None when git has not it."""
        if self.proc is None:
            try:
                self.proc = subprocess.Popen(
                    ["git", "-C", str(self.top), "cat-file", "--batch"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            except FileNotFoundError:
                raise InputError(_NO_GIT) from None
            weakref.finalize(self, _end, self.proc)
        stdin, stdout = self.proc.stdin, self.proc.stdout
        if stdin is None or stdout is None or "\n" in spec:
            return None
        try:
            stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
            stdin.flush()
        except OSError:
            return None  # git has ended (say, the repository went away)
        header = stdout.readline().split()  # "<id> <type> <size>", or "<spec> missing"
        if len(header) != 3:
            return None
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after the object
        return data


def _end(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            pipe.close()


def _read_blob(objects: _Objects, sha: str, where: str) -> bytes:
    data = objects.read(sha)
    if data is None:
        raise InputError(
            f"{where}: git cannot read object {sha[:12]} (a shallow or damaged clone); fetch the revision in full"
        )
    return data


def _tree(
    top: Path, rev: str, name: str, paths: tuple[str, ...], max_file_bytes: int, label: str = ""
) -> RepoTree:
    """The files of ``rev`` under ``paths`` (``git ls-tree -r -l``), each read from git on demand."""
    listing = partial(_run, top, "ls-tree", "-r", "-z", "-l", "--full-tree", rev, "--")
    done = listing(*paths)
    if done.returncode != 0:
        failing = (f"{name}:{p}" for p in paths if listing(p).returncode != 0)  # name the folder it cannot
        where = next(failing, name)
        raise InputError(
            f"{where}: git cannot list it ({printable(git_reason(done))}); "
            "fetch the revision in full (a shallow or damaged clone?)"
        )
    objects = _Objects(top)
    wanted = [PurePosixPath(p).parts for p in paths if p != "."]
    files: dict[PurePosixPath, FileRef] = {}
    sizes: dict[PurePosixPath, int | None] = {}
    special: dict[PurePosixPath, str] = {}
    for record in done.stdout.split(b"\0"):
        meta, _, raw = record.partition(b"\t")
        if not raw:
            continue
        mode, kind, sha, size = meta.decode("ascii").split()
        path = _safe_parts(raw.decode("utf-8", "surrogateescape"), f"{name}:")
        if wanted and not any(path.parts[: len(w)] == w for w in wanted):
            continue  # the pathspec also matched a sibling's prefix
        where = f"{name}:{printable(str(path))}"
        if mode == _SYMLINK_MODE or kind != "blob":
            special[path] = "a symbolic link" if mode == _SYMLINK_MODE else "a submodule"
            continue
        sizes[path] = measured = int(size) if size.isdigit() else None  # "-": git has not the object
        if measured is not None and measured > max_file_bytes:
            files[path] = FileRef(sha=sha, reader=partial(_refuse, too_big(where, measured, max_file_bytes)))
        else:
            files[path] = FileRef(sha=sha, reader=partial(_read_blob, objects, sha, where))
    return RepoTree(label=label or name, files=files, sizes=sizes, special=special)


def list_revision(
    commit: Any,
    *,
    rev: str = "",
    label: str = "",
    max_file_bytes: int = MAX_FILE_BYTES,
    paths: tuple[str, ...] = (),
) -> RepoTree:
    """Every file of ``commit`` (under ``paths``), named ``rev`` in messages; nothing is read yet.

    Raises:
        InputError: git cannot list the revision (a shallow or damaged clone), naming the path it cannot.
        SafetyLimitError: a path that leaves the repository, or folders nested too deep.
    """
    name = printable(rev or commit.hexsha[:12])
    top = Path(commit.repo.working_tree_dir or commit.repo.git_dir)
    return _tree(top, commit.hexsha, name, paths, max_file_bytes, label)


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

    Raises:
        SafetyLimitError: a symbolic link, an unsafe path, a file over ``max_file_bytes`` or
            :data:`MATERIALISED` over ``max_total_bytes`` together (all measured before any is read).
        InputError: a folder of :data:`FOLDERS` that is a file, link or submodule; a submodule in one;
            an object git has not (a shallow or damaged clone).
    """
    name = printable(rev or commit.hexsha[:12])
    tree = list_revision(commit, rev=rev, max_file_bytes=max_file_bytes, paths=(*FOLDERS, *ROOT_FILES))
    total = 0
    for path in sorted({*tree.files, *tree.special}):
        where = f"{name}:{printable(str(path))}"
        what = tree.special.get(path)
        if len(path.parts) == 1 and str(path) not in ROOT_FILES:  # a folder of FOLDERS is not one
            raise InputError(
                f"{where}: is {what or 'a file'}, not a folder; check reads it only as a folder of files"
            )
        if what == "a symbolic link":
            raise SafetyLimitError(f"{where}: is a symbolic link; refusing it")
        if what is not None:
            raise InputError(f"{where}: is a submodule; check reads no submodule")
        size = tree.sizes[path]
        if size is None:
            raise _missing(where, tree.files[path].sha)
        if size > max_file_bytes:
            raise too_big(where, size, max_file_bytes)
        if path.parts[0] in MATERIALISED:
            total += size
            if total > max_total_bytes:
                raise SafetyLimitError(
                    f"{name}: {', '.join(MATERIALISED)} hold more than {max_total_bytes:,} bytes; refusing them"
                )
    for path, ref in tree.files.items():
        if path.parts[0] in MATERIALISED or str(path) in ROOT_FILES:
            target = workdir.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(ref.read())
    return Snapshot(label=label or commit.hexsha[:12], root=workdir, files=tree.files)


# ------------------------------------------------------------------------------ the working tree


def _file_reader(path: Path, where: str | None = None, limit: int = MAX_FILE_BYTES) -> Callable[[], bytes]:
    def read() -> bytes:  # the input policy: a regular file, no link, the size limit, checked on open
        return read_input(path, links=False, display=where, max_bytes=limit, what="the working tree")

    return read


def _eager(path: Path) -> FileRef:
    reader = _file_reader(path)
    data = reader()
    return FileRef(sha=blob_id(data), reader=reader, _data=data)


def snapshot_worktree(root: Path) -> Snapshot:
    """The working tree's :data:`FOLDERS` and :data:`ROOT_FILES` as they are on disk (untracked files too).

    Raises:
        InputError: ``root`` is not a folder, or a FIFO, socket or device in a folder.
        SafetyLimitError: a symbolic link in one of the folders, or folders nested too deep.
    """
    if not root.is_dir():
        raise InputError(f"{root}: not a folder")
    files: dict[PurePosixPath, FileRef] = {}
    for folder in FOLDERS:
        if (root / folder).is_dir():
            for path in walk_files(root / folder, links=False, what="the working tree"):
                files[PurePosixPath(path.relative_to(root).as_posix())] = _eager(path)
    for name in ROOT_FILES:
        if (root / name).is_symlink() or (root / name).exists():  # a link or a FIFO is refused on reading
            files[PurePosixPath(name)] = _eager(root / name)
    return Snapshot(label="working tree", root=root, files=files)


def list_worktree(root: Path, *, max_file_bytes: int = MAX_FILE_BYTES) -> RepoTree:
    """Every file of the working tree at ``root`` that git tracks or would add (untracked, not ignored).

    Each regular file is read once for its blob id; one over the limit, or in a hidden folder
    (an untracked ``.venv``), is only measured, so it compares as changed and is refused if it is read.
    Links, FIFOs, sockets and devices are listed apart, never opened.

    Raises:
        InputError: ``root`` is not a folder, or git cannot list it.
        SafetyLimitError: folders nested too deep.
    """
    if not root.is_dir():
        raise InputError(f"{root}: not a folder")
    done = _run(root, "ls-files", "-z", "-c", "-o", "--exclude-standard", "--full-name")
    if done.returncode != 0:
        reason = printable(git_reason(done) or f"exit {done.returncode}")
        raise InputError(f"{printable(str(root))}: git cannot list the working tree: {reason}")
    files: dict[PurePosixPath, FileRef] = {}
    sizes: dict[PurePosixPath, int | None] = {}
    special: dict[PurePosixPath, str] = {}
    for name in sorted({name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name}):
        rel = _safe_parts(name)
        where = printable(str(rel))
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
            reader = _file_reader(path, where, max_file_bytes)
            if st.st_size > max_file_bytes:
                sha = f"size:{st.st_size}"
            elif any(part.startswith(".") for part in rel.parts[:-1]):
                sha = f"unhashed:{st.st_size}:{st.st_mtime_ns}"  # never equals a committed blob: checked in full
            else:
                sha = blob_id(reader())  # not kept: most files compare equal and are never read again
            files[rel] = FileRef(sha=sha, reader=reader)
            sizes[rel] = st.st_size
    return RepoTree(label="working tree", files=files, sizes=sizes, special=special)


# ------------------------------------------------------------------------------ git plumbing


def _run(top: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(top), *args], capture_output=True, check=False, timeout=120)
    except FileNotFoundError:
        raise InputError(_NO_GIT) from None
    except subprocess.TimeoutExpired:
        raise InputError(f"{top}: git did not answer within 120 s") from None


def _git_top(path: Path) -> tuple[Path, PurePosixPath] | None:
    """The top of the git work tree holding ``path`` (the nearest folder with a ``.git``) and ``path`` below it."""
    start = Path(os.path.realpath(path.absolute()))
    top = next((folder for folder in (start, *start.parents) if (folder / ".git").exists()), None)
    return None if top is None else (top, PurePosixPath(start.relative_to(top).as_posix()))


def is_shallow(folder: Path) -> bool:
    """True when ``folder`` is in a shallow clone (history that needs older commits is incomplete)."""
    found = _git_top(folder)
    done = _run(found[0], "rev-parse", "--is-shallow-repository") if found is not None else None
    return done is not None and done.stdout.strip() == b"true"


def committed_files(
    folder: Path, *, max_file_bytes: int = MAX_FILE_BYTES
) -> tuple[dict[PurePosixPath, FileRef], str] | None:
    """The files under ``folder`` as committed at ``HEAD``, keyed relative to it, and a label (``HEAD 1a2b3c``).

    None when ``folder`` is in no git work tree or the repository has no commit yet. Symbolic links and
    submodules are left out (never a catalog file). Each file is measured (``ls-tree -l``) before it is
    read; one git lacks (a shallow or damaged clone) is taken from the working tree if it holds the blob.

    Raises:
        InputError: git is missing or refuses the repository (another user's, corrupt), or lacks a file.
        SafetyLimitError: a file over ``max_file_bytes``.
    """
    found = _git_top(folder)
    if found is None:
        return None
    top, rel = found
    head = _run(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    stderr = head.stderr.decode("utf-8", "replace")
    if head.returncode != 0 and (not stderr.strip() or "not a git repository" in stderr):
        return None  # no commit yet, or a ``.git`` git does not take for a repository
    if head.returncode != 0:
        raise refused_repository(str(top), head)
    tree = _tree(top, "HEAD", "HEAD", (str(rel),), max_file_bytes)
    files: dict[PurePosixPath, FileRef] = {}
    for path, ref in tree.files.items():
        size, where = tree.sizes[path], f"HEAD:{printable(str(path))}"
        if size is not None and size > max_file_bytes:
            raise too_big(where, size, max_file_bytes)
        if size is None:  # git lacks the object: the working tree may still hold the committed bytes
            try:
                ref = _eager(top.joinpath(*path.parts))
            except (InputError, SafetyLimitError):
                raise _missing(where, ref.sha) from None
            if ref.sha != tree.files[path].sha:
                raise _missing(where, tree.files[path].sha)
        files[path.relative_to(rel)] = ref
    return files, f"HEAD {head.stdout.decode().strip()[:12]}"


MAX_VERSIONS = 200
"""How many of a file's newest versions :func:`file_history` reads (a catalog file changes with each release)."""


@dataclass(frozen=True, slots=True)
class FileVersion:
    """The file as one commit left it."""

    commit: str
    subject: str
    data: bytes | None  # None: the commit removed the file


def file_history(path: Path) -> list[FileVersion] | None:
    """Every commit (at most :data:`MAX_VERSIONS`, the newest) that changed ``path``, oldest first.

    None when ``path`` is in no git work tree or git cannot answer (no commit yet, a shallow clone that
    lacks the objects): the caller then says nothing about history rather than guess.
    """
    found = _git_top(path)
    if found is None:
        return None
    top, rel = found
    log = _run(top, "log", f"--max-count={MAX_VERSIONS}", "--format=%H%x00%s", "--", str(rel))
    if log.returncode != 0:
        return None
    commits = [
        line.split("\0", 1) for line in log.stdout.decode("utf-8", "replace").splitlines() if "\0" in line
    ]
    objects = _Objects(top)
    return [FileVersion(sha, subject, objects.read(f"{sha}:{rel}")) for sha, subject in reversed(commits)]
