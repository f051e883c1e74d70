"""Read a committed catalog tree (``catalog/v<X.Y>/{Containerfile,configs/<package>/catalog.json}``).

Adapter module: finds each fragment's Containerfile and FBC root, loads the FBC with
:func:`releasekit.io.fbc_load.load_catalog`, and describes the fragment for the Konflux rules. The
Kueue FBC repository's own layout (``v<X.Y>/catalog/<package>/catalog.json`` beside
``Containerfile.catalog``) is read too, so published catalogs can be checked as they are.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.fbc_load import LoadLimits, LoadResult, load_catalog, load_catalog_files
from releasekit.io.inputs import inside, read_input_text
from releasekit.model.fbc import DeclarativeConfig, FragmentFacts

__all__ = [
    "CONTAINERFILES",
    "FBC_ROOTS",
    "Fragment",
    "find_fragments",
    "fragments_in_memory",
    "package_config",
    "read_fragment",
]

FBC_ROOTS = ("configs", "catalog")
CONTAINERFILES = ("Containerfile", "Containerfile.catalog", "Dockerfile")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fragment:
    """One fragment on disk: its folder, where its FBC root is, what loading found, and its facts."""

    folder: Path
    root: Path | None
    loaded: LoadResult | None
    facts: FragmentFacts


def find_fragments(tree: Path) -> list[Path]:
    """Fragment folders under ``tree``: every sub-folder that has an FBC root or a Containerfile.

    Raises:
        InputError: ``tree`` is not a readable folder.
        SafetyLimitError: a fragment folder is a symbolic link leaving ``tree``.
    """
    if not tree.is_dir():
        raise InputError(f"{tree}: catalog tree not found (expected a folder of v<X.Y> fragments)")
    found = []
    tree_real = os.path.realpath(tree)
    for child in sorted(tree.iterdir()):
        if not child.is_dir() or child.name.startswith("."):
            continue
        if child.is_symlink() and not inside(os.path.realpath(child), tree_real):
            raise SafetyLimitError(
                f"{child}: symlink points outside the catalog tree (to {os.path.realpath(child)}); refusing it"
            )
        if any((child / r).is_dir() for r in FBC_ROOTS) or any((child / c).is_file() for c in CONTAINERFILES):
            found.append(child)
    return found


def read_fragment(folder: Path, limits: LoadLimits | None = None) -> Fragment:
    """Load one fragment folder."""
    limits = limits or LoadLimits()
    root = next((folder / r for r in FBC_ROOTS if (folder / r).is_dir()), None)
    containerfile = next((folder / c for c in CONTAINERFILES if (folder / c).is_file()), None)
    text = None
    if containerfile is not None:
        text = read_input_text(containerfile, root=folder.parent, what="the catalog tree")
    loaded = None
    package_files: list[tuple[str, str, str]] = []
    if root is not None:
        loaded = load_catalog(root, limits)
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.name != ".indexignore":
                rel = path.relative_to(root)
                package = rel.parts[0] if len(rel.parts) == 2 else ""
                package_files.append((package, path.name, str(path)))
    facts = FragmentFacts(
        folder=folder.name,
        folder_path=str(folder),
        containerfile=text,
        containerfile_path=str(containerfile or ""),
        package_files=tuple(package_files),
        config=loaded.config if loaded is not None else DeclarativeConfig(),
    )
    return Fragment(folder=folder, root=root, loaded=loaded, facts=facts)


def fragments_in_memory(display: str, files: Mapping[PurePosixPath, bytes]) -> list[Fragment]:
    """What :func:`find_fragments` and :func:`read_fragment` find in ``files`` written out under ``display``.

    ``files`` are paths relative to the tree (``v4.18/configs/<package>/catalog.json``); nothing is written.
    """
    by_folder: dict[str, dict[PurePosixPath, bytes]] = {}
    for rel, data in files.items():
        if len(rel.parts) > 1 and not rel.parts[0].startswith("."):
            by_folder.setdefault(rel.parts[0], {})[PurePosixPath(*rel.parts[1:])] = data
    fragments = []
    for name, held in sorted(by_folder.items()):
        folder = f"{display}/{name}"
        root = next((r for r in FBC_ROOTS if any(len(p.parts) > 1 and p.parts[0] == r for p in held)), None)
        containerfile = next((c for c in CONTAINERFILES if PurePosixPath(c) in held), None)
        if root is None and containerfile is None:
            continue
        in_root = sorted((p for p in held if root is not None and p.parts[0] == root), key=lambda p: p.parts)
        loaded = load_catalog_files({f"{folder}/{p}": held[p] for p in in_root}) if root else None
        text = held[PurePosixPath(containerfile)].decode("utf-8") if containerfile else None
        facts = FragmentFacts(
            folder=name,
            folder_path=folder,
            containerfile=text.removeprefix("\ufeff") if text is not None else None,
            containerfile_path=f"{folder}/{containerfile}" if containerfile else "",
            package_files=tuple(
                (p.parts[1] if len(p.parts) == 3 else "", p.name, f"{folder}/{p}") for p in in_root
            ),
            config=loaded.config if loaded is not None else DeclarativeConfig(),
        )
        fragments.append(
            Fragment(
                folder=Path(folder), root=Path(folder, root) if root else None, loaded=loaded, facts=facts
            )
        )
    return fragments


def package_config(config: DeclarativeConfig, package: str) -> DeclarativeConfig:
    """The part of ``config`` that belongs to ``package``."""
    return DeclarativeConfig(
        packages=tuple(p for p in config.packages if p.name == package),
        channels=tuple(c for c in config.channels if c.package == package),
        bundles=tuple(b for b in config.bundles if b.package == package),
        deprecations=tuple(d for d in config.deprecations if d.package == package),
    )
