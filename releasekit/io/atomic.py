"""Writes that cannot destroy: atomic files, atomic folder swaps, ownership and a lock.

Adapter module (writes files; imports nothing from rules, plan or jobs).

- Ownership: releasekit replaces or removes only what the marker :data:`MARKER` of a folder lists. A file
  it must write that exists, is not listed and holds other bytes is refused (exit 2); one holding exactly
  those bytes is taken into the marker. No write or ``--check`` read goes through a symbolic link
  (:func:`target_stat`), and every target is checked before the first write (:func:`plan_writes`).
- :func:`write_tree_atomic` builds the new folder beside the target, carries every file the marker does
  not list into it byte for byte, and exchanges the two in one ``renameat2(RENAME_EXCHANGE)``; where the
  kernel cannot, two renames, and a run killed between them is repaired by the next write.
- :func:`write_files` writes file by file (``writes: files``), each file atomically.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath

from releasekit.errors import InputError, ReleasekitError, SafetyLimitError
from releasekit.io.inputs import inside, read_input

__all__ = [
    "MARKER",
    "check_output_target",
    "output_lock",
    "plan_writes",
    "target_stat",
    "read_generated",
    "write_bytes_atomic",
    "write_files",
    "write_output",
    "write_text_atomic",
    "write_tree_atomic",
    "writing",
    "written_files",
]

MARKER = ".releasekit-generated"
"""The file every generated folder gets: it says releasekit wrote the folder and lists the files it wrote."""

_MARKER_HEAD = (
    "# Written by releasekit: the files below are generated; it replaces or removes nothing else here.\n"
    "# Commit this file: a fresh checkout needs it to know which files releasekit wrote.\n"
)
_NEW, _OLD, _LOCK = "releasekit-new", "releasekit-old", "releasekit-lock"


@contextlib.contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Turn an ``OSError`` while writing ``path`` (a read-only tree, a full disk) into one line and exit 2.

    Raises:
        InputError: ``path: cannot write: <reason>``.
    """
    try:
        yield
    except ReleasekitError:
        raise
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a new temporary file in the same folder, renamed over it."""
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            with tmp.open("xb") as handle:  # exclusive: never opens a file or link planted there
                handle.write(data)
                os.fchmod(handle.fileno(), 0o644)
            tmp.replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_output(path: Path, data: bytes) -> None:
    """Write a report to ``--output path``.

    An existing FIFO, device (``/dev/stdout``) or socket is written into, never replaced; a symlink the
    user named is followed; a regular file (or a new one) is written atomically.

    Raises:
        InputError: the path is a folder or cannot be written.
    """
    with writing(path):
        try:
            st: os.stat_result | None = path.stat()  # follows a link: the file behind it is meant
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a folder; --output names a file")
        if st is not None and not stat.S_ISREG(st.st_mode):
            path.write_bytes(data)
        else:
            write_bytes_atomic(Path(os.path.realpath(path)) if path.is_symlink() else path, data)


# ------------------------------------------------------------------------------------------ the lock

_held: dict[str, int] = {}


@contextlib.contextmanager
def output_lock(target: Path, *, inside: bool = False) -> Iterator[None]:
    """Hold the exclusive lock of generated folder ``target`` (re-entrant within one process).

    The lock file is ``.<name>.releasekit-lock`` beside ``target``; with ``inside`` (a folder written file
    by file, which may be the repository root) the folder itself is locked and no file is left anywhere.

    Raises:
        InputError: another releasekit process holds it (a concurrent build of the same checkout), or the
            lock cannot be created (a read-only tree).
    """
    target = Path(os.path.normpath(target.absolute()))
    lock = target if inside else target.parent / f".{target.name}.{_LOCK}"
    key = str(lock)
    if key in _held:
        yield
        return
    with writing(lock):
        (target if inside else lock.parent).mkdir(parents=True, exist_ok=True)
        flags = os.O_RDONLY | os.O_DIRECTORY if inside else os.O_RDWR | os.O_CREAT
        fd = os.open(lock, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise InputError(
                f"{target}: another releasekit run is writing it (lock {lock} is held); wait for it to finish"
            ) from None
        raise InputError(f"{lock}: cannot lock: {exc.strerror or exc}") from None
    _held[key] = fd
    try:
        yield
    finally:
        del _held[key]
        os.close(fd)  # releases the lock; the file stays (it is empty and ignored by git)


# ------------------------------------------------------------------------------------------ trees


def _safe_relative(rel: PurePosixPath) -> PurePosixPath:
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.name == MARKER:
        raise SafetyLimitError(f"refusing to write {str(rel)!r}: paths must stay inside the output folder")
    return rel


def written_files(target: Path) -> set[PurePosixPath]:
    """The files releasekit's marker in ``target`` says it wrote (empty without a marker).

    A line naming a path that leaves the folder lists nothing.

    Raises:
        InputError, SafetyLimitError: the marker is a link, a FIFO or device, or cannot be read.
    """
    marker = target / MARKER
    if not os.path.lexists(marker):
        return set()
    text = read_input(marker, root=target, links=False, what="a generated folder").decode("utf-8", "replace")
    listed = {PurePosixPath(line) for line in text.splitlines() if line and not line.startswith("#")}
    return {rel for rel in listed if rel.name and not rel.is_absolute() and ".." not in rel.parts}


def _existing_files(target: Path) -> tuple[list[PurePosixPath], list[PurePosixPath]]:
    """(every entry below ``target`` that is not a folder, every empty folder), each list sorted.

    The entries are files, symlinks and special files. Folders are walked without following a link.
    """
    found: list[PurePosixPath] = []
    empty: list[PurePosixPath] = []
    for folder, dirnames, filenames in os.walk(target):
        rel_folder = PurePosixPath(Path(folder).relative_to(target).as_posix())
        links = [name for name in dirnames if (Path(folder) / name).is_symlink()]
        found.extend(rel_folder / name for name in links)  # a symlinked folder is an entry, never followed
        dirnames[:] = [name for name in dirnames if name not in links]
        found.extend(rel_folder / name for name in filenames)
        if not dirnames and not filenames and rel_folder != PurePosixPath("."):
            empty.append(rel_folder)
    return sorted(p for p in found if p != PurePosixPath(MARKER)), sorted(empty)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def target_stat(root: Path, rel: PurePosixPath) -> os.stat_result | None:
    """The lstat of ``root/rel`` (``None`` when absent) once every folder on the way is a real folder.

    Raises:
        SafetyLimitError: a component is a symbolic link (a write would leave the folder through it) or
            a file where a folder must be.
        InputError: ``root/rel`` is a folder, FIFO, device or socket, not a regular file.
    """
    here = root
    last = len(rel.parts) - 1
    for i, part in enumerate(rel.parts):
        here = here / part
        st = _lstat(here)
        if st is None:
            return None
        if stat.S_ISLNK(st.st_mode):
            raise SafetyLimitError(
                f"{here}: is a symbolic link; refusing to write or read {rel} through it (make it a real "
                "folder or file)"
            )
        if i < last and not stat.S_ISDIR(st.st_mode):
            raise SafetyLimitError(f"{here}: is not a folder; refusing to write {rel} (move it away)")
        if i == last and not stat.S_ISREG(st.st_mode):
            raise InputError(f"{here}: not a regular file (a folder, FIFO, socket or device); refusing it")
    return st


def _holds(path: Path, st: os.stat_result, data: bytes) -> bool:
    """Whether regular file ``path`` (``st``: its lstat) holds exactly ``data`` (another size: not read)."""
    return st.st_size == len(data) and read_input(path, links=False, max_bytes=len(data)) == data


def read_generated(root: Path, rel: PurePosixPath) -> bytes | None:
    """The bytes of generated file ``root/rel`` for ``--check`` (``None`` when absent), read as a write goes.

    Raises:
        SafetyLimitError, InputError: as :func:`target_stat` refuses the path, or a file over the limit.
    """
    if target_stat(root, _safe_relative(rel)) is None:
        return None
    return read_input(root / rel, links=False)


def plan_writes(
    root: Path, files: Mapping[PurePosixPath, bytes], listed: set[PurePosixPath]
) -> dict[PurePosixPath, bytes]:
    """Check every target of ``files`` under ``root`` (see the module docstring); return those to write.

    Raises:
        SafetyLimitError: a target exists, releasekit did not write it and it holds other bytes; or a
            component on the way is a link or a file.
        InputError: a target is not a regular file.
    """
    out: dict[PurePosixPath, bytes] = {}
    for rel, data in sorted(files.items()):
        st = target_stat(root, _safe_relative(rel))
        if st is None:
            out[rel] = data
        elif _holds(root / rel, st, data):
            continue
        elif rel in listed:
            out[rel] = data
        else:
            raise SafetyLimitError(
                f"{root / rel}: exists and releasekit did not write it ({MARKER} does not list it); "
                "refusing to replace it (move it away if releasekit should write it)"
            )
    return out


def check_output_target(
    target: Path, *, owned: Callable[[PurePosixPath], bool] | None = None, inputs: Sequence[Path] = ()
) -> None:
    """Refuse ``target`` as :func:`write_tree_atomic` would, before any work (and before any lock file).

    Raises:
        SafetyLimitError: the current folder, a repository root, a folder holding an input, something
            that is not a folder, or a folder of files releasekit did not write.
    """
    target = Path(os.path.normpath(target.absolute()))
    real = os.path.realpath(target)
    if real == os.path.realpath(Path.cwd()):
        raise SafetyLimitError(f"{target}: is the current folder; refusing to replace it (name a sub-folder)")
    if real == os.path.realpath(Path(real).anchor or "/") or real == os.path.realpath(Path.home()):
        raise SafetyLimitError(f"{target}: refusing to replace the root or home folder")
    if Path(real, ".git").exists():
        raise SafetyLimitError(f"{target}: is a repository root; refusing to replace it (name a sub-folder)")
    for item in inputs:
        if inside(os.path.realpath(item), real):
            raise SafetyLimitError(
                f"{target}: holds the input {item}; refusing to replace it (name a folder outside the inputs)"
            )
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise SafetyLimitError(
            f"{target}: is not a folder (or is a symbolic link); refusing to write into it"
        )
    if target.is_dir():
        _claim(target, owned)


def _claim(target: Path, owned: Callable[[PurePosixPath], bool] | None) -> set[PurePosixPath]:
    """The files the marker of existing folder ``target`` lists.

    Refuses a folder that has no marker and holds files of which ``owned`` recognises no top-level entry.
    """
    if os.path.lexists(target / MARKER):
        return written_files(target)
    tops = sorted(e.name for e in target.iterdir() if not e.name.startswith("."))
    if tops and (owned is None or not any(owned(PurePosixPath(top)) for top in tops)):
        raise SafetyLimitError(
            f"{target}: holds files releasekit did not write (such as {tops[0]!r}) and no "
            f"{MARKER} marker; refusing to write into it (name an empty or new folder)"
        )
    return set()


def _clean_leftovers(target: Path) -> None:
    """Remove temporary folders a killed run left beside ``target``; put back an old tree if it is missing."""
    try:
        entries = sorted(target.parent.iterdir())
    except OSError:
        return
    # also the names releasekit used before (.catalog.new.*, .catalog.old.*)
    news = [e for e in entries if e.name.startswith((f".{target.name}.{_NEW}.", f".{target.name}.new."))]
    olds = [e for e in entries if e.name.startswith((f".{target.name}.{_OLD}.", f".{target.name}.old."))]
    if olds and not target.exists():  # killed between the two renames of the fallback swap
        olds.pop().rename(target)
    for entry in (*news, *olds):
        shutil.rmtree(entry, ignore_errors=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap folders ``a`` and ``b`` at once (Linux ``renameat2``); ``False`` where the file system can't."""
    libc = ctypes.CDLL(None, use_errno=True)  # ints and bytes pass as renameat2 takes them
    if libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap_in(staging: Path, target: Path) -> None:
    """Put ``staging`` at ``target``; the previous tree (if any) is removed afterwards."""
    if not target.exists():
        staging.rename(target)
    elif _exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old tree
    else:  # two renames: a run killed between them is repaired by _clean_leftovers
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.{_OLD}.", dir=target.parent))
        old.rmdir()
        target.rename(old)
        staging.rename(target)
        shutil.rmtree(old, ignore_errors=True)


def _marker_text(listing: set[PurePosixPath]) -> str:
    return _MARKER_HEAD + "".join(f"{rel}\n" for rel in sorted(str(r) for r in listing))


def write_tree_atomic(
    target: Path,
    files: Mapping[PurePosixPath, bytes],
    *,
    owned: Callable[[PurePosixPath], bool] | None = None,
    inputs: Sequence[Path] = (),
    marker: bool = True,
    lock: bool = True,
    prune: bool = True,
) -> None:
    """Replace the generated files of folder ``target`` with ``files`` (relative POSIX paths -> bytes).

    Args:
        target: the generated folder.
        files: its new generated files.
        owned: with ``marker``, whether a top-level entry of a folder without a marker is one releasekit
            generates (a folder with none is refused); without, which files are releasekit's (a bundle).
        inputs: the command's input folders, which ``target`` may not contain.
        marker: whether ownership is the marker's (:data:`MARKER`, written with the tree).
        lock: whether to take :func:`output_lock` (a caller writing many folders holds its own).
        prune: whether listed files not in ``files`` are removed (a build) or kept (an import).

    Raises:
        SafetyLimitError: ``target`` is the current folder, a repository root, holds an input, or holds
            files releasekit did not write; a path leaves the folder (see :func:`plan_writes`).
        InputError: another releasekit run is writing ``target``, or it cannot be written.
    """
    target = Path(os.path.normpath(target.absolute()))
    check_output_target(target, owned=owned, inputs=inputs)
    with output_lock(target) if lock else contextlib.nullcontext(), writing(target):
        _clean_leftovers(target)
        listed = _claim(target, owned) if marker and target.is_dir() else set()
        plan_writes(target, files, listed if marker else set(files))  # refuses before anything is written
        existing, empty = _existing_files(target)  # none for a new folder
        if marker:
            mine = {
                p
                for p in existing
                if p in listed and (prune or p in files) and stat.S_ISREG(os.lstat(target / p).st_mode)
            }
        else:
            mine = {p for p in existing if owned is not None and owned(p)}
        keep = [p for p in existing if p not in mine and p not in files]
        listing = set(files) | {p for p in keep if p in listed}
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.{_NEW}.", dir=target.parent))
        try:
            for rel, data in sorted(files.items()):
                dest = staging / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            for rel in keep:
                _keep(target / rel, staging / rel)
            for rel in empty:
                (staging / rel).mkdir(parents=True, exist_ok=True)
            if marker:
                (staging / MARKER).write_text(_marker_text(listing), encoding="utf-8")
            staging.chmod(0o755)
            _swap_in(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise


def _keep(source: Path, dest: Path) -> None:
    """Carry entry ``source`` (a file, link or special file releasekit did not write) to ``dest`` as it is."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        dest.symlink_to(source.readlink())
        return
    try:
        os.link(source, dest, follow_symlinks=False)  # the same file: nothing copied, nothing lost
    except OSError:
        if not source.is_file():
            raise
        shutil.copy2(source, dest, follow_symlinks=False)


def write_files(root: Path, files: Mapping[PurePosixPath, bytes]) -> None:
    """Write ``files`` under ``root`` file by file (``writes: files``); nothing else is touched or removed.

    The marker lists the files written and those it listed before that are still there.

    Raises:
        SafetyLimitError, InputError: as :func:`plan_writes`; ``root`` is a link or not a folder; another
            run holds the lock; the tree cannot be written.
    """
    root = Path(os.path.normpath(root.absolute()))
    st = _lstat(root)
    if st is not None and not stat.S_ISDIR(st.st_mode):
        raise SafetyLimitError(f"{root}: is not a folder (or is a symbolic link); refusing to write into it")
    with writing(root):
        root.mkdir(parents=True, exist_ok=True)
    with output_lock(root, inside=True):
        listed = written_files(root)
        todo = plan_writes(root, files, listed)
        for rel in todo:  # a read-only tree is refused before the first write, not half way
            folder = root.joinpath(*rel.parts[:-1])
            while not folder.exists():
                folder = folder.parent
            if not os.access(folder, os.W_OK):
                raise InputError(f"{folder}: cannot write: {os.strerror(errno.EACCES)}")
        listing = set(files) | {p for p in listed if _lstat(root / p) is not None}
        text = _marker_text(listing).encode()
        for rel, data in sorted(todo.items()):
            write_bytes_atomic(root / rel, data)
        marker_st = _lstat(root / MARKER)
        if marker_st is None or not _holds(root / MARKER, marker_st, text):
            write_bytes_atomic(root / MARKER, text)
