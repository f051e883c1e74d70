"""Jinja2 rendering of ``bundle-templates/``: one sandboxed environment, strict about everything.

Adapter module. Rules:

- a :class:`~jinja2.sandbox.ImmutableSandboxedEnvironment` with ``StrictUndefined`` and
  ``keep_trailing_newline``, so an undefined variable or an attempt to reach Python internals fails;
- templates are loaded by name from the templates folder only (a name with ``..`` or an absolute path is
  refused), so errors carry the template file and line;
- values reach YAML only through the ``to_json`` / ``to_yaml`` filters, never by pasting strings.

Every failure is a :class:`~releasekit.errors.TemplateError` whose message names ``file:line``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from releasekit.errors import SafetyLimitError, TemplateError, one_line
from releasekit.io.inputs import check_nesting, read_input_text
from releasekit.io.yamlio import SafeLoader, YamlContentError, read_exponents_as_floats

if TYPE_CHECKING:
    from releasekit.io.template_engine import Engine

__all__ = ["TemplateSet", "load_yaml_text", "to_json", "to_yaml"]


def load_yaml_text(text: str, *, source: str = "<rendered YAML>") -> Any:
    """``yaml.safe_load`` with the C loader where available (it is faster than the pure-Python one).

    The composed node tree is turned into values by :func:`_plain_value` when it holds only plain strings,
    scalars, lists and mappings (each node used once, no merge keys), as a rendered CSV does; anything
    else, or any error, is loaded again by ``yaml.load`` itself, which gives the value or raises as before.
    Nesting past :data:`~releasekit.io.inputs.MAX_DEPTH` is refused first (``SafetyLimitError``), and an
    integer over Python's digit limit raises ``ValueError``.
    """
    check_nesting(text.encode("utf-8", "surrogatepass"), source, yaml=True)
    loader = SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            return _plain_value(node, loader, set())
        except Exception:  # noqa: BLE001 - below, PyYAML decides from scratch and raises its own error
            pass
    finally:
        loader.dispose()
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader


_YAML_STR = "tag:yaml.org,2002:str"
_YAML_SEQ = "tag:yaml.org,2002:seq"
_YAML_MAP = "tag:yaml.org,2002:map"
_YAML_SPECIAL_KEYS = frozenset({"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})


class _NotPlain(Exception):
    """The node tree needs PyYAML's constructor (aliases, merge keys, other tags)."""


def _plain_value(node: yaml.Node, loader: Any, seen: set[int]) -> Any:
    """What PyYAML's safe constructor makes of ``node``, for plain trees (see :func:`load_yaml_text`).

    A string scalar is its text (``construct_yaml_str``); other scalars go through the loader's own
    ``construct_object``. A collection node met twice (an alias) is left to PyYAML, which shares it.
    """
    kind = type(node)
    if kind is yaml.ScalarNode:
        if node.tag == _YAML_STR:
            return node.value
        return loader.construct_object(node)
    if id(node) in seen:
        raise _NotPlain
    seen.add(id(node))
    if kind is yaml.SequenceNode and node.tag == _YAML_SEQ:
        return [_plain_value(child, loader, seen) for child in node.value]
    if kind is yaml.MappingNode and node.tag == _YAML_MAP:
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not yaml.ScalarNode or key_node.tag in _YAML_SPECIAL_KEYS:
                raise _NotPlain
            mapping[_plain_value(key_node, loader, seen)] = _plain_value(value_node, loader, seen)
        return mapping
    raise _NotPlain


_NOT_YAML_PRINTABLE = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufeff\\ufffe\\uffff]")


def _yaml_printable(json_text: str) -> str:
    r"""``json_text`` with the characters YAML refuses or reads as line breaks written as ``\uXXXX``."""
    if _NOT_YAML_PRINTABLE.search(json_text) is None:
        return json_text
    return _NOT_YAML_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def _reject_undefined(value: Any) -> None:
    """Raise Jinja's own ``UndefinedError`` (naming the variable) for an undefined value."""
    jinja2 = sys.modules.get("jinja2")  # not imported: no rendering, so no Jinja value either
    if jinja2 is not None and isinstance(value, jinja2.Undefined):
        value._fail_with_undefined_error()


def to_json(value: Any) -> str:
    """A JSON scalar or flow value, which is also valid YAML (characters YAML cannot hold raw are escaped)."""
    _reject_undefined(value)
    return _yaml_printable(json.dumps(value, ensure_ascii=False, sort_keys=False))


class _Dumper(yaml.SafeDumper):
    """Block-style YAML with lists indented under their key (as kubectl and operator-sdk write them)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:  # noqa: ARG002
        super().increase_indent(flow, False)


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)
read_exponents_as_floats(_Dumper)


def _to_yaml_pyyaml(value: Any) -> str:
    """The reference emitter: PyYAML's dumper (slow, pure Python); used for anything the fast one declines."""
    return yaml.dump(
        json.loads(json.dumps(value)),
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=100000,
        indent=2,
    )


# ------------------------------------------------------------------ block YAML emitter
#
# For JSON-like data (dict, list, tuple, str, int, float, bool, None) it writes what ``_to_yaml_pyyaml``
# writes, in a fraction of the time. Strings of printable characters take PyYAML's style (its
# ``analyze_scalar`` / ``choose_scalar_style``): plain when the text has no indicator and reads back as a
# string, else single-quoted; multi-line text as a literal block (``|`` / ``|-``). A string PyYAML would
# give another style (control characters, tabs, a line that starts or ends with a space, several trailing
# newlines) is written double-quoted with JSON's escapes, which always reads back exactly (PyYAML's own
# single quotes lose a NEL or a line separator). Other values (non-JSON types, non-string keys, keys over a
# thousand characters) raise ``_Decline`` and go to the reference emitter.


class _Decline(Exception):
    """The emitter leaves this value to PyYAML (which also raises for what JSON cannot hold)."""


_PRINTABLE_SOURCE = (
    "[\\x20-\\x7e\\xa0-\\u2027\\u202a-\\ud7ff\\ue000-\\ufefe\\uff00-\\ufffd\\U00010000-\\U0010fffe]*"
)


def _printable(text: str) -> bool:
    """True when every character of ``text`` is one PyYAML writes as it is (its printable set).

    ASCII text (nearly all of it) is printable exactly when ``str.isprintable`` says so (U+0020..U+007E);
    only other text meets the full pattern, compiled on first use (a class reaching U+10FFFF is costly to
    compile, so start-up does not pay for it).
    """
    if text.isascii():
        return text.isprintable()
    return re.fullmatch(_PRINTABLE_SOURCE, text) is not None  # re caches the compiled pattern


_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_STR_TAG = "tag:yaml.org,2002:str"
_IMPLICIT: dict[Any, list[tuple[str, re.Pattern[str]]]] = SafeLoader.yaml_implicit_resolvers


def _plain_tag(text: str) -> str:
    """The tag a plain scalar ``text`` would be read as (PyYAML's implicit resolvers, as the dumper asks)."""
    for tag, regexp in _IMPLICIT.get(text[0] if text else "", []) + _IMPLICIT.get(None, []):
        if regexp.match(text):
            return tag
    return _STR_TAG


def _double_quoted(text: str) -> str:
    """JSON's string syntax, which YAML reads the same, with YAML's non-printable characters escaped too."""
    return _yaml_printable(json.dumps(text, ensure_ascii=False))


def _inline_str(text: str) -> str:
    """A one-line string as PyYAML writes it in block context (plain or single-quoted)."""
    if not _printable(text):
        return _double_quoted(text)
    plain = bool(text) and not (
        text[0] in _FIRST_INDICATORS
        or (text[0] in "?:-" and (len(text) == 1 or text[1] == " "))
        or text[0] == " "
        or text[-1] == " "
        or text[-1] == ":"
        or ": " in text
        or " #" in text
        or text.startswith(("---", "..."))
    )
    if plain and _plain_tag(text) == _STR_TAG:
        return text
    return "'" + text.replace("'", "''") + "'"


def _literal(text: str, indent: int) -> list[str] | None:
    """A multi-line string as a literal block at ``indent`` (header first), or ``None`` if PyYAML would not."""
    if (
        text[0] in " \n"
        or text[-1] == " "
        or text.endswith("\n\n")
        or " \n" in text
        or not _printable(text.replace("\n", " "))
    ):
        return None
    body = text[:-1] if text[-1] == "\n" else text
    pad = " " * indent
    return ["|" if text[-1] == "\n" else "|-", *(pad + line if line else "" for line in body.split("\n"))]


def _scalar(value: Any) -> str:
    kind = type(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value).lower()
        if "." not in text and "e" in text:
            text = text.replace("e", ".0e", 1)
        return text
    raise _Decline


def _emit_value(value: Any, indent: int, out: list[str], head: str) -> None:
    """Append ``value`` as the value of ``head`` (``"key:"`` or ``"-"`` prefix, already indented)."""
    if isinstance(value, dict):
        if not value:
            out.append(head + " {}")
            return
        if head.endswith("-"):
            _emit_mapping(value, indent, out, first=head + " ")
        else:
            out.append(head)
            _emit_mapping(value, indent, out)
    elif isinstance(value, list | tuple):
        if not value:
            out.append(head + " []")
            return
        if head.endswith("-"):
            _emit_sequence(value, indent, out, first=head + " ")
        else:
            out.append(head)
            _emit_sequence(value, indent, out)
    elif type(value) is str:
        block = _literal(value, indent) if "\n" in value else None
        if block is None:
            text = _double_quoted(value) if "\n" in value else _inline_str(value)
            out.append(f"{head} {text}")
        else:
            out.append(f"{head} {block[0]}")
            out.extend(block[1:])
    else:
        out.append(f"{head} {_scalar(value)}")


def _emit_mapping(value: dict[Any, Any], indent: int, out: list[str], first: str | None = None) -> None:
    pad = " " * indent
    for key, item in value.items():
        if type(key) is not str or len(key) > 1000:
            raise _Decline  # a simple key is at most 1024 characters long
        # PyYAML writes an empty, multi-line or 128+ character key as a complex key (``? key``); a
        # quoted simple key reads back the same
        text = _inline_str(key) if "\n" not in key else _double_quoted(key)
        lead = first if first is not None else pad
        first = None
        _emit_value(item, indent + 2, out, f"{lead}{text}:")


def _emit_sequence(
    value: list[Any] | tuple[Any, ...], indent: int, out: list[str], first: str | None = None
) -> None:
    pad = " " * indent
    for item in value:
        lead = first if first is not None else pad
        first = None
        _emit_value(item, indent + 2, out, f"{lead}-")


def _to_yaml_fast(value: Any) -> str:
    """``_to_yaml_pyyaml(value)`` for a non-empty dict, list or tuple, or ``_Decline``."""
    out: list[str] = []
    if isinstance(value, dict):
        _emit_mapping(value, 0, out)
    else:
        _emit_sequence(value, 0, out)
    return "\n".join(out) + "\n"


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block YAML for ``value``, placed after ``key:`` at ``indent`` spaces.

    Mappings and non-empty lists start on the next line, indented; scalars and empty collections stay on
    the key's line (``key: {}``).
    """
    _reject_undefined(value)
    if isinstance(value, Mapping | list | tuple) and value:
        try:
            text = _to_yaml_fast(value) if isinstance(value, dict | list | tuple) else None
        except _Decline:
            text = None
        if text is None:
            text = _to_yaml_pyyaml(value)
        pad = " " * indent
        return "\n" + "\n".join(pad + line if line else line for line in text.rstrip("\n").split("\n"))
    if type(value) is float:  # YAML 1.1 reads JSON's ``1e+21`` as a string: PyYAML's spelling
        return " " + _scalar(value)
    return " " + to_json(value if not isinstance(value, tuple) else list(value))


class TemplateSet:
    """The templates of one folder, rendered in a strict, bounded sandbox."""

    def __init__(self, root: Path) -> None:
        """Open the templates in ``root``.

        Raises:
            TemplateError: ``root`` is not a folder.
        """
        if not root.is_dir():
            raise TemplateError(f"{root}: bundle templates folder not found")
        self.root = root.resolve()
        self._jinja: Engine | None = None
        self._yaml_cache: dict[str, Any] = {}

    def _check_name(self, name: str) -> None:
        parts = Path(name).parts
        if Path(name).is_absolute() or ".." in parts:
            raise TemplateError(f"{name}: template names must stay inside {self.root}")
        target = (self.root / name).resolve()
        if not target.is_relative_to(self.root):
            raise TemplateError(f"{name}: resolves outside {self.root} (symlink?); refusing it")

    def render(self, name: str, context: Mapping[str, Any]) -> str:
        """Render template ``name`` with ``context``.

        Raises:
            TemplateError: the template is missing, invalid, uses an undefined value or breaks the sandbox.
        """
        self._check_name(name)
        return self._engine().render(name, context)

    def _engine(self) -> Engine:
        """The Jinja2 sandbox, made (and Jinja2 imported) on the first rendering."""
        if self._jinja is None:
            from releasekit.io.template_engine import Engine

            self._jinja = Engine(self.root, {"to_json": to_json, "to_yaml": to_yaml})
        return self._jinja

    def render_yaml(self, name: str, context: Mapping[str, Any]) -> Any:
        """Render template ``name`` and parse the result as one YAML document.

        Raises:
            TemplateError: as :meth:`render`, or the rendered text is not valid YAML (a value broke it):
                the message names the template line that wrote the bad line.
        """
        self._check_name(name)
        text = self._engine().render(name, context)

        try:
            return load_yaml_text(text, source=name)
        except (yaml.YAMLError, YamlContentError, ValueError, SafetyLimitError) as exc:
            mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
            out_line = mark.line + 1 if mark is not None else getattr(exc, "line", None)
            where = self._source_line(name, text, out_line)
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise TemplateError(
                f"{where}: the rendered YAML is invalid at output line {out_line}: {problem} "
                "(a value reached the YAML without the to_json/to_yaml filter?)"
            ) from None

    def _source_line(self, name: str, text: str, out_line: int | None) -> str:
        """``template:line`` of the template line that most likely wrote output line ``out_line``."""
        path = self.root / name
        if out_line is None:
            return str(path)
        lines = text.splitlines()
        rendered = lines[out_line - 1] if 0 < out_line <= len(lines) else ""
        key = rendered.strip().split(":", 1)[0].lstrip("- ").strip()
        try:
            source = read_input_text(path, root=self.root, links=False, what="the templates folder")
        except (OSError, ValueError):
            return str(path)
        if key:
            for number, line in enumerate(source.splitlines(), start=1):
                if line.strip().lstrip("- ").startswith(f"{key}:"):
                    return f"{path}:{number}"
        return str(path)

    def read_yaml(self, name: str) -> Any:
        """Read a plain YAML data file from the templates folder (prose, facts); read once, then cached."""
        if name in self._yaml_cache:
            return self._yaml_cache[name]
        self._check_name(name)
        path = self.root / name
        text = read_input_text(path, root=self.root, links=False, what="the templates folder")
        try:
            self._yaml_cache[name] = load_yaml_text(text, source=str(path))
            return self._yaml_cache[name]
        except (yaml.YAMLError, ValueError) as exc:
            raise TemplateError(f"{path}: invalid YAML: {one_line(exc)}") from None
