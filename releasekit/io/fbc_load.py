"""Load a file-based catalog directory the way ``opm`` does, but report every problem.

Adapter module: imports no rules, plans or jobs. opm's ``declcfg.LoadFS`` rules:

- every regular file under the root is parsed (lexical order) unless an ``.indexignore`` file (gitignore
  syntax, at any level) excludes it; ``.indexignore`` files themselves are skipped;
- a file whose first non-space byte is ``{`` is a stream of JSON objects, anything else is multi-document
  YAML; only a zero-byte file yields nothing (a blank or comment-only document is an object without schema);
- ``schema``/``package``/``name`` are matched case-insensitively, and top-level keys that fold to the same
  value are rejected; other schemas are kept untouched; ``olm.bundle.object`` payloads are decoded.

One loader per format, files read one at a time and let go once parsed. JSON: the standard library's
decoder, refusing duplicate keys and numbers opm refuses. YAML: one scan of a file's distinct lines, before
any parsing, decides for each document whether yaml-rs (fast, YAML 1.2) may read it or PyYAML
(:mod:`releasekit.io.yamlio`, the YAML 1.1 reading opm's go-yaml shares) must.

Unlike opm, loading does not stop at the first bad file: content problems become findings with file and
line. What cannot be read at all raises :class:`~releasekit.errors.InputError`, a safety limit
:class:`~releasekit.errors.SafetyLimitError` (exit 2): a missing root, a dangling symlink, a FIFO or other
special file (refused from ``lstat`` alone, never opened), a symlink that leaves the catalog, a file over
:attr:`LoadLimits.max_file_bytes`, YAML whose aliases expand too far.

Its findings are RK-FBC-001 … RK-FBC-008; their titles are in ``releasekit.jobs.rule_docs.OUTSIDE_RULES``.
"""

from __future__ import annotations

import base64
import binascii
import collections
import dataclasses
import functools
import gc
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypeVar

import yaml_rs

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io import inputs
from releasekit.model import fbc
from releasekit.model.fbc import JSON_KINDS, MISSING, DeclarativeConfig, Meta, Property, json_kind
from releasekit.model.finding import Finding, Location, Severity

if TYPE_CHECKING:
    import pathspec

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "LOAD_RULES",
    "LoadLimits",
    "LoadResult",
    "decode_metas",
    "indexignore_spec",
    "indexignored",
    "load_and_check",
    "load_catalog",
    "load_catalog_files",
    "load_catalog_text",
]

_R = TypeVar("_R")

DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest single catalog file read (64 MiB; the largest real one seen is 4 MiB). ``--max-file-size`` raises it."""

LOAD_RULES = tuple(f"RK-FBC-{n:03d}" for n in range(1, 9))
"""The loader's rule ids (RK-FBC-001 … 008; see the module docstring)."""

DEFAULT_MAX_ALIAS_EVENTS = 1_000_000
"""Most YAML events that alias replay may produce in one document."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LoadLimits:
    """Safety limits for loading untrusted catalogs."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_alias_events: int = DEFAULT_MAX_ALIAS_EVENTS


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LoadResult:
    """A loaded catalog, the load-phase findings, and the files that were read."""

    config: DeclarativeConfig
    findings: tuple[Finding, ...] = ()
    files: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------- walking


def indexignore_spec(data: bytes) -> pathspec.GitIgnoreSpec:
    """The patterns of one ``.indexignore`` file (gitignore syntax; opm reads bytes: bad UTF-8 is replaced)."""
    import pathspec  # ~40 ms: only catalogs with an .indexignore pay for it (build's have none)

    return pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", "replace").splitlines())


def indexignored(
    rel: PurePosixPath, specs: Mapping[PurePosixPath, pathspec.GitIgnoreSpec], folder: bool = False
) -> bool:
    """Whether opm skips ``rel`` (below the catalog root; ``folder``: it names a folder).

    It skips ``.indexignore`` files, and an entry that it or a folder on the way is ignored by: the deepest
    ``.indexignore`` (``specs``, by folder below the root) with a pattern matching it decides.
    """
    parts = rel.parts
    if parts[-1:] == (".indexignore",) and not folder:
        return True
    if not specs:  # most catalogs: no path objects made per file
        return False
    levels = [
        (n, spec) for n in range(len(parts)) if (spec := specs.get(PurePosixPath(*parts[:n]))) is not None
    ]
    for depth in range(1, len(parts) + 1):
        tail = "/" if folder or depth < len(parts) else ""
        verdicts = [
            spec.check_file("/".join(parts[n:depth]) + tail).include for n, spec in levels if n < depth
        ]
        if next((v for v in reversed(verdicts) if v is not None), False):
            return True
    return False


def _catalog_files(root: Path, limits: LoadLimits) -> list[str]:
    """Every file opm would parse, in opm's lexical order (plain strings and ``os.scandir``: fast).

    Raises:
        InputError: the root is missing or not a folder, or a file cannot be read.
        SafetyLimitError: a symlink leaves the root, or a file is larger than the limit.
    """
    try:
        if not stat.S_ISDIR(root.stat().st_mode):
            raise InputError(f"{root}: is not a directory")
    except OSError as exc:
        raise InputError(f"{root}: cannot read catalog: {exc.strerror or exc}") from None
    root_real = os.path.realpath(root)
    specs: dict[PurePosixPath, pathspec.GitIgnoreSpec] = {}  # the .indexignore files met, by folder
    found: list[str] = []

    def walk(prefix: str, rel_dir: str) -> None:  # prefix: the folder as shown, "" or ending in "/"
        if rel_dir.count("/") > inputs.MAX_WALK_DEPTH:
            raise SafetyLimitError(
                f"{prefix.rstrip('/')}: folders nested deeper than {inputs.MAX_WALK_DEPTH} levels; refusing them"
            )
        try:
            with os.scandir(prefix or ".") as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            raise InputError(
                f"{prefix.rstrip('/') or '.'}: cannot list folder: {exc.strerror or exc}"
            ) from None
        if any(entry.name == ".indexignore" for entry in entries):
            ignore = inputs.read_input(prefix + ".indexignore", root=root_real, what="the catalog")
            specs[PurePosixPath(rel_dir)] = indexignore_spec(ignore)
        for entry in entries:
            path, rel = prefix + entry.name, rel_dir + entry.name
            try:
                lst = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
            is_dir = stat.S_ISDIR(lst.st_mode)
            if specs and indexignored(PurePosixPath(rel), specs, is_dir):
                continue
            if is_dir:
                walk(path + "/", rel + "/")
                continue
            size = inputs.check_regular(path, lst, root_real, what="the catalog").st_size
            if size > limits.max_file_bytes:
                raise SafetyLimitError(
                    f"{path}: {size:,} bytes is over the {limits.max_file_bytes:,}-byte limit per file "
                    "(raise it with --max-file-size)"
                )
            found.append(path)

    top = str(root)
    walk("" if top == "." else top if top.endswith("/") else top + "/", "")
    return found


# --------------------------------------------------------------------------------------------- parsing

_ABSENT: Any = object()
_HINT_DUPLICATE = "remove the repeated key; opm matches schema, package and name case-insensitively"
_HINT_YAML = "fix the YAML syntax (documents are separated by '---' lines)"
_HINT_NUMBER = "JSON has no NaN or Infinity, and opm reads numbers as float64: write a finite number"


def _finding(rule: str, message: str, file: str, line: int | None, hint: str, path: str = "") -> Finding:
    return Finding(
        rule=rule,
        severity=Severity.ERROR,
        message=message,
        location=Location(file=file, line=line, path=path),
        hint=hint,
    )


class _Refused(ValueError):
    """A content problem met inside a parser or decoder: its rule id, fix hint and the text it is about."""

    def __init__(self, rule: str, message: str, hint: str, text: str = "") -> None:
        super().__init__(message)
        self.rule, self.hint, self.text = rule, hint, text


def _pairs_no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused("RK-FBC-003", f"duplicate key {key!r} in JSON object", _HINT_DUPLICATE)
            seen.add(key)
    return result


def _go_constant(name: str) -> Any:
    """NaN and Infinity, which Go's encoding/json (opm's parser) refuses."""
    message = f"invalid JSON: invalid character {name[0]!r} looking for beginning of value"
    raise _Refused("RK-FBC-001", message, _HINT_NUMBER, name)


def _go_number(text: str, exact: Callable[[str], Any] = float) -> Any:
    """``exact(text)`` (an integer keeps every digit), refused as Go refuses a number past float64's range."""
    if (exact is float or len(text) > 300) and math.isinf(float(text)):  # also below Python's digit limit
        shown = text if len(text) <= 40 else text[:40] + "..."
        message = f"invalid JSON: json: cannot unmarshal number {shown} into Go value of type float64"
        raise _Refused("RK-FBC-001", message, _HINT_NUMBER, text)
    return exact(text)


_JSON = json.JSONDecoder(
    object_pairs_hook=_pairs_no_duplicates,
    parse_constant=_go_constant,
    parse_float=_go_number,
    parse_int=functools.partial(_go_number, exact=int),
)
_WS = re.compile(r"[ \t\r\n]*")
_YAML_ERROR_LINE = re.compile(r"at line (\d+), column (\d+)")


def _json_docs(text: str, file: str, findings: list[Finding]) -> Iterator[tuple[Any, int, int, int]]:
    """Each object of a JSON stream with its first line, start and end; stops at the first error, as opm."""
    index = _WS.match(text).end()  # type: ignore[union-attr]
    line = text.count("\n", 0, index) + 1
    while index < len(text):
        try:
            value, end = _JSON.raw_decode(text, index)
        except _Refused as exc:  # a number: its line; a duplicate key: the object's
            at = text.find(exc.text, index) if exc.text else -1
            findings.append(
                _finding(exc.rule, str(exc), file, text.count("\n", 0, at) + 1 if at >= 0 else line, exc.hint)
            )
            return
        except json.JSONDecodeError as exc:
            hint = "fix the JSON syntax; a catalog file is a stream of JSON objects or multi-document YAML"
            message = f"invalid JSON: {exc.msg} at offset {exc.pos}"
            findings.append(_finding("RK-FBC-001", message, file, text.count("\n", 0, exc.pos) + 1, hint))
            return
        yield value, line, index, end
        next_index = _WS.match(text, end).end()  # type: ignore[union-attr]
        line += text.count("\n", index, next_index)
        index = next_index


# A separator is a line starting with "---" whose rest is blank or a comment (the Kubernetes YAML reader's
# rule); "--- {a: 1}" keeps content on the marker line and stays part of the document.
_SEPARATOR = re.compile(r"\n---[^\S\n]*+(?:#[^\n]*+)?(?=\n|\Z)")
_BLANK_LINES = re.compile(r"(?:[^\S\n]*+(?:#[^\n]*+)?(?:\n|\Z))*+")


def _yaml_chunks(text: str) -> Iterator[tuple[str, int]]:
    """The documents of YAML text, split at ``---`` lines, each with its first line; empty ones are left out."""
    start, line = 0, 1
    head = text[: text.find("\n")] if "\n" in text else text
    if _SEPARATOR.match("\n" + head):  # a separator on the first line
        start, line = len(head) + 1, 2
    for match in _SEPARATOR.finditer(text, max(start - 1, 0)):
        if match.start() >= start:
            yield text[start : match.start() + 1], line
        line += text.count("\n", start, match.end() + 1)
        start = match.end() + 1
    if start < len(text):
        yield text[start:], line


def _first_content_line(chunk: str, line: int) -> int:
    """Line of the first line of ``chunk`` that is neither blank nor a comment (``line`` if none)."""
    blank = _BLANK_LINES.match(chunk).group()  # type: ignore[union-attr]
    return line if len(blank) == len(chunk) else line + blank.count("\n")


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
# a flow entry (maybe an explicit key, maybe anchored): such a token, or one yaml-rs reads otherwise in a flow
# collection (":x", a lone "-")
_FLOW_ENTRY = (
    r"[ \t]*+(?:\?[ \t]++)?(?:&[^ \t\r\n,\[\]{}]*+[ \t]++)?(?:"
    + _YAML11_TOKEN
    + r"|:|-[ \t\r]*+(?:$|[,\]}]))"
)
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
        ("[", _FLOW_ENTRY),  # a flow collection's first entry, where a node starts (see _FLOW_START)
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

# A "[" or "{" starts a flow collection only where a node starts: at a line's start, after a flow indicator,
# after ":", "-" or "?" and a space (":" also right before it, as in {a:[1.5]}), then maybe an anchor.
# Elsewhere, as in Markdown's "| [1.5](url) |" in a description, it is text, which both read alike: a line
# the "[" or "{" scan finds is kept only if this finds it too (each character is looked at once or twice).
_FLOW_START = re.compile(
    r"(?:^|[\r\[{,]|[:?-](?=[ \t])|:(?=[\[{]))[ \t]*+(?:&[^ \t\r\n,\[\]{}]*+[ \t]++)?[\[{]" + _FLOW_ENTRY
)


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
            line = joined[joined.rfind("\n", 0, at) + 1 : pos]
            if first not in "[{" or _FLOW_START.search(line):
                found.add(line)
    return frozenset(found)


def _nested(value: Any) -> Iterator[Any]:
    """``value`` and every value inside it."""
    pending = [value]
    while pending:
        item = pending.pop()
        yield item
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def _yaml_docs(
    text: str, file: str, findings: list[Finding], limits: LoadLimits
) -> Iterator[tuple[Any, int]]:
    """The documents of YAML ``text`` as YAML 1.1 reads them, each with its first content line.

    Each is parsed once, by the reader one scan of the file's distinct lines (catalog lines repeat) chose
    for it; one yaml-rs reads with a collection as a key is refused, in PyYAML's words.
    """
    lines: list[str] | None = text.split("\n")
    joined = "\n" + "\n".join(set(lines))  # type: ignore[arg-type]
    pyyaml, keys = _lines_found(joined, _YAML11_SCANS), _lines_found(joined, _KEY_SCANS)
    lines = lines if pyyaml or keys else None  # else every document goes to yaml-rs
    del joined
    any_doc = False
    for chunk, line in _yaml_chunks(text):
        any_doc = True
        own = lines[line - 1 : line + chunk.count("\n")] if lines is not None else ()
        if not pyyaml.isdisjoint(own):
            value = _merged_document(chunk, file, line, findings, limits)
        else:
            value = _yaml_rs_value(chunk, file, line, findings, limits)
            nested = (key for item in _nested(value) if isinstance(item, dict) for key in item)
            if not keys.isdisjoint(own) and any(type(key) in (tuple, frozenset) for key in nested):
                value = _merged_document(chunk, file, line, findings, limits)  # its error says where
        if value is not _ABSENT:
            yield value, _first_content_line(chunk, line)
    if not any_doc:
        yield None, 1


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
    bad = next((item for item in _nested(value) if type(item) is float and not math.isfinite(item)), None)
    if bad is not None:
        hint = "opm turns YAML into JSON, which has no NaN or Infinity: write a finite number or a string"
        spelled = "NaN" if math.isnan(bad) else "+Inf" if bad > 0 else "-Inf"  # as Go spells them
        message = f"invalid YAML: json: unsupported value: {spelled}"
        findings.append(_finding("RK-FBC-001", message, file, _first_content_line(chunk, line), hint))
        return _ABSENT
    return value


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


def _meta_from_doc(value: Any, line: int, file: str, findings: list[Finding], *, yaml: bool) -> Meta | None:
    """Decode one document into a Meta (opm's ``Meta.UnmarshalJSON``), or record why it cannot be.

    An empty YAML document (blank, comments only, or ``null``) is an object without schema.
    """

    def refuse(rule: str, message: str, hint: str, path: str = "") -> Meta | None:
        findings.append(_finding(rule, message, file, line, hint, path))
        return None

    if value is None and yaml:
        hint = "remove the empty document (a blank or comment-only YAML document, or a stray '---')"
        return refuse("RK-FBC-005", "object '' is missing root schema field", hint)
    if not isinstance(value, dict):
        message = f"json: cannot unmarshal {json_kind(value)} into Go value of type map[string]interface {{}}"
        return refuse("RK-FBC-002", message, "each catalog document must be an object with a schema field")
    folded: dict[str, list[str]] = {}
    for key in value:
        folded.setdefault(str(key).casefold(), []).append(str(key))
    if len(folded) != len(value):
        repeated = sorted((k, sorted(v)) for k, v in folded.items() if len(v) > 1)
        message = ", ".join(f'duplicate keys for key "{k}": [{" ".join(v)}]' for k, v in repeated)
        return refuse("RK-FBC-003", message, _HINT_DUPLICATE)
    picked: dict[str, str] = {}
    for wanted in ("schema", "package", "name"):
        key = _lookup_key(value, wanted)
        if key is not None and not isinstance(value[key], str):
            message = f'expected value for key "{wanted}" to be a string, got {_go_value_text(value[key])}'
            return refuse("RK-FBC-004", message, f'make "{wanted}" a string', path=f"$.{key}")
        picked[wanted] = "" if key is None else value[key]
    if not picked["schema"]:
        text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        hint = "add a schema field (olm.package, olm.channel, olm.bundle or olm.deprecations)"
        return refuse("RK-FBC-005", f"object '{text}' is missing root schema field", hint)
    location = Location(file=file, line=line)
    return Meta(
        schema=picked["schema"], package=picked["package"], name=picked["name"], data=value, location=location
    )


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
#
# opm's Go structs as (JSON field, Go type) pairs, decoded as Go's encoding/json does: strictly by JSON kind,
# field names matched exactly and then case-insensitively, null as the zero value ("" for a string, the
# default for the rest). A Go type is "string", "[]<element>" or another struct of the table; each struct
# is made by the callable beside it, from its fields (snake_case) that are not absent or null.


class _TypeMismatch(ValueError):
    pass


def _kind(gotype: str) -> str:
    return "string" if gotype == "string" else "array" if gotype.startswith("[]") else "object"


def _checked(value: Any, field: str, gotype: str) -> Any:
    """``value`` when ``null`` or of the JSON kind Go's ``gotype`` takes, else Go's unmarshal error."""
    if value is not None and json_kind(value) != _kind(gotype):
        raise _TypeMismatch(
            f"json: cannot unmarshal {json_kind(value)} into Go struct field {field} of type {gotype}"
        )
    return value


def _b64decode(data: str) -> bytes:
    """Decode standard base64 as Go's encoding/json does for ``[]byte``: CR and LF are ignored."""
    return base64.b64decode(data.replace("\n", "").replace("\r", ""), validate=True)


def _icon(*, base64data: str, mediatype: str) -> fbc.Icon:
    """The package icon: its data is ``[]byte`` in opm, base64 in JSON."""
    try:
        _b64decode(base64data)
    except (binascii.Error, ValueError) as exc:
        raise _TypeMismatch(f"illegal base64 data in icon.base64data: {exc}") from None
    return fbc.Icon(base64data=base64data, mediatype=mediatype)


def _deprecation_entry(*, message: str, reference: Mapping[str, str] | None = None) -> fbc.DeprecationEntry:
    """A deprecation entry, its ``PackageScopedReference`` flattened as the model keeps it."""
    return fbc.DeprecationEntry(message=message, **(reference or {}))


def _fields(specs: str) -> tuple[tuple[str, str, str, str], ...]:
    """Struct fields from ``specs``: JSON names, each with ``:<Go type>`` unless it is a string.

    Each becomes (JSON name, model attribute, Go type, JSON kind).
    """
    fields = []
    for spec in specs.split():
        name, _, gotype = spec.partition(":")
        gotype = gotype or "string"
        fields.append((name, re.sub("([A-Z])", r"_\1", name).lower(), gotype, _kind(gotype)))
    return tuple(fields)


_PROPERTIES = "properties:[]property.Property"
# Go struct: (what makes it, its fields)
_STRUCTS: dict[str, tuple[Callable[..., Any], tuple[tuple[str, str, str, str], ...]]] = {
    "Package": (fbc.Package, _fields(f"name defaultChannel icon:declcfg.Icon description {_PROPERTIES}")),
    "declcfg.Icon": (_icon, _fields("base64data mediatype")),
    # a channel written without entries keeps them nil (opm writes null back)
    "Channel": (
        functools.partial(fbc.Channel, entries=None),
        _fields(f"name package entries:[]declcfg.ChannelEntry {_PROPERTIES}"),
    ),
    "declcfg.ChannelEntry": (fbc.ChannelEntry, _fields("name replaces skips:[]string skipRange")),
    "Bundle": (fbc.Bundle, _fields(f"name package image {_PROPERTIES} relatedImages:[]declcfg.RelatedImage")),
    "declcfg.RelatedImage": (fbc.RelatedImage, _fields("name image")),
    "Deprecation": (fbc.Deprecation, _fields("package entries:[]declcfg.DeprecationEntry")),
    "declcfg.DeprecationEntry": (
        _deprecation_entry,
        _fields("reference:declcfg.PackageScopedReference message"),
    ),
    "declcfg.PackageScopedReference": (dict, _fields("schema name")),
}


def _field(obj: Mapping[str, Any], name: str) -> Any:
    """Field ``name`` of a JSON object, found as Go's encoding/json finds it; ``None`` when absent."""
    value = obj.get(name, _ABSENT)
    if value is _ABSENT:
        key = _lookup_key(obj, name)
        value = None if key is None else obj[key]
    return value


def _decode(obj: Mapping[str, Any], struct: str, gotype: str, **values: Any) -> Any:
    """``obj`` decoded into Go struct ``gotype`` of :data:`_STRUCTS`; ``struct`` is its path in errors."""
    make, fields = _STRUCTS[gotype]
    for name, attr, field_type, kind in fields:
        value = _field(obj, name)
        if value is None:
            if kind == "string":
                values[attr] = ""
            continue
        if JSON_KINDS.get(type(value)) != kind:
            _checked(value, f"{struct}.{name}", field_type)
        if kind == "string":
            values[attr] = value
        elif field_type == "[]property.Property":
            values[attr] = _properties(value, f"{struct}.{name}")
        elif field_type == "[]string":
            values[attr] = tuple(_checked(item, f"{struct}.{name}", "string") or "" for item in value)
        elif kind == "array":
            field, element = f"{struct}.{name}", field_type[2:]
            values[attr] = tuple(
                _decode(_checked(item, field, element) or {}, field, element) for item in value
            )
        else:
            values[attr] = _decode(value, f"{struct}.{name}", field_type)
    return make(**values)


def _properties(raw: list[Any], field: str) -> tuple[Property, ...]:
    out: list[Property] = []
    for item in raw:
        if type(item) is dict and type(item.get("type")) is str and "value" in item:  # the usual shape
            out.append(Property(type=item["type"], value=item["value"]))
        elif _checked(item, field, "property.Property") is None:
            out.append(Property(type="", value=MISSING))
        else:
            key = _lookup_key(item, "value")
            type_ = _checked(_field(item, "type"), f"{field}.type", "string") or ""
            out.append(Property(type=type_, value=MISSING if key is None else item[key]))
    return tuple(out)


def _decode_object(data: str, where: str) -> Any:
    """The manifest in an ``olm.bundle.object``'s base64 ``data``; ``where`` names it in a refusal.

    Raises:
        SafetyLimitError: the manifest nests deeper than :data:`MAX_DEPTH`, checked before any parser sees
            it (yaml-rs crashes on deep block nesting; the others recurse).
    """
    raw = _b64decode(data)
    text = raw.decode("utf-8")
    is_json = text.lstrip().startswith("{")
    if inputs.nesting_depth(raw, yaml=not is_json) is not None:
        raise SafetyLimitError(
            f"{where} is nested deeper than {inputs.MAX_DEPTH} levels; refusing to parse it"
        )
    return json.loads(text) if is_json else yaml_rs.loads(text, parse_datetime=False)


def _with_objects(bundle: fbc.Bundle) -> fbc.Bundle:
    """``bundle`` with the manifests of its ``olm.bundle.object`` properties, decoded as opm does."""
    objects: list[Any] = []
    hint = "olm.bundle.object data must be base64 of a YAML or JSON manifest"
    for index, prop in enumerate(bundle.properties):
        if prop.type != fbc.PROP_BUNDLE_OBJECT:
            continue
        prefix = f'read bundle objects: package "{bundle.package}", bundle "{bundle.name}": '
        data = prop.value.get("data") if isinstance(prop.value, dict) else None
        if not isinstance(data, str):
            kind = json_kind(prop.value)
            message = f"parse property at index {index} as bundle object: json: cannot unmarshal {kind} into Go value of type property.BundleObject"
            raise _Refused("RK-FBC-008", prefix + message, hint)
        where = (
            f"{bundle.location.file}:{bundle.location.line}: bundle {bundle.name!r}: the manifest of its "
            f"olm.bundle.object property at index {index}"
        )
        try:
            objects.append(_decode_object(data, where))
        except SafetyLimitError:
            raise  # a ValueError too, but a refusal, not a finding
        except (binascii.Error, ValueError, UnicodeDecodeError, yaml_rs.YAMLDecodeError) as exc:
            message = f"convert bundle object property at index {index} to JSON: {exc}"
            raise _Refused("RK-FBC-008", prefix + message, hint) from None
    if not objects:
        return bundle
    csv = next((o for o in objects if isinstance(o, dict) and o.get("kind") == "ClusterServiceVersion"), None)
    return dataclasses.replace(bundle, objects=tuple(objects), csv=csv)


# schema: (what opm's error calls it, Go struct)
_SCHEMAS = {
    fbc.SCHEMA_PACKAGE: ("package", "Package"),
    fbc.SCHEMA_CHANNEL: ("channel", "Channel"),
    fbc.SCHEMA_BUNDLE: ("bundle", "Bundle"),
    fbc.SCHEMA_DEPRECATIONS: ("deprecation", "Deprecation"),
}


def _add_typed(metas: Sequence[Meta], typed: dict[type, list[Any]], findings: list[Finding]) -> None:
    """Type each blob (opm's ``addMeta``) into ``typed`` by class; a blob that fails becomes a finding."""
    for meta in metas:
        if meta.schema not in _SCHEMAS:
            typed[Meta].append(meta)
            continue
        label, gotype = _SCHEMAS[meta.schema]
        file, line = meta.location.file, meta.location.line
        try:
            item = _decode(meta.data, gotype, gotype, location=meta.location)
            typed[type(item)].append(_with_objects(item) if type(item) is fbc.Bundle else item)
        except _TypeMismatch as exc:
            hint = f"give each field of the {meta.schema} object the type opm expects"
            findings.append(_finding("RK-FBC-007", f"parse {label}: {exc}", file, line, hint))
        except _Refused as exc:
            findings.append(_finding(exc.rule, str(exc), file, line, exc.hint))


def _config(typed: dict[type, list[Any]]) -> DeclarativeConfig:
    return DeclarativeConfig(
        packages=tuple(typed[fbc.Package]),
        channels=tuple(typed[fbc.Channel]),
        bundles=tuple(typed[fbc.Bundle]),
        deprecations=tuple(typed[fbc.Deprecation]),
        others=tuple(typed[Meta]),
    )


def decode_metas(metas: Sequence[Meta]) -> tuple[DeclarativeConfig, tuple[Finding, ...]]:
    """Type every blob (opm's ``addMeta``); blobs that fail become findings and are left out."""
    typed: dict[type, list[Any]] = collections.defaultdict(list)
    findings: list[Finding] = []
    _add_typed(metas, typed, findings)
    return _config(typed), tuple(findings)


# --------------------------------------------------------------------------------------------- entry points


def load_catalog_text(
    data: bytes, file: str, limits: LoadLimits = LoadLimits()
) -> tuple[list[Meta], list[Finding]]:
    """Parse one file's bytes into blobs; content problems are returned as findings."""
    findings: list[Finding] = []
    if not data:
        return [], findings
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        message = f"invalid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        findings.append(_finding("RK-FBC-006", message, file, line, "save the file as UTF-8"))
        return [], findings
    is_json = text.lstrip(" \t\r\n").startswith("{")
    docs: Iterator[tuple[Any, int]]
    if is_json:
        inputs.check_nesting(data, file, yaml=False)
        docs = ((value, line) for value, line, _, _ in _json_docs(text, file, findings))
    elif (forbidden := inputs.screen_yaml(data, file)) is not None:
        line, code = forbidden  # opm's reader stops there; yaml-rs would drop the rest
        message = f"invalid YAML: control characters are not allowed (U+{code:04X})"
        hint = "remove the character; YAML text may not hold NUL or other control characters"
        findings.append(_finding("RK-FBC-001", message, file, line, hint))
        return [], findings
    else:
        docs = _yaml_docs(text, file, findings, limits)
    metas = [
        meta
        for value, line in docs
        if (meta := _meta_from_doc(value, line, file, findings, yaml=not is_json))
    ]
    return metas, findings


def load_catalog(root: Path, limits: LoadLimits = LoadLimits()) -> LoadResult:
    """Load every catalog file under ``root`` (see the module docstring for the rules).

    Raises:
        InputError: the root or a file cannot be read.
        SafetyLimitError: a safety limit refused the input.
    """
    return load_and_check(root, lambda _config: None, limits)[0]


def load_catalog_files(files: Mapping[str, bytes], limits: LoadLimits = LoadLimits()) -> LoadResult:
    """:func:`load_catalog` of files held in memory (shown name → bytes, in opm's order)."""
    metas: list[Meta] = []
    parse_findings: list[Finding] = []
    for file, data in files.items():
        file_metas, found = load_catalog_text(data, file, limits)
        metas += file_metas
        parse_findings += found
    config, type_findings = decode_metas(metas)
    return LoadResult(config=config, findings=(*parse_findings, *type_findings), files=tuple(files))


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
        typed: dict[type, list[Any]] = collections.defaultdict(list)
        parse_findings: list[Finding] = []
        type_findings: list[Finding] = []
        files = _catalog_files(root, limits)
        for path in files:
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
            metas, findings = load_catalog_text(data, path, limits)
            del data
            parse_findings.extend(findings)
            _add_typed(metas, typed, type_findings)
        config = _config(typed)
        result = LoadResult(config=config, findings=(*parse_findings, *type_findings), files=tuple(files))
        return result, check(config)
    finally:
        if collecting:
            gc.enable()
