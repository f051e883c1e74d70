"""``committed_files``: a folder as committed at HEAD, read with git plumbing (no checkout, no index)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import git
import pytest

from releasekit.errors import InputError, SafetyLimitError
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


def _one_file(tmp_path: Path, data: bytes) -> git.Repo:
    r = _repo(tmp_path)
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "a.json").write_bytes(data)
    r.git.add("-A")
    r.index.commit("base")
    return r


def test_a_committed_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """Measured from the git object (issue 23), whatever the working tree holds."""
    r = _one_file(tmp_path, b"x" * 100)
    (tmp_path / "catalogue").write_bytes(b"y" * 1000)  # a sibling ls-tree also matches: not measured
    r.git.add("catalogue")
    r.index.commit("a sibling")
    (tmp_path / "catalog" / "a.json").write_text("{}\n")  # git, not the working tree, must be asked
    with pytest.raises(SafetyLimitError, match=r"^HEAD:catalog/a.json: 100 bytes is over the 99-byte limit"):
        committed_files(tmp_path / "catalog", max_file_bytes=99)
    assert committed_files(tmp_path / "catalog", max_file_bytes=100) is not None
    r.close()


@pytest.mark.parametrize("edited", [False, True], ids=["clean", "edited"])
def test_a_committed_object_git_does_not_have_is_one_line(tmp_path: Path, edited: bool) -> None:
    """A shallow or damaged clone: the file's loose object was deleted."""
    r = _one_file(tmp_path, b"{}\n")
    sha = r.git.rev_parse("HEAD:catalog/a.json")
    (tmp_path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    if edited:
        (tmp_path / "catalog" / "a.json").write_text("[]\n")
        with pytest.raises(InputError, match=r"^HEAD:catalog/a.json: git does not have object"):
            committed_files(tmp_path / "catalog")
    else:  # the working tree holds the committed bytes: git is not asked for them
        found = committed_files(tmp_path / "catalog")
        assert found is not None and found[0][PurePosixPath("a.json")].read() == b"{}\n"
    r.close()


def test_the_object_vanishing_after_the_listing_is_one_line(tmp_path: Path) -> None:
    r = _one_file(tmp_path, b"{}\n")
    sha = r.git.rev_parse("HEAD:catalog/a.json")
    (tmp_path / "catalog" / "a.json").write_bytes(b"[]\n")  # the working tree no longer holds the blob
    found = committed_files(tmp_path / "catalog")
    assert found is not None
    (tmp_path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()  # a concurrent gc
    with pytest.raises(InputError, match=r"^HEAD:catalog/a.json: git cannot read object"):
        found[0][PurePosixPath("a.json")].read()
    r.close()
