"""``releasekit catalog``: adopt, build, validate, render, template, graph and matrix file-based catalogs.

Each command parses its options, calls one job (imported when it runs) and writes what it returns.
``catalog template`` exits 1 when opm rejects the template's content, 2 when an input cannot be read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import (
    EXIT_ERRORS,
    emit_report,
    format_option,
    format_options,
    opm_format_option,
    output_option,
    progress,
    streams_dir_option,
    templates_dir_option,
    write_output,
)
from releasekit.errors import one_line
from releasekit.jobs.catalog_validate import DEFAULT_MAX_FILE_BYTES

__all__ = [
    "adopt_command",
    "build_command",
    "graph_command",
    "matrix_command",
    "render_command",
    "template_command",
    "validate_command",
]

# validate and matrix read the same lifecycle file, graph and matrix the same catalog tree: one declaration each
_lifecycle_option = click.option(
    "--lifecycle",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The OpenShift lifecycle whose cluster upgrades are checked (validate: with --graph) [default: "
    "streams/openshift/lifecycle.yaml when present; else each minor to the next].",
)
_tree_argument = click.argument(
    "directory", required=False, default="catalog", type=click.Path(path_type=Path), metavar="[DIR]"
)


@click.command(name="adopt")
@click.argument("source", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--layout",
    type=click.Choice(["kueue-fbc", "releasekit"]),
    default="kueue-fbc",
    show_default=True,
    help="How DIR is laid out: kueue-fbc's v<X.Y>/catalog/<package>/catalog.json, or releasekit's own.",
)
@click.option(
    "--catalog-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to import [default: catalog, or what releasekit.yaml configures].",
)
@streams_dir_option()
@format_options
def adopt_command(fmt: str, output: Path | None, **options: Any) -> int:
    """Import the published package catalogs of DIR into catalog/, byte for byte.

    A one-time start from what is published: commit the result, then `releasekit build` carries every
    published bundle blob as it stands and plans only channels, edges and deprecations around it.
    What the streams do not know (packages, OpenShift versions, bundles) is reported as an error and
    then nothing is written.
    """
    from releasekit.jobs.catalog_adopt import AdoptRequest, adopt

    result = adopt(AdoptRequest(**options))
    return emit_report(result.report, fmt, output, result.unchanged)


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
def build_command(fmt: str, output: Path | None, **options: Any) -> int:
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


@click.command(name="validate")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="DIR...")
@format_options
@click.option(
    "--max-file-size",
    "max_file_bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_FILE_BYTES,
    show_default=True,
    metavar="BYTES",
    help="Refuse catalog files larger than this (a safety limit; exit 2).",
)
@click.option(
    "--graph",
    is_flag=True,
    help="Also run the upgrade-graph rules opm lacks (RK-GRAPH: edges to lower versions or across an "
    "owned-API-group change, bundles that cannot reach the default channel's head, and bundles a cluster "
    "upgrade between the given OpenShift catalogs strands; a catalog tree stands for its fragments).",
)
@_lifecycle_option
def validate_command(dirs: tuple[Path, ...], fmt: str, output: Path | None, **options: Any) -> int:
    """Validate file-based catalog folders as `opm validate` does, reporting every problem.

    Each DIR is one catalog (a folder of FBC JSON/YAML files, e.g. catalog/v4.18/configs). Findings are
    grouped by package, channel and bundle; every check opm has uses opm's own wording. By default the
    verdict is opm's; --graph adds releasekit's upgrade-graph rules (which `releasekit build` always runs).
    """
    from releasekit.jobs.catalog_validate import validate_dirs

    report = validate_dirs(
        dirs, progress=lambda items: progress(items, "validating catalogs", enabled=fmt == "text"), **options
    )
    return emit_report(report, fmt, output)


@click.command("render")
@click.argument("refs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--migrate-level",
    default=None,
    metavar="LEVEL",
    help="Run opm's migrations up to LEVEL (none, bundle-object-to-csv-metadata).",
)
@opm_format_option("opm render")
def render_command(refs: tuple[Path, ...], migrate_level: str | None, output_format: str) -> None:
    """Render FBC or bundle directories REFS exactly as `opm render` does."""
    from releasekit.jobs.catalog_render import render_references

    click.echo(render_references(refs, migrate_level, output_format), nl=False)


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
def template_command(
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


@click.command(name="graph")
@_tree_argument
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
def graph_command(directory: Path, output: Path | None, **options: Any) -> None:
    """Draw the upgrade graph of a file-based catalog: channels, heads and replaces/skips/skipRange edges.

    DIR is an FBC root, one OpenShift folder (catalog/v4.18) or a catalog tree (default: catalog, drawing
    its newest OpenShift version unless --openshift says otherwise).
    """
    from releasekit.jobs.catalog_graph import draw_graph

    write_output(draw_graph(directory, **options), output)


@click.command(name="matrix")
@_tree_argument
@format_option("text", "json", "markdown", text='Text, JSON ({"upgrades": [...]}) or Markdown tables.')
@_lifecycle_option
@output_option
def matrix_command(directory: Path, fmt: str, lifecycle: Path | None, output: Path | None) -> None:
    """The OpenShift upgrade matrix of a catalog tree (default: catalog).

    For every cluster upgrade of the OpenShift lifecycle (minor, EUS to EUS, into a new major) and every
    version installable on the source catalog: the head it reaches on the target and the path, or
    stranded with the reason.
    """
    from releasekit.jobs.catalog_matrix import MatrixRequest, run_matrix

    write_output(run_matrix(MatrixRequest(tree=directory, lifecycle=lifecycle, fmt=fmt)), output)
