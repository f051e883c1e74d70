"""releasekit's one YAML reader: values as PyYAML (YAML 1.1) reads them, lines when they are asked for.

Adapter module (imports no rules, plans or jobs). Every YAML text releasekit reads comes through here:

- one scan of a text's distinct lines decides, before parsing, which parser reads each document: yaml-rs
  (fast, YAML 1.2) if it holds nothing the two read otherwise, else PyYAML's events, built into values in
  one pass;
- the line of every JSON path (``$.spec.install[0]``) is found when first asked for
  (:attr:`LocatedDocument.lines`), by PyYAML reading the document again;
- a duplicate key is a content error at the second key's line; an alias counts the nodes of the value it
  names (built once and shared) and the count stops at ``max_nodes``
  (:class:`releasekit.errors.SafetyLimitError`); nesting deeper than
  :data:`releasekit.io.inputs.MAX_DEPTH` is refused before parsing; an integer over Python's digit limit
  is a content error;
- only plain data types come out (str, int, float, bool, None, list, dict), timestamps as written.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import functools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
import yaml_rs

from releasekit.errors import SafetyLimitError
from releasekit.io.inputs import screen_yaml
from releasekit.model.finding import nearest_line

__all__ = [
    "DEFAULT_MAX_NODES",
    "document_lines",
    "EXPONENT_FLOAT",
    "SafeLoader",
    "LocatedDocument",
    "YamlContentError",
    "iter_kubernetes_documents",
    "iter_yaml_documents",
    "json_path",
    "dump_yaml_block",
    "load_yaml_documents",
    "read_exponents_as_floats",
    "yaml_chunks",
]

DEFAULT_MAX_NODES = 1_000_000
"""Most nodes one file may expand to (aliases counted at every use); far above any real catalog."""

EXPONENT_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$")
"""A number with an exponent, which YAML 1.2 and go-yaml (opm) read as a float. PyYAML's YAML 1.1 pattern
wants a dot and a signed exponent, so it would read ``1e-06`` -- how opm and releasekit write a small
float -- as a string; releasekit reads it as opm does."""


def read_exponents_as_floats(cls: Any) -> None:
    """Give a PyYAML loader or dumper class :data:`EXPONENT_FLOAT` (a dumper then quotes such strings)."""
    cls.add_implicit_resolver("tag:yaml.org,2002:float", EXPONENT_FLOAT, list("-+.0123456789"))


class SafeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (C where available) reading exponent numbers as floats (:data:`EXPONENT_FLOAT`)."""


read_exponents_as_floats(SafeLoader)


class YamlContentError(ValueError):
    """Text that is not valid YAML (or has duplicate keys): a content problem, reported as a finding."""

    def __init__(self, message: str, line: int | None, context_line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.context_line = context_line  # where the construct the parser found broken starts, if known


@dataclass(frozen=True, slots=True)
class LocatedDocument:
    """One YAML document: its value, the line it starts on, and the line of every JSON path in it."""

    data: Any
    line: int
    locate: Callable[[], dict[str, int]] | None = field(default=None, compare=False, repr=False)
    _found: list[dict[str, int]] = field(default_factory=list, compare=False, repr=False)
    _sorted: list[str] = field(default_factory=list, compare=False, repr=False)

    @property
    def lines(self) -> dict[str, int]:
        """The line of every JSON path, found on first use (``locate``: none without it)."""
        if not self._found:
            self._found.append(self.locate() if self.locate is not None else {})
        return self._found[0]

    def line_of(self, path: str) -> int:
        """Line of ``path``, or of its nearest recorded ancestor, or of the document."""
        line = nearest_line(self.lines, path)
        return self.line if line is None else line

    def lines_under(self, path: str) -> list[tuple[str, int]]:
        """(relative path, line) of ``path`` and of every path below it, sorted by relative path.

        The recorded paths are sorted once (on the first call), so that each call only bisects to the
        paths that start with ``path``.
        """
        lines = self.lines
        if not self._sorted and lines:
            self._sorted.extend(sorted(lines))
        keys = self._sorted
        cut = len(path)
        found = []
        for index in range(bisect.bisect_left(keys, path), len(keys)):
            sub = keys[index]
            if not sub.startswith(path):
                break
            if len(sub) == cut or sub[cut] in ".[":  # the path itself, or below it (not $.ab for $.a)
                found.append((sub[cut:], lines[sub]))
        return found  # the keys share ``path`` as a prefix, so their order is their tails' order


def json_path(parent: str, key: object) -> str:
    """Extend a JSON path with a mapping key or a sequence index."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    text = str(key)
    if text.replace("_", "a").replace("-", "a").isalnum():
        return f"{parent}.{text}"
    return f"{parent}[{text!r}]"


# ---------------------------------------------------------------------- documents, as Kubernetes cuts them

# A separator is a line starting with "---" whose rest is blank or a comment (the Kubernetes YAML reader's
# rule); "--- {a: 1}" keeps content on the marker line and stays part of the document.
_SEPARATOR = re.compile(r"\n---[^\S\n]*+(?:#[^\n]*+)?(?=\n|\Z)")
_BLANK_LINES = re.compile(r"(?:[^\S\n]*+(?:#[^\n]*+)?(?:\n|\Z))*+")


def yaml_chunks(text: str) -> Iterator[tuple[str, int]]:
    """The documents of YAML text, cut at ``---`` lines, each with its first line; empty ones are left out."""
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


# ------------------------------------------------------------------- which parser reads a YAML document
#
# yaml-rs (YAML 1.2, fast) and PyYAML (YAML 1.1, the reading opm's go-yaml shares; about 6.6 MB/s) give the
# same values except where a document holds one of these, which the scan below looks for in its text before
# either parser sees it:
# - a plain scalar YAML 1.1 reads otherwise: yes/no/on/off (not y/n: both read a string), "=", "<<" (a
#   merge key), and every number but a plain decimal integer: a leading zero (0777, 0o17, 0x1F, 0b1), an
#   underscore anywhere (1_000, _1, 1e_5), a colon (1:20, sexagesimal), a dot or an exponent (1.5, +.5, 1e5,
#   1e400), .inf and .nan;
# - an explicit tag (!foo, !!binary), an anchor (&a: PyYAML counts what its aliases expand to, and refuses
#   an anchor given twice), a collection as a mapping key (``? ``, ``[a]: b``, ``{a: 1}: b``), a
#   directive (%YAML), a document marker with content or ``...``, a tab in a line's indentation or after a
#   block indicator (YAML 1.1 refuses it), or a YAML 1.1 line break (NEL, LS, PS).
# The scan is conservative: the same text inside a block scalar or a comment after a value sends the
# document to PyYAML too, which costs time, never a different value. Every context it looks at is within a
# line (a token starts at the start of a line, after "- ", "? ", ": " or a flow indicator), so it runs once
# over each distinct line of a file; a line it finds is looked at again without what holds no token
# (:func:`_suspects`).

_TOKEN_END = r"[ \t\r]*+(?:$|#|[,\]}]|:(?:[ \t\r]|$))"
_YAML11_TOKEN = (
    # a tag or an anchor (an alias is an error to both without an anchor, and Markdown's "*text*" is none)
    r"(?:!|&[^ \t\r\n,\[\]{}]"
    r"|(?=[-+.0-9_YNOyno=<])"  # the first characters of the tokens below, a quick way out for the rest
    r"(?![-+]?(?:0|[1-9][0-9]*+)" + _TOKEN_END + ")"  # a decimal integer both read alike
    r"(?:[Yy]es|YES|[Nn]o|NO|[Oo]n|ON|[Oo]ff|OFF|=|<<"
    r"|[-+]?(?:\.(?i:inf(?:inity)?|nan)|0(?:[xXoO][0-9A-Fa-f_]*+|b[01_]*+)"
    r"|(?=\.?[0-9_])(?:[0-9_]++(?::[0-9_]++)*+)?(?:\.[0-9_]*+)?(?:[eE][-+]?[0-9_]*+)?))" + _TOKEN_END + ")"
)
# what may come between a line's start and a token: block indicators; after a key's colon, nothing (which
# keeps each scan linear: a run of ": : :" is gone through once, from the line's start)
_BEFORE_TOKEN = r"[ \t]*+(?:[-?:][ \t]++)*+"
_MARKER = r"(?:---[ \t]++[^#\s]|\.\.\.(?:[ \t\r]|$))"
_INDENT_TAB = r" *+(?:[-?:] *+)*+\t"  # yaml-rs reads "\t- x" and "-\tx", PyYAML refuses them
# a flow entry (maybe an explicit key): such a token, or one yaml-rs reads otherwise in a flow collection
# (":x", a lone "-")
_FLOW_ENTRY = r"[ \t]*+(?:\?[ \t]++)?(?:" + _YAML11_TOKEN + r"|:|-[ \t\r]*+(?:$|[,\]}]))"
# Each pattern starts with one literal character, which the regular expression engine skips to (one pattern
# with them all as alternatives is tried at every offset, about ten times slower); a pattern whose
# character the text does not hold is not run.
_YAML11_SCANS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (first, re.compile(re.escape(first) + rest, re.MULTILINE))
    for first, rest in (
        # a line's first token, a directive, a document marker that is no separator (yaml-rs reads the
        # documents after it too), or a tab where YAML 1.1 wants indentation or a space
        ("\n", r"(?:%|" + _MARKER + "|" + _INDENT_TAB + "|" + _BEFORE_TOKEN + _YAML11_TOKEN + ")"),
        ("\r", r"(?:%|---|\.\.\.|" + _INDENT_TAB + "|" + _BEFORE_TOKEN + _YAML11_TOKEN + ")"),  # no separator
        # a value after its key, or a colon right before a flow indicator (yaml-rs: a key; YAML 1.1: refused)
        (":", r"(?:[,\]}]|(?:(?<=[\"']:)|(?=[ \t]))[ \t]*+" + _YAML11_TOKEN + ")"),
        (",", _FLOW_ENTRY),  # flow collection entries
        ("[", _FLOW_ENTRY),  # a flow collection's first entry, where a node starts (see _FLOW_START)
        ("{", _FLOW_ENTRY),
        ("\x85", ""),  # YAML 1.1 line breaks
        ("\u2028", ""),
        ("\u2029", ""),
    )
)
# A mapping key that may be a collection (yaml-rs makes a tuple or frozenset of it; YAML 1.1 refuses it):
# an explicit key or a flow collection before a colon. Such a document is read by yaml-rs and only if it
# has such a key is it read by PyYAML, which refuses it: Markdown's ``[link]: url`` in descriptions would
# otherwise send many documents to PyYAML.
_KEY_SCANS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (first, re.compile(re.escape(first) + rest, re.MULTILINE))
    for first, rest in (
        ("?", r"(?<![^ \t\r\n\[{,]\?)(?![^ \t\r\n])"),
        ("]", r"[ \t]*+:"),
        ("}", r"[ \t]*+:"),
    )
)

# A "[" or "{" starts a flow collection only where a node starts: at a line's start, after a flow indicator,
# after ":", "-" or "?" and a space (":" also right before it, as in {a:[1.5]}). Elsewhere, as in Markdown's
# "| [1.5](url) |" in a description, it is text, which both read alike: a line the "[" or "{" scan finds is
# kept only if this finds it too (each character is looked at once or twice).
_FLOW_START = re.compile(r"(?:^|[\r\[{,]|[:?-](?=[ \t])|:(?=[\[{]))[ \t]*+[\[{]" + _FLOW_ENTRY)

# A quote where a token may start that is not closed on its line: a quoted scalar may run over lines.
_UNCLOSED = (
    re.compile(r"'(?<![^ \t\r\n\[{,:]')(?:[^'\n]|'')*+$", re.MULTILINE),
    re.compile(r'"(?<![^ \t\r\n\[{,:]")(?:[^"\\\n]|\\.)*+\\?$', re.MULTILINE),
)
# A quoted value after a plain key, running to the line's end (or a comment): its text is no token, unless a
# quoted scalar runs over lines (then the line's first quote may close it).
_QUOTED_VALUE = re.compile(
    r"""^([ \t]*+(?:-[ \t]++)*+[^-?:,\[\]{}#&*!|>'"%@`\s][^:\n]*+:[ \t]++)"""
    r"""(?:'(?:[^'\n]|'')*+'|"(?:[^"\\\n]|\\.)*+")(?=[ \t\r]*+(?:#|$))"""
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


def _suspects(lines: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Those of the distinct ``lines`` holding what YAML 1.1 reads otherwise, and a possible collection key.

    A line a scan finds is scanned again without what holds no token: a comment line, and a quoted value
    after a plain key when no quote of the text is left open at a line's end.
    """
    joined = "\n" + "\n".join(set(lines))
    found = [_lines_found(joined, _YAML11_SCANS), _lines_found(joined, _KEY_SCANS)]
    if found[0] or found[1]:
        tokens = {  # each line without a quoted value (a tab before a "#" is YAML 1.1's error)
            line: _QUOTED_VALUE.sub(r"\1''", line)
            for line in found[0] | found[1]
            if line.lstrip(" ")[:1] != "#"
        }
        if any(kept != line for line, kept in tokens.items()) and any(u.search(joined) for u in _UNCLOSED):
            tokens = {line: line for line in tokens}
        for index, scans in enumerate((_YAML11_SCANS, _KEY_SCANS)):
            found[index] = frozenset(
                line
                for line in found[index]
                if line in tokens and (tokens[line] == line or _lines_found("\n" + tokens[line], scans))
            )
    return found[0], found[1]


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


def _collection_key(value: Any) -> bool:
    """Whether yaml-rs made a mapping key of a collection (a tuple or frozenset) somewhere in ``value``."""
    return any(
        type(key) in (tuple, frozenset) for item in _nested(value) if type(item) is dict for key in item
    )


# --------------------------------------------------------------------------------------------- PyYAML

_STR_TAG = "tag:yaml.org,2002:str"
_VALUE_TAG = "tag:yaml.org,2002:value"
_INT_TAG = "tag:yaml.org,2002:int"
_INF = float("inf")
_INFINITY_SPELLINGS = frozenset(f"{sign}.{inf}" for sign in ("", "+", "-") for inf in ("inf", "Inf", "INF"))
_NO_KEY: Any = object()
_MERGE: Any = object()


@dataclass(slots=True)
class _Open:
    """A mapping or sequence being filled, and where it is."""

    value: Any
    path: str
    start: int  # the node count after its own node: an anchored collection's size is the difference
    anchor: str | None
    key: Any = _NO_KEY  # a mapping's key waiting for its value (_MERGE for ``<<``)
    child: str = ""  # that key's path
    merges: list[Any] = field(default_factory=list)


class _Builder:
    """Plain values from PyYAML's event stream in one pass, counting nodes and recording lines.

    An alias is the value its anchor built (shared, as ``yaml.safe_load`` shares it) and counts as many
    nodes as that value has, so an alias bomb reaches ``max_nodes`` after a handful of events.
    """

    def __init__(self, loader: Any, max_nodes: int, last_key_wins: bool, source: str) -> None:
        self.loader = loader
        self.max_nodes = max_nodes
        self.last_key_wins = last_key_wins
        self.source = source
        self.count = 0
        self.constructor = yaml.constructor.SafeConstructor()
        self.plain: dict[str, Any] = {}  # the value of each plain scalar text seen
        self.anchors: dict[str, tuple[Any, int]] = {}  # value and node count
        self.named: set[str] = set()  # every anchor given so far, the open collections' too
        self.lines: dict[str, int] = {}

    def document(self) -> tuple[Any, int, dict[str, int]]:
        """The next document's value, line and lines (the loader stands before its ``DocumentStartEvent``)."""
        self.loader.get_event()
        self.anchors, self.lines, self.named = {}, {}, set()  # anchors are per document, as in PyYAML
        root = _Open([], "$", self.count, None)
        stack = [root]
        line = self.loader.peek_event().start_mark.line + 1
        while True:
            event = self.loader.get_event()
            top = stack[-1]
            kind = type(event)
            if kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                stack.pop()
                self._add(stack[-1], self._close(top))
            elif kind is yaml.DocumentEndEvent:
                return root.value[0], line, self.lines
            elif top.key is _NO_KEY and type(top.value) is dict:
                self._key(top, event)
            else:
                self._node(event, top, stack)

    def _node(self, event: Any, top: _Open, stack: list[_Open]) -> None:
        """Count a value's node and place a scalar or alias, or open a collection."""
        at = event.start_mark.line + 1
        path = top.child
        if type(top.value) is list:
            path = top.path if top is stack[0] else f"{top.path}[{len(top.value)}]"
            self.lines.setdefault(path, at)
        value, size = self._alias(event) if type(event) is yaml.AliasEvent else (None, 1)
        self.count += size
        if self.count > self.max_nodes:
            raise SafetyLimitError(
                f"{self.source}:{at}: YAML expands to more than {self.max_nodes:,} nodes "
                "(alias expansion?); refusing to load it"
            )
        if type(event) is not yaml.AliasEvent and event.anchor:
            self._name(event)
        if type(event) is yaml.ScalarEvent:
            value = self._scalar(event)
            if event.anchor:
                self.anchors[event.anchor] = (value, 1)
        elif type(event) is not yaml.AliasEvent:
            opened: Any = {} if type(event) is yaml.MappingStartEvent else []
            stack.append(_Open(opened, path, self.count, event.anchor))
            return
        self._add(top, value)

    def _alias(self, event: Any) -> tuple[Any, int]:
        if event.anchor not in self.anchors:  # undefined, or naming a collection that is still open
            raise YamlContentError(
                f"invalid YAML: found undefined alias {event.anchor!r}", event.start_mark.line + 1
            )
        return self.anchors[event.anchor]

    def _name(self, event: Any) -> None:
        """Refuse an anchor given twice in one document, as PyYAML does."""
        if event.anchor in self.named:
            line = event.start_mark.line + 1
            raise YamlContentError(f"invalid YAML: found duplicate anchor {event.anchor!r}", line)
        self.named.add(event.anchor)

    def _key(self, top: _Open, event: Any) -> None:
        """Read a mapping key; a repeated one is an error unless the last one wins."""
        at = event.start_mark.line + 1
        if type(event) is yaml.ScalarEvent:
            merge = event.value == "<<" and event.tag is None and event.implicit[0]
            key = _MERGE if merge else self._scalar(event)
            if event.anchor:
                self._name(event)
                self.anchors[event.anchor] = (key, 1)
        else:
            key = self._alias(event)[0] if type(event) is yaml.AliasEvent else top.value
            if type(key) in (dict, list):
                raise YamlContentError("mapping keys must be scalars", at)
        if key in top.value and not self.last_key_wins:
            raise YamlContentError(f"duplicate key {key!r} (first given earlier in the same mapping)", at)
        top.key = key
        if key is not _MERGE:
            top.child = json_path(top.path, key)
            self.lines.setdefault(top.child, at)  # a value's line is its key's line

    def _add(self, top: _Open, value: Any) -> None:
        if type(top.value) is list:
            top.value.append(value)
        elif top.key is _MERGE:
            top.merges.append(value)
        else:
            top.value[top.key] = value
        top.key = _NO_KEY

    def _close(self, done: _Open) -> Any:
        """A finished collection; ``<<`` merge keys give their mappings' keys (explicit keys win, as in PyYAML)."""
        value = done.value
        if done.merges:
            merged: dict[Any, Any] = {}
            for source in done.merges:
                for mapping in source if type(source) is list else [source]:
                    if type(mapping) is dict:
                        for key, item in mapping.items():
                            merged.setdefault(key, item)
            value = {key: item for key, item in merged.items() if key not in value} | value
        if done.anchor:
            self.anchors[done.anchor] = (value, self.count - done.start + 1)
        return value

    def _scalar(self, event: Any) -> Any:
        plain = event.tag is None
        if plain and not event.implicit[0]:  # quoted or block text
            return event.value
        if plain and event.value in self.plain:
            return self.plain[event.value]
        tag = (
            event.tag
            if event.tag not in (None, "!")
            else self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        )
        value = event.value
        if tag != _STR_TAG:
            value = self._construct(
                yaml.ScalarNode(tag, value, event.start_mark, event.end_mark, event.style)
            )
        if plain:
            self.plain[event.value] = value
        return value

    def _construct(self, node: yaml.ScalarNode) -> Any:
        """A scalar of a tag other than ``str``, as opm reads it where PyYAML would differ or fail."""
        if node.tag == _VALUE_TAG and not node.style:  # plain: None (Python loader) or "" (C loader)
            # a plain "=": PyYAML resolves it to YAML 1.1's value type and has no constructor for it;
            # go-yaml (opm) reads the text, and releasekit's catalog writer writes it unquoted as opm does
            return node.value
        try:
            value = self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise YamlContentError(str(exc).splitlines()[0], node.start_mark.line + 1) from None
        except ValueError as exc:
            if node.tag == _INT_TAG and "invalid literal" in str(exc):
                # "0x_" or "0b_": PyYAML's int pattern matches, but there is no digit to convert; go-yaml
                # (opm) reads the text
                return node.value
            # Python's integer-digit limit (int() of 4,301+ digits)
            raise YamlContentError(
                f"number {node.value[:20]}... is too long ({exc.args[0].split(':')[0]})",
                node.start_mark.line + 1,
            ) from None
        if isinstance(value, _dt.datetime | _dt.date | bytes):
            # keep timestamps as written (catalogs and CSVs treat them as strings), and binary as text
            return node.value
        if type(value) is float and value in (_INF, -_INF) and node.value not in _INFINITY_SPELLINGS:
            # a number past float64's range (1.0e+999): go-yaml's ParseFloat fails, so opm keeps the text
            return node.value
        return value


def _pyyaml(
    text: str, max_nodes: int, last_key_wins: bool, source: str
) -> Iterator[tuple[Any, int, dict[str, int]]]:
    """Each document of ``text`` as PyYAML reads it: its value, its line and the line of each JSON path.

    Raises:
        YamlContentError: the text is not valid YAML or a mapping repeats a key.
        SafetyLimitError: the documents expand past ``max_nodes``.
    """
    loader = SafeLoader(text)
    builder = _Builder(loader, max_nodes, last_key_wins, source)
    try:
        loader.get_event()  # StreamStartEvent
        while loader.check_event(yaml.DocumentStartEvent):
            yield builder.document()
    except yaml.MarkedYAMLError as exc:
        # the problem's line first, then the context's (each stands in for the other when missing)
        marks: list[int | None] = [m.line + 1 for m in (exc.problem_mark, exc.context_mark) if m is not None]
        marks = marks or [None]
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlContentError(f"invalid YAML: {problem}", marks[0], marks[-1]) from None
    except yaml.YAMLError as exc:
        raise YamlContentError(f"invalid YAML: {exc}", None) from None
    finally:
        loader.dispose()


def document_lines(text: str, below: int = 0, max_nodes: int = DEFAULT_MAX_NODES) -> dict[str, int]:
    """The line of each JSON path of ``text``'s first document, plus ``below``; none if PyYAML refuses it."""
    try:
        for _value, _line, lines in _pyyaml(text, max_nodes, True, ""):
            return {path: line + below for path, line in lines.items()}
    except (YamlContentError, SafetyLimitError):
        pass
    return {}


_YAML_RS_ERROR_LINE = re.compile(r"at line (\d+), column (\d+)")
_DIGITS_AS_ZEROS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))  # the rest as spaces


def _documents(
    text: str,
    plain: bool,
    keys: bool,
    max_nodes: int,
    last_key_wins: bool,
    source: str,
    track: bool,
    rs_words: bool,
) -> Iterator[LocatedDocument]:
    """The documents of ``text``, lazily: yaml-rs's if the scan cleared it (``plain``), else PyYAML's.

    PyYAML also reads it where yaml-rs reads nothing, or a collection as a key where the scan found a
    possible one (``keys``), or refuses it (with ``rs_words``, yaml-rs's words are the error instead).
    ``track``: lines can be asked for.
    """
    if plain:
        policy = yaml_rs.DuplicateKeyPolicy.LastWins if last_key_wins else yaml_rs.DuplicateKeyPolicy.Error
        try:
            value = yaml_rs.loads(text, parse_datetime=False, duplicate_key_policy=policy)
        except yaml_rs.YAMLDecodeError as exc:
            if rs_words:
                message = str(exc)
                where = _YAML_RS_ERROR_LINE.search(message)
                detail = message.splitlines()[0 if "duplicate" in message else -1].strip()
                raise YamlContentError(
                    f"invalid YAML: {detail}", int(where.group(1)) if where else 1
                ) from None
            value = None
        except ValueError:  # an integer past Python's digit limit, a lone surrogate: PyYAML words it
            value = None
        if value is not None and not (keys and _collection_key(value)):
            locate = functools.partial(document_lines, text, 0, max_nodes) if track else None
            return iter([LocatedDocument(value, _first_content_line(text, 1), locate)])
    return (
        LocatedDocument(value, line, None, [lines] if track else [])
        for value, line, lines in _pyyaml(text, max_nodes, last_key_wins, source)
    )


# --------------------------------------------------------------------------------------------- readers


def iter_yaml_documents(
    text: str,
    *,
    track_paths: bool = True,
    max_nodes: int = DEFAULT_MAX_NODES,
    last_key_wins: bool = False,
    source: str = "<input>",
) -> Iterator[LocatedDocument]:
    """The documents of YAML ``text`` as PyYAML reads them.

    yaml-rs reads a text of one document (no ``---`` or ``...`` line) that the scan clears; PyYAML reads
    the rest (a number past Python's digit limit, which it refuses, too) and words every error.
    ``track_paths=False``: no lines are kept or found. ``last_key_wins`` reads a repeated key as Go's YAML
    decoders do (the last value wins, in the first key's place) instead of refusing it.

    Raises:
        YamlContentError: the text is not valid YAML or a mapping repeats a key.
        SafetyLimitError: the text nests too deep, or its documents expand past ``max_nodes``.
    """
    data = text.encode("utf-8", "surrogatepass")
    forbidden = screen_yaml(data, source)  # yaml-rs stops reading at a NUL
    markers = text.startswith(("---", "...")) or "\n---" in text or "\n..." in text
    long_number = b"0" * 4301 in data.translate(_DIGITS_AS_ZEROS)  # past Python's digit limit
    yaml11, keys = _suspects(text.split("\n"))
    plain = forbidden is None and not markers and not long_number and not yaml11
    yield from _documents(text, plain, bool(keys), max_nodes, last_key_wins, source, track_paths, False)


def load_yaml_documents(text: str, **options: Any) -> list[LocatedDocument]:
    """Every document of ``text``; ``options`` as :func:`iter_yaml_documents` takes them."""
    return list(iter_yaml_documents(text, **options))


def iter_kubernetes_documents(
    text: str, *, max_nodes: int = DEFAULT_MAX_NODES, source: str = "<input>"
) -> Iterator[LocatedDocument | YamlContentError]:
    """The documents of YAML ``text`` as opm reads a catalog file, without lines.

    The text is cut at ``---`` lines (:func:`yaml_chunks`), each part is one document (its first), and a
    text without a part is one empty document. A part that cannot be read comes as its error (see
    :func:`_documents`) and the next part is still read. The caller has screened the text
    (:func:`releasekit.io.inputs.screen_yaml`).

    Raises:
        SafetyLimitError: a part expands past ``max_nodes``.
    """
    split = text.split("\n")
    yaml11, keys = _suspects(split)
    lines = split if yaml11 or keys else None
    del split  # without a suspect line every part is yaml-rs's: the lines go now
    parts = 0
    for part, first in yaml_chunks(text):
        parts += 1
        own = lines[first - 1 : first + part.count("\n")] if lines is not None else ()
        plain, content = yaml11.isdisjoint(own), _first_content_line(part, first)
        try:
            docs = list(
                _documents(part, plain, not keys.isdisjoint(own), max_nodes, False, source, False, True)
            )
        except YamlContentError as exc:
            yield YamlContentError(exc.message, first + (exc.line or 1) - 1)
            continue
        value = docs[0].data if docs else None
        # only PyYAML reads a NaN or an infinity (the scan sends .nan, .inf and exponents to it)
        bad = (
            None
            if plain
            else next((v for v in _nested(value) if type(v) is float and not math.isfinite(v)), None)
        )
        if bad is not None:
            spelled = "NaN" if math.isnan(bad) else "+Inf" if bad > 0 else "-Inf"  # as Go spells them
            yield YamlContentError(f"invalid YAML: json: unsupported value: {spelled}", content)
        else:
            yield LocatedDocument(value, content)
    if not parts:
        yield LocatedDocument(None, 1)


def dump_yaml_block(document: Any) -> str:
    """``document`` as deterministic, diff-friendly YAML: block style, its own key order, no line folding."""
    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text: str = yaml.dump(
        document,
        Dumper=dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=1_000_000,
    )
    return text
