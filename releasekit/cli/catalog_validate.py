"""``releasekit catalog validate DIR...``: ``opm validate`` rule for rule, every finding reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import emit_report, format_options, progress
from releasekit.jobs.catalog_validate import DEFAULT_MAX_FILE_BYTES

__all__ = ["command"]


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
@click.option(
    "--lifecycle",
    "lifecycle",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="With --graph: the OpenShift lifecycle whose cluster upgrades are checked [default: "
    "streams/openshift/lifecycle.yaml when present; else each minor to the next].",
)
def command(dirs: tuple[Path, ...], fmt: str, output: Path | None, **options: Any) -> int:
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
