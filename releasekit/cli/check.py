"""``releasekit check --base REF [--head REF]``: the pull-request check of catalog and stream changes."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import emit_report, format_options

__all__ = ["command"]


@click.command(name="check")
@click.option("--base", "base", required=True, help="The git revision to compare with (the PR's target).")
@click.option("--head", "head", default=None, help="The revision to check (default: the working tree).")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
    help="The repository's top folder.",
)
@format_options
@click.pass_context
def command(
    ctx: click.Context, base: str, head: str | None, repo: Path, fmt: str, output: Path | None
) -> None:
    """Check a change of streams/ or catalog/ against --base, as a pull-request gate.

    Runs what `releasekit build --check` runs on the head (streams validated, catalog/ in sync with
    streams/, opm, Konflux, upgrade-graph and policy rules) and compares with the base: catalog
    changes per OpenShift version, no published bundle or channel removed, no released bundle or
    recorded fact changed, no user stranded. Only the package catalogs the change touches are loaded
    and checked again; the others are compared by their bytes.
    """
    from releasekit.jobs.check import CheckRequest, run_check

    result = run_check(CheckRequest(base=base, head=head, repo=repo))
    ctx.exit(emit_report(result.report, fmt, output))
