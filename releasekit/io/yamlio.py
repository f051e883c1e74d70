"""Safe YAML loading that remembers where every value came from.

Adapter module (may read files). Builds plain Python values from the events of PyYAML's parser (C where
available) in one pass, so that:

- every mapping key and sequence item gets a JSON path (``$.spec.install[0]``) mapped to its 1-based line;
- duplicate keys are reported as content errors with the line of the second key;
- aliases cannot blow up: an alias counts the nodes of the value it names (built once and shared), and
  the count stops at ``max_nodes`` (:class:`releasekit.errors.SafetyLimitError`), however the anchors nest;
- nesting deeper than :data:`releasekit.io.inputs.MAX_DEPTH` is refused before parsing, and an integer
  over Python's digit limit is a content error, not a ``ValueError``;
- only plain data types come out (str, int, float, bool, None, list, dict), as ``yaml.safe_load`` gives.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from releasekit.errors import SafetyLimitError
from releasekit.io.inputs import check_nesting
from releasekit.model.finding import nearest_line

__all__ = [
    "DEFAULT_MAX_NODES",
    "EXPONENT_FLOAT",
    "SafeLoader",
    "LocatedDocument",
    "YamlContentError",
    "iter_yaml_documents",
    "json_path",
    "dump_yaml_block",
    "load_yaml_documents",
    "read_exponents_as_floats",
]

DEFAULT_MAX_NODES = 1_000_000
"""Most nodes one file may expand to (aliases counted at every use); far above any real catalog."""

try:  # the C loader is much faster; fall back to the pure-Python one where libyaml is missing
    _BaseLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _BaseLoader = yaml.SafeLoader


class SafeLoader(_BaseLoader):  # type: ignore[misc]
    """PyYAML's safe loader (C where available) reading exponent numbers as floats (:data:`EXPONENT_FLOAT`)."""


EXPONENT_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$")
"""A number with an exponent, which YAML 1.2 and go-yaml (opm) read as a float. PyYAML's YAML 1.1 pattern
wants a dot and a signed exponent, so it would read ``1e-06`` -- how opm and releasekit write a small
float -- as a string; releasekit reads it as opm does."""


def read_exponents_as_floats(cls: Any) -> None:
    """Give a PyYAML loader or dumper class :data:`EXPONENT_FLOAT` (a dumper then quotes such strings)."""
    cls.add_implicit_resolver("tag:yaml.org,2002:float", EXPONENT_FLOAT, list("-+.0123456789"))


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
    lines: dict[str, int] = field(default_factory=dict)
    _sorted: list[str] = field(default_factory=list, compare=False, repr=False)

    def line_of(self, path: str) -> int:
        """Line of ``path``, or of its nearest recorded ancestor, or of the document."""
        line = nearest_line(self.lines, path)
        return self.line if line is None else line

    def lines_under(self, path: str) -> list[tuple[str, int]]:
        """(relative path, line) of ``path`` and of every path below it, sorted by relative path.

        The recorded paths are sorted once (on the first call), so that each call only bisects to the
        paths that start with ``path``.
        """
        if not self._sorted and self.lines:
            self._sorted.extend(sorted(self.lines))
        keys = self._sorted
        cut = len(path)
        found = []
        for index in range(bisect.bisect_left(keys, path), len(keys)):
            sub = keys[index]
            if not sub.startswith(path):
                break
            if len(sub) == cut or sub[cut] in ".[":  # the path itself, or below it (not $.ab for $.a)
                found.append((sub[cut:], self.lines[sub]))
        return found  # the keys share ``path`` as a prefix, so their order is their tails' order


def json_path(parent: str, key: object) -> str:
    """Extend a JSON path with a mapping key or a sequence index."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    text = str(key)
    if text.replace("_", "a").replace("-", "a").isalnum():
        return f"{parent}.{text}"
    return f"{parent}[{text!r}]"


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

    def __init__(self, loader: Any, max_nodes: int, track: bool, last_key_wins: bool, source: str) -> None:
        self.loader = loader
        self.max_nodes = max_nodes
        self.track = track
        self.last_key_wins = last_key_wins
        self.source = source
        self.count = 0
        self.constructor = yaml.constructor.SafeConstructor()
        self.plain: dict[str, Any] = {}  # the value of each plain scalar text seen
        self.anchors: dict[str, tuple[Any, int]] = {}  # value and node count
        self.named: set[str] = set()  # every anchor given so far, the open collections' too
        self.lines: dict[str, int] = {}

    def document(self) -> LocatedDocument:
        """The next document (the loader stands before its ``DocumentStartEvent``)."""
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
                return LocatedDocument(data=root.value[0], line=line, lines=self.lines)
            elif top.key is _NO_KEY and type(top.value) is dict:
                self._key(top, event)
            else:
                self._node(event, top, stack)

    def _node(self, event: Any, top: _Open, stack: list[_Open]) -> None:
        """Count a value's node and place a scalar or alias, or open a collection."""
        at = event.start_mark.line + 1
        path = top.child
        if self.track and type(top.value) is list:
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
        if self.track and key is not _MERGE:
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


def iter_yaml_documents(
    text: str,
    *,
    track_paths: bool = True,
    max_nodes: int = DEFAULT_MAX_NODES,
    last_key_wins: bool = False,
    source: str = "<input>",
) -> Iterator[LocatedDocument]:
    """Parse multi-document YAML text lazily.

    ``last_key_wins`` reads a repeated key as Go's YAML decoders do (the last value wins, in the first
    key's place) instead of refusing it.

    Raises:
        YamlContentError: the text is not valid YAML or a mapping repeats a key.
        SafetyLimitError: the documents expand past ``max_nodes``.
    """
    check_nesting(text.encode("utf-8", "surrogatepass"), source, yaml=True)
    loader = SafeLoader(text)
    builder = _Builder(loader, max_nodes, track_paths, last_key_wins, source)
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


def load_yaml_documents(text: str, **options: Any) -> list[LocatedDocument]:
    """Every document of ``text``; ``options`` as :func:`iter_yaml_documents` takes them."""
    return list(iter_yaml_documents(text, **options))


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
