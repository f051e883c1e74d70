"""Writes that cannot destroy: atomic files, atomic folder swaps, ownership and a lock.

Adapter module (writes files; imports nothing from rules, plan or jobs).

- :func:`write_bytes_atomic` writes a temporary sibling and renames it over the file.
- :func:`write_output` is ``--output``: an existing FIFO, device or other special file (``/dev/stdout``) is
  written into, a symlink the user named is written through, and a regular file is replaced atomically.
- :func:`write_tree_atomic` writes a generated folder. It refuses (exit 2, naming the reason) a folder that
  is the current directory, a repository root, a parent of an input, or that holds files releasekit did
  not write: a folder is releasekit's when it is absent or empty, carries the marker :data:`MARKER`
  (left by every write, listing the files written), or is in the caller's own layout (``owned`` accepts
  one of its top-level entries: today's ``catalog/`` without a marker). Inside a folder it owns, files it did not write (untracked notes, a
  README) are carried into the new tree, so they survive. The new tree is built beside the target and
  exchanged with it in one ``renameat2(RENAME_EXCHANGE)`` on Linux, so the old or the new tree is there at
  every instant; where the kernel or file system cannot exchange, two renames are used and a run killed
  between them is repaired by the next (the old tree is put back). Temporary folders a killed run left
  (``.<name>.releasekit-new.*`` / ``-old.*``) are removed by the next write, and ignored by git.
- :func:`output_lock` is an exclusive ``flock`` on ``.<name>.releasekit-lock`` beside the folder: a second
  build of the same checkout stops at once with one line.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath

from releasekit.errors import InputError, SafetyLimitError

__all__ = [
    "MARKER",
    "check_output_target",
    "output_lock",
    "write_bytes_atomic",
    "write_output",
    "write_text_atomic",
    "write_tree_atomic",
    "written_files",
]

MARKER = ".releasekit-generated"
"""The file every generated folder gets: it says releasekit wrote the folder and lists the files it wrote."""

_MARKER_HEAD = "# Written by releasekit: the files below are generated; anything else here is kept.\n"
_NEW, _OLD, _LOCK = "releasekit-new", "releasekit-old", "releasekit-lock"


def write_bytes_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder (made ``mode``, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).chmod(mode)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_output(path: Path, data: bytes) -> None:
    """Write a report to ``--output path``.

    An existing special file (FIFO, character device such as ``/dev/stdout``, socket) is opened and
    written into, never replaced; a symlink is followed to the file it names; a regular file (or a new
    one) is written atomically.

    Raises:
        InputError: the path is a folder or cannot be written.
    """
    try:
        st = path.stat()  # follows a symlink: the user named the link, the file behind it is meant
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"{path}: is a folder; --output names a file")
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            with path.open("wb") as handle:  # a FIFO, device or socket: write into it
                handle.write(data)
            return
        real = Path(os.path.realpath(path)) if path.is_symlink() else path
        write_bytes_atomic(real, data)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None


# ------------------------------------------------------------------------------------------ the lock

_held: dict[str, int] = {}


@contextlib.contextmanager
def output_lock(target: Path) -> Iterator[None]:
    """Hold the exclusive lock of generated folder ``target`` (re-entrant within one process).

    Raises:
        InputError: another releasekit process holds it (a concurrent build of the same checkout).
    """
    target = Path(os.path.normpath(target.absolute()))
    lock = target.parent / f".{target.name}.{_LOCK}"
    key = str(lock)
    if key in _held:
        yield
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
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
    """The files releasekit's marker in ``target`` says it wrote (empty without a marker)."""
    return _marker_files(target) or set()


def _marker_files(target: Path) -> set[PurePosixPath] | None:
    """The files the marker in ``target`` lists, or ``None`` without a marker."""
    marker = target / MARKER
    try:
        if not marker.is_file() or marker.is_symlink():
            return None
        text = marker.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return {PurePosixPath(line) for line in text.splitlines() if line and not line.startswith("#")}


def _existing_files(target: Path) -> list[PurePosixPath]:
    """Every entry below ``target`` that is not a folder (files, symlinks, special files), sorted."""
    found: list[PurePosixPath] = []
    for folder, dirnames, filenames in os.walk(target):
        dirnames.sort()
        rel_folder = PurePosixPath(Path(folder).relative_to(target).as_posix())
        for name in dirnames:  # a symlinked folder is an entry to keep, never followed
            if (Path(folder) / name).is_symlink():
                found.append(rel_folder / name)
        found.extend(rel_folder / name for name in sorted(filenames))
    return sorted(p for p in found if p != PurePosixPath(MARKER))


def _refuse_target(target: Path, inputs: Sequence[Path]) -> None:
    real = os.path.realpath(target)
    if real == os.path.realpath(Path.cwd()):
        raise SafetyLimitError(f"{target}: is the current folder; refusing to replace it (name a sub-folder)")
    if real == os.path.realpath(Path(real).anchor or "/") or real == os.path.realpath(Path.home()):
        raise SafetyLimitError(f"{target}: refusing to replace the root or home folder")
    if Path(real, ".git").exists():
        raise SafetyLimitError(f"{target}: is a repository root; refusing to replace it (name a sub-folder)")
    for item in inputs:
        given = os.path.realpath(item)
        if given == real or given.startswith(real.rstrip("/") + "/"):
            raise SafetyLimitError(
                f"{target}: holds the input {item}; refusing to replace it (name a folder outside the inputs)"
            )


def _claim(
    target: Path, owned: Callable[[PurePosixPath], bool] | None
) -> tuple[set[PurePosixPath], list[PurePosixPath]]:
    """(files releasekit wrote, files to keep) in an existing ``target``; refuses a folder not its own."""
    listed = _marker_files(target)
    existing = _existing_files(target)
    if listed is None:
        tops = sorted({p.parts[0] for p in existing if not p.parts[0].startswith(".")})
        if tops and (owned is None or not any(owned(PurePosixPath(top)) for top in tops)):
            raise SafetyLimitError(
                f"{target}: holds files releasekit did not write (such as {tops[0]!r}) and no "
                f"{MARKER} marker; refusing to replace it (name an empty or new folder)"
            )
        listed = set()
    mine = {p for p in existing if p in listed or (owned is not None and owned(p))}
    return mine, [p for p in existing if p not in mine]


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
    """Swap folders ``a`` and ``b`` in one step (Linux ``renameat2``); ``False`` where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only a tree swap needs it (5 ms to import)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap_in(staging: Path, target: Path) -> None:
    """Put ``staging`` at ``target``; the previous tree (if any) is removed afterwards."""
    if not target.exists():
        staging.rename(target)
        return
    if _exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old tree
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.{_OLD}.", dir=target.parent))
    old.rmdir()
    target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def check_output_target(
    target: Path, *, owned: Callable[[PurePosixPath], bool] | None = None, inputs: Sequence[Path] = ()
) -> None:
    """Refuse ``target`` as :func:`write_tree_atomic` would, before any work (and before any lock file).

    Raises:
        SafetyLimitError: the current folder, a repository root, a folder holding an input, something
            that is not a folder, or a folder of files releasekit did not write.
    """
    target = Path(os.path.normpath(target.absolute()))
    _refuse_target(target, inputs)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise SafetyLimitError(f"{target}: is not a folder; refusing to replace it")
    if target.is_dir():
        _claim(target, owned)


def write_tree_atomic(
    target: Path,
    files: Mapping[PurePosixPath, bytes],
    *,
    owned: Callable[[PurePosixPath], bool] | None = None,
    inputs: Sequence[Path] = (),
    marker: bool = True,
    lock: bool = True,
) -> None:
    """Replace the generated files of folder ``target`` with exactly ``files`` (relative POSIX paths -> bytes).

    Args:
        target: the generated folder.
        files: its new generated files.
        owned: the caller's layout (for a folder written before the marker existed): whether a path (a
            top-level entry, or a file) is one releasekit generates there.
        inputs: the command's input folders, which ``target`` may not contain.
        marker: whether to leave :data:`MARKER` (a bundle folder, whose every file is part of the bundle,
            goes without: ``owned`` alone says what is releasekit's there).
        lock: whether to take :func:`output_lock` (a caller writing many folders holds its own).

    Raises:
        SafetyLimitError: ``target`` is the current folder, a repository root, holds an input, or holds
            files releasekit did not write; or a path leaves the folder.
        InputError: another releasekit run is writing ``target``.
    """
    target = Path(os.path.normpath(target.absolute()))
    for rel in files:
        _safe_relative(rel)
    check_output_target(target, owned=owned, inputs=inputs)
    with output_lock(target) if lock else contextlib.nullcontext():
        _clean_leftovers(target)
        keep: list[PurePosixPath] = []
        if target.is_dir():
            _mine, keep = _claim(target, owned)
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.{_NEW}.", dir=target.parent))
        try:
            for rel, data in sorted(files.items()):
                dest = staging / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
            for rel in keep:
                if rel in files:
                    continue  # a file releasekit generates now takes the place of the one kept
                source, dest = target / rel, staging / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                if source.is_symlink():
                    dest.symlink_to(source.readlink())
                else:
                    try:
                        os.link(source, dest)  # the same file: nothing copied, nothing lost
                    except OSError:
                        shutil.copy2(source, dest)
            if marker:
                listing = "".join(f"{rel}\n" for rel in sorted(str(r) for r in files))
                (staging / MARKER).write_text(_MARKER_HEAD + listing, encoding="utf-8")
            staging.chmod(0o755)
            _swap_in(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
