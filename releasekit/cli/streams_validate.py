"""``releasekit streams validate``: schema and cross-checks of streams/ (exit 0, 1 or 2 as the contract says)."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import emit_report, format_options, streams_dir_option

__all__ = ["command"]


@click.command(name="validate")
@streams_dir_option()
@format_options
def command(streams_dir: Path, fmt: str, output: Path | None) -> int:
    """Check streams/: schemas, versions, images, OpenShift versions, inventories and gate policies."""
    from releasekit.jobs.streams_validate import validate_streams

    _, report = validate_streams(streams_dir, display_root=str(streams_dir))
    return emit_report(report, fmt, output)
