"""``releasekit bundle build``: generate registry+v1 bundles from ``streams/``, ``bundle-templates/`` and upstream Kueue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import (
    Stopped,
    emit_report,
    format_options,
    streams_dir_option,
    templates_dir_option,
    write_konflux_error,
)
from releasekit.errors import ReleasekitError

__all__ = ["command"]


@click.command(name="build")
@click.option("--stream", "stream", default=None, metavar="S", help="Only releases of this stream.")
@click.option("--version", "version", default=None, metavar="V", help="Only this release.")
@click.option("--all", "every", is_flag=True, default=False, help="Every release of the chosen streams.")
@click.option(
    "--upstream",
    "upstream",
    default=None,
    metavar="PATH_OR_URL",
    help="The Kueue repository: a local clone or a URL (cloned once into the cache), read only for streams "
    "that bundle Kueue's CRDs (crdPlacement: bundle). Default: the public Kueue repository.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("bundles"),
    show_default=True,
    help="Output folder; each bundle goes to OUT/<stream>/<version>/.",
)
@click.option(
    "--check", is_flag=True, default=False, help="Compare with OUT instead of writing; drift exits 1."
)
@click.option(
    "--allow-unpinned",
    is_flag=True,
    default=False,
    help="Build from a transcribed inventory (no CRD hashes to check); the manifest records pinned: false.",
)
@streams_dir_option()
@templates_dir_option
@format_options
def command(
    streams_dir: Path,
    templates_dir: Path,
    out: Path,
    upstream: str | None,
    fmt: str,
    output: Path | None,
    **options: Any,
) -> int:
    """Generate registry+v1 bundles (default: the candidate releases) and validate them."""
    from releasekit.jobs.bundle_build import DEFAULT_UPSTREAM, build_bundles
    from releasekit.model.report import Report

    try:
        build = build_bundles(
            streams_dir,
            templates_dir,
            out,
            upstream=upstream or DEFAULT_UPSTREAM,
            progress=lambda line: click.echo(line, err=True),
            **options,
        )
    except ReleasekitError as exc:
        if fmt == "konflux":
            write_konflux_error(str(exc), output)
        raise Stopped(str(exc)) from None
    if not build.bundles:
        click.echo("no release selected (no candidate releases; use --version V or --all)", err=True)
    report = Report(
        command="bundle build --check" if options["check"] else "bundle build",
        findings=build.findings,
        checked=build.checked,
        rules=tuple(sorted({f.rule for f in build.findings})),
    )
    return emit_report(report, fmt, output)
