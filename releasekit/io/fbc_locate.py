"""Finer lines for catalog findings: the line of the entry or property a finding's path points at.

Adapter module. The loader records the line each object starts on. A finding whose
:attr:`~releasekit.model.finding.Location.path` points inside an object (``$.entries[2].skipRange``) gets
that element's line here: only files with such findings are read again, and in them only the documents
the findings are in, by :mod:`releasekit.io.yamlio` (a JSON object is YAML too). Anything that cannot be
read again keeps the object's line; this step never fails a run.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from releasekit.errors import ReleasekitError
from releasekit.io.fbc_load import DEFAULT_MAX_FILE_BYTES, _yaml_chunks
from releasekit.io.yamlio import YamlContentError, load_yaml_documents
from releasekit.model.finding import Finding, Location, nearest_line

__all__ = ["refine_locations"]


def refine_locations(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Return ``findings`` with ``location.line`` moved to the element their ``location.path`` names."""
    items = tuple(findings)
    wanted: dict[str, set[int]] = {}
    for f in items:
        if f.location.file and f.location.line is not None and f.location.path.startswith(("$.", "$[")):
            wanted.setdefault(f.location.file, set()).add(f.location.line)
    lines: dict[tuple[str, int], dict[str, int]] = {}
    for file, starts in wanted.items():
        lines.update(((file, start), found) for start, found in _element_lines(file, starts).items())
    out = []
    for f in items:
        loc = f.location
        line = nearest_line(lines.get((loc.file, loc.line or 0), {}), loc.path)
        if line is not None and line != loc.line:
            f = replace(f, location=Location(file=loc.file, line=line, path=loc.path))
        out.append(f)
    return tuple(out)


def _element_lines(file: str, starts: set[int]) -> dict[int, dict[str, int]]:
    """For each object of ``file`` starting on one of ``starts``: the file line of every path in it."""
    try:
        path = Path(file)
        if path.stat().st_size > DEFAULT_MAX_FILE_BYTES:
            return {}
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return {}
    if text.lstrip(" \t\r\n").startswith("{"):
        chunks = _json_chunks(text, starts)
    else:
        chunks = ((chunk, line) for chunk, line in _yaml_chunks(text))
    result: dict[int, dict[str, int]] = {}
    for chunk, first in chunks:
        last = first + chunk.count("\n")
        start = next((s for s in starts if first <= s <= last), None)
        if start is None:
            continue
        try:
            docs = load_yaml_documents(chunk)
        except (YamlContentError, ReleasekitError, RecursionError):
            continue
        if docs:
            result[start] = {key: line + first - 1 for key, line in docs[0].lines.items()}
    return result


def _json_chunks(text: str, starts: set[int]) -> Iterable[tuple[str, int]]:
    """The JSON objects that begin on ``starts``, each padded to keep its first line's columns."""
    decoder = json.JSONDecoder()
    line_starts = [0, *itertools.accumulate(len(part) + 1 for part in text.split("\n"))]
    for line in sorted(starts):
        if not 1 <= line <= len(line_starts):
            continue
        begin = text.find("{", line_starts[line - 1])
        try:
            _, end = decoder.raw_decode(text, begin)
        except ValueError:
            continue
        yield " " * (begin - line_starts[line - 1]) + text[begin:end], line
