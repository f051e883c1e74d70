"""The result of a judging command, as reporters receive it. Pure core."""

from __future__ import annotations

from dataclasses import dataclass

from releasekit.model.finding import Finding, Severity, count_by_severity, has_errors, sort_findings

__all__ = ["Report"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Findings of one command run plus what was checked.

    Attributes:
        command: the command that produced it, e.g. ``"catalog validate"``.
        findings: every finding, in any order (``sorted_findings`` gives the reporting order).
        checked: the subjects that were checked (files, packages, bundles); reporters that count
            successes (JUnit, Konflux) use it.
        rules: the rule ids that ran, so JUnit can list passing rules too.
        extras: Markdown blocks a reporter may append (e.g. Mermaid graphs), keyed by title.
    """

    command: str
    findings: tuple[Finding, ...] = ()
    checked: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    extras: tuple[tuple[str, str], ...] = ()

    @property
    def passed(self) -> bool:
        """True when no finding is an error."""
        return not has_errors(self.findings)

    @property
    def sorted_findings(self) -> tuple[Finding, ...]:
        """Findings in the one deterministic order."""
        return sort_findings(self.findings)

    @property
    def counts(self) -> dict[Severity, int]:
        """Number of findings per severity."""
        return count_by_severity(self.findings)
