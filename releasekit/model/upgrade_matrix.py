"""The OpenShift upgrade matrix as data: one row per installed version and cluster upgrade.

Pure model: :mod:`releasekit.rules.upgrade_matrix` computes it, :mod:`releasekit.plan.matrix_render` renders it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MatrixRow", "MatrixUpgrade", "changed_rows"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MatrixRow:
    """One installed version across one cluster upgrade (see the module docstring)."""

    version: str
    bundle: str
    reaches: str = ""
    path: tuple[str, ...] = ()
    stranded: bool = False
    blocked: bool = False
    why: str = ""

    def outcome(self) -> str:
        """A short text for tables: ``-> 1.4.1 (1.4.0 -> 1.4.1)``, ``stranded: ...`` or ``blocked: ...``."""
        if self.stranded:
            return f"stranded: {self.why}"
        if self.blocked:
            return f"blocked: {self.why}"
        return f"{self.reaches} via {' -> '.join(self.path)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class MatrixUpgrade:
    """One cluster upgrade of one package: ``source`` → ``target`` (``kind`` minor, eus or major)."""

    package: str
    source: str
    target: str
    kind: str
    rows: tuple[MatrixRow, ...]


def changed_rows(
    base: Sequence[MatrixUpgrade], head: Sequence[MatrixUpgrade]
) -> tuple[tuple[MatrixUpgrade, str, str, str], ...]:
    """Rows a change alters: ``(upgrade, version, before, after)``; a missing side reads ``"-"``."""

    def table(matrix: Sequence[MatrixUpgrade]) -> dict[tuple[str, str, str, str], tuple[MatrixUpgrade, str]]:
        return {(u.package, u.source, u.target, r.version): (u, r.outcome()) for u in matrix for r in u.rows}

    old, new = table(base), table(head)
    out = []
    for key in sorted(set(old) | set(new), key=lambda k: (k[0], _vkey(k[1]), _vkey(k[2]), _vkey(k[3]))):
        before = old[key][1] if key in old else "-"
        after = new[key][1] if key in new else "-"
        if before != after:
            upgrade = (new.get(key) or old[key])[0]
            out.append((upgrade, key[3], before, after))
    return tuple(out)


def _vkey(text: str) -> tuple[int, ...]:
    digits = [int(p) if p.isdigit() else 0 for p in text.lstrip("v").replace("-", ".").split(".")[:3]]
    return tuple(digits)
