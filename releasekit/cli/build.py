"""``releasekit build``: the release job on ./streams — catalogs and every check, offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import emit_report, format_options, streams_dir_option, templates_dir_option

__all__ = ["command"]


@click.command(name="build")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when generated files would change.")
@streams_dir_option()
@templates_dir_option
@click.option(
    "--catalog-dir",
    type=click.Path(path_type=Path),
    default=None,
    help="The catalog tree to write or check [default: catalog, or what releasekit.yaml configures].",
)
@click.option(
    "--bundles",
    "bundles",
    is_flag=True,
    help="Also generate every release's bundle; reads Kueue's CRDs from --upstream (network unless a path).",
)
@click.option(
    "--upstream",
    default=None,
    metavar="PATH_OR_URL",
    help="Kueue git repository for --bundles [default: the public Kueue repository, cloned once into a cache].",
)
@click.option(
    "--bundles-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("bundles"),
    show_default=True,
)
@click.option(
    "--allow-unpinned", is_flag=True, help="With --bundles: build releases whose inventory has no CRD hashes."
)
@format_options
def command(fmt: str, output: Path | None, **options: Any) -> int:
    """Validate streams/, write catalog/ from it, and run every check on the result.

    Runs without any network. With --bundles it also generates every release's bundle into --bundles-dir,
    reading the operand CRDs from upstream Kueue (--upstream); if that cannot be reached it stops (exit 2).
    With --check nothing is written and drift between streams/ and catalog/ is an error.

    Published bundles are carried: a released, deprecated or withdrawn release's bundle blob that
    catalog/ holds at git HEAD is kept byte for byte. All or nothing: when any check reports an error,
    catalog/ is left as it was and the run ends with one line saying so.
    """
    from releasekit.jobs.build import BuildRequest, build

    if options["upstream"] is not None and not options["bundles"]:
        raise click.UsageError("--upstream is only used with --bundles")
    result = build(BuildRequest(**options))
    return emit_report(result.report, fmt, output, result.unchanged)
