"""Read a catalog tree (``catalog/v<X.Y>/{Containerfile,configs/<package>/catalog.json}``) into fragments.

Adapter module: imports no rules, plans or jobs. One reader, :func:`catalog_fragments`, takes a tree's
files as bytes (read from disk by :func:`read_tree`, built in memory, or taken from a git revision),
loads each fragment's FBC root with :func:`releasekit.io.fbc_load.load_catalog_files` (but the files an
``.indexignore`` excludes, as opm does), and describes the fragment for the Konflux rules. The Kueue FBC
repository's own layout (``v<X.Y>/catalog/<package>/catalog.json`` beside ``Containerfile.catalog``) is
read too, so published catalogs can be checked as they are.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.fbc_load import LoadLimits, LoadResult, indexignore_spec, indexignored, load_catalog_files
from releasekit.io.inputs import inside, read_input, walk_files
from releasekit.model.fbc import DeclarativeConfig, FragmentFacts

__all__ = ["CONTAINERFILES", "FBC_ROOTS", "Fragment", "catalog_fragments", "read_tree"]

FBC_ROOTS = ("configs", "catalog")
CONTAINERFILES = ("Containerfile", "Containerfile.catalog", "Dockerfile")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fragment:
    """One fragment: its facts for the Konflux rules, and its FBC root's name and load (None: it has none)."""

    facts: FragmentFacts
    root: str | None = None
    loaded: LoadResult | None = None


def read_tree(tree: Path) -> dict[PurePosixPath, bytes]:
    """What :func:`catalog_fragments` reads of the tree at ``tree``, by path relative to it.

    Each fragment folder's Containerfile and every file of its FBC root, under the input policy.

    Raises:
        InputError: ``tree`` is not a folder, or a file cannot be read.
        SafetyLimitError: a symbolic link leaving the tree or a root, or a file over the size limit.
    """
    if not tree.is_dir():
        raise InputError(f"{tree}: catalog tree not found (expected a folder of v<X.Y> fragments)")
    tree_real = os.path.realpath(tree)
    files: dict[PurePosixPath, bytes] = {}
    for child in sorted(tree.iterdir()):
        if not child.is_dir() or child.name.startswith("."):
            continue
        if child.is_symlink() and not inside(os.path.realpath(child), tree_real):
            raise SafetyLimitError(
                f"{child}: symlink points outside the catalog tree (to {os.path.realpath(child)}); refusing it"
            )
        paths = [p for p in (child / c for c in CONTAINERFILES) if p.is_file()][:1]
        root = next((child / r for r in FBC_ROOTS if (child / r).is_dir()), None)
        if root is not None:
            paths += walk_files(root, what="the catalog")
        for path in paths:
            data = read_input(path, root=tree, what="the catalog tree")
            files[PurePosixPath(child.name, *path.relative_to(child).parts)] = data
    return files


def catalog_fragments(
    display: str, files: Mapping[PurePosixPath, bytes], limits: LoadLimits | None = None
) -> list[Fragment]:
    """The fragments of a catalog tree's ``files`` (paths relative to the tree, shown under ``display``).

    A fragment is a folder with an FBC root (``configs``, else ``catalog``) or a Containerfile.
    """
    by_folder: dict[str, dict[PurePosixPath, bytes]] = {}
    for rel, data in files.items():
        if len(rel.parts) > 1 and not rel.parts[0].startswith("."):
            by_folder.setdefault(rel.parts[0], {})[PurePosixPath(*rel.parts[1:])] = data
    fragments = []
    for name, held in sorted(by_folder.items()):
        folder = str(PurePosixPath(display, name))
        root = next((r for r in FBC_ROOTS if any(len(p.parts) > 1 and p.parts[0] == r for p in held)), None)
        containerfile = next((c for c in CONTAINERFILES if PurePosixPath(c) in held), None)
        if root is None and containerfile is None:
            continue
        in_root = sorted(
            (p for p in held if p.parts[0] == root and p.name != ".indexignore"), key=lambda p: p.parts
        )
        loaded = None
        if root is not None:
            specs = {
                p.parent: indexignore_spec(held[p])
                for p in held
                if p.name == ".indexignore" and p.parts[0] == root
            }
            read = {f"{folder}/{p}": held[p] for p in in_root if not indexignored(p, specs)}
            loaded = load_catalog_files(read, limits or LoadLimits())
        text = held[PurePosixPath(containerfile)].decode("utf-8", "replace") if containerfile else None
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
        fragments.append(Fragment(facts=facts, root=root, loaded=loaded))
    return fragments
