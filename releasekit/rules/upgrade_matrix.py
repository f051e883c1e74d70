"""The OpenShift upgrade matrix: for every cluster upgrade, where each installed version ends up.

Pure core: takes the catalogs (``vX.Y`` → config) and the cluster upgrades (the OpenShift lifecycle's
edges) and returns data; no I/O. For each upgrade N → M and each package of N's catalog, every version
installable on N (every bundle in a channel entry) gets one row:

- ``reaches``: M's catalog has the bundle, or an edge from it (an entry replaces or skips it, or its
  skipRange contains its version). The row names the head it reaches on M -- the default channel's head
  when a path leads there, else the newest bundle it can reach (its island channel's head) -- and the
  shortest upgrade path in M's catalog, as versions, the installed one first;
- ``stranded``: nothing on M has it or upgrades from it (what RK-GRAPH-010 reports), with the reason;
- ``blocked``: its ``olm.maxOpenShiftVersion`` is below M, so the cluster cannot take this upgrade while
  it is installed (Tech Preview); nothing is stranded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.graph import PackageGraph
from releasekit.model.lifecycle import UpgradeEdge
from releasekit.model.upgrade_matrix import MatrixRow, MatrixUpgrade
from releasekit.model.version import Version
from releasekit.rules.graph import (
    analyze_config,
    blocks_upgrade,
    entry_sources,
    shortest_paths,
    upgrade_adjacency,
)

__all__ = ["MatrixRow", "MatrixUpgrade", "upgrade_matrix"]


def _version_text(graph: PackageGraph, name: str) -> str:
    node = graph.node(name)
    return str(node.version) if node is not None and node.version is not None else name


def _reach(target: PackageGraph, start: str, first: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """The head ``start`` reaches in ``target`` (through ``first`` when it is not in it) and the path."""
    adjacency = upgrade_adjacency(target.edges)
    adjacency[start] = sorted(set(adjacency.get(start, [])) | set(first))
    paths = shortest_paths(start, adjacency)
    if target.default_head is not None and target.default_head in paths:
        return target.default_head, paths[target.default_head]
    known = [n for n in target.nodes if n.name in paths]
    if not known:
        return start, (start,)
    best = max(known, key=lambda n: (n.version is not None, n.version or Version(0, 0, 0), n.name))
    return best.name, paths[best.name]


def upgrade_matrix(
    catalogs: Mapping[str, DeclarativeConfig], edges: Iterable[UpgradeEdge | tuple[str, str, str]]
) -> tuple[MatrixUpgrade, ...]:
    """One :class:`MatrixUpgrade` per edge (both catalogs given) and package of the source catalog.

    ``edges`` are lifecycle edges or ``(from, to, kind)`` triples; their order is kept, packages sorted.
    """
    graphs: dict[str, dict[str, PackageGraph]] = {}

    def graphs_of(openshift: str) -> dict[str, PackageGraph]:
        if openshift not in graphs:
            graphs[openshift] = {g.package: g for g in analyze_config(catalogs[openshift])}
        return graphs[openshift]

    out: list[MatrixUpgrade] = []
    for edge in edges:
        source, target, kind = (
            (str(edge.source), str(edge.target), edge.kind.value) if isinstance(edge, UpgradeEdge) else edge
        )
        if source not in catalogs or target not in catalogs:
            continue
        bundles = {(b.package, b.name): b for b in catalogs[source].bundles}
        for package, graph in sorted(graphs_of(source).items()):
            target_graph = graphs_of(target).get(package)
            rows = []
            for node in graph.nodes:
                version = str(node.version) if node.version is not None else node.name
                limit = blocks_upgrade(bundles.get((package, node.name)), target)
                if limit is not None:
                    why = f"olm.maxOpenShiftVersion {limit} keeps the cluster below {target} while it is installed"
                    rows.append(MatrixRow(version=version, bundle=node.name, blocked=True, why=why))
                    continue
                if target_graph is None:
                    why = f"the {target} catalog has no package {package}"
                    rows.append(MatrixRow(version=version, bundle=node.name, stranded=True, why=why))
                    continue
                present = target_graph.node(node.name) is not None
                first = [] if present else entry_sources(catalogs[target], package, node.name, node.version)
                if not present and not first:
                    why = (
                        f"not in the {target} catalog, and no bundle there replaces or skips it or has a "
                        f"skipRange containing {version}"
                    )
                    rows.append(MatrixRow(version=version, bundle=node.name, stranded=True, why=why))
                    continue
                head, path = _reach(target_graph, node.name, first)
                rows.append(
                    MatrixRow(
                        version=version,
                        bundle=node.name,
                        reaches=_version_text(target_graph, head),
                        path=tuple(
                            version if p == node.name else _version_text(target_graph, p) for p in path
                        ),
                    )
                )
            out.append(
                MatrixUpgrade(package=package, source=source, target=target, kind=kind, rows=tuple(rows))
            )
    return tuple(out)
