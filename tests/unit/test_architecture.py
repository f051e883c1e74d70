"""The layer table of README's "Layout" holds, and the pure core never touches disk, the clock or the terminal.

Who may import whom is import-linter's job: the contracts are ``[tool.importlinter]`` in pyproject.toml,
and ``lint-imports`` must keep every one of them. What an import graph cannot show is checked here from
the source: the core (model/, rules/, plan/) never calls ``open``, ``print`` or ``input`` and never
reads the clock (``datetime`` may parse a timestamp), and no module uses a relative import.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

CORE = ("model", "rules", "plan")
MODULES = sorted(p for part in CORE for p in (REPO_ROOT / "releasekit" / part).rglob("*.py"))
EVERY_MODULE = sorted((REPO_ROOT / "releasekit").rglob("*.py"))
RELATIVE_IMPORT = re.compile(r"\s*from\s+\.")


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(REPO_ROOT)) for p in MODULES])
def test_core_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("open", "print", "input")
    ]
    assert not calls, f"{path.name} calls open/print/input at lines {calls}"
    clock = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("now", "utcnow", "today", "fromtimestamp")
    ]
    assert not clock, f"{path.name} reads the clock at lines {clock} (parsing a timestamp is fine)"


def test_the_contract_sees_every_core_module() -> None:
    assert len(MODULES) >= 15


def test_no_relative_imports() -> None:
    """``releasekit.<layer>...`` in full: the layer of every import shows where it is written."""
    bad = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in EVERY_MODULE
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if RELATIVE_IMPORT.match(line)
    ]
    assert not bad, f"relative imports (write releasekit.<layer>...): {bad}"


# ------------------------------------------------------------------------------ import-linter contracts


def _contract_names() -> list[str]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [contract["name"] for contract in config["tool"]["importlinter"]["contracts"]]


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package and pyproject.toml in ``cwd``, without writing a cache there."""
    program = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which(
        "lint-imports"
    )
    if program is None:
        pytest.fail("import-linter is not installed: pip install -e '.[test,lint]'")
    env = {**os.environ, "PYTHONPATH": str(cwd)}  # the package in cwd, not an installed one
    return subprocess.run(
        [program, "--no-cache", "--no-logo"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_every_import_contract_is_kept() -> None:
    names = _contract_names()
    assert len(names) >= 6
    result = _lint_imports(REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(names)} kept, 0 broken." in result.stdout, result.stdout


# Each line breaks the contract(s) named beside it; the copy of the package gets all of them at once.
VIOLATIONS: dict[str, str] = {
    "rules/stream.py": "import click\nimport releasekit.plan.channels\n",  # pure core, layers, rules/plan
    "model/finding.py": "import yaml\n",  # pure core
    "io/atomic.py": "import releasekit.jobs.catalog_build\n",  # io adapters only, layers
    "report/__init__.py": "import releasekit.rules.fbc\n",  # report on model
    "cli/streams.py": "import releasekit.io.streams\n",  # thin cli
}


def test_the_contracts_catch_a_wrong_import(tmp_path: Path) -> None:
    """The contracts are not vacuous: a copy of the package with wrong imports breaks every one of them."""
    shutil.copytree(
        REPO_ROOT / "releasekit", tmp_path / "releasekit", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy2(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for rel, line in VIOLATIONS.items():
        path = tmp_path / "releasekit" / rel
        path.write_text(path.read_text(encoding="utf-8") + "\n" + line, encoding="utf-8")
    result = _lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    names = _contract_names()
    assert f"Contracts: 0 kept, {len(names)} broken." in result.stdout, result.stdout
    for name, wrong in (
        ("click", "releasekit.rules.stream -> click"),
        ("yaml", "releasekit.model.finding -> yaml"),
        ("jobs", "releasekit.io.atomic -> releasekit.jobs.catalog_build"),
        ("rules", "releasekit.report -> releasekit.rules.fbc"),
        ("io", "releasekit.cli.streams -> releasekit.io.streams"),
    ):
        assert wrong in result.stdout, f"the import of {name} was not reported:\n{result.stdout}"
