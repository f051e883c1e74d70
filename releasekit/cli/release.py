"""``releasekit release``: what people read about a release (``release notes``)."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import EXIT_ERRORS, format_option, output_option, streams_dir_option, write_output

__all__ = ["group", "notes"]


@click.group(name="release")
def group() -> None:
    """Release notes and other documents about one release."""


@group.command(name="notes")
@click.argument("version")
@click.option("--stream", "stream", default=None, help="The stream the release is in (when several have it).")
@streams_dir_option()
@format_option("markdown", "json")
@output_option
def notes(version: str, stream: str | None, streams_dir: Path, fmt: str, output: Path | None) -> None:
    """Release notes of VERSION: Kueue pins, API and feature-gate changes, images, catalogs, upgrades.

    Exit 1, with the findings on standard error, when streams/ has loading errors (as `streams show`).
    """
    from releasekit.jobs.release_notes import release_notes, render_json, render_markdown
    from releasekit.report.text import TextReporter

    run = release_notes(streams_dir, version, stream=stream)
    if run.notes is None:
        assert run.refused is not None
        click.echo(TextReporter().render(run.refused), err=True, nl=False)
        raise click.exceptions.Exit(EXIT_ERRORS)
    write_output(render_markdown(run.notes) if fmt == "markdown" else render_json(run.notes), output)
