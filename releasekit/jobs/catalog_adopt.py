"""``releasekit catalog adopt DIR``: a one-time import of an existing catalog repository into ``catalog/``.

Job module. A team that already publishes catalogs (openshift/kueue-fbc's ``v<X.Y>/catalog/<package>/
catalog.json``, or releasekit's own ``v<X.Y>/configs/<package>/catalog.json``) starts from what is
published: each package catalog of DIR is copied byte for byte to where the output layout puts it, so
the next ``releasekit build`` (after the import is committed) carries every published bundle blob as it
stands and plans only the channels, edges and deprecations around them.

Nothing in DIR is dropped silently: what the streams do not know -- a package no stream owns, an
OpenShift version no stream ships to, a bundle that is no published release of its stream (or whose
release does not list that catalog) -- is reported as an error, and then nothing is written
(all or nothing, as ``build``). Files of DIR that are not package catalogs (templates, Containerfiles,
scripts) are not imported; they are listed in the report as notes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.errors import InputError
from releasekit.io.fbc_blobs import json_stream_blobs
from releasekit.io.fbc_load import LOAD_RULES, LoadLimits, decode_metas, load_catalog_text
from releasekit.io.streams import load_streams
from releasekit.model.finding import Finding, Severity
from releasekit.model.layout import LAYOUTS, CatalogLayout
from releasekit.model.report import Report
from releasekit.rules.adopt import RULES as ADOPT_RULES
from releasekit.rules.adopt import AdoptedCatalog, check_adopted, not_imported

__all__ = ["AdoptRequest", "AdoptResult", "adopt"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AdoptRequest:
    """What to import (``source``, laid out as ``layout`` names) and where (``catalog_dir`` in ``target``).

    ``target`` None is what ``releasekit.yaml`` beside ``streams_dir`` configures, ``catalog_dir`` None its root.
    """

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


def _files(source: Path) -> list[PurePosixPath]:
    if not source.is_dir():
        raise InputError(f"{source}: not a folder (give the catalog repository's top folder)")
    found: list[PurePosixPath] = []
    for directory, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(directory) / name
            if path.is_symlink():
                raise InputError(f"{path}: a symbolic link; refusing it")
            found.append(PurePosixPath(path.relative_to(source).as_posix()))
    return found


def adopt(request: AdoptRequest) -> AdoptResult:
    """Import ``request.source`` (see the module docstring); nothing is printed.

    Raises:
        UsageError: an unknown layout name.
        InputError, SafetyLimitError: the streams or DIR cannot be read.
    """
    from releasekit.errors import UsageError

    layout = LAYOUTS.get(request.layout)
    if layout is None:
        raise UsageError(f"--layout: {request.layout!r} is not one of {', '.join(sorted(LAYOUTS))}")
    from releasekit.io.config import load_layout

    repo_root = request.streams_dir.parent
    target, config_findings = (request.target, []) if request.target else load_layout(repo_root)
    catalog_dir = request.catalog_dir or repo_root / target.root
    loaded = load_streams(request.streams_dir, display_root=str(request.streams_dir))
    findings: list[Finding] = list(config_findings)
    checked: list[str] = []
    imports: dict[PurePosixPath, bytes] = {}
    adopted: list[AdoptedCatalog] = []
    shown_root = str(request.source).rstrip("/")
    for rel in _files(request.source):
        shown = f"{shown_root}/{rel}"
        key = layout.catalog_key(rel)
        if key is None or rel.name != "catalog.json":
            findings.append(not_imported(shown, layout.name))
            continue
        openshift, package = key
        try:
            data = (request.source / rel).read_bytes()
        except OSError as exc:
            raise InputError(f"{shown}: cannot read: {exc.strerror or exc}") from None
        checked.append(shown)
        metas, load_findings = load_catalog_text(data, shown, LoadLimits())
        config, decode_findings = decode_metas(metas)
        findings.extend((*load_findings, *decode_findings))
        text = data.decode("utf-8", "replace")
        adopted.append(
            AdoptedCatalog(
                openshift=openshift,
                package=package,
                file=shown,
                config=config,
                json_stream=json_stream_blobs(text.removeprefix("\ufeff")) is not None,
            )
        )
        imports[target.catalog_file(openshift, package)] = data
    findings.extend(check_adopted(loaded.streams, adopted))
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    shown_target = str(catalog_dir).rstrip("/") or "."
    unchanged = ""
    written: tuple[PurePosixPath, ...] = ()
    if errors:
        unchanged = f"{shown_target}/ left unchanged: {errors} error{'s' if errors != 1 else ''}"
    else:
        from releasekit.io.atomic import write_bytes_atomic

        for rel, data in sorted(imports.items()):
            write_bytes_atomic(catalog_dir.joinpath(*rel.parts), data)
        written = tuple(sorted(imports))
    report = Report(
        command="catalog adopt",
        findings=tuple(findings),
        checked=tuple(checked),
        rules=tuple(sorted({*ADOPT_RULES, *LOAD_RULES})),
    )
    return AdoptResult(report=report, written=written, unchanged=unchanged)
