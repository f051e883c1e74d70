"""``releasekit streams validate``: load ``streams/`` and run every stream check.

Job: reads with :func:`releasekit.io.streams.load_streams`, judges with
:func:`releasekit.rules.stream.check_streams`, returns the loaded streams and a report. ``build`` and
``check`` start with the same story.
"""

from __future__ import annotations

from pathlib import Path

from releasekit.io.streams import LoadedStreams, load_streams
from releasekit.model.report import Report
from releasekit.rules.stream import RULES, check_streams

__all__ = ["validate_streams"]


def validate_streams(root: Path, *, display_root: str | None = None) -> tuple[LoadedStreams, Report]:
    """Load ``root`` and run every stream check: what ``streams validate`` and ``build`` report.

    Raises:
        InputError: as :func:`releasekit.io.streams.load_streams`.
    """
    loaded = load_streams(root, display_root=display_root)
    findings = loaded.findings + check_streams(loaded.streams, loaded.inventories)
    report = Report(
        command="streams validate",
        findings=findings,
        checked=loaded.files,
        rules=tuple(sorted(RULES)),
    )
    return loaded, report


def read_streams(root: Path, *, display_root: str | None = None) -> tuple[LoadedStreams, Report | None]:
    """Load ``root`` for a command that shows the streams: the loaded streams, and a report of the
    loading errors when there are any (``streams show`` and ``streams map`` stop on them).

    Raises:
        InputError: as :func:`releasekit.io.streams.load_streams`.
    """
    from releasekit.model.finding import has_errors

    loaded = load_streams(root, display_root=display_root)
    if has_errors(loaded.findings):
        return loaded, Report(command="streams", findings=loaded.findings, checked=loaded.files)
    return loaded, None
