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
import json
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from releasekit.model.stream import openshift_order

__all__ = [
    "CatalogRoot",
    "RootPair",
    "RootPairing",
    "RootSource",
    "guess_openshift",
    "object_roots",
    "pair_roots",
    "parse_containerfile",
]


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
        for key in (lambda r: (r.path, r.openshift), lambda r: r.openshift, lambda r: r.path):
            for before in list(olds):
                wanted = key(before)
                after = next((n for n in news if wanted is not None and key(n) == wanted), None)
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


def _shared_versions(roots: Iterable[CatalogRoot]) -> set[str]:
    """OpenShift versions that more than one root of one revision serves (their labels need the path)."""
    served = Counter(root.openshift for root in roots if root.openshift)
    return {version for version, count in served.items() if count > 1}


# ------------------------------------------------------------------ finding roots (io.catalog_roots reads)

_BASE_TAG = re.compile(r"ose-operator-registry(?:-rhel[0-9]{1,2})?:v?([0-9]{1,2})\.([0-9]{1,3})$")


def parse_containerfile(text: str) -> tuple[list[str], str | None]:
    """The sources of every ``COPY``/``ADD`` to ``/configs`` (not ``--from`` another stage), and the base tag."""
    kept = "\n".join(line.strip() for line in text.splitlines() if not line.strip().startswith("#"))
    sources: list[str] = []
    tag: str | None = None
    for line in re.sub(r"\\\n", " ", kept).rstrip("\\").splitlines():
        verb, _, rest = line.replace("\t", " ").partition(" ")
        words = [w for w in rest.split() if not w.startswith("--")]
        if verb.upper() == "FROM" and tag is None:
            match = _BASE_TAG.search(words[0] if words else "")
            tag = f"v{int(match[1])}.{int(match[2])}" if match else None
        if verb.upper() not in ("COPY", "ADD") or any(w.startswith("--from") for w in rest.split()):
            continue
        if rest.lstrip().startswith("["):  # the JSON form
            try:
                words = json.loads(rest[rest.index("[") :])
            except ValueError:
                continue
        if len(words) >= 2 and all(isinstance(w, str) for w in words) and words[-1].rstrip("/") == "/configs":
            sources.extend(words[:-1])
    return sources, tag


def _groups(
    anchors: list[PurePosixPath], others: list[PurePosixPath]
) -> dict[PurePosixPath, list[PurePosixPath]]:
    """One package's files grouped around its ``olm.package`` files (``anchors``).

    Per folder, the (first two) anchors below it: an object joins the anchor alone below its deepest
    folder that has any (the longest common folder), none when two tie. Without an anchor, one group.
    """
    if not anchors:
        return {others[0]: list(others)} if others else {}
    groups: dict[PurePosixPath, list[PurePosixPath]] = {a: [a] for a in anchors}
    below: dict[PurePosixPath, list[PurePosixPath]] = {}
    for anchor in anchors:
        for folder in anchor.parents:
            held = below.setdefault(folder, [])
            if len(held) < 2:
                held.append(anchor)
    for path in others:
        nearest = next((below[folder] for folder in path.parents if folder in below), [])
        if len(nearest) == 1:
            groups[nearest[0]].append(path)
    return groups


def object_roots(facts: Mapping[PurePosixPath, tuple[set[str], set[str]]]) -> dict[PurePosixPath, set[str]]:
    """Roots by the objects: per package and ``olm.package`` file, the lowest folder of its files.

    That folder is lifted to its parent when named after the package; a root inside another is part of
    the outer one. ``facts``: per file, the packages it declares (``olm.package``) and the others it uses.
    """
    files_of: dict[str, tuple[list[PurePosixPath], list[PurePosixPath]]] = {}
    for path, (declared, used) in sorted(facts.items()):
        for package in declared:
            files_of.setdefault(package, ([], []))[0].append(path)
        for package in used - declared:
            files_of.setdefault(package, ([], []))[1].append(path)
    roots: dict[PurePosixPath, set[str]] = {}
    for package, (anchors, others) in sorted(files_of.items()):
        for members in _groups(anchors, others).values():
            folder = PurePosixPath(posixpath.commonpath([str(m.parent) for m in members]))
            if folder.name == package:
                folder = folder.parent
            roots.setdefault(folder, set()).add(package)
    merged: dict[PurePosixPath, set[str]] = {}
    for folder in sorted(roots, key=lambda f: len(f.parts)):
        outer = next((m for m in (*folder.parents, folder) if m in merged), folder)
        merged.setdefault(outer, set()).update(roots[folder])
    return merged
