"""``releasekit catalog render DIR...``: write what ``opm render`` writes for FBC and bundle directories.

Thin click layer: load each reference (an FBC directory, or a registry+v1 bundle directory with
``manifests/`` and ``metadata/``), apply opm's render post-processing and migrations, and write the
result as opm does (JSON stream by default, or YAML). Render does no validation: a catalog that loads is
rendered as it is. Anything that stops loading — a path that cannot be read, a plain file, a file that
is not YAML/JSON, a blob opm cannot type — is one line on stderr and exit 2.
"""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import EXIT_INPUT
from releasekit.errors import ReleasekitError, one_line
from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Severity

__all__ = ["RenderFailure", "command", "load_reference"]


class RenderFailure(click.ClickException):
    """One line on stderr, exit 2 (the input could not be read or rendered)."""

    exit_code = EXIT_INPUT

    def show(self, file: object = None) -> None:  # noqa: ARG002 - click's signature
        click.echo(f"releasekit: error: {one_line(self.message)}", err=True)


def load_reference(ref: Path) -> DeclarativeConfig:
    """Load one render argument as opm does (bundle directory or FBC directory).

    Raises:
        RenderFailure: the reference cannot be read or does not load.
    """
    from releasekit.io.bundle_source import is_bundle_dir, read_bundle_dir
    from releasekit.io.fbc_load import load_catalog

    if not ref.exists() and not ref.is_symlink():
        raise RenderFailure(f'render reference "{ref}": no such file or directory')
    if not ref.is_dir():
        raise RenderFailure(f'render reference "{ref}": ref "{ref}" is not a directory: not allowed')
    try:
        if is_bundle_dir(ref):
            return DeclarativeConfig(bundles=(read_bundle_dir(ref),))
        result = load_catalog(ref)
    except ReleasekitError as exc:
        raise RenderFailure(f'render reference "{ref}": {exc}') from None
    errors = [f for f in result.findings if f.severity == Severity.ERROR]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more load errors)" if len(errors) > 1 else ""
        raise RenderFailure(f'render reference "{ref}": {first.location}: {first.message}{more}')
    return result.config


@click.command("render")
@click.argument("refs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--migrate-level",
    default=None,
    metavar="LEVEL",
    help="Run opm's migrations up to LEVEL (none, bundle-object-to-csv-metadata).",
)
@click.option(
    "-o",
    "--output",
    "output_format",
    type=click.Choice(["json", "yaml"]),
    default="json",
    show_default=True,
    help="Output format, as opm render -o.",
)
def command(refs: tuple[Path, ...], migrate_level: str | None, output_format: str) -> None:
    """Render FBC or bundle directories REFS exactly as `opm render` does."""
    from releasekit.io.fbc_write import WriteError, render
    from releasekit.plan.migrate import MigrationError, migrate, prepare_for_render, stages_for_level

    try:
        stages_for_level(migrate_level)
    except MigrationError as exc:
        raise RenderFailure(str(exc)) from None
    combined = DeclarativeConfig()
    for ref in refs:
        config = migrate(prepare_for_render(load_reference(ref)), migrate_level)
        combined = combined.merged(config)
    try:
        text = render(combined, output_format)
    except WriteError as exc:
        raise RenderFailure(str(exc)) from None
    click.echo(text, nl=False)
