"""The OpenShift lifecycle as data: which versions exist, which are EUS, which cluster upgrades exist.

Pure model. ``minor`` edges (to the next minor) and ``eus`` edges (EUS to the next EUS, operators left as
they were on the way) are derived within a major; ``major`` edges are never derived: the file names them.
An explicit edge keeps its written kind and is not doubled by a derived one.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from releasekit.model.stream import OpenShiftVersion

__all__ = ["EdgeKind", "OpenShiftLifecycle", "UpgradeEdge", "default_edges"]


class EdgeKind(enum.StrEnum):
    """How a cluster upgrade goes: one minor, EUS to EUS, or into a new major."""

    MINOR = "minor"
    EUS = "eus"
    MAJOR = "major"


@dataclass(frozen=True, slots=True, kw_only=True)
class UpgradeEdge:
    """A cluster upgrade from ``source`` to ``target``; ``line`` is where the file writes it (0: derived)."""

    source: OpenShiftVersion
    target: OpenShiftVersion
    kind: EdgeKind
    line: int = 0

    def sort_key(self) -> tuple[OpenShiftVersion, int, OpenShiftVersion]:
        """Source first, then minor before EUS before major, then target."""
        return (self.source, list(EdgeKind).index(self.kind), self.target)


def default_edges(
    versions: Iterable[OpenShiftVersion], eus: Iterable[OpenShiftVersion] = ()
) -> tuple[UpgradeEdge, ...]:
    """Each version to the next minor of its major, and each EUS version to the next EUS of its major."""
    ordered = sorted(set(versions))
    eus_set = set(eus)
    edges: list[UpgradeEdge] = []
    for older, newer in zip(ordered, ordered[1:], strict=False):
        if older.major == newer.major and newer.minor == older.minor + 1:
            edges.append(UpgradeEdge(source=older, target=newer, kind=EdgeKind.MINOR))
    eus_ordered = [v for v in ordered if v in eus_set]
    for older, newer in zip(eus_ordered, eus_ordered[1:], strict=False):
        if older.major == newer.major and newer.minor > older.minor + 1:
            edges.append(UpgradeEdge(source=older, target=newer, kind=EdgeKind.EUS))
    return tuple(sorted(edges, key=UpgradeEdge.sort_key))


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenShiftLifecycle:
    """The versions, the EUS ones, and every upgrade edge (defaults plus the explicit ones), sorted."""

    versions: tuple[OpenShiftVersion, ...]
    eus: tuple[OpenShiftVersion, ...] = ()
    edges: tuple[UpgradeEdge, ...] = ()
    file: str = ""

    @classmethod
    def build(
        cls,
        versions: Iterable[OpenShiftVersion],
        eus: Iterable[OpenShiftVersion] = (),
        explicit: Iterable[UpgradeEdge] = (),
        *,
        derive: bool = True,
        file: str = "",
    ) -> OpenShiftLifecycle:
        """The lifecycle of ``versions``: the default edges (unless ``derive`` is off) plus ``explicit``."""
        versions = tuple(sorted(set(versions)))
        eus = tuple(sorted(set(eus)))
        edges: dict[tuple[OpenShiftVersion, OpenShiftVersion], UpgradeEdge] = {}
        for edge in (*explicit, *(default_edges(versions, eus) if derive else ())):  # explicit ones win
            edges.setdefault((edge.source, edge.target), edge)
        return cls(
            versions=versions,
            eus=eus,
            edges=tuple(sorted(edges.values(), key=UpgradeEdge.sort_key)),
            file=file,
        )

    def edges_among(self, present: Iterable[str]) -> tuple[UpgradeEdge, ...]:
        """The edges whose source and target are both among ``present`` (``vX.Y`` texts)."""
        names = set(present)
        return tuple(e for e in self.edges if str(e.source) in names and str(e.target) in names)

    def pairs_among(self, present: Iterable[str]) -> tuple[tuple[str, str], ...]:
        """:meth:`edges_among` as ``(source, target)`` texts."""
        return tuple((str(e.source), str(e.target)) for e in self.edges_among(present))
