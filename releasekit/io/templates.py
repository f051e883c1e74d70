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

import base64
import json
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.exceptions
import jinja2.sandbox
import yaml

from releasekit.errors import TemplateError

__all__ = ["TemplateSet", "load_yaml_text", "to_json", "to_yaml"]

_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_text(text: str) -> Any:
    """``yaml.safe_load`` with the C loader where available (several times faster)."""
    return yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader


def to_json(value: Any) -> str:
    """A JSON scalar or flow value, which is also valid YAML."""
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


class _Dumper(yaml.SafeDumper):
    """Block-style YAML with lists indented under their key (as kubectl and operator-sdk write them)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:  # noqa: ARG002
        super().increase_indent(flow, False)


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block YAML for ``value``, placed after ``key:`` at ``indent`` spaces.

    Mappings and non-empty lists start on the next line, indented; scalars and empty collections stay on
    the key's line (``key: {}``).
    """
    if isinstance(value, Mapping | list | tuple) and value:
        text = yaml.dump(
            json.loads(json.dumps(value)),
            Dumper=_Dumper,
            default_flow_style=False,
            sort_keys=False,
            allow_unicode=True,
            width=100000,
            indent=2,
        )
        pad = " " * indent
        return "\n" + "\n".join(pad + line if line else line for line in text.rstrip("\n").split("\n"))
    return " " + to_json(value if not isinstance(value, tuple) else list(value))


def _b64encode(value: str) -> str:
    return base64.b64encode(value.encode("utf-8")).decode("ascii")


def _template_position(exc: BaseException, root: Path) -> str:
    """``file:line`` of the template frame where ``exc`` happened, from Jinja's rewritten traceback."""
    lineno = getattr(exc, "lineno", None)
    filename = getattr(exc, "filename", None) or getattr(exc, "name", None)
    if lineno and filename:
        return f"{filename}:{lineno}"
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.startswith(str(root)):
            return f"{frame.filename}:{frame.lineno}"
    return str(root)


class TemplateSet:
    """The templates of one folder, rendered in a strict sandbox."""

    def __init__(self, root: Path) -> None:
        """Open the templates in ``root``.

        Raises:
            TemplateError: ``root`` is not a folder.
        """
        if not root.is_dir():
            raise TemplateError(f"{root}: bundle templates folder not found")
        self.root = root.resolve()
        self.env = jinja2.sandbox.ImmutableSandboxedEnvironment(
            loader=jinja2.FileSystemLoader(str(self.root), followlinks=False),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            autoescape=False,
            trim_blocks=False,
        )
        self.env.filters["to_json"] = to_json
        self.env.filters["to_yaml"] = to_yaml
        self.env.filters["b64encode"] = _b64encode
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
        try:
            template = self.env.get_template(name)
            return template.render(**context)
        except jinja2.TemplateNotFound as exc:
            raise TemplateError(f"{self.root / name}: template not found ({exc.message})") from None
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(
                f"{exc.filename or name}:{exc.lineno}: template syntax error: {exc.message}"
            ) from None
        except jinja2.exceptions.SecurityError as exc:
            where = _template_position(exc, self.root)
            raise TemplateError(f"{where}: template tried to leave the sandbox: {exc}") from None
        except jinja2.UndefinedError as exc:
            where = _template_position(exc, self.root)
            raise TemplateError(f"{where}: undefined value in template: {exc.message}") from None
        except (TypeError, ValueError, yaml.YAMLError) as exc:
            where = _template_position(exc, self.root)
            raise TemplateError(f"{where}: template failed: {exc}") from None

    def read_yaml(self, name: str) -> Any:
        """Read a plain YAML data file from the templates folder (prose, facts); read once, then cached."""
        if name in self._yaml_cache:
            return self._yaml_cache[name]
        self._check_name(name)
        path = self.root / name
        try:
            self._yaml_cache[name] = load_yaml_text(path.read_text(encoding="utf-8"))
            return self._yaml_cache[name]
        except OSError as exc:
            raise TemplateError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise TemplateError(f"{path}: invalid YAML: {exc}") from None

    def read_text(self, name: str) -> str:
        """Read a file from the templates folder verbatim."""
        self._check_name(name)
        path = self.root / name
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TemplateError(f"{path}: cannot read: {exc.strerror or exc}") from None
