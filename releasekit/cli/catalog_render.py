"""``releasekit catalog render DIR...``: write what ``opm render`` writes for FBC and bundle directories.

Thin click layer over :mod:`releasekit.jobs.catalog_render`: load each reference (an FBC directory, or
a registry+v1 bundle directory with ``manifests/`` and ``metadata/``), apply opm's render post-processing
and migrations, and write the result as opm does (JSON stream by default, or YAML). Render does no validation: a catalog that loads is
rendered as it is. Anything that stops loading — a path that cannot be read, a plain file, a file that
is not YAML/JSON, a blob opm cannot type — is one line on stderr and exit 2.
"""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import EXIT_INPUT
from releasekit.errors import ReleasekitError, one_line

__all__ = ["RenderFailure", "command"]


class RenderFailure(click.ClickException):
    """One line on stderr, exit 2 (the input could not be read or rendered)."""

    exit_code = EXIT_INPUT

    def show(self, file: object = None) -> None:  # noqa: ARG002 - click's signature
        """Print ``releasekit: error: <message>`` on one line of stderr, not click's ``Error:`` line."""
        click.echo(f"releasekit: error: {one_line(self.message)}", err=True)


@click.command("render")
@click.argument("refs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--migrate-level",
    default=None,
    metavar="LEVEL",
    help="Run opm's migrations up to LEVEL (none, bundle-object-to-csv-metadata).",
)
@click.option(
    "--format",
    "-o",
    "--output",
    "output_format",
    type=click.Choice(["json", "yaml"]),
    default="json",
    show_default=True,
    help="Output format, as opm render -o (--output is the old name, kept as an alias).",
)
def command(refs: tuple[Path, ...], migrate_level: str | None, output_format: str) -> None:
    """Render FBC or bundle directories REFS exactly as `opm render` does."""
    from releasekit.jobs.catalog_render import render_references

    try:
        text = render_references(refs, migrate_level, output_format)
    except ReleasekitError as exc:
        raise RenderFailure(str(exc)) from None
    click.echo(text, nl=False)
