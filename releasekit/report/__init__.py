"""Reporters: turn a :class:`~releasekit.model.report.Report` into the text a person or a pipeline reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the format names are needed by every command's --help; the model only by reporters
    from releasekit.model.report import Report


class Reporter(Protocol):
    """Something that renders a report as text."""

    def render(self, report: Report) -> str:
        """Return the whole output for ``report`` (ending with a newline when not empty)."""
        ...


def _text(color: bool, verbosity: int = 2) -> Reporter:
    from releasekit.report.text import TextReporter

    return TextReporter(color=color, verbosity=verbosity)


def _json(_color: bool) -> Reporter:
    from releasekit.report.json import JsonReporter

    return JsonReporter()


def _junit(_color: bool) -> Reporter:
    from releasekit.report.junit import JunitReporter

    return JunitReporter()


def _sarif(_color: bool) -> Reporter:
    from releasekit.report.sarif import SarifReporter

    return SarifReporter()


def _github(_color: bool) -> Reporter:
    from releasekit.report.github import GithubReporter

    return GithubReporter()


def _markdown(_color: bool) -> Reporter:
    from releasekit.report.markdown import MarkdownReporter

    return MarkdownReporter()


def source_epoch() -> float:
    """``SOURCE_DATE_EPOCH`` when set (reproducible builds, tests), else the current time."""
    import os
    import time

    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if value:
        try:
            return float(int(value))
        except ValueError:
            pass
    return time.time()


def _konflux(_color: bool) -> Reporter:
    from releasekit.report.konflux import KonfluxReporter

    return KonfluxReporter(epoch=source_epoch())


REPORTERS: dict[str, Callable[[bool], Reporter]] = {
    "text": _text,
    "json": _json,
    "junit": _junit,
    "sarif": _sarif,
    "github": _github,
    "markdown": _markdown,
    "konflux": _konflux,
}


def get_reporter(name: str, *, color: bool = False, verbosity: int = 2) -> Reporter:
    """Build the reporter registered under ``name`` (``verbosity`` matters to the text reporter only)."""
    if name == "text":
        return _text(color, verbosity)
    return REPORTERS[name](color)
