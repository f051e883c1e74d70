"""Konflux's TEST_OUTPUT object: ``{result, timestamp, note, namespace, successes, failures, warnings}``.

``result`` is FAILURE when an error fails the check, WARNING with warnings or errors that do not fail it,
SKIPPED when nothing was checked, else SUCCESS; with ``--fail-on new`` only new findings count (the
counts still report every finding). ERROR, for unreadable input, is :func:`konflux_error`'s. The counts:
``successes`` the rules that found nothing, ``failures`` errors, ``warnings`` warnings. The timestamp is
passed in (``SOURCE_DATE_EPOCH`` honoured by the factory), never read here.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from releasekit.model.finding import Severity
from releasekit.model.report import FailOn, Report
from releasekit.report._checks import numbers_phrase, printable_report

__all__ = ["KonfluxReporter", "konflux_error", "konflux_timestamp"]

NAMESPACE = "releasekit"
_NOTE_RULES = 5  # rule ids named in the note; the rest are in the full report


def konflux_timestamp(epoch: float) -> str:
    """RFC 3339 in UTC (``2026-01-01T00:00:00+00:00``), as ``date -u --rfc-3339=seconds`` writes it with a T."""
    return dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC).isoformat(timespec="seconds")


def _dump(
    result: str, epoch: float, note: str, successes: int = 0, failures: int = 0, warnings: int = 0
) -> str:
    obj = {
        "result": result,
        "timestamp": konflux_timestamp(epoch),
        "note": note,
        "namespace": NAMESPACE,
        "successes": successes,
        "failures": failures,
        "warnings": warnings,
    }
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def konflux_error(note: str, epoch: float) -> str:
    """TEST_OUTPUT for input that could not be read."""
    return _dump("ERROR", epoch, note)


@dataclass(frozen=True)
class KonfluxReporter:
    """Renders TEST_OUTPUT as one compact JSON line."""

    epoch: float

    def render(self, report: Report) -> str:
        """Return the TEST_OUTPUT JSON."""
        report = printable_report(report)
        n = report.numbers
        judged = [
            f
            for f in report.open_findings
            if report.fail_on is not FailOn.NEW or report.is_new(f)  # --fail-on new: what the change brings
        ]
        if not report.passed:
            result = "FAILURE"
        elif any(f.severity in (Severity.ERROR, Severity.WARNING) for f in judged):
            result = "WARNING"
        elif not report.checked and not report.findings:
            result = "SKIPPED"  # nothing was there to check (an empty catalog folder, no streams)
        else:
            result = "SUCCESS"
        failing = sorted({f.rule for f in report.failing})
        note = f"releasekit {report.command}: {numbers_phrase(report)}"
        if failing:
            shown = ", ".join(failing[:_NOTE_RULES]) + (", ..." if len(failing) > _NOTE_RULES else "")
            note += f" ({shown}); run releasekit with --format text for details"
        return _dump(result, self.epoch, note, n.clean, n.errors, n.warnings)
