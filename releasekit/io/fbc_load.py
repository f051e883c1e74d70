"""Load a file-based catalog directory the way ``opm`` does, but report every problem.

Adapter module. Rules, as opm's ``declcfg.LoadFS`` applies them:

- every regular file under the root is parsed (lexical order) unless an ``.indexignore`` file (gitignore
  syntax, at any level) excludes it; ``.indexignore`` files themselves are skipped;
- a file whose first non-space byte is ``{`` is a stream of JSON objects, anything else is multi-document
  YAML; only a zero-byte file yields nothing (a blank or comment-only document is an object without schema);
- ``schema``/``package``/``name`` are matched case-insensitively, and top-level keys that fold to the same
  value are rejected; other schemas are kept untouched; ``olm.bundle.object`` payloads are decoded.

One loader per format, files read one at a time and let go once parsed. JSON: the standard library's
decoder, refusing duplicate keys and numbers opm refuses; ``raw_decode`` gives each object's offset, so its
line is a count of newlines. YAML: one scan of the file's distinct lines, before any parsing
(:func:`_readers`), decides for each document whether yaml-rs (fast, YAML 1.2) may read it or PyYAML
(:mod:`releasekit.io.yamlio`, the YAML 1.1 reading opm's go-yaml shares) must.

Unlike opm, loading does not stop at the first bad file: content problems become findings (``RK-FBC-001``
… ``RK-FBC-008``) with file and line, and the other files are still read. What cannot be read at all, or
is refused by a safety limit, raises :class:`~releasekit.errors.InputError` /
:class:`~releasekit.errors.SafetyLimitError` (exit 2): a missing root, a dangling symlink, a FIFO or other
special file (refused from ``lstat``/``stat`` alone, never opened), a symlink that leaves the catalog, a
file over :attr:`LoadLimits.max_file_bytes`, or YAML whose aliases expand too far.

Load-phase rule ids (never renumbered):

=========== =====================================================================
RK-FBC-001  file is not valid YAML or JSON
RK-FBC-002  a document is not an object (opm: ``cannot unmarshal array ...``)
RK-FBC-003  duplicate keys (case-folded at the top level, as opm; exact anywhere)
RK-FBC-004  ``schema``/``package``/``name`` is not a string
RK-FBC-005  object without ``schema`` (opm: ``is missing root schema field``)
RK-FBC-006  file is not valid UTF-8
RK-FBC-007  an ``olm.package``/``olm.channel``/``olm.bundle``/``olm.deprecations`` field has the wrong type
RK-FBC-008  an ``olm.bundle.object`` payload cannot be decoded
=========== =====================================================================
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import gc
import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml_rs

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.inputs import (
    MAX_DEPTH,
    MAX_WALK_DEPTH,
    check_nesting,
    check_regular,
    nesting_depth,
    screen_yaml,
)
from releasekit.model.fbc import (
    JSON_KINDS,
    MISSING,
    PROP_BUNDLE_OBJECT,
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    ChannelEntry,
    DeclarativeConfig,
    Deprecation,
    DeprecationEntry,
    Icon,
    Meta,
    Package,
    Property,
    RelatedImage,
    json_kind,
)
from releasekit.model.finding import Finding, Location, Severity

if TYPE_CHECKING:
    import pathspec

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "LOAD_RULES",
    "LoadLimits",
    "LoadResult",
    "decode_metas",
    "load_and_check",
    "load_catalog",
    "load_catalog_text",
]

_R = TypeVar("_R")

DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest single catalog file read (64 MiB; the largest real one seen is 4 MiB). ``--max-file-size`` raises it."""

LOAD_RULES = tuple(f"RK-FBC-{n:03d}" for n in range(1, 9))
"""The loader's rule ids (RK-FBC-001 … 008; see the module docstring)."""

DEFAULT_MAX_ALIAS_EVENTS = 1_000_000
"""Most YAML events that alias replay may produce in one document."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadLimits:
    """Safety limits for loading untrusted catalogs."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_alias_events: int = DEFAULT_MAX_ALIAS_EVENTS


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadResult:
    """A loaded catalog, the load-phase findings, and the files that were read."""

    config: DeclarativeConfig
    findings: tuple[Finding, ...] = ()
    files: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------- walking


def _indexignore_spec(path: str) -> pathspec.GitIgnoreSpec:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read .indexignore: {exc}") from None
    import pathspec  # only catalogs with an .indexignore pay for importing it

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ignored(specs: Sequence[tuple[str, pathspec.GitIgnoreSpec]], rel: str, is_dir: bool) -> bool:
    """Gitignore semantics across levels: the deepest ``.indexignore`` with a matching pattern decides.

    ``rel`` is the entry's path below the root; each spec comes with the folder it sits in (``""`` for
    the root, else ending in ``/``).
    """
    verdict = False
    for base, spec in specs:
        if not rel.startswith(base):
            continue
        result = spec.check_file(rel[len(base) :] + ("/" if is_dir else ""))
        if result.include is not None:
            verdict = bool(result.include)
    return verdict


def _catalog_files(root: Path, limits: LoadLimits) -> list[str]:
    """Every file opm would parse, in opm's lexical order (plain strings and ``os.scandir``: fast).

    Raises:
        InputError: the root is missing or not a folder, or a file cannot be read.
        SafetyLimitError: a symlink leaves the root, or a file is larger than the limit.
    """
    try:
        root_st = root.stat()
    except OSError as exc:
        raise InputError(f"{root}: cannot read catalog: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(root_st.st_mode):
        raise InputError(f"{root}: is not a directory")
    root_real = os.path.realpath(root)
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    found: list[str] = []

    def walk(prefix: str, rel_dir: str) -> None:
        # prefix: the folder's path as shown, ending in "/" ("" for a root given as ".")
        if rel_dir.count("/") > MAX_WALK_DEPTH:
            raise SafetyLimitError(
                f"{prefix.rstrip('/')}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them"
            )
        try:
            with os.scandir(prefix or ".") as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            raise InputError(
                f"{prefix.rstrip('/') or '.'}: cannot list folder: {exc.strerror or exc}"
            ) from None
        if any(entry.name == ".indexignore" for entry in entries):
            specs.append((rel_dir, _indexignore_spec(prefix + ".indexignore")))
        for entry in entries:
            name = entry.name
            if name == ".indexignore":
                continue
            path = prefix + name
            rel = rel_dir + name
            try:
                lst = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
            if stat.S_ISDIR(lst.st_mode):
                if not _ignored(specs, rel, True):
                    walk(path + "/", rel + "/")
                continue
            if _ignored(specs, rel, False):
                continue
            st = check_regular(path, lst, root_real, what="the catalog")
            if st.st_size > limits.max_file_bytes:
                raise SafetyLimitError(
                    f"{path}: {st.st_size:,} bytes is over the {limits.max_file_bytes:,}-byte limit per file "
                    "(raise it with --max-file-size)"
                )
            found.append(path)
        if specs and specs[-1][0] == rel_dir:
            specs.pop()

    top = str(root)
    walk("" if top == "." else top if top.endswith("/") else top + "/", "")
    return found


# --------------------------------------------------------------------------------------------- parsing


@dataclass(frozen=True, slots=True)
class _Doc:
    value: Any
    line: int
    raw_empty: bool = False


class _DuplicateKeyError(ValueError):
    pass


def _pairs_no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(f"duplicate key {key!r}")
            seen.add(key)
    return result


class _GoNumberError(ValueError):
    """A number Go's encoding/json (opm's parser) refuses: NaN, Infinity, or one past float64's range."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


def _go_constant(name: str) -> Any:
    raise _GoNumberError(f"invalid character {name[0]!r} looking for beginning of value", name)


def _go_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _GoNumberError(f"json: cannot unmarshal number {text[:40]} into Go value of type float64", text)
    return value


def _go_int(text: str) -> int:
    if len(text) > 300 and float(text) in (float("inf"), float("-inf")):  # also below Python's digit limit
        raise _GoNumberError(
            f"json: cannot unmarshal number {text[:40]}... into Go value of type float64", text
        )
    return int(text)


_JSON = json.JSONDecoder(
    object_pairs_hook=_pairs_no_duplicates,
    parse_constant=_go_constant,
    parse_float=_go_float,
    parse_int=_go_int,
)
_WS = re.compile(r"[ \t\r\n]*")
_YAML_ERROR_LINE = re.compile(r"at line (\d+), column (\d+)")


def _json_docs(text: str, file: str, findings: list[Finding]) -> Iterator[_Doc]:
    """The objects of a JSON stream, each with its first line; stops at the first error, as opm."""
    index = _WS.match(text).end()  # type: ignore[union-attr]
    line = text.count("\n", 0, index) + 1
    while index < len(text):
        try:
            value, end = _JSON.raw_decode(text, index)
        except _DuplicateKeyError as exc:
            findings.append(_finding("RK-FBC-003", f"{exc} in JSON object", file, line, _HINT_DUPLICATE))
            return
        except _GoNumberError as exc:
            at = text.find(exc.text, index)
            hint = "JSON has no NaN or Infinity, and opm reads numbers as float64: write a finite number"
            line = text.count("\n", 0, at) + 1 if at >= 0 else line
            findings.append(_finding("RK-FBC-001", f"invalid JSON: {exc}", file, line, hint))
            return
        except json.JSONDecodeError as exc:
            hint = "fix the JSON syntax; a catalog file is a stream of JSON objects or multi-document YAML"
            message = f"invalid JSON: {exc.msg} at offset {exc.pos}"
            findings.append(_finding("RK-FBC-001", message, file, text.count("\n", 0, exc.pos) + 1, hint))
            return
        yield _Doc(value, line)
        next_index = _WS.match(text, end).end()  # type: ignore[union-attr]
        line += text.count("\n", index, next_index)
        index = next_index


def _next_marker(text: str, pos: int) -> int:
    found = text.find("\n---", pos)
    return found + 1 if found >= 0 else -1


def _yaml_chunks(text: str) -> Iterator[tuple[str, int]]:
    """Split YAML text into documents at ``---`` lines as the Kubernetes YAML reader does.

    A separator is a line starting with ``---`` whose rest is blank or a comment; ``--- {a: 1}`` keeps
    content on the marker line and stays part of the document.
    """
    start, start_line = 0, 1
    counted, counted_line = 0, 1  # newlines are counted once, front to back
    marker = 0 if text.startswith("---") else _next_marker(text, 0)
    while marker >= 0:
        eol = text.find("\n", marker + 3)
        if eol < 0:
            eol = len(text)
        rest = text[marker + 3 : eol].strip()
        if not rest or rest.startswith("#"):
            chunk = text[start:marker]
            if chunk:
                yield chunk, start_line
            start = eol + 1
            if start <= len(text):
                counted_line += text.count("\n", counted, start)
                counted = start
                start_line = counted_line
        marker = _next_marker(text, eol)
    chunk = text[start:]
    if chunk:
        yield chunk, start_line


def _first_content_line(chunk: str, line: int) -> int:
    """Line of the first line of ``chunk`` that is neither blank nor a comment (``line`` if none)."""
    first = chunk[:1]
    if first and not first.isspace() and first != "#":  # the usual case: content on the first line
        return line
    size = 512
    while True:
        complete = size >= len(chunk)
        lines = (chunk if complete else chunk[:size]).splitlines()
        if not complete:
            lines.pop()  # may be cut short
        for offset, raw in enumerate(lines):
            stripped = raw.strip()
            if stripped and not stripped.startswith("#"):
                return line + offset
        if complete:
            return line
        size *= 8


# ------------------------------------------------------------------- which reader takes a YAML document
#
# yaml-rs (YAML 1.2, fast) and PyYAML (YAML 1.1, the reading opm's go-yaml shares; about 6.6 MB/s) give the
# same values except where a document holds one of these, which the scan below looks for in its text before
# either parser sees it:
# - a plain scalar YAML 1.1 reads otherwise: yes/no/on/off (not y/n: both read a string), "=", "<<" (a merge key),
#   and every number but a plain decimal integer: a leading zero (0777, 0o17, 0x1F), an underscore
#   anywhere (1_000, _1, 1e_5), a colon (1:20, sexagesimal), a dot or an exponent (1.5, +.5, 1e5, 1e400),
#   .inf and .nan;
# - an explicit tag (!foo, !!binary), a collection as a mapping key (``? ``, ``[a]: b``, ``{a: 1}: b``), an
#   alias as a key (``*a : b``), a directive (%YAML), or a YAML 1.1 line break (NEL, LS, PS).
# The scan is conservative: the same text inside a quoted or block scalar, or in a comment, sends the
# document to PyYAML too, which costs time, never a different value. Every context it looks at is within a
# line (a plain scalar starts at the start of a line, after "- ", "? ", ": ", an anchor, or a flow
# indicator), so it runs once over each distinct line of a file.

_TOKEN_END = r"[ \t\r]*+(?:$|#|[,\]}]|:(?:[ \t\r]|$))"
_YAML11_TOKEN = (
    r"(?=[-+.0-9_YNOyno=<])"  # the first characters of the tokens below, a quick way out for the rest
    r"(?![-+]?(?:0|[1-9][0-9]*+)" + _TOKEN_END + ")"  # a decimal integer both read alike
    r"(?:[Yy]es|YES|[Nn]o|NO|[Oo]n|ON|[Oo]ff|OFF|=|<<"
    r"|[-+]?(?:\.(?i:inf(?:inity)?|nan)|0[xXoObB][0-9A-Fa-f_]*+"
    r"|(?=\.?[0-9_])(?:[0-9_]++(?::[0-9_]++)*+)?(?:\.[0-9_]*+)?(?:[eE][-+]?[0-9_]*+)?))" + _TOKEN_END
)
# what may come between a line's start and a token: block indicators, an anchor; after a key's colon, only an
# anchor (which keeps each scan linear: a run of ": : :" is gone through once, from the line's start)
_BEFORE_TOKEN = r"[ \t]*+(?:[-?:][ \t]++)*+(?:&[^ \t\r\n,\[\]{}]*+[ \t]++)?"
_AFTER_KEY = r"[ \t]*+(?:&[^ \t\r\n,\[\]{}]*+[ \t]++)?"
# a flow entry: such a token, or one yaml-rs reads otherwise in a flow collection (":x", a lone "-")
_FLOW_ENTRY = r"[ \t]*+(?:" + _YAML11_TOKEN + r"|:|-[ \t\r]*+(?:$|[,\]}]))"
# Each pattern starts with one literal character, which the regular expression engine skips to (one pattern
# with them all as alternatives is tried at every offset, about ten times slower); a pattern whose
# character the text does not hold is not run.
_YAML11_SCANS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (first, re.compile(re.escape(first) + rest, re.MULTILINE))
    for first, rest in (
        ("\n", r"(?:%|" + _BEFORE_TOKEN + _YAML11_TOKEN + ")"),  # a line's first token, or a directive
        ("\r", r"(?:%|" + _BEFORE_TOKEN + _YAML11_TOKEN + ")"),  # a line break too (lines are cut at "\n")
        # a value after its key, or a colon right before a flow indicator (yaml-rs: a key; YAML 1.1: refused)
        (":", r"(?:[,\]}]|(?:(?<=[\"']:)|(?=[ \t]))" + _AFTER_KEY + _YAML11_TOKEN + ")"),
        (",", _FLOW_ENTRY),  # flow collection entries
        ("[", _FLOW_ENTRY),
        ("{", _FLOW_ENTRY),
        ("!", r"(?<![^ \t\r\n\[\]{},:?-]!)"),  # an explicit tag: a '!' where a token starts
        ("\x85", ""),  # YAML 1.1 line breaks
        ("\u2028", ""),
        ("\u2029", ""),
    )
)
# A mapping key that may be a collection (yaml-rs makes a tuple or frozenset of it; YAML 1.1 refuses it):
# an explicit key, a flow collection or an alias before a colon. Such a document is read by yaml-rs and
# only if it has such a key is it refused, worded by PyYAML: Markdown's ``[link]: url`` in descriptions
# would otherwise send many documents to PyYAML.
_KEY_SCANS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (first, re.compile(re.escape(first) + rest, re.MULTILINE))
    for first, rest in (
        ("?", r"(?<![^ \t\r\n\[{,]\?)(?![^ \t\r\n])"),
        ("]", r"[ \t]*+:"),
        ("}", r"[ \t]*+:"),
        ("*", r"(?<![^ \t\r\n\[\]{},:?-]\*)[^ \t\r\n,\[\]{}*]+?[ \t]*:(?:[ \t\r]|$)"),
    )
)


_LONG_LINE = 2048
# a long line such as ``    data: <base64>``: a simple key, then one plain scalar to the end of the line
_SIMPLE_PAIR = re.compile(r"[ \t]*+(?:-[ \t]++)*+[A-Za-z_][A-Za-z0-9_./-]*+:[ \t]++(?=[A-Za-z0-9/+])")
_WHOLE_TOKEN = re.compile(_YAML11_TOKEN)
# what may end a plain scalar or start another token on a line (a "#" starts a comment only after a
# space), and the YAML 1.1 line breaks
_SPLITS_PLAIN = (" ", "\t", ",", "[", "]", "{", "}", "\r", "\x85", "\u2028", "\u2029")


@dataclass(frozen=True, slots=True)
class _Readers:
    """Which lines of a YAML text decide how its documents are read (see :func:`_readers`)."""

    pyyaml: frozenset[str]
    """Lines that send their document to PyYAML."""
    keys: frozenset[str]
    """Lines that may hold a collection as a key: yaml-rs reads their document and its keys are checked."""

    def choose(self, chunk: str) -> str:
        """``"pyyaml"``, ``"keys"`` (yaml-rs, keys checked) or ``"yaml-rs"`` for a document (whole lines)."""
        if not self.pyyaml and not self.keys:
            return "yaml-rs"
        lines = chunk.split("\n")
        if self.pyyaml and not self.pyyaml.isdisjoint(lines):
            return "pyyaml"
        if self.keys and not self.keys.isdisjoint(lines):
            return "keys"
        return "yaml-rs"


def _readers(text: str) -> _Readers:
    """One scan of YAML ``text``'s distinct lines (catalog lines repeat): which hold a construct above.

    A line over ``_LONG_LINE`` characters (an ``olm.bundle.object``'s base64) is looked at in place by
    :func:`_long_line_risky` instead of being copied and scanned.
    """
    if len(text) > _LONG_LINE // 8 * (text.count("\n") + 1):  # long lines: cut out only the short ones
        short, pyyaml = _short_lines_and_risky_long_ones(text)
    else:  # short lines, which repeat: cut them all, keep each once
        short = set(text.split("\n"))
        pyyaml = {line for line in short if len(line) > _LONG_LINE and _long_line_risky(line, 0, len(line))}
    joined = "\n" + "\n".join(line for line in short if len(line) <= _LONG_LINE)
    return _Readers(_lines_found(joined, _YAML11_SCANS) | pyyaml, _lines_found(joined, _KEY_SCANS))


def _short_lines_and_risky_long_ones(text: str) -> tuple[set[str], set[str]]:
    """The distinct lines of ``text`` up to ``_LONG_LINE`` characters, and its long lines that are risky.

    A long line is looked at where it is, never copied unless it is risky.
    """
    short: set[str] = set()
    risky: set[str] = set()
    start, size = 0, len(text)
    while start <= size:
        end = text.find("\n", start)
        if end < 0:
            end = size
        if end - start <= _LONG_LINE:
            short.add(text[start:end])
        elif _long_line_risky(text, start, end):
            risky.add(text[start:end])
        start = end + 1
    return short, risky


def _lines_found(joined: str, scans: tuple[tuple[str, re.Pattern[str]], ...]) -> frozenset[str]:
    """The lines of ``joined`` (each after a newline) in which one of ``scans`` finds something.

    After a find, a scan goes on from the end of that line: each line is searched once per scan.
    """
    found: set[str] = set()
    for first, scan in scans:
        if first not in joined:  # a search for one character is many times faster than the scan's
            continue
        pos = 0
        while (match := scan.search(joined, pos)) is not None:
            at = match.end() - 1  # the last character matched is on the line in question
            end = joined.find("\n", at)
            pos = len(joined) if end < 0 else end
            found.add(joined[joined.rfind("\n", 0, at) + 1 : pos])
    return frozenset(found)


def _long_line_risky(text: str, start: int, end: int) -> bool:
    """What the scans say of the long line ``text[start:end]``, by a shortcut for a key and one plain scalar."""
    pair = _SIMPLE_PAIR.match(text, start, end)
    if pair is None or any(text.find(mark, pair.end(), end) >= 0 for mark in _SPLITS_PLAIN):
        line = "\n" + text[start:end]
        return any(scan.search(line) for _, scan in (*_YAML11_SCANS, *_KEY_SCANS))
    # one plain scalar after the key: the key and the scalar are the only tokens
    head = "\n" + text[start : pair.end()]
    return (
        any(scan.search(head) for _, scan in _YAML11_SCANS)
        or _WHOLE_TOKEN.match(text, pair.end(), end) is not None
    )


def _has_collection_key(value: Any) -> bool:
    """Whether a value yaml-rs read has a collection (a tuple or frozenset) as a mapping key."""
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            if any(type(key) in (tuple, frozenset) for key in item):
                return True
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
    return False


def _yaml_docs(text: str, file: str, findings: list[Finding], limits: LoadLimits) -> Iterator[_Doc]:
    """The documents of YAML ``text`` as YAML 1.1 reads them, each parsed once by the reader chosen for it."""
    readers = _readers(text)
    any_doc = False
    for chunk, line in _yaml_chunks(text):
        any_doc = True
        reader = readers.choose(chunk)
        if reader == "pyyaml":
            value = _merged_document(chunk, file, line, findings, limits)
        else:
            value = _yaml_rs_value(chunk, file, line, findings, limits)
            if reader == "keys" and value is not _ABSENT and _has_collection_key(value):
                # YAML 1.1 refuses a collection as a key: PyYAML's error says where
                value = _merged_document(chunk, file, line, findings, limits)
        if value is not _ABSENT:
            yield _Doc(value, _first_content_line(chunk, line), raw_empty=value is None)
    if not any_doc:
        yield _Doc(None, 1, raw_empty=True)


def _yaml_rs_value(chunk: str, file: str, line: int, findings: list[Finding], limits: LoadLimits) -> Any:
    """yaml-rs's value of a document, or ``_ABSENT`` after a finding.

    Raises:
        SafetyLimitError: its aliases replay more than ``limits.max_alias_events`` events.
    """
    try:
        return yaml_rs.loads(
            chunk,
            parse_datetime=False,
            alias_limits=yaml_rs.AliasLimits(max_total_replayed_events=limits.max_alias_events),
        )
    except yaml_rs.YAMLDecodeError as exc:
        message = str(exc)
        if "alias" in message and "limit" in message:
            raise SafetyLimitError(
                f"{file}:{line}: YAML alias expansion over the limit ({message})"
            ) from None
        where = _YAML_ERROR_LINE.search(message)
        err_line = line + int(where.group(1)) - 1 if where else line
        detail = message.splitlines()[-1].strip() if "\n" in message else message
        rule, hint = "RK-FBC-001", _HINT_YAML
        if "duplicate" in message:
            rule, hint, detail = "RK-FBC-003", _HINT_DUPLICATE, message.splitlines()[0]
        findings.append(_finding(rule, f"invalid YAML: {detail}", file, err_line, hint))
        return _ABSENT


def _merged_document(chunk: str, file: str, line: int, findings: list[Finding], limits: LoadLimits) -> Any:
    """PyYAML's value of a document (YAML 1.1: merge keys, NEL/LS/PS breaks), or ``_ABSENT`` after a finding.

    A NaN or an infinity is a finding: opm turns YAML into JSON, which has none.
    """
    # PyYAML reads under 1 % of real catalogs' documents: it is imported (about 30 ms) only when needed
    from releasekit.io.yamlio import YamlContentError, load_yaml_documents

    try:
        docs = load_yaml_documents(chunk, track_paths=False, max_nodes=limits.max_alias_events, source=file)
    except YamlContentError as exc:
        err_line = line + (exc.line or 1) - 1
        if exc.message.startswith("duplicate key"):
            findings.append(_finding("RK-FBC-003", exc.message, file, err_line, _HINT_DUPLICATE))
        else:
            message = f"invalid YAML: {exc.message.removeprefix('invalid YAML: ')}"
            findings.append(_finding("RK-FBC-001", message, file, err_line, _HINT_YAML))
        return _ABSENT
    value = docs[0].data if docs else None
    if (bad := _non_finite(value)) is not None:
        hint = "opm turns YAML into JSON, which has no NaN or Infinity: write a finite number or a string"
        message = f"invalid YAML: json: unsupported value: {bad}"
        findings.append(_finding("RK-FBC-001", message, file, _first_content_line(chunk, line), hint))
        return _ABSENT
    return value


def _non_finite(value: Any) -> str | None:
    """``NaN``, ``+Inf`` or ``-Inf`` (Go's spelling) for the first non-finite float in ``value``, else ``None``."""
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is float and item != item:
            return "NaN"
        if type(item) is float and item in (float("inf"), float("-inf")):
            return "+Inf" if item > 0 else "-Inf"
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


_HINT_DUPLICATE = "remove the repeated key; opm matches schema, package and name case-insensitively"
_HINT_YAML = "fix the YAML syntax (documents are separated by '---' lines)"
_ABSENT: Any = object()


def _finding(rule: str, message: str, file: str, line: int | None, hint: str, path: str = "") -> Finding:
    return Finding(
        rule=rule,
        severity=Severity.ERROR,
        message=message,
        location=Location(file=file, line=line, path=path),
        hint=hint,
    )


def _go_value_text(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}{...}" if value else "map[string]interface {}{}"
    if isinstance(value, list):
        return "[]interface {}{...}"
    if isinstance(value, bool):
        return f"{str(value).lower()} (bool)"
    if isinstance(value, int | float):
        return f"{value} (float64)"
    return repr(value)


def _compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _meta_from_doc(doc: _Doc, file: str, findings: list[Finding]) -> Meta | None:
    """Decode one document into a Meta (opm's ``Meta.UnmarshalJSON``), or record why it cannot be."""
    value = doc.value

    def refuse(rule: str, message: str, hint: str, path: str = "") -> Meta | None:
        findings.append(_finding(rule, message, file, doc.line, hint, path))
        return None

    if doc.raw_empty:
        hint = "remove the empty document (a blank or comment-only YAML document, or a stray '---')"
        return refuse("RK-FBC-005", "object '' is missing root schema field", hint)
    if not isinstance(value, dict):
        message = f"json: cannot unmarshal {json_kind(value)} into Go value of type map[string]interface {{}}"
        return refuse("RK-FBC-002", message, "each catalog document must be an object with a schema field")
    if len({key.casefold() if type(key) is str else str(key).casefold() for key in value}) != len(value):
        _duplicate_folded_keys(value, file, doc.line, findings)
        return None
    picked: dict[str, str] = {}
    for wanted in ("schema", "package", "name"):
        key = _lookup_key(value, wanted)
        if key is None:
            continue
        field_value = value[key]
        if not isinstance(field_value, str):
            message = f'expected value for key "{wanted}" to be a string, got {_go_value_text(field_value)}'
            return refuse("RK-FBC-004", message, f'make "{wanted}" a string', path=f"$.{key}")
        picked[wanted] = field_value
    schema = picked.get("schema", "")
    if not schema:
        hint = "add a schema field (olm.package, olm.channel, olm.bundle or olm.deprecations)"
        return refuse("RK-FBC-005", f"object '{_compact_json(value)}' is missing root schema field", hint)
    return Meta(
        schema=schema,
        package=picked.get("package", ""),
        name=picked.get("name", ""),
        data=value,
        location=Location(file=file, line=doc.line),
    )


def _duplicate_folded_keys(value: Mapping[Any, Any], file: str, line: int, findings: list[Finding]) -> None:
    folded: dict[str, list[str]] = {}
    for key in value:
        folded.setdefault(str(key).casefold(), []).append(str(key))
    duplicates = {k: sorted(v) for k, v in folded.items() if len(v) > 1}
    text = ", ".join(f'duplicate keys for key "{k}": [{" ".join(v)}]' for k, v in sorted(duplicates.items()))
    findings.append(_finding("RK-FBC-003", text, file, line, _HINT_DUPLICATE))


def _lookup_key(obj: Mapping[str, Any], wanted: str) -> str | None:
    """Key of ``obj`` matching ``wanted`` as Go's encoding/json does: exact first, then case-folded."""
    if wanted in obj:
        return wanted
    folded = wanted.casefold()
    for key in obj:
        if isinstance(key, str) and key.casefold() == folded:
            return key
    return None


# ----------------------------------------------------------------------------------- typed decoding


class _TypeMismatch(ValueError):
    pass


def _get(obj: Mapping[str, Any], struct: str, name: str, kind: str, gotype: str) -> Any:
    """Field ``name`` of ``obj`` checked against JSON ``kind`` (Go's strict-typed unmarshal)."""
    value = obj.get(name, _ABSENT)
    if value is _ABSENT:
        key = _lookup_key(obj, name)
        if key is None:
            return None
        value = obj[key]
    if value is None:
        return None
    if JSON_KINDS.get(type(value)) != kind and json_kind(value) != kind:
        raise _TypeMismatch(
            f"json: cannot unmarshal {json_kind(value)} into Go struct field {struct}.{name} of type {gotype}"
        )
    return value


def _properties(obj: Mapping[str, Any], struct: str) -> tuple[Property, ...]:
    raw = _get(obj, struct, "properties", "array", "[]property.Property")
    out: list[Property] = []
    for item in raw or ():
        if type(item) is dict:
            type_ = item.get("type")
            if type(type_) is str and "value" in item:  # the usual shape, exact keys
                out.append(Property(type=type_, value=item["value"]))
                continue
        if item is None:
            out.append(Property(type="", value=MISSING))
            continue
        if not isinstance(item, dict):
            raise _TypeMismatch(
                f"json: cannot unmarshal {json_kind(item)} into Go struct field {struct}.properties "
                "of type property.Property"
            )
        type_ = _get(item, f"{struct}.properties", "type", "string", "string") or ""
        key = _lookup_key(item, "value")
        out.append(Property(type=type_, value=item[key] if key is not None else MISSING))
    return tuple(out)


def _struct_items(
    raw: list[Any] | None, field: str, gotype: str, *, null: bool = True, kind: type = dict
) -> Iterator[Any]:
    """The items of a Go array: of ``kind``, and ``None`` for ``null`` where ``null`` is taken.

    Anything else is Go's unmarshal error, naming the struct ``field`` and its element type ``gotype``.
    """
    for item in raw or ():
        if not isinstance(item, kind) and (item is not None or not null):
            raise _TypeMismatch(
                f"json: cannot unmarshal {json_kind(item)} into Go struct field {field} of type {gotype}"
            )
        yield item


def _str(obj: Mapping[str, Any], struct: str, name: str) -> str:
    return _get(obj, struct, name, "string", "string") or ""


def _decode_package(meta: Meta) -> Package:
    obj = meta.data
    icon_raw = _get(obj, "Package", "icon", "object", "declcfg.Icon")
    icon: Icon | None = None
    if icon_raw is not None:
        data = _str(icon_raw, "Package.icon", "base64data")
        try:
            _b64decode(data)
        except (binascii.Error, ValueError) as exc:
            raise _TypeMismatch(f"illegal base64 data in icon.base64data: {exc}") from None
        icon = Icon(base64data=data, mediatype=_str(icon_raw, "Package.icon", "mediatype"))
    return Package(
        name=_str(obj, "Package", "name"),
        default_channel=_str(obj, "Package", "defaultChannel"),
        icon=icon,
        description=_str(obj, "Package", "description"),
        properties=_properties(obj, "Package"),
        location=meta.location,
    )


def _decode_channel(meta: Meta) -> Channel:
    obj = meta.data
    raw_entries = _get(obj, "Channel", "entries", "array", "[]declcfg.ChannelEntry")
    entries = [
        ChannelEntry(name="") if item is None else _entry(item)
        for item in _struct_items(raw_entries, "Channel.entries", "declcfg.ChannelEntry")
    ]
    return Channel(
        name=_str(obj, "Channel", "name"),
        package=_str(obj, "Channel", "package"),
        entries=None if raw_entries is None else tuple(entries),
        properties=_properties(obj, "Channel"),
        location=meta.location,
    )


def _entry(item: dict[str, Any]) -> ChannelEntry:
    skips = _get(item, "Channel.entries", "skips", "array", "[]string")
    skips = tuple(s or "" for s in _struct_items(skips, "Channel.entries.skips", "string", kind=str))
    return ChannelEntry(
        name=_str(item, "Channel.entries", "name"),
        replaces=_str(item, "Channel.entries", "replaces"),
        skips=skips,
        skip_range=_str(item, "Channel.entries", "skipRange"),
    )


def _decode_bundle(meta: Meta) -> Bundle:
    obj = meta.data
    raw_related = _get(obj, "Bundle", "relatedImages", "array", "[]declcfg.RelatedImage")
    related = [
        RelatedImage()
        if item is None
        else RelatedImage(
            name=_str(item, "Bundle.relatedImages", "name"), image=_str(item, "Bundle.relatedImages", "image")
        )
        for item in _struct_items(raw_related, "Bundle.relatedImages", "declcfg.RelatedImage")
    ]
    return Bundle(
        name=_str(obj, "Bundle", "name"),
        package=_str(obj, "Bundle", "package"),
        image=_str(obj, "Bundle", "image"),
        properties=_properties(obj, "Bundle"),
        related_images=None if raw_related is None else tuple(related),
        location=meta.location,
    )


def _decode_deprecation(meta: Meta) -> Deprecation:
    obj = meta.data
    raw_entries = _get(obj, "Deprecation", "entries", "array", "[]declcfg.DeprecationEntry")
    entries = []
    for item in _struct_items(raw_entries, "Deprecation.entries", "declcfg.DeprecationEntry", null=False):
        ref = _get(item, "Deprecation.entries", "reference", "object", "declcfg.PackageScopedReference") or {}
        schema, name = (_str(ref, "Deprecation.entries.reference", key) for key in ("schema", "name"))
        message = _str(item, "Deprecation.entries", "message")
        entries.append(DeprecationEntry(schema=schema, name=name, message=message))
    return Deprecation(
        package=_str(obj, "Deprecation", "package"), entries=tuple(entries), location=meta.location
    )


def _b64decode(data: str) -> bytes:
    """Decode standard base64 as Go's encoding/json does for ``[]byte``: CR and LF are ignored."""
    return base64.b64decode(data.replace("\n", "").replace("\r", ""), validate=True)


def _decode_object(data: str, where: str = "olm.bundle.object") -> Any:
    """The manifest in an ``olm.bundle.object``'s base64 ``data``; ``where`` names it in a refusal.

    Raises:
        SafetyLimitError: the manifest nests deeper than :data:`MAX_DEPTH`, checked before any parser sees
            it (yaml-rs crashes on deep block nesting; the others recurse).
    """
    raw = _b64decode(data)
    text = raw.decode("utf-8")
    is_json = text.lstrip().startswith("{")
    if nesting_depth(raw, yaml=not is_json) is not None:
        raise SafetyLimitError(f"{where} is nested deeper than {MAX_DEPTH} levels; refusing to parse it")
    if is_json:
        return json.loads(text)
    return yaml_rs.loads(text, parse_datetime=False)


def _bundle_objects(bundle: Bundle) -> tuple[tuple[Any, ...], Mapping[str, Any] | None]:
    objects: list[Any] = []
    csv: Mapping[str, Any] | None = None
    for index, prop in enumerate(bundle.properties):
        if prop.type != PROP_BUNDLE_OBJECT:
            continue
        prefix = f'read bundle objects: package "{bundle.package}", bundle "{bundle.name}": '
        value = prop.value
        data = value.get("data") if isinstance(value, dict) else None
        if not isinstance(data, str):
            raise _BundleObjectError(
                f"{prefix}parse property at index {index} as bundle object: "
                f"json: cannot unmarshal {json_kind(value)} into Go value of type property.BundleObject"
            )
        try:
            obj = _decode_object(
                data,
                f"{bundle.location.file}:{bundle.location.line}: bundle {bundle.name!r}: the manifest of its "
                f"olm.bundle.object property at index {index}",
            )
        except SafetyLimitError:
            raise  # a ValueError too, but a refusal, not a finding
        except (binascii.Error, ValueError, UnicodeDecodeError, yaml_rs.YAMLDecodeError) as exc:
            raise _BundleObjectError(
                f"{prefix}convert bundle object property at index {index} to JSON: {exc}"
            ) from None
        objects.append(obj)
        if csv is None and isinstance(obj, dict) and obj.get("kind") == "ClusterServiceVersion":
            csv = obj
    return tuple(objects), csv


class _BundleObjectError(ValueError):
    pass


_DECODERS: dict[str, tuple[str, Callable[[Meta], Package | Channel | Bundle | Deprecation]]] = {
    SCHEMA_PACKAGE: ("package", _decode_package),
    SCHEMA_CHANNEL: ("channel", _decode_channel),
    SCHEMA_BUNDLE: ("bundle", _decode_bundle),
    SCHEMA_DEPRECATIONS: ("deprecation", _decode_deprecation),
}


@dataclass(slots=True)
class _Sink:
    """Typed objects in load order, one list per kind, and the findings of both load phases."""

    packages: list[Package] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    bundles: list[Bundle] = field(default_factory=list)
    deprecations: list[Deprecation] = field(default_factory=list)
    others: list[Meta] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def add_meta(self, meta: Meta) -> None:
        """Type one blob (opm's ``addMeta``); a blob that fails becomes a finding and is left out."""
        decoder = _DECODERS.get(meta.schema)
        if decoder is None:
            self.others.append(meta)
            return
        label, decode = decoder
        file, line = meta.location.file, meta.location.line
        try:
            item = decode(meta)
            if isinstance(item, Bundle) and any(p.type == PROP_BUNDLE_OBJECT for p in item.properties):
                objects, csv = _bundle_objects(item)  # decoded as opm does
                item = dataclasses.replace(item, objects=objects, csv=csv)
        except _TypeMismatch as exc:
            hint = f"give each field of the {meta.schema} object the type opm expects"
            self.findings.append(_finding("RK-FBC-007", f"parse {label}: {exc}", file, line, hint))
            return
        except _BundleObjectError as exc:
            hint = "olm.bundle.object data must be base64 of a YAML or JSON manifest"
            self.findings.append(_finding("RK-FBC-008", str(exc), file, line, hint))
            return
        if isinstance(item, Bundle):
            self.bundles.append(item)
        elif isinstance(item, Channel):
            self.channels.append(item)
        elif isinstance(item, Package):
            self.packages.append(item)
        else:
            self.deprecations.append(item)

    def config(self) -> DeclarativeConfig:
        """Everything kept, as one catalog."""
        return DeclarativeConfig(
            packages=tuple(self.packages),
            channels=tuple(self.channels),
            bundles=tuple(self.bundles),
            deprecations=tuple(self.deprecations),
            others=tuple(self.others),
        )


def decode_metas(metas: Sequence[Meta]) -> tuple[DeclarativeConfig, tuple[Finding, ...]]:
    """Type every blob (opm's ``addMeta``); blobs that fail become findings and are left out."""
    sink = _Sink()
    for meta in metas:
        sink.add_meta(meta)
    return sink.config(), tuple(sink.findings)


# --------------------------------------------------------------------------------------------- entry points


def load_catalog_text(
    data: bytes, file: str, limits: LoadLimits = LoadLimits()
) -> tuple[list[Meta], list[Finding]]:
    """Parse one file's bytes into blobs; content problems are returned as findings."""
    findings: list[Finding] = []
    if not data:
        return [], findings
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        message = f"invalid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        findings.append(_finding("RK-FBC-006", message, file, line, "save the file as UTF-8"))
        return [], findings
    text = text.removeprefix("\ufeff")
    if text.lstrip(" \t\r\n").startswith("{"):
        check_nesting(data, file, yaml=False)
        docs = _json_docs(text, file, findings)
    else:
        forbidden = screen_yaml(data, file).forbidden
        if forbidden is not None:  # opm's reader stops there; yaml-rs would drop the rest
            line, code = forbidden
            message = f"invalid YAML: control characters are not allowed (U+{code:04X})"
            hint = "remove the character; YAML text may not hold NUL or other control characters"
            findings.append(_finding("RK-FBC-001", message, file, line, hint))
            return [], findings
        docs = _yaml_docs(text, file, findings, limits)
    metas = [meta for doc in docs if (meta := _meta_from_doc(doc, file, findings)) is not None]
    return metas, findings


def load_catalog(root: Path, limits: LoadLimits = LoadLimits()) -> LoadResult:
    """Load every catalog file under ``root`` (see the module docstring for the rules).

    Raises:
        InputError: the root or a file cannot be read.
        SafetyLimitError: a safety limit refused the input.
    """
    return load_and_check(root, _no_check, limits)[0]


def _no_check(_config: DeclarativeConfig) -> None:
    return None


def load_and_check(
    root: Path, check: Callable[[DeclarativeConfig], _R], limits: LoadLimits = LoadLimits()
) -> tuple[LoadResult, _R]:
    """:func:`load_catalog`, then ``check`` (such as the rules' ``validate_config``) on the catalog.

    Files are read one at a time and let go once parsed. Python's cyclic garbage collector is paused
    meanwhile and then left as it was: loading makes millions of objects and no cycles, and its passes
    over them cost more than a third of loading a big catalog.

    Raises:
        InputError: the root or a file cannot be read.
        SafetyLimitError: a safety limit refused the input.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        sink, parse_findings, files = _Sink(), [], []
        for path in _catalog_files(root, limits):
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
            metas, findings = load_catalog_text(data, path, limits)
            del data
            parse_findings.extend(findings)
            for meta in metas:
                sink.add_meta(meta)
            files.append(path)
        config = sink.config()
        result = LoadResult(config=config, findings=(*parse_findings, *sink.findings), files=tuple(files))
        return result, check(config)
    finally:
        if collecting:
            gc.enable()
