"""Finding locations: the nearest recorded line of a JSON path (used by manifests, YAML documents and
stream origins alike)."""

from __future__ import annotations

import pytest

from releasekit.model.finding import nearest_line

LINES = {"$": 1, "$.spec": 4, "$.spec.items[2]": 9, "": 20, "a.b": 30}


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("$.spec.items[2]", 9),
        ("$.spec.items[2].name", 9),
        ("$.spec.items[3].name", 4),
        ("$.status", 1),
        ("a.b[0]", 30),
        ("a.c", 20),  # a relative path ends at ""
        ("", 20),
    ],
)
def test_a_path_takes_its_own_line_or_its_nearest_ancestors(path: str, line: int) -> None:
    assert nearest_line(LINES, path) == line


def test_nothing_recorded_gives_none() -> None:
    assert nearest_line({"$.x": 3}, "$.y.z") is None
    assert nearest_line({}, "") is None
