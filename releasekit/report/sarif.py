"""SARIF 2.1.0, for GitHub code scanning upload and Konflux's SARIF conversion.

Each rule is a ``reportingDescriptor`` with descriptions, help and a ``helpUri`` into ``docs/rules.md``
(repository-relative unless ``--rules-url`` gives an absolute base). With a baseline each result carries
``baselineState`` and the run's properties count the fixed findings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from releasekit import __version__
from releasekit.model.finding import Severity
from releasekit.model.report import Report
from releasekit.model.ruledoc import RuleDoc, rule_anchor
from releasekit.report._checks import numbers_fields, printable_report

__all__ = ["DEFAULT_RULES_URL", "SarifReporter"]

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
DEFAULT_RULES_URL = "docs/rules.md"
"""Where ``helpUri`` points without ``--rules-url``: the repository's rule reference."""


def _descriptor(rule: str, doc: RuleDoc | None, rules_url: str) -> dict[str, Any]:
    out: dict[str, Any] = {"id": rule, "name": rule.replace("-", "")}
    if doc is None:
        return out
    help_text = f"{doc.title}.\n\nWhy: {doc.why}\n\nExample: {doc.example}\n\nFix: {doc.fix}"
    out.update(
        shortDescription={"text": doc.title},
        fullDescription={"text": f"{doc.title}. {doc.why}"},
        help={
            "text": help_text,
            "markdown": f"**{doc.title}**\n\n**Why**: {doc.why}\n\n**Example**: {doc.example}\n\n**Fix**: {doc.fix}",
        },
        helpUri=f"{rules_url}#{rule_anchor(rule)}",
    )
    if doc.severity is not None:
        out["defaultConfiguration"] = {"level": _LEVEL[doc.severity]}
    return out


@dataclass(frozen=True)
class SarifReporter:
    """Renders one SARIF run with a rule entry per rule id that ran or fired."""

    docs: Mapping[str, RuleDoc] = field(default_factory=dict)
    rules_url: str = DEFAULT_RULES_URL

    def render(self, report: Report) -> str:
        """Return the SARIF log as JSON."""
        report = printable_report(report)
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
            state = report.state(f)
            if state is not None:
                result["baselineState"] = state.value
            ack = report.acknowledgement(f)
            if ack is not None:  # kept as a result, marked suppressed: SARIF viewers hide it by default
                suppression: dict[str, Any] = {
                    "kind": "external",
                    "status": "accepted",
                    "justification": ack.reason,
                }
                if ack.location.file:
                    physical = {"artifactLocation": {"uri": ack.location.file}}
                    if ack.location.line is not None:
                        physical["region"] = {"startLine": ack.location.line}
                    suppression["location"] = {"physicalLocation": physical}
                result["suppressions"] = [suppression]
            results.append(result)
        base = self.rules_url.rstrip("#")
        driver: dict[str, Any] = {
            "name": "releasekit",
            "version": __version__,
            "rules": [_descriptor(rule, self.docs.get(rule), base) for rule in rule_ids],
        }
        if "://" in base:  # SARIF wants an absolute URI here; a relative reference only in helpUri
            driver["informationUri"] = base
        log = {
            "$schema": _SCHEMA,
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {"driver": driver},
                    "results": results,
                    "properties": numbers_fields(report),
                }
            ],
        }
        return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
