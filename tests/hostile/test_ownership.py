"""Issue 23: the newer commands keep the promises -- no data loss, no writes outside, all or nothing.

releasekit replaces or removes only what its marker (``.releasekit-generated``) lists, in every layout and
``writes`` mode; no write (nor a ``--check`` read) goes through a symbolic link; ``catalog adopt`` reads
under the input policy and checks every target before its first write; a read-only tree is one line and
exit 2 for every command that writes.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.hostile.conftest import Ran, assert_refused, run_child, run_here

MARKER = ".releasekit-generated"


def hashes(folder: Path) -> dict[str, str]:
    """Every file and link below ``folder`` (links by their target, never followed)."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = f"-> {path.readlink()}"
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def config(repo: Path, text: str) -> None:
    (repo / "releasekit.yaml").write_text("schema: releasekit/config/v1\ncatalog:\n" + text)


# ------------------------------------------------------------------------------------ no data loss


@pytest.mark.parametrize("marker", [True, False], ids=["with-marker", "without-marker"])
def test_a_custom_root_written_as_a_tree_keeps_every_file_releasekit_did_not_write(
    repo: Path, marker: bool
) -> None:
    """``root: deploy``, ``writes: tree``: build deleted deploy/vendor/ and deploy/values.yaml, exit 0."""
    config(repo, "  root: deploy\n  writes: tree\n")
    shutil.move(repo / "catalog", repo / "deploy")
    if not marker:
        (repo / "deploy" / MARKER).unlink()
    deploy = repo / "deploy"
    (deploy / "vendor" / "lib").mkdir(parents=True)
    (deploy / "vendor" / "lib" / "mod.go").write_text("package lib\n")
    (deploy / "values.yaml").write_text("replicas: 3\n")
    (deploy / "v4.18" / "NOTES.md").write_text("kept\n")
    (deploy / "vault").mkdir()  # an empty folder that starts with v
    before = hashes(deploy)
    ran = run_here(["build", "-q"], repo)
    assert ran.code == 0, ran.stderr
    after = hashes(deploy)
    assert {k: v for k, v in after.items() if k != MARKER} == {k: v for k, v in before.items() if k != MARKER}
    assert (deploy / "vault").is_dir()
    listed = (deploy / MARKER).read_text()
    assert "v4.18/Containerfile" in listed and "values.yaml" not in listed and "vendor" not in listed


def test_a_custom_root_named_catalog_keeps_untracked_notes(repo: Path) -> None:
    """``root: catalog``: an untracked catalog/v4.18/NOTES.md was deleted, though the README keeps notes."""
    config(repo, "  root: catalog\n")
    notes = repo / "catalog" / "v4.18" / "NOTES.md"
    notes.write_text("mine\n")
    ran = run_here(["build", "-q"], repo)
    assert ran.code == 0, ran.stderr
    assert notes.read_text() == "mine\n"


def test_a_file_releasekit_must_write_but_did_not_is_refused(repo: Path) -> None:
    (repo / "catalog" / MARKER).unlink()
    theirs = repo / "catalog" / "v4.19" / "Containerfile"
    theirs.write_text("FROM scratch\n# hand-written\n")
    before = hashes(repo / "catalog")
    ran = run_here(["build"], repo)
    assert_refused(ran, "catalog/v4.19/Containerfile", "releasekit did not write it")
    assert hashes(repo / "catalog") == before


def test_a_stale_file_goes_only_when_the_marker_lists_it(repo: Path) -> None:
    catalog = repo / "catalog"
    for name in ("v9.8", "v9.9"):
        (catalog / name).mkdir()
        (catalog / name / "Containerfile").write_text("FROM scratch\n")
    marker = catalog / MARKER
    marker.write_text(marker.read_text() + "v9.8/Containerfile\n")
    ran = run_here(["build", "-q"], repo)
    assert ran.code == 0, ran.stderr
    assert not (catalog / "v9.8").exists()  # releasekit wrote it and no longer generates it
    assert (catalog / "v9.9" / "Containerfile").read_text() == "FROM scratch\n"  # never releasekit's
    assert "v9.8" not in marker.read_text()


def test_files_mode_writes_a_marker_and_refuses_a_file_it_did_not_write(repo: Path) -> None:
    config(repo, "  root: fbc\n  writes: files\n")
    ran = run_here(["build", "-q"], repo)
    assert ran.code == 0, ran.stderr
    fbc = repo / "fbc"
    assert "v4.18/Containerfile" in (fbc / MARKER).read_text()
    (fbc / "README.md").write_text("theirs\n")
    ran = run_here(["build", "-q"], repo)  # a second build: everything listed, the README left alone
    assert ran.code == 0, ran.stderr
    assert (fbc / "README.md").read_text() == "theirs\n"
    (fbc / MARKER).unlink()
    (fbc / "v4.20" / "Containerfile").write_text("FROM theirs\n")
    before = hashes(fbc)
    assert_refused(run_here(["build"], repo), "fbc/v4.20/Containerfile", "releasekit did not write it")
    assert hashes(fbc) == before


# ------------------------------------------------------------------------------------ no writes outside


def kueue_fbc_repo(repo: Path) -> None:
    """``repo`` laid out as openshift/kueue-fbc (root ``.``): its first build writes the fragments."""
    shutil.rmtree(repo / "catalog")
    config(repo, "  layout: kueue-fbc\n")


@pytest.mark.parametrize("check", [False, True], ids=["build", "build-check"])
def test_a_symlinked_fragment_folder_is_neither_written_nor_read(
    repo: Path, tmp_path_factory: pytest.TempPathFactory, check: bool
) -> None:
    kueue_fbc_repo(repo)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "catalog" / "kueue-operator").mkdir(parents=True)
    (elsewhere / "catalog" / "kueue-operator" / "catalog.json").write_text('{"not": "yours"}\n')
    (elsewhere / "Containerfile.catalog").write_text("FROM elsewhere\n")
    before = hashes(elsewhere)
    (repo / "v4.18").symlink_to(elsewhere, target_is_directory=True)
    ran = run_here(["build", "--check"] if check else ["build"], repo)
    assert_refused(ran, "v4.18", "symbolic link")
    assert hashes(elsewhere) == before
    assert not (repo / "v4.19").exists()


def test_a_symlinked_file_releasekit_writes_is_refused(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "Containerfile"
    outside.write_text("FROM outside\n")
    target = repo / "catalog" / "v4.18" / "Containerfile"
    target.unlink()
    target.symlink_to(outside)
    assert_refused(run_here(["build"], repo), "catalog/v4.18/Containerfile", "symbolic link")
    assert outside.read_text() == "FROM outside\n"


def adopt_repo(repo: Path) -> Path:
    """``repo`` without a catalog; the source is this repository's own catalog (releasekit layout)."""
    shutil.rmtree(repo / "catalog")
    return REPO_ROOT / "catalog"


def test_adopt_never_writes_through_a_symlinked_fragment(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = adopt_repo(repo)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (repo / "catalog").mkdir()
    (repo / "catalog" / "v4.18").symlink_to(elsewhere, target_is_directory=True)
    ran = run_here(["catalog", "adopt", source, "--layout", "releasekit"], repo)
    assert_refused(ran, "catalog/v4.18", "symbolic link")
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in (repo / "catalog").iterdir()) == ["v4.18"]


# ------------------------------------------------------------------------------------ all or nothing


def test_adopt_checks_every_target_before_the_first_write(repo: Path) -> None:
    """``catalog/v4.20`` a file: adopt wrote v4.18 and v4.19, then ended in a traceback."""
    source = adopt_repo(repo)
    (repo / "catalog").mkdir()
    (repo / "catalog" / "v4.20").write_text("a file, not a folder\n")
    ran = run_here(["catalog", "adopt", source, "--layout", "releasekit"], repo)
    assert_refused(ran, "catalog/v4.20", "not a folder")
    assert sorted(p.name for p in (repo / "catalog").iterdir()) == ["v4.20"]


def test_adopt_in_files_mode_checks_every_target_first(repo: Path) -> None:
    source = adopt_repo(repo)
    config(repo, "  root: fbc\n  writes: files\n")
    (repo / "fbc").mkdir()
    (repo / "fbc" / "v4.20").write_text("a file\n")
    ran = run_here(["catalog", "adopt", source, "--layout", "releasekit"], repo)
    assert_refused(ran, "fbc/v4.20", "not a folder")
    assert sorted(p.name for p in (repo / "fbc").iterdir() if "releasekit-lock" not in p.name) == ["v4.20"]


def test_adopt_keeps_what_build_wrote_and_lists_what_it_imports(repo: Path) -> None:
    source = adopt_repo(repo)
    assert run_here(["catalog", "adopt", source, "--layout", "releasekit"], repo).code == 0
    listed = (repo / "catalog" / MARKER).read_text()
    assert "v4.18/configs/kueue-operator/catalog.json" in listed
    assert run_here(["build", "-q"], repo).code == 0
    assert run_here(["catalog", "adopt", source, "--layout", "releasekit"], repo).code == 0
    assert (repo / "catalog" / "v4.18" / "Containerfile").is_file()  # an import adds, it prunes nothing
    assert "v4.18/Containerfile" in (repo / "catalog" / MARKER).read_text()


# ------------------------------------------------------------------------------------ hangs and memory


def adopt_source(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    shutil.copytree(REPO_ROOT / "catalog", source)
    return source


def test_adopt_refuses_a_fifo_instead_of_waiting_on_it(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = adopt_source(tmp_path_factory.mktemp("src"))
    fifo = source / "v4.18" / "configs" / "kueue-operator" / "catalog.json"
    fifo.unlink()
    os.mkfifo(fifo)
    adopt_repo(repo)
    ran = run_child(["catalog", "adopt", source, "--layout", "releasekit"], repo, timeout=60)
    assert_refused(ran, "catalog.json", "not a regular file")
    assert not (repo / "catalog").exists()


def test_adopt_refuses_a_huge_file_by_its_size_unread(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = adopt_source(tmp_path_factory.mktemp("src"))
    huge = source / "v4.19" / "configs" / "kueue-operator" / "catalog.json"
    with huge.open("r+b") as handle:
        handle.truncate(2 * 1024**3)  # sparse: 2 GB that take no room
    adopt_repo(repo)
    ran = run_child(
        ["catalog", "adopt", source, "--layout", "releasekit"],
        repo,
        timeout=60,
        prelude="import resource; resource.setrlimit(resource.RLIMIT_AS, (1536 * 1024**2, 1536 * 1024**2))",
    )
    assert_refused(ran, "catalog.json", "limit")
    assert not (repo / "catalog").exists()


# ------------------------------------------------------------------------------------ read-only trees


@functools.cache
def _unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


def run_read_only(args: list[str], repo: Path) -> Ran:
    """``releasekit ARGS`` in ``repo`` made read-only (a read-only bind mount as root, modes otherwise)."""
    code = "from releasekit.cli import main\nmain()"
    command = [sys.executable, "-c", code, *map(str, args)]
    if os.geteuid() == 0:
        if not _unshare_works():
            pytest.skip("running as root without unshare: cannot make a read-only tree")
        script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && cd "$0" && exec "$@"'
        command = ["unshare", "-m", "sh", "-c", script, str(repo), *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        return Ran(done.returncode, done.stdout, done.stderr)
    modes = {p: p.stat().st_mode for p in [repo, *repo.rglob("*")] if p.is_dir() and not p.is_symlink()}
    try:
        for path in modes:
            path.chmod(0o555)
        done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
    finally:
        for path, mode in modes.items():
            path.chmod(mode)
    return Ran(done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ["build"],
        ["catalog", "build"],
        ["bundle", "build", "--version", "1.4.1"],
        ["streams", "validate", "--output", "report.json"],
    ],
    ids=["build", "catalog-build", "bundle-build", "output"],
)
def test_every_writing_command_on_a_read_only_tree_is_one_line(repo: Path, args: list[str]) -> None:
    (repo / "catalog" / "v4.18" / "Containerfile").write_text("FROM stale\n")  # so that build must write
    marker = repo / "catalog" / MARKER
    before = hashes(repo)
    ran = run_read_only(args, repo)
    assert_refused(ran, "cannot write")
    assert hashes(repo) == before
    assert marker.is_file()


def test_adopt_on_a_read_only_tree_is_one_line(repo: Path) -> None:
    source = adopt_repo(repo)
    assert_refused(
        run_read_only(["catalog", "adopt", source, "--layout", "releasekit"], repo), "cannot write"
    )
    assert not (repo / "catalog").exists()


def test_the_write_helpers_turn_os_errors_into_one_line(tmp_path: Path) -> None:
    from releasekit.errors import InputError
    from releasekit.io.atomic import write_text_atomic

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot write"):
        write_text_atomic(blocker / "inside" / "record.yaml", "x: 1\n")


@pytest.mark.parametrize("args", [["build"], ["build", "--check"]], ids=["build", "build-check"])
def test_a_fifo_where_releasekit_writes_is_refused_not_opened(repo: Path, args: list[str]) -> None:
    fifo = repo / "catalog" / "v4.18" / "Containerfile"
    fifo.unlink()
    os.mkfifo(fifo)
    assert_refused(run_child(args, repo, timeout=120), "catalog/v4.18/Containerfile", "not a regular file")
    assert fifo.is_fifo()


def test_a_marker_that_is_a_fifo_is_refused_not_opened(repo: Path) -> None:
    marker = repo / "catalog" / MARKER
    marker.unlink()
    os.mkfifo(marker)
    assert_refused(run_child(["build"], repo, timeout=120), MARKER, "not a regular file")
