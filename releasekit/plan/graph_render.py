"""Pictures of upgrade graphs: Mermaid for one package, DOT for larger pictures, JSON for tools.

Pure core: no I/O. Deterministic: channels sorted, entries in channel order, edges sorted, a newline at
the end. A node is a channel entry (a bundle in two channels appears in both); an edge from another
channel starts at the bundle's node in its first channel. Heads: ``(head)`` and a thick border in
Mermaid, a double border in DOT, where ``replaces`` is solid, ``skips`` dashed, ``skipRange`` dotted.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any, Final

from releasekit.model.graph import EdgeKind, PackageGraph

__all__ = ["GRAPH_SCHEMA", "graph_to_json", "render_dot", "render_json", "render_mermaid"]

GRAPH_SCHEMA: Final = "releasekit/graph/v1"

_DOT_STYLE: Final = {EdgeKind.REPLACES: "solid", EdgeKind.SKIPS: "dashed", EdgeKind.SKIP_RANGE: "dotted"}


def _node_ids(graph: PackageGraph, prefix: str) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """Ids per (channel, bundle), and each bundle's id in its first channel (where outside edges start)."""
    ids: dict[tuple[str, str], str] = {}
    first: dict[str, str] = {}
    for ci, channel in enumerate(graph.channels, start=1):
        for bi, bundle in enumerate(channel.entries, start=1):
            ids[(channel.name, bundle)] = f"{prefix}c{ci}b{bi}"
            first.setdefault(bundle, ids[(channel.name, bundle)])
    return ids, first


def _edge_ends(graph: PackageGraph, prefix: str) -> list[tuple[str, str, EdgeKind]]:
    ids, first = _node_ids(graph, prefix)
    ends: list[tuple[str, str, EdgeKind]] = []
    for edge in graph.edges:
        source = ids.get((edge.channel, edge.source)) or first[edge.source]
        item = (source, ids[(edge.channel, edge.target)], edge.kind)
        if item not in ends:
            ends.append(item)
    return ends


def _mermaid_text(text: str) -> str:
    return text.replace('"', "#quot;")


def render_mermaid(graph: PackageGraph) -> str:
    """One package as a Mermaid flowchart (see the module docstring)."""
    ids, _ = _node_ids(graph, "")
    lines = [
        "flowchart LR",
        f"  %% package {_mermaid_text(graph.package)}, default channel {_mermaid_text(graph.default_channel)}",
        "  classDef head stroke-width:3px",
    ]
    for ci, channel in enumerate(graph.channels, start=1):
        title = channel.name + (" (default)" if channel.name == graph.default_channel else "")
        lines.append(f'  subgraph c{ci}["{_mermaid_text(title)}"]')
        for bundle in channel.entries:
            head = ' (head)"]:::head' if bundle in channel.heads else '"]'
            lines.append(f'    {ids[(channel.name, bundle)]}["{_mermaid_text(bundle)}{head}')
        lines.append("  end")
    lines.extend(f"  {source} -- {kind.value} --> {target}" for source, target, kind in _edge_ends(graph, ""))
    return "\n".join(lines) + "\n"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dot(graphs: Sequence[PackageGraph]) -> str:
    """Any number of packages as one Graphviz digraph (see the module docstring)."""
    lines = ["digraph upgrades {", "  rankdir=LR;", "  node [shape=box];"]
    edges: list[str] = []
    for pi, graph in enumerate(graphs, start=1):
        prefix = f"p{pi}"
        ids, _ = _node_ids(graph, prefix)
        lines.append(f"  subgraph cluster_{prefix} {{")
        lines.append(f"    label={_dot_quote(f'{graph.package} (default channel {graph.default_channel})')};")
        for ci, channel in enumerate(graph.channels, start=1):
            lines.append(f"    subgraph cluster_{prefix}c{ci} {{")
            default = channel.name == graph.default_channel
            lines.append(f"      label={_dot_quote(channel.name + (' (default)' if default else ''))};")
            if default:
                lines.append("      style=bold;")
            for bundle in channel.entries:
                head = ", peripheries=2" if bundle in channel.heads else ""
                lines.append(f"      {ids[(channel.name, bundle)]} [label={_dot_quote(bundle)}{head}];")
            lines.append("    }")
        lines.append("  }")
        edges.extend(
            f"  {source} -> {target} [label={_dot_quote(kind.value)}, style={_DOT_STYLE[kind]}];"
            for source, target, kind in _edge_ends(graph, prefix)
        )
    return "\n".join([*lines, *edges, "}"]) + "\n"


def graph_to_json(graph: PackageGraph) -> dict[str, Any]:
    """One package's graph as JSON-ready data (channels and reachability as the model names their fields)."""
    return {
        "package": graph.package,
        "defaultChannel": graph.default_channel,
        "defaultHead": graph.default_head,
        "channels": [dataclasses.asdict(c) for c in graph.channels],
        "nodes": [
            {
                "name": n.name,
                "version": str(n.version) if n.version is not None else None,
                "channels": list(n.channels),
                "apiGroups": list(n.api_groups),
            }
            for n in graph.nodes
        ],
        "edges": [
            {"from": e.source, "to": e.target, "channel": e.channel, "kind": e.kind.value}
            for e in graph.edges
        ],
        "reachability": [dataclasses.asdict(r) for r in graph.reachability],
    }


def render_json(graphs: Sequence[PackageGraph]) -> str:
    """Every package's graph as one JSON document (2-space indent, newline at the end)."""
    document = {"schema": GRAPH_SCHEMA, "packages": [graph_to_json(g) for g in graphs]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
