"""The opm peer cases (``shared/fixtures/opm-testdata/cases.yaml``), kinds ``load`` and ``validate``.

Driven by the cases file: a new case needs no code. opm stops at its first error and orders sibling
errors randomly, while releasekit reports everything, so an invalid case passes when every expected
leaf message appears among the error findings (set inclusion); a valid case has no error finding.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from releasekit.io.fbc_load import load_catalog
from releasekit.model.finding import Severity
from releasekit.rules.fbc import validate_config
from tests.conftest import require_shared

pytestmark = pytest.mark.shared

KINDS = ("load", "validate")
_BRANCHES = ("├── ", "└── ", "│   ", "    ")


def _cases() -> list[Any]:
    try:
        path = require_shared("opm-testdata", "cases.yaml")
    except pytest.skip.Exception:  # collected without shared/: one skipped placeholder
        return [pytest.param(None, id="shared-fixtures-missing")]
    cases = yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    return [pytest.param(c, id=f"{c['kind']}/{c['name']}") for c in cases if c["kind"] in KINDS]


def leaf_messages(error: str) -> list[str]:
    """The leaf lines of an opm error: the whole text when it is one line, else the tree's leaves."""
    lines = error.split("\n")
    if len(lines) == 1:
        return [error]
    parsed: list[tuple[int, str]] = []
    for line in lines:
        depth, rest = 0, line
        while rest[:4] in _BRANCHES:
            depth, rest = depth + 1, rest[4:]
        parsed.append((depth, rest))
    return [
        text for i, (depth, text) in enumerate(parsed) if i + 1 == len(parsed) or parsed[i + 1][0] <= depth
    ]


def test_leaf_messages_of_a_tree() -> None:
    tree = (
        'invalid index:\n└── invalid package "foo":\n    ├── a\n    └── invalid channel "c":\n        └── b'
    )
    assert leaf_messages(tree) == ["a", "b"]
    assert leaf_messages("one line") == ["one line"]


@pytest.mark.parametrize("case", _cases())
def test_case(case: dict[str, Any] | None, shared: Callable[..., Path]) -> None:
    if case is None:
        shared("opm-testdata", "cases.yaml")  # skips, or fails under CI=true
        return
    root = shared("opm-testdata")
    loaded = load_catalog(root / case["input"])
    findings = list(loaded.findings)
    if case["kind"] == "validate":
        findings.extend(validate_config(loaded.config))
    errors = [f.message for f in findings if f.severity is Severity.ERROR]
    expected = case["expected"]
    if expected == "valid" or (isinstance(expected, dict) and expected.get("valid")):
        assert errors == [], f"{case['name']}: expected valid, got {errors}"
        for kind, count in (expected.get("counts") or {}).items() if isinstance(expected, dict) else ():
            assert len(getattr(loaded.config, kind)) == count, f"{case['name']}: {kind}"
        return
    assert errors, f"{case['name']}: expected an error, got none"
    if "error_exact" in expected:
        missing = [
            leaf for leaf in leaf_messages(expected["error_exact"]) if not any(leaf in m for m in errors)
        ]
        assert not missing, f"{case['name']}: {missing} not among {errors}"
    elif expected.get("error_contains") is not None:
        needle = expected["error_contains"]
        assert any(needle in m for m in errors), f"{case['name']}: {needle!r} not among {errors}"
