"""``releasekit.yaml``: a repository's configuration, read beside ``streams/`` (the repository root).

Adapter module. It configures the output layout (:class:`releasekit.model.layout.CatalogLayout`): a preset
(``layout: releasekit`` or ``kueue-fbc``) whose ``root``, ``fbcDir`` and ``containerfile`` may be overridden,
and whether releasekit owns the whole tree (``writes: tree``) or only the files it writes (``writes: files``,
always so when the root is the repository root). No file means the default layout. The file is read as
every streams file is (:func:`releasekit.io.streams.read_document`, ``releasekit.schema.json``, whose
patterns keep paths relative, inside the repository and on one line). A violation, a ``containerfile``
naming the ``fbcDir`` folder (in any case), or a ``root`` that is or lies in an input or goes through a file
is RK-STREAM-040 at its line; the default layout is used meanwhile, so the rest is still checked.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Final

from releasekit.io.streams import read_document
from releasekit.io.yamlio import LocatedDocument
from releasekit.model.finding import Finding, Location, make_finding
from releasekit.model.layout import DEFAULT_LAYOUT, LAYOUTS, CatalogLayout

__all__ = ["CONFIG_FILE", "RULES", "RULE_CONFIG", "load_layout"]

CONFIG_FILE = "releasekit.yaml"
RULE_CONFIG = "RK-STREAM-040"
RULES: Final[dict[str, str]] = {RULE_CONFIG: "releasekit.yaml does not follow its schema"}
INPUTS: Final = ("streams", "bundle-templates", CONFIG_FILE)
"""What ``catalog.root`` may not be or lie in (compared ignoring case, as a case-insensitive file system would)."""


def _finding(
    doc: LocatedDocument, display: str, path: str, message: str, hint: str, line_of: str = ""
) -> Finding:
    """RK-STREAM-040 at ``path`` of the file, on the line of ``line_of`` (``path`` by default)."""
    at = Location(file=display, line=doc.line_of(line_of or path), path=path)
    return make_finding(RULE_CONFIG, message, at, hint, ())


def _refused(
    repo_root: Path, layout: CatalogLayout, catalog: dict[str, object], doc: LocatedDocument, display: str
) -> list[Finding]:
    """A root among the inputs or through a file, and a Containerfile named like the FBC folder."""
    out: list[Finding] = []
    root, parts = layout.root, layout.root.split("/")
    root_line = "$.catalog.root" if "root" in catalog else "$.catalog"
    prefixes = ["/".join(parts[: depth + 1]) for depth in range(len(parts))] if root != "." else []
    files = [p for p in prefixes if os.path.lexists(repo_root / p) and not (repo_root / p).is_dir()]
    if root != "." and parts[0].casefold() in {name.casefold() for name in INPUTS}:
        inside = "is" if len(parts) == 1 else "lies inside"
        message = f"catalog.root {root!r} {inside} the input {parts[0]!r}: the catalogs would be written among releasekit's own inputs"
        hint = "name a folder of its own, such as catalog (the default) or '.' with writes: files"
        out.append(_finding(doc, display, "$.catalog.root", message, hint, root_line))
    elif files:
        message = f"catalog.root {root!r}: {files[0]!r} is a file, not a folder"
        hint = "name a folder (it is created when missing)"
        out.append(_finding(doc, display, "$.catalog.root", message, hint, root_line))
    if layout.containerfile.casefold() == layout.fbc_dir.casefold():
        key = next((k for k in ("containerfile", "fbcDir") if k in catalog), "")
        message = (
            f"catalog.containerfile {layout.containerfile!r} and catalog.fbcDir {layout.fbc_dir!r} name the same "
            "path in each fragment (a file and a folder cannot both be there)"
        )
        hint = (
            "give the Containerfile another name than the FBC folder (names differing only in case are one path "
            "on macOS and Windows)"
        )
        out.append(_finding(doc, display, f"$.catalog.{key}" if key else "$.catalog", message, hint))
    return out


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
    doc = read_document(path, display, "releasekit.schema.json", findings)
    if doc is None:
        return DEFAULT_LAYOUT, [
            replace(f, rule=RULE_CONFIG, hint="see README.md (releasekit.yaml)") for f in findings
        ]
    catalog = doc.data.get("catalog") or {}
    layout = LAYOUTS[str(catalog.get("layout", DEFAULT_LAYOUT.name))]
    keys = (("root", "root"), ("fbcDir", "fbc_dir"), ("containerfile", "containerfile"))
    changes = {field: str(catalog[key]) for key, field in keys if key in catalog}
    if changes:
        layout = replace(layout, name="custom", **changes)  # type: ignore[arg-type]
    if "writes" in catalog:
        layout = replace(layout, owns_tree=catalog["writes"] == "tree")
    if layout.root == "." and layout.owns_tree:
        message = "catalog.writes: tree with root '.' would make releasekit own the whole repository"
        hint = "use writes: files (releasekit then writes only each catalog.json and Containerfile)"
        findings.append(_finding(doc, display, "$.catalog", message, hint))
        layout = replace(layout, owns_tree=False)
    refused = _refused(repo_root, layout, catalog, doc, display)
    return (DEFAULT_LAYOUT, findings + refused) if refused else (layout, findings)
