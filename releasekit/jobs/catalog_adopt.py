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
from typing import Final

from releasekit.errors import InputError
from releasekit.io.fbc_load import LOAD_RULES, LoadLimits, decode_metas, load_catalog_text
from releasekit.io.streams import load_streams
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.layout import LAYOUTS, CatalogLayout
from releasekit.model.report import Report
from releasekit.model.stream import Stream

__all__ = ["RULES", "AdoptRequest", "AdoptResult", "adopt"]

RULE_UNKNOWN_PACKAGE = "RK-DIFF-012"
RULE_UNKNOWN_OPENSHIFT = "RK-DIFF-013"
RULE_UNKNOWN_BUNDLE = "RK-DIFF-014"
RULE_NOT_IMPORTED = "RK-DIFF-015"

RULES: Final[dict[str, str]] = {
    RULE_UNKNOWN_PACKAGE: "an adopted catalog holds a package no stream owns",
    RULE_UNKNOWN_OPENSHIFT: "an adopted catalog is for an OpenShift version no stream ships to",
    RULE_UNKNOWN_BUNDLE: "an adopted bundle is no published release of its stream in that catalog",
    RULE_NOT_IMPORTED: "a file of the adopted repository is not a package catalog and is not imported",
}


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


def _error(
    rule: str, message: str, file: str, hint: str, subject: tuple[str, ...], line: int | None = None
) -> Finding:
    return Finding(
        rule=rule,
        severity=Severity.ERROR,
        message=message,
        location=Location(file=file, line=line),
        hint=hint,
        subject=subject,
    )


def _known(streams: tuple[Stream, ...]) -> tuple[dict[str, Stream], set[str], set[tuple[str, str, str]]]:
    by_package = {s.package: s for s in streams}
    openshift = {str(v) for s in streams for v in s.openshift}
    published = {
        (str(o), s.package, r.csv_name(s.package))
        for s in streams
        for r in s.releases
        if r.status.is_published
        for o in r.catalogs
    }
    return by_package, openshift, published


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
    by_package, openshifts, published = _known(loaded.streams)
    findings: list[Finding] = list(config_findings)
    checked: list[str] = []
    imports: dict[PurePosixPath, bytes] = {}
    shown_root = str(request.source).rstrip("/")
    for rel in _files(request.source):
        shown = f"{shown_root}/{rel}"
        key = layout.catalog_key(rel)
        if key is None or rel.name != "catalog.json":
            findings.append(
                Finding(
                    rule=RULE_NOT_IMPORTED,
                    severity=Severity.INFO,
                    message=f"{shown} is not a package catalog of the {layout.name} layout; not imported",
                    location=Location(file=shown),
                    hint="releasekit writes the catalogs and Containerfiles; keep what else you need by hand",
                    subject=("not imported",),
                )
            )
            continue
        openshift, package = key
        data = (request.source / rel).read_bytes()
        checked.append(shown)
        metas, load_findings = load_catalog_text(data, shown, LoadLimits())
        config, decode_findings = decode_metas(metas)
        findings.extend((*load_findings, *decode_findings))
        if openshift not in openshifts:
            findings.append(
                _error(
                    RULE_UNKNOWN_OPENSHIFT,
                    f"{shown} is for OpenShift {openshift}, which no stream ships to",
                    shown,
                    f"add {openshift} to the stream's openshift list (streams/README.md), or leave it out of DIR",
                    (openshift,),
                )
            )
        stream = by_package.get(package)
        if stream is None:
            findings.append(
                _error(
                    RULE_UNKNOWN_PACKAGE,
                    f"{shown} holds package {package!r}, which no stream owns",
                    shown,
                    "add a stream for the package to streams/, or leave it out of DIR",
                    (openshift, package),
                )
            )
        for bundle in config.bundles:
            if stream is not None and (openshift, package, bundle.name) not in published:
                findings.append(
                    _error(
                        RULE_UNKNOWN_BUNDLE,
                        f'bundle "{bundle.name}" in {shown} is no published release of stream '
                        f"{stream.name!r} listed for {openshift}",
                        shown,
                        f"record the release in {stream.origin.file or 'streams/'} (status: released, "
                        f"catalogs including {openshift}), or leave the bundle out of DIR",
                        (openshift, package, f'bundle "{bundle.name}"'),
                        bundle.location.line,
                    )
                )
        imports[target.catalog_file(openshift, package)] = data
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
        rules=tuple(sorted({*RULES, *LOAD_RULES})),
    )
    return AdoptResult(report=report, written=written, unchanged=unchanged)
