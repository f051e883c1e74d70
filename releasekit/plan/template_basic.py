"""The ``olm.template.basic`` catalog template, as opm's ``alpha/template/basic`` renders it.

Pure core. The template is ``{schema: olm.template.basic, entries: [<FBC objects>]}``; every
``olm.bundle`` entry must be only a reference (schema + image, a name is tolerated: no package,
properties or relatedImages) and is replaced by the bundle(s) the injected ``resolve(image)`` returns;
everything else passes through untouched. The output is not validated (run ``catalog validate``).

Template detection (``schema`` of the first document picks the type) lives here too, with opm's texts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from releasekit.model.fbc import Bundle, DeclarativeConfig

__all__ = [
    "BASIC_SCHEMA",
    "SCHEMAS",
    "Resolver",
    "TemplateRenderError",
    "basic_entries",
    "detect_template_type",
    "field_ci",
    "render_basic",
]

BASIC_SCHEMA = "olm.template.basic"
SCHEMAS: dict[str, str] = {
    "olm.template.basic": "basic",
    "olm.semver": "semver",
    "olm.template.substitutes": "substitutes",
}
"""Registered template schemas → type (the last dot-separated part, as opm's registry names them)."""

Resolver = Callable[[str], Sequence[Bundle]]
"""Renders one bundle image to its bundle(s) (opm's ``BundleRenderer``)."""


class TemplateRenderError(ValueError):
    """The template cannot be rendered; the message is opm's own text where opm has one."""


def field_ci(obj: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    """Go's case-insensitive struct field lookup: exact key first, then a key equal ignoring case."""
    if name in obj:
        return True, obj[name]
    low = name.lower()
    for key, value in obj.items():
        if isinstance(key, str) and key.lower() == low:
            return True, value
    return False, None


def detect_template_type(doc: Any) -> str:
    """The template type named by the document's ``schema`` (opm ``alpha/template/schema.go``)."""
    schema: Any = None
    if isinstance(doc, Mapping):
        _found, schema = field_ci(doc, "schema")
    if not isinstance(schema, str) or not schema:
        raise TemplateRenderError("template input missing required 'schema' field")
    kind = SCHEMAS.get(schema)
    if kind is None:
        raise TemplateRenderError(f"unknown template schema: {schema}")
    return kind


def basic_entries(doc: Any) -> list[Any]:
    """The ``entries`` of a basic template, after opm's schema check."""
    if not isinstance(doc, Mapping):
        raise TemplateRenderError(
            "unmarshalling template: json: cannot unmarshal value into Go value of type basic.BasicTemplate"
        )
    _found, schema = field_ci(doc, "schema")
    if schema != BASIC_SCHEMA:
        shown = schema if isinstance(schema, str) else ""
        raise TemplateRenderError(f'template has unknown schema ("{shown}"), should be "{BASIC_SCHEMA}"')
    _found, entries = field_ci(doc, "entries")
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise TemplateRenderError(
            "unmarshalling template: json: cannot unmarshal value into Go struct field "
            "BasicTemplate.entries of type []*declcfg.Meta"
        )
    return entries


def _is_reference(bundle: Bundle) -> bool:
    return bool(bundle.image) and not bundle.package and not bundle.properties and not bundle.related_images


def render_basic(entries: DeclarativeConfig, resolve: Resolver) -> DeclarativeConfig:
    """Replace every bundle reference by what ``resolve(image)`` returns.

    Raises:
        TemplateRenderError: ``unexpected fields present in basic template bundle``.
    """
    bundles: list[Bundle] = []
    for bundle in entries.bundles:
        if not _is_reference(bundle):
            raise TemplateRenderError("unexpected fields present in basic template bundle")
        bundles.extend(resolve(bundle.image))
    return dataclasses.replace(entries, bundles=tuple(bundles))
