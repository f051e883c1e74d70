"""Markdown for pull-request comments and GitHub step summaries.

A summary table, the findings (grouped by severity, each with location and hint), and any extra
blocks the command attached (for ``check``: before/after Mermaid upgrade graphs per changed package).
"""

from __future__ import annotations

from releasekit.model.finding import Severity
from releasekit.model.report import Report

__all__ = ["MarkdownReporter"]

_ICON = {Severity.ERROR: "❌", Severity.WARNING: "⚠️", Severity.INFO: "ℹ️"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


class MarkdownReporter:
    """Renders a self-contained Markdown document."""

    def render(self, report: Report) -> str:
        """Return the Markdown text."""
        counts = report.counts
        verdict = "✅ passed" if report.passed else "❌ failed"
        out = [
            f"## releasekit {report.command}: {verdict}",
            "",
            "| errors | warnings | notes | checked |",
            "| ---: | ---: | ---: | ---: |",
            f"| {counts[Severity.ERROR]} | {counts[Severity.WARNING]} | {counts[Severity.INFO]} | {len(report.checked)} |",
            "",
        ]
        findings = report.sorted_findings
        if findings:
            out += ["| | rule | where | finding | how to fix |", "| --- | --- | --- | --- | --- |"]
            for f in sorted(findings, key=lambda f: (f.severity.rank, f.sort_key())):
                where = str(f.location) or " / ".join(f.subject)
                out.append(
                    f"| {_ICON[f.severity]} | `{f.rule}` | {_cell(where)} | {_cell(f.message)} | {_cell(f.hint)} |"
                )
            out.append("")
        else:
            out += ["No findings.", ""]
        for title, block in report.extras:
            out += [f"### {title}", "", block.rstrip("\n"), ""]
        return "\n".join(out)
