"""``releasekit catalog graph [DIR]``: draw a catalog's upgrade graph (Mermaid, DOT or JSON).

Thin click layer: find the FBC root, load it (:func:`releasekit.io.fbc_load.load_catalog`), build each
package's graph (:func:`releasekit.rules.graph.analyze_config`, default policy) and render it
(:mod:`releasekit.plan.graph_render`).

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

__all__ = ["command", "resolve_root"]


def resolve_root(directory: Path, openshift: str | None) -> Path:
    """The FBC root to draw for ``directory`` and ``--openshift`` (see the module docstring).

    Raises:
        InputError: ``directory`` does not exist or is not a folder.
        UsageError: ``--openshift`` names no folder of a catalog tree, or is given for a plain FBC root.
    """
    from releasekit.errors import InputError, UsageError
    from releasekit.model.stream import OpenShiftVersion

    if not directory.is_dir():
        raise InputError(f"{directory}: no such catalog folder")
    if (directory / "configs").is_dir():
        if openshift is not None:
            raise UsageError(f"--openshift {openshift} applies to a catalog tree; {directory} is one catalog")
        return directory / "configs"
    versions: dict[OpenShiftVersion, Path] = {}
    for child in directory.iterdir():
        try:
            version = OpenShiftVersion.parse(child.name)
        except ValueError:
            continue
        if (child / "configs").is_dir():
            versions[version] = child / "configs"
    if not versions:
        if openshift is not None:
            raise UsageError(f"--openshift {openshift}: {directory} has no v<X.Y>/configs folders")
        return directory
    if openshift is None:
        return versions[max(versions)]
    try:
        wanted = OpenShiftVersion.parse(openshift)
    except ValueError as exc:
        raise UsageError(f"--openshift: {exc}") from None
    if wanted not in versions:
        known = ", ".join(str(v) for v in sorted(versions))
        raise UsageError(f"--openshift {openshift}: {directory} has no such folder (it has {known})")
    return versions[wanted]


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
    from releasekit.errors import InputError, UsageError
    from releasekit.io.fbc_load import load_catalog
    from releasekit.model.finding import Severity
    from releasekit.plan.graph_render import render_dot, render_json, render_mermaid
    from releasekit.rules.graph import analyze_config

    root = resolve_root(directory, openshift)
    loaded = load_catalog(root)
    errors = [f for f in loaded.findings if f.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more load errors)" if len(errors) > 1 else ""
        raise InputError(
            f"{first.location}: {first.message}{more}; `releasekit catalog validate` lists them all"
        )
    graphs = analyze_config(loaded.config)
    if not graphs:
        raise InputError(f"{root}: no olm.package in this catalog")
    names = ", ".join(g.package for g in graphs)
    if package is not None:
        graphs = tuple(g for g in graphs if g.package == package)
        if not graphs:
            raise UsageError(f"--package {package}: no such package in {root} (it has {names})")
    if fmt == "mermaid":
        if len(graphs) > 1:
            raise UsageError(f"mermaid draws one package; choose one with --package ({names})")
        text = render_mermaid(graphs[0])
    elif fmt == "dot":
        text = render_dot(graphs)
    else:
        text = render_json(graphs)
    write_output(text, output)
