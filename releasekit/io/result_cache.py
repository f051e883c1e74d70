"""Remembered results of slow, pure steps, keyed by everything they read (a content-addressed cache).

Adapter module. Rendering a bundle template and parsing the result (Jinja2's import and compilation, the
rendering, PyYAML) is the slowest part of ``releasekit build``, and its result depends only on the
template folder's files, the values passed in, and the code that renders. A caller names all of that in
the key (:func:`digest`); a later run with the same key reads the stored value instead. Same inputs, same
value: the output of a run is the same bytes whether a value was remembered or computed.

- Folder: ``$RELEASEKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/releasekit/results`` (``~/.cache`` by default);
  ``RELEASEKIT_NO_CACHE=1`` turns remembering off. The folder must belong to the user and be writable by
  nobody else (releasekit makes it ``0700``); otherwise nothing is read or stored there.
- Entries are MessagePack (decoding data cannot run code, unlike pickle or marshal), at most
  :data:`MAX_ENTRY_BYTES`, written atomically (a temporary file, then a rename). A value is stored only
  when it reads back exactly, type for type and in its dict order (plain data: str, int, float, bool,
  None, list, dict).
- Remembering never fails a run: an unreadable, corrupt or missing entry is a miss, and a folder that
  cannot be written is simply not written.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["MAX_ENTRY_BYTES", "MISS", "ResultCache", "canonical", "code_fingerprint", "digest", "file_digest"]

MAX_ENTRY_BYTES = 8 * 1024 * 1024
"""Largest value remembered (a rendered CSV is tens of kilobytes)."""

MISS: Any = object()
"""What :meth:`ResultCache.get` returns for a value it does not have."""


def digest(*parts: bytes) -> str:
    """A key: the SHA-256 of ``parts``, each length-prefixed so that no two lists of parts collide."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def file_digest(path: str | None) -> bytes:
    """The SHA-256 of a source file (a module of the code that computes a value), or ``b""``."""
    if not path:
        return b""
    try:
        return hashlib.sha256(Path(path).read_bytes()).digest()
    except OSError:
        return b""


@functools.cache
def code_fingerprint(label: str, *sources: str | None) -> bytes:
    """A key part naming the code that computes a value: ``label``, Python's version and the SHA-256 of each
    source file (releasekit's modules, a library's ``__init__`` holding its version); once per process."""
    return digest(label.encode(), sys.version.encode(), *(file_digest(source) for source in sources)).encode()


class _NotPlain(Exception):
    """The value holds something :func:`canonical` does not encode."""


def canonical(value: Any) -> bytes | None:
    """Bytes that identify plain ``value`` exactly (types, dict order), or ``None`` for anything else.

    Unlike JSON it tells a tuple from a list and ``1`` from ``1.0`` and ``True``, which a template can
    render differently.
    """
    out: list[str] = []
    try:
        _encode(value, out, 0)
    except (_NotPlain, RecursionError):
        return None
    return "".join(out).encode("utf-8", "surrogatepass")


def _encode(value: Any, out: list[str], depth: int) -> None:
    if depth > 200:
        raise _NotPlain
    kind = type(value)
    if kind is str:
        out.append(f"s{len(value)}:{value}")
    elif kind is bool or value is None:
        out.append(f"c{value!r};")
    elif kind is int:
        out.append(f"i{value};")
    elif kind is float:
        out.append(f"f{value!r};")
    elif kind is list or kind is tuple:
        out.append(f"{'l' if kind is list else 't'}{len(value)}[")
        for item in value:
            _encode(item, out, depth + 1)
        out.append("]")
    elif kind is dict:
        out.append(f"d{len(value)}{{")
        for key, item in value.items():
            _encode(key, out, depth + 1)
            _encode(item, out, depth + 1)
        out.append("}")
    else:
        raise _NotPlain


def _reads_back(value: Any, decoded: Any) -> bool:
    """True when ``decoded`` is ``value`` type for type: their marshal forms (version 0: no sharing or
    interning marks) are equal. Marshal refuses subclasses (an enum member, a str subclass) and writes a
    tuple, a list, ``True``, ``1`` and ``1.0`` differently, and a dict in its order. (:func:`canonical`
    cannot serve here: it walks in Python, and stored values are large; marshal cannot serve as
    :func:`canonical`: it accepts sets, whose order changes from process to process.)"""
    try:
        return marshal.dumps(value, 0) == marshal.dumps(decoded, 0)
    except ValueError:
        return False


def default_folder() -> Path | None:
    """The cache folder the environment names, or ``None`` when remembering is turned off."""
    if os.environ.get("RELEASEKIT_NO_CACHE", "") not in ("", "0"):
        return None
    named = os.environ.get("RELEASEKIT_CACHE_DIR")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "releasekit" / "results"


class ResultCache:
    """Values by (kind, key) in one folder; see the module docstring for the rules."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder if folder is not None and _usable(folder) else None
        self._kinds: set[str] = set()

    @classmethod
    def default(cls) -> ResultCache:
        """The cache in :func:`default_folder` (disabled when turned off or not safe to use).

        One per process and folder: the folder is checked once.
        """
        return _default(default_folder())

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def _path(self, kind: str, key: str) -> Path | None:
        if self.folder is None or not kind.isidentifier() or len(key) != 64 or not key.isalnum():
            return None
        return self.folder / kind / f"{key}.msgpack"

    def get(self, kind: str, key: str) -> Any:
        """The value stored under ``key``, or :data:`MISS`."""
        path = self._path(kind, key)
        if path is None:
            return MISS
        import msgspec

        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return MISS
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
                return MISS
            with os.fdopen(fd, "rb", closefd=False) as handle:
                raw = handle.read(MAX_ENTRY_BYTES + 1)
            return msgspec.msgpack.decode(raw)
        except (OSError, ValueError, msgspec.DecodeError):
            return MISS
        finally:
            os.close(fd)

    def remember(
        self,
        kind: str,
        key: str | None,
        compute: Callable[[], Any],
        accept: Callable[[Any], bool] = lambda _value: True,
    ) -> Any:
        """The value stored under ``key`` (when ``accept`` takes it), else ``compute()``, then stored.

        ``key`` None computes without remembering. Errors ``compute`` raises are raised, never stored.
        """
        if key is not None:
            stored = self.get(kind, key)
            if stored is not MISS and accept(stored):
                return stored
        value = compute()
        if key is not None:
            self.put(kind, key, value)
        return value

    def put(self, kind: str, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` when it reads back exactly; silently nothing otherwise."""
        path = self._path(kind, key)
        if path is None:
            return
        import msgspec

        from releasekit.io.atomic import write_bytes_atomic  # only a store writes (tempfile, shutil)

        try:
            raw = msgspec.msgpack.encode(value)
            if len(raw) > MAX_ENTRY_BYTES or not _reads_back(value, msgspec.msgpack.decode(raw)):
                return
            if kind not in self._kinds:
                path.parent.mkdir(mode=0o700, exist_ok=True)
                self._kinds.add(kind)
            write_bytes_atomic(path, raw, mode=0o600)
        except (OSError, TypeError, ValueError, OverflowError, msgspec.EncodeError, RecursionError):
            pass


@functools.cache
def _default(folder: Path | None) -> ResultCache:
    return ResultCache(folder)


def _usable(folder: Path) -> bool:
    """Make ``folder`` (0700) if it is missing; True when it is the user's own and nobody else may write it."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    if sys.platform != "win32" and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        return False
    return True
