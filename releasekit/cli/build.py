"""``releasekit build``: the release job on ./streams — catalogs and every check, offline."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import emit_report, format_options

__all__ = ["command"]


@click.command(name="build")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when generated files would change.")
@click.option("--streams-dir", type=click.Path(path_type=Path), default=Path("streams"), show_default=True)
@click.option(
    "--templates-dir", type=click.Path(path_type=Path), default=Path("bundle-templates"), show_default=True
)
@click.option("--catalog-dir", type=click.Path(path_type=Path), default=Path("catalog"), show_default=True)
@format_options
@click.pass_context
def command(
    ctx: click.Context,
    check: bool,
    streams_dir: Path,
    templates_dir: Path,
    catalog_dir: Path,
    fmt: str,
    output: Path | None,
) -> None:
    """Validate streams/, write catalog/ from it, and run every check on the result.

    Runs without any network: bundles are not generated here (see `releasekit bundle build`).
    With --check nothing is written and drift between streams/ and catalog/ is an error.
    """
    from releasekit.io.build import BuildRequest, run_build

    request = BuildRequest(
        streams_dir=streams_dir, templates_dir=templates_dir, catalog_dir=catalog_dir, check=check
    )
    ctx.exit(emit_report(run_build(request), fmt, output))
