"""SARIF 2.1.0, for GitHub code scanning upload and Konflux's SARIF conversion."""

from __future__ import annotations

import json
from typing import Any

from releasekit import __version__
from releasekit.model.finding import Severity
from releasekit.model.report import Report

__all__ = ["SarifReporter"]

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


class SarifReporter:
    """Renders one SARIF run with a rule entry per rule id that ran or fired."""

    def render(self, report: Report) -> str:
        """Return the SARIF log as JSON."""
        findings = report.sorted_findings
        rule_ids = sorted({*report.rules, *(f.rule for f in findings)})
        index = {rule: i for i, rule in enumerate(rule_ids)}
        results: list[dict[str, Any]] = []
        for f in findings:
            text = f.message + (f"\nhint: {f.hint}" if f.hint else "")
            result: dict[str, Any] = {
                "ruleId": f.rule,
                "ruleIndex": index[f.rule],
                "level": _LEVEL[f.severity],
                "message": {"text": text},
            }
            if f.location.file:
                physical: dict[str, Any] = {"artifactLocation": {"uri": f.location.file}}
                if f.location.line is not None:
                    physical["region"] = {"startLine": f.location.line}
                location: dict[str, Any] = {"physicalLocation": physical}
                if f.subject or f.location.path:
                    name = " / ".join(f.subject) or f.location.path
                    location["logicalLocations"] = [{"fullyQualifiedName": name}]
                result["locations"] = [location]
            results.append(result)
        log = {
            "$schema": _SCHEMA,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {
                        "driver": {
                            "name": "releasekit",
                            "version": __version__,
                            "rules": [{"id": rule, "name": rule.replace("-", "")} for rule in rule_ids],
                        }
                    },
                    "results": results,
                }
            ],
        }
        return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
