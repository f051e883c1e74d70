"""``committed_files``: a folder as committed at HEAD, read with git plumbing (no checkout, no index)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import git

from releasekit.io.gitrev import committed_files


def _repo(root: Path) -> git.Repo:
    r = git.Repo.init(root, initial_branch="main")
    with r.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    return r


def test_outside_git_and_before_the_first_commit_nothing_is_committed(tmp_path: Path) -> None:
    assert committed_files(tmp_path / "catalog") is None
    _repo(tmp_path).close()
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "a.json").write_text("{}\n")
    assert committed_files(tmp_path / "catalog") is None


def test_committed_bytes_whatever_the_working_tree_holds(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    for rel, text in {
        "catalog/v4.18/a.json": "committed\n",
        "catalog/b.json": "same\n",
        "catalogue/c": "x\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    r.git.add("-A")
    r.index.commit("base")
    (tmp_path / "catalog" / "v4.18" / "a.json").write_text("edited\n")
    (tmp_path / "catalog" / "new.json").write_text("untracked\n")
    found = committed_files(tmp_path / "catalog")
    assert found is not None
    files, label = found
    assert {p: f.read() for p, f in files.items()} == {
        PurePosixPath("v4.18/a.json"): b"committed\n",
        PurePosixPath("b.json"): b"same\n",
    }
    assert label == f"HEAD {r.head.commit.hexsha[:12]}"
    assert (tmp_path / "catalog" / "v4.18" / "a.json").read_text() == "edited\n"
    r.close()
