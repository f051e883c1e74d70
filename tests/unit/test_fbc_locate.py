"""Finer finding lines: each finding gets the line of the element its JSON path names, in its own file."""

from __future__ import annotations

from pathlib import Path

import pytest

from releasekit.io.fbc_locate import refine_locations
from releasekit.model.finding import Finding, Location, Severity

BUNDLE = """{
    "schema": "olm.bundle",
    "name": "foo.v1.0.0",
    "package": "foo",
    "properties": [
        {
            "type": "olm.package",
            "value": {
                "packageName": "foo",
                "version": "1.0.0"
            }
        }
    ]
}
"""
PACKAGE = '{\n    "schema": "olm.package",\n    "name": "foo",\n    "defaultChannel": "stable"\n}\n'


def _finding(file: Path, line: int, path: str) -> Finding:
    return Finding(
        rule="RK-FBC-000",
        severity=Severity.ERROR,
        message="m",
        location=Location(file=str(file), line=line, path=path),
    )


@pytest.fixture
def catalogs(tmp_path: Path) -> tuple[Path, Path]:
    first = tmp_path / "a.json"
    second = tmp_path / "b.json"
    first.write_text(BUNDLE, encoding="utf-8")
    second.write_text(PACKAGE + BUNDLE, encoding="utf-8")  # the same object, five lines further down
    return first, second


def test_a_shared_object_gets_each_files_lines(catalogs: tuple[Path, Path]) -> None:
    first, second = catalogs
    findings = [
        _finding(first, 1, "$.name"),
        _finding(second, 6, "$.name"),
        _finding(first, 1, "$.properties[0].value.version"),
        _finding(second, 6, "$.properties[0].value.version"),
        _finding(second, 1, "$.defaultChannel"),
    ]
    lines = [f.location.line for f in refine_locations(findings)]
    assert lines == [3, 8, 10, 15, 4]


def test_a_chunk_yaml_refuses_keeps_the_object_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{\n    "name": "x",\n    "name": "y"\n}\n', encoding="utf-8")  # a duplicate key
    findings = [_finding(bad, 1, "$.name"), _finding(bad, 1, "$.name")]
    assert [f.location.line for f in refine_locations(findings)] == [1, 1]
