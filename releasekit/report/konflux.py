"""Konflux's TEST_OUTPUT object: ``{result, timestamp, note, namespace, successes, failures, warnings}``.

``result`` is FAILURE with any error, WARNING with warnings only, SUCCESS otherwise, and SKIPPED when
nothing was checked (the CLI writes ERROR itself when input could not be read). The timestamp honours
``SOURCE_DATE_EPOCH`` so tests and reproducible builds get fixed bytes; it is passed in by the factory,
never read here.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from releasekit.model.finding import Severity
from releasekit.model.report import Report
from releasekit.report._checks import clean_rules

__all__ = ["KonfluxReporter", "konflux_error", "konflux_timestamp"]

NAMESPACE = "releasekit"
_NOTE_RULES = 5  # rule ids named in the note; the rest are in the full report


def konflux_timestamp(epoch: float) -> str:
    """Format like Konflux tasks do (``date -u +%Y-%m-%dT%H:%M:%S%z``)."""
    return dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%S%z")


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def konflux_error(note: str, epoch: float) -> str:
    """TEST_OUTPUT for input that could not be read."""
    return _dump(
        {
            "result": "ERROR",
            "timestamp": konflux_timestamp(epoch),
            "note": note,
            "namespace": NAMESPACE,
            "successes": 0,
            "failures": 0,
            "warnings": 0,
        }
    )


@dataclass(frozen=True)
class KonfluxReporter:
    """Renders TEST_OUTPUT as one compact JSON line."""

    epoch: float

    def render(self, report: Report) -> str:
        """Return the TEST_OUTPUT JSON."""
        counts = report.counts
        errors, warnings = counts[Severity.ERROR], counts[Severity.WARNING]
        if errors:
            result = "FAILURE"
        elif warnings:
            result = "WARNING"
        elif not report.checked:
            result = "SKIPPED"  # nothing was there to check (an empty catalog folder, no streams)
        else:
            result = "SUCCESS"
        successes = len(clean_rules(report)) if report.rules else len(report.checked) if not errors else 0
        failing = sorted({f.rule for f in report.findings if f.severity is Severity.ERROR})
        note = f"releasekit {report.command}: {errors} error(s), {warnings} warning(s)"
        if failing:
            shown = ", ".join(failing[:_NOTE_RULES]) + (", ..." if len(failing) > _NOTE_RULES else "")
            note += f" ({shown}); run releasekit with --format text for details"
        return _dump(
            {
                "result": result,
                "timestamp": konflux_timestamp(self.epoch),
                "note": note,
                "namespace": NAMESPACE,
                "successes": successes,
                "failures": errors,
                "warnings": warnings,
            }
        )
