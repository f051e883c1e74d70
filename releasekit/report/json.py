"""The JSON report (contract ``releasekit/report/v1``, schema in ``releasekit/schemas/report.schema.json``)."""

from __future__ import annotations

import json
from typing import Any

from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report

__all__ = ["REPORT_SCHEMA_ID", "JsonReporter", "finding_to_json", "report_to_json"]

REPORT_SCHEMA_ID = "releasekit/report/v1"


def finding_to_json(finding: Finding) -> dict[str, Any]:
    """One finding as the report contract spells it."""
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
    return out


def report_to_json(report: Report) -> dict[str, Any]:
    """The whole report as a JSON-ready dict."""
    counts = report.counts
    return {
        "schema": REPORT_SCHEMA_ID,
        "command": report.command,
        "passed": report.passed,
        "findings": [finding_to_json(f) for f in report.sorted_findings],
        "summary": {
            "errors": counts[Severity.ERROR],
            "warnings": counts[Severity.WARNING],
            "info": counts[Severity.INFO],
            "checked": len(report.checked),
        },
    }


class JsonReporter:
    """Renders the report contract, two-space indented, keys in contract order."""

    def render(self, report: Report) -> str:
        """Return the JSON document followed by a newline."""
        return json.dumps(report_to_json(report), indent=2, ensure_ascii=False) + "\n"
