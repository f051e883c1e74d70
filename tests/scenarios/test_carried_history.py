"""A published blob edited and committed: RK-DIFF-011's hint names the commit that changed it and how to undo it.

The old hint said to correct streams/ to what the catalog holds, which, after a committed hand edit,
copies the tampered digest into the release definition.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT

OLD = "kueue-rhel9@sha256:bdf48afa3c62beec7402edddac8803363e793cf74c1c4cf908ae81845296ce3b"
NEW = "kueue-rhel9@sha256:" + "5" * 64
FILE = "catalog/v4.20/configs/kueue-operator/catalog.json"


def _repo(root: Path) -> git.Repo:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    repo.git.add("-A")
    repo.index.commit("publish the catalogs")
    return repo


def _hints(run_line: Callable[..., Result]) -> list[str]:
    result = run_line(["build", "--check", "--format", "json"])
    assert result.exit_code == 1, result.stdout
    return [f["hint"] for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-DIFF-011"]


def test_a_committed_edit_of_a_published_blob_is_named_with_its_commit(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path)
    published = repo.head.commit.hexsha[:12]
    target = tmp_path / FILE
    text = target.read_text()
    assert OLD in text
    target.write_text(text.replace(OLD, NEW))
    repo.git.add("-A")
    tamper = repo.index.commit("hand-edit a related image").hexsha[:12]
    monkeypatch.chdir(tmp_path)
    hints = _hints(run_line)
    assert hints, "the tampered blob contradicts streams/"
    assert all(f"commit {published} published it" in h for h in hints)
    assert all(f"commit {tamper} (hand-edit a related image) changed it" in h for h in hints)
    assert all(f"git revert {tamper}" in h for h in hints)


def test_a_blob_published_wrong_still_says_to_correct_the_release(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the first published blob already disagrees, streams/ is what to correct (the old hint)."""
    _repo(tmp_path)
    recorded = tmp_path / "streams" / "recorded" / "kueue-operator.v1.2.0.yaml"
    recorded.write_text(recorded.read_text().replace(OLD, NEW))
    monkeypatch.chdir(tmp_path)
    hints = _hints(run_line)
    assert hints and all("correct the release at" in h for h in hints)
