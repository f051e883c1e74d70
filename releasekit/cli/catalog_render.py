"""``releasekit catalog render DIR...``: write what ``opm render`` writes for FBC and bundle directories."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import opm_format_option

__all__ = ["command"]


@click.command("render")
@click.argument("refs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--migrate-level",
    default=None,
    metavar="LEVEL",
    help="Run opm's migrations up to LEVEL (none, bundle-object-to-csv-metadata).",
)
@opm_format_option("opm render")
def command(refs: tuple[Path, ...], migrate_level: str | None, output_format: str) -> None:
    """Render FBC or bundle directories REFS exactly as `opm render` does."""
    from releasekit.jobs.catalog_render import render_references

    click.echo(render_references(refs, migrate_level, output_format), nl=False)
