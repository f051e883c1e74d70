"""File-based catalog (FBC) wire types, as opm's ``declcfg`` package defines them.

Pure core: no I/O. Every object remembers where it was read; property values and blobs of other schemas
stay parsed JSON values, so they can be re-emitted exactly. Also the catalog as found in a repository:
a fragment (``catalog/v<X.Y>``) and a published bundle blob.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from releasekit.model.finding import Location

__all__ = [
    "MISSING",
    "OrderedValue",
    "PROP_BUNDLE_OBJECT",
    "PROP_CSV_METADATA",
    "PROP_GVK",
    "PROP_PACKAGE",
    "PROPERTY_SHAPES",
    "SCHEMA_BUNDLE",
    "SCHEMA_CHANNEL",
    "SCHEMA_DEPRECATIONS",
    "SCHEMA_PACKAGE",
    "Bundle",
    "Channel",
    "ChannelEntry",
    "DeclarativeConfig",
    "Deprecation",
    "DeprecationEntry",
    "FragmentFacts",
    "Icon",
    "Meta",
    "Package",
    "Property",
    "PublishedBlob",
    "PublishedKey",
    "RelatedImage",
    "JSON_KINDS",
    "json_kind",
]

SCHEMA_PACKAGE = "olm.package"
SCHEMA_CHANNEL = "olm.channel"
SCHEMA_BUNDLE = "olm.bundle"
SCHEMA_DEPRECATIONS = "olm.deprecations"

PROP_PACKAGE = "olm.package"
PROP_GVK = "olm.gvk"
PROP_BUNDLE_OBJECT = "olm.bundle.object"
PROP_CSV_METADATA = "olm.csv.metadata"


_STRING = ("string", "string")
PROPERTY_SHAPES: dict[str, tuple[str, dict[str, tuple[str, str]]]] = {
    "olm.package": ("Package", {"packageName": _STRING, "version": _STRING, "release": _STRING}),
    "olm.gvk": ("GVK", {"group": _STRING, "kind": _STRING, "version": _STRING}),
    "olm.gvk.required": ("GVKRequired", {"group": _STRING, "kind": _STRING, "version": _STRING}),
    "olm.package.required": ("PackageRequired", {"packageName": _STRING, "versionRange": _STRING}),
    "olm.channel": ("Channel", {"channelName": _STRING}),
    "olm.bundle.object": ("BundleObject", {"data": ("string", "[]uint8")}),
    "olm.csv.metadata": (
        "CSVMetadata",
        {
            "annotations": ("map", "map[string]string"),
            "apiServiceDefinitions": ("object", "v1alpha1.APIServiceDefinitions"),
            "crdDescriptions": ("object", "v1alpha1.CustomResourceDefinitions"),
            "description": _STRING,
            "displayName": _STRING,
            "installModes": ("array", "[]v1alpha1.InstallMode"),
            "keywords": ("strings", "[]string"),
            "labels": ("map", "map[string]string"),
            "links": ("array", "[]v1alpha1.AppLink"),
            "maintainers": ("array", "[]v1alpha1.Maintainer"),
            "maturity": _STRING,
            "minKubeVersion": _STRING,
            "nativeAPIs": ("array", "[]v1.GroupVersionKind"),
            "provider": ("object", "v1alpha1.AppLink"),
        },
    ),
}
"""What Go's ``property.Parse`` decodes each known property type into: ``{type: (Go type name, {JSON field:
(JSON kind, Go type)})}``. Kinds are JSON kinds plus ``map`` (an object of strings) and ``strings`` (an array
of strings). As in Go's encoding/json, unknown fields are ignored and field names match case-insensitively."""


JSON_KINDS: dict[type, str] = {  # exact types; json_kind also handles subclasses
    dict: "object",
    list: "array",
    bool: "bool",
    int: "number",
    float: "number",
    str: "string",
    type(None): "null",
}


def json_kind(value: Any) -> str:
    """The JSON kind of a parsed value as Go's encoding/json names it in errors (object, array, ...)."""
    kind = JSON_KINDS.get(type(value))
    if kind is None:  # a subclass (OrderedValue): the kind of its nearest JSON base
        kind = next((JSON_KINDS[base] for base in type(value).__mro__ if base in JSON_KINDS), "null")
    return kind


@dataclass(frozen=True, slots=True, kw_only=True)
class Meta:
    """One decoded blob before typing: its schema/package/name (matched case-insensitively) and data."""

    schema: str
    package: str = ""
    name: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    location: Location = field(default_factory=Location)


class _Missing:
    """Marks a property that had no ``value`` key at all (opm: ``unexpected end of JSON input``)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The value of a property written without ``value``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Property:
    """A ``{type, value}`` property; ``value`` is any JSON value, or :data:`MISSING`.

    ``Property(t, v)`` patterns match positionally although the constructor is keyword-only.
    """

    __match_args__ = ("type", "value")

    type: str
    value: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Icon:
    """A package icon: base64 data (already validated as base64) and media type."""

    base64data: str = ""
    mediatype: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Package:
    """An ``olm.package`` blob."""

    name: str
    default_channel: str = ""
    icon: Icon | None = None
    description: str = ""
    properties: tuple[Property, ...] = ()
    location: Location = field(default_factory=Location)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChannelEntry:
    """One entry of a channel: a bundle name and its incoming upgrade edges."""

    name: str
    replaces: str = ""
    skips: tuple[str, ...] = ()
    skip_range: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Channel:
    """An ``olm.channel`` blob. ``entries`` is ``None`` when the blob had none (opm writes ``null``)."""

    name: str
    package: str
    entries: tuple[ChannelEntry, ...] | None = ()
    properties: tuple[Property, ...] = ()
    location: Location = field(default_factory=Location)

    @property
    def entry_list(self) -> tuple[ChannelEntry, ...]:
        """The entries, empty when there are none."""
        return self.entries or ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RelatedImage:
    """A bundle's related image."""

    name: str = ""
    image: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Bundle:
    """An ``olm.bundle`` blob, with the manifests decoded from its ``olm.bundle.object`` properties."""

    name: str
    package: str
    image: str = ""
    properties: tuple[Property, ...] = ()
    related_images: tuple[RelatedImage, ...] | None = None
    location: Location = field(default_factory=Location)
    objects: tuple[Any, ...] = ()
    csv: Mapping[str, Any] | None = None

    def properties_of(self, type_: str) -> tuple[Property, ...]:
        """Every property of the given type, in order."""
        return tuple(p for p in self.properties if p.type == type_)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeprecationEntry:
    """One deprecation: what it references (schema and, except for packages, name) and the message."""

    schema: str = ""
    name: str = ""
    message: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Deprecation:
    """An ``olm.deprecations`` blob."""

    package: str
    entries: tuple[DeprecationEntry, ...] = ()
    location: Location = field(default_factory=Location)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarativeConfig:
    """A whole loaded catalog, each list in load order (files in lexical order, objects in file order)."""

    packages: tuple[Package, ...] = ()
    channels: tuple[Channel, ...] = ()
    bundles: tuple[Bundle, ...] = ()
    deprecations: tuple[Deprecation, ...] = ()
    others: tuple[Meta, ...] = ()

    def merged(self, other: DeclarativeConfig) -> DeclarativeConfig:
        """This config followed by ``other`` (used to combine several render arguments)."""
        return DeclarativeConfig(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )


class OrderedValue(dict[str, Any]):
    """A JSON object already in Go's marshal order; writers keep its key order (see ``fbc_write.GoOrdered``)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class FragmentFacts:
    """One catalog fragment (``catalog/v<X.Y>``) as found on disk or planned: what the Konflux rules judge.

    ``containerfile`` is None when there is none; ``package_files`` holds ``(package folder, file name,
    displayed path)`` for each file under the FBC root.
    """

    folder: str
    folder_path: str
    containerfile: str | None
    containerfile_path: str = ""
    package_files: tuple[tuple[str, str, str], ...] = ()
    config: DeclarativeConfig = field(default_factory=DeclarativeConfig)


PublishedKey = tuple[str, str, str]
"""``(OpenShift version, package, bundle name)``: one bundle in one catalog."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishedBlob:
    """One ``olm.bundle`` blob of a committed catalog, as :mod:`releasekit.plan.carry` keeps it byte for byte.

    ``text`` is the blob's exact text, ``{`` to ``}``; ``revision`` what it was read from (``HEAD``).
    """

    bundle: Bundle
    text: str
    location: Location
    revision: str = "HEAD"
