"""The Jinja2 side of :mod:`releasekit.io.templates`: the bounded sandbox, its loader, and rendering.

Adapter module, imported only when a template is really rendered (importing Jinja2 and compiling the
templates cost ``build`` a tenth of its time). The rules are :mod:`releasekit.io.templates`'.
"""

from __future__ import annotations

import base64
import contextlib
import signal
import string
import threading
import traceback
from _string import formatter_field_name_split  # what str.format splits a field name with
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.exceptions
import jinja2.sandbox

from releasekit.errors import TemplateError
from releasekit.io.inputs import read_input_text

__all__ = ["MAX_ITERATIONS", "MAX_OUTPUT_CHARS", "RENDER_SECONDS", "Engine"]


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`_LimitError` in the main thread after ``seconds``.

    A no-op in another thread, without SIGALRM, or while someone else's interval timer runs.
    """
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
        or signal.getitimer(signal.ITIMER_REAL)[0]
    ):
        yield
        return

    def expired(_signum: int, _frame: object) -> None:
        raise _LimitError(f"rendering took more than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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


RENDER_SECONDS = 20.0
"""Longest one template may render, far beyond what a real one needs; a runaway loop is stopped."""

MAX_OUTPUT_CHARS = 16 * 1024 * 1024
"""Most characters one rendering, or one string or list a template builds, may hold."""

MAX_ITERATIONS = 5_000_000
"""Most ``range`` steps one rendering may take, however its loops nest."""


class _Bounded(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """The sandbox with bounds: ``*`` and ``**`` cannot build huge values, ``range`` steps are counted."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.steps = 0
        self.globals["range"] = self._range

    def _range(self, *args: int) -> Iterator[int]:
        for value in jinja2.sandbox.safe_range(*args):
            self.steps += 1
            if self.steps > MAX_ITERATIONS:
                raise _LimitError(f"loops took more than {MAX_ITERATIONS:,} steps")
            yield value

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int) and abs(right) > 1000:
            raise _LimitError(f"exponent {right} is over 1000")
        if operator == "*":
            for seq, count in ((left, right), (right, left)):
                sized = isinstance(seq, str | list | tuple) and isinstance(count, int)
                if sized and len(seq) * count > MAX_OUTPUT_CHARS:
                    raise _LimitError(f"repeating a value {count:,} times makes it too large")
        return super().call_binop(context, operator, left, right)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """The sandbox's ``str.format``/``format_map``, refusing format strings that name private attributes.

        A field such as ``'{0.__class__}'`` is refused before anything is looked up, as attribute access
        is refused.
        """
        wrapped = super().wrap_str_format(value)
        if wrapped is not None:
            _refuse_private_fields(value.__self__)
        return wrapped


def _refuse_private_fields(text: str) -> None:
    """Raise SecurityError when a field of format string ``text`` reaches for an attribute named ``_...``.

    The fields of nested format specs are checked too; a malformed format string raises ValueError.
    """
    pending = [text]
    while pending:
        for _literal, field, spec, _conversion in string.Formatter().parse(pending.pop()):
            if field is None:
                continue
            _first, rest = formatter_field_name_split(field)
            for is_attribute, name in rest:
                if is_attribute and str(name).startswith("_"):
                    raise jinja2.exceptions.SecurityError(
                        f"access to attribute {name!r} in a format string is unsafe"
                    )
            if spec:
                pending.append(spec)


def _problem(exc: BaseException) -> str:
    """What went wrong while rendering, in words."""
    if isinstance(exc, _LimitError):
        return f"template went past a limit: {exc}"
    if isinstance(exc, jinja2.exceptions.SecurityError):
        return f"template tried to leave the sandbox: {exc}"
    if isinstance(exc, jinja2.UndefinedError):
        return f"undefined value in template: {exc.message}"
    detail = "recursion too deep" if isinstance(exc, RecursionError) else str(exc) or type(exc).__name__
    return f"template failed: {detail}"


class _LimitError(Exception):
    """A template went past a bound (time, size, steps)."""


class _NoLinksLoader(jinja2.BaseLoader):
    """Loads templates by name from one folder under the input policy: regular files, no symlinks at all."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get_source(
        self,
        environment: jinja2.Environment,  # noqa: ARG002 - Jinja's signature
        template: str,
    ) -> tuple[str, str, Callable[[], bool]]:
        parts = Path(template).parts
        if Path(template).is_absolute() or ".." in parts:
            raise jinja2.TemplateNotFound(template)
        path = self.root / template
        for depth in range(1, len(parts)):  # no folder on the way may be a link either
            if (self.root.joinpath(*parts[:depth])).is_symlink():
                raise TemplateError(
                    f"{self.root.joinpath(*parts[:depth])}: is a symbolic link; templates may not contain links"
                )
        if not path.exists() and not path.is_symlink():
            raise jinja2.TemplateNotFound(template)
        text = read_input_text(path, root=self.root, links=False, what="the templates folder")
        mtime = path.stat().st_mtime_ns

        def uptodate() -> bool:  # as FileSystemLoader: compile once, again only when the file changed
            try:
                return path.stat().st_mtime_ns == mtime
            except OSError:
                return False

        return text, str(path), uptodate


class Engine:
    """One bounded sandbox over one templates folder (templates compile once, again when a file changes)."""

    def __init__(self, root: Path, filters: Mapping[str, Callable[..., Any]]) -> None:
        self.root = root
        self.env = _Bounded(
            loader=_NoLinksLoader(self.root),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=True,
            autoescape=False,
            trim_blocks=False,
        )
        self.env.filters.update(filters)
        self.env.filters["b64encode"] = _b64encode

    def render(self, name: str, context: Mapping[str, Any]) -> str:
        """Render template ``name`` (already checked to stay inside the folder) with ``context``.

        Raises:
            TemplateError: the template is missing, invalid, uses an undefined value or breaks the sandbox.
        """
        try:
            return self._bounded_render(self.env.get_template(name), context)
        except jinja2.TemplateNotFound as exc:
            raise TemplateError(f"{self.root / name}: template not found ({exc.message})") from None
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(
                f"{exc.filename or name}:{exc.lineno}: template syntax error: {exc.message}"
            ) from None
        except (_LimitError, jinja2.TemplateError, ArithmeticError, MemoryError, RecursionError) as exc:
            raise TemplateError(f"{_template_position(exc, self.root)}: {_problem(exc)}") from None
        except (TypeError, ValueError, LookupError) as exc:  # a filter or a method given a bad value
            raise TemplateError(f"{_template_position(exc, self.root)}: {_problem(exc)}") from None

    def _bounded_render(self, template: jinja2.Template, context: Mapping[str, Any]) -> str:
        """Render with the bounds: steps, output size, and wall time (an interval timer, main thread only)."""
        self.env.steps = 0
        with _time_limit(RENDER_SECONDS):
            pieces: list[str] = []
            size = 0
            for piece in template.generate(**context):
                size += len(piece)
                if size > MAX_OUTPUT_CHARS:
                    raise _LimitError(f"output is over {MAX_OUTPUT_CHARS:,} characters")
                pieces.append(piece)
            return "".join(pieces)
