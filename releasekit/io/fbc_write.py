r"""Write a file-based catalog exactly as ``opm render`` does (JSON stream or YAML documents).

Adapter module, but pure: :func:`render_json` and :func:`render_yaml` build the text in memory and
return it; nothing here opens a file. What opm does, and what this module reproduces byte for byte:

- blob order (``declcfg.writeToEncoder``): per package name in sorted order its ``olm.package`` blobs
  (input order), channels sorted by name (entries keep their order), bundles sorted by name, other-schema
  blobs stable-sorted by schema, deprecations; then the other-schema blobs that have no package. Any
  package/channel/bundle/deprecation whose package is ``""`` is dropped, as opm drops it.
- typed blobs keep Go struct field order and ``omitempty`` (``defaultChannel``, channel ``entries`` and
  bundle ``image`` are always written); every other JSON object has its keys sorted, because opm
  re-encodes each blob from a ``map[string]interface{}`` when it loads it. A :class:`GoOrdered` dict
  (what a migration builds from Go structs) keeps its order.
- JSON (``encoding/json`` with ``SetIndent("", "    ")`` and HTML escaping off): every number is a
  float64 printed as Go prints it (integers below 2^53 as integers, ``1e+21``, ``1e-7``), ``\b``/``\f``
  short escapes, other controls as ``\u00XX``, U+2028/U+2029 escaped, lone surrogates become U+FFFD.
- YAML (``sigs.k8s.io/yaml.JSONToYAML`` → go-yaml v2): ``---`` before each blob, then the document
  go-yaml writes, through libyaml's emitter (see the YAML section below).
"""

from __future__ import annotations

import base64
import functools
import json
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

import yaml

from releasekit.model.fbc import (
    MISSING,
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    DeclarativeConfig,
    Deprecation,
    OrderedValue,
    Package,
    Property,
)

__all__ = [
    "GoOrdered",
    "WriteError",
    "blobs_in_render_order",
    "go_json_number",
    "go_json_string",
    "render",
    "render_json",
    "render_yaml",
    "yaml_key_less",
]


class WriteError(ValueError):
    """A value that opm could not write either (NaN/Inf, a number beyond float64)."""


GoOrdered = OrderedValue
"""A JSON object whose keys are already in the order Go writes them (a marshalled struct)."""


# ----------------------------------------------------------------------------------------- blobs


def _prop(p: Property) -> GoOrdered:
    return GoOrdered(type=p.type, value=None if p.value is MISSING else p.value)


def _reencode_base64(data: str) -> str:
    """Decode and re-encode as Go's ``[]byte`` JSON field does (standard alphabet, no newlines)."""
    try:
        raw = base64.b64decode(data.replace("\n", "").replace("\r", ""), validate=True)
    except ValueError:
        return data
    return base64.b64encode(raw).decode("ascii")


def _present(**fields: Any) -> dict[str, Any]:
    """The fields Go's ``omitempty`` writes: the non-empty ones, in order."""
    return {key: value for key, value in fields.items() if value}


def _package_blob(p: Package) -> GoOrdered:
    icon = p.icon and GoOrdered(base64data=_reencode_base64(p.icon.base64data), mediatype=p.icon.mediatype)
    return GoOrdered(
        schema=SCHEMA_PACKAGE,
        name=p.name,
        defaultChannel=p.default_channel,
        **_present(icon=icon, description=p.description, properties=[_prop(x) for x in p.properties]),
    )


def _channel_blob(c: Channel) -> GoOrdered:
    entries = None
    if c.entries is not None:
        entries = [
            GoOrdered(
                name=e.name, **_present(replaces=e.replaces, skips=list(e.skips), skipRange=e.skip_range)
            )
            for e in c.entries
        ]
    return GoOrdered(
        schema=SCHEMA_CHANNEL,
        name=c.name,
        package=c.package,
        entries=entries,
        **_present(properties=[_prop(x) for x in c.properties]),
    )


def _bundle_blob(b: Bundle) -> GoOrdered:
    return GoOrdered(
        schema=SCHEMA_BUNDLE,
        **_present(name=b.name, package=b.package),
        image=b.image,
        **_present(
            properties=[_prop(x) for x in b.properties],
            relatedImages=[GoOrdered(name=r.name, image=r.image) for r in b.related_images or ()],
        ),
    )


def _deprecation_blob(d: Deprecation) -> GoOrdered:
    entries = [
        GoOrdered(reference=GoOrdered(schema=e.schema, **_present(name=e.name)), message=e.message)
        for e in d.entries
    ]
    return GoOrdered(schema=SCHEMA_DEPRECATIONS, package=d.package, entries=entries or None)


def blobs_in_render_order(config: DeclarativeConfig) -> list[Mapping[str, Any]]:
    """Every blob of ``config`` as a JSON value, in the order ``opm render`` writes them."""
    keyed = sorted(  # (package, kind, name or schema): a stable sort keeps load order within a key
        [
            *((p.name, 0, "", _package_blob(p)) for p in config.packages),
            *((c.package, 1, c.name, _channel_blob(c)) for c in config.channels),
            *((b.package, 2, b.name, _bundle_blob(b)) for b in config.bundles),
            *((o.package, 3, o.schema, o.data) for o in config.others),
            *((d.package, 4, "", _deprecation_blob(d)) for d in config.deprecations),
        ],
        key=lambda item: item[:3],
    )
    return [blob for package, _, _, blob in keyed if package] + [
        o.data for o in config.others if not o.package
    ]


# ----------------------------------------------------------------------------------------- numbers


def go_json_number(value: int | float) -> str:
    """A number as Go's ``encoding/json`` writes the float64 it becomes (``%e`` below 1e-6 and from 1e21)."""
    if isinstance(value, int) and -(2**53) <= value <= 2**53:
        return str(value)
    try:
        f = float(value)
    except OverflowError:
        digits = int(abs(int(value)).bit_length() * 0.30103) + 1  # str() of it may pass Python's digit limit
        raise WriteError(
            f"json: unsupported value: a number of about {digits:,} digits does not fit a float64"
        ) from None
    if math.isnan(f) or math.isinf(f):
        raise WriteError(f"json: unsupported value: {value!r}")
    shortest = Decimal(repr(f)).normalize()  # repr has the shortest digits that read back as f
    return format(shortest, "e" if f and not 1e-6 <= abs(f) < 1e21 else "f")


def _yaml_number(value: int | float) -> str:
    """The plain scalar go-yaml writes for a number that went through Go's JSON text first.

    Integer text that fits an int64 or a uint64 stays an integer; anything else is a float64 written
    as ``strconv.FormatFloat(f, 'g', -1, 64)`` (``%e`` with two exponent digits below 1e-4 and from 1e6).
    """
    text = go_json_number(value)
    if _INT_TEXT.match(text) and -(2**63) <= int(text) < 2**64:
        return str(int(text))
    shortest = Decimal(repr(float(text))).normalize()
    if -4 <= shortest.adjusted() < 6:
        return format(shortest, "f")
    mantissa, _, exponent = format(shortest, "e").partition("e")
    return f"{mantissa}e{exponent[0]}{exponent[1:]:0>2}"


_INT_TEXT = re.compile(r"^-?[0-9]+\Z")
_CONSTANTS = {None: "null", True: "true", False: "false"}

# ----------------------------------------------------------------------------------------- JSON

_json_basestring: Callable[[str], str] = json.encoder.encode_basestring
_SURROGATE = re.compile("[\ud800-\udfff]")


def go_json_string(s: str) -> str:
    """A string as Go's ``encoding/json`` writes it with HTML escaping off."""
    return _json_basestring(s).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _json_into(value: Any, indent: str, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(go_json_string(value))
    elif value is None or value is True or value is False:
        out.append(_CONSTANTS[value])
    elif isinstance(value, int | float):
        out.append(go_json_number(value))
    elif isinstance(value, Mapping):
        inner = indent + "    "
        separator = "{\n" + inner
        for key in value if isinstance(value, GoOrdered) else sorted(value):
            out.append(separator + go_json_string(key) + ": ")
            _json_into(value[key], inner, out)
            separator = ",\n" + inner
        out.append("\n" + indent + "}" if value else "{}")
    elif isinstance(value, list | tuple):
        inner = indent + "    "
        separator = "[\n" + inner
        for item in value:
            out.append(separator)
            _json_into(item, inner, out)
            separator = ",\n" + inner
        out.append("\n" + indent + "]" if value else "[]")
    else:
        raise WriteError(f"json: unsupported type: {type(value).__name__}")


def _no_surrogates(text: str) -> str:
    r"""Lone surrogates (from ``\ud800`` escapes) as U+FFFD, as Go decodes them."""
    return _SURROGATE.sub("\ufffd", text)


def render_json(config: DeclarativeConfig, verbatim: Mapping[tuple[str, str], str] | None = None) -> str:
    """``opm render -o json``: each blob indented by 4 spaces, followed by a newline.

    ``verbatim`` maps ``(package, bundle name)`` to the exact text of a published bundle blob, written
    in that bundle's place as it stands (a carried blob keeps its bytes; text decoded from a file holds
    no lone surrogate, so :func:`_no_surrogates` leaves it as it is).
    """
    out: list[str] = []
    for blob in blobs_in_render_order(config):
        text = (
            verbatim.get((str(blob.get("package", "")), str(blob.get("name", ""))))
            if verbatim and blob.get("schema") == SCHEMA_BUNDLE
            else None
        )
        if text is not None:
            out.append(text)
        else:
            _json_into(blob, "", out)
        out.append("\n")
    return _no_surrogates("".join(out))


# ----------------------------------------------------------------------------------------- YAML
#
# go-yaml v2's emitter is a port of libyaml's, so libyaml (PyYAML's C emitter) lays the documents out as
# go-yaml does: 2-space indent, sequences not indented under their key, folding at 80 columns, ``? key``
# for keys over 128 bytes, the same escapes. What go-yaml's encoder decides before the emitter, this
# module decides in :func:`_node`: key order, number spelling, and each string's requested style
# (literal when it has a line break, double-quoted when go-yaml's resolver would read it back as
# something else, else plain, which the emitter turns into single quotes where plain is not allowed).
# One difference is known: single-quoted text that ends in U+2028/U+2029 gets the indentation before
# its closing quote, which go-yaml leaves out (both read back alike).


def yaml_key_less(a: str, b: str) -> bool:
    """go-yaml v2's map key order (``keyList.Less``): letters after other runes, digit runs numerically."""
    ar, br = a, b
    for i in range(min(len(ar), len(br))):
        if ar[i] == br[i]:
            continue
        al, bl = ar[i].isalpha(), br[i].isalpha()
        if al and bl:
            return ar[i] < br[i]
        if al or bl:
            return bl
        an = bn = 0
        if ar[i] == "0" or br[i] == "0":
            j = i - 1
            while j >= 0 and ar[j].isdecimal():
                if ar[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(ar) and ar[ai].isdecimal():
            an = an * 10 + int(ar[ai])
            ai += 1
        bi = i
        while bi < len(br) and br[bi].isdecimal():
            bn = bn * 10 + int(br[bi])
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ar[i] < br[i]
    return len(ar) < len(br)


_YAML_KEY: Callable[[str], Any] = functools.cmp_to_key(lambda a, b: -1 if yaml_key_less(a, b) else 1)


# go-yaml v2 resolve(): which plain scalars read back as something other than a string.
_YAML_NON_STR = re.compile(
    r"^(?:[yYnN~]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE|null|Null|NULL"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
)
_YAML_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_GO_INT = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)\Z")
_BASE60 = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?\Z")
_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))"
    r"|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?\Z"
)


def _go_int(text: str) -> bool:
    """Whether ``strconv.ParseInt(text, 0, 64)`` or ``ParseUint`` accepts ``text``."""
    if not _GO_INT.match(text):
        return False
    body = text.lstrip("+-")
    base = {"0x": 16, "0b": 2, "0o": 8}.get(body[:2].lower(), 8 if len(body) > 1 and body[0] == "0" else 10)
    n = int(body, base)
    return n < 2**64 if text[0] not in "+-" else n <= 2**63 - (text[0] == "+")


_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_timestamp(s: str) -> bool:
    m = _TIMESTAMP.match(s)
    if not m:
        return False
    year, month, day, *clock = (int(g) for g in m.groups() if g is not None)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)  # calendar.isleap, without its import
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1] + (month == 2 and leap):
        return False
    return not clock or (clock[0] < 24 and clock[1] < 60 and clock[2] < 60)


def _plain_is_str(s: str) -> bool:
    """Whether go-yaml may write ``s`` plain: it reads back as a string and is no base-60 float."""
    if s == "" or _YAML_NON_STR.match(s):
        return False
    c = s[0]
    if c == ".":
        return not _YAML_FLOAT.match(s)
    if c not in "+-0123456789":
        return True
    plain = s.replace("_", "")
    return not (_is_timestamp(s) or _go_int(plain) or _YAML_FLOAT.match(plain) or _BASE60.match(s))


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"


def _node(value: Any) -> yaml.Node:
    """The node go-yaml's encoder makes of a JSON value (keys sorted, every scalar an implicit string)."""
    if isinstance(value, str):
        value = _no_surrogates(value)
        style = "|" if "\n" in value else None if _plain_is_str(value) else '"'
        return yaml.ScalarNode(_STR, value, style=style)
    if isinstance(value, Mapping):
        pairs = [(_node(key), _node(value[key])) for key in sorted(value, key=_YAML_KEY)]
        return yaml.MappingNode(_MAP, pairs, flow_style=not pairs)
    if isinstance(value, list | tuple):
        return yaml.SequenceNode(_SEQ, [_node(item) for item in value], flow_style=not value)
    if value is None or value is True or value is False:
        return yaml.ScalarNode(_STR, _CONSTANTS[value])
    if isinstance(value, int | float):
        return yaml.ScalarNode(_STR, _yaml_number(value))
    raise WriteError(f"yaml: unsupported type: {type(value).__name__}")


class _GoYamlDumper(getattr(yaml, "CBaseDumper", yaml.BaseDumper)):  # type: ignore[misc]
    """libyaml's emitter with no implicit tags: every scalar is a string, written as :func:`_node` asks."""

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> str:  # noqa: ARG002
        return _MAP if kind is yaml.MappingNode else _SEQ if kind is yaml.SequenceNode else _STR


def render_yaml(config: DeclarativeConfig) -> str:
    """``opm render -o yaml``: each blob as ``---`` and a go-yaml v2 block document."""
    nodes = (_node(blob) for blob in blobs_in_render_order(config))
    text = yaml.serialize_all(nodes, Dumper=_GoYamlDumper, explicit_start=True, allow_unicode=True, width=80)
    # libyaml ends a stream whose last block scalar keeps its final line breaks (``|+``) with "...";
    # go-yaml clears that flag first
    return text[:-4] if text.endswith("\n...\n") else text


def render(config: DeclarativeConfig, output: str = "json") -> str:
    """Render ``config`` as ``json`` or ``yaml``."""
    if output == "json":
        return render_json(config)
    if output == "yaml":
        return render_yaml(config)
    raise ValueError(f'invalid --output value "{output}", expected (json|yaml)')
