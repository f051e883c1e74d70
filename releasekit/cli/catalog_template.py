"""``releasekit catalog template [basic|semver] FILE``: render a catalog template as current opm does.

Exit 1: opm rejects the template's content; 2: the file, ``--bundles`` or a bundle image cannot be read.
"""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import EXIT_ERRORS, opm_format_option
from releasekit.errors import one_line

__all__ = ["command"]


@click.command("template")
@click.argument("args", nargs=-1, required=True, metavar="[basic|semver] FILE")
@click.option(
    "--bundles",
    "bundles_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder with registry+v1 bundle directories or FBC files whose olm.bundle objects stand in for images.",
)
@click.option(
    "--migrate-level", default=None, metavar="LEVEL", help="Run opm's migrations on rendered bundles."
)
@opm_format_option("opm alpha render-template")
def command(
    args: tuple[str, ...], bundles_dir: Path | None, migrate_level: str | None, output_format: str
) -> None:
    """Render an olm.template.basic or olm.semver template FILE like `opm alpha render-template`."""
    from releasekit.jobs.catalog_template import TEMPLATE_TYPES, TemplateContentError, render_template

    if len(args) > 2:
        raise click.UsageError("expected [basic|semver] FILE")
    kind = args[0] if len(args) == 2 else None
    if kind is not None and kind not in TEMPLATE_TYPES:
        raise click.UsageError(f'unknown template type "{kind}"; valid types are basic, semver')
    try:
        text = render_template(Path(args[-1]), kind, bundles_dir, migrate_level, output_format)
    except TemplateContentError as exc:  # opm's own words; a content verdict, so exit 1 like a finding
        click.echo(f"releasekit: error: {one_line(str(exc))}", err=True)
        click.get_current_context().exit(EXIT_ERRORS)
    click.echo(text, nl=False)
