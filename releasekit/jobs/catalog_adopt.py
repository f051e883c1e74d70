"""``releasekit catalog adopt DIR``: a one-time import of an existing catalog repository into ``catalog/``.

Package catalogs are copied byte for byte; what the streams do not know is an error and nothing is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.errors import InputError, SafetyLimitError, UsageError
from releasekit.io.atomic import write_files, write_tree_atomic
from releasekit.io.config import load_layout
from releasekit.io.fbc_blobs import json_stream_blobs
from releasekit.io.fbc_load import LOAD_RULES, LoadLimits, decode_metas, load_catalog_text
from releasekit.io.inputs import inside, read_input, walk_files
from releasekit.io.streams import load_streams
from releasekit.model.finding import Finding, Severity
from releasekit.model.layout import LAYOUTS, CatalogLayout
from releasekit.model.report import Report
from releasekit.rules.adopt import RULES as ADOPT_RULES
from releasekit.rules.adopt import AdoptedCatalog, check_adopted, not_imported

__all__ = ["AdoptRequest", "adopt"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AdoptRequest:
    """What to import (``source``, laid out as ``layout`` names) and where (``catalog_dir`` in ``target``)."""

    source: Path
    layout: str = "kueue-fbc"
    streams_dir: Path = Path("streams")
    catalog_dir: Path | None = None
    target: CatalogLayout | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AdoptResult:
    """The report, the files written (relative to ``catalog_dir``) and the one line a refused import ends with."""

    report: Report
    written: tuple[PurePosixPath, ...]
    unchanged: str = ""


def _write(
    catalog_dir: Path, target: CatalogLayout, imports: dict[PurePosixPath, bytes], request: AdoptRequest
) -> None:
    """Write the imported catalogs all or nothing, as ``build`` writes."""
    repo_root = request.streams_dir.parent
    if request.catalog_dir is None and (
        catalog_dir.is_symlink() or not inside(os.path.realpath(catalog_dir), os.path.realpath(repo_root))
    ):
        raise SafetyLimitError(f"{catalog_dir}: the catalog root is a symbolic link or leaves the repository")
    if target.owns_tree:
        write_tree_atomic(
            catalog_dir,
            imports,
            owned=target.owns,
            inputs=(request.streams_dir, request.source),
            prune=False,  # an import adds files: the Containerfiles a build wrote stay
        )
    else:
        write_files(catalog_dir, imports)


def adopt(request: AdoptRequest) -> AdoptResult:
    """Import ``request.source`` into the catalog tree; nothing is printed."""
    layout = LAYOUTS.get(request.layout)
    if layout is None:
        raise UsageError(f"--layout: {request.layout!r} is not one of {', '.join(sorted(LAYOUTS))}")
    repo_root = request.streams_dir.parent
    target, config_findings = (request.target, []) if request.target else load_layout(repo_root)
    catalog_dir = request.catalog_dir or repo_root / target.root
    loaded = load_streams(request.streams_dir, display_root=str(request.streams_dir))
    findings: list[Finding] = list(config_findings)
    checked: list[str] = []
    imports: dict[PurePosixPath, bytes] = {}
    adopted: list[AdoptedCatalog] = []
    source = request.source
    if not source.is_dir():
        raise InputError(f"{source}: not a folder (give the catalog repository's top folder)")
    for path in walk_files(source, links=False, what="the adopted repository", skip_hidden=True):
        rel = PurePosixPath(path.relative_to(source).as_posix())
        shown = f"{str(source).rstrip('/')}/{rel}"
        key = layout.catalog_key(rel)
        if key is None or rel.name != "catalog.json":
            findings.append(not_imported(shown, layout.name))
            continue
        openshift, package = key
        # regular files, 64 MiB (a sparse 2 GB file is refused by its size, unread)
        data = read_input(
            source / rel, root=source, display=shown, links=False, what="the adopted repository"
        )
        checked.append(shown)
        metas, load_findings = load_catalog_text(data, shown, LoadLimits())
        config, decode_findings = decode_metas(metas)
        findings.extend((*load_findings, *decode_findings))
        stream = json_stream_blobs(data.decode("utf-8", "replace").removeprefix("\ufeff")) is not None
        entry = AdoptedCatalog(
            openshift=openshift, package=package, file=shown, config=config, json_stream=stream
        )
        adopted.append(entry)
        imports[target.catalog_file(openshift, package)] = data
    findings.extend(check_adopted(loaded.streams, adopted))
    rules = tuple(sorted({*ADOPT_RULES, *LOAD_RULES}))
    report = Report(command="catalog adopt", findings=tuple(findings), checked=tuple(checked), rules=rules)
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    if errors:
        shown_target = str(catalog_dir).rstrip("/") or "."
        unchanged = f"{shown_target}/ left unchanged: {errors} error{'s' if errors != 1 else ''}"
        return AdoptResult(report=report, written=(), unchanged=unchanged)
    _write(catalog_dir, target, imports, request)
    return AdoptResult(report=report, written=tuple(sorted(imports)))
