"""Where the catalogs live in a repository: the output layout ``releasekit.yaml`` configures. Pure core.

Default: ``catalog/v<X.Y>/configs/<package>/catalog.json`` beside ``catalog/v<X.Y>/Containerfile``, the
whole tree releasekit's. ``kueue-fbc``: ``v<X.Y>/catalog/<package>/catalog.json`` beside
``v<X.Y>/Containerfile.catalog``; releasekit owns only those files there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["DEFAULT_LAYOUT", "KUEUE_FBC_LAYOUT", "LAYOUTS", "CatalogLayout", "is_fragment"]

_FRAGMENT = re.compile(r"v[0-9]+\.[0-9]+")


def is_fragment(name: str) -> bool:
    """Whether ``name`` is a fragment folder's name, ``v<X.Y>`` (``vendor`` or ``values.yaml`` is not)."""
    return _FRAGMENT.fullmatch(name) is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogLayout:
    """Paths of the catalog tree.

    ``owns_tree``: True writes the tree under ``root`` as one atomic swap (files releasekit no longer
    generates are removed); False writes file by file and removes nothing. Either way only files the
    marker ``.releasekit-generated`` lists are ever replaced or removed.
    """

    name: str = "releasekit"
    root: str = "catalog"
    fbc_dir: str = "configs"
    containerfile: str = "Containerfile"
    owns_tree: bool = True

    def catalog_file(self, openshift: str, package: str) -> PurePosixPath:
        """``v4.18/configs/<package>/catalog.json``, relative to :attr:`root`."""
        return PurePosixPath(openshift, self.fbc_dir, package, "catalog.json")

    def containerfile_path(self, openshift: str) -> PurePosixPath:
        """``v4.18/Containerfile``, relative to :attr:`root`."""
        return PurePosixPath(openshift, self.containerfile)

    def catalog_key(self, rel: PurePosixPath) -> tuple[str, str] | None:
        """``(openshift, package)`` of a file of a package catalog (relative to :attr:`root`), else None."""
        parts = rel.parts
        if len(parts) == 4 and parts[1] == self.fbc_dir and is_fragment(parts[0]):
            return (parts[0], parts[2])
        return None

    def owns(self, rel: PurePosixPath) -> bool:
        """True for a fragment folder, or for a catalog.json or a Containerfile releasekit writes in one."""
        parts = rel.parts
        if len(parts) == 1:
            return is_fragment(parts[0])
        if len(parts) == 2 and parts[1] == self.containerfile and is_fragment(parts[0]):
            return True
        return self.catalog_key(rel) is not None and parts[-1] == "catalog.json"


DEFAULT_LAYOUT = CatalogLayout()
KUEUE_FBC_LAYOUT = CatalogLayout(
    name="kueue-fbc", root=".", fbc_dir="catalog", containerfile="Containerfile.catalog", owns_tree=False
)
LAYOUTS = {layout.name: layout for layout in (DEFAULT_LAYOUT, KUEUE_FBC_LAYOUT)}
"""The presets ``releasekit.yaml`` (``layout:``) and ``catalog adopt --layout`` name."""
