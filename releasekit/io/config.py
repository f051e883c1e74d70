"""``releasekit.yaml``: a repository's configuration, read beside ``streams/`` (the repository root).

Adapter module. Only the output layout is configured today (:class:`releasekit.model.layout.CatalogLayout`):
a preset (``layout: releasekit`` or ``kueue-fbc``) whose paths ``root``, ``fbcDir`` and ``containerfile``
may be overridden, and whether releasekit owns the whole tree (``writes: tree``) or only the files it
writes (``writes: files``, always so when the root is the repository root). No file means the default
layout. The file is checked against ``releasekit/schemas/releasekit.schema.json``; a violation is an
error finding at its line (``RK-STREAM-040``), and the default layout is used meanwhile so that the
rest is still checked (a build with an error writes nothing). The schema's patterns keep every path
relative, inside the repository and on one line (no ``..``, no leading ``/``, no empty name, no trailing
newline); a ``containerfile`` that names the ``fbcDir`` folder (even in another case), a ``root`` that is or
lies inside an input (``streams``, ``bundle-templates``, ``releasekit.yaml``) or goes through an existing file
is RK-STREAM-040 too.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Final

from releasekit.io.streams import _read_document, schema_findings
from releasekit.io.yamlio import LocatedDocument
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.layout import DEFAULT_LAYOUT, LAYOUTS, CatalogLayout

__all__ = ["CONFIG_FILE", "RULES", "RULE_CONFIG", "load_layout"]

CONFIG_FILE = "releasekit.yaml"
SCHEMA = "releasekit.schema.json"
RULE_CONFIG = "RK-STREAM-040"

RULES: Final[dict[str, str]] = {RULE_CONFIG: "releasekit.yaml does not follow its schema"}


INPUTS: Final = ("streams", "bundle-templates", CONFIG_FILE)
"""What ``catalog.root`` may not be or lie in: the inputs beside ``releasekit.yaml`` (names compared
ignoring case, as a case-insensitive file system would)."""


def _root_findings(repo_root: Path, root: str, line: int | None, display: str) -> list[Finding]:
    """``root`` among the inputs, or through a file that exists (a build would end in NotADirectoryError)."""
    if root == ".":
        return []
    where = "$.catalog.root"
    parts = root.split("/")
    if parts[0].casefold() in {name.casefold() for name in INPUTS}:
        inside = "is" if len(parts) == 1 else "lies inside"
        return [
            Finding(
                rule=RULE_CONFIG,
                severity=Severity.ERROR,
                message=f"catalog.root {root!r} {inside} the input {parts[0]!r}: the catalogs would be "
                "written among releasekit's own inputs",
                location=Location(file=display, line=line, path=where),
                hint="name a folder of its own, such as catalog (the default) or '.' with writes: files",
            )
        ]
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        path = repo_root / prefix
        if os.path.lexists(path) and not path.is_dir():
            return [
                Finding(
                    rule=RULE_CONFIG,
                    severity=Severity.ERROR,
                    message=f"catalog.root {root!r}: {prefix!r} is a file, not a folder",
                    location=Location(file=display, line=line, path=where),
                    hint="name a folder (it is created when missing)",
                )
            ]
    return []


def _collision_findings(
    layout: CatalogLayout, catalog: dict[str, object], doc: LocatedDocument, display: str
) -> list[Finding]:
    """A Containerfile named like the FBC folder (ignoring case): one path for a file and a folder."""
    if layout.containerfile.casefold() != layout.fbc_dir.casefold():
        return []
    key = next((k for k in ("containerfile", "fbcDir") if k in catalog), "")
    where = f"$.catalog.{key}" if key else "$.catalog"
    return [
        Finding(
            rule=RULE_CONFIG,
            severity=Severity.ERROR,
            message=f"catalog.containerfile {layout.containerfile!r} and catalog.fbcDir {layout.fbc_dir!r} "
            "name the same path in each fragment (a file and a folder cannot both be there)",
            location=Location(file=display, line=doc.line_of(where), path=where),
            hint="give the Containerfile another name than the FBC folder (names differing only in case "
            "are one path on macOS and Windows)",
        )
    ]


def load_layout(repo_root: Path) -> tuple[CatalogLayout, list[Finding]]:
    """The layout ``repo_root/releasekit.yaml`` configures (the default without the file), and its findings.

    Raises:
        InputError: the file cannot be read or is not YAML.
    """
    path = repo_root / CONFIG_FILE
    if not path.is_file():
        return DEFAULT_LAYOUT, []
    display = str(path) if str(repo_root) not in ("", ".") else CONFIG_FILE
    findings: list[Finding] = []
    doc = _read_document(path, display, findings)
    if doc is None:
        return DEFAULT_LAYOUT, [
            replace(f, rule=RULE_CONFIG, hint="see README.md (releasekit.yaml)") for f in findings
        ]
    problems = schema_findings(doc, SCHEMA, display)
    if problems:
        return DEFAULT_LAYOUT, [
            replace(f, rule=RULE_CONFIG, hint="see README.md (releasekit.yaml)") for f in problems
        ]
    catalog = doc.data.get("catalog") or {}
    layout = LAYOUTS[str(catalog.get("layout", DEFAULT_LAYOUT.name))]
    changes = {
        field: str(catalog[key])
        for key, field in (("root", "root"), ("fbcDir", "fbc_dir"), ("containerfile", "containerfile"))
        if key in catalog
    }
    if changes:
        layout = replace(layout, name="custom", **changes)  # type: ignore[arg-type]
    if "writes" in catalog:
        layout = replace(layout, owns_tree=catalog["writes"] == "tree")
    if layout.root == "." and layout.owns_tree:
        findings.append(
            Finding(
                rule=RULE_CONFIG,
                severity=Severity.ERROR,
                message="catalog.writes: tree with root '.' would make releasekit own the whole repository",
                location=Location(file=display, line=doc.line_of("$.catalog"), path="$.catalog"),
                hint="use writes: files (releasekit then writes only each catalog.json and Containerfile)",
            )
        )
        layout = replace(layout, owns_tree=False)
    root_line = doc.line_of("$.catalog.root" if "root" in catalog else "$.catalog")
    refused = _root_findings(repo_root, layout.root, root_line, display) + _collision_findings(
        layout, catalog, doc, display
    )
    if refused:  # the default meanwhile, so the rest is still checked (a build with an error writes nothing)
        return DEFAULT_LAYOUT, findings + refused
    return layout, findings
