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
- YAML (``sigs.k8s.io/yaml.JSONToYAML`` → go-yaml v2): ``---`` before each blob, keys sorted at every
  level by go-yaml's "natural" key order, 2-space indent, sequences not indented under their key,
  strings quoted only when they would read back as another type or cannot be plain, multi-line strings
  as literal blocks (``|``, ``|-``, ``|+``, with an indentation hint when they start with a space),
  no line folding.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any, NamedTuple, TypeVar

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
    Meta,
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
    "to_json_value",
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


def _package_blob(p: Package) -> GoOrdered:
    out = GoOrdered(schema=SCHEMA_PACKAGE, name=p.name, defaultChannel=p.default_channel)
    if p.icon is not None:
        out["icon"] = GoOrdered(base64data=_reencode_base64(p.icon.base64data), mediatype=p.icon.mediatype)
    if p.description:
        out["description"] = p.description
    if p.properties:
        out["properties"] = [_prop(x) for x in p.properties]
    return out


def _channel_blob(c: Channel) -> GoOrdered:
    out = GoOrdered(schema=SCHEMA_CHANNEL, name=c.name, package=c.package)
    if c.entries is None:
        out["entries"] = None
    else:
        entries = []
        for e in c.entries:
            entry = GoOrdered(name=e.name)
            if e.replaces:
                entry["replaces"] = e.replaces
            if e.skips:
                entry["skips"] = list(e.skips)
            if e.skip_range:
                entry["skipRange"] = e.skip_range
            entries.append(entry)
        out["entries"] = entries
    if c.properties:
        out["properties"] = [_prop(x) for x in c.properties]
    return out


def _bundle_blob(b: Bundle) -> GoOrdered:
    out = GoOrdered(schema=SCHEMA_BUNDLE)
    if b.name:
        out["name"] = b.name
    if b.package:
        out["package"] = b.package
    out["image"] = b.image
    if b.properties:
        out["properties"] = [_prop(x) for x in b.properties]
    if b.related_images:
        out["relatedImages"] = [GoOrdered(name=r.name, image=r.image) for r in b.related_images]
    return out


def _deprecation_blob(d: Deprecation) -> GoOrdered:
    entries: list[GoOrdered] | None = None
    if d.entries:
        entries = []
        for e in d.entries:
            ref = GoOrdered(schema=e.schema)
            if e.name:
                ref["name"] = e.name
            entries.append(GoOrdered(reference=ref, message=e.message))
    return GoOrdered(schema=SCHEMA_DEPRECATIONS, package=d.package, entries=entries)


def to_json_value(obj: Package | Channel | Bundle | Deprecation | Meta) -> Mapping[str, Any]:
    """The JSON value opm writes for one blob (typed blobs as :class:`GoOrdered`, others as parsed)."""
    if isinstance(obj, Package):
        return _package_blob(obj)
    if isinstance(obj, Channel):
        return _channel_blob(obj)
    if isinstance(obj, Bundle):
        return _bundle_blob(obj)
    if isinstance(obj, Deprecation):
        return _deprecation_blob(obj)
    return obj.data


_T = TypeVar("_T")


def _by_package(items: Iterable[_T], package: Callable[[_T], str]) -> dict[str, list[_T]]:
    """``items`` grouped by their package name, each group in load order."""
    groups: dict[str, list[_T]] = {}
    for item in items:
        groups.setdefault(package(item), []).append(item)
    return groups


def blobs_in_render_order(config: DeclarativeConfig) -> list[Mapping[str, Any]]:
    """Every blob of ``config`` as a JSON value, in the order ``opm render`` writes them."""
    packages = _by_package(config.packages, lambda p: p.name)
    channels = _by_package(config.channels, lambda c: c.package)
    bundles = _by_package(config.bundles, lambda b: b.package)
    others = _by_package(config.others, lambda o: o.package)
    deprecations = _by_package(config.deprecations, lambda d: d.package)
    names = {*packages, *channels, *bundles, *others, *deprecations}
    out: list[Mapping[str, Any]] = []
    for name in sorted(names):
        if not name:
            continue
        out.extend(_package_blob(p) for p in packages.get(name, ()))
        out.extend(_channel_blob(c) for c in sorted(channels.get(name, ()), key=lambda c: c.name))
        out.extend(_bundle_blob(b) for b in sorted(bundles.get(name, ()), key=lambda b: b.name))
        out.extend(o.data for o in sorted(others.get(name, ()), key=lambda o: o.schema))
        out.extend(_deprecation_blob(d) for d in deprecations.get(name, ()))
    out.extend(o.data for o in others.get("", ()))
    return out


# ----------------------------------------------------------------------------------------- numbers


def _shortest_digits(f: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of ``abs(f)`` and the decimal point position (0.DIGITS x 10^dp)."""
    if f == 0:
        return "0", 1
    _sign, digits, exponent = Decimal(repr(abs(f))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0")
    assert isinstance(exponent, int)
    dp = len(digits) + exponent
    return text or "0", dp


def _fmt_f(digits: str, dp: int) -> str:
    if digits == "0":
        return "0"
    if dp <= 0:
        return "0." + "0" * (-dp) + digits
    if dp >= len(digits):
        return digits + "0" * (dp - len(digits))
    return digits[:dp] + "." + digits[dp:]


def _fmt_e(digits: str, dp: int) -> str:
    exp = dp - 1 if digits != "0" else 0
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sign = "-" if exp < 0 else "+"
    return f"{mant}e{sign}{abs(exp):02d}"


def _as_float(value: int | float) -> float:
    try:
        f = float(value)
    except OverflowError:
        digits = int(abs(int(value)).bit_length() * 0.30103) + 1  # str() of it may pass Python's digit limit
        raise WriteError(
            f"json: unsupported value: a number of about {digits:,} digits does not fit a float64"
        ) from None
    if math.isnan(f) or math.isinf(f):
        raise WriteError(f"json: unsupported value: {value!r}")
    return f


def go_json_number(value: int | float) -> str:
    """A number as Go's ``encoding/json`` writes the float64 it becomes."""
    if isinstance(value, int) and -(2**53) <= value <= 2**53:
        return str(value)
    f = _as_float(value)
    digits, dp = _shortest_digits(f)
    neg = "-" if f < 0 or (f == 0 and math.copysign(1.0, f) < 0) else ""
    a = abs(f)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        text = _fmt_e(digits, dp)
        # encoding/json cleans e-09 up to e-9
        text = re.sub(r"e-0(\d)$", r"e-\1", text)
        return neg + text
    return neg + _fmt_f(digits, dp)


def _go_format_g(f: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 64)`` as go-yaml writes a float64 (``.inf``/``.nan`` spelled YAML's way)."""
    if math.isinf(f):
        return ".inf" if f > 0 else "-.inf"
    if math.isnan(f):
        return ".nan"
    digits, dp = _shortest_digits(f)
    neg = "-" if f < 0 or (f == 0 and math.copysign(1.0, f) < 0) else ""
    if digits == "0":
        return neg + "0"
    exp = dp - 1
    # shortest formatting: %e when the exponent is < -4 or >= 6 (strconv's eprec for shortest)
    if exp < -4 or exp >= 6:
        return neg + _fmt_e(digits, dp)
    return neg + _fmt_f(digits, dp)


def _yaml_number(value: int | float) -> str:
    """The plain scalar go-yaml writes for a number that went through Go JSON text first."""
    text = go_json_number(value)
    if _INT_TEXT.match(text):
        n = int(text)
        if -(2**63) <= n < 2**64:
            return str(n)
    return _go_format_g(float(text))


_INT_TEXT = re.compile(r"^-?[0-9]+\Z")

# ----------------------------------------------------------------------------------------- JSON

_json_basestring: Callable[[str], str] = json.encoder.encode_basestring
_SURROGATE = re.compile("[\ud800-\udfff]")


def go_json_string(s: str) -> str:
    """A string as Go's ``encoding/json`` writes it with HTML escaping off."""
    out = _json_basestring(s)
    if "\u2028" in out or "\u2029" in out:
        out = out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return out


def _json_into(value: Any, indent: str, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(go_json_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int | float):
        out.append(go_json_number(value))
    elif isinstance(value, Mapping):
        if not value:
            out.append("{}")
            return
        inner = indent + "    "
        keys: Iterable[str] = value.keys() if isinstance(value, GoOrdered) else sorted(value)
        out.append("{")
        first = True
        for key in keys:
            out.append("\n" + inner if first else ",\n" + inner)
            first = False
            out.append(go_json_string(key))
            out.append(": ")
            _json_into(value[key], inner, out)
        out.append("\n" + indent + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = indent + "    "
        out.append("[")
        first = True
        for item in value:
            out.append("\n" + inner if first else ",\n" + inner)
            first = False
            _json_into(item, inner, out)
        out.append("\n" + indent + "]")
    else:
        raise WriteError(f"json: unsupported type: {type(value).__name__}")


def _finish(text: str) -> str:
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return text


def render_json(config: DeclarativeConfig, verbatim: Mapping[tuple[str, str], str] | None = None) -> str:
    """``opm render -o json``: each blob indented by 4 spaces, followed by a newline.

    ``verbatim`` maps ``(package, bundle name)`` to the exact text of a published bundle blob, written
    in that bundle's place as it stands (a carried blob keeps its bytes; text decoded from a file holds
    no lone surrogate, so :func:`_finish` leaves it as it is).
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
    return _finish("".join(out))


# ----------------------------------------------------------------------------------------- YAML


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
            while j >= 0 and _isdigit(ar[j]):
                if ar[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(ar) and _isdigit(ar[ai]):
            an = an * 10 + int(ar[ai])
            ai += 1
        bi = i
        while bi < len(br) and _isdigit(br[bi]):
            bn = bn * 10 + int(br[bi])
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ar[i] < br[i]
    return len(ar) < len(br)


def _isdigit(c: str) -> bool:
    return c.isdigit() and c.isdecimal()


class _YamlKey:
    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def __lt__(self, other: _YamlKey) -> bool:
        return yaml_key_less(self.s, other.s)


def _yaml_sorted(keys: Iterable[str]) -> list[str]:
    keys = list(keys)
    if all(k.isascii() and (k.replace("-", "").replace(".", "").replace("/", "").isalpha()) for k in keys):
        # only letters and '-', '.', '/': no digits, so the natural order is code point order with
        # non-letters first; '-' (0x2d), '.' (0x2e) and '/' (0x2f) already sort below every letter.
        return sorted(keys)
    return sorted(keys, key=_YamlKey)


# go-yaml v2 resolve(): which plain scalars read back as something other than a string.
_YAML_NON_STR = frozenset(
    [
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "~",
        "null",
        "Null",
        "NULL",
        ".inf",
        ".Inf",
        ".INF",
        "+.inf",
        "+.Inf",
        "+.INF",
        "-.inf",
        "-.Inf",
        "-.INF",
        ".nan",
        ".NaN",
        ".NAN",
    ]
)
_YAML_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_GO_INT0 = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)\Z")
_GO_UINT0 = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)\Z")
_BASE60 = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?\Z")
_TS_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})\Z")
_TS_FULL = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})"
    r"| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?)\Z"
)
_DOT_FLOAT = re.compile(r"^\.[0-9]+([eE][-+]?[0-9]+)?\Z")


def _go_parse_int0(text: str, unsigned: bool) -> bool:
    if not (_GO_UINT0 if unsigned else _GO_INT0).match(text):
        return False
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    low = body.lower()
    if low.startswith("0x"):
        n = int(body[2:], 16)
    elif low.startswith("0b"):
        n = int(body[2:], 2)
    elif low.startswith("0o"):
        n = int(body[2:], 8)
    elif len(body) > 1 and body.startswith("0"):
        n = int(body[1:], 8)
    else:
        n = int(body)
    n *= sign
    return 0 <= n < 2**64 if unsigned else -(2**63) <= n < 2**63


def _valid_date(y: int, m: int, d: int) -> bool:
    if not 1 <= m <= 12 or d < 1:
        return False
    days = [
        31,
        29 if (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else 28,
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ]
    return d <= days[m - 1]


def _is_timestamp(s: str) -> bool:
    m = _TS_DATE.match(s)
    if m:
        return _valid_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = _TS_FULL.match(s)
    if not m:
        return False
    if not _valid_date(int(m.group(1)), int(m.group(2)), int(m.group(3))):
        return False
    hms = [g for g in m.groups()[3:] if g is not None]
    h, mi, se = (int(x) for x in hms)
    return h < 24 and mi < 60 and se < 60


def _resolves_to_str(s: str) -> bool:
    if s == "" or s in _YAML_NON_STR:
        return False
    c = s[0]
    if c == ".":
        return not _DOT_FLOAT.match(s)
    if c not in "+-0123456789":
        return True
    if c.isdigit() and _is_timestamp(s):
        return False
    plain = s.replace("_", "")
    if _go_parse_int0(plain, False) or _go_parse_int0(plain, True):
        return False
    if _YAML_FLOAT.match(plain):
        return False
    if plain.startswith("0b"):
        return not re.match(r"^0b[01]+\Z", plain) or int(plain[2:], 2) >= 2**63
    if plain.startswith("-0b"):
        return not re.match(r"^-0b[01]+\Z", plain) or int(plain[3:], 2) > 2**63
    return True


def _printable(ch: str) -> bool:
    o = ord(ch)
    return o == 0x0A or 0x20 <= o <= 0x7E or 0xA0 <= o <= 0xD7FF or (0xE000 <= o <= 0xFFFD and o != 0xFEFF)


_BREAKS = "\r\n\x85\u2028\u2029"
_FAST_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._/=+()-]*\Z")


def _analyze(s: str) -> tuple[bool, bool, bool, bool]:
    """go-yaml's analyze_scalar: (multiline, block_plain_allowed, single_quoted_allowed, block_allowed)."""
    if not s:
        return False, True, True, False
    ws = _whitespace(s)
    unquotable = ws.break_space or ws.space_break or ws.special
    block_plain = not (
        unquotable
        or ws.leading_space
        or ws.leading_break
        or ws.trailing_space
        or ws.trailing_break
        or ws.line_breaks
        or _has_block_indicators(s)
    )
    single = not unquotable
    block = not (ws.trailing_space or ws.space_break or ws.special)
    return ws.line_breaks, block_plain, single, block


def _has_block_indicators(s: str) -> bool:
    """Whether ``s`` holds what a plain scalar may not: a document marker, an indicator first, ``: `` or `` #``."""
    if s.startswith(("---", "...")):
        return True
    n = len(s)
    for i, ch in enumerate(s):
        followed_by_ws = i + 1 >= n or s[i + 1] in " \t"
        if i == 0:
            if ch in "#,[]{}&*!|>'\"%@`" or (ch in "?:-" and followed_by_ws):
                return True
        elif (ch == ":" and followed_by_ws) or (ch == "#" and s[i - 1] in " \t" + _BREAKS):
            return True
    return False


class _Whitespace(NamedTuple):
    """Where a scalar's spaces and line breaks sit, and whether it holds a character YAML cannot print."""

    line_breaks: bool
    special: bool
    leading_space: bool
    leading_break: bool
    trailing_space: bool
    trailing_break: bool
    break_space: bool  # a line break followed by a space
    space_break: bool  # a space followed by a line break


def _whitespace(s: str) -> _Whitespace:
    pairs = list(zip(s, s[1:], strict=False))
    return _Whitespace(
        line_breaks=any(ch in _BREAKS for ch in s),
        special=not all(_printable(ch) for ch in s),
        leading_space=s[0] == " ",
        leading_break=s[0] in _BREAKS,
        trailing_space=s[-1] == " ",
        trailing_break=s[-1] in _BREAKS,
        break_space=any(a in _BREAKS and b == " " for a, b in pairs),
        space_break=any(a == " " and b in _BREAKS for a, b in pairs),
    )


_DQ_ESCAPES = {
    0x00: "0",
    0x07: "a",
    0x08: "b",
    0x09: "t",
    0x0A: "n",
    0x0B: "v",
    0x0C: "f",
    0x0D: "r",
    0x1B: "e",
    0x22: '"',
    0x5C: "\\",
    0x85: "N",
    0xA0: "_",
    0x2028: "L",
    0x2029: "P",
}


_BEST_WIDTH = 80
"""go-yaml v2 folds plain and quoted scalars at a space once the column passes 80."""


def _dq_escape(ch: str) -> str | None:
    o = ord(ch)
    if _printable(ch) and o != 0xFEFF and ch not in _BREAKS and ch != '"' and ch != "\\":
        return None
    esc = _DQ_ESCAPES.get(o)
    if esc is not None:
        return "\\" + esc
    if o <= 0xFF:
        return f"\\x{o:02X}"
    if o <= 0xFFFF:
        return f"\\u{o:04X}"
    return f"\\U{o:08X}"


def _double_quoted(s: str, column: int = 0, indent: int = 0, allow_breaks: bool = False) -> str:
    """go-yaml's write_double_quoted_scalar; ``column`` is where the opening quote goes."""
    parts = ['"']
    col = column + 1
    spaces = False
    n = len(s)
    pad = "\n" + " " * indent
    for i, ch in enumerate(s):
        esc = _dq_escape(ch)
        if esc is not None:
            parts.append(esc)
            col += len(esc)
            spaces = False
        elif ch == " ":
            if allow_breaks and not spaces and col > _BEST_WIDTH and 0 < i < n - 1:
                parts.append(pad)
                col = indent
                if s[i + 1] == " ":
                    parts.append("\\")
                    col += 1
            else:
                parts.append(ch)
                col += 1
            spaces = True
        else:
            parts.append(ch)
            col += 1
            spaces = False
    parts.append('"')
    return "".join(parts)


def _folded(s: str, column: int, indent: int, single: bool) -> str:
    """go-yaml's write_plain_scalar / write_single_quoted_scalar (no line breaks in ``s``)."""
    parts = ["'"] if single else []
    col = column + (1 if single else 0)
    spaces = False
    n = len(s)
    pad = "\n" + " " * indent
    for i, ch in enumerate(s):
        if ch == " ":
            nxt_space = i + 1 < n and s[i + 1] == " "
            fold = not spaces and col > _BEST_WIDTH and not nxt_space
            if single:
                fold = fold and 0 < i < n - 1
            if fold:
                parts.append(pad)
                col = indent
            else:
                parts.append(ch)
                col += 1
            spaces = True
        else:
            if single and ch == "'":
                parts.append("'")
                col += 1
            parts.append(ch)
            col += 1
            spaces = False
    if single:
        parts.append("'")
    return "".join(parts)


def _literal(s: str, indent: int) -> str:
    """A literal block scalar: the header (``|`` + hints), a line break, and the lines at ``indent``."""
    header = "|"
    if s[0] == " " or s[0] in _BREAKS:
        header += "2"
    last = s[-1]
    if last not in _BREAKS:
        header += "-"
    elif len(s) == 1 or s[-2] in _BREAKS:
        header += "+"
    pad = " " * indent
    if "\r" not in s and "\x85" not in s and "\u2028" not in s and "\u2029" not in s:
        lines = s.split("\n")
        text = header + "\n" + "\n".join(pad + line if line else "" for line in lines)
    else:
        parts = [header, "\n"]
        breaks = True
        for ch in s:
            if ch in _BREAKS:
                parts.append(ch)
                breaks = True
            else:
                if breaks:
                    parts.append(pad)
                parts.append(ch)
                breaks = False
        text = "".join(parts)
    # the final line break ends the block; the caller writes the break before whatever follows
    return text[:-1] if s[-1] in _BREAKS else text


def _yaml_scalar(s: str, indent: int, simple_key: bool, column: int = 0) -> str:
    """The text go-yaml writes for string ``s`` starting at ``column``.

    ``indent`` is the scalar's own indentation (where folded lines and literal block lines go); keys
    (``simple_key``) are never folded.
    """
    short = simple_key or column + len(s) <= _BEST_WIDTH + 1
    if short and _FAST_PLAIN.match(s) and s[-1] != " " and _resolves_to_str(s) and not _BASE60.match(s):
        return s  # fast path: nothing in it needs quoting or folding
    if "\n" in s:
        style = "literal"
    elif _resolves_to_str(s) and not _BASE60.match(s):
        style = "plain"
    else:
        style = "double"
    multiline, block_plain, single_ok, block_ok = _analyze(s)
    if simple_key and multiline:
        style = "double"
    if style == "plain":
        if not block_plain:
            style = "single"
        if not s and simple_key:
            style = "single"
    if style == "single" and not single_ok:
        style = "double"
    if style == "literal" and (not block_ok or simple_key):
        style = "double"
    if style == "literal":
        return _literal(s, indent)
    if style == "double":
        return _double_quoted(s, column, indent, not simple_key)
    if short:
        return s if style == "plain" else "'" + s.replace("'", "''") + "'"
    return _folded(s, column, indent, style == "single")


def _yaml_leaf(value: Any, indent: int, column: int) -> str | None:
    """Inline text for a scalar or an empty collection (None for a block collection) at ``column``."""
    if isinstance(value, str):
        return _yaml_scalar(value, indent, False, column)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return _yaml_number(value)
    if isinstance(value, Mapping):
        return None if value else "{}"
    if isinstance(value, list | tuple):
        return None if value else "[]"
    raise WriteError(f"yaml: unsupported type: {type(value).__name__}")


def _yaml_mapping(value: Mapping[str, Any], indent: int, inline_first: bool, out: list[str]) -> None:
    pad = " " * indent
    first = True
    for key in _yaml_sorted(value.keys()):
        if not (first and inline_first):
            out.append("\n" + pad)
        first = False
        key_text = _yaml_scalar(key, indent + 2, True)
        out.append(key_text)
        out.append(":")
        item = value[key]
        leaf = _yaml_leaf(item, indent + 2, indent + len(key_text) + 2)
        if leaf is not None:
            out.append(" " + leaf)
        elif isinstance(item, Mapping):
            _yaml_mapping(item, indent + 2, False, out)
        else:
            _yaml_sequence(item, indent, False, out)


def _yaml_sequence(value: Sequence[Any], indent: int, inline_first: bool, out: list[str]) -> None:
    pad = " " * indent
    first = True
    for item in value:
        if not (first and inline_first):
            out.append("\n" + pad)
        first = False
        out.append("-")
        leaf = _yaml_leaf(item, indent + 2, indent + 2)
        if leaf is not None:
            out.append(" " + leaf)
        elif isinstance(item, Mapping):
            out.append(" ")
            _yaml_mapping(item, indent + 2, True, out)
        else:
            out.append(" ")
            _yaml_sequence(item, indent + 2, True, out)


def _yaml_document(value: Mapping[str, Any]) -> str:
    out: list[str] = ["---\n"]
    if not value:
        out.append("{}\n")
        return "".join(out)
    _yaml_mapping(value, 0, True, out)
    out.append("\n")
    return "".join(out)


def render_yaml(config: DeclarativeConfig) -> str:
    """``opm render -o yaml``: each blob as ``---`` and a go-yaml v2 block document."""
    return _finish("".join(_yaml_document(blob) for blob in blobs_in_render_order(config)))


def render(config: DeclarativeConfig, output: str = "json") -> str:
    """Render ``config`` as ``json`` or ``yaml``."""
    if output == "json":
        return render_json(config)
    if output == "yaml":
        return render_yaml(config)
    raise ValueError(f'invalid --output value "{output}", expected (json|yaml)')
