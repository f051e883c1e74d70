"""File-based catalog (FBC) wire types, as opm's ``declcfg`` package defines them.

Pure core. These mirror the file format one to one (``olm.package``, ``olm.channel``, ``olm.bundle``,
``olm.deprecations`` and opaque blobs of any other schema); every object remembers where it was read
(:class:`~releasekit.model.finding.Location`). Property values and unknown blobs are kept as parsed JSON
values (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``) so they can be re-emitted exactly.

The upgrade-graph model built on top of these lives in the rules; these types carry no behaviour
beyond small accessors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from releasekit.model.finding import Location

__all__ = [
    "MISSING",
    "PROP_BUNDLE_OBJECT",
    "PROP_CSV_METADATA",
    "PROP_GVK",
    "PROP_PACKAGE",
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
    "Icon",
    "Meta",
    "Package",
    "Property",
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
    if kind is not None:
        return kind
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null"


@dataclass(frozen=True, slots=True, kw_only=True)
class Meta:
    """One decoded blob before typing: its schema/package/name (matched case-insensitively) and data.

    ``data`` is the whole object as parsed; ``location`` is the file and the line the object starts on.
    """

    schema: str
    package: str = ""
    name: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    location: Location = field(default_factory=Location)


class _Missing:
    """Marks a property that had no ``value`` key at all (opm: ``unexpected end of JSON input``)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The value of a property written without ``value``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Property:
    """A ``{type, value}`` property; ``value`` is any JSON value, or :data:`MISSING`."""

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
    """An ``olm.bundle`` blob, with the manifests decoded from its ``olm.bundle.object`` properties.

    ``objects`` are the decoded manifests (JSON values) in property order; ``csv`` is the first of them
    whose kind is ``ClusterServiceVersion``.
    """

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
            packages=self.packages + other.packages,
            channels=self.channels + other.channels,
            bundles=self.bundles + other.bundles,
            deprecations=self.deprecations + other.deprecations,
            others=self.others + other.others,
        )
