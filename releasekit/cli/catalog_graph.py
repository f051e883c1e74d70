"""``releasekit catalog graph [DIR]``: draw a catalog's upgrade graph (Mermaid, DOT or JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import format_option, output_option, write_output

__all__ = ["command"]


@click.command(name="graph")
@click.argument(
    "directory", required=False, default="catalog", type=click.Path(path_type=Path), metavar="[DIR]"
)
@click.option("--package", "package", default=None, metavar="P", help="Draw only this package.")
@format_option(
    "mermaid",
    "dot",
    "json",
    text="Mermaid (one package, for a pull-request comment), DOT (Graphviz) or JSON.",
)
@click.option(
    "--openshift",
    "openshift",
    default=None,
    metavar="vX.Y",
    help="In a catalog tree (catalog/v<X.Y>/configs), which OpenShift version to draw [default: newest].",
)
@output_option
def command(directory: Path, output: Path | None, **options: Any) -> None:
    """Draw the upgrade graph of a file-based catalog: channels, heads and replaces/skips/skipRange edges.

    DIR is an FBC root, one OpenShift folder (catalog/v4.18) or a catalog tree (default: catalog, drawing
    its newest OpenShift version unless --openshift says otherwise).
    """
    from releasekit.jobs.catalog_graph import draw_graph

    write_output(draw_graph(directory, **options), output)
