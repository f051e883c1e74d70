"""What several reporters share: checks grouped by rule and subject, and the one set of numbers in words."""

from __future__ import annotations

from collections import defaultdict

from releasekit.model.finding import Finding
from releasekit.model.report import Report

__all__ = ["checks_by_rule_and_subject", "clean_rules", "numbers_phrase", "subject_text"]


def subject_text(finding: Finding) -> str:
    """The subject as one string (``package "p" / channel "c"``), else the file, else ``input``."""
    if finding.subject:
        return " / ".join(finding.subject)
    return finding.location.file or "input"


def checks_by_rule_and_subject(report: Report) -> dict[tuple[str, str], list[Finding]]:
    """Findings grouped by (rule id, subject), in sorted order."""
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in report.sorted_findings:
        groups[(finding.rule, subject_text(finding))].append(finding)
    return dict(sorted(groups.items()))


def clean_rules(report: Report) -> tuple[str, ...]:
    """Rules that ran and found nothing at all."""
    return report.clean_rules


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def numbers_phrase(report: Report) -> str:
    """``3 errors, 13 warnings, 2 notes; 87 checks run, 80 clean; 1 new, 17 unchanged, 0 fixed``."""
    n = report.numbers
    parts = [_plural(n.errors, "error"), _plural(n.warnings, "warning"), _plural(n.info, "note")]
    text = f"{', '.join(parts)}; {_plural(n.checks, 'check')} run, {n.clean} clean"
    if n.new is not None:
        text += f"; {n.new} new, {n.unchanged} unchanged, {n.fixed} fixed"
    if n.acknowledged:
        text += f"; {n.acknowledged} acknowledged"
    return text
