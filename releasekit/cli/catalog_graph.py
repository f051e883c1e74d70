"""``releasekit catalog graph [DIR]``: draw a catalog's upgrade graph (Mermaid, DOT or JSON).

Thin click layer over :mod:`releasekit.jobs.catalog_graph`, which finds the FBC root, loads it, builds
each package's graph (default policy) and renders it.

Which folder is drawn:

- ``DIR`` (default ``catalog``) holding ``configs/`` (one OpenShift folder, ``catalog/v4.18``): its
  ``configs``;
- ``DIR`` holding ``v<X.Y>/configs`` folders (the repository's catalog tree): the ``--openshift`` one, by
  default the newest OpenShift version;
- any other ``DIR`` is taken as an FBC root itself.

Mermaid draws one package: with several, ``--package`` must choose. DOT and JSON draw every package
unless ``--package`` is given. Exit codes: 0 drawn; 2 a folder that cannot be read, a catalog with load
errors (each is one line on stderr), an unknown package or OpenShift version, or bad usage.
"""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["command"]


@click.command(name="graph")
@click.argument(
    "directory", required=False, default="catalog", type=click.Path(path_type=Path), metavar="[DIR]"
)
@click.option("--package", "package", default=None, metavar="P", help="Draw only this package.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["mermaid", "dot", "json"]),
    default="mermaid",
    show_default=True,
    help="Mermaid (one package, for a pull-request comment), DOT (Graphviz) or JSON.",
)
@click.option(
    "--openshift",
    "openshift",
    default=None,
    metavar="vX.Y",
    help="In a catalog tree (catalog/v<X.Y>/configs), which OpenShift version to draw [default: newest].",
)
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write to this file instead of standard output.",
)
def command(
    directory: Path, package: str | None, fmt: str, openshift: str | None, output: Path | None
) -> None:
    """Draw the upgrade graph of a file-based catalog: channels, heads and replaces/skips/skipRange edges.

    DIR is an FBC root, one OpenShift folder (catalog/v4.18) or a catalog tree (default: catalog, drawing
    its newest OpenShift version unless --openshift says otherwise).
    """
    from releasekit.cli._common import write_output
    from releasekit.jobs.catalog_graph import draw_graph

    write_output(draw_graph(directory, package=package, fmt=fmt, openshift=openshift), output)
