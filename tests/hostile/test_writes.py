"""Writes that cannot destroy (issue 14, defects 1 and 2, the swap window, leftovers and the lock)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path, PurePosixPath

import pytest

from releasekit.errors import SafetyLimitError
from tests.hostile.conftest import assert_refused, run_child, run_here


@pytest.mark.parametrize("out", [".", "..", "streams", "bundle-templates"])
def test_candidates_out_never_replaces_the_repository_or_an_input(repo: Path, out: str) -> None:
    """``catalog build --candidates --out .`` replaced the whole repository (.git, streams/), exit 0."""
    before = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    ran = run_here(["catalog", "build", "--candidates", "--out", out], repo)
    assert_refused(ran, "refusing to replace")
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == before


def test_out_folder_of_files_releasekit_did_not_write_is_refused(repo: Path) -> None:
    notes = repo / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("keep me\n")
    ran = run_here(["catalog", "build", "--candidates", "--out", "notes"], repo)
    assert_refused(ran, "did not write", "todo.txt")
    assert (notes / "todo.txt").read_text() == "keep me\n"
    assert sorted(p.name for p in notes.iterdir()) == ["todo.txt"]


def test_untracked_files_inside_catalog_survive_a_build(repo: Path) -> None:
    """Every ``build`` deleted untracked files inside catalog/."""
    from releasekit.io.atomic import MARKER  # new API: imported per test

    (repo / "catalog" / "NOTES.md").write_text("mine\n")
    (repo / "catalog" / "v4.18" / "review.txt").write_text("also mine\n")
    stale = repo / "catalog" / "v9.9" / "Containerfile"  # a stale fragment releasekit wrote goes
    stale.parent.mkdir()
    stale.write_text("FROM scratch\n")
    marker = repo / "catalog" / MARKER
    marker.write_text(marker.read_text() + "v9.9/Containerfile\n")
    ran = run_here(["build", "-q"], repo)
    assert ran.code in (0, 1), ran.stderr
    assert (repo / "catalog" / "NOTES.md").read_text() == "mine\n"
    assert (repo / "catalog" / "v4.18" / "review.txt").read_text() == "also mine\n"
    assert not stale.parent.exists()
    assert (repo / "catalog" / "v4.18" / "configs" / "kueue-operator" / "catalog.json").is_file()
    assert "v4.18/Containerfile" in (repo / "catalog" / MARKER).read_text()


def test_a_build_removes_the_temporary_folders_of_killed_runs(repo: Path) -> None:
    """Interrupted runs left ``.catalog.new.*`` folders behind for good."""
    for name in (".catalog.new.abc", ".catalog.releasekit-new.def", ".catalog.releasekit-old.ghi"):
        (repo / name / "v4.18").mkdir(parents=True)
    ran = run_here(["build", "-q"], repo)
    assert ran.code in (0, 1), ran.stderr
    assert sorted(p.name for p in repo.iterdir() if ".catalog." in p.name) == [".catalog.releasekit-lock"]


def test_a_run_killed_between_the_two_renames_gets_its_tree_back(tmp_path: Path) -> None:
    """Where the kernel cannot exchange two folders, a kill between the renames left no catalog/ at all."""
    from releasekit.io.atomic import MARKER, write_tree_atomic  # new API: imported per test
    from releasekit.model.layout import DEFAULT_LAYOUT

    old = tmp_path / ".catalog.releasekit-old.x1"
    (old / "v4.18").mkdir(parents=True)
    (old / "v4.18" / "Containerfile").write_text("old\n")
    (old / MARKER).write_text("v4.18/Containerfile\n")
    (old / "v4.18" / "notes.txt").write_text("kept\n")
    files = {PurePosixPath("v4.18/Containerfile"): b"new\n"}
    write_tree_atomic(tmp_path / "catalog", files, owned=DEFAULT_LAYOUT.owns)
    assert (tmp_path / "catalog" / "v4.18" / "Containerfile").read_text() == "new\n"
    assert (tmp_path / "catalog" / "v4.18" / "notes.txt").read_text() == "kept\n"
    assert not old.exists()


def test_the_swap_never_moves_the_old_tree_away_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tree swap renamed catalog/ away and then the new one in: a window with no catalog/."""
    from releasekit.io.atomic import write_tree_atomic  # new API: imported per test

    target = tmp_path / "catalog"
    write_tree_atomic(target, {PurePosixPath("v4.18/Containerfile"): b"one\n"})
    real_rename = Path.rename

    def watched(self: Path, dest: Path) -> Path:
        if Path(self).absolute() == target.absolute():
            raise AssertionError("catalog/ was renamed away: a window without a catalog")
        return real_rename(self, dest)

    monkeypatch.setattr(Path, "rename", watched)
    write_tree_atomic(target, {PurePosixPath("v4.18/Containerfile"): b"two\n"})
    assert (target / "v4.18" / "Containerfile").read_text() == "two\n"


def test_the_exchange_falls_back_to_renames_where_the_kernel_cannot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from releasekit.io import atomic
    from releasekit.io.atomic import MARKER, write_tree_atomic  # new API: imported per test

    monkeypatch.setattr(atomic, "_exchange", lambda _a, _b: False)
    target = tmp_path / "out"
    write_tree_atomic(target, {PurePosixPath("a"): b"1"})
    write_tree_atomic(target, {PurePosixPath("b"): b"2"})
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "b"]
    assert [p.name for p in tmp_path.iterdir() if "releasekit-" in p.name] == [".out.releasekit-lock"]


def test_a_path_may_not_name_the_marker_or_leave_the_folder(tmp_path: Path) -> None:
    from releasekit.io.atomic import MARKER, write_tree_atomic  # new API: imported per test

    for rel in (MARKER, "../x", "/etc/x"):
        with pytest.raises(SafetyLimitError):
            write_tree_atomic(tmp_path / "out", {PurePosixPath(rel): b""})


def test_a_second_build_of_the_same_checkout_stops_at_once(repo: Path) -> None:
    """Two concurrent builds raced on catalog/; the second now stops with one line."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from releasekit.io.atomic import output_lock\n"
            "with output_lock(Path('catalog')):\n    print('held', flush=True); time.sleep(60)",
        ],
        cwd=repo,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        ran = run_child(["build"], repo, timeout=60)
        assert_refused(ran, "another releasekit run is writing it")
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def test_output_writes_into_a_fifo_instead_of_replacing_it(repo: Path) -> None:
    """``--output FIFO`` renamed a temporary file over the FIFO (or over /dev/stdout)."""
    fifo = repo / "report.pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    ran = run_child(["streams", "validate", "--format", "json", "--output", str(fifo)], repo, timeout=60)
    reader.join(timeout=30)
    assert ran.code == 0, ran.stderr
    assert fifo.is_fifo()
    assert received and b'"schema": "releasekit/report/v1"' in received[0]


def test_output_writes_through_a_symlink(repo: Path) -> None:
    (repo / "real.json").write_text("old\n")
    (repo / "link.json").symlink_to("real.json")
    ran = run_here(["streams", "validate", "--format", "json", "--output", "link.json"], repo)
    assert ran.code == 0, ran.stderr
    assert (repo / "link.json").is_symlink()
    assert '"schema": "releasekit/report/v1"' in (repo / "real.json").read_text()


def test_output_replaces_a_regular_file_atomically(repo: Path) -> None:
    (repo / "report.json").write_text("old\n")
    ran = run_here(["streams", "validate", "--format", "json", "--output", "report.json"], repo)
    assert ran.code == 0, ran.stderr
    assert '"passed": true' in (repo / "report.json").read_text()
    assert [p.name for p in repo.iterdir() if p.name.endswith(".tmp")] == []
