"""``releasekit catalog matrix``: the OpenShift upgrade matrix of a catalog tree."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from releasekit.errors import InputError, UsageError
from releasekit.io.catalog_tree import catalog_fragments, read_tree
from releasekit.io.lifecycle import load_lifecycle, read_lifecycle
from releasekit.jobs.catalog_render import refuse_load_errors
from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Finding
from releasekit.model.lifecycle import OpenShiftLifecycle, UpgradeEdge
from releasekit.model.stream import OpenShiftVersion
from releasekit.plan.matrix_render import render_json, render_markdown, render_text
from releasekit.rules.graph import check_openshift_upgrades
from releasekit.rules.lifecycle import check_lifecycle
from releasekit.rules.upgrade_matrix import upgrade_matrix

__all__ = [
    "MatrixRequest",
    "cross_openshift_findings",
    "expand_tree",
    "openshift_of",
    "openshift_roots",
    "run_matrix",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class MatrixRequest:
    """The tree to read, the lifecycle file (None: the default place, if present) and the format."""

    tree: Path = Path("catalog")
    lifecycle: Path | None = None
    streams_dir: Path = Path("streams")
    fmt: str = "text"


def load_tree_configs(tree: Path) -> dict[str, DeclarativeConfig]:
    """``vX.Y`` → config of every fragment of ``tree`` (folders not named ``vX.Y`` are skipped)."""
    configs: dict[str, DeclarativeConfig] = {}
    for fragment in catalog_fragments(str(tree), read_tree(tree)):
        try:
            OpenShiftVersion.parse(fragment.facts.folder)
        except ValueError:
            continue
        if fragment.loaded is not None:
            refuse_load_errors(
                fragment.loaded.findings, suffix="; `releasekit catalog validate` lists them all"
            )
            configs[fragment.facts.folder] = fragment.loaded.config
    if not configs:
        raise InputError(f"{tree}: no v<X.Y> catalog fragments (expected v<X.Y>/configs folders)")
    return configs


def _edges(request: MatrixRequest, present: list[str]) -> tuple[UpgradeEdge, ...]:
    """The named lifecycle's edges among ``present``, judged as ``build`` judges it (none: minor to minor)."""
    loaded: tuple[OpenShiftLifecycle | None, tuple[Finding, ...]] = (None, ())
    if request.lifecycle is None:
        if request.streams_dir.is_dir():
            loaded = load_lifecycle(request.streams_dir)
    elif not request.lifecycle.is_file():
        raise UsageError(f"--lifecycle {request.lifecycle}: no such file")
    else:
        loaded = read_lifecycle(request.lifecycle, str(request.lifecycle))
    lifecycle, findings = loaded
    if lifecycle is not None:
        findings += check_lifecycle(lifecycle)  # the file's own consistency; the streams are not read here
    refuse_load_errors(findings, "more: `releasekit streams validate` lists them")
    if lifecycle is None:
        lifecycle = OpenShiftLifecycle.build(OpenShiftVersion.parse(v) for v in present)
    return lifecycle.edges_among(present)


def run_matrix(request: MatrixRequest) -> str:
    """The rendered matrix."""
    configs = load_tree_configs(request.tree)
    edges = _edges(request, sorted(configs, key=OpenShiftVersion.parse))
    render = {"json": render_json, "markdown": render_markdown}.get(request.fmt, render_text)
    return render(upgrade_matrix(configs, edges))


def openshift_of(directory: Path) -> str | None:
    """The ``vX.Y`` a catalog folder belongs to (``catalog/v4.18/configs`` → ``v4.18``), or None."""
    for part in reversed(directory.parts):
        try:
            return str(OpenShiftVersion.parse(part))
        except ValueError:
            continue
    return None


def openshift_roots(directory: Path, names: tuple[str, ...] = ("configs",)) -> dict[OpenShiftVersion, Path]:
    """The FBC root (the first of ``names`` there) of every ``v<X.Y>`` folder of ``directory``, by version."""
    roots: dict[OpenShiftVersion, Path] = {}
    for child in directory.iterdir():
        with contextlib.suppress(ValueError):
            version = OpenShiftVersion.parse(child.name)
            root = next((child / n for n in names if (child / n).is_dir()), None)
            if root is not None:
                roots[version] = root
    return roots


def expand_tree(directory: Path) -> list[Path]:
    """The FBC roots ``directory`` stands for, in OpenShift order."""
    if not directory.is_dir() or (directory / "configs").is_dir():
        return [directory / "configs"] if (directory / "configs").is_dir() else [directory]
    roots = openshift_roots(directory, ("configs", "catalog"))
    own_files = any(p.is_file() and p.suffix in (".json", ".yaml", ".yml") for p in directory.iterdir())
    return [roots[v] for v in sorted(roots)] if roots and not own_files else [directory]


def cross_openshift_findings(
    configs: dict[str, DeclarativeConfig], files: dict[str, str], lifecycle_file: Path | None = None
) -> list[Finding]:
    """RK-GRAPH-010 along every cluster upgrade between the given catalogs (``vX.Y`` → config)."""
    if len(configs) < 2:
        return []
    present = sorted(configs, key=OpenShiftVersion.parse)
    edges = _edges(MatrixRequest(lifecycle=lifecycle_file), present)
    pairs = [(str(e.source), str(e.target)) for e in edges]
    return list(check_openshift_upgrades([(v, configs[v]) for v in present], files=files, edges=pairs))
