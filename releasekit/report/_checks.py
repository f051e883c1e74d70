"""Grouping shared by reporters that count checks (JUnit, Konflux): one check per rule and subject."""

from __future__ import annotations

from collections import defaultdict

from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report

__all__ = ["checks_by_rule_and_subject", "clean_rules", "subject_text"]


def subject_text(finding: Finding) -> str:
    """The subject as one string (``package "p" / channel "c"``), else the file, else ``catalog``."""
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
    """Rules that ran and found nothing of severity warning or error."""
    noisy = {f.rule for f in report.findings if f.severity is not Severity.INFO}
    return tuple(sorted(set(report.rules) - noisy))
