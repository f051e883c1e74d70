"""``releasekit streams validate``: load ``streams/`` and the operator records, and run every stream check."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from releasekit.errors import printable
from releasekit.io.lifecycle import LIFECYCLE_FILE, load_lifecycle
from releasekit.io.operator_records import OPERATOR_DIR, load_operator_records
from releasekit.io.streams import LoadedStreams, load_streams
from releasekit.model.finding import has_errors
from releasekit.model.lifecycle import OpenShiftLifecycle
from releasekit.model.report import Report
from releasekit.rules.lifecycle import RULES as LIFECYCLE_RULES
from releasekit.rules.lifecycle import check_lifecycle
from releasekit.rules.stream import RULES, check_streams
from releasekit.rules.tech_preview import STREAM_RULES, check_stream_blocking

__all__ = ["StreamsCheck", "check_streams_folder", "read_streams", "validate_streams"]


@dataclass(frozen=True, slots=True)
class StreamsCheck:
    """What the streams check read and found: the streams, the report, and the OpenShift lifecycle."""

    loaded: LoadedStreams
    report: Report
    lifecycle: OpenShiftLifecycle | None


def check_streams_folder(
    root: Path, *, display_root: str | None = None, loaded: LoadedStreams | None = None
) -> StreamsCheck:
    """Load ``root`` and run every stream check: what ``streams validate``, ``build`` and ``check`` report."""
    if loaded is None:
        loaded = load_streams(root, display_root=display_root)
    lifecycle, lifecycle_findings = load_lifecycle(root, display_root=display_root)
    findings = loaded.findings + check_streams(loaded.streams, loaded.inventories) + lifecycle_findings
    if lifecycle is not None:  # RK-STREAM-050…052
        findings += check_lifecycle(lifecycle, loaded.streams)
    findings += check_stream_blocking(loaded.streams)  # Tech Preview streams: RK-STREAM-053
    checked = loaded.files
    if (root / LIFECYCLE_FILE).is_file():
        shown = str(root) if display_root is None else display_root
        checked += (f"{shown.rstrip('/')}/{LIFECYCLE_FILE}" if shown not in ("", ".") else LIFECYCLE_FILE,)
    rules = tuple(sorted({*RULES, *LIFECYCLE_RULES, *STREAM_RULES}))
    report = Report(command="streams validate", findings=findings, checked=checked, rules=rules)
    return StreamsCheck(loaded=loaded, report=report, lifecycle=lifecycle)


def validate_streams(
    root: Path, *, display_root: str | None = None, loaded: LoadedStreams | None = None
) -> tuple[LoadedStreams, Report]:
    """:func:`check_streams_folder` plus the operator records' schema, without the lifecycle."""
    result = check_streams_folder(root, display_root=display_root, loaded=loaded)
    folder = root / OPERATOR_DIR
    if not folder.is_dir():
        return result.loaded, result.report
    shown = str(root) if display_root is None else display_root
    _, findings = load_operator_records(root, display_root=shown)
    files = [f"{shown.rstrip('/')}/{OPERATOR_DIR}/{printable(p.name)}" for p in sorted(folder.glob("*.yaml"))]
    found, read = (*result.report.findings, *findings), (*result.report.checked, *files)
    return result.loaded, replace(result.report, findings=found, checked=read)


def read_streams(root: Path, *, display_root: str | None = None) -> tuple[LoadedStreams, Report | None]:
    """Load ``root`` for a command that shows the streams."""
    loaded = load_streams(root, display_root=display_root)
    report = Report(command="streams", findings=loaded.findings, checked=loaded.files)
    return loaded, report if has_errors(loaded.findings) else None
