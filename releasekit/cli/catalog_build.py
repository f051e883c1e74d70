"""``releasekit catalog build``: write (or ``--check``) the catalogs that ``streams/`` defines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import emit_report, format_options, streams_dir_option, templates_dir_option

__all__ = ["command"]


@click.command(name="build")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 listing the files that would change.")
@click.option(
    "--candidates",
    is_flag=True,
    help="Also render candidate releases (a preview catalog; needs --catalog-dir, never the committed catalog/).",
)
@click.option(
    "--catalog-dir",
    "--out",
    "catalog_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Catalog tree to write or check [default: catalog, or what releasekit.yaml configures]; "
    "--out is the old name, kept as an alias.",
)
@click.option(
    "--upstream",
    "upstream",
    default=None,
    metavar="R",
    help="A Kueue clone (or URL) to read the CRDs a bundle ships, for preview catalogs before OpenShift 4.17 "
    "(olm.bundle.object); needs --candidates --catalog-dir, never the committed catalog/.",
)
@streams_dir_option()
@templates_dir_option
@format_options
def command(fmt: str, output: Path | None, **options: Any) -> int:
    """Generate one FBC fragment per OpenShift version from streams/ and check it.

    Writes catalog/v<X.Y>/configs/<package>/catalog.json and catalog/v<X.Y>/Containerfile. Published
    bundles are carried: the blob catalog/ holds at git HEAD for a released, deprecated or withdrawn
    release is kept byte for byte. All or nothing: the new tree is checked first and written only when no
    check reports an error; otherwise nothing is written and the run ends with one line saying so
    (catalog/ left unchanged: N errors). Candidates are never committed: --candidates renders a preview
    into --catalog-dir, where development image references are reported as warnings.
    """
    from releasekit.jobs.build import BuildRequest, build

    if options["candidates"] and options["catalog_dir"] is None:
        raise click.UsageError(
            "--candidates renders a preview catalog: give --catalog-dir DIR (never catalog/)"
        )
    if options["upstream"] is not None and not options["candidates"]:
        raise click.UsageError(
            "--upstream puts Kueue's CRDs in a preview catalog: give --candidates --catalog-dir DIR"
        )
    result = build(BuildRequest(command="catalog build", **options))
    return emit_report(result.report, fmt, output, result.unchanged)
