"""Markdown for pull-request comments and GitHub step summaries.

For ``check``: **What this change does** per OpenShift catalog (bundles, channels, default channel and
edges added or removed, the attached before/after graphs), then the findings the change brought, those
the base already had folded in ``<details>``, and the base's findings it fixed.
"""

from __future__ import annotations

from collections.abc import Iterable

from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report, told_by_changes
from releasekit.report._checks import printable_report

__all__ = ["MarkdownReporter"]

_ICON = {Severity.ERROR: "❌", Severity.WARNING: "⚠️", Severity.INFO: "ℹ️"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def _table(findings: Iterable[Finding]) -> list[str]:
    out = ["| | rule | where | finding | how to fix |", "| --- | --- | --- | --- | --- |"]
    for f in sorted(findings, key=lambda f: (f.severity.rank, f.sort_key())):
        where = str(f.location) or " / ".join(f.subject)
        out.append(
            f"| {_ICON[f.severity]} | `{f.rule}` | {_cell(where)} | {_cell(f.message)} | {_cell(f.hint)} |"
        )
    return [*out, ""]


def _changes(report: Report) -> list[str]:
    out = ["### What this change does", ""]
    if not report.changes:
        return [*out, "No catalog changes: no bundle, channel, default channel or upgrade edge moved.", ""]
    for change in report.changes:
        out.append(f"- **{change.openshift}** `{change.package}`")
        out.extend(f"  - {line}" for line in change.lines)
    out.append("")
    for title, block in report.extras:
        out += [f"#### {title}", "", block.rstrip("\n"), ""]
    return out


def _folded(findings: list[Finding], what: str) -> list[str]:
    """``findings`` folded in ``<details>`` (nothing when there are none), for whoever wants to look."""
    if not findings:
        return []
    return [
        "<details>",
        f"<summary>{len(findings)} {what}</summary>",
        "",
        *_table(findings),
        "</details>",
        "",
    ]


def _acknowledged(report: Report) -> list[str]:
    """The acknowledged findings, folded: accepted history."""
    acked = [f for f in report.sorted_findings if report.acknowledgement(f) is not None]
    return _folded(acked, "acknowledged finding(s)")


class MarkdownReporter:
    """Renders a self-contained Markdown document."""

    def render(self, report: Report) -> str:
        """Return the Markdown text."""
        report = printable_report(report)
        n = report.numbers
        verdict = "✅ passed" if report.passed else "❌ failed"
        heads = ["checks", "errors", "warnings", "notes"]
        values: list[int | None] = [n.checks, n.errors, n.warnings, n.info]
        if n.new is None:
            heads, values = [*heads, "checked files"], [*values, len(report.checked)]
        else:
            heads, values = [*heads, "new", "unchanged", "fixed"], [*values, n.new, n.unchanged, n.fixed]
        out = [f"## releasekit {report.command}: {verdict}", "", f"| {' | '.join(heads)} |"]
        out += ["|" + " ---: |" * len(heads), f"| {' | '.join(map(str, values))} |", ""]
        if n.new is None:
            findings = report.open_findings
            out += _table(findings) if findings else ["No findings.", ""]
            out += _acknowledged(report)
            for title, block in report.extras:
                out += [f"### {title}", "", block.rstrip("\n"), ""]
            return "\n".join(out)
        if report.fail_on.value == "new":
            out += ["Only errors this change brings fail the check (`--fail-on new`).", ""]
        out += _changes(report)
        told = told_by_changes(report)
        new = [f for f in report.open_findings if report.is_new(f) and f not in told]
        unchanged = [f for f in report.open_findings if not report.is_new(f)]
        out += ["### Findings this change brings", ""]
        out += _table(new) if new else ["None.", ""]
        out += _folded(unchanged, "finding(s) the base revision already had")
        out += _acknowledged(report)
        if report.fixed:
            out += ["### Findings this change fixes", "", *_table(report.fixed)]
        return "\n".join(out)
