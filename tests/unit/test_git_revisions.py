"""Revisions resolved safely (``check --base``), a repository owned by another user, and the clone cache.

Every repository here is a temporary one; URLs are ``file://`` URLs of other temporary repositories.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from click.testing import Result

from releasekit.errors import InputError, UpstreamError, UsageError
from releasekit.io.gitcmd import check_revision, resolve_revision
from releasekit.io.upstream import FETCH_REFSPECS, open_repository, resolve_ref

ACTOR = git.Actor("releasekit tests", "tests@example.invalid")


def _repo(root: Path, commits: int = 3) -> git.Repo:
    repo = git.Repo.init(root, initial_branch="main")
    for n in range(commits):
        (root / "file.txt").write_text(f"{n}\n", encoding="utf-8")
        repo.index.add(["file.txt"])
        repo.index.commit(f"commit {n}", author=ACTOR, committer=ACTOR)
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> git.Repo:
    return _repo(tmp_path / "repo")


def test_any_revision_git_resolves_is_accepted(repo: git.Repo) -> None:
    commits = [c.hexsha for c in repo.iter_commits("main")]
    assert resolve_revision(repo, "HEAD~1") == commits[1]
    assert resolve_revision(repo, "main^") == commits[1]
    assert resolve_revision(repo, "main~0") == commits[0]
    assert resolve_revision(repo, commits[2][:7]) == commits[2]
    repo.create_tag("v1", ref=commits[2])
    assert resolve_revision(repo, "v1") == commits[2]  # a tag is peeled to its commit


def test_upstream_revision_syntax(repo: git.Repo, tmp_path: Path) -> None:
    clone = git.Repo.clone_from(repo.working_tree_dir, tmp_path / "clone")
    clone.git.checkout("-q", "-b", "pr", "--track", "origin/main")
    (tmp_path / "clone" / "file.txt").write_text("pr\n", encoding="utf-8")
    clone.index.add(["file.txt"])
    clone.index.commit("pr", author=ACTOR, committer=ACTOR)
    assert resolve_revision(clone, "@{upstream}") == repo.head.commit.hexsha


@pytest.mark.parametrize(
    ("rev", "reason"),
    [
        ("--output=/tmp/x", "starts with '-'"),
        ("-1", "starts with '-'"),
        ("main..HEAD", "range"),
        ("main\nHEAD", "control characters"),
        ("", "must not be empty"),
    ],
)
def test_revisions_git_would_misread_are_refused_first(rev: str, reason: str) -> None:
    with pytest.raises(UsageError, match=reason):
        check_revision(rev)


def test_a_revision_that_names_nothing_gives_gits_reason_and_the_fix(repo: git.Repo) -> None:
    with pytest.raises(UsageError) as info:
        resolve_revision(repo, "origin/main")
    text = str(info.value)
    assert "'origin/main' names no commit" in text
    assert "git fetch --depth 1 origin main" in text and "--base FETCH_HEAD" in text
    with pytest.raises(UsageError, match="names no commit"):
        resolve_revision(repo, "HEAD~99")
    # a blob is a revision git knows, but not a commit
    blob = repo.head.commit.tree / "file.txt"
    with pytest.raises(UsageError, match="names no commit"):
        resolve_revision(repo, blob.hexsha)


def test_a_repository_owned_by_another_user_says_why_and_how_to_trust_it(
    repo: git.Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the suite runs as root here, where git trusts everything: git's test switch makes it see another owner
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    with pytest.raises(InputError) as info:
        resolve_revision(repo, "HEAD~1")
    text = str(info.value)
    assert f"dubious ownership in repository at '{repo.working_tree_dir}';" in text  # git's words, intact
    assert f"safe.directory {repo.working_tree_dir}" in text


def test_check_on_a_worktree_owned_by_another_user_is_exit_2(
    run_line: Callable[..., Result], repo: git.Repo, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1", "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    result = run_line(["check", "--repo", repo.working_tree_dir, "--base", "HEAD~1"], env=env)
    assert result.exit_code == 2
    assert "dubious ownership" in result.stderr and "safe.directory" in result.stderr
    assert "Traceback" not in result.stderr
    # trusting exactly that folder, as the hint says, is enough
    subprocess.run(
        ["git", "config", "--global", "--add", "safe.directory", str(repo.working_tree_dir)],
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    trusted = run_line(["check", "--repo", repo.working_tree_dir, "--base", "HEAD~1"], env=env)
    assert "dubious ownership" not in trusted.stderr


# ------------------------------------------------------------------------------------------ clone cache


def test_a_cached_clone_fetches_tags_it_lacks(
    tmp_path: Path, repo: git.Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo.create_tag("v0.1.0", ref="HEAD~1")
    url = Path(str(repo.working_tree_dir)).as_uri()
    cached = open_repository(url)
    assert cached.git.config("--get-all", "remote.origin.fetch").split("\n") == list(FETCH_REFSPECS)
    assert resolve_ref(cached, "v0.1.0").hexsha == repo.commit("HEAD~1").hexsha
    # a cache written by an older releasekit has no refspec at all: the fetch names them itself
    cached.git.config("--unset-all", "remote.origin.fetch")
    repo.create_tag("v0.2.0")
    again = open_repository(url)
    assert again.git_dir == cached.git_dir
    assert resolve_ref(again, "v0.2.0").hexsha == repo.head.commit.hexsha


def test_a_failed_fetch_or_clone_says_why_and_what_to_pass(
    tmp_path: Path, repo: git.Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    origin = Path(str(repo.working_tree_dir))
    cached = open_repository(origin.as_uri())
    origin.rename(tmp_path / "moved")
    with pytest.raises(UpstreamError) as info:
        resolve_ref(cached, "v9.9.9")
    text = str(info.value)
    assert "fetching" in text and "does not appear to be a git repository" in text
    assert "a local clone that has v9.9.9" in text
    with pytest.raises(UpstreamError, match=r"cannot clone .*nothere.*pass the local folder"):
        open_repository((tmp_path / "nothere").as_uri())


def test_upstream_import_of_a_missing_tag_is_one_line(
    run_line: Callable[..., Result], tmp_path: Path, repo: git.Repo
) -> None:
    url = Path(str(repo.working_tree_dir)).as_uri()
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ["upstream", "import", "--repo", url, "--streams-dir", tmp_path / "streams"]
    result = run_line([*args, "--ref", "v7.7.7"], env=env)
    assert result.exit_code == 2
    assert "ref 'v7.7.7' not found" in result.stderr and "Traceback" not in result.stderr


def test_the_fetch_hint_works_in_a_shallow_single_branch_clone(repo: git.Repo, tmp_path: Path) -> None:
    """Issue 24: in a `--depth 1` clone of the pull request's branch, the hint's own commands make --base work."""
    repo.git.checkout("-q", "-b", "pr")
    (Path(str(repo.working_tree_dir)) / "file.txt").write_text("pr change\n", encoding="utf-8")
    repo.index.add(["file.txt"])
    repo.index.commit("pr", author=ACTOR, committer=ACTOR)
    clone_dir = tmp_path / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "--single-branch",
            "--branch",
            "pr",
            f"file://{repo.working_tree_dir}",
            str(clone_dir),
        ],
        check=True,
    )
    clone = git.Repo(clone_dir)
    with pytest.raises(UsageError) as info:
        resolve_revision(clone, "origin/main")
    hint = str(info.value)
    fetch = hint.split("`")[1]
    assert fetch == "git fetch --depth 1 origin main"
    subprocess.run(
        fetch.split()[:1] + ["-C", str(clone_dir)] + fetch.split()[1:], check=True, capture_output=True
    )
    assert resolve_revision(clone, "FETCH_HEAD") == repo.commit("main").hexsha
    with pytest.raises(UsageError):
        resolve_revision(clone, "origin/main")  # still not there: hence FETCH_HEAD in the hint
