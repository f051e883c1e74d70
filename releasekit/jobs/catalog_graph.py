"""``releasekit catalog graph [DIR]``: a catalog's upgrade graph as Mermaid, DOT or JSON."""

from __future__ import annotations

from pathlib import Path

from releasekit.errors import InputError, UsageError
from releasekit.io.fbc_load import load_catalog
from releasekit.jobs.catalog_matrix import openshift_roots
from releasekit.jobs.catalog_render import refuse_load_errors
from releasekit.model.stream import OpenShiftVersion
from releasekit.plan.graph_render import render_dot, render_json, render_mermaid
from releasekit.rules.graph import analyze_config

__all__ = ["draw_graph"]


def resolve_root(directory: Path, openshift: str | None) -> Path:
    """The FBC root to draw for ``directory`` and ``--openshift`` (:mod:`releasekit.cli.catalog`)."""
    if not directory.is_dir():
        raise InputError(f"{directory}: no such catalog folder")
    if (directory / "configs").is_dir():
        if openshift is not None:
            raise UsageError(f"--openshift {openshift} applies to a catalog tree; {directory} is one catalog")
        return directory / "configs"
    versions = openshift_roots(directory)
    if not versions:
        if openshift is not None:
            raise UsageError(f"--openshift {openshift}: {directory} has no v<X.Y>/configs folders")
        return directory
    if openshift is None:
        return versions[max(versions)]
    try:
        wanted = OpenShiftVersion.parse(openshift)
    except ValueError as exc:
        raise UsageError(f"--openshift: {exc}") from None
    if wanted not in versions:
        known = ", ".join(str(v) for v in sorted(versions))
        raise UsageError(f"--openshift {openshift}: {directory} has no such folder (it has {known})")
    return versions[wanted]


def draw_graph(directory: Path, *, package: str | None, fmt: str, openshift: str | None) -> str:
    """The upgrade graph of the catalog at ``directory`` in ``fmt`` (``mermaid``, ``dot`` or ``json``)."""
    root = resolve_root(directory, openshift)
    loaded = load_catalog(root)
    refuse_load_errors(loaded.findings, suffix="; `releasekit catalog validate` lists them all")
    graphs = analyze_config(loaded.config)
    if not graphs:
        raise InputError(f"{root}: no olm.package in this catalog")
    names = ", ".join(g.package for g in graphs)
    if package is not None:
        graphs = tuple(g for g in graphs if g.package == package)
        if not graphs:
            raise UsageError(f"--package {package}: no such package in {root} (it has {names})")
    if fmt == "mermaid":
        if len(graphs) > 1:
            raise UsageError(f"mermaid draws one package; choose one with --package ({names})")
        return render_mermaid(graphs[0])
    return render_dot(graphs) if fmt == "dot" else render_json(graphs)
