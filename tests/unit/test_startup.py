"""``releasekit --help`` stays light: the heavy libraries load only in the commands that use them.

A behavioural guard (which modules get imported), not a timing test.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT

HEAVY = ("jsonschema", "jinja2", "git", "yaml_rs", "orjson")


def test_help_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "releasekit", "--help"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "catalog" in result.stdout


def test_help_imports_no_heavy_library() -> None:
    code = (
        "import sys, releasekit.cli\n"
        "try:\n"
        "    releasekit.cli.cli.main(['--help'], prog_name='releasekit')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('loaded=' + ','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "Usage:" in result.stdout
    assert result.stdout.rstrip().endswith("loaded="), f"releasekit --help imported: {result.stdout[-200:]}"
