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

from releasekit.errors import TemplateError, one_line
from releasekit.io.inputs import read_input_text
from releasekit.io.yamlio import YamlContentError, load_yaml_documents, read_exponents_as_floats

if TYPE_CHECKING:
    from releasekit.io.template_engine import Engine

__all__ = ["TemplateSet", "load_yaml_text", "to_json", "to_yaml"]


def load_yaml_text(text: str, *, source: str = "<rendered YAML>") -> Any:
    """The value of the one YAML document in ``text`` (``None`` if there is none), read by yamlio.

    A repeated key keeps its last value, as PyYAML and Go read it. Raises ``YamlContentError`` for text
    that is not one valid YAML document and ``SafetyLimitError`` past the nesting or node limits.
    """
    documents = load_yaml_documents(text, track_paths=False, last_key_wins=True, source=source)
    if len(documents) > 1:
        raise YamlContentError("invalid YAML: expected a single document", documents[1].line)
    return documents[0].data if documents else None


_NOT_YAML_PRINTABLE = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufeff\\ufffe\\uffff]")


def _yaml_printable(json_text: str) -> str:
    r"""``json_text`` with the characters YAML refuses or reads as line breaks written as ``\uXXXX``."""
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


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """PyYAML's safe dumper, libyaml's emitter where available, with strings in a style that reads back."""


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    """A literal block for multi-line text; double quotes where YAML would read a line break differently.

    A literal block that ends in an empty line (``|+``) would lose it when :func:`to_yaml` trims the
    block's end, and a line or paragraph separator counts as a line break in plain or single-quoted
    text: both are double-quoted (escaped) instead. The emitter still picks double quotes for text a
    literal block cannot hold (trailing spaces, control characters).
    """
    style = None
    if "\u2028" in data or "\u2029" in data or data == "\n" or data.endswith("\n\n"):
        style = '"'
    elif "\n" in data:
        style = "|"
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _represent_str)
read_exponents_as_floats(_Dumper)


def _dump(value: Any) -> str:
    return yaml.dump(
        value, Dumper=_Dumper, default_flow_style=False, sort_keys=False, allow_unicode=True, width=100000
    )


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block YAML for ``value``, placed after ``key:`` at ``indent`` spaces.

    Mappings and non-empty lists start on the next line, indented; scalars and empty collections stay on
    the key's line (``key: {}``). The value is taken as JSON takes it (tuples are lists, keys strings;
    anything else is a ``TypeError``). Lists inside a mapping are not indented under their key, as go-yaml
    and libyaml write them.
    """
    _reject_undefined(value)
    if isinstance(value, Mapping | list | tuple) and value:
        pad = " " * indent
        lines = _dump(json.loads(json.dumps(value))).rstrip("\n").split("\n")
        return "\n" + "\n".join(pad + line if line else line for line in lines)
    if type(value) is float:  # YAML 1.1 reads JSON's ``1e+21`` as a string: PyYAML's spelling
        return " " + _dump(value).split("\n", 1)[0]
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
        text = self.render(name, context)
        try:
            return load_yaml_text(text, source=name)
        except ValueError as exc:  # YamlContentError or SafetyLimitError
            # the parser notices a problem where it stops, often the line after the broken value
            out_line = getattr(exc, "context_line", None) or getattr(exc, "line", None)
            where = self._source_line(name, text, out_line)
            problem = str(exc).splitlines()[0].removeprefix("invalid YAML: ")
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
        except ValueError as exc:
            raise TemplateError(f"{path}: {one_line(exc)}") from None
