"""``releasekit check --base REF`` chooses its mode from the base revision (issue 26).

A file-based catalog repository without ``streams/`` is checked by its catalog roots; a pull request that
deletes ``streams/`` from a releasekit repository is still judged as one; a releasekit repository laid out
otherwise (``releasekit.yaml``) is checked by its catalog roots instead of being refused.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.conftest import REPO_ROOT
from tests.scenarios.test_fbc_repo_check import LAYOUTS, PKG, git, make_repo


def _check(run_line: Callable[..., Result], repo: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    result = run_line(["check", "--repo", repo, *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_a_catalog_repository_is_checked_by_its_roots(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path, LAYOUTS["kueue-fbc"])
    code, data = _check(run_line, repo, "--base", "main", "--head", "pr")
    assert code == 1
    removed = [f for f in data["findings"] if f["rule"] == "RK-DIFF-003"]
    assert [f["subject"] for f in removed] == [["v4.16", PKG, f"{PKG}.v1.0.0"]]
    assert {f["baseline"] for f in removed} == {"new"}
    git(repo, "checkout", "-q", "pr")
    code, working = _check(run_line, repo, "--base", "main")  # the working tree as head
    assert code == 1 and working["summary"]["errors"] == data["summary"]["errors"]


def test_a_pull_request_deleting_streams_is_judged_as_a_releasekit_repository(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, repo / name)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    shutil.rmtree(repo / "streams")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "delete streams")
    code, data = _check(run_line, repo, "--base", "HEAD~1", "--head", "HEAD")
    assert code == 1
    rules = {f["rule"] for f in data["findings"] if f["severity"] == "error"}
    assert "RK-DIFF-006" in rules  # released versions no longer in their stream: the releasekit mode's rule


def test_a_releasekit_repository_in_the_kueue_fbc_layout_is_checked_not_refused(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path, LAYOUTS["kueue-fbc"])
    git(repo, "checkout", "-q", "main")
    (repo / "streams").mkdir()
    (repo / "streams" / "README.md").write_text("streams of a kueue-fbc layout repository\n")
    (repo / "releasekit.yaml").write_text("schema: releasekit/config/v1\ncatalog:\n  layout: kueue-fbc\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "releasekit here")
    git(repo, "checkout", "-q", "pr")
    git(repo, "merge", "-q", "--no-edit", "main")
    code, data = _check(run_line, repo, "--base", "main")
    assert code == 1
    assert any(f["rule"] == "RK-DIFF-003" for f in data["findings"])
