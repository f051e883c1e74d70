"""Load a file-based catalog directory the way ``opm`` does, but report every problem.

Adapter module: imports no rules, plans or jobs. opm's ``declcfg.LoadFS`` rules:

- every regular file under the root is parsed (lexical order) unless an ``.indexignore`` file (gitignore
  syntax, at any level) excludes it; ``.indexignore`` files themselves are skipped;
- a file whose first non-space byte is ``{`` is a stream of JSON objects, anything else is multi-document
  YAML; only a zero-byte file yields nothing (a blank or comment-only document is an object without schema);
- ``schema``/``package``/``name`` are matched case-insensitively, and top-level keys that fold to the same
  value are rejected; other schemas are kept untouched; ``olm.bundle.object`` payloads are decoded.

One loader per format, files read one at a time and let go once parsed. JSON: the standard library's
decoder, refusing duplicate keys and numbers opm refuses. YAML: one scan of a file's distinct lines, before
any parsing, decides for each document whether yaml-rs (fast, YAML 1.2) may read it or PyYAML
(:mod:`releasekit.io.yamlio`, the YAML 1.1 reading opm's go-yaml shares) must.

Unlike opm, loading does not stop at the first bad file: content problems become findings with file and
line. What cannot be read at all raises :class:`~releasekit.errors.InputError`, a safety limit
:class:`~releasekit.errors.SafetyLimitError` (exit 2): a missing root, a dangling symlink, a FIFO or other
special file (refused from ``lstat`` alone, never opened), a symlink that leaves the catalog, a file over
:attr:`LoadLimits.max_file_bytes`, YAML whose aliases expand too far.

Its findings are RK-FBC-001 … RK-FBC-008; their titles are in ``releasekit.jobs.rule_docs.OUTSIDE_RULES``.
"""

from __future__ import annotations

import binascii
import collections
import dataclasses
import functools
import gc
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypeVar

import yaml_rs

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io import inputs
from releasekit.io.yamlio import YamlContentError, iter_kubernetes_documents
from releasekit.model import fbc
from releasekit.model.fbc import JSON_KINDS, MISSING, DeclarativeConfig, Meta, Property, json_kind
from releasekit.model.finding import Finding, Location, Severity

if TYPE_CHECKING:
    import pathspec

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "LOAD_RULES",
    "LoadLimits",
    "LoadResult",
    "decode_metas",
    "indexignore_spec",
    "indexignored",
    "load_and_check",
    "load_catalog",
    "load_catalog_files",
    "load_catalog_text",
]

_R = TypeVar("_R")

DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest single catalog file read (64 MiB; the largest real one seen is 4 MiB). ``--max-file-size`` raises it."""

LOAD_RULES = tuple(f"RK-FBC-{n:03d}" for n in range(1, 9))
"""The loader's rule ids (RK-FBC-001 … 008; see the module docstring)."""

DEFAULT_MAX_ALIAS_EVENTS = 1_000_000
"""Most YAML events that alias replay may produce in one document."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LoadLimits:
    """Safety limits for loading untrusted catalogs."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_alias_events: int = DEFAULT_MAX_ALIAS_EVENTS


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LoadResult:
    """A loaded catalog, the load-phase findings, and the files that were read."""

    config: DeclarativeConfig
    findings: tuple[Finding, ...] = ()
    files: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------- walking


def indexignore_spec(data: bytes) -> pathspec.GitIgnoreSpec:
    """The patterns of one ``.indexignore`` file (gitignore syntax; opm reads bytes: bad UTF-8 is replaced)."""
    import pathspec  # ~40 ms: only catalogs with an .indexignore pay for it (build's have none)

    return pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", "replace").splitlines())


def indexignored(
    rel: PurePosixPath, specs: Mapping[PurePosixPath, pathspec.GitIgnoreSpec], folder: bool = False
) -> bool:
    """Whether opm skips ``rel`` (below the catalog root; ``folder``: it names a folder).

    It skips ``.indexignore`` files, and an entry that it or a folder on the way is ignored by: the deepest
    ``.indexignore`` (``specs``, by folder below the root) with a pattern matching it decides.
    """
    parts = rel.parts
    if parts[-1:] == (".indexignore",) and not folder:
        return True
    if not specs:  # most catalogs: no path objects made per file
        return False
    levels = [
        (n, spec) for n in range(len(parts)) if (spec := specs.get(PurePosixPath(*parts[:n]))) is not None
    ]
    for depth in range(1, len(parts) + 1):
        tail = "/" if folder or depth < len(parts) else ""
        verdicts = [
            spec.check_file("/".join(parts[n:depth]) + tail).include for n, spec in levels if n < depth
        ]
        if next((v for v in reversed(verdicts) if v is not None), False):
            return True
    return False


def _catalog_files(root: Path, limits: LoadLimits) -> list[str]:
    """Every file opm would parse, in opm's lexical order (plain strings and ``os.scandir``: fast).

    Raises:
        InputError: the root is missing or not a folder, or a file cannot be read.
        SafetyLimitError: a symlink leaves the root, or a file is larger than the limit.
    """
    try:
        if not stat.S_ISDIR(root.stat().st_mode):
            raise InputError(f"{root}: is not a directory")
    except OSError as exc:
        raise InputError(f"{root}: cannot read catalog: {exc.strerror or exc}") from None
    root_real = os.path.realpath(root)
    specs: dict[PurePosixPath, pathspec.GitIgnoreSpec] = {}  # the .indexignore files met, by folder
    found: list[str] = []

    def walk(prefix: str, rel_dir: str) -> None:  # prefix: the folder as shown, "" or ending in "/"
        if rel_dir.count("/") > inputs.MAX_WALK_DEPTH:
            raise SafetyLimitError(
                f"{prefix.rstrip('/')}: folders nested deeper than {inputs.MAX_WALK_DEPTH} levels; refusing them"
            )
        try:
            with os.scandir(prefix or ".") as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            raise InputError(
                f"{prefix.rstrip('/') or '.'}: cannot list folder: {exc.strerror or exc}"
            ) from None
        if any(entry.name == ".indexignore" for entry in entries):
            ignore = inputs.read_input(prefix + ".indexignore", root=root_real, what="the catalog")
            specs[PurePosixPath(rel_dir)] = indexignore_spec(ignore)
        for entry in entries:
            path, rel = prefix + entry.name, rel_dir + entry.name
            try:
                lst = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
            is_dir = stat.S_ISDIR(lst.st_mode)
            if specs and indexignored(PurePosixPath(rel), specs, is_dir):
                continue
            if is_dir:
                walk(path + "/", rel + "/")
                continue
            size = inputs.check_regular(path, lst, root_real, what="the catalog").st_size
            if size > limits.max_file_bytes:
                raise SafetyLimitError(
                    f"{path}: {size:,} bytes is over the {limits.max_file_bytes:,}-byte limit per file "
                    "(raise it with --max-file-size)"
                )
            found.append(path)

    top = str(root)
    walk("" if top == "." else top if top.endswith("/") else top + "/", "")
    return found


# --------------------------------------------------------------------------------------------- parsing

_ABSENT: Any = object()
_HINT_DUPLICATE = "remove the repeated key; opm matches schema, package and name case-insensitively"
_HINT_YAML = "fix the YAML syntax (documents are separated by '---' lines)"
_HINT_NUMBER = "JSON has no NaN or Infinity, and opm reads numbers as float64: write a finite number"


def _finding(rule: str, message: str, file: str, line: int | None, hint: str, path: str = "") -> Finding:
    return Finding(
        rule=rule,
        severity=Severity.ERROR,
        message=message,
        location=Location(file=file, line=line, path=path),
        hint=hint,
    )


class _Refused(ValueError):
    """A content problem met inside a parser or decoder: its rule id, fix hint and the text it is about."""

    def __init__(self, rule: str, message: str, hint: str, text: str = "") -> None:
        super().__init__(message)
        self.rule, self.hint, self.text = rule, hint, text


def _pairs_no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused("RK-FBC-003", f"duplicate key {key!r} in JSON object", _HINT_DUPLICATE)
            seen.add(key)
    return result


def _go_constant(name: str) -> Any:
    """NaN and Infinity, which Go's encoding/json (opm's parser) refuses."""
    message = f"invalid JSON: invalid character {name[0]!r} looking for beginning of value"
    raise _Refused("RK-FBC-001", message, _HINT_NUMBER, name)


def _go_number(text: str, exact: Callable[[str], Any] = float) -> Any:
    """``exact(text)`` (an integer keeps every digit), refused as Go refuses a number past float64's range."""
    if (exact is float or len(text) > 300) and math.isinf(float(text)):  # also below Python's digit limit
        shown = text if len(text) <= 40 else text[:40] + "..."
        message = f"invalid JSON: json: cannot unmarshal number {shown} into Go value of type float64"
        raise _Refused("RK-FBC-001", message, _HINT_NUMBER, text)
    return exact(text)


_JSON = json.JSONDecoder(
    object_pairs_hook=_pairs_no_duplicates,
    parse_constant=_go_constant,
    parse_float=_go_number,
    parse_int=functools.partial(_go_number, exact=int),
)
_WS = re.compile(r"[ \t\r\n]*")


def _json_docs(text: str, file: str, findings: list[Finding]) -> Iterator[tuple[Any, int, int, int]]:
    """Each object of a JSON stream with its first line, start and end; stops at the first error, as opm."""
    index = _WS.match(text).end()  # type: ignore[union-attr]
    line = text.count("\n", 0, index) + 1
    while index < len(text):
        try:
            value, end = _JSON.raw_decode(text, index)
        except _Refused as exc:  # a number: its line; a duplicate key: the object's
            at = text.find(exc.text, index) if exc.text else -1
            findings.append(
                _finding(exc.rule, str(exc), file, text.count("\n", 0, at) + 1 if at >= 0 else line, exc.hint)
            )
            return
        except json.JSONDecodeError as exc:
            hint = "fix the JSON syntax; a catalog file is a stream of JSON objects or multi-document YAML"
            message = f"invalid JSON: {exc.msg} at offset {exc.pos}"
            findings.append(_finding("RK-FBC-001", message, file, text.count("\n", 0, exc.pos) + 1, hint))
            return
        yield value, line, index, end
        next_index = _WS.match(text, end).end()  # type: ignore[union-attr]
        line += text.count("\n", index, next_index)
        index = next_index


_HINT_YAML_NUMBER = (
    "opm turns YAML into JSON, which has no NaN or Infinity: write a finite number or a string"
)


def _yaml_docs(
    text: str, file: str, findings: list[Finding], limits: LoadLimits
) -> Iterator[tuple[Any, int]]:
    """Each document of YAML ``text`` and its first content line; one that cannot be read is a finding."""
    for doc in iter_kubernetes_documents(text, max_nodes=limits.max_alias_events, source=file):
        if not isinstance(doc, YamlContentError):
            yield doc.data, doc.line
        elif doc.message.startswith(("duplicate key", "invalid YAML: duplicate mapping key")):
            findings.append(_finding("RK-FBC-003", doc.message, file, doc.line, _HINT_DUPLICATE))
        else:
            message = f"invalid YAML: {doc.message.removeprefix('invalid YAML: ')}"
            hint = _HINT_YAML_NUMBER if "unsupported value" in message else _HINT_YAML
            findings.append(_finding("RK-FBC-001", message, file, doc.line, hint))


def _go_value_text(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}{...}" if value else "map[string]interface {}{}"
    if isinstance(value, list):
        return "[]interface {}{...}"
    if isinstance(value, bool):
        return f"{str(value).lower()} (bool)"
    if isinstance(value, int | float):
        return f"{value} (float64)"
    return repr(value)


def _meta_from_doc(value: Any, line: int, file: str, findings: list[Finding], *, yaml: bool) -> Meta | None:
    """Decode one document into a Meta (opm's ``Meta.UnmarshalJSON``), or record why it cannot be.

    An empty YAML document (blank, comments only, or ``null``) is an object without schema.
    """

    def refuse(rule: str, message: str, hint: str, path: str = "") -> Meta | None:
        findings.append(_finding(rule, message, file, line, hint, path))
        return None

    if value is None and yaml:
        hint = "remove the empty document (a blank or comment-only YAML document, or a stray '---')"
        return refuse("RK-FBC-005", "object '' is missing root schema field", hint)
    if not isinstance(value, dict):
        message = f"json: cannot unmarshal {json_kind(value)} into Go value of type map[string]interface {{}}"
        return refuse("RK-FBC-002", message, "each catalog document must be an object with a schema field")
    if len({str(key).casefold() for key in value}) != len(value):
        folded: dict[str, list[str]] = {}
        for key in value:
            folded.setdefault(str(key).casefold(), []).append(str(key))
        repeated = sorted((k, sorted(v)) for k, v in folded.items() if len(v) > 1)
        message = ", ".join(f'duplicate keys for key "{k}": [{" ".join(v)}]' for k, v in repeated)
        return refuse("RK-FBC-003", message, _HINT_DUPLICATE)
    picked: dict[str, str] = {}
    for wanted in ("schema", "package", "name"):
        key = _lookup_key(value, wanted)
        if key is not None and not isinstance(value[key], str):
            message = f'expected value for key "{wanted}" to be a string, got {_go_value_text(value[key])}'
            return refuse("RK-FBC-004", message, f'make "{wanted}" a string', path=f"$.{key}")
        picked[wanted] = "" if key is None else value[key]
    if not picked["schema"]:
        text = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        hint = "add a schema field (olm.package, olm.channel, olm.bundle or olm.deprecations)"
        return refuse("RK-FBC-005", f"object '{text}' is missing root schema field", hint)
    location = Location(file=file, line=line)
    return Meta(
        schema=picked["schema"], package=picked["package"], name=picked["name"], data=value, location=location
    )


def _lookup_key(obj: Mapping[str, Any], wanted: str) -> str | None:
    """Key of ``obj`` matching ``wanted`` as Go's encoding/json does: exact first, then case-folded."""
    if wanted in obj:
        return wanted
    folded = wanted.casefold()
    for key in obj:
        if isinstance(key, str) and key.casefold() == folded:
            return key
    return None


# ----------------------------------------------------------------------------------- typed decoding
#
# opm's Go structs as (JSON field, Go type) pairs, decoded as Go's encoding/json does: strictly by JSON kind,
# field names matched exactly and then case-insensitively, null as the zero value ("" for a string, the
# default for the rest). A Go type is "string", "[]<element>" or another struct of the table; each struct
# is made by the callable beside it, from its fields (snake_case) that are not absent or null.


class _TypeMismatch(ValueError):
    pass


def _kind(gotype: str) -> str:
    return "string" if gotype == "string" else "array" if gotype.startswith("[]") else "object"


def _checked(value: Any, field: str, gotype: str) -> Any:
    """``value`` when ``null`` or of the JSON kind Go's ``gotype`` takes, else Go's unmarshal error."""
    if value is not None and json_kind(value) != _kind(gotype):
        raise _TypeMismatch(
            f"json: cannot unmarshal {json_kind(value)} into Go struct field {field} of type {gotype}"
        )
    return value


def _b64decode(data: str) -> bytes:
    """Decode standard base64 as Go's encoding/json does for ``[]byte``: CR and LF are ignored."""
    if "\n" in data or "\r" in data:  # a search at memchr speed: removing them copies megabytes of text
        data = data.replace("\n", "").replace("\r", "")
    return binascii.a2b_base64(data, strict_mode=True)


def _icon(*, base64data: str, mediatype: str) -> fbc.Icon:
    """The package icon: its data is ``[]byte`` in opm, base64 in JSON."""
    try:
        _b64decode(base64data)
    except (binascii.Error, ValueError) as exc:
        raise _TypeMismatch(f"illegal base64 data in icon.base64data: {exc}") from None
    return fbc.Icon(base64data=base64data, mediatype=mediatype)


def _deprecation_entry(*, message: str, reference: Mapping[str, str] | None = None) -> fbc.DeprecationEntry:
    """A deprecation entry, its ``PackageScopedReference`` flattened as the model keeps it."""
    return fbc.DeprecationEntry(message=message, **(reference or {}))


_Fields = tuple[tuple[str, str, str, str], ...]


def _struct(make: Callable[..., Any], specs: str) -> tuple[Callable[..., Any], _Fields, frozenset[str]]:
    """A Go struct made by ``make``, with ``specs``: JSON names, each with ``:<Go type>`` unless a string.

    Each field becomes (JSON name, model attribute, Go type, JSON kind). Last come the keys an object may
    hold without any field needing a case-folded search: the names, and ``schema`` (every blob has it).
    """
    fields = []
    for spec in specs.split():
        name, _, gotype = spec.partition(":")
        gotype = gotype or "string"
        fields.append((name, re.sub("([A-Z])", r"_\1", name).lower(), gotype, _kind(gotype)))
    return make, tuple(fields), frozenset(field[0] for field in fields) | {"schema"}


_PROPERTIES = "properties:[]property.Property"
_STRUCTS = {
    "Package": _struct(fbc.Package, f"name defaultChannel icon:declcfg.Icon description {_PROPERTIES}"),
    "declcfg.Icon": _struct(_icon, "base64data mediatype"),
    # a channel written without entries keeps them nil (opm writes null back)
    "Channel": _struct(
        functools.partial(fbc.Channel, entries=None),
        f"name package entries:[]declcfg.ChannelEntry {_PROPERTIES}",
    ),
    "declcfg.ChannelEntry": _struct(fbc.ChannelEntry, "name replaces skips:[]string skipRange"),
    "Bundle": _struct(fbc.Bundle, f"name package image {_PROPERTIES} relatedImages:[]declcfg.RelatedImage"),
    "declcfg.RelatedImage": _struct(fbc.RelatedImage, "name image"),
    "Deprecation": _struct(fbc.Deprecation, "package entries:[]declcfg.DeprecationEntry"),
    "declcfg.DeprecationEntry": _struct(
        _deprecation_entry, "reference:declcfg.PackageScopedReference message"
    ),
    "declcfg.PackageScopedReference": _struct(dict, "schema name"),
}


def _field(obj: Mapping[str, Any], name: str) -> Any:
    """Field ``name`` of a JSON object, found as Go's encoding/json finds it; ``None`` when absent."""
    value = obj.get(name, _ABSENT)
    if value is _ABSENT:
        key = _lookup_key(obj, name)
        value = None if key is None else obj[key]
    return value


def _decode(obj: Mapping[str, Any], struct: str, gotype: str, **values: Any) -> Any:
    """``obj`` decoded into Go struct ``gotype`` of :data:`_STRUCTS`; ``struct`` is its path in errors."""
    make, fields, known = _STRUCTS[gotype]
    exact = obj.keys() <= known  # then a field it lacks needs no case-folded search
    for name, attr, field_type, kind in fields:
        value = obj.get(name) if exact else _field(obj, name)
        if value is None:
            if kind == "string":
                values[attr] = ""
            continue
        if JSON_KINDS.get(type(value)) != kind:
            _checked(value, f"{struct}.{name}", field_type)
        if kind == "string":
            values[attr] = value
        elif field_type == "[]property.Property":
            values[attr] = _properties(value, f"{struct}.{name}")
        elif field_type == "[]string":
            values[attr] = tuple(
                item if type(item) is str else _checked(item, f"{struct}.{name}", "string") or ""
                for item in value
            )
        elif kind == "array":  # of structs, which are objects
            field, element = f"{struct}.{name}", field_type[2:]
            values[attr] = tuple(
                _decode(item if type(item) is dict else _checked(item, field, element) or {}, field, element)
                for item in value
            )
        else:
            values[attr] = _decode(value, f"{struct}.{name}", field_type)
    return make(**values)


def _properties(raw: list[Any], field: str) -> tuple[Property, ...]:
    out: list[Property] = []
    for item in raw:
        if type(item) is dict and type(item.get("type")) is str and "value" in item:  # the usual shape
            out.append(Property(type=item["type"], value=item["value"]))
        elif _checked(item, field, "property.Property") is None:
            out.append(Property(type="", value=MISSING))
        else:
            key = _lookup_key(item, "value")
            type_ = _checked(_field(item, "type"), f"{field}.type", "string") or ""
            out.append(Property(type=type_, value=MISSING if key is None else item[key]))
    return tuple(out)


def _decode_object(data: str, where: str) -> Any:
    """The manifest in an ``olm.bundle.object``'s base64 ``data``; ``where`` names it in a refusal.

    Raises:
        SafetyLimitError: the manifest nests deeper than :data:`MAX_DEPTH`, checked before any parser sees
            it (yaml-rs crashes on deep block nesting; the others recurse).
    """
    raw = _b64decode(data)
    text = raw.decode("utf-8")
    is_json = text.lstrip().startswith("{")
    if inputs.nesting_depth(raw, yaml=not is_json) is not None:
        raise SafetyLimitError(
            f"{where} is nested deeper than {inputs.MAX_DEPTH} levels; refusing to parse it"
        )
    return json.loads(text) if is_json else yaml_rs.loads(text, parse_datetime=False)


def _with_objects(bundle: fbc.Bundle) -> fbc.Bundle:
    """``bundle`` with the manifests of its ``olm.bundle.object`` properties, decoded as opm does."""
    objects: list[Any] = []
    hint = "olm.bundle.object data must be base64 of a YAML or JSON manifest"
    for index, prop in enumerate(bundle.properties):
        if prop.type != fbc.PROP_BUNDLE_OBJECT:
            continue
        prefix = f'read bundle objects: package "{bundle.package}", bundle "{bundle.name}": '
        data = prop.value.get("data") if isinstance(prop.value, dict) else None
        if not isinstance(data, str):
            kind = json_kind(prop.value)
            message = f"parse property at index {index} as bundle object: json: cannot unmarshal {kind} into Go value of type property.BundleObject"
            raise _Refused("RK-FBC-008", prefix + message, hint)
        where = (
            f"{bundle.location.file}:{bundle.location.line}: bundle {bundle.name!r}: the manifest of its "
            f"olm.bundle.object property at index {index}"
        )
        try:
            objects.append(_decode_object(data, where))
        except SafetyLimitError:
            raise  # a ValueError too, but a refusal, not a finding
        except (binascii.Error, ValueError, UnicodeDecodeError, yaml_rs.YAMLDecodeError) as exc:
            message = f"convert bundle object property at index {index} to JSON: {exc}"
            raise _Refused("RK-FBC-008", prefix + message, hint) from None
    if not objects:
        return bundle
    csv = next((o for o in objects if isinstance(o, dict) and o.get("kind") == "ClusterServiceVersion"), None)
    return dataclasses.replace(bundle, objects=tuple(objects), csv=csv)


# schema: (what opm's error calls it, Go struct)
_SCHEMAS = {
    fbc.SCHEMA_PACKAGE: ("package", "Package"),
    fbc.SCHEMA_CHANNEL: ("channel", "Channel"),
    fbc.SCHEMA_BUNDLE: ("bundle", "Bundle"),
    fbc.SCHEMA_DEPRECATIONS: ("deprecation", "Deprecation"),
}


def _add_typed(metas: Sequence[Meta], typed: dict[type, list[Any]], findings: list[Finding]) -> None:
    """Type each blob (opm's ``addMeta``) into ``typed`` by class; a blob that fails becomes a finding."""
    for meta in metas:
        if meta.schema not in _SCHEMAS:
            typed[Meta].append(meta)
            continue
        label, gotype = _SCHEMAS[meta.schema]
        file, line = meta.location.file, meta.location.line
        try:
            item = _decode(meta.data, gotype, gotype, location=meta.location)
            typed[type(item)].append(_with_objects(item) if type(item) is fbc.Bundle else item)
        except _TypeMismatch as exc:
            hint = f"give each field of the {meta.schema} object the type opm expects"
            findings.append(_finding("RK-FBC-007", f"parse {label}: {exc}", file, line, hint))
        except _Refused as exc:
            findings.append(_finding(exc.rule, str(exc), file, line, exc.hint))


def _config(typed: dict[type, list[Any]]) -> DeclarativeConfig:
    return DeclarativeConfig(
        packages=tuple(typed[fbc.Package]),
        channels=tuple(typed[fbc.Channel]),
        bundles=tuple(typed[fbc.Bundle]),
        deprecations=tuple(typed[fbc.Deprecation]),
        others=tuple(typed[Meta]),
    )


def decode_metas(metas: Sequence[Meta]) -> tuple[DeclarativeConfig, tuple[Finding, ...]]:
    """Type every blob (opm's ``addMeta``); blobs that fail become findings and are left out."""
    typed: dict[type, list[Any]] = collections.defaultdict(list)
    findings: list[Finding] = []
    _add_typed(metas, typed, findings)
    return _config(typed), tuple(findings)


# --------------------------------------------------------------------------------------------- entry points


def load_catalog_text(
    data: bytes, file: str, limits: LoadLimits = LoadLimits()
) -> tuple[list[Meta], list[Finding]]:
    """Parse one file's bytes into blobs; content problems are returned as findings."""
    findings: list[Finding] = []
    if not data:
        return [], findings
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        message = f"invalid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        findings.append(_finding("RK-FBC-006", message, file, line, "save the file as UTF-8"))
        return [], findings
    is_json = text.lstrip(" \t\r\n").startswith("{")
    docs: Iterator[tuple[Any, int]]
    if is_json:
        inputs.check_nesting(data, file, yaml=False)
        docs = ((value, line) for value, line, _, _ in _json_docs(text, file, findings))
    elif (forbidden := inputs.screen_yaml(data, file)) is not None:
        line, code = forbidden  # opm's reader stops there; yaml-rs would drop the rest
        message = f"invalid YAML: control characters are not allowed (U+{code:04X})"
        hint = "remove the character; YAML text may not hold NUL or other control characters"
        findings.append(_finding("RK-FBC-001", message, file, line, hint))
        return [], findings
    else:
        docs = _yaml_docs(text, file, findings, limits)
    metas = [
        meta
        for value, line in docs
        if (meta := _meta_from_doc(value, line, file, findings, yaml=not is_json))
    ]
    return metas, findings


def load_catalog(root: Path, limits: LoadLimits = LoadLimits()) -> LoadResult:
    """Load every catalog file under ``root`` (see the module docstring for the rules).

    Raises:
        InputError: the root or a file cannot be read.
        SafetyLimitError: a safety limit refused the input.
    """
    return load_and_check(root, lambda _config: None, limits)[0]


def load_catalog_files(files: Mapping[str, bytes], limits: LoadLimits = LoadLimits()) -> LoadResult:
    """:func:`load_catalog` of files held in memory (shown name → bytes, in opm's order)."""
    metas: list[Meta] = []
    parse_findings: list[Finding] = []
    for file, data in files.items():
        file_metas, found = load_catalog_text(data, file, limits)
        metas += file_metas
        parse_findings += found
    config, type_findings = decode_metas(metas)
    return LoadResult(config=config, findings=(*parse_findings, *type_findings), files=tuple(files))


def load_and_check(
    root: Path, check: Callable[[DeclarativeConfig], _R], limits: LoadLimits = LoadLimits()
) -> tuple[LoadResult, _R]:
    """:func:`load_catalog`, then ``check`` (such as the rules' ``validate_config``) on the catalog.

    Files are read one at a time and let go once parsed. Python's cyclic garbage collector is paused
    meanwhile and then left as it was: loading makes millions of objects and no cycles, and its passes
    over them cost more than a third of loading a big catalog. What was made goes to the collector's
    oldest generation without a pass over it (``gc.freeze``, then ``gc.unfreeze``): the first pass after
    re-enabling would otherwise walk all of it.

    Raises:
        InputError: the root or a file cannot be read.
        SafetyLimitError: a safety limit refused the input.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        typed: dict[type, list[Any]] = collections.defaultdict(list)
        parse_findings: list[Finding] = []
        type_findings: list[Finding] = []
        files = _catalog_files(root, limits)
        for path in files:
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
            metas, findings = load_catalog_text(data, path, limits)
            del data
            parse_findings.extend(findings)
            _add_typed(metas, typed, type_findings)
        config = _config(typed)
        result = LoadResult(config=config, findings=(*parse_findings, *type_findings), files=tuple(files))
        return result, check(config)
    finally:
        if collecting:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
