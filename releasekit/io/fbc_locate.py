"""Finer lines for catalog findings: the line of the entry or property a finding points at.

Adapter module (reads files). The loader records only the line each object starts on, which keeps
loading fast. A finding whose :attr:`~releasekit.model.finding.Location.path` points inside an object
(``$.entries[2].skipRange``, ``$.properties[1].value.version``) gets that element's line here, lazily:
only files that have such findings are read again, and in them only the documents the findings are in,
through :mod:`releasekit.io.yamlio` (a JSON object is YAML too). Files without findings are never
touched. Anything that cannot be re-read keeps the object's line; this step never fails a run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from releasekit.errors import ReleasekitError
from releasekit.io.yamlio import LocatedDocument, YamlContentError, load_yaml_documents
from releasekit.model.finding import Finding, Location

__all__ = ["refine_locations"]

_SEPARATOR = re.compile(r"^---(.*)$", re.MULTILINE)
_MAX_REREAD_BYTES = 64 * 1024 * 1024
_REMEMBER_CHARS = 4 * 1024 * 1024


def refine_locations(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Return ``findings`` with ``location.line`` moved to the element their ``location.path`` names.

    Only findings with a file, a line and a path below the object root (``$.x``) are refined.
    """
    items = tuple(findings)
    wanted: dict[str, set[int]] = {}
    for f in items:
        if _refinable(f.location):
            assert f.location.line is not None
            wanted.setdefault(f.location.file, set()).add(f.location.line)
    if not wanted:
        return items
    documents: dict[tuple[str, int], LocatedDocument | None] = {}
    parsed = _Parsed()  # catalogs of several OpenShift versions share objects
    for file, lines in wanted.items():
        documents.update(_read_documents(file, lines, parsed))
    out: list[Finding] = []
    for f in items:
        loc = f.location
        if _refinable(loc):
            assert loc.line is not None
            doc = documents.get((loc.file, loc.line))
            if doc is not None:
                line = doc.line_of(loc.path)
                if line != loc.line:
                    f = replace(f, location=Location(file=loc.file, line=line, path=loc.path))
        out.append(f)
    return tuple(out)


def _refinable(loc: Location) -> bool:
    return bool(loc.file and loc.line is not None and loc.path.startswith("$") and len(loc.path) > 1)


def _read_documents(
    file: str, lines: set[int], parsed: _Parsed
) -> dict[tuple[str, int], LocatedDocument | None]:
    """Parse the documents of ``file`` that start on ``lines``; lines in the result are file lines.

    ``parsed`` remembers chunks parsed before, in this file or another one.
    """
    result: dict[tuple[str, int], LocatedDocument | None] = {}
    try:
        path = Path(file)
        if path.stat().st_size > _MAX_REREAD_BYTES:
            return result
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return result
    if text.startswith("\ufeff"):
        text = text[1:]
    starts = _line_starts(text)
    is_json = text.lstrip(" \t\r\n").startswith("{")
    for line in sorted(lines):
        if line < 1 or line > len(starts):
            continue
        chunk, first_line = (_json_chunk if is_json else _yaml_chunk)(text, starts, line)
        if chunk is None:
            continue
        doc = parsed.first_document(chunk)
        if doc is None:
            continue
        shift = first_line - 1
        result[(file, line)] = LocatedDocument(
            data=None, line=line, lines={k: v + shift for k, v in doc.lines.items()}
        )
    return result


class _Parsed:
    """The line map of each chunk's first document (None: not YAML, or empty), by the chunk's text.

    The same text always parses the same way, and the catalogs of several OpenShift versions hold the same
    objects. Only the first ``_REMEMBER_CHARS`` characters of chunks are remembered, so that a large catalog
    with many findings keeps its memory.
    """

    def __init__(self) -> None:
        self._documents: dict[str, LocatedDocument | None] = {}
        self._room = _REMEMBER_CHARS

    def first_document(self, chunk: str) -> LocatedDocument | None:
        if chunk in self._documents:
            return self._documents[chunk]
        try:
            docs = load_yaml_documents(chunk)
        except (YamlContentError, ReleasekitError, RecursionError):
            docs = []
        doc = LocatedDocument(data=None, line=docs[0].line, lines=docs[0].lines) if docs else None
        if len(chunk) <= self._room:
            self._room -= len(chunk)
            self._documents[chunk] = doc
        return doc


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _json_chunk(text: str, starts: list[int], line: int) -> tuple[str | None, int]:
    """The JSON object that begins on ``line`` (the first ``{`` at or after the line start)."""
    begin = text.find("{", starts[line - 1])
    if begin == -1:
        return None, line
    try:
        _, end = json.JSONDecoder().raw_decode(text, begin)
    except ValueError:
        return None, line
    # keep the columns of the first line so multi-line JSON maps onto file lines one to one
    return " " * (begin - starts[line - 1]) + text[begin:end], line


def _yaml_chunk(text: str, starts: list[int], line: int) -> tuple[str | None, int]:
    """The YAML document containing ``line``: from the ``---`` before it to the next one."""
    offset = starts[line - 1]
    begin = 0
    end = len(text)
    for match in _SEPARATOR.finditer(text):
        rest = match.group(1).strip()
        if rest and not rest.startswith("#"):
            continue
        if match.start() < offset:
            begin = match.end() + 1
        else:
            end = match.start()
            break
    begin = min(begin, len(text))
    first_line = text.count("\n", 0, begin) + 1
    return text[begin:end], first_line
