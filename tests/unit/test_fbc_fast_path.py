"""The JSON fast path (``releasekit.io.fbc_json``) must give exactly what the exact path gives.

``load_catalog`` decodes exact JSON streams with msgspec and keeps property values unparsed; the exact
path (``load_catalog_text`` + ``decode_metas``) parses everything with the json module's semantics. For
any input — well-formed or not, fields in other cases, nulls, wrong types, duplicate keys, huge integers —
both must give equal catalogs, equal findings and equal validation findings.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from releasekit.io.fbc_json import (
    _SHAPES,
    Fallback,
    _border_spans,
    _line_spans,
    _slot_setters,
    decode_exact_stream,
    is_exact,
    object_spans,
)
from releasekit.io.fbc_load import (
    decode_metas,
    load_and_check,
    load_catalog,
    load_catalog_text,
)
from releasekit.model.fbc import PROPERTY_SHAPES, Bundle, Property, RelatedImage
from releasekit.rules.fbc import _property_error, validate_config
from tests.conftest import usual_catalog

# ------------------------------------------------------------------------------------------ strategies

_names = st.sampled_from(["a", "b", "foo", "foo.v0.1.0", "foo.v0.2.0", "Foo", "", "x.y"])
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**15), max_value=10**15),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["k", "v", "K", ":", "d"]), inner, max_size=3),
    ),
    max_leaves=8,
)
_DUP = "__dup__"  # a key replaced in the text by a duplicated key


def _mostly(good: st.SearchStrategy[Any], *bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` nine times in ten, else one of ``bad``."""
    return st.integers(0, 9).flatmap(lambda roll: good if roll or not bad else st.one_of(*bad))


def _field(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a value of the right kind, sometimes null or any JSON value."""
    return _mostly(good, st.none(), _json)


def _shape_value(type_: str) -> st.SearchStrategy[Any]:
    _, fields = PROPERTY_SHAPES[type_]
    kinds = {
        "string": st.text(max_size=5),
        "object": st.dictionaries(st.sampled_from(["owned", "x"]), _json, max_size=2),
        "array": st.lists(_json, max_size=2),
        "map": st.dictionaries(
            st.text(max_size=3), st.one_of(st.text(max_size=3), st.none(), st.integers()), max_size=2
        ),
        "strings": st.lists(st.one_of(st.text(max_size=3), st.none(), st.integers()), max_size=2),
    }
    keys = st.sampled_from([*fields, *(name.upper() for name in fields), "other"])
    return _mostly(
        st.fixed_dictionaries({}, optional={name: _field(kinds[kind]) for name, (kind, _) in fields.items()}),
        st.dictionaries(keys, st.one_of(st.none(), _json), max_size=3),
        _json,
    )


_property_types = st.sampled_from([*PROPERTY_SHAPES, "olm.maxOpenShiftVersion", "custom"])


@st.composite
def _property(draw: st.DrawFn) -> Any:
    type_ = draw(_property_types)
    value = draw(_shape_value(type_)) if type_ in PROPERTY_SHAPES else draw(_json)
    if type_ == "olm.bundle.object" and draw(st.booleans()):
        value = {"data": draw(st.sampled_from(["eyJraW5kIjoiWCJ9", "a2luZDogWQ==", "!!"]))}
    prop = draw(st.fixed_dictionaries({}, optional={"type": _field(st.just(type_)), "value": st.just(value)}))
    return draw(_mostly(st.just(prop), st.none(), _json))


def _items(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return _field(st.lists(_mostly(strategy, st.none()), max_size=3))


_entry = st.fixed_dictionaries(
    {"name": _field(_names)},
    optional={
        "replaces": _field(_names),
        "skips": _items(_names),
        "skipRange": _field(st.just(">=0.1.0 <0.2.0")),
    },
)
_blobs = {
    "olm.package": {
        "name": _names,
        "defaultChannel": _names,
        "icon": st.fixed_dictionaries(
            {},
            optional={
                "base64data": _field(st.sampled_from(["", "aGk=", "!!"])),
                "mediatype": _field(st.text()),
            },
        ),
        "description": st.text(max_size=5),
        "properties": st.lists(_property(), max_size=2),
    },
    "olm.channel": {
        "name": _names,
        "package": _names,
        "entries": st.lists(_entry, max_size=3),
        "properties": st.lists(_property(), max_size=2),
    },
    "olm.bundle": {
        "name": _names,
        "package": _names,
        "image": st.sampled_from(["", "quay.io/a/b@sha256:" + "1" * 64, "quay.io/a/b:v1"]),
        "properties": st.lists(_property(), max_size=4),
        "relatedImages": st.lists(
            st.fixed_dictionaries({}, optional={"name": _names, "image": _names}), max_size=2
        ),
    },
    "olm.deprecations": {
        "package": _names,
        "entries": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "reference": _field(st.fixed_dictionaries({"schema": _names}, optional={"name": _names})),
                    "message": _field(st.text(max_size=4)),
                },
            ),
            max_size=2,
        ),
    },
    "other.schema": {"name": _names, "data": _json},
}


@st.composite
def _blob(draw: st.DrawFn) -> dict[str, Any]:
    schema = draw(st.sampled_from(sorted(_blobs)))
    fields = _blobs[schema]
    blob: dict[str, Any] = {"schema": schema}
    for name, strategy in fields.items():
        if draw(st.integers(0, 5)) == 0:
            continue
        key = name if draw(st.integers(0, 30)) else name.capitalize()
        blob[key] = draw(_field(strategy))
    if draw(st.integers(0, 30)) == 0:
        blob["unknown"] = draw(_json)
    if draw(st.integers(0, 30)) == 0:
        blob[_DUP] = 0
    if draw(st.integers(0, 30)) == 0:
        blob["big"] = [draw(st.integers(min_value=10**20, max_value=10**25)), -(10**22)]
    return blob


def _text(blobs: list[dict[str, Any]], separators: tuple[str, str]) -> bytes:
    lines = [json.dumps(blob, separators=separators) for blob in blobs]
    text = "\n".join(lines) + "\n"
    return text.replace(
        f'"{_DUP}"{separators[1]}0', f'"d"{separators[1]}1{separators[0]}"d"{separators[1]}2'
    ).encode()


def _exact_path(data: bytes, file: str) -> tuple[Any, tuple[Any, ...]]:
    metas, parse_findings = load_catalog_text(data, file)
    config, decode_findings = decode_metas(metas)
    return config, (*parse_findings, *decode_findings)


# ------------------------------------------------------------------------------------------ equivalence


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    blobs=st.lists(_blob(), min_size=1, max_size=5),
    separators=st.sampled_from([(",", ":"), (", ", ": ")]),
)
def test_fast_path_equals_exact_path(
    tmp_path: Path, blobs: list[dict[str, Any]], separators: tuple[str, str]
) -> None:
    data = _text(blobs, separators)
    path = tmp_path / "catalog.json"
    path.write_bytes(data)
    loaded = load_catalog(tmp_path)
    config, findings = _exact_path(data, str(path))
    assert loaded.config == config
    assert loaded.findings == findings
    assert validate_config(loaded.config) == validate_config(config)


def test_fast_path_takes_the_usual_catalog_without_fallbacks(tmp_path: Path) -> None:
    blobs = usual_catalog(
        {"type": "olm.csv.metadata", "value": {"displayName": "Foo", "annotations": {"a": "b"}}}
    )
    data = _text(blobs, (",", ":"))
    spans = object_spans(data)
    assert spans is not None and len(spans) == 3 and is_exact(data, spans)
    (tmp_path / "c.json").write_bytes(data)
    bundle = load_catalog(tmp_path).config.bundles[0]
    metadata = bundle.properties[1]
    assert metadata.shape_verified
    assert metadata._load is not None  # not parsed yet
    assert metadata.value == {"displayName": "Foo", "annotations": {"a": "b"}}
    assert metadata._load is None  # parsed once, then kept


def test_the_fast_factories_refuse_a_model_class_whose_fields_changed() -> None:
    _slot_setters(RelatedImage, ("name", "image"))
    with pytest.raises(TypeError, match="RelatedImage has fields"):
        _slot_setters(RelatedImage, ("name",))


def test_validation_never_parses_a_value_whose_type_has_no_shape(tmp_path: Path) -> None:
    blob = {
        "schema": "olm.bundle",
        "name": "foo.v0.1.0",
        "package": "foo",
        "image": "quay.io/a/foo:v1",
        "properties": [
            {"type": "olm.package", "value": {"packageName": "foo", "version": "0.1.0"}},
            {"type": "olm.maxOpenShiftVersion", "value": "4.18"},
        ],
    }
    (tmp_path / "c.json").write_bytes(_text([blob], (",", ":")))
    config = load_catalog(tmp_path).config
    other = config.bundles[0].properties[1]
    assert other.shape_verified  # nothing to verify: the value is there
    validate_config(config)
    assert other._load is not None  # still unparsed after every check
    assert other.value == "4.18"


def test_a_wrongly_shaped_value_is_not_verified_and_the_rule_words_it(tmp_path: Path) -> None:
    blob = {
        "schema": "olm.bundle",
        "name": "foo.v0.1.0",
        "package": "foo",
        "image": "quay.io/a/foo:v1",
        "properties": [{"type": "olm.csv.metadata", "value": {"displayName": 7}}],
    }
    (tmp_path / "c.json").write_bytes(_text([blob], (",", ":")))
    prop = load_catalog(tmp_path).config.bundles[0].properties[0]
    assert not prop.shape_verified
    assert _property_error(prop.type, prop.value) == (
        "json: cannot unmarshal number into Go struct field CSVMetadata.displayName of type string"
    )


# ------------------------------------------------------------------------------------ exactness checks


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":1234567890123456789}',
        b'{"a":[1, -12345678901234567890]}',
        b'{"a": 1234567890123456789012 }',
        b'{"a":1234567890123456789.5}',
        b'{"a":123456789012345678}',
        b'{"a":"sha256:1234567890123456789012abcdef"}',
        b'{"a":"x:1234567890123456789012,"}',
    ],
)
def test_long_digit_runs_read_as_the_json_module_reads_them(text: bytes) -> None:
    from releasekit.io.fbc_load import _decode_object, _fast_json_object

    expected = json.loads(text)
    assert _fast_json_object(text.decode()) == expected  # a piece on the exact path
    assert _decode_object(base64.b64encode(text).decode()) == expected  # an olm.bundle.object manifest
    assert repr(_fast_json_object(text.decode())) == repr(expected)  # ints stay ints, floats floats


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":{"k":1,"k":2}}\n',
        b'{"a":1}\n{"b":{"x":[{"k":1,"k":2}]}}\n',
        b'{"a":"x\\u003a","a":1}\n',
        b'{"a":NaN}\n',
        b'{"a":"\\ud800"}\n',
        b'{"a":1} {"b":2}\n',
        b'{"a":1}\n[1]\n',
        b'{"a":1\n',
    ],
)
def test_streams_that_msgspec_cannot_take_exactly_are_not_exact(text: bytes) -> None:
    spans = object_spans(text)
    assert spans is not None
    assert not is_exact(text, spans)


@pytest.mark.parametrize(
    ("text", "exact"),
    [
        (b'{"a":{"k":1}}\n{"b":[1,"x:y"]}\n', True),  # each object is its own re-encoding
        (b'{"a":{"k":1}}\n{"b":{"k":1,"k":2}}\n', False),  # the second is not, and lost a key
        (b'{"a": {"k": 1}}\n{"b":{"k":1}}\n', True),  # blanks: counted, nothing lost
        (b'{"a":{"k":1,"k":2}} \n', False),
        (b'{"a":"\\u003a","a":1}\n{"b":1}\n', False),  # an escaped colon cannot hide a lost key
        (b'{"a":1,"a":"\\u003a"}\n', False),
        (b'{"a":"\\u003a"}\n{"b":"\\u003A"}\n', True),
        (b'{"a":1.0e2}\n{"b":1}\n', True),  # re-encoded as 100.0: counted instead
    ],
)
def test_exactness_by_re_encoding_or_by_counting_keys(text: bytes, exact: bool) -> None:
    spans = object_spans(text)
    assert spans is not None
    assert is_exact(text, spans) is exact


def test_integers_beyond_64_bits_stay_exact_on_the_fast_path() -> None:
    text = (
        b'{"schema":"olm.bundle","name":"a.v1","package":"a","properties":'
        b'[{"type":"x.count","value":{"n":-123456789012345678901234}}]}\n'
        b'{"schema":"x.other","n":18446744073709551616}\n'
    )
    spans = object_spans(text)
    assert spans is not None and is_exact(text, spans)
    decoded = decode_exact_stream(text, spans, "c.json")
    assert decoded is not None
    bundle, other = decoded
    assert isinstance(bundle, Bundle) and bundle.properties[0].value == {"n": -123456789012345678901234}
    assert isinstance(other, Fallback) and other.value["n"] == 18446744073709551616


def test_only_streams_starting_with_a_brace_have_spans() -> None:
    assert object_spans(b"schema: x\n") is None
    assert object_spans(b"  \n\t{}") == [(4, 6, 2)]
    assert object_spans(b"") is None
    assert object_spans(b"\n\n") is None


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        (b'{"a":1}\n{"b":2}\n', [(0, 7, 1), (8, 16, 2)]),  # one object per line: found by line
        (b'\n{"a":1}\r\n\n{"b":2}', [(1, 8, 2), (11, 18, 4)]),
        (b'{\n  "a": 1\n}\n{"b":2}\n', [(0, 12, 1), (13, 21, 4)]),  # pretty: cut at the borders
        (b'{"a":1} \n{"b":2}', [(0, 7, 1), (9, 16, 2)]),  # a blank after "}": cut at the border
        (b'{"a":1} {"b":2}\n', [(0, 16, 1)]),  # two objects on one line stay one piece (not exact)
    ],
)
def test_spans_carry_each_object_start_end_and_line(text: bytes, spans: list[tuple[int, int, int]]) -> None:
    assert object_spans(text) == spans


_stream_parts = st.lists(
    st.sampled_from(['{"a":1}', '{"b":"x}"}', "{", "}", '"}"', " ", "\t", "\r", "\n", "\r\n", "{}", ":"]),
    max_size=14,
)


@given(parts=_stream_parts)
def test_spans_by_line_equal_spans_by_border(parts: list[str]) -> None:
    data = "".join(parts).encode()
    by_line = _line_spans(data)
    if by_line is not None:
        assert by_line == _border_spans(data)
    assert object_spans(data) == (by_line or _border_spans(data))


@settings(max_examples=200)
@given(type_=st.sampled_from(sorted(PROPERTY_SHAPES)), data=st.data())
def test_shape_decoders_accept_only_what_the_rule_accepts(type_: str, data: st.DataObject) -> None:
    value = data.draw(_shape_value(type_))
    raw = msgspec.json.encode(value)
    try:
        _SHAPES[type_](raw)
    except msgspec.ValidationError:
        return
    assert _property_error(type_, value) is None


def test_deferred_property_is_read_only_and_compares_by_value() -> None:
    calls: list[str] = []

    def load(text: str) -> Any:
        calls.append(text)
        return json.loads(text)

    lazy = Property.deferred("t", '{"a": 1}', load)
    assert calls == []
    assert lazy == Property(type="t", value={"a": 1})
    assert lazy.value == {"a": 1}
    assert calls == ['{"a": 1}']  # parsed once, then kept
    with pytest.raises(AttributeError):
        lazy.type = "u"  # type: ignore[misc]
    assert repr(lazy) == "Property(type='t', value={'a': 1})"


# ------------------------------------------------------------------------------- load and check


def test_load_and_check_checks_the_exact_catalog_once(tmp_path: Path) -> None:
    good = {"schema": "olm.package", "name": "foo", "defaultChannel": "alpha"}
    (tmp_path / "a.json").write_bytes(_text([good], (",", ":")))
    (tmp_path / "b.json").write_bytes(_text([{"schema": "x", "v": {_DUP: 0}}, good], (",", ":")))
    seen: list[int] = []

    def check(config: Any) -> tuple[Any, ...]:
        seen.append(len(config.packages))
        return validate_config(config)

    loaded, checked = load_and_check(tmp_path, check)
    assert seen == [1]  # b.json is not exact: read the exact way, it stops at its duplicate key
    assert loaded == load_catalog(tmp_path)
    assert checked == validate_config(loaded.config)
    assert [f.rule for f in loaded.findings] == ["RK-FBC-003"]
