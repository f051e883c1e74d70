"""``releasekit check --base REF [--head REF]``: the pull-request check of catalog and stream changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import emit_report, format_options

__all__ = ["command"]


@click.command(name="check")
@click.option(
    "--base",
    "base",
    required=True,
    help="The revision to compare with (the PR's target): any revision git resolves to a commit.",
)
@click.option("--head", "head", default=None, help="The revision to check (default: the working tree).")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
    help="The repository's top folder.",
)
@click.option(
    "--fail-on",
    "fail_on",
    type=click.Choice(["error", "new"]),
    default="error",
    show_default=True,
    help="Exit 1 for any error finding, or only for the errors this change brings (new).",
)
@click.option(
    "--published",
    "published",
    multiple=True,
    metavar="OCP=FILE|REV",
    help="What the OCP catalog released: a rendered index (opm render, JSON or YAML) or a revision; "
    "repeatable. Without it everything in the base counts as published (catalog repositories).",
)
@format_options
def command(fail_on: str, fmt: str, output: Path | None, **options: Any) -> int:
    """Check a change of streams/ or catalog/ against --base, as a pull-request gate.

    Runs what `releasekit build --check` runs on the head (streams validated, catalog/ in sync with
    streams/, opm, Konflux, upgrade-graph and policy rules) and compares with the base: catalog
    changes per OpenShift version, no published bundle or channel removed, no released bundle or
    recorded fact changed, no user stranded. Only the package catalogs the change touches are loaded
    and checked again; the others are compared by their bytes.

    The base revision is checked too, so each finding is marked new or unchanged (same rule,
    severity, file and subject; lines may move) and the base's findings this change fixes are listed. --base takes any revision git
    resolves to a commit (origin/main, HEAD~1, main^, @{upstream}, a commit id).
    """
    from releasekit.jobs.check import CheckRequest, run_check
    from releasekit.model.report import FailOn

    result = run_check(CheckRequest(fail_on=FailOn(fail_on), **options))
    return emit_report(result.report, fmt, output)
