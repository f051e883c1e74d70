"""The JSON report (contract ``releasekit/report/v1``, schema in ``releasekit/schemas/report.schema.json``)."""

from __future__ import annotations

import json
from typing import Any

from releasekit.model.acknowledgement import Acknowledgement
from releasekit.model.finding import Finding
from releasekit.model.report import Report
from releasekit.report._checks import printable_report

__all__ = ["REPORT_SCHEMA_ID", "JsonReporter", "finding_to_json", "report_to_json"]

REPORT_SCHEMA_ID = "releasekit/report/v1"


def finding_to_json(
    finding: Finding, baseline: str | None = None, acknowledged: Acknowledgement | None = None
) -> dict[str, Any]:
    """One finding as the report contract spells it.

    ``baseline`` is ``new`` or ``unchanged``, when known; ``acknowledged`` the acknowledgements file's entry
    that accepts it.
    """
    location: dict[str, Any] = {"file": finding.location.file, "line": finding.location.line}
    if finding.location.path:
        location["path"] = finding.location.path
    out: dict[str, Any] = {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "message": finding.message,
        "location": location,
        "hint": finding.hint,
    }
    if finding.subject:
        out["subject"] = list(finding.subject)
    if finding.facts:
        out["facts"] = dict(finding.facts)
    if baseline is not None:
        out["baseline"] = baseline
    if acknowledged is not None:
        out["acknowledged"] = {
            "reason": acknowledged.reason,
            "location": {"file": acknowledged.location.file, "line": acknowledged.location.line},
        }
    return out


def report_to_json(report: Report) -> dict[str, Any]:
    """The whole report as a JSON-ready dict."""
    n = report.numbers
    summary: dict[str, Any] = {
        "errors": n.errors,
        "warnings": n.warnings,
        "info": n.info,
        "checked": len(report.checked),
        "checks": n.checks,
        "clean": n.clean,
    }
    if n.acknowledged:
        summary["acknowledged"] = n.acknowledged
    out: dict[str, Any] = {
        "schema": REPORT_SCHEMA_ID,
        "command": report.command,
        "passed": report.passed,
        "findings": [
            finding_to_json(
                f,
                state.value if (state := report.state(f)) is not None else None,
                report.acknowledgement(f),
            )
            for f in report.sorted_findings
        ],
        "summary": summary,
    }
    if n.new is not None:
        summary.update(new=n.new, unchanged=n.unchanged, fixed=n.fixed)
        out["failOn"] = report.fail_on.value
        out["fixed"] = [finding_to_json(f) for f in report.fixed]
    if report.changes:
        out["changes"] = [
            {"openshift": c.openshift, "package": c.package, "lines": list(c.lines)} for c in report.changes
        ]
    return out


class JsonReporter:
    """Renders the report contract, two-space indented, keys in contract order."""

    def render(self, report: Report) -> str:
        """Return the JSON document followed by a newline."""
        report = printable_report(report)
        return json.dumps(report_to_json(report), indent=2, ensure_ascii=False) + "\n"
