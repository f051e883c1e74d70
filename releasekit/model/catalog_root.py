"""Catalog roots of a file-based catalog repository, and the pairing of a base revision's with a head's.

Pure core: no I/O. :mod:`releasekit.io.catalog_roots` finds the roots of a revision (the folder a
Containerfile copies to ``/configs``, the lowest folder holding a package's FBC objects, or what
``releasekit.yaml`` lists); this module says which root of the base is which root of the head, so that
moving a folder is a move, not the removal of every bundle in it.

Pairing is per package: a head root holding package P pairs with the base root holding P for the same
OpenShift version; where a version is unknown (or two roots share it) the path decides. A package
catalog left without a partner was added or dropped; an OpenShift version no root of the head has any
more was dropped as a whole (and one new at head was added).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from releasekit.model.stream import openshift_order

__all__ = ["CatalogRoot", "RootPair", "RootPairing", "RootSource", "guess_openshift", "pair_roots"]


class RootSource(enum.StrEnum):
    """How a root was found."""

    CONTAINERFILE = "containerfile"  # a Containerfile copies it to /configs
    OBJECTS = "objects"  # the lowest folder holding a package's FBC objects (or its parent)
    CONFIG = "config"  # releasekit.yaml lists it
    CARRIED = "carried"  # a root of the base whose folder the head still has (its files do not load)


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogRoot:
    """One catalog root at one revision.

    Attributes:
        path: the folder, relative to the repository root (``.`` for the root itself), POSIX style.
        packages: the packages whose FBC objects it holds (sorted).
        openshift: the OpenShift version it serves (``v4.18``), or None when neither its path nor the
            configuration says.
        source: how it was found; ``detail`` says more (the Containerfile's path).
    """

    path: str
    packages: tuple[str, ...]
    openshift: str | None = None
    source: RootSource = RootSource.OBJECTS
    detail: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RootPair:
    """One package's catalog in one root at base and at head (either may be None: added, dropped).

    ``label`` names it in reports and keys it: the OpenShift version when it is known and unique to
    this root, else the root's path (with the version in front when there is one).
    """

    package: str
    label: str
    openshift: str | None
    base: CatalogRoot | None
    head: CatalogRoot | None

    @property
    def moved(self) -> bool:
        """True when base and head hold the package in folders of different paths."""
        return self.base is not None and self.head is not None and self.base.path != self.head.path


@dataclass(frozen=True, slots=True, kw_only=True)
class RootPairing:
    """Every package catalog of both revisions, paired, and the OpenShift versions added or dropped."""

    pairs: tuple[RootPair, ...]
    openshift_added: tuple[str, ...] = ()
    openshift_dropped: tuple[str, ...] = ()


# A path component naming an OpenShift version: v4.18, 4-14, ocp-4.16, name-v4.17, catalog-4-14.
# Anchored at the end and bounded, so it cannot backtrack over a long name.
_VERSION_COMPONENT = re.compile(r"(?:^|[-_.])v?([4-9])[.-]([0-9]{1,3})$")
_MAX_COMPONENT = 255


def guess_openshift(path: str) -> str | None:
    """The OpenShift version a root's path names (its deepest component that names one), or None.

    ``v4.18/catalog`` -> ``v4.18``; ``catalog/v4.12`` -> ``v4.12``; ``catalog/lvms-v4.17`` -> ``v4.17``;
    ``catalog-4-14`` -> ``v4.14``.
    """
    for part in reversed(path.split("/")):
        if len(part) > _MAX_COMPONENT:
            continue
        match = _VERSION_COMPONENT.search(part)
        if match:
            return f"v{int(match[1])}.{int(match[2])}"
    return None


def _pair_key(root: CatalogRoot) -> tuple[str, str]:
    return (root.openshift or "", root.path)


def pair_roots(base: Sequence[CatalogRoot], head: Sequence[CatalogRoot]) -> RootPairing:
    """Pair the package catalogs of ``base`` and ``head`` (see the module docstring).

    Order of matching, per package: the same path and version; then the same OpenShift version (a
    moved folder; several roots of one version pair by path order); then the same path (a version the
    guess or the configuration now reads otherwise). Each root is used at most once per package.
    """
    pairs: list[tuple[str, CatalogRoot | None, CatalogRoot | None, set[str]]] = []
    packages = sorted({p for r in (*base, *head) for p in r.packages})
    for package in packages:
        olds = sorted((r for r in base if package in r.packages), key=_pair_key)
        news = sorted((r for r in head if package in r.packages), key=_pair_key)
        shared = _shared_versions(olds) | _shared_versions(news)
        for same in (_same_place, _same_version, _same_path):
            for before in list(olds):
                after = next((n for n in news if same(before, n)), None)
                if after is not None:
                    pairs.append((package, before, after, shared))
                    olds.remove(before)
                    news.remove(after)
        pairs.extend((package, before, None, shared) for before in olds)
        pairs.extend((package, None, after, shared) for after in news)
    out = []
    for package, old, new, shared in pairs:
        either = new or old
        assert either is not None
        openshift = either.openshift
        label = openshift if openshift and openshift not in shared else either.path
        if openshift and openshift in shared:
            label = f"{openshift} {either.path}"
        out.append(RootPair(package=package, label=label, openshift=openshift, base=old, head=new))
    out.sort(key=lambda p: (openshift_order(p.label), p.package))
    versions_before = {r.openshift for r in base if r.openshift}
    versions_after = {r.openshift for r in head if r.openshift}
    return RootPairing(
        pairs=tuple(out),
        openshift_added=tuple(sorted(versions_after - versions_before, key=openshift_order)),
        openshift_dropped=tuple(sorted(versions_before - versions_after, key=openshift_order)),
    )


def _same_place(a: CatalogRoot, b: CatalogRoot) -> bool:
    return a.path == b.path and a.openshift == b.openshift


def _same_version(a: CatalogRoot, b: CatalogRoot) -> bool:
    return a.openshift is not None and a.openshift == b.openshift


def _same_path(a: CatalogRoot, b: CatalogRoot) -> bool:
    return a.path == b.path


def _shared_versions(roots: Iterable[CatalogRoot]) -> set[str]:
    """OpenShift versions that more than one root of one revision serves (their labels need the path)."""
    seen: set[str] = set()
    shared: set[str] = set()
    for root in roots:
        if root.openshift:
            (shared if root.openshift in seen else seen).add(root.openshift)
    return shared
