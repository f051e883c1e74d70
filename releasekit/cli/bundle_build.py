"""``releasekit bundle build``: generate registry+v1 bundles from ``streams/``, ``bundle-templates/`` and upstream Kueue.

Thin click layer over :mod:`releasekit.jobs.bundle_build`. By default the releases whose status is
``candidate``; ``--version V`` one release; ``--all`` every release of the chosen streams. Each bundle goes
to ``<out>/<stream>/<version>/``; ``--check`` compares with what is there instead of writing. The built
bundles are then validated (operator-sdk's default validators and releasekit's own bundle rules). A release
with an operator record (``streams/operator/<version>.yaml``) is built from it; a stream whose Kueue CRDs are
in the operator image (``crdPlacement: operator-assets``) reads no Kueue repository, so it builds offline.

Exit codes: 0 no error findings; 1 error findings (validation, or drift with ``--check``); 2 the build
could not run (unreadable streams or templates, an unpinned or mismatching inventory, an unreachable
upstream, a bad command line), as one line on stderr.
"""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import (
    EXIT_INPUT,
    emit_report,
    format_options,
    streams_dir_option,
    templates_dir_option,
    write_output,
)
from releasekit.errors import ReleasekitError

__all__ = ["command"]


class _BuildStopped(click.ClickException):
    """The build could not run: one line on stderr, exit 2."""

    exit_code = EXIT_INPUT


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
@streams_dir_option
@templates_dir_option
@format_options
def command(
    stream: str | None,
    version: str | None,
    every: bool,
    upstream: str | None,
    out: Path,
    check: bool,
    allow_unpinned: bool,
    streams_dir: Path,
    templates_dir: Path,
    fmt: str,
    output: Path | None,
) -> None:
    """Generate registry+v1 bundles (default: the candidate releases) and validate them."""
    from releasekit.jobs.bundle_build import DEFAULT_UPSTREAM, build_bundles
    from releasekit.model.report import Report

    def progress(line: str) -> None:
        click.echo(line, err=True)

    try:
        build = build_bundles(
            streams_dir,
            templates_dir,
            out,
            upstream=upstream or DEFAULT_UPSTREAM,
            stream=stream,
            version=version,
            every=every,
            check=check,
            allow_unpinned=allow_unpinned,
            progress=progress,
        )
    except ReleasekitError as exc:
        if fmt == "konflux":  # Konflux still gets its TEST_OUTPUT object (result ERROR) before exit 2
            from releasekit.report import source_epoch
            from releasekit.report.konflux import konflux_error

            write_output(konflux_error(str(exc), source_epoch()), output)
        raise _BuildStopped(str(exc)) from None
    if not build.bundles:
        click.echo("no release selected (no candidate releases; use --version V or --all)", err=True)
    report = Report(
        command="bundle build --check" if check else "bundle build",
        findings=build.findings,
        checked=build.checked,
        rules=tuple(sorted({f.rule for f in build.findings})),
    )
    click.get_current_context().exit(emit_report(report, fmt, output))
