"""Resolve bundle images from local files, standing in for opm pulling each bundle image.

Adapter module. ``catalog template ... --bundles DIR`` hands the templates :meth:`BundleSource.resolve`
(opm's injected ``BundleRenderer``). Under ``DIR``, a folder with ``manifests/`` and ``metadata/`` is a
registry+v1 bundle: an image resolves to it when the image's tag (or last path part) equals the folder
name, the CSV name, or the CSV version with or without ``v``; every other file is FBC whose ``olm.bundle``
objects resolve their own ``image``. Also reads template files and bundle folders for ``catalog render``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from releasekit.errors import InputError
from releasekit.io.bundle_load import load_bundle_root
from releasekit.io.fbc_load import decode_metas, load_catalog_text
from releasekit.io.inputs import read_input, read_input_text, walk_files
from releasekit.io.yamlio import YamlContentError, iter_yaml_documents
from releasekit.model.bundle_ids import YAML_INVALID
from releasekit.model.fbc import Bundle, DeclarativeConfig, Meta

__all__ = [
    "BundleFiles",
    "BundleRenderer",
    "BundleSource",
    "UnresolvedImageError",
    "config_from_entries",
    "is_bundle_dir",
    "load_bundle_source",
    "read_bundle_dir",
    "read_first_document",
]


class UnresolvedImageError(InputError):
    """A bundle image that no bundle directory or ``olm.bundle`` object under ``--bundles`` provides."""


def is_bundle_dir(path: Path) -> bool:
    """True for a folder with ``manifests/`` and ``metadata/`` subfolders (opm's ``isBundle``)."""
    return (path / "manifests").is_dir() and (path / "metadata").is_dir()


def read_first_document(path: Path) -> Any:
    """The first YAML/JSON document of a template file (opm reads only that one).

    Raises:
        InputError: the file cannot be read or parsed.
    """
    text = read_input_text(path, what="the template's folder")
    try:
        docs = iter_yaml_documents(text, track_paths=False, source=str(path))
        return next((doc.data for doc in docs if doc.data is not None), None)
    except YamlContentError as exc:
        raise InputError(f"{path}:{exc.line or 1}: {exc.message}") from None


def config_from_entries(entries: Sequence[Any], where: str) -> tuple[DeclarativeConfig, list[str]]:
    """Type a list of FBC objects (a basic template's ``entries``); returns the config and load errors."""
    if not entries:
        return DeclarativeConfig(), []
    metas, findings = load_catalog_text("\n".join(json.dumps(e) for e in entries).encode("utf-8"), where)
    config, decode_findings = decode_metas(metas)
    return config, [f.message for f in (*findings, *decode_findings)]


@dataclass(frozen=True, slots=True)
class BundleFiles:
    """What a registry+v1 bundle directory holds, parsed: its manifests and its metadata documents."""

    path: Path
    objects: tuple[Any, ...]
    annotations: Any
    dependencies: Any
    properties: Any


BundleRenderer = Callable[[BundleFiles, str], Bundle]
"""The job's renderer of a bundle directory and its image (``""`` when unknown) into an ``olm.bundle``."""


def read_bundle_dir(path: Path) -> BundleFiles:
    """Read one registry+v1 bundle directory as ``bundle validate`` does (:func:`load_bundle_root`).

    Raises:
        InputError: a manifest or metadata file cannot be read or parsed.
    """
    bundle = load_bundle_root(path)
    broken = next((f for f in bundle.load_findings if f.rule == YAML_INVALID), None)
    if broken is not None:
        raise InputError(f"{broken.location}: {broken.message}")
    manifests = sorted(bundle.all_manifests, key=lambda manifest: manifest.file)
    return BundleFiles(
        path=path,
        objects=tuple(manifest.data for manifest in manifests if manifest.data),
        annotations=bundle.annotation_values,
        dependencies=bundle.dependencies.data["dependencies"] if bundle.dependencies else [],
        properties=bundle.properties.data["properties"] if bundle.properties else [],
    )


def _image_keys(image: str) -> set[str]:
    """Names a bundle directory may carry for ``image``: its tag, or its last path part."""
    last = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return {key for key in (last, *last.rsplit(":", 1)) if key}


@dataclass(slots=True)
class BundleSource:
    """Bundles found under ``--bundles``: FBC ``olm.bundle`` objects by image, and bundle directories."""

    root: Path
    render: BundleRenderer
    by_image: dict[str, list[Bundle]] = field(default_factory=dict)
    bundle_dirs: list[Path] = field(default_factory=list)
    _dir_keys: dict[Path, set[str]] = field(default_factory=dict)

    def resolve(self, image: str) -> list[Bundle]:
        """The bundles ``image`` renders to.

        Raises:
            UnresolvedImageError: nothing under the root provides ``image``.
        """
        found = self.by_image.get(image)
        if found:
            return list(found)
        keys = _image_keys(image)
        for directory in self.bundle_dirs:
            if keys & self._keys_for(directory):
                return [self.render(read_bundle_dir(directory), image)]
        raise UnresolvedImageError(
            f'cannot resolve bundle image "{image}": no olm.bundle object with this image and no bundle '
            f"directory matching it under {self.root} (searched {sum(map(len, self.by_image.values()))} "
            f"olm.bundle objects and {len(self.bundle_dirs)} bundle directories)"
        )

    def _keys_for(self, directory: Path) -> set[str]:
        if directory not in self._dir_keys:  # the folder name, the CSV name, the version with or without v
            bundle = self.render(read_bundle_dir(directory), "")
            keys = self._dir_keys[directory] = {directory.name, bundle.name}
            for prop in bundle.properties:
                if prop.type == "olm.package" and isinstance(prop.value, dict):
                    keys.update({str(prop.value.get("version", "")), f"v{prop.value.get('version', '')}"})
        return self._dir_keys[directory]


def load_bundle_source(root: Path, render: BundleRenderer) -> BundleSource:
    """Index every bundle directory and every ``olm.bundle`` object under ``root``.

    ``render`` turns a bundle directory into its ``olm.bundle`` when an image resolves to it.

    Raises:
        InputError: ``root`` is missing or not a folder, or a file cannot be read.
    """
    source = BundleSource(root=root, render=render)
    is_bundle = functools.cache(is_bundle_dir)
    metas: list[Meta] = []
    for file in walk_files(root, what="--bundles"):
        folders = [root / folder for folder in reversed(file.relative_to(root).parents)]
        home = next((folder for folder in folders if is_bundle(folder)), None)
        if home is not None:  # read when an image resolves to it (its files come one after another)
            if source.bundle_dirs[-1:] != [home]:
                source.bundle_dirs.append(home)
        elif file.name != ".indexignore":
            data = read_input(file, root=root, what="--bundles")
            metas.extend(m for m in load_catalog_text(data, str(file))[0] if m.schema == "olm.bundle")
    config, _ = decode_metas(metas)
    for bundle in config.bundles:
        if bundle.image:
            source.by_image.setdefault(bundle.image, []).append(bundle)
    return source
