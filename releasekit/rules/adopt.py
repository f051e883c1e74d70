"""What an adopted catalog repository holds that the streams do not know. Pure rules.

``releasekit catalog adopt`` imports published package catalogs once; nothing in them may be dropped
silently, so each rule of :data:`RULES` is an error (and the import writes nothing), but RK-DIFF-015, a note.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Finding, Findings, Location, Severity, make_finding
from releasekit.model.stream import Stream, published_bundles

__all__ = [
    "RULES",
    "RULE_NOT_IMPORTED",
    "AdoptedCatalog",
    "check_adopted",
    "not_imported",
]

RULE_UNKNOWN_PACKAGE = "RK-DIFF-012"
RULE_UNKNOWN_OPENSHIFT = "RK-DIFF-013"
RULE_UNKNOWN_BUNDLE = "RK-DIFF-014"
RULE_NOT_IMPORTED = "RK-DIFF-015"
RULE_NOT_JSON = "RK-DIFF-016"

RULES: Final[dict[str, str]] = {
    RULE_UNKNOWN_PACKAGE: "an adopted catalog holds a package no stream owns",
    RULE_UNKNOWN_OPENSHIFT: "an adopted catalog is for an OpenShift version no stream ships to",
    RULE_UNKNOWN_BUNDLE: "an adopted bundle is no published release of its stream in that catalog",
    RULE_NOT_IMPORTED: "a file of the adopted repository is not a package catalog and is not imported",
    RULE_NOT_JSON: "an adopted package catalog is not a JSON stream, so its blobs cannot be carried",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class AdoptedCatalog:
    """One package catalog of the adopted repository: where it is, whose it is, and what it holds."""

    openshift: str
    package: str
    file: str
    config: DeclarativeConfig
    json_stream: bool = True


def check_adopted(streams: Sequence[Stream], catalogs: Iterable[AdoptedCatalog]) -> tuple[Finding, ...]:
    """RK-DIFF-012/013/014 for every catalog of ``catalogs``."""
    by_package = {s.package: s for s in streams}
    openshifts = {str(v) for s in streams for v in s.openshift}
    published = published_bundles(streams)
    out = Findings()
    for cat in catalogs:
        where = Location(file=cat.file)
        if not cat.json_stream:
            out.add(
                RULE_NOT_JSON,
                f"{cat.file} is not a JSON stream of objects, so its bundle blobs cannot be carried byte for byte",
                where,
                "render it as JSON first (`releasekit catalog render DIR > catalog.json`, as opm render does)",
                (cat.openshift, cat.package),
            )
        if cat.openshift not in openshifts:
            out.add(
                RULE_UNKNOWN_OPENSHIFT,
                f"{cat.file} is for OpenShift {cat.openshift}, which no stream ships to",
                where,
                f"add {cat.openshift} to the stream's openshift list (streams/README.md), or leave it out",
                (cat.openshift,),
            )
        stream = by_package.get(cat.package)
        if stream is None:
            out.add(
                RULE_UNKNOWN_PACKAGE,
                f"{cat.file} holds package {cat.package!r}, which no stream owns",
                where,
                "add a stream for the package to streams/, or leave it out of the import",
                (cat.openshift, cat.package),
            )
            continue
        for bundle in cat.config.bundles:
            if (cat.openshift, cat.package, bundle.name) in published:
                continue
            out.add(
                RULE_UNKNOWN_BUNDLE,
                f'bundle "{bundle.name}" in {cat.file} is no published release of stream '
                f"{stream.name!r} listed for {cat.openshift}",
                Location(file=cat.file, line=bundle.location.line),
                f"record the release in {stream.origin.file or 'streams/'} (status: released, catalogs "
                f"including {cat.openshift}), or leave the bundle out of the import",
                (cat.openshift, cat.package, f'bundle "{bundle.name}"'),
            )
    return tuple(out)


def not_imported(file: str, layout: str) -> Finding:
    """RK-DIFF-015: ``file`` is not a package catalog of ``layout``."""
    return make_finding(
        RULE_NOT_IMPORTED,
        f"{file} is not a package catalog of the {layout} layout; not imported",
        Location(file=file),
        "releasekit writes the catalogs and Containerfiles; keep what else you need by hand",
        ("not imported",),
        Severity.INFO,
    )
