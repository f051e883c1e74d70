"""``releasekit release``: what people read about a release (``release notes``)."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import format_option, output_option, streams_dir_option, write_output

__all__ = ["notes_command"]


@click.command(name="notes")
@click.argument("version")
@click.option("--stream", "stream", default=None, help="The stream the release is in (when several have it).")
@streams_dir_option()
@format_option("markdown", "json")
@output_option
def notes_command(version: str, stream: str | None, streams_dir: Path, fmt: str, output: Path | None) -> None:
    """Release notes of VERSION: Kueue pins, API and feature-gate changes, images, catalogs, upgrades.

    Exit 1, with the findings on standard error, when streams/ has loading errors (as `streams show`).
    """
    from releasekit.cli.streams import load_or_fail
    from releasekit.jobs.release_notes import build_notes, render_json, render_markdown

    streams, inventories = load_or_fail(streams_dir, command="release notes")
    notes = build_notes(streams, inventories, version, stream)
    write_output(render_markdown(notes) if fmt == "markdown" else render_json(notes), output)
