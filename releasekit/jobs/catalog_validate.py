"""``releasekit catalog validate``: opm's rules on catalog folders, and the whole-tree checks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from releasekit.io import fbc_load
from releasekit.io.catalog_tree import catalog_fragments, read_tree
from releasekit.io.fbc_load import DEFAULT_MAX_FILE_BYTES, LOAD_RULES, LoadLimits
from releasekit.io.fbc_locate import refine_locations
from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report
from releasekit.rules.fbc import RULES, validate_config

if TYPE_CHECKING:
    from releasekit.jobs.streams_validate import StreamsCheck
    from releasekit.model.graph import Stranding

# The graph and judging modules are imported where they are needed: they bring the streams loader and
# jsonschema (about 0.13 s of imports), which `catalog validate` of plain folders never uses.

__all__ = ["DEFAULT_MAX_FILE_BYTES", "validate_dirs", "validate_tree"]


def validate_dirs(
    dirs: Sequence[Path],
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    graph: bool,
    progress: Callable[[Sequence[Path]], Iterable[Path]] = lambda items: items,
    lifecycle: Path | None = None,
) -> Report:
    """Validate catalog folders as ``opm validate`` does; ``graph`` adds the RK-GRAPH rules."""
    limits = LoadLimits(max_file_bytes=max_file_bytes)
    findings: list[Finding] = []
    checked: list[str] = []
    by_openshift: dict[str, DeclarativeConfig] = {}
    shown: dict[str, str] = {}
    if graph:  # a catalog tree (catalog/) stands for its v<X.Y> fragments
        from releasekit.jobs.catalog_matrix import cross_openshift_findings, expand_tree, openshift_of
        from releasekit.rules.graph import DEFAULT_POLICY, check_graph
        from releasekit.rules.graph import RULES as GRAPH_RULES

        dirs = tuple(d for directory in dirs for d in expand_tree(directory))
    for directory in progress(dirs):
        loaded, validated = fbc_load.load_and_check(directory, validate_config, limits)
        findings += [*loaded.findings, *validated]
        checked.extend(loaded.files)
        if graph:
            findings.extend(check_graph(loaded.config, DEFAULT_POLICY, file=str(directory)))
            openshift = openshift_of(directory)
            if openshift is not None and openshift not in by_openshift:
                by_openshift[openshift] = loaded.config
                shown[openshift] = str(directory)
        del loaded, validated  # the next folder is loaded without this one held
    if graph:
        findings.extend(cross_openshift_findings(by_openshift, shown, lifecycle))
    if findings:
        findings = list(refine_locations(findings))
    rules = LOAD_RULES + tuple(sorted(RULES)) + (tuple(sorted(GRAPH_RULES)) if graph else ())
    return Report(command="catalog validate", findings=tuple(findings), checked=tuple(checked), rules=rules)


def validate_tree(
    tree: Path,
    *,
    files: Mapping[PurePosixPath, bytes] | None = None,
    streams: StreamsCheck | None = None,
    stranding_severity: Severity | Callable[[Stranding], Severity] = Severity.WARNING,
) -> tuple[list[Finding], list[str], tuple[str, ...]]:
    """Load and check every fragment of a catalog tree: opm's rules, Konflux's layout, the upgrade graph.

    ``files``: the tree held in memory (paths relative to it), judged as if written at ``tree``; by
    default what :func:`~releasekit.io.catalog_tree.read_tree` reads there.
    """
    from releasekit.jobs.judge import JUDGED_RULES, judge_fragments, package_catalogs

    files = read_tree(tree) if files is None else files
    fragments = catalog_fragments(str(tree), files)
    findings, checked = judge_fragments(
        fragments, package_catalogs(fragments), streams=streams, stranding_severity=stranding_severity
    )
    held = {str(PurePosixPath(tree, rel)): data for rel, data in files.items()}
    return list(refine_locations(findings, held)), checked, tuple(JUDGED_RULES)
