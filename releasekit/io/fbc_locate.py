"""Finer lines for catalog findings: the line of the entry or property a finding's path points at.

Adapter module (imports no rules, plans or jobs). The loader records the line each object starts on. A
finding whose :attr:`~releasekit.model.finding.Location.path` points inside an object
(``$.entries[2].skipRange``) gets that element's line here: only files with such findings are read again,
split into documents by the loader's own splitters, and only the documents the findings are in are parsed,
by :mod:`releasekit.io.yamlio` (a JSON object is YAML too). Anything that cannot be read again keeps the
object's line; this step never fails a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from releasekit.io.fbc_load import DEFAULT_MAX_FILE_BYTES, _json_docs
from releasekit.io.yamlio import document_lines, yaml_chunks
from releasekit.model.finding import Finding, nearest_line

__all__ = ["refine_locations"]


def refine_locations(
    findings: Iterable[Finding], held: Mapping[str, bytes] | None = None
) -> tuple[Finding, ...]:
    """Return ``findings`` with ``location.line`` moved to the element their ``location.path`` names.

    ``held``: files kept in memory (shown name → bytes), read from there instead of from disk.
    """
    items = tuple(findings)
    wanted: dict[str, set[int]] = {}
    for f in items:
        if f.location.file and f.location.line is not None and f.location.path.startswith(("$.", "$[")):
            wanted.setdefault(f.location.file, set()).add(f.location.line)
    lines = {
        (file, start): found
        for file in wanted
        for start, found in _element_lines(file, wanted[file], (held or {}).get(file)).items()
    }
    out = []
    for f in items:
        loc = f.location
        line = nearest_line(lines.get((loc.file, loc.line or 0), {}), loc.path)
        out.append(f if line is None or line == loc.line else replace(f, location=replace(loc, line=line)))
    return tuple(out)


def _element_lines(file: str, starts: set[int], data: bytes | None) -> dict[int, dict[str, int]]:
    """For each object of ``file`` (or of its ``data``) starting on one of ``starts``: each path's line in it."""
    try:
        if data is None and Path(file).stat().st_size <= DEFAULT_MAX_FILE_BYTES:
            data = Path(file).read_bytes()
        if data is None or len(data) > DEFAULT_MAX_FILE_BYTES:
            return {}
        text = data.decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return {}
    if text.lstrip(" \t\r\n").startswith("{"):  # each object, padded to keep its first line's columns
        chunks: Iterable[tuple[str, int]] = (
            (" " * (begin - text.rfind("\n", 0, begin) - 1) + text[begin:end], line)
            for _, line, begin, end in _json_docs(text, file, [])
        )
    else:
        chunks = yaml_chunks(text)
    result: dict[int, dict[str, int]] = {}
    for chunk, first in chunks:
        start = next((s for s in starts if first <= s <= first + chunk.count("\n")), None)
        if start is not None:
            result[start] = document_lines(chunk, first - 1)
    return result
