"""``build`` when there is no usable git HEAD: one test per row of issue 24's table."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT

OLD = "kueue-rhel9@sha256:bdf48afa3c62beec7402edddac8803363e793cf74c1c4cf908ae81845296ce3b"
NEW = "kueue-rhel9@sha256:" + "5" * 64


def _copy(root: Path, names: tuple[str, ...] = ("streams", "bundle-templates", "catalog")) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copytree(REPO_ROOT / name, root / name)


def _repo(root: Path) -> git.Repo:
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    return repo


def _build(run_line: Callable[..., Result], *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    result = run_line(["build", "--format", "json", *extra])
    return result.exit_code, json.loads(result.stdout) if result.stdout.startswith("{") else {}


def test_not_a_git_repository_builds_and_says_nothing_was_compared(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, report = _build(run_line)
    assert code == 0
    notes = [f for f in report["findings"] if f["rule"] == "RK-DIFF-017"]
    assert len(notes) == 1 and notes[0]["severity"] == "info"


def test_git_refusing_the_repository_is_exit_2_with_its_reason_and_the_fix(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copy(tmp_path)
    repo = _repo(tmp_path)
    repo.git.add("-A")
    repo.index.commit("published")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # git sees another owner, as in a container
    before = {p: p.read_bytes() for p in (tmp_path / "catalog").rglob("*.json")}
    result = run_line(["build"])
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "git refuses the repository" in line and "dubious ownership" in line and "safe.directory" in line
    assert {p: p.read_bytes() for p in (tmp_path / "catalog").rglob("*.json")} == before


def test_a_first_build_with_no_catalog_at_head_removes_nothing(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copy(tmp_path, ("streams", "bundle-templates"))
    repo = _repo(tmp_path)
    repo.git.add("-A")
    repo.index.commit("streams only: the catalogs are built for the first time")
    monkeypatch.chdir(tmp_path)
    code, report = _build(run_line)
    assert code == 0, [f["message"] for f in report["findings"] if f["severity"] == "error"]
    assert not [f for f in report["findings"] if f["rule"] in ("RK-DIFF-003", "RK-DIFF-004", "RK-DIFF-017")]
    assert sorted(p.parent.parent.parent.name for p in (tmp_path / "catalog").rglob("catalog.json"))


def test_a_shallow_clone_builds_and_history_hints_say_how_to_deepen(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = tmp_path / "origin"
    _copy(origin)
    repo = _repo(origin)
    repo.git.add("-A")
    repo.index.commit("publish")
    target = origin / "catalog" / "v4.20" / "configs" / "kueue-operator" / "catalog.json"
    target.write_text(target.read_text().replace(OLD, NEW))
    repo.git.add("-A")
    repo.index.commit("hand-edit a related image")
    clone = tmp_path / "clone"
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True, env=env
    )
    monkeypatch.chdir(clone)
    code, report = _build(run_line, "--check")
    assert code == 1
    hints = [f["hint"] for f in report["findings"] if f["rule"] == "RK-DIFF-011"]
    assert hints and all("git fetch --unshallow" in h for h in hints)
    subprocess.run(["git", "-C", str(clone), "fetch", "-q", "--unshallow"], check=True, env=env)
    code, report = _build(run_line, "--check")
    hints = [f["hint"] for f in report["findings"] if f["rule"] == "RK-DIFF-011"]
    assert hints and all("changed it" in h and "git revert" in h for h in hints)
