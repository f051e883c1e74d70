"""``check`` and history: acknowledgements read from the head, and the base taken at the branch point.

Temporary git repositories copied from this checkout, one commit per step.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import git
from click.testing import Result

from tests.conftest import REPO_ROOT

ACKS = "releasekit-acknowledgements.yaml"


def _init(root: Path) -> git.Repo:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    shutil.copy(REPO_ROOT / ACKS, root / ACKS)
    (root / "README.md").write_text("a catalog repository\n")
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    repo.git.add("-A")
    repo.index.commit("base")
    return repo


def _commit(repo: git.Repo, message: str) -> None:
    repo.git.add("-A")
    repo.index.commit(message)


def _check(run_line: Callable[..., Result], root: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    result = run_line(["check", "--repo", root, *args, "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


def test_check_counts_the_heads_acknowledgements_apart(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = _init(tmp_path)
    stable = tmp_path / "streams" / "stable.yaml"
    stable.write_text(stable.read_text().replace("Supported releases", "The supported releases", 1))
    _commit(repo, "touch streams: every package is checked")
    code, data = _check(run_line, tmp_path, "--base", "HEAD~1", "--head", "HEAD")
    assert code == 0
    assert data["summary"]["warnings"] == 0 and data["summary"]["acknowledged"] == 22
    (tmp_path / ACKS).unlink()
    stable.write_text(stable.read_text().replace("The supported releases", "Supported releases", 1))
    _commit(repo, "drop the acknowledgements (and touch streams again)")
    code, data = _check(run_line, tmp_path, "--base", "HEAD~1", "--head", "HEAD")
    assert data["summary"]["warnings"] == 22 and "acknowledged" not in data["summary"]


def test_a_release_merged_to_the_base_after_the_branch_point_is_not_removed(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """The pull request started before main gained a release: it is judged against where it started."""
    repo = _init(tmp_path)
    repo.git.checkout("-q", "-b", "pr")
    (tmp_path / "README.md").write_text("a catalog repository, documented\n")
    _commit(repo, "pr: docs")
    repo.git.checkout("-q", "main")
    stable = tmp_path / "streams" / "stable.yaml"
    text = stable.read_text()
    start = text.index("  - version: 1.4.1\n")
    released = text[start:].replace("version: 1.4.1", "version: 1.4.2", 1)
    stable.write_text(text + released)  # main publishes 1.4.2 (records carried; catalogs rebuilt)
    assert run_line(
        ["build", "--streams-dir", tmp_path / "streams", "--catalog-dir", tmp_path / "catalog"]
    ).exit_code in (0, 1)
    _commit(repo, "main: release 1.4.2")
    repo.git.checkout("-q", "pr")
    code, data = _check(run_line, tmp_path, "--base", "main", "--head", "pr")
    assert code == 0, [f["message"] for f in data["findings"] if f["severity"] == "error"]
    assert not [f for f in data["findings"] if f["rule"] in ("RK-DIFF-003", "RK-DIFF-004")]
