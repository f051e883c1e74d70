"""The upgrade graph of one package, as data: nodes, edges, channels, heads and reachability.

Pure core: no I/O. :mod:`releasekit.rules.graph` builds it; plan draws it; :mod:`releasekit.rules.diff`
compares two.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from releasekit.model.version import Version

__all__ = [
    "KIND_ORDER",
    "ChannelView",
    "Edge",
    "EdgeKind",
    "Node",
    "PackageGraph",
    "Reachability",
    "Stranding",
]


class EdgeKind(enum.StrEnum):
    """How a channel entry names its sources, spelled as in FBC."""

    REPLACES = "replaces"
    SKIPS = "skips"
    SKIP_RANGE = "skipRange"


KIND_ORDER: Final = {EdgeKind.REPLACES: 0, EdgeKind.SKIPS: 1, EdgeKind.SKIP_RANGE: 2}


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class Edge:
    """An upgrade edge from ``source`` (installed) to ``target`` (an entry of ``channel``)."""

    channel: str
    target: str
    kind: EdgeKind
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """A bundle of the package: its version (None when it has none that parses) and where it is."""

    name: str
    version: Version | None
    channels: tuple[str, ...]
    api_groups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ChannelView:
    """A channel: its entries in file order and its heads (opm's definition; skipRange adds none)."""

    name: str
    entries: tuple[str, ...]
    heads: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Reachability:
    """One row of the reachability table.

    ``version`` is "" when unknown; ``path`` runs from the bundle to the default channel's head (empty when
    unreachable); ``reason`` is the rule id that explains why not (None when reachable or no single head).
    """

    bundle: str
    version: str
    reachable: bool
    path: tuple[str, ...] = ()
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PackageGraph:
    """The upgrade graph of one package: nodes (by version), edges (sorted), channels, heads, reachability.

    ``default_head`` is None unless the default channel has exactly one head.
    """

    package: str
    default_channel: str
    default_head: str | None
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    channels: tuple[ChannelView, ...]
    reachability: tuple[Reachability, ...]

    def node(self, name: str) -> Node | None:
        """The node named ``name``, or None."""
        return next((n for n in self.nodes if n.name == name), None)


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class Stranding:
    """A bundle in the ``openshift_from`` catalog that ``openshift_to`` neither has nor upgrades from."""

    package: str
    bundle: str
    version: str
    openshift_from: str
    openshift_to: str
