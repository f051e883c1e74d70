"""The one input policy every reader follows: what a file may be, how big, how deep, how it is read.

Adapter module (reads files; imports nothing from rules, plan or jobs). Every reader goes through it, so
a hostile file gets the same answer everywhere, a :class:`~releasekit.errors.ReleasekitError` whose one
line starts with ``file`` or ``file:line`` (exit 2):

- **regular files only**: a FIFO, device or socket is refused from ``lstat`` before anything opens it,
  and again by ``fstat`` on the non-blocking descriptor (a swap in between cannot make a read hang);
- **symlinks stay inside the input root** (:func:`check_regular`), or are refused where links are not
  allowed at all (templates);
- **one size limit** (:data:`MAX_FILE_BYTES`), read with at most one byte more;
- **a nesting-depth limit** (:data:`MAX_DEPTH`) checked on the bytes before any recursive parser sees
  them (:func:`check_nesting`), and **characters YAML forbids** found before a parser that would
  silently stop at them (:func:`forbidden_character`);
- **folder walks** stop at :data:`MAX_WALK_DEPTH` folders deep.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from releasekit.errors import InputError, SafetyLimitError
from releasekit.model import jsontext

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_WALK_DEPTH",
    "check_nesting",
    "check_regular",
    "contained",
    "forbidden_character",
    "inside",
    "iter_input",
    "nesting_depth",
    "read_input",
    "read_input_text",
    "screen_yaml",
    "too_big",
    "walk_files",
]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest single input file (the catalog loader's limit; ``--max-file-size`` raises it there)."""

MAX_DEPTH = jsontext.MAX_DEPTH
"""Deepest nesting of mappings and sequences accepted in any YAML or JSON input (a CRD schema nests about 40)."""

MAX_WALK_DEPTH = 64
"""Deepest folder nesting any input walk follows."""


def inside(path: str, root_real: str) -> bool:
    """Whether resolved ``path`` is ``root_real`` or below it (both resolved)."""
    return path == root_real or path.startswith(root_real.rstrip("/") + "/")


def contained(path: Path, folder: Path, what: str) -> Path:
    """``path`` (a name derived from a ref, pin, line or version) when it stays inside ``folder``.

    Raises:
        SafetyLimitError: the name would leave ``folder``.
    """
    if not inside(os.path.realpath(path), os.path.realpath(folder)):
        raise SafetyLimitError(f"{path}: {what} leaves {folder}; refusing to write it")
    return path


def check_regular(
    path: str, lst: os.stat_result, root_real: str | None, *, links: bool = True, what: str = "the input"
) -> os.stat_result:
    """Refuse anything but a regular file at ``path`` (``lst``: its lstat) and return its stat.

    A symlink is followed only when ``links`` is true and it stays inside ``root_real`` (any root when
    ``root_real`` is ``None``).

    Raises:
        InputError: a directory, FIFO, socket, device, or a dangling symlink.
        SafetyLimitError: a symlink that leaves ``root_real``, or any symlink when ``links`` is false.
    """
    st = lst
    if stat.S_ISLNK(lst.st_mode):
        target = os.path.realpath(path)
        if not links:
            raise SafetyLimitError(f"{path}: is a symbolic link (to {target}); {what} may not contain links")
        if root_real is not None and not inside(target, root_real):
            raise SafetyLimitError(
                f"{path}: symlink points outside {what} (to {target}); refusing to follow it"
            )
        try:
            st = Path(path).stat()
        except OSError:
            raise InputError(f"{path}: dangling symlink (target {target} does not exist)") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(
            f"{path}: expected a file but found a directory (symlinked folders are not followed)"
        )
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{path}: not a regular file (FIFO, socket or device); refusing to open it")
    return st


def read_input(path: Path | str, **options: Any) -> bytes:
    """The bytes of one input file: :func:`iter_input`'s chunks joined (``options`` as it takes them)."""
    return b"".join(iter_input(path, **options))


def iter_input(
    path: Path | str,
    *,
    root: Path | str | None = None,
    display: str | None = None,
    links: bool = True,
    max_bytes: int | None = MAX_FILE_BYTES,
    what: str = "the input",
    chunk: int = 1 << 20,
) -> Iterator[bytes]:
    """The bytes of one input file in chunks, under the policy in the module docstring.

    Args:
        path: the file.
        root: the input root a symlink must stay inside (``None``: the file's own folder).
        display: how messages name the file (default: ``path`` as given).
        links: whether symlinks (inside ``root``) are followed at all.
        max_bytes: the size limit (``None``: any size, for a caller that streams the file).
        what: how messages name the input root ("the catalog", "the templates folder").
        chunk: the most bytes one chunk holds.

    Raises:
        InputError: the file is missing, not a regular file, or cannot be read.
        SafetyLimitError: a symlink leaving ``root`` (or any, without ``links``), or a file over the limit.
    """
    shown = display if display is not None else str(path)
    try:
        lst = os.lstat(path)
    except OSError as exc:
        raise InputError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    root_real = os.path.realpath(root if root is not None else Path(path).absolute().parent)
    try:
        st = check_regular(str(path), lst, root_real, links=links, what=what)
    except (InputError, SafetyLimitError) as exc:
        raise type(exc)(str(exc).replace(str(path), shown, 1)) from None
    if max_bytes is not None and st.st_size > max_bytes:
        raise too_big(shown, st.st_size, max_bytes)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if links else os.O_NOFOLLOW))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SafetyLimitError(f"{shown}: is a symbolic link; {what} may not contain links") from None
        raise InputError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped for a FIFO or device after the check
            raise InputError(f"{shown}: not a regular file (FIFO, socket or device); refusing to read it")
        size = 0
        while True:
            want = chunk if max_bytes is None else min(chunk, max_bytes + 1 - size)
            try:
                data = os.read(fd, want)
            except OSError as exc:
                raise InputError(f"{shown}: cannot read: {exc.strerror or exc}") from None
            if not data:
                return
            size += len(data)
            if max_bytes is not None and size > max_bytes:
                raise too_big(shown, size, max_bytes)
            yield data
    finally:
        os.close(fd)


def too_big(shown: str, size: int, limit: int) -> SafetyLimitError:
    """The one refusal of a file of ``size`` bytes over ``limit``, whoever measured it."""
    return SafetyLimitError(f"{shown}: {size:,} bytes is over the {limit:,}-byte limit per file")


def read_input_text(path: Path | str, **options: Any) -> str:
    """:func:`read_input`, decoded as UTF-8 (a byte order mark is dropped).

    Raises:
        InputError: as :func:`read_input`, or the bytes are not UTF-8 (naming the line).
    """
    data = read_input(path, **options)
    shown = str(options.get("display") or path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{shown}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


# ------------------------------------------------------------------------------------ characters

# What YAML allows (YAML 1.1/1.2 c-printable, as libyaml, PyYAML and go-yaml check it): tab, LF, CR,
# printable ASCII, NEL, and the rest of Unicode but surrogates, U+FFFE and U+FFFF.
_ASCII_ALLOWED = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x7F), *range(0x80, 0x100)])
_UTF8_FORBIDDEN = re.compile(rb"\xc2[\x80-\x84\x86-\x9f]|\xef\xbf[\xbe\xbf]")
"""C1 controls but NEL (U+0080..U+009F), U+FFFE and U+FFFF in UTF-8: the reference for :func:`_utf8_forbidden`."""
_C1_CONTROL = re.compile(rb"\xc2[\x80-\x84\x86-\x9f]")
_NONCHARACTER = re.compile(rb"\xef\xbf[\xbe\xbf]")
_CANDIDATES = 64


def _first_after_lead(data: bytes, lead: bytes, pattern: re.Pattern[bytes], end: int) -> int:
    """Offset of the first match of ``pattern`` (``lead`` and its continuation bytes) before ``end``, or -1.

    ``re`` tries such a pattern at every byte (about 90 times slower here than ``bytes.find``, which skips
    to each lead byte); past :data:`_CANDIDATES` near misses (0xC2 also starts a no-break space) the
    pattern searches the rest.
    """
    at = data.find(lead, 0, end)
    for _ in range(_CANDIDATES):
        if at < 0 or pattern.match(data, at, end):
            return at
        at = data.find(lead, at + 1, end)
    found = pattern.search(data, at, end)
    return found.start() if found else -1


def _utf8_forbidden(data: bytes) -> int:
    """Offset of the first match of ``_UTF8_FORBIDDEN`` in ``data``, or -1."""
    first = _first_after_lead(data, b"\xef", _NONCHARACTER, len(data))
    control = _first_after_lead(data, b"\xc2", _C1_CONTROL, first if first >= 0 else len(data))
    return control if control >= 0 else first


def forbidden_character(data: bytes, controls: bytes | None = None) -> tuple[int, int] | None:
    """``(line, code point)`` of the first character YAML forbids in UTF-8 ``data``, else ``None``.

    NUL is the one that matters most: yaml-rs stops reading at it and drops the rest of the file.
    ``controls``: the forbidden ASCII bytes ``data`` holds, in any order (found here when not given).
    """
    if controls is None:
        controls = data.translate(None, _ASCII_ALLOWED)
    offset = min(data.index(bytes([c])) for c in set(controls)) if controls else -1
    if not data.isascii():
        found = _utf8_forbidden(data)
        if found >= 0 and (offset < 0 or found < offset):
            offset = found
    if offset < 0:
        return None
    code = data[offset:].decode("utf-8", errors="replace")[0]
    return data.count(b"\n", 0, offset) + 1, ord(code)


# ------------------------------------------------------------------------------------ nesting

_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


def _bracket_depth_bound(data: bytes) -> int:
    """An upper bound of the flow/JSON bracket nesting of ``data`` (exact when its brackets balance).

    Any opening bracket closed by any closing one (``[}`` too) counts as a pair, so one kind is enough:
    each pass removes the innermost pairs with ``bytes.replace``; what no pass removes is unbalanced.
    """
    brackets = data.translate(_ONE_KIND, _NOT_BRACKETS)  # one pass over the bytes
    count = brackets.count(b"[")
    if count <= MAX_DEPTH // 2:
        return count
    passes = 0
    while brackets and passes <= MAX_DEPTH:
        fewer = brackets.replace(b"[]", b"")
        if len(fewer) == len(brackets):
            break
        brackets = fewer
        passes += 1
    return passes + len(brackets)


_INDENT_AS_SPACE = bytes.maketrans(b"\t?:-", b"    ")


def _long_indent(data: bytes, columns: int) -> bool:
    """Whether some line starts with at least ``columns`` indentation or block indicator characters."""
    if data[:columns].translate(_INDENT_AS_SPACE) == b" " * columns:  # the first line
        return True
    # a newline first: the literal the search skips to (an alternative such as ``\A|\n`` would make it
    # try every offset); ``re`` keeps the compiled pattern
    return re.search(rb"\n[ \t?:-]{%d}" % columns, data) is not None


def nesting_depth(data: bytes, *, yaml: bool) -> tuple[int, int] | None:
    """``(line, depth)`` where ``data`` first nests deeper than :data:`MAX_DEPTH`, else ``None``.

    A cheap bound (brackets, and the indentation a block collection needs: every block level starts at
    least one column further in or after one more ``- ``/``? `` indicator) clears ordinary files. Only a
    file it cannot clear is measured exactly: JSON by its brackets outside strings, YAML by PyYAML's event
    stream (libyaml's parser keeps its own stack, no recursion).
    """
    if not _may_nest_deep(data, data, yaml=yaml):
        return None
    if not yaml:
        if _bracket_depth_bound(_JSON_STRING.sub(b'""', data)) <= MAX_DEPTH:  # brackets in strings only
            return None
        return jsontext.too_deep_at(data.decode("latin-1"), MAX_DEPTH)  # a file this deep is hostile
    return _yaml_event_depth(data)


def _may_nest_deep(data: bytes, brackets: bytes, *, yaml: bool) -> bool:
    """Whether the cheap bounds allow nesting deeper than half the limit (``brackets``: ``data`` or its brackets)."""
    return _bracket_depth_bound(brackets) > MAX_DEPTH // 2 or (yaml and _long_indent(data, MAX_DEPTH // 4))


_SCREEN_DELETE = bytes(b for b in _ASCII_ALLOWED if b not in b"[]{}")


def screen_yaml(data: bytes, display: str) -> tuple[int, int] | None:
    """:func:`check_nesting`, then :func:`forbidden_character`'s answer, for YAML ``data`` in one pass.

    One ``translate`` keeps only brackets and forbidden ASCII (a short string); only a file it does not
    clear is measured exactly.

    Raises:
        SafetyLimitError: as :func:`check_nesting`.
    """
    kept = data.translate(None, _SCREEN_DELETE)
    if _may_nest_deep(data, kept, yaml=True):
        check_nesting(data, display, yaml=True)
    return forbidden_character(data, kept.translate(None, b"[]{}"))


def _yaml_event_depth(data: bytes) -> tuple[int, int] | None:
    import yaml as pyyaml

    loader: type = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)
    depth = 0
    try:
        for event in pyyaml.parse(data, Loader=loader):
            if isinstance(event, pyyaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return (event.start_mark.line + 1 if event.start_mark else 1), depth
            elif isinstance(event, pyyaml.CollectionEndEvent):
                depth -= 1
    except pyyaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if "nesting depth" in str(exc.problem or ""):  # libyaml's own limit (1,000) is deeper than ours
            return (mark.line + 1 if mark else 1), MAX_DEPTH + 1
        return None  # not YAML: the parser that runs next reports it
    except pyyaml.YAMLError:
        return None
    return None


def check_nesting(data: bytes, display: str, *, yaml: bool) -> None:
    """Refuse ``data`` when it nests deeper than :data:`MAX_DEPTH` (see :func:`nesting_depth`).

    Raises:
        SafetyLimitError: ``display:line: nested deeper than N levels``.
    """
    found = nesting_depth(data, yaml=yaml)
    if found is not None:
        raise SafetyLimitError(
            f"{display}:{found[0]}: nested deeper than {MAX_DEPTH} levels; refusing to parse it"
        )


# ------------------------------------------------------------------------------------ walking


def walk_files(
    root: Path,
    *,
    links: bool = True,
    what: str = "the input",
    skip_hidden: bool = False,
) -> list[Path]:
    """Every regular file under ``root`` in sorted order, under the policy.

    Folders are never followed through a symlink; a symlinked file must stay inside ``root``.

    Raises:
        InputError: ``root`` is not a folder, or an entry is a FIFO, socket or device.
        SafetyLimitError: a symlink leaving ``root`` (or any, without ``links``), or folders nested deeper
            than :data:`MAX_WALK_DEPTH`.
    """
    if not root.is_dir():
        raise InputError(f"{root}: not a folder")
    root_real = os.path.realpath(root)
    found: list[Path] = []
    pending: list[tuple[Path, int]] = [(root, 0)]
    while pending:
        folder, depth = pending.pop()
        if depth > MAX_WALK_DEPTH:
            raise SafetyLimitError(
                f"{folder}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them"
            )
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            raise InputError(f"{folder}: cannot list folder: {exc.strerror or exc}") from None
        folders: list[Path] = []
        for entry in entries:
            if skip_hidden and entry.name.startswith("."):
                continue
            path = folder / entry.name
            lst = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(lst.st_mode):
                folders.append(path)
                continue
            linked_folder = stat.S_ISLNK(lst.st_mode) and links and path.is_dir()
            if linked_folder and inside(os.path.realpath(path), root_real):
                continue  # its files are found through the folder; one leaving the root is refused below
            check_regular(str(path), lst, root_real, links=links, what=what)
            found.append(path)
        pending.extend((child, depth + 1) for child in reversed(folders))
    return sorted(found)
