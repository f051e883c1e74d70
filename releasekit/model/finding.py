"""Findings: what every rule returns (rule id, severity, message, location, hint).

Pure core: no I/O. ``subject`` names what a finding is about, outermost first (package, channel, bundle).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "Finding",
    "Findings",
    "Location",
    "Severity",
    "has_errors",
    "make_finding",
    "nearest_line",
    "sort_findings",
]


def nearest_line(lines: Mapping[str, int], path: str) -> int | None:
    """The line of JSON path ``path`` in ``lines``, or of its nearest recorded ancestor, or ``None``."""
    while True:
        line = lines.get(path)
        if line is not None or not path:
            return line
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""


class Severity(enum.StrEnum):
    """How bad a finding is. Only ``error`` makes a command exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Sort rank: errors first."""
        return {"error": 0, "warning": 1, "info": 2}[self.value]


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class Location:
    """Where a finding points: a file (as given, relative where possible), a 1-based line and a JSON path."""

    file: str = ""
    line: int | None = None
    path: str = ""

    def __str__(self) -> str:
        text = self.file
        if self.file and self.line is not None:
            text = f"{self.file}:{self.line}"
        if self.path:
            text = f"{text}: {self.path}" if text else self.path
        return text


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One result of one rule about one subject.

    ``facts`` tell apart two findings of one rule about one subject (an OpenShift upgrade's ``from`` and
    ``to``); with ``rule`` and ``subject`` they are the identity an acknowledgement names.
    """

    rule: str
    severity: Severity
    message: str
    location: Location = field(default_factory=Location)
    hint: str = ""
    subject: tuple[str, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()

    def sort_key(self) -> tuple[str, int, str, tuple[str, ...], int, str, str]:
        """Deterministic order: by file, line, subject, severity, rule and message."""
        return (
            self.location.file,
            self.location.line or 0,
            self.location.path,
            self.subject,
            self.severity.rank,
            self.rule,
            self.message,
        )


def make_finding(
    rule: str,
    message: str,
    where: Location,
    hint: str,
    subject: tuple[str, ...],
    severity: Severity = Severity.ERROR,
) -> Finding:
    """A finding from positional parts, the short form rule modules use."""
    return Finding(rule=rule, severity=severity, message=message, location=where, hint=hint, subject=subject)


class Findings(list[Finding]):
    """The findings a rule collects, each added in one call."""

    def add(
        self,
        rule: str,
        message: str,
        where: Location,
        hint: str,
        subject: tuple[str, ...] = (),
        severity: Severity = Severity.ERROR,
    ) -> None:
        """Append :func:`make_finding` of the same arguments."""
        self.append(make_finding(rule, message, where, hint, subject, severity))


def sort_findings(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Return findings in the one order every reporter uses."""
    return tuple(sorted(findings, key=Finding.sort_key))


def has_errors(findings: Iterable[Finding]) -> bool:
    """True when any finding is an error (exit code 1)."""
    return any(f.severity is Severity.ERROR for f in findings)
