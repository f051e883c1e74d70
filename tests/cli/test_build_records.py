"""``build`` judges the operator records as ``bundle build`` does: a record that disagrees with streams/ fails it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result


def test_a_record_whose_created_at_disagrees_fails_build(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    stable = repo_copy / "streams" / "stable.yaml"
    text = stable.read_text()
    start = text.index("  - version: 1.4.1\n")
    at = text.index("    createdAt: ", start)
    end = text.index("\n", at)
    stable.write_text(text[:at] + '    createdAt: "2030-01-01T00:00:00Z"' + text[end:])
    result = run_line(["build", "--check", "--format", "json"])
    assert result.exit_code == 1
    errors = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-BUNDLE-102"]
    assert [(f["severity"], f["location"]["file"]) for f in errors] == [("error", "streams/stable.yaml")]
    assert "createdAt 2030-01-01T00:00:00Z differs" in errors[0]["message"]


def test_a_release_without_a_record_says_which_record_it_carries(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    (repo_copy / "streams" / "operator" / "1.4.1.yaml").unlink()
    stable = repo_copy / "streams" / "stable.yaml"
    result = run_line(["build", "--check", "--format", "json"])
    notes = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-BUNDLE-100"]
    assert [n["subject"] for n in notes] == [["stable", "1.4.1"]]
    assert "carries 1.4.0's operator facts" in notes[0]["message"]
    assert stable.is_file()
