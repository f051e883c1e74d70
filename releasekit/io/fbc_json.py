"""The fast path for JSON catalog files: typed decoding in C, property values kept unparsed.

Adapter module, used by :mod:`releasekit.io.fbc_load`. A JSON stream file is first proven *exact*: every
object parses with msgspec to what the json module gives, with no duplicate key at any level
(:func:`is_exact`). Then msgspec decodes each object straight into structs shaped like
opm's ``declcfg`` types, accepting only exactly spelled field names of the right JSON kinds; property values
stay JSON text (parsed on first read, :func:`load_json`), so a check that never reads a bundle's
``olm.csv.metadata`` never builds it. Known property types are checked against
:data:`~releasekit.model.fbc.PROPERTY_SHAPES` by msgspec as well (``shape_verified``).

Anything the structs do not take — another schema, a field spelled in another case, a ``null`` where opm
reads a zero value, a wrong type — is handed back as :class:`Fallback` (the parsed object and its line) for
the exact path, which gives opm's messages. A file that is not exact is not decoded here at all (``None``).
Both paths give the same objects, lines and findings; only the time and memory differ.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from releasekit.model.fbc import (
    MISSING,
    PROPERTY_SHAPES,
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Icon,
    Package,
    Property,
    RelatedImage,
)
from releasekit.model.finding import Location

__all__ = [
    "Decoded",
    "Fallback",
    "Span",
    "decode_exact_stream",
    "exact_object",
    "is_exact",
    "load_json",
    "object_spans",
]

# A newline cannot occur inside a JSON string, so "}", blanks with a newline, "{" is always the border
# between two top-level objects of a valid stream.
OBJECT_BORDER = re.compile(rb"\}[ \t\r]*\n[ \t\r\n]*\{")
_BLANKS = b" \t\r\n"

Span = tuple[int, int, int]
"""One object of a JSON stream: its start and end byte offsets and the 1-based line it starts on."""


def object_spans(data: bytes) -> list[Span] | None:
    """Each object of a JSON stream, cut at the borders (:data:`OBJECT_BORDER`), with its first line.

    ``None`` unless the first non-blank byte is ``{`` (then the file is YAML, or starts with a BOM). The
    last span runs to the end of the data.
    """
    return _line_spans(data) or _border_spans(data)


def _border_spans(data: bytes) -> list[Span] | None:
    index = len(data) - len(data.lstrip(_BLANKS))
    if data[index : index + 1] != b"{":
        return None
    spans: list[Span] = []
    start, line, counted = index, 1, 0
    count = data.count
    for border in OBJECT_BORDER.finditer(data, index):
        line += count(b"\n", counted, start)
        spans.append((start, border.start() + 1, line))
        counted = start
        start = border.end() - 1
    spans.append((start, len(data), line + count(b"\n", counted, start)))
    return spans


def _line_spans(data: bytes) -> list[Span] | None:
    r"""The spans of a stream written one object per line, found with ``bytes.find`` alone.

    That is how JSON-lines writers and the synthetic benchmark write it; ``None`` for any other layout.

    Every line must be empty or start with ``{`` and end with ``}`` (or ``}\r``): a JSON string holds
    no newline, so each newline between two such lines is a border and no other border exists. The
    result equals :func:`_border_spans`'s.
    """
    spans: list[Span] = []
    find, size = data.find, len(data)
    position, line = 0, 1
    while position < size:
        newline = find(b"\n", position)
        end = size if newline < 0 else newline
        if end > position:
            last = end - 1
            if data[last] == 0x0D:  # "\r"
                last -= 1
            if data[position] != 0x7B or last <= position or data[last] != 0x7D:  # "{" ... "}"
                return None
            spans.append((position, last + 1, line))
        position = end + 1
        line += 1
    if not spans:
        return None
    first, _end, first_line = spans[-1]
    spans[-1] = (first, size, first_line)  # the last span runs to the end, as at a border
    return spans


def is_exact(data: bytes, spans: list[Span]) -> bool:
    """True when each span is one object :func:`exact_object` takes.

    This parses everything once and keeps nothing; :func:`decode_exact_stream` relies on it.
    """
    return all(exact_object(data, start, end) is not None for start, end, _line in spans)


def exact_object(data: bytes, start: int = 0, end: int | None = None) -> dict[str, Any] | None:
    r"""The object ``data[start:end]`` holds, when msgspec parses it to what the json module gives.

    Else ``None``.

    msgspec gives the json module's values (integers of any size, floats correctly rounded) and refuses
    what it would give differently (``NaN``, lone surrogates, ``1e400``); what remains is duplicate keys,
    which both keep the last of. The object is re-encoded: when that gives its very text back (compact
    JSON as msgspec writes it, the usual shape of a machine-written stream), no key was lost. Otherwise
    keys are counted: the text has one colon per key plus those inside strings (written ``:`` or
    ``\u003a``), the re-encoding one per surviving key plus the same string colons, so a lost key always
    makes the two differ.
    """
    end = len(data) if end is None else end
    try:
        value = _ANY.decode(memoryview(data)[start:end])
    except msgspec.DecodeError:
        return None
    if type(value) is not dict:
        return None
    encoded = msgspec.json.encode(value)
    stop = start + len(encoded)
    if stop <= end and data.startswith(encoded, start) and (stop == end or not data[stop:end].strip(_BLANKS)):
        return value  # the text is its own re-encoding: nothing was lost
    colons = data.count(b":", start, end)
    if data.find(b"\\u003", start, end) >= 0:
        colons += data.count(b"\\u003a", start, end) + data.count(b"\\u003A", start, end)
    return value if encoded.count(b":") == colons else None


_ANY = msgspec.json.Decoder()


# ------------------------------------------------------------------------------------- typed decoding


def load_json(raw: msgspec.Raw) -> Any:
    """A property value kept as JSON text, parsed as the json module parses it.

    msgspec agrees with the json module on text :func:`is_exact` accepted (it parsed this text already);
    should msgspec ever refuse it, the json module decides.
    """
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:  # pragma: no cover - not reached for exact text
        import json

        return json.loads(bytes(raw))


class _Prop(msgspec.Struct, forbid_unknown_fields=True):
    type: str = ""
    value: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


class _Icon(msgspec.Struct, forbid_unknown_fields=True):
    base64data: str = ""
    mediatype: str = ""


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    name: str = ""
    replaces: str = ""
    skips: list[str] = []
    skipRange: str = ""  # noqa: N815 - the JSON field name


class _Related(msgspec.Struct, forbid_unknown_fields=True):
    name: str = ""
    image: str = ""


class _Reference(msgspec.Struct, forbid_unknown_fields=True):
    schema: str = ""
    name: str = ""


class _DeprecationEntry(msgspec.Struct, forbid_unknown_fields=True):
    reference: _Reference | None = None
    message: str = ""


class _Package(msgspec.Struct, tag_field="schema", tag="olm.package", forbid_unknown_fields=True):
    name: str = ""
    defaultChannel: str = ""  # noqa: N815
    icon: _Icon | None = None
    description: str = ""
    properties: list[_Prop] = []


class _Channel(msgspec.Struct, tag_field="schema", tag="olm.channel", forbid_unknown_fields=True):
    name: str = ""
    package: str = ""
    entries: list[_Entry] | None = None
    properties: list[_Prop] = []


class _Bundle(msgspec.Struct, tag_field="schema", tag="olm.bundle", forbid_unknown_fields=True):
    name: str = ""
    package: str = ""
    image: str = ""
    properties: list[_Prop] = []
    relatedImages: list[_Related] | None = None  # noqa: N815


class _Deprecation(msgspec.Struct, tag_field="schema", tag="olm.deprecations", forbid_unknown_fields=True):
    package: str = ""
    entries: list[_DeprecationEntry] = []


_KIND_TYPES: dict[str, Any] = {
    "string": str | None,
    "object": dict[str, msgspec.Raw] | None,
    "array": list[msgspec.Raw] | None,
    "map": dict[str, str | None] | None,
    "strings": list[str | None] | None,
}


_SHAPE_TYPES = {
    type_: msgspec.defstruct(
        f"_{struct}Shape",
        [(name, _KIND_TYPES[kind], None) for name, (kind, _) in fields.items()],
        forbid_unknown_fields=True,
    )
    | None
    for type_, (struct, fields) in PROPERTY_SHAPES.items()
}


_RAW = msgspec.Raw
_BLOB = msgspec.json.Decoder(_Package | _Channel | _Bundle | _Deprecation).decode
_SHAPES = {type_: msgspec.json.Decoder(shape).decode for type_, shape in _SHAPE_TYPES.items()}


def _properties(props: list[_Prop]) -> tuple[Property, ...]:
    out: list[Property] = []
    append, deferred, shapes, load = out.append, Property.deferred, _SHAPES, load_json
    for prop in props:
        raw, type_ = prop.value, prop.type
        if type(raw) is not _RAW:  # UNSET: the property had no value at all
            append(Property(type=type_, value=MISSING))
            continue
        check = shapes.get(type_)
        verified = True  # a type PROPERTY_SHAPES does not list takes any value that is there
        if check is not None:
            try:
                check(raw)
            except msgspec.ValidationError:
                verified = False  # the rules parse it and say what is wrong, in opm's words
        append(deferred(type_, raw, load, verified))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Fallback:
    """A document the structs did not take: its parsed value and line, for the exact path.

    ``empty`` marks a YAML document with no content (a blank or comment-only document, or a stray ``---``).
    """

    value: Any
    line: int
    empty: bool = False


Decoded = Package | Channel | Bundle | Deprecation | Fallback


# Tens of thousands of model objects are made per catalog, and a frozen dataclass's __init__ (keyword
# arguments, object.__setattr__ per field) costs about twice what setting its slots directly does. The
# factories below do the latter, for classes whose fields are exactly the ones named (checked when this
# module loads, so a field added to the model fails loudly instead of being left unset) and that have no
# __post_init__. The objects are equal to what the constructors give; the equivalence tests compare them.


def _slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Callable[[Any, Any], None], ...]:
    fields = tuple(field.name for field in dataclasses.fields(cls))
    if fields != names or hasattr(cls, "__post_init__") or "__slots__" not in vars(cls):
        raise TypeError(f"{cls.__name__} has fields {fields}; the fast-path factories set {names}")
    return tuple(vars(cls)[name].__set__ for name in names)


_new = object.__new__
_set_file, _set_line, _set_path = _slot_setters(Location, ("file", "line", "path"))
_set_ri_name, _set_ri_image = _slot_setters(RelatedImage, ("name", "image"))
_set_ce_name, _set_ce_replaces, _set_ce_skips, _set_ce_range = _slot_setters(
    ChannelEntry, ("name", "replaces", "skips", "skip_range")
)
_BUNDLE_SETTERS = _slot_setters(
    Bundle, ("name", "package", "image", "properties", "related_images", "location", "objects", "csv")
)


def _location(file: str, line: int) -> Location:
    obj = _new(Location)
    _set_file(obj, file)
    _set_line(obj, line)
    _set_path(obj, "")
    return obj


def _related(item: _Related) -> RelatedImage:
    obj = _new(RelatedImage)
    _set_ri_name(obj, item.name)
    _set_ri_image(obj, item.image)
    return obj


def _entry(item: _Entry) -> ChannelEntry:
    obj = _new(ChannelEntry)
    _set_ce_name(obj, item.name)
    _set_ce_replaces(obj, item.replaces)
    _set_ce_skips(obj, tuple(item.skips))
    _set_ce_range(obj, item.skipRange)
    return obj


def _bundle(blob: _Bundle, properties: tuple[Property, ...], location: Location) -> Bundle:
    obj = _new(Bundle)
    values = (
        blob.name,
        blob.package,
        blob.image,
        properties,
        None if blob.relatedImages is None else tuple([_related(item) for item in blob.relatedImages]),
        location,
        (),
        None,
    )
    for set_, value in zip(_BUNDLE_SETTERS, values, strict=True):
        set_(obj, value)
    return obj


def _typed(blob: Any, location: Location) -> Package | Channel | Bundle | Deprecation | None:
    if type(blob) is _Bundle:
        return _bundle(blob, _properties(blob.properties), location)
    if type(blob) is _Channel:
        return Channel(
            name=blob.name,
            package=blob.package,
            entries=None if blob.entries is None else tuple([_entry(item) for item in blob.entries]),
            properties=_properties(blob.properties),
            location=location,
        )
    if type(blob) is _Package:
        icon = None
        if blob.icon is not None:
            try:
                base64.b64decode(blob.icon.base64data.replace("\n", "").replace("\r", ""), validate=True)
            except (binascii.Error, ValueError):
                return None  # the exact path words the error as opm does
            icon = Icon(base64data=blob.icon.base64data, mediatype=blob.icon.mediatype)
        return Package(
            name=blob.name,
            default_channel=blob.defaultChannel,
            icon=icon,
            description=blob.description,
            properties=_properties(blob.properties),
            location=location,
        )
    assert type(blob) is _Deprecation
    return Deprecation(
        package=blob.package,
        entries=tuple(
            DeprecationEntry(
                schema=e.reference.schema if e.reference is not None else "",
                name=e.reference.name if e.reference is not None else "",
                message=e.message,
            )
            for e in blob.entries
        ),
        location=location,
    )


def _decode(piece: Any, line: int, file: str) -> Decoded:
    try:
        blob = _BLOB(piece)
    except msgspec.DecodeError:  # includes ValidationError: not a shape the structs take
        blob = None
    item = None if blob is None else _typed(blob, _location(file, line))
    return Fallback(_ANY.decode(piece), line) if item is None else item


def decode_exact_stream(data: bytes, spans: list[Span], file: str) -> list[Decoded] | None:
    """Decode the objects of a stream, each typed or as a :class:`Fallback`.

    The result is right only for an exact stream (:func:`is_exact`), and is ``None`` when a piece does
    not even parse.
    """
    view = memoryview(data)
    out: list[Decoded] = []
    try:
        for start, end, line in spans:
            out.append(_decode(view[start:end], line, file))
    except msgspec.DecodeError:
        return None  # not exact after all
    return out
