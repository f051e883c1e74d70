"""``releasekit catalog matrix [DIR]``: every cluster upgrade, and where each installed version ends up."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import format_option, output_option, write_output

__all__ = ["command"]


@click.command(name="matrix")
@click.argument(
    "directory", required=False, default="catalog", type=click.Path(path_type=Path), metavar="[DIR]"
)
@format_option("text", "json", "markdown", text='Text, JSON ({"upgrades": [...]}) or Markdown tables.')
@click.option(
    "--lifecycle",
    "lifecycle",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The OpenShift lifecycle file [default: streams/openshift/lifecycle.yaml when present; "
    "else each minor to the next].",
)
@output_option
def command(directory: Path, fmt: str, lifecycle: Path | None, output: Path | None) -> None:
    """The OpenShift upgrade matrix of a catalog tree (default: catalog).

    For every cluster upgrade of the OpenShift lifecycle (minor, EUS to EUS, into a new major) and every
    version installable on the source catalog: the head it reaches on the target and the path, or
    stranded with the reason.
    """
    from releasekit.jobs.catalog_matrix import MatrixRequest, run_matrix

    write_output(run_matrix(MatrixRequest(tree=directory, lifecycle=lifecycle, fmt=fmt)), output)
