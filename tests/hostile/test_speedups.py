"""The optional compiled twins (:mod:`releasekit.io.speedups`) answer as their pure-Python references do.

The C walk of a parsed YAML document must give :func:`releasekit.io.fbc_load._yaml11_risk_py`'s verdict,
and the C byte screen must clear a file only where the pure-Python screen clears it (its bracket bound may
be higher, never lower), with the same long-indentation answer, the same first forbidden byte and the same
ASCII verdict. Generated values and bytes aim at the edges (number characters, the YAML 1.1 words, every
byte class); the real catalogs under ``../shared/fixtures`` are screened both ways too. Under CI the
extension must have been built, so the compiled path is what the rest of the suite exercises.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml_rs
from hypothesis import given, settings
from hypothesis import strategies as st

from releasekit.io import speedups
from releasekit.io.fbc_load import _YAML11_WORDS, _pyyaml_number, _yaml11_risk, _yaml11_risk_py, _yaml_chunks
from releasekit.io.inputs import (
    _ASCII_ALLOWED,
    _SCREEN_CLASSES,
    _bracket_depth_bound,
    _first_control,
    _long_indent,
    _screen_py,
)

needs_extension = pytest.mark.skipif(speedups.yaml11_risk is None, reason="the C extension was not built")

_TEXT = st.text(alphabet="0123456789+-._:abexoinfINFyesYESnoNOofOF=< \u00e9", max_size=6)
_SCALARS = st.one_of(
    _TEXT,
    st.sampled_from(sorted(_YAML11_WORDS)),
    st.sampled_from(["1:20", "1_000", "0x_", "+1:3.5", "08:00", "1e5", ".inf", "_1", ":", "+", "9"]),
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.tuples(st.integers()),
    st.frozensets(st.integers(), max_size=2),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(_TEXT, st.integers(), st.tuples(st.integers())), inner, max_size=4),
    ),
    max_leaves=25,
)


def test_the_extension_is_built_under_ci() -> None:
    """CI installs with a compiler: the compiled path must be there, or the suite would test only the other."""
    if os.environ.get("CI") != "true":
        pytest.skip("only CI promises a compiler")
    assert speedups.yaml11_risk is not None
    assert speedups.screen is not None
    assert speedups.bracket_bound is not None


def test_an_environment_switch_turns_the_extension_off() -> None:
    code = (
        "from releasekit.io import speedups; "
        "print(speedups.yaml11_risk is None, speedups.screen is None, speedups.bracket_bound is None)"
    )
    env = {**os.environ, "RELEASEKIT_PURE_PYTHON": "1"}
    ran = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert ran.stdout.split() == ["True", "True", "True"]


@needs_extension
@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_the_compiled_walk_gives_the_reference_verdict(value: Any) -> None:
    assert speedups.yaml11_risk is not None
    assert speedups.yaml11_risk(value, _YAML11_WORDS, _pyyaml_number) == _yaml11_risk_py(value)


@pytest.mark.parametrize(
    ("value", "verdict"),
    [
        ({"a": ["b", {"c": "d"}]}, 0),
        ({"a": [1]}, 1),
        ({"a": 1, "b": 1.5}, 2),
        ({"on": "x"}, 2),
        ({"a": ["x", "1:20"]}, 2),
        ({"a": "2024-01-01T00:00:00Z"}, 0),
        ({(1, 2): "x"}, 2),
        ([True, None, False], 0),
        ([[[[["yes"]]]]], 2),
    ],
)
def test_the_walk_verdicts_either_way(monkeypatch: pytest.MonkeyPatch, value: Any, verdict: int) -> None:
    """The loader's entry point gives the same verdict with and without the extension."""
    assert _yaml11_risk(value) == verdict
    monkeypatch.setattr(speedups, "yaml11_risk", None)
    assert _yaml11_risk(value) == verdict


def test_a_deep_document_does_not_overflow_the_walk() -> None:
    value: Any = "yes"
    for _ in range(100_000):
        value = [value]
    assert _yaml11_risk(value) == 2
    assert _yaml11_risk_py(value) == 2


_BYTES = st.lists(
    st.sampled_from(
        [b"a", b" ", b"\t", b"-", b"?", b":", b"\n", b"\r", b"[", b"]", b"{", b"}", b"\x00", b"\x07", b"\x7f"]
        + [b"\x85", b"\xc3\xa9", b"  ", b"- ", b"[[", b"]]", b"x: y\n", b"!", b",", b"!!", b"a!"]
    ),
    max_size=80,
).map(b"".join)


def _compare_screens(data: bytes, limit: int) -> None:
    assert speedups.screen is not None
    bound, long_indent, control, ascii_only, tag = speedups.screen(data, _SCREEN_CLASSES, limit // 4)
    assert tag == (re.search(rb"(?:\A|(?<=[ \t\r\n\[\]{},:?-]))!", data) is not None)
    assert long_indent == (
        limit // 4 <= 0 or re.search(rb"(?:\A|\n)[ \t?:-]{%d}" % (limit // 4), data) is not None
    )
    assert long_indent == _long_indent(data, limit // 4)
    if _bracket_depth_bound(data, limit) > limit // 2:
        assert bound > limit // 2  # the compiled bound never clears what the reference bound does not
    deep, py_control, py_ascii = _screen_py(data, limit)
    if deep:
        assert bound > limit // 2 or long_indent
    assert control == py_control == _first_control(data, data.translate(None, _ASCII_ALLOWED))
    assert ascii_only == py_ascii == data.isascii()


@needs_extension
@settings(max_examples=400, deadline=None)
@given(_BYTES, st.sampled_from([4, 8, 12, 256]), st.integers(min_value=0, max_value=40))
def test_the_compiled_screen_clears_only_what_the_reference_clears(
    data: bytes, limit: int, shift: int
) -> None:
    """At any offset (blocks of 16 bytes without a stopping byte are passed over whole)."""
    _compare_screens(b"a" * shift + data, limit)
    _compare_screens(b"a: " + b"x" * shift + b"\n" + data, limit)


@needs_extension
@pytest.mark.parametrize(
    "data",
    [b"", b"[" * 200, b"]" * 200 + b"[" * 200, b"[[[]]]" + b"[" * 130, b"-" * 64, b"a\n" + b" " * 70 + b"x"],
)
def test_the_compiled_screen_at_its_edges(data: bytes) -> None:
    _compare_screens(data, 256)


@needs_extension
@pytest.mark.shared
def test_both_screens_and_walks_agree_on_real_catalogs(shared: Any) -> None:
    """Every YAML catalog file under the shared fixtures: same screen answers, same walk verdicts."""
    root: Path = shared("real-catalogs")
    files = sorted(path for path in root.rglob("*") if path.is_file() and path.suffix in (".yaml", ".yml"))
    assert files
    for path in files[::7]:  # a seventh of them keeps the suite fast; every kind of catalog is among them
        data = path.read_bytes()
        _compare_screens(data, 256)
        for chunk, _line in _yaml_chunks(data.decode("utf-8")):
            try:
                value = yaml_rs.loads(chunk, parse_datetime=False)
            except yaml_rs.YAMLDecodeError:
                continue
            assert speedups.yaml11_risk is not None
            assert speedups.yaml11_risk(value, _YAML11_WORDS, _pyyaml_number) == _yaml11_risk_py(value)


@pytest.mark.parametrize(
    ("data", "refused"),
    [
        (b'{"a": ' + b"[" * 300 + b"]" * 300 + b"}", True),
        (b'{"a": [' + b"[]," * 2000 + b"[]]}", False),
        (b'{"a": "' + b"[" * 300 + b'"}', False),  # brackets inside a string do not nest
        (b"a:\n" + b"".join(b" " * n + b"- x:\n" for n in range(0, 600, 2)), True),
    ],
    ids=["deep-json", "wide-json", "json-string", "deep-yaml-block"],
)
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "pure"])
def test_check_nesting_gives_one_answer_either_way(
    monkeypatch: pytest.MonkeyPatch, data: bytes, refused: bool, compiled: bool
) -> None:
    from releasekit.errors import SafetyLimitError
    from releasekit.io.inputs import check_nesting

    if compiled and speedups.screen is None:
        pytest.skip("the C extension was not built")
    if not compiled:
        monkeypatch.setattr(speedups, "screen", None)
    yaml = not data.startswith(b"{")
    if refused:
        with pytest.raises(SafetyLimitError, match="nested deeper than"):
            check_nesting(data, "f", yaml=yaml)
    else:
        check_nesting(data, "f", yaml=yaml)


def _bound_reference(data: bytes) -> int:
    """bracket_bound's formula followed byte by byte: the running depth's highest and lowest values."""
    running = high = low = 0
    for byte in data:
        byte |= 0x20
        running += (byte == 0x7B) - (byte == 0x7D)
        high, low = max(high, running), min(low, running)
    return (high - low) + (running - low) - low


@needs_extension
@settings(max_examples=400, deadline=None)
@given(_BYTES, st.integers(min_value=0, max_value=40))
def test_the_compiled_bracket_bound_follows_its_formula(data: bytes, shift: int) -> None:
    """Blocks of 16 bytes are passed over only when they cannot change the answer: any offset, same bound,
    and it never clears what the reference bound does not."""
    assert speedups.bracket_bound is not None
    data = b"a" * shift + data
    bound = speedups.bracket_bound(data)
    assert bound == _bound_reference(data)
    for limit in (4, 8, 12, 256):
        if _bracket_depth_bound(data, limit) > limit // 2:
            assert bound > limit // 2


@needs_extension
@pytest.mark.parametrize("depth", [0, 1, 15, 16, 17, 200])
def test_the_compiled_bracket_bound_is_the_depth_of_balanced_brackets(depth: int) -> None:
    assert speedups.bracket_bound is not None
    value = b'{"a": ' * depth + b"1" + b"}" * depth
    assert speedups.bracket_bound(b"[" + value + b", " + value + b"]") == depth + 1


@pytest.mark.parametrize(
    "text",
    [
        "schema: olm.package\nname: !!str 1\n",
        "schema: olm.package\nname: a\nv: !foo x\n",
        "schema: olm.package\nname: a\nv: [!!binary aGk=]\n",
        "schema: olm.package\nname: a\nv: {k: !!set {x}}\n",
        "schema: olm.package\nname: a\nv: 'not! a tag'\n",
        "schema: olm.package\nname: a\nv: " + "b!" * 100 + "\n---\nschema: olm.package\nname: on\n",
        "\ufeff!!map {schema: olm.package, name: a}\n",
        "schema: olm.package\nname: a\nv:\r\n- !!str 1\n",
    ],
    ids=["str", "local", "flow-binary", "set", "in-a-word", "many-in-words", "after-bom", "after-cr"],
)
def test_explicit_tags_read_the_same_with_and_without_the_compiled_screen(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """The compiled screen lets the loader skip the per-document tag search when no '!' stands where a
    token may start; the catalog read is the same as with the search."""
    from releasekit.io.fbc_load import load_catalog_text

    data = text.encode()
    compiled = load_catalog_text(data, "f.yaml")
    monkeypatch.setattr(speedups, "screen", None)
    assert load_catalog_text(data, "f.yaml") == compiled


def test_the_screen_classes_where_a_token_may_start_are_the_loaders() -> None:
    """The compiled screen tells token starts by class (2 to 5 and 8); the loader's tag search by the set
    both are built from."""
    from releasekit.io.inputs import TOKEN_STARTS_AFTER

    starts = {chr(byte) for byte in range(128) if _SCREEN_CLASSES[byte] in (2, 3, 4, 5, 8)}
    assert starts == set(TOKEN_STARTS_AFTER)
