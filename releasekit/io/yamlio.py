"""Safe YAML loading that remembers where every value came from.

Adapter module (may read files). Uses PyYAML's C composer when available, then builds plain
Python values from the node tree itself, so that:

- every mapping key and sequence item gets a JSON path (``$.spec.install[0]``) mapped to its 1-based line;
- duplicate keys are reported as content errors with the line of the second key;
- aliases cannot blow up: the composed tree's expanded size is counted (each shared node once) before
  anything is built, and construction counts nodes too, stopping at ``max_nodes``
  (:class:`releasekit.errors.SafetyLimitError`), however the anchors nest;
- nesting deeper than :data:`releasekit.io.inputs.MAX_DEPTH` is refused before parsing, and an integer
  over Python's digit limit is a content error, not a ``ValueError``;
- only plain data types come out (str, int, float, bool, None, list, dict), as ``yaml.safe_load`` gives.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
from collections.abc import Iterable, Iterator
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

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


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
_MERGE_TAG = "tag:yaml.org,2002:merge"
_VALUE_TAG = "tag:yaml.org,2002:value"
_INT_TAG = "tag:yaml.org,2002:int"

_BOOL_TRUE = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}
_INF = float("inf")
_INFINITY_SPELLINGS = frozenset(f"{sign}.{inf}" for sign in ("", "+", "-") for inf in ("inf", "Inf", "INF"))


class _Builder:
    """Turns a composed node tree into plain values, counting nodes and recording lines."""

    def __init__(self, max_nodes: int, track: bool, last_key_wins: bool = False) -> None:
        self.max_nodes = max_nodes
        self.track = track
        self.last_key_wins = last_key_wins
        self.count = 0
        self.lines: dict[str, int] = {}
        self._constructor = yaml.SafeLoader("")  # only its scalar constructors are used

    def build(self, node: yaml.Node, path: str) -> Any:
        self.count += 1
        if self.count > self.max_nodes:
            raise SafetyLimitError(
                f"YAML expands to more than {self.max_nodes:,} nodes (alias expansion?); refusing to load it"
            )
        if self.track:
            self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(child, f"{path}[{i}]") for i, child in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        raise YamlContentError(
            f"unsupported YAML node {node.tag}", node.start_mark.line + 1
        )  # pragma: no cover

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag == _STR_TAG:  # what the constructor gives a string (construct_yaml_str), without the call
            return node.value
        if node.tag == _VALUE_TAG and not node.style:  # plain: None (Python loader) or "" (C loader)
            # a plain "=": PyYAML resolves it to YAML 1.1's value type and has no constructor for it;
            # go-yaml (opm) reads the text, and releasekit's catalog writer writes it unquoted as opm does
            return node.value
        try:
            value = self._constructor.construct_object(node, deep=True)
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
        if isinstance(value, _dt.datetime | _dt.date):
            # keep timestamps as written: catalogs and CSVs treat them as strings
            return node.value
        if isinstance(value, bytes):
            return node.value
        if type(value) is float and value in (_INF, -_INF) and node.value not in _INFINITY_SPELLINGS:
            # a number past float64's range (1.0e+999): go-yaml's ParseFloat fails, so opm keeps the text
            return node.value
        return value

    def _mapping(self, node: yaml.MappingNode, path: str) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        pairs: Iterable[tuple[yaml.Node, yaml.Node]] = node.value
        if any(key_node.tag == _MERGE_TAG for key_node, _ in node.value):
            pairs = _flatten_merge(node)
        for key_node, value_node in pairs:
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlContentError("mapping keys must be scalars", key_node.start_mark.line + 1)
            key = key_node.value if key_node.tag == _STR_TAG else self._scalar(key_node)
            if type(key) is not str and not isinstance(key, str | int | float | bool) and key is not None:
                key = str(key)
            if key in result and not self.last_key_wins:
                raise YamlContentError(
                    f"duplicate key {key!r} (first given earlier in the same mapping)",
                    key_node.start_mark.line + 1,
                )
            child = json_path(path, key)
            if self.track:  # a value's line is its key's line
                self.lines.setdefault(child, key_node.start_mark.line + 1)
            result[key] = self.build(value_node, child)
        return result


def _flatten_merge(node: yaml.MappingNode) -> Iterator[tuple[yaml.Node, yaml.Node]]:
    """Yield key/value node pairs, expanding ``<<`` merge keys (explicit keys win, as in PyYAML)."""
    merged: list[tuple[yaml.Node, yaml.Node]] = []
    own: list[tuple[yaml.Node, yaml.Node]] = []
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE_TAG:
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for source in sources:
                if isinstance(source, yaml.MappingNode):
                    merged.extend(_flatten_merge(source))
        else:
            own.append((key_node, value_node))
    own_keys = {k.value for k, _ in own if isinstance(k, yaml.ScalarNode)}
    seen: set[str] = set()
    for key_node, value_node in merged:
        if key_node.value in own_keys or key_node.value in seen:
            continue
        seen.add(key_node.value)
        yield key_node, value_node
    yield from own


def _check_expansion(root: yaml.Node, budget: int, source: str) -> None:
    """Refuse a document whose aliases expand past ``budget`` nodes, before building anything.

    The composed tree shares one node per anchor, so its expanded size is counted once per distinct node
    (iteratively): an alias bomb is refused in milliseconds, as the catalog path refuses it.
    """
    sizes: dict[int, int] = {}
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, done = pending.pop()
        key = id(node)
        if key in sizes:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        children: list[yaml.Node] = (
            [child for pair in node.value for child in pair]
            if isinstance(node, yaml.MappingNode)
            else list(node.value)
        )
        if done:
            sizes[key] = 1 + sum(sizes.get(id(child), 1) for child in children)
            if sizes[key] > budget:
                raise SafetyLimitError(
                    f"{source}:{node.start_mark.line + 1}: YAML expands to more than {budget:,} nodes "
                    "(alias expansion?); refusing to load it"
                )
            continue
        pending.append((node, True))
        pending.extend((child, False) for child in children if id(child) not in sizes)


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
    budget = max_nodes
    # without an anchor there is no alias, so no node is shared and the builder's own count is the size
    anchored = "&" in text
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # pragma: no cover - check_node said there is one
                break
            if anchored:
                _check_expansion(node, budget, source)
            builder = _Builder(budget, track_paths, last_key_wins)
            data = builder.build(node, "$")
            budget -= builder.count
            yield LocatedDocument(data=data, line=node.start_mark.line + 1, lines=builder.lines)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlContentError(f"invalid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise YamlContentError(f"invalid YAML: {exc}", None) from None
    finally:
        loader.dispose()


def load_yaml_documents(
    text: str,
    *,
    track_paths: bool = True,
    max_nodes: int = DEFAULT_MAX_NODES,
    last_key_wins: bool = False,
    source: str = "<input>",
) -> list[LocatedDocument]:
    """Parse every document of ``text`` (see :func:`iter_yaml_documents`; ``source`` names it in refusals)."""
    return list(
        iter_yaml_documents(
            text, track_paths=track_paths, max_nodes=max_nodes, last_key_wins=last_key_wins, source=source
        )
    )


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
