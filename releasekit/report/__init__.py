"""Reporters: turn a :class:`~releasekit.model.report.Report` into the text a person or a pipeline reads.

A reporter is any object with ``render(report) -> str`` (see :class:`Reporter`). ``REPORTERS`` maps the
``--format`` names to factories and drives the click choice; adding a format is one class and one entry.
Reporters never print: the CLI writes what they return.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from releasekit.model.report import Report

__all__ = ["REPORTERS", "Reporter", "get_reporter"]


class Reporter(Protocol):
    """Something that renders a report as text."""

    def render(self, report: Report) -> str:
        """Return the whole output for ``report`` (ending with a newline when not empty)."""
        ...


def _text(color: bool) -> Reporter:
    from releasekit.report.text import TextReporter

    return TextReporter(color=color)


def _json(_color: bool) -> Reporter:
    from releasekit.report.json import JsonReporter

    return JsonReporter()


REPORTERS: dict[str, Callable[[bool], Reporter]] = {
    "text": _text,
    "json": _json,
}


def get_reporter(name: str, *, color: bool = False) -> Reporter:
    """Build the reporter registered under ``name``."""
    return REPORTERS[name](color)
