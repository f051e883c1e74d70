"""Helpers for the hostile-input tests (issue 14): a repository copy and a child-process runner.

Inputs that once crashed the interpreter (a segfault in a YAML library) or hung it (a FIFO, a runaway
template) run in a child process with a timeout (:func:`run_child`), so a regression fails the test
instead of taking pytest down with it; the rest run in this process (:func:`run_here`), which is faster.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


def run_child(args: list[str], cwd: Path, *, timeout: float = 120, prelude: str = "") -> Ran:
    """``releasekit ARGS`` in a child process (``prelude``: Python run first, e.g. to lower a limit)."""
    code = f"{prelude}\nfrom releasekit.cli import main\nmain()"
    env = {**os.environ, "PYTHONFAULTHANDLER": ""}
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *map(str, args)],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"releasekit {' '.join(map(str, args))} did not finish in {timeout} s")
    return Ran(done.returncode, done.stdout, done.stderr)


def run_here(args: list[str], cwd: Path, *, timeout: float = 120, prelude: str = "") -> Ran:
    """``releasekit ARGS`` in this process (click's runner), for inputs that cannot crash or hang it."""
    del timeout, prelude
    from click.testing import CliRunner

    from releasekit.cli import cli

    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    finally:
        os.chdir(previous)
    return Ran(result.exit_code, result.stdout, result.stderr)


def assert_refused(ran: Ran, *needles: str) -> None:
    """Exit 2 with exactly one line on stderr, no traceback, mentioning every needle."""
    assert ran.code == 2, (ran.code, ran.stderr[-2000:])
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr[-2000:]
    assert "Traceback" not in ran.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the repository's streams/, bundle-templates/ and catalog/ in a git repository."""
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name, symlinks=True)
    (tmp_path / ".git").mkdir()  # enough for "is a repository root"
    return tmp_path
