"""The console entry ends a catalog command without freeing what it loaded; other callers hold nothing.

``catalog validate`` hands what it loaded to :func:`releasekit.cli._main.request_fast_exit`: the console
entry (:func:`~releasekit.cli._main.run_main`) keeps it until ``os._exit``, so the process never pays for
freeing millions of objects on the way out; under click's test runner nothing is kept (a long-lived caller
must not accumulate catalogs).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from releasekit.cli import _main
from tests.conftest import usual_catalog


def _catalog(tmp_path: Path) -> Path:
    import json

    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "catalog.json").write_text("\n".join(json.dumps(obj) for obj in usual_catalog()) + "\n")
    return folder


def test_the_console_entry_keeps_the_loaded_catalog_until_it_exits(tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "from releasekit.cli import _main, cli\n"
        "real_exit = os._exit\n"
        "def spy(code):\n"
        "    print('kept', len(_main._kept), bool(_main._kept and _main._kept[0][0]))\n"
        "    sys.stdout.flush()\n"
        "    real_exit(code)\n"
        "os._exit = spy\n"
        f"_main.run_main(cli, ['catalog', 'validate', {str(_catalog(tmp_path))!r}])\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[-1] == "kept 1 True"


def test_the_test_runner_keeps_nothing(tmp_path: Path, run_line: Callable[..., Result]) -> None:
    result = run_line(["catalog", "validate", str(_catalog(tmp_path))])
    assert result.exit_code == 0, result.output
    assert _main._kept == []
