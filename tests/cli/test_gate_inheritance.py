"""A patch release without ``featureGates`` keeps its minor's gates; ``featureGates: {}`` declares none."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT

D = "sha256:" + "4" * 64
RELEASE = f"""\
  - version: 1.4.2
    status: candidate
    upstream:
      line: "0.18"
      describe: v0.18.4-40-ge4ce3bcc
      inventory: kueue-v0.18.4-40-ge4ce3bcc
    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]
    bundle: registry.redhat.io/kueue/kueue-operator-bundle@{D}
    images:
      operator: registry.redhat.io/kueue/kueue-rhel9-operator@{D}
      operand: registry.redhat.io/kueue/kueue-rhel9@{D}
      mustGather: registry.redhat.io/kueue/kueue-must-gather-rhel9@{D}
    createdAt: "2026-09-01T10:00:00Z"
"""
OPT_INS = (
    "SparkApplicationIntegration",
    "ShortWorkloadNames",
    "KueueDRAIntegrationExtendedResource",
    "KueueDRAIntegrationPartitionableDevices",
)


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _add(root: Path, extra: str = "") -> None:
    stable = root / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + RELEASE + extra)


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
