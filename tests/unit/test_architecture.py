"""The pure core (model/, rules/, plan/) never touches disk, git, templates, the clock or the terminal.

An import-linter-style contract, checked from the source: the core imports none of the adapters' tools
and no releasekit adapter module, and never calls ``open`` or reads the clock (``datetime`` may parse a timestamp).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

CORE = ("model", "rules", "plan")
FORBIDDEN = {
    "click",
    "git",
    "jinja2",
    "yaml",
    "yaml_rs",
    "orjson",
    "pathspec",
    "os",
    "shutil",
    "subprocess",
    "tempfile",
    "time",
    "socket",
    "urllib",
    "releasekit.io",
    "releasekit.cli",
    "releasekit.report",
}
MODULES = sorted(p for part in CORE for p in (REPO_ROOT / "releasekit" / part).rglob("*.py"))


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(REPO_ROOT)) for p in MODULES])
def test_core_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = sorted(
        name for name in _imports(tree) if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    )
    assert not bad, f"{path.name} imports {bad}: that belongs in releasekit/io or releasekit/cli"
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
