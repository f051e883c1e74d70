"""GitHub Actions workflow commands: ``::error file=…,line=…,title=…::message``.

GitHub shows at most 10 annotations of each kind per step, so at most :data:`MAX_PER_KIND` are written per
kind and a closing notice counts the rest. With a baseline only the findings the change brought are
annotated. The Markdown step summary is the CLI's job (``$GITHUB_STEP_SUMMARY``).
"""

from __future__ import annotations

from releasekit.model.finding import Severity
from releasekit.model.report import Report
from releasekit.report._checks import numbers_phrase, printable_report

__all__ = ["MAX_PER_KIND", "GithubReporter", "escape_data", "escape_property"]

MAX_PER_KIND = 10
_KIND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Escape a workflow-command message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class GithubReporter:
    """Renders annotations, capped per kind."""

    def render(self, report: Report) -> str:
        """Return one workflow command per line."""
        report = printable_report(report)
        lines: list[str] = []
        shown = dict.fromkeys(Severity, 0)
        hidden = dict.fromkeys(Severity, 0)
        for f in report.sorted_findings:
            if not report.is_new(f) or report.acknowledgement(f) is not None:
                continue  # the base had it, or the repository acknowledged it: counted, not annotated
            if shown[f.severity] >= MAX_PER_KIND:
                hidden[f.severity] += 1
                continue
            shown[f.severity] += 1
            props = []
            if f.location.file:
                props.append(f"file={escape_property(f.location.file)}")
                if f.location.line is not None:
                    props.append(f"line={f.location.line}")
            props.append(f"title={escape_property(f.rule)}")
            message = f.message + (f"\nhint: {f.hint}" if f.hint else "")
            lines.append(f"::{_KIND[f.severity]} {','.join(props)}::{escape_data(message)}")
        for severity, count in hidden.items():
            if count:
                lines.append(
                    f"::notice title=releasekit::{count} more {_KIND[severity]} finding(s) not shown as "
                    "annotations; see the step summary or run with --format text"
                )
        verdict = "passed" if report.passed else "failed"
        lines.append(f"releasekit {report.command} {verdict}: {numbers_phrase(report)}")
        return "\n".join(lines) + "\n"
