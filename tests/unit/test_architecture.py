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


# ----------------------------------------------------------------------------------------- layering
# Who may import whom (architecture.md): cli -> jobs -> io, plan, rules -> model; report -> model.
# ``errors`` and the package root (``__version__``) are open to every layer.
LAYERS: dict[str, frozenset[str]] = {
    "cli": frozenset({"cli", "jobs", "model", "report"}),
    "jobs": frozenset({"jobs", "io", "plan", "rules", "model"}),
    "io": frozenset({"io", "model"}),
    "rules": frozenset({"rules", "model"}),
    "plan": frozenset({"plan", "model"}),
    "model": frozenset({"model"}),
    "report": frozenset({"report", "model"}),
}
OPEN = frozenset({"errors"})
# Exceptions, each with its reason. The CLI writes the rendered report to --output with the atomic writer
# (that file is the command's own output channel, not a job's result).
CLI_ADAPTERS: dict[str, frozenset[str]] = {
    "cli/_common.py": frozenset({"releasekit.io.atomic"}),
}
LAYERED = sorted(p for layer in LAYERS for p in (REPO_ROOT / "releasekit" / layer).rglob("*.py"))


def _releasekit_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names if a.name.startswith("releasekit"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "releasekit":  # from releasekit import X
                found.extend((node.lineno, f"releasekit.{a.name}") for a in node.names)
            elif node.module.startswith("releasekit."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.append((node.lineno, "<relative import>"))
    return found


@pytest.mark.parametrize("path", LAYERED, ids=[str(p.relative_to(REPO_ROOT)) for p in LAYERED])
def test_module_imports_only_lower_layers(path: Path) -> None:
    rel = path.relative_to(REPO_ROOT / "releasekit")
    layer = rel.parts[0]
    allowed = LAYERS[layer] | OPEN
    exceptions = CLI_ADAPTERS.get(str(rel.as_posix()), frozenset())
    bad = []
    for line, name in _releasekit_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if name == "<relative import>":
            bad.append(f"line {line}: a relative import (write releasekit.<layer>...)")
            continue
        parts = name.split(".")
        target = parts[1] if len(parts) > 1 else ""
        if target in allowed or target == "__version__" or name in exceptions:
            continue
        if any(name == e or name.startswith(e + ".") for e in exceptions):
            continue
        bad.append(f"line {line}: {name}")
    assert not bad, f"releasekit/{rel} ({layer}) may import only {sorted(allowed)}: {bad}"


def test_layering_sees_every_layer() -> None:
    layers = {p.relative_to(REPO_ROOT / "releasekit").parts[0] for p in LAYERED}
    assert layers == set(LAYERS)
    assert (REPO_ROOT / "releasekit" / "model" / "graph.py").is_file()
    from releasekit.model.graph import PackageGraph

    assert PackageGraph.__module__ == "releasekit.model.graph"


def test_the_layering_check_fails_on_a_wrong_import() -> None:
    """The check is not vacuous: an io module importing rules is caught."""
    tree = ast.parse("from releasekit.rules.stream import RULES\nimport releasekit.jobs.build\n")
    names = [name for _, name in _releasekit_imports(tree)]
    assert names == ["releasekit.rules.stream", "releasekit.jobs.build"]
    assert not {n.split(".")[1] for n in names} <= LAYERS["io"]
