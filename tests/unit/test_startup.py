"""``releasekit --help`` stays light: the heavy libraries load only in the commands that use them.

A behavioural guard (which modules get imported), not a timing test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from releasekit.io import yamlio
from releasekit.io.fbc_load import load_catalog
from tests.conftest import REPO_ROOT, usual_catalog

HEAVY = ("jsonschema", "jinja2", "git", "yaml_rs")


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


def _validate_in_a_child(folder: Path, modules: tuple[str, ...]) -> str:
    """``catalog validate FOLDER`` in a fresh interpreter; which of ``modules`` it imported, comma-separated."""
    code = (
        "import sys, releasekit.cli\n"
        "try:\n"
        f"    releasekit.cli.cli.main(['catalog', 'validate', {str(folder)!r}], prog_name='releasekit',"
        " standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('loaded=' + ','.join(m for m in {modules!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "passed" in result.stdout, result.stdout[-300:]
    return result.stdout.rstrip().rpartition("loaded=")[2]


def test_validating_json_streams_loads_no_second_json_parser(tmp_path: Path) -> None:
    """A catalog of JSON streams is read by the json module alone: no msgspec."""
    blobs = usual_catalog()
    (tmp_path / "catalog.json").write_text("".join(json.dumps(blob) + "\n" for blob in blobs))
    assert _validate_in_a_child(tmp_path, ("msgspec",)) == ""


def test_yaml_with_timestamps_is_read_by_yaml_rs_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyYAML's slower builder is not needed to tell that a timestamp such as ``createdAt`` is no YAML 1.1
    number, which nearly every real catalog holds."""
    blobs = usual_catalog()
    package = next(blob for blob in blobs if blob["schema"] == "olm.package")
    package["description"] = "2024-01-01T00:00:00Z"
    (tmp_path / "catalog.yaml").write_text("".join(f"---\n{json.dumps(blob)}\n" for blob in blobs))
    built: list[str] = []
    real = yamlio._pyyaml
    monkeypatch.setattr(yamlio, "_pyyaml", lambda text, *a, **k: built.append(text) or real(text, *a, **k))
    result = load_catalog(tmp_path)
    assert not result.findings and built == []
