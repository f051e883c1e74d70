"""``releasekit catalog template [basic|semver] FILE``: render a catalog template as current opm does.

Thin click layer over :mod:`releasekit.jobs.catalog_template`.
Bundle images are resolved from ``--bundles DIR`` (registry+v1 bundle directories, or ``olm.bundle``
objects in FBC files; see :mod:`releasekit.io.bundle_source`) instead of being pulled; each resolved
bundle gets opm's render post-processing and ``--migrate-level``.

Exit codes: 0 rendered; 1 the template's content is rejected (opm's own error text: wrong schema,
unknown field, bundle versions that cannot be ordered, ...); 2 the input cannot be read — the file,
``--bundles``, or a bundle image that nothing under ``--bundles`` provides (the image is named) — or the
command line is wrong.
"""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import EXIT_ERRORS, EXIT_INPUT
from releasekit.errors import ReleasekitError, one_line

__all__ = ["TemplateFailure", "TemplateInputFailure", "command"]


class TemplateFailure(click.ClickException):
    """The template's content is rejected: one line on stderr, exit 1."""

    exit_code = EXIT_ERRORS

    def show(self, file: object = None) -> None:  # noqa: ARG002 - click's signature
        """Print ``releasekit: error: <message>`` on one line of stderr, not click's ``Error:`` line."""
        click.echo(f"releasekit: error: {one_line(self.message)}", err=True)


class TemplateInputFailure(TemplateFailure):
    """The input cannot be read (file, --bundles, an unresolvable image) or is not supported: exit 2."""

    exit_code = EXIT_INPUT


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
@click.option(
    "--format",
    "-o",
    "--output",
    "output_format",
    type=click.Choice(["json", "yaml"]),
    default="json",
    show_default=True,
    help="Output format, as opm alpha render-template -o (--output is the old name, kept as an alias).",
)
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
    except TemplateContentError as exc:
        raise TemplateFailure(str(exc)) from None
    except ReleasekitError as exc:
        raise TemplateInputFailure(str(exc)) from None
    click.echo(text, nl=False)
