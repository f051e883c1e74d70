"""What ``opm render`` does to a catalog after loading it: property order, relatedImages order, migrations.

Pure core, after operator-registry's ``render.go`` and ``migrations``. Levels, in order: ``none``,
``bundle-object-to-csv-metadata`` (a bundle's ``olm.bundle.object`` properties become one
``olm.csv.metadata``, built as Go marshals ``property.CSVMetadata``; skipped without image or CSV).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from releasekit.model.fbc import (
    PROP_BUNDLE_OBJECT,
    PROP_CSV_METADATA,
    Bundle,
    DeclarativeConfig,
    OrderedValue,
    Property,
)
from releasekit.plan.template_basic import field_ci

__all__ = [
    "LEVELS",
    "MigrationError",
    "OrderedValue",
    "build_csv_metadata",
    "migrate",
    "prepare_for_render",
    "stages_for_level",
]

LEVELS: tuple[str, ...] = ("none", "bundle-object-to-csv-metadata")
"""Migration levels, in the order they run (``--migrate-level``)."""


class MigrationError(ValueError):
    """An unknown migration level."""


def stages_for_level(level: str | None) -> int:
    """How many migrations ``--migrate-level LEVEL`` runs (``None`` → none).

    Raises:
        MigrationError: ``unknown migration level "X"``.
    """
    if level is None:
        return 0
    if level not in LEVELS:
        raise MigrationError(f'unknown migration level "{level}"')
    return LEVELS.index(level)


def _reorder(bundle: Bundle) -> Bundle:
    props = bundle.properties
    objs = tuple(p for p in props if p.type in (PROP_BUNDLE_OBJECT, PROP_CSV_METADATA))
    rest = tuple(p for p in props if p.type not in (PROP_BUNDLE_OBJECT, PROP_CSV_METADATA))
    related = bundle.related_images
    if related:
        related = tuple(sorted(related, key=lambda r: r.image))
    if rest + objs == props and related == bundle.related_images:
        return bundle
    return dataclasses.replace(bundle, properties=rest + objs, related_images=related)


def prepare_for_render(config: DeclarativeConfig) -> DeclarativeConfig:
    """Bundle objects/CSV metadata last in each property list, relatedImages sorted by image."""
    return dataclasses.replace(config, bundles=tuple(_reorder(b) for b in config.bundles))


# ------------------------------------------------------------------------------- Go struct marshalling

Convert = Callable[[Any], Any]


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _field(src: Mapping[str, Any], name: str) -> Any:
    return field_ci(src, name)[1]


def _empty(value: Any) -> bool:
    if isinstance(value, OrderedValue):
        return False  # a struct value is never "empty" for omitempty
    return value is None or value is False or value == "" or value == 0 or value == [] or value == {}


def _struct(*fields: tuple[str, Convert, bool]) -> Callable[[Any], OrderedValue]:
    """Marshal a parsed JSON object as a Go struct with these (name, convert, omitempty) fields, in order."""

    def convert(obj: Any) -> OrderedValue:
        src: Mapping[str, Any] = obj if isinstance(obj, Mapping) else {}
        out = OrderedValue()
        for name, conv, omitempty in fields:
            value = conv(_field(src, name))
            if not (omitempty and _empty(value)):
                out[name] = value
        return out

    return convert


def _string_map(v: Any) -> Any:
    if not isinstance(v, Mapping) or not v:
        return None
    return {str(k): _str(x) for k, x in v.items()}


def _list_of(conv: Convert) -> Convert:
    def convert(v: Any) -> Any:
        if not isinstance(v, list):
            return None
        return [conv(item) for item in v]

    return convert


def _raw(v: Any) -> Any:
    return v


def _int(v: Any) -> Any:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _bool(v: Any) -> bool:
    return v is True


_descriptors = _list_of(
    _struct(
        ("path", _str, False),
        ("displayName", _str, True),
        ("description", _str, True),
        ("x-descriptors", _list_of(_str), True),
        ("value", _raw, True),
    )
)
_resource_ref = _struct(("name", _str, False), ("kind", _str, False), ("version", _str, False))
_DESCRIPTION_TAIL: tuple[tuple[str, Convert, bool], ...] = (
    ("displayName", _str, True),
    ("description", _str, True),
    ("resources", _list_of(_resource_ref), True),
    ("statusDescriptors", _descriptors, True),
    ("specDescriptors", _descriptors, True),
    ("actionDescriptors", _descriptors, True),
)
_api_service = _struct(
    ("name", _str, False),
    ("group", _str, False),
    ("version", _str, False),
    ("kind", _str, False),
    ("deploymentName", _str, True),
    ("containerPort", _int, True),
    *_DESCRIPTION_TAIL,
)
_crd = _struct(("name", _str, False), ("version", _str, False), ("kind", _str, False), *_DESCRIPTION_TAIL)
_app_link = _struct(("name", _str, True), ("url", _str, True))
_maintainer = _struct(("name", _str, True), ("email", _str, True))
_install_mode = _struct(("type", _str, False), ("supported", _bool, False))
_gvk = _struct(("group", _str, False), ("version", _str, False), ("kind", _str, False))


def _owned_required(item: Convert) -> Callable[[Any], OrderedValue]:
    return _struct(("owned", _list_of(item), True), ("required", _list_of(item), True))


_CSV_METADATA: tuple[tuple[str, str, str, Convert, bool], ...] = (
    ("annotations", "metadata", "annotations", _string_map, True),
    ("apiServiceDefinitions", "spec", "apiservicedefinitions", _owned_required(_api_service), False),
    ("crdDescriptions", "spec", "customresourcedefinitions", _owned_required(_crd), False),
    ("description", "spec", "description", _str, True),
    ("displayName", "spec", "displayName", _str, True),
    ("installModes", "spec", "installModes", _list_of(_install_mode), True),
    ("keywords", "spec", "keywords", _list_of(_str), True),
    ("labels", "metadata", "labels", _string_map, True),
    ("links", "spec", "links", _list_of(_app_link), True),
    ("maintainers", "spec", "maintainers", _list_of(_maintainer), True),
    ("maturity", "spec", "maturity", _str, True),
    ("minKubeVersion", "spec", "minKubeVersion", _str, True),
    ("nativeAPIs", "spec", "nativeAPIs", _list_of(_gvk), True),
    ("provider", "spec", "provider", _app_link, False),
)
"""``property.CSVMetadata``'s fields in Go's order: (name, CSV section, CSV key, convert, omitempty)."""


def build_csv_metadata(csv: Mapping[str, Any]) -> OrderedValue:
    """The ``olm.csv.metadata`` value opm builds from a CSV (``property.MustBuildCSVMetadata``)."""
    sections = {name: _field(csv, name) for name in ("metadata", "spec")}
    out = OrderedValue()
    for name, section, key, conv, omitempty in _CSV_METADATA:
        source = sections[section]
        value = conv(_field(source if isinstance(source, Mapping) else {}, key))
        if not (omitempty and _empty(value)):
            out[name] = value
    return out


def _to_csv_metadata(bundle: Bundle) -> Bundle:
    if not bundle.image or bundle.csv is None:
        return bundle
    if any(p.type == PROP_CSV_METADATA for p in bundle.properties):
        return bundle
    kept = tuple(p for p in bundle.properties if p.type != PROP_BUNDLE_OBJECT)
    prop = Property(type=PROP_CSV_METADATA, value=build_csv_metadata(bundle.csv))
    return dataclasses.replace(bundle, properties=(*kept, prop))


def migrate(config: DeclarativeConfig, level: str | None) -> DeclarativeConfig:
    """Run the migrations up to and including ``level`` (``None`` or ``"none"``: nothing).

    Raises:
        MigrationError: an unknown level.
    """
    if not stages_for_level(level):
        return config
    return dataclasses.replace(config, bundles=tuple(_to_csv_metadata(b) for b in config.bundles))
