"""Published means immutable: ``build`` carries published bundle blobs, and writes all or nothing.

Each test works in a temporary git repository holding a copy of this repository's ``streams/``,
``bundle-templates/`` and ``catalog/`` (committed once), as a release engineer's clone would.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT

V423 = Path("catalog", "v4.23", "configs", "kueue-operator", "catalog.json")
PROSE = "The cluster-wide configuration of the Kueue installation; there is one, named cluster."


def commit_all(repo: Path, message: str) -> None:
    r = git.Repo(repo)
    r.git.add("-A", ".")
    r.index.commit(message)
    r.close()


def init_repo(root: Path, folders: tuple[str, ...] = ("streams", "bundle-templates", "catalog")) -> Path:
    for name in folders:
        shutil.copytree(REPO_ROOT / name, root / name)
    r = git.Repo.init(root, initial_branch="main")
    with r.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    r.close()
    commit_all(root, "base")
    return root


def tree_hashes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = init_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def _findings(result: Result) -> list[dict[str, object]]:
    findings: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return findings


# ------------------------------------------------------------------------------------ all or nothing


def test_a_typo_in_a_released_version_writes_nothing(run_line: Callable[..., Result], repo: Path) -> None:
    stable = repo / "streams" / "stable.yaml"
    stable.write_text(stable.read_text().replace("  - version: 1.3.0\n", "  - version: v1.3\n", 1))
    before = tree_hashes(repo / "catalog")
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    assert any(f["rule"] == "RK-STREAM-003" for f in _findings(result))
    assert tree_hashes(repo / "catalog") == before
    assert result.stderr == "catalog/ left unchanged: 1 error\n"


def test_catalog_build_writes_nothing_on_an_error(run_line: Callable[..., Result], repo: Path) -> None:
    stable = repo / "streams" / "stable.yaml"
    text = stable.read_text()
    at = text.index("  - version: 1.4.1\n")
    stable.write_text(text[:at] + text[at:].replace("status: released", "status: relased", 1))
    shutil.rmtree(repo / "catalog" / "v5.0")  # a run that wrote would put it back
    before = tree_hashes(repo / "catalog")
    result = run_line(["catalog", "build"])
    assert result.exit_code == 1
    assert tree_hashes(repo / "catalog") == before
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("catalog/ left unchanged: ") and last.endswith(" error")


def test_help_says_a_failed_run_writes_nothing(run_line: Callable[..., Result]) -> None:
    text = " ".join(run_line(["catalog", "build", "--help"]).stdout.split())
    assert "written only when no check reports an error" in text
    assert "a failed run leaves the old tree" not in text


# ------------------------------------------------------------------------------- one list of checks


def test_build_reports_the_policy_rules(run_line: Callable[..., Result], repo: Path) -> None:
    stable = repo / "streams" / "stable.yaml"
    stable.write_text(stable.read_text().replace("  alphaApis: []\n", "  alphaApis: [Cohort]\n", 1))
    result = run_line(["build", "--check", "--format", "json"])
    policy = [f for f in _findings(result) if f["rule"] == "RK-POLICY-001"]
    assert sum("cohorts.kueue.x-k8s.io" in str(f["message"]) for f in policy) == 6


def test_build_runs_every_rule_check_runs(repo: Path) -> None:
    """One verdict: nothing check runs is left out of build (the base comparisons use git HEAD)."""
    from releasekit.jobs.build import BuildRequest, run_build
    from releasekit.jobs.check import CheckRequest, run_check

    stable = repo / "streams" / "stable.yaml"
    stable.write_text(stable.read_text().replace("  alphaApis: []\n", "  alphaApis: [Cohort]\n", 1))
    check = set(run_check(CheckRequest(base="HEAD", repo=repo)).report.rules)
    build = set(run_build(BuildRequest(check=True)).rules)
    assert "RK-POLICY-001" in build
    assert not check - build, f"rules check runs but build does not: {sorted(check - build)}"


# -------------------------------------------------------------------------- carried, not regenerated


def _edit_prose(path: Path, new: str) -> None:
    text = path.read_text()
    assert text.count(PROSE) == 1
    path.write_text(text.replace(PROSE, new))


def test_a_published_blob_is_carried_byte_for_byte(run_line: Callable[..., Result], repo: Path) -> None:
    """A blob committed with other prose (as another tool published it) is kept, not regenerated."""
    _edit_prose(repo / V423, "Published prose, not this project's.")
    commit_all(repo, "published with other prose")
    committed = (repo / V423).read_bytes()
    result = run_line(["build"])
    assert result.exit_code == 0, result.stdout
    assert (repo / V423).read_bytes() == committed
    assert run_line(["build", "--check"]).exit_code == 0
    assert run_line(["check", "--base", "HEAD"]).exit_code == 0


def test_without_git_every_blob_is_generated(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    _edit_prose(tmp_path / V423, "Published prose, not this project's.")
    assert run_line(["build"]).exit_code == 0
    assert (tmp_path / V423).read_bytes() == (REPO_ROOT / V423).read_bytes()


def test_a_working_tree_edit_of_a_published_blob_is_drift(
    run_line: Callable[..., Result], repo: Path
) -> None:
    _edit_prose(repo / V423, "Edited by hand.")
    edited = (repo / V423).read_bytes()
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    edits = [f for f in _findings(result) if f["rule"] == "RK-DIFF-010"]
    assert [f["location"]["file"] for f in edits] == ["catalog/v4.23/configs/kueue-operator/catalog.json"]
    assert 'published bundle "kueue-operator.v1.4.1"' in str(edits[0]["message"])
    assert (repo / V423).read_bytes() == edited  # nothing written: the edit is the user's to undo
    checked = run_line(["build", "--check", "--format", "json"])
    assert {f["rule"] for f in _findings(checked)} >= {"RK-DIFF-001", "RK-DIFF-010"}


def test_a_published_blob_that_contradicts_its_release_names_both(
    run_line: Callable[..., Result], repo: Path
) -> None:
    text = (repo / V423).read_text()
    old = "kueue-operator-bundle@sha256:"
    at = text.index(old) + len(old)
    (repo / V423).write_text(text[:at] + "0" * 64 + text[at + 64 :])
    commit_all(repo, "a published blob with another bundle digest")
    before = tree_hashes(repo / "catalog")
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    facts = [f for f in _findings(result) if f["rule"] == "RK-DIFF-011"]
    assert len(facts) == 1
    message = str(facts[0]["message"])
    assert facts[0]["location"]["file"] == str(V423.as_posix())
    assert "@sha256:" + "0" * 64 in message and "streams/stable.yaml:" in message
    assert "has image" in message
    assert tree_hashes(repo / "catalog") == before
