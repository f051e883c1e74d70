"""The OpenShift upgrade matrix as text, JSON or Markdown, and the rows a change alters.

Pure core: no I/O. JSON (``releasekit/upgrade-matrix/v1``): one entry per upgrade and package, one row
per version: ``{version, reaches, path}``, ``{version, stranded: true, why}`` or ``{version, blocked:
true, why}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from releasekit.model.upgrade_matrix import MatrixRow, MatrixUpgrade, changed_rows

__all__ = [
    "MATRIX_SCHEMA",
    "matrix_to_json",
    "render_changed_markdown",
    "render_json",
    "render_markdown",
    "render_text",
]

MATRIX_SCHEMA: Final = "releasekit/upgrade-matrix/v1"


def _row_json(row: MatrixRow) -> dict[str, Any]:
    if row.stranded:
        return {"version": row.version, "stranded": True, "why": row.why}
    if row.blocked:
        return {"version": row.version, "blocked": True, "why": row.why}
    return {"version": row.version, "reaches": row.reaches, "path": list(row.path)}


def matrix_to_json(matrix: Sequence[MatrixUpgrade]) -> dict[str, Any]:
    """The matrix as a JSON-ready document."""
    return {
        "schema": MATRIX_SCHEMA,
        "upgrades": [
            {
                "package": u.package,
                "from": u.source,
                "to": u.target,
                "kind": u.kind,
                "versions": [_row_json(r) for r in u.rows],
            }
            for u in matrix
        ],
    }


def render_json(matrix: Sequence[MatrixUpgrade]) -> str:
    """JSON, 2-space indent, newline at the end."""
    return json.dumps(matrix_to_json(matrix), indent=2, ensure_ascii=False) + "\n"


def _counts(matrix: Sequence[MatrixUpgrade]) -> str:
    stranded = sum(r.stranded for u in matrix for r in u.rows)
    blocked = sum(r.blocked for u in matrix for r in u.rows)
    by_kind: dict[str, int] = {}
    for u in matrix:
        by_kind[u.kind] = by_kind.get(u.kind, 0) + sum(r.stranded for r in u.rows)
    parts = ", ".join(f"{n} along {k} upgrades" for k, n in by_kind.items() if n)
    text = f"{len(matrix)} upgrades, {stranded} stranded versions" + (f" ({parts})" if parts else "")
    return text + (f", {blocked} blocking the upgrade" if blocked else "")


def render_text(matrix: Sequence[MatrixUpgrade]) -> str:
    """One block per upgrade and package, one line per version; a summary line at the end."""
    lines: list[str] = []
    for u in matrix:
        lines.append(f"{u.package}: {u.source} -> {u.target} ({u.kind})")
        width = max((len(r.version) for r in u.rows), default=0)
        for r in u.rows:
            if r.stranded or r.blocked:
                lines.append(
                    f"  {r.version.ljust(width)}  {'STRANDED' if r.stranded else 'blocked'}: {r.why}"
                )
            else:
                lines.append(f"  {r.version.ljust(width)}  -> {r.reaches}  ({' -> '.join(r.path)})")
    lines.append(_counts(matrix))
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(matrix: Sequence[MatrixUpgrade]) -> str:
    """One table per upgrade and package: version, reaches, path or why not."""
    out: list[str] = ["# OpenShift upgrade matrix", "", _counts(matrix), ""]
    for u in matrix:
        out += [
            f"## {u.package}: {u.source} → {u.target} ({u.kind})",
            "",
            "| version | reaches | path |",
            "| --- | --- | --- |",
        ]
        for r in u.rows:
            if r.stranded or r.blocked:
                out.append(
                    f"| {r.version} | **{'stranded' if r.stranded else 'blocked'}** | {_cell(r.why)} |"
                )
            else:
                out.append(f"| {r.version} | {r.reaches} | {' → '.join(r.path)} |")
        out.append("")
    return "\n".join(out)


def render_changed_markdown(base: Sequence[MatrixUpgrade], head: Sequence[MatrixUpgrade]) -> str:
    """The rows a change alters, as one Markdown table (empty text when nothing changed)."""
    rows = changed_rows(base, head)
    if not rows:
        return ""
    out = ["| package | upgrade | version | before | after |", "| --- | --- | --- | --- | --- |"]
    for upgrade, version, before, after in rows:
        out.append(
            f"| {upgrade.package} | {upgrade.source} → {upgrade.target} ({upgrade.kind}) | {version} | "
            f"{_cell(before)} | {_cell(after)} |"
        )
    return "\n".join(out) + "\n"
