"""``check --base REF`` reading a hostile base revision (issue 23): one line and exit 2, never a traceback.

Each base is a small git repository built here: a folder of :data:`releasekit.io.gitrev.FOLDERS` that is
a file, a symbolic link or a submodule, an object git has not (a loose object deleted, as in a damaged
or shallow clone), a blob over the size limit, and revisions that are not safe to hand to git. A blob
is measured from its git object before it is read, so an oversized one is refused without being read
or written out.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePosixPath

import git
import pytest

from releasekit.errors import InputError, SafetyLimitError, UsageError
from releasekit.io import gitrev
from releasekit.io.fbc_load import LoadLimits
from releasekit.io.gitrev import snapshot_commit
from releasekit.jobs.check import CheckRequest, run_check
from tests.conftest import REPO_ROOT
from tests.hostile.conftest import assert_refused, run_here

CATALOG_FILE = "catalog/v4.18/configs/kueue-operator/catalog.json"


def _git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, check=True)
    return done.stdout.decode().strip()


def _init(root: Path, *, data: bool = True) -> git.Repo:
    """A repository whose first commit (``main``) holds the repository's own data (``data``) or nothing."""
    root.mkdir(exist_ok=True)
    r = git.Repo.init(root, initial_branch="main")
    with r.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    if data:
        for name in ("streams", "bundle-templates", "catalog"):
            shutil.copytree(REPO_ROOT / name, root / name)
        r.git.add("-A")
    r.git.commit("-q", "--allow-empty", "-m", "base")
    return r


def _check(root: Path, base: str = "main") -> object:
    return run_here(["check", "--repo", root, "--base", base], root)


# ------------------------------------------------------------------------ the shape of the base's tree


def test_streams_a_file_at_the_base(tmp_path: Path) -> None:
    r = _init(tmp_path)
    r.git.rm("-rq", "streams")
    (tmp_path / "streams").write_text("not a folder\n")
    r.git.add("streams")
    r.git.commit("-qm", "streams is a file")
    r.git.checkout("-q", "main~1", "--", ".")  # the working tree (head) is a releasekit repository again
    r.git.reset("-q")
    assert_refused(_check(tmp_path), "main:streams", "is a file, not a folder")


def test_bundle_templates_a_symbolic_link_at_the_base(tmp_path: Path) -> None:
    r = _init(tmp_path)
    shutil.move(tmp_path / "bundle-templates", tmp_path / "templates-elsewhere")
    (tmp_path / "bundle-templates").symlink_to("templates-elsewhere")
    r.git.add("-A")
    r.git.commit("-qm", "bundle-templates is a link")
    assert_refused(_check(tmp_path), "main:bundle-templates", "is a symbolic link")


def test_catalog_a_submodule_at_the_base(tmp_path: Path) -> None:
    r = _init(tmp_path)
    head = r.head.commit.hexsha
    r.git.rm("-rq", "--cached", "catalog")
    r.git.update_index("--add", "--cacheinfo", f"160000,{head},catalog")
    r.git.commit("-qm", "catalog is a submodule")
    r.git.rm("-rq", "--cached", "catalog")  # the working tree holds the folder: the head puts it back
    r.git.add("catalog")
    r.git.commit("-qm", "catalog is a folder again")
    # check judges a change against its branch point, so the hostile tree is the merge-base here
    assert_refused(_check(tmp_path, "main~1"), "main~1:catalog", "is a submodule")


def test_a_submodule_inside_catalog_at_the_base(tmp_path: Path) -> None:
    r = _init(tmp_path)
    r.git.update_index("--add", "--cacheinfo", f"160000,{r.head.commit.hexsha},catalog/v9.9")
    r.git.commit("-qm", "a submodule in catalog/")
    assert_refused(_check(tmp_path), "main:catalog/v9.9", "is a submodule")


@pytest.mark.parametrize("path", [CATALOG_FILE, "streams/stable.yaml", "bundle-templates"])
def test_an_object_git_has_not(tmp_path: Path, path: str) -> None:
    """A shallow or damaged clone: the loose object of a file (or of a whole folder's tree) is gone."""
    r = _init(tmp_path)
    sha = r.git.rev_parse(f"HEAD:{path}")
    (tmp_path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    assert_refused(_check(tmp_path), f"main:{path}: git ", "fetch the revision in full")


# ------------------------------------------------------------------------------------------- sizes


def test_a_blob_over_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = _init(tmp_path)
    big = tmp_path / CATALOG_FILE
    big.write_bytes(big.read_bytes() + b" " * 8192)
    r.git.commit("-qam", "a larger catalog")
    read: list[str] = []
    reader = gitrev._Objects.read

    def spy(self: gitrev._Objects, spec: str) -> bytes | None:
        read.append(spec)
        return reader(self, spec)

    monkeypatch.setattr(gitrev._Objects, "read", spy)
    limit = big.stat().st_size - 1
    with pytest.raises(SafetyLimitError) as info:
        run_check(CheckRequest(base="main", repo=tmp_path), limits=LoadLimits(max_file_bytes=limit))
    assert str(info.value) == (
        f"main:{CATALOG_FILE}: {limit + 1:,} bytes is over the {limit:,}-byte limit per file"
    )
    assert read == []  # nothing of the base was read, let alone written out


def test_a_blob_over_the_default_limit_exits_2(tmp_path: Path) -> None:
    """64 MiB and one byte of zeros (git keeps it in 64 KiB): refused by its size alone."""
    r = _init(tmp_path)
    sparse = tmp_path.parent / "big-sparse"
    with sparse.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)
    sha = _git(tmp_path, "hash-object", "-w", str(sparse))
    sparse.unlink()
    r.git.update_index("--add", "--cacheinfo", f"100644,{sha},streams/huge.yaml")
    r.git.commit("-qm", "a huge stream file")
    r.git.rm("-q", "--cached", "streams/huge.yaml")
    r.git.commit("-qm", "the huge file goes")
    assert_refused(_check(tmp_path, "main~1"), "main~1:streams/huge.yaml", "67,108,865 bytes")


def test_the_written_folders_have_a_total_limit(tmp_path: Path) -> None:
    r = _init(tmp_path)
    with pytest.raises(
        SafetyLimitError, match=r"^main: streams, bundle-templates hold more than 1,000 bytes"
    ):
        snapshot_commit(r.head.commit, tmp_path / "out", rev="main", max_total_bytes=1000)
    assert not (tmp_path / "out").exists()


def test_a_deeply_nested_base_is_refused(tmp_path: Path) -> None:
    r = _init(tmp_path, data=False)
    deep = tmp_path.joinpath("catalog", *["d"] * 70)
    deep.mkdir(parents=True)
    (deep / "f.json").write_text("{}\n")
    r.git.add("-A")
    r.git.commit("-qm", "deep")
    with pytest.raises(SafetyLimitError, match="nested deeper than 64 levels"):
        snapshot_commit(r.head.commit, tmp_path / "out", rev="main")


def test_hostile_file_names_at_the_base_are_read_and_named_escaped(tmp_path: Path) -> None:
    r = _init(tmp_path, data=False)
    name = b"catalog/v4.18/n\xff\x1b[2J.json"
    sha = _git(tmp_path, "hash-object", "-w", "--stdin", stdin=b"{}\n")
    _git(
        tmp_path,
        "update-index",
        "--add",
        "--cacheinfo",
        f"100644,{sha},{name.decode('utf-8', 'surrogateescape')}",
    )
    r.git.commit("-qm", "a hostile name")
    snap = snapshot_commit(r.head.commit, tmp_path / "out", rev="main")
    (path,) = snap.files
    assert str(path) == name.decode("utf-8", "surrogateescape")
    assert snap.files[path].read() == b"{}\n"
    _git(tmp_path, "update-index", "--add", "--cacheinfo", f"100644,{sha},streams/x\x1b[2J.yaml")
    _git(tmp_path, "update-index", "--add", "--cacheinfo", f"120000,{sha},streams/x\x1b[2J.yaml")
    r.git.commit("-qm", "a link with a hostile name")
    with pytest.raises(SafetyLimitError) as info:
        snapshot_commit(r.head.commit, tmp_path / "out2", rev="main")
    assert str(info.value) == "main:streams/x\\x1b[2J.yaml: is a symbolic link; refusing it"


# ------------------------------------------------------------------------------------- revisions


@pytest.mark.parametrize(
    ("ref", "needle"),
    [
        ("-c", "starts with '-'"),
        ("--output=x", "starts with '-'"),
        ("main\x1b[2J", "control characters"),
        ("main\x9b2J", "control characters"),
        ("main\u202e", "control characters"),
        ("main\udcff", "control characters"),
    ],
)
def test_hostile_revisions_are_refused_before_git_sees_them(tmp_path: Path, ref: str, needle: str) -> None:
    _init(tmp_path, data=False)
    ran = run_here(["check", "--repo", tmp_path, f"--base={ref}"], tmp_path)
    assert_refused(ran, "--base", needle)
    assert not any(ch in ran.stderr for ch in "\x1b\x9b\u202e\udcff")
    with pytest.raises(UsageError, match=needle):
        run_check(CheckRequest(base="main", head=ref, repo=tmp_path))


def test_a_missing_object_read_on_demand_names_the_file(tmp_path: Path) -> None:
    """The object vanishes after the listing (a concurrent gc): the read names REV:path."""
    r = _init(tmp_path, data=False)
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "a.json").write_text("{}\n")
    r.git.add("-A")
    r.git.commit("-qm", "one file")
    snap = snapshot_commit(r.head.commit, tmp_path / "out", rev="main")
    sha = r.git.rev_parse("HEAD:catalog/a.json")
    (tmp_path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    with pytest.raises(InputError, match=r"^main:catalog/a.json: git cannot read object"):
        snap.files[PurePosixPath("catalog/a.json")].read()
