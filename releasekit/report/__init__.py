"""Reporters: turn a :class:`~releasekit.model.report.Report` into the text a person or a pipeline reads.

A reporter is any object with ``render(report) -> str``; :data:`REPORTERS` maps the ``--format`` names to
them (one class and one entry per format). Reporters import only :mod:`releasekit.model` and never print:
the CLI writes what they return.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:  # the format names are needed by every command's --help; the model only by reporters
    from releasekit.model.report import Report

__all__ = ["REPORTERS", "Reporter", "get_reporter", "source_epoch"]


class Reporter(Protocol):
    """Something that renders a report as text."""

    def render(self, report: Report) -> str:
        """Return the whole output for ``report`` (ending with a newline when not empty)."""
        ...


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


REPORTERS: dict[str, str] = {
    "text": "text.TextReporter",
    "json": "json.JsonReporter",
    "junit": "junit.JunitReporter",
    "sarif": "sarif.SarifReporter",
    "github": "github.GithubReporter",
    "markdown": "markdown.MarkdownReporter",
    "konflux": "konflux.KonfluxReporter",
}
"""Format name -> ``module.Class`` below :mod:`releasekit.report`, imported when asked for."""


def get_reporter(name: str, *, color: bool = False, verbosity: int = 2) -> Reporter:
    """Build the reporter registered under ``name`` (``verbosity`` matters to the text reporter only)."""
    import importlib

    module, cls = REPORTERS[name].split(".")
    reporter: Any = getattr(importlib.import_module(f"releasekit.report.{module}"), cls)
    if name == "text":
        return cast(Reporter, reporter(color=color, verbosity=verbosity))
    return cast(Reporter, reporter(epoch=source_epoch()) if name == "konflux" else reporter())
