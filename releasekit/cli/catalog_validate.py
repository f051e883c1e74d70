"""``releasekit catalog validate DIR...``: ``opm validate`` rule for rule, every finding reported.

Thin click layer: load each folder and run the model checks (:func:`releasekit.io.fbc_load.load_and_check`
with :func:`releasekit.rules.fbc.validate_config`), refine lines for findings inside objects
(:mod:`releasekit.io.fbc_locate`), and hand one report to the reporter. Exit codes (contract): 0 no error
finding, 1 error findings, 2 a folder that cannot be read, bad usage, or input refused by a safety
limit (one line on stderr, never a traceback).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from releasekit.cli._common import format_options
from releasekit.io.fbc_load import DEFAULT_MAX_FILE_BYTES, LOAD_RULES

if TYPE_CHECKING:
    from releasekit.model.fbc import DeclarativeConfig

__all__ = ["command"]


def _graph_rules() -> tuple[str, ...]:
    from releasekit.rules.graph import RULES as GRAPH_RULES

    return tuple(sorted(GRAPH_RULES))


@click.command(name="validate")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="DIR...")
@format_options
@click.option(
    "--max-file-size",
    "max_file_size",
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
    "upgrade between the given OpenShift catalogs strands).",
)
@click.option(
    "--lifecycle",
    "lifecycle",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="With --graph: the OpenShift lifecycle whose cluster upgrades are checked [default: "
    "streams/openshift/lifecycle.yaml when present; else each minor to the next].",
)
@click.pass_context
def command(
    ctx: click.Context,
    dirs: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    max_file_size: int,
    graph: bool,
    lifecycle: Path | None,
) -> None:
    """Validate file-based catalog folders as `opm validate` does, reporting every problem.

    Each DIR is one catalog (a folder of FBC JSON/YAML files, e.g. catalog/v4.18/configs). Findings are
    grouped by package, channel and bundle; every check opm has uses opm's own wording. By default the
    verdict is opm's; --graph adds releasekit's upgrade-graph rules (which `releasekit build` always runs).
    """
    from releasekit.cli._common import emit_report, progress, request_fast_exit
    from releasekit.io.fbc_load import LoadLimits, load_and_check, load_and_check_findings
    from releasekit.model.finding import Finding
    from releasekit.model.report import Report
    from releasekit.rules.fbc import RULES, validate_config

    limits = LoadLimits(max_file_bytes=max_file_size)
    findings: list[Finding] = []
    checked: list[str] = []
    kept_alive: list[object] = []
    by_openshift: dict[str, DeclarativeConfig] = {}
    shown: dict[str, str] = {}
    if graph:  # a catalog tree (catalog/) stands for its v<X.Y> fragments
        from releasekit.jobs.catalog_matrix import cross_openshift_findings, expand_tree, openshift_of

        dirs = tuple(d for directory in dirs for d in expand_tree(directory))
    for directory in progress(dirs, "validating catalogs", enabled=fmt == "text"):
        if not graph:  # only findings are needed: big catalogs may be split across two processes
            # the previous folder's catalog is freed here; the last one never is (request_fast_exit)
            kept_alive = []
            found, files = load_and_check_findings(directory, validate_config, limits, kept_alive)
            findings.extend(found)
            checked.extend(files)
            continue
        from releasekit.rules.graph import DEFAULT_POLICY, check_graph

        loaded, validated = load_and_check(directory, validate_config, limits)
        findings.extend(loaded.findings)
        findings.extend(validated)
        checked.extend(loaded.files)
        findings.extend(check_graph(loaded.config, DEFAULT_POLICY, file=str(directory)))
        openshift = openshift_of(directory)
        if openshift is not None and openshift not in by_openshift:
            by_openshift[openshift] = loaded.config
            shown[openshift] = str(directory)
    if graph:
        findings.extend(cross_openshift_findings(by_openshift, shown, lifecycle))
    if findings:  # the re-reading module (and its YAML parser) is needed only when there is a finding
        from releasekit.io.fbc_locate import refine_locations

        refined = refine_locations(findings)
    else:
        refined = ()
    report = Report(
        command="catalog validate",
        findings=refined,
        checked=tuple(checked),
        rules=LOAD_RULES + tuple(sorted(RULES)) + (_graph_rules() if graph else ()),
    )
    code = emit_report(report, fmt, output)
    request_fast_exit()
    ctx.exit(code)
