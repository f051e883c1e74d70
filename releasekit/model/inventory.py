"""Upstream Kueue inventories: the CRDs and feature gates of one Kueue release, as facts.

Pure core: no I/O. ``exact`` inventories are imported from git (with a sha256 per CRD file),
``transcribed`` ones by hand from a nearby tag (no hashes). A CRD *version* is alpha or beta when its
name says so, else GA; a *CRD* is alpha when ANY version is (as the real operator decides).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = [
    "Crd",
    "CrdVersion",
    "FeatureGate",
    "GateStage",
    "Inventory",
    "InventorySource",
    "Maturity",
    "inventory_name",
    "line_of_version",
    "version_maturity",
]


class Maturity(enum.StrEnum):
    """API maturity of a CRD version (or of a whole CRD)."""

    ALPHA = "alpha"
    BETA = "beta"
    GA = "ga"


class GateStage(enum.StrEnum):
    """A feature gate's ``PreRelease`` stage, spelled as Kueue spells it."""

    ALPHA = "Alpha"
    BETA = "Beta"
    GA = "GA"
    DEPRECATED = "Deprecated"


class InventorySource(enum.StrEnum):
    """How an inventory was made: read from git at a ref (exact) or transcribed from facts of a nearby tag."""

    EXACT = "exact"
    TRANSCRIBED = "transcribed"


# ASCII digits, at most 9 (int() refuses over 4,300 with a bare ValueError; no Kueue line is that long)
_LINE_RE = re.compile(r"v?([0-9]{1,9})\.([0-9]{1,9})(?:[.\-].*)?\Z", re.DOTALL)


def version_maturity(name: str) -> Maturity:
    """Maturity of a Kubernetes API version name: ``v1alpha1`` -> alpha, ``v1beta2`` -> beta, ``v1`` -> ga."""
    if "alpha" in name:
        return Maturity.ALPHA
    return Maturity.BETA if "beta" in name else Maturity.GA


def line_of_version(text: str) -> str | None:
    """The ``major.minor`` line of a Kueue tag or describe string (``v0.19.0-devel-19-g982b`` -> ``0.19``)."""
    match = _LINE_RE.match(text.strip())
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None


def inventory_name(line_or_pin: str) -> str:
    """The name releases use for an inventory: ``0.11`` -> ``kueue-0.11``, ``v0.12.9`` -> ``kueue-v0.12.9``."""
    return f"kueue-{line_or_pin}"


_HEX_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True, slots=True, kw_only=True)
class CrdVersion:
    """One entry of a CRD's ``spec.versions``."""

    name: str
    served: bool
    storage: bool
    maturity: Maturity


@dataclass(frozen=True, slots=True, kw_only=True)
class Crd:
    """One upstream CRD file: identity, scope, versions and (for exact inventories) the file's sha256."""

    group: str
    kind: str
    plural: str
    scope: str
    versions: tuple[CrdVersion, ...]
    file: str
    sha256: str | None = None

    @property
    def name(self) -> str:
        """The CRD's ``metadata.name``: ``<plural>.<group>``."""
        return f"{self.plural}.{self.group}"

    @property
    def maturity(self) -> Maturity:
        """The CRD's maturity: alpha if any version is alpha, else the least mature version's."""
        return min((v.maturity for v in self.versions), key=list(Maturity).index, default=Maturity.GA)

    @property
    def is_alpha(self) -> bool:
        """True when any version is alpha (the operator skips such CRDs)."""
        return self.maturity is Maturity.ALPHA

    @property
    def served_versions(self) -> tuple[str, ...]:
        """Names of the served versions, in file order."""
        return tuple(v.name for v in self.versions if v.served)

    @property
    def storage_version(self) -> str | None:
        """Name of the storage version (None if the file names none)."""
        return next((v.name for v in self.versions if v.storage), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class FeatureGate:
    """A Kueue feature gate as it applies in one release (the last versioned spec entry)."""

    name: str
    stage: GateStage
    default: bool
    lock_to_default: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Inventory:
    """The CRDs and feature gates of one Kueue release line, with where the facts came from."""

    line: str
    source: InventorySource
    ref: str
    commit: str
    tag: str | None = None
    describe: str | None = None
    features_file: str = ""
    crds: tuple[Crd, ...] = ()
    gates: tuple[FeatureGate, ...] = ()
    file: str = ""

    @property
    def pin(self) -> str | None:
        """The upstream pin an exact inventory describes; None for a transcribed inventory."""
        if self.source is not InventorySource.EXACT:
            return None
        if _HEX_COMMIT.fullmatch(self.ref):
            return self.describe or self.ref
        return self.ref

    @property
    def name(self) -> str:
        """The name releases refer to: ``kueue-<pin>`` for an exact inventory, ``kueue-<line>`` otherwise."""
        return inventory_name(self.pin or self.line)

    def gate(self, name: str) -> FeatureGate | None:
        """The gate called ``name``, or None when this Kueue has no such gate."""
        return next((g for g in self.gates if g.name == name), None)

    def crd(self, kind_or_name: str) -> Crd | None:
        """The CRD whose kind, plural or full name is ``kind_or_name``."""
        return next((c for c in self.crds if kind_or_name in (c.kind, c.plural, c.name)), None)
