"""Comparisons with a base revision: the rules that need one, run the same way by ``build`` and ``check``.

``check`` compares with its branch point, ``build`` with git HEAD, so ``build`` is ``check --base HEAD``.
Only the package catalogs whose bytes differ are loaded and compared.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.io.catalog_tree import catalog_fragments
from releasekit.io.gitrev import committed_files
from releasekit.io.streams import LoadedStreams, load_streams
from releasekit.jobs.judge import package_catalogs
from releasekit.model.finding import Finding, Severity
from releasekit.model.layout import CatalogLayout
from releasekit.model.report import CatalogChangeNote
from releasekit.model.stream import ReleaseStatus, Stream
from releasekit.rules import diff as diff_rules
from releasekit.rules import graph as graph_rules
from releasekit.rules import stream as stream_rules
from releasekit.rules.diff import PackageCatalog

__all__ = [
    "COMPARISON_RULES",
    "Comparison",
    "catalog_changes",
    "compare_streams",
    "compare_with_head",
    "published_in",
    "published_by_streams",
    "streams_at_head",
]

COMPARISON_RULES: tuple[str, ...] = (*sorted(diff_rules.RULES), stream_rules.RULE_INVENTORY_CHANGED)
"""The rules that need a base revision (``check`` and ``build`` both run them)."""

Key = tuple[str, str]
Severity_ = Severity | Callable[[graph_rules.Stranding], Severity]


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    """What a comparison with the base found, what the change does, and how strandings are judged."""

    findings: tuple[Finding, ...] = ()
    changes: tuple[CatalogChangeNote, ...] = ()
    stranding_severity: Severity_ = Severity.WARNING


def streams_at_head(streams_dir: Path, working: LoadedStreams) -> LoadedStreams | None:
    """``streams/`` as committed at HEAD: ``working`` itself when HEAD holds the same bytes; None outside git.

    Raises:
        InputError, SafetyLimitError: git refuses the repository, or a committed file is over a limit.
    """
    committed = committed_files(streams_dir)
    if committed is None:
        return None
    files = committed[0]
    on_disk = {
        PurePosixPath(p.relative_to(streams_dir).as_posix()): p
        for p in streams_dir.rglob("*")
        if p.is_file() and not p.is_symlink()
    }
    if on_disk.keys() == files.keys() and all(
        p.read_bytes() == files[rel].read() for rel, p in on_disk.items()
    ):
        return working
    if not any(rel.parts[0].endswith(".yaml") for rel in files):
        return LoadedStreams(streams=(), inventories={}, findings=(), files=())
    with tempfile.TemporaryDirectory(prefix="releasekit-head-streams-") as tmp:
        root = Path(tmp) / "streams"
        for rel, ref in files.items():
            target = root.joinpath(*rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(ref.read())
        return load_streams(root, display_root="streams")


def _package_catalogs(
    files: Mapping[PurePosixPath, bytes], keys: set[Key], *, display: str
) -> dict[Key, PackageCatalog]:
    """The package catalogs ``keys`` of a tree (under ``display``), read whole by fragment as ``check`` reads them."""
    folders = {openshift for openshift, _ in keys}
    fragments = catalog_fragments(
        display, {rel: data for rel, data in files.items() if rel.parts[0] in folders}
    )
    return {
        (c.openshift, c.package): c for c in package_catalogs(fragments) if (c.openshift, c.package) in keys
    }


def published_in(catalogs: Mapping[Key, PackageCatalog]) -> frozenset[tuple[str, str]]:
    """``(bundle, openshift)`` of every bundle the package catalogs publish."""
    return graph_rules.published_pairs((key[0], c.config) for key, c in sorted(catalogs.items()))


def compare_with_head(
    base_files: Mapping[PurePosixPath, bytes],
    head_files: Mapping[PurePosixPath, bytes],
    layout: CatalogLayout,
    *,
    display: str,
    base_streams: LoadedStreams | None,
    head_streams: LoadedStreams,
) -> Comparison:
    """The comparison rules over the package catalogs that differ between ``base_files`` and ``head_files``."""
    catalog_files = {rel for rel in (*base_files, *head_files) if layout.catalog_key(rel) is not None}
    differ = {rel for rel in catalog_files if base_files.get(rel) != head_files.get(rel)}
    keys = {key for rel in differ if (key := layout.catalog_key(rel)) is not None}
    findings: list[Finding] = []
    if base_streams is not None and base_streams is not head_streams:
        findings.extend(compare_streams(base_streams, head_streams))
    if not keys:
        return Comparison(findings=tuple(findings))
    # judged where they are checked: the loaders' findings are not the comparison's
    every = {key for rel in base_files if (key := layout.catalog_key(rel)) is not None}
    published = _package_catalogs(base_files, every, display=display)
    base = {key: catalog for key, catalog in published.items() if key in keys}
    head = _package_catalogs(head_files, keys, display=display)
    findings.extend(diff_rules.check_diff(base, head))  # recorded facts compared above, once
    return Comparison(
        findings=tuple(findings),
        changes=catalog_changes(base, head),
        stranding_severity=graph_rules.published_severity(published_in(published)),
    )


def compare_streams(base: LoadedStreams, head: LoadedStreams) -> list[Finding]:
    """The comparison rules over ``streams/``: inventories that changed, published facts edited (RK-DIFF-006)."""
    return [
        *stream_rules.check_inventory_changes(base.streams, base.inventories, head.inventories),
        *diff_rules.check_recorded_facts(base.streams, head.streams),
    ]


def catalog_changes(
    base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[CatalogChangeNote, ...]:
    """What a change does to each package catalog, in the lines the reports show."""
    return tuple(
        CatalogChangeNote(openshift=c.openshift, package=c.package, lines=c.lines())
        for c in diff_rules.summarize_changes(base, head)
    )


def published_by_streams(streams: Sequence[Stream]) -> Severity_:
    """How strandings are judged with no committed catalog: what ``streams/`` marks released is published."""
    pairs = {
        (release.csv_name(stream.package), str(openshift))
        for stream in streams
        for release in stream.releases
        if release.status is not ReleaseStatus.CANDIDATE
        for openshift in release.catalogs
    }
    return graph_rules.published_severity(pairs)
