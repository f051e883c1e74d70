"""``releasekit catalog validate DIR...``: ``opm validate`` rule for rule, every finding reported.

Thin click layer: load each folder (:func:`releasekit.io.fbc_load.load_catalog`), run the model checks
(:func:`releasekit.rules.fbc.validate_config`), refine lines for findings inside objects
(:mod:`releasekit.io.fbc_locate`), and hand one report to the reporter. Exit codes (contract): 0 no error
finding, 1 error findings, 2 a folder that cannot be read, bad usage, or input refused by a safety
limit (one line on stderr, never a traceback).
"""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.errors import ReleasekitError
from releasekit.io.fbc_load import DEFAULT_MAX_FILE_BYTES

__all__ = ["command"]

_LOAD_RULES = tuple(f"RK-FBC-{n:03d}" for n in range(1, 9))


def _format_names() -> list[str]:
    from releasekit.report import REPORTERS

    return list(REPORTERS)


@click.command(name="validate")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="DIR...")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(_format_names()),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write the report to this file instead of standard output.",
)
@click.option(
    "--max-file-size",
    "max_file_size",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_FILE_BYTES,
    show_default=True,
    metavar="BYTES",
    help="Refuse catalog files larger than this (a safety limit; exit 2).",
)
@click.pass_context
def command(
    ctx: click.Context, dirs: tuple[Path, ...], fmt: str, output: Path | None, max_file_size: int
) -> None:
    """Validate file-based catalog folders as `opm validate` does, reporting every problem.

    Each DIR is one catalog (a folder of FBC JSON/YAML files, e.g. catalog/v4.18/configs). Findings are
    grouped by package, channel and bundle; every check opm has uses opm's own wording.
    """
    from releasekit.cli._common import emit_report, write_output
    from releasekit.io.fbc_load import LoadLimits, load_catalog
    from releasekit.io.fbc_locate import refine_locations
    from releasekit.model.finding import Finding
    from releasekit.model.report import Report
    from releasekit.rules.fbc import RULES, validate_config

    limits = LoadLimits(max_file_bytes=max_file_size)
    findings: list[Finding] = []
    checked: list[str] = []
    try:
        for directory in dirs:
            loaded = load_catalog(directory, limits)
            findings.extend(loaded.findings)
            findings.extend(validate_config(loaded.config))
            checked.extend(loaded.files)
    except ReleasekitError as exc:
        if fmt == "konflux":
            from releasekit.report import source_epoch
            from releasekit.report.konflux import konflux_error

            write_output(konflux_error(str(exc), source_epoch()), output)
        raise
    report = Report(
        command="catalog validate",
        findings=refine_locations(findings),
        checked=tuple(checked),
        rules=_LOAD_RULES + tuple(sorted(RULES)),
    )
    ctx.exit(emit_report(report, fmt, output))
