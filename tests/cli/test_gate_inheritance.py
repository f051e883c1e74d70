"""A patch release without ``featureGates`` keeps its minor's gates; ``featureGates: {}`` declares none."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.cli.conftest import release_1_4_2

OPT_INS = (
    "SparkApplicationIntegration",
    "ShortWorkloadNames",
    "KueueDRAIntegrationExtendedResource",
    "KueueDRAIntegrationPartitionableDevices",
)


def _add(root: Path, extra: str = "") -> None:
    stable = root / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + release_1_4_2(status="candidate") + extra)


def _notes(run_line: Callable[..., Result]) -> str:
    result = run_line(["release", "notes", "1.4.2"])
    assert result.exit_code == 0, result.output
    return result.stdout.split("### Operator gate settings", 1)[1].split("###", 1)[0]


def test_a_patch_release_keeps_its_minors_gates_and_says_so(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    _add(repo_copy)
    result = run_line(["build", "--check", "--format", "json"])
    notes = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-STREAM-032"]
    assert len(notes) == 1 and notes[0]["severity"] == "info"
    assert "keeps those of 1.4.1" in notes[0]["message"]
    assert all(gate in notes[0]["message"] for gate in OPT_INS)
    assert all(gate in _notes(run_line) for gate in OPT_INS)


def test_empty_feature_gates_declare_none(run_line: Callable[..., Result], repo_copy: Path) -> None:
    _add(repo_copy, "    featureGates: {}\n")
    result = run_line(["build", "--check", "--format", "json"])
    assert not [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-STREAM-032"]
    assert not any(gate in _notes(run_line) for gate in OPT_INS)
