"""A record that breaks ``operator-record.schema.json`` is an error everywhere it is read (issue 23).

``streams validate`` reports it at its file and line (it used to pass it), and ``bundle build``, which
leaves such a record out, writes no bundle at all once it has reported it (it used to build the release
from another release's facts and write it). The streams are a copy of the repository's own.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT

Run = Callable[..., Result]
GOOD = "- file: kueue-batch-admin-role_rbac.authorization.k8s.io_v1_clusterrole.yaml\n"
BAD = '- file: "a\\nb: c.yaml"\n'


@pytest.fixture
def streams(tmp_path: Path) -> Path:
    """A copy of ``streams/`` whose 1.2.0 record names a manifest ``a\\nb: c.yaml``."""
    copy = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", copy)
    record = copy / "operator" / "1.2.0.yaml"
    text = record.read_text(encoding="utf-8")
    assert text.count(GOOD) == 1
    record.write_text(text.replace(GOOD, BAD), encoding="utf-8")
    return copy


def _line(path: Path, needle: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(needle.rstrip("\n")) + 1


def test_streams_validate_reports_the_record_at_its_line(run_line: Run, streams: Path) -> None:
    result = run_line(["streams", "validate", "--streams-dir", streams, "--format", "json"])
    assert result.exit_code == 1, result.output
    findings = json.loads(result.stdout)["findings"]
    shown = f"{streams}/operator/1.2.0.yaml"
    (finding,) = [f for f in findings if f["location"]["file"] == shown]
    assert finding["rule"] == "RK-STREAM-001"
    assert finding["location"]["path"] == "$.manifests[0].file"
    assert finding["location"]["line"] == _line(streams / "operator" / "1.2.0.yaml", BAD)


def test_streams_validate_passes_the_repository_records(run_line: Run) -> None:
    result = run_line(["streams", "validate", "--streams-dir", REPO_ROOT / "streams", "--format", "json"])
    assert result.exit_code == 0, result.output


def test_bundle_build_writes_nothing_after_an_error_finding(
    run_line: Run, streams: Path, tmp_path: Path
) -> None:
    out = tmp_path / "bundles"
    args = ["bundle", "build", "--version", "1.2.0", "--streams-dir", streams, "--out", out]
    result = run_line([*args, "--templates-dir", REPO_ROOT / "bundle-templates", "--format", "json"])
    assert result.exit_code == 1, result.output
    rules = {f["rule"] for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"}
    assert "RK-STREAM-001" in rules
    assert not out.exists(), sorted(p.name for p in out.rglob("*"))
    assert "did not write" in result.stderr


def test_bundle_build_writes_when_all_is_well(run_line: Run, tmp_path: Path) -> None:
    out = tmp_path / "bundles"
    args = ["bundle", "build", "--version", "1.2.0", "--streams-dir", REPO_ROOT / "streams", "--out", out]
    result = run_line([*args, "--templates-dir", REPO_ROOT / "bundle-templates"])
    assert result.exit_code == 0, result.output
    assert (out / "stable" / "1.2.0" / "metadata" / "annotations.yaml").is_file()


def test_a_record_name_with_control_characters_is_shown_escaped(run_line: Run, tmp_path: Path) -> None:
    copy = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", copy)
    (copy / "operator" / "1.2.0.yaml").rename(copy / "operator" / "1.2.0\x1b[31m.yaml")
    result = run_line(["streams", "validate", "--streams-dir", copy])
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.stdout + result.stderr
    assert "1.2.0\\x1b[31m.yaml" in result.stdout
