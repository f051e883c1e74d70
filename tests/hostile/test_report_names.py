"""File names from hostile input in every report format, and ``--output`` paths that cannot be written (issue 23).

A pull request may add a file whose name holds a byte that is not UTF-8 (Python reads it
surrogate-escaped) or terminal escape codes. ``check`` names it (RK-DIFF-001: not generated from
``streams/``) in every format, on standard output and with ``--output``: escaped (``\\xff``,
``\\x1b``), never raw and never a UnicodeEncodeError; JSON, SARIF and JUnit stay valid documents.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree as ET

import git
import pytest

from releasekit.report import REPORTERS
from tests.conftest import REPO_ROOT
from tests.hostile.conftest import Ran, assert_refused, run_here

NAME = os.fsdecode(b"n\xff\x1b[2J\x1b]0;pwned\x07\x9b\x7f.json")
SHOWN = "n\\xff\\x1b[2J\\x1b]0;pwned\\x07\\x9b\\x7f.json"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The repository's data committed as ``main``; the working tree adds the hostile file."""
    root = tmp_path_factory.mktemp("hostile-names")
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    r = git.Repo.init(root, initial_branch="main")
    with r.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    r.git.add("-A")
    r.git.commit("-qm", "base")
    (root / "catalog" / "v4.18" / NAME).write_bytes(b"{}\n")
    yield root
    r.close()


def _assert_clean(fmt: str, text: str) -> None:
    text.encode("utf-8")  # no lone surrogate
    assert not [ch for ch in text if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) <= 0x9F], fmt
    if fmt in ("json", "sarif", "konflux"):
        json.loads(text)
    if fmt == "junit":
        ET.fromstring(text)
    if fmt != "konflux":  # konflux's note names rules and numbers only
        assert f"catalog/v4.18/{SHOWN}" in text.replace("\\\\", "\\"), fmt


@pytest.mark.parametrize("fmt", sorted(REPORTERS))
def test_a_hostile_file_name_in_every_format(repo: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"report.{fmt}"
    to_file = run_here(["check", "--repo", repo, "--base", "main", "--format", fmt, "--output", out], repo)
    assert to_file.code == (0 if fmt == "konflux" else 1), to_file.stderr[-2000:]
    _assert_clean(fmt, out.read_bytes().decode("utf-8"))
    to_stdout = run_here(["check", "--repo", repo, "--base", "main", "--format", fmt], repo)
    assert to_stdout.code == to_file.code, to_stdout.stderr[-2000:]
    _assert_clean(fmt, to_stdout.stdout)


def _check_to(repo: Path, output: Path | str) -> Ran:
    return run_here(["check", "--repo", repo, "--base", "main", "--format", "json", "--output", output], repo)


def test_output_into_a_folder_is_one_line(repo: Path, tmp_path: Path) -> None:
    assert_refused(_check_to(repo, tmp_path), str(tmp_path), "is a folder; --output names a file")


def test_output_through_a_file_is_one_line(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert_refused(_check_to(repo, tmp_path / "file" / "report.json"), "report.json: cannot write")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_output_into_a_read_only_folder_is_one_line(repo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        assert_refused(_check_to(repo, folder / "report.json"), "report.json: cannot write")
        assert not list(folder.iterdir())
    finally:
        folder.chmod(0o700)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only file")
def test_output_onto_a_read_only_file_is_one_line(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old\n")
    target.chmod(0o400)
    assert_refused(_check_to(repo, target), "report.json: cannot write")
    assert target.read_text() == "old\n"


def test_an_output_name_with_escape_codes_is_named_escaped(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    ran = _check_to(repo, tmp_path / "file" / "r\x1b[2J.json")
    assert_refused(ran, "r\\x1b[2J.json: cannot write")
    assert "\x1b" not in ran.stderr


def test_output_this_user_may_not_write_is_refused_before_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a read-only folder or file gives a user other than root (os.access says no)."""
    from releasekit.cli import _common
    from releasekit.errors import InputError

    target = tmp_path / "report.json"
    monkeypatch.setattr(_common.os, "access", lambda *_args: False)
    with pytest.raises(InputError, match=r"report.json: cannot write: permission denied in "):
        _common.check_output(target)
    target.write_text("old\n")
    with pytest.raises(InputError, match=r"report.json: cannot write: permission denied$"):
        _common.check_output(target)
