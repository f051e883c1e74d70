"""The YAML fast path (yaml-rs) against PyYAML's reading (issue 14).

yaml-rs reads catalog YAML because it is fast; PyYAML (through :mod:`releasekit.io.yamlio`, which keeps
timestamps as written and refuses duplicate keys, as opm's go-yaml does) is the reference. Every document
of every YAML file under ``../shared/fixtures/`` and of generated documents must come out the same from
both, or be refused by both. The fast path's guards (characters YAML forbids, nesting depth) are applied
to both sides as the loader applies them. No known differences are left: YAML 1.1 spellings yaml-rs (YAML
1.2) reads otherwise when unquoted (``yes``/``on``, ``0777``, ``0o17``, ``1:20``, ``=``, ``1e5``) and
numbers past float64's range are generated on purpose below.

Where PyYAML and opm's go-yaml v2 themselves differ (``0o17``: go-yaml reads a number; ``1:20``: go-yaml
reads a string; ``y``/``n``: go-yaml reads bools), releasekit follows PyYAML, as issue 14 says, with one
exception: a number with an exponent and no dot (``1e-06``, how opm and releasekit's writer spell a small
float) is a float, as in go-yaml and YAML 1.2 (:data:`releasekit.io.yamlio.EXPONENT_FLOAT`). The
special values of ``test_special_values_get_opms_verdict`` get opm's own verdict, and so do the plain
scalars PyYAML resolves but cannot construct (``=``, ``0x_``, ``0b_``: PyYAML raises, go-yaml reads the
text, and releasekit's catalog writer writes them unquoted as opm does).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from releasekit.errors import SafetyLimitError
from releasekit.io.fbc_load import LoadLimits, _yaml_docs
from releasekit.io.inputs import check_nesting, forbidden_character
from releasekit.io.yamlio import (
    DEFAULT_MAX_NODES,
    YamlContentError,
    _pyyaml,
    load_yaml_documents,
    yaml_chunks,
)

REFUSED = "refused"


def _fast(text: str) -> list[Any] | str:
    """What the catalog loader's YAML path gives: one value per document, or REFUSED."""
    data = text.encode("utf-8", "surrogatepass")
    try:
        check_nesting(data, "f.yaml", yaml=True)
    except SafetyLimitError:
        return REFUSED
    if forbidden_character(data) is not None:
        return REFUSED
    findings: list[object] = []
    values = [value for value, _line in _yaml_docs(text, "f.yaml", findings, LoadLimits())]
    return REFUSED if findings else values


def _pyyaml_values(text: str) -> list[Any] | str:
    """PyYAML's reading of every document of ``text`` (yamlio's event builder alone), or REFUSED."""
    try:
        check_nesting(text.encode("utf-8", "surrogatepass"), "f.yaml", yaml=True)
        return [value for value, _line, _ in _pyyaml(text, DEFAULT_MAX_NODES, False, "f.yaml")]
    except (YamlContentError, SafetyLimitError):
        return REFUSED


def _unified(text: str) -> list[Any] | str:
    """What the reader of every other YAML file gives (:func:`load_yaml_documents`), or REFUSED."""
    try:
        return [doc.data for doc in load_yaml_documents(text)]
    except (YamlContentError, SafetyLimitError):
        return REFUSED


def _reference(text: str) -> list[Any] | str:
    """PyYAML's reading of the same documents (split the same way), or REFUSED."""
    values: list[Any] = []
    for chunk, _line in yaml_chunks(text):
        docs = _pyyaml_values(chunk)
        if docs == REFUSED:
            return REFUSED
        values.append(docs[0] if docs else None)
    if not values:
        values = [None]
    for value in values:
        if _non_finite(value):  # opm turns YAML into JSON, which has no NaN or Infinity: refused
            return REFUSED
    return values


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return False


def _fixture_files(limit: int | None) -> list[Path]:
    from tests.conftest import shared_root

    root = shared_root() / "fixtures"
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.rglob("*")
        if p.suffix in (".yaml", ".yml") and p.is_file() and (limit is None or p.stat().st_size <= limit)
    )


def _check_files(files: list[Path]) -> None:
    differ: list[str] = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if _fast(text) != _reference(text) or _unified(text) != _pyyaml_values(text):
            differ.append(str(path))
    assert differ == []


@pytest.mark.shared
def test_every_small_fixture_yaml_file_reads_the_same(shared: Callable[..., Path]) -> None:
    shared()
    files = _fixture_files(1024 * 1024)
    assert len(files) > 300
    _check_files(files)


@pytest.mark.stress
@pytest.mark.shared
def test_every_fixture_yaml_file_reads_the_same(shared: Callable[..., Path]) -> None:
    """All of them, the 20 MB real catalogs too (minutes: run by hand with ``-m stress``)."""
    shared()
    _check_files(_fixture_files(None))


# Plain scalars YAML 1.1 (PyYAML, the reference) reads otherwise than YAML 1.2 (yaml-rs), and numbers past
# float64's range; yaml-rs already agrees on the last ones
_YAML11_SPELLINGS = [
    *["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"],
    *[
        "0777",
        "-0777",
        "08",
        "0o17",
        "0O17",
        "0X1F",
        "_1",
        "+_1",
        "1:20",
        "-1:20",
        "1:20.5",
        "190:20:30",
        "=",
        "<<",
        "0x_",
        "0b_",
        "1e5",
        "1.5e3",
        "1E+5",
        "+.5",
        "._1",
    ],
    *["1.0e+999999", "1e400", "-1.5e+999"],
    "9" * 400 + ".0",
    *["1_000", "0b101", "-0x1F", ".5", "1.", "~", "y", "n"],
]

EDGE_DOCUMENTS = [
    "a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n",
    "base: &b\n  k: v\n---\nother:\n  <<: [*b]\n  k: w\n",
    "s: |\n  two\n  lines\n",
    "s: >-\n  folded\n  text\n",
    "q: 'it''s'\nd: \"tab\\tnew\\nline \\u00e9\"\n",
    "t: 2024-01-02T03:04:05Z\nd: 2024-01-02\n",
    "a: 1\na: 2\n",
    "- [1, 2, {a: b}]\n- ~\n- null\n",
    "# only a comment\n",
    "",
    "n: 1.5e+3\nm: -0.0\nbig: 123456789012345678901234567890\n",
    "x: .nan\n",
    "x: .inf\n",
    "k: a\x00b\n",
    "k: a\x01b\n",
    "k: a\x7fb\n",
    "k: a\x85b\n",
    "a: " + "[" * 300 + "]" * 300 + "\n",
    "- " * 300 + "x\n",
    "{unclosed: \n",
    "0o17: a\n15: b\n",  # yaml-rs: the same key twice; PyYAML: a string and a number
    "yes: a\nYes: b\n",  # PyYAML: the same key (true) twice
    "a: &x {b: 1}\nc: &y {d: 2}\ne:\n  <<: *x\n  <<: *y\n",  # two merge keys: a duplicate to yaml-rs
    "? [a, yes]\n: c\n",  # a sequence as a key: yaml-rs makes a tuple of it, PyYAML refuses it
    "? {a: 1}\n: c\n",  # a mapping as a key: yaml-rs makes a frozenset of its items
    "? [a, b]\n: c\n",
    "a: !!binary aGVsbG8=\n",  # explicit tags: yaml-rs keeps the text, PyYAML decodes it
    "a: !foo bar\n",  # an unknown tag: yaml-rs drops it, PyYAML refuses it
    "a: [x, !!str 12, !!float 1]\n",
    "a: !!set {x: null}\n",
    "a: b!c\nd: 'e !f'\n",  # '!' inside a scalar is no tag
    "a: " + "x!" * 100 + "\n",  # many of them: read by PyYAML to be sure, the same value
    "a: 1\r0777: b\r",  # a carriage return alone breaks a line: a key starts after it
    "a:\r- yes\r- [0o17]\r",
    "a: 1\r---\rb: 2\r",  # a marker after a carriage return alone is no separator of Kubernetes' reader
    "a: 1\r...\r",
    # lines over 2,048 characters, which the scan looks at where they are (a file of mostly such lines)
    "k: " + "1" * 3000 + ".5\n",
    "k: 0" + "7" * 3000 + "\n",
    "k: " + "a" * 3000 + "\nv: yes\n",
    "data: " + "QUJD" * 1000 + "\nv: [on]\n",
    "yes: " + "QUJD" * 1000 + "\n",
    "k: [" + "a, " * 1000 + "0777]\n",
    "k: {" + "a: b, " * 1000 + "c: off}\n",
    "- " + "x" * 3000 + "\n- 1:20\n",
    "k: [a, &x 0777]\n",  # an anchored flow entry
    "k: [a, ? 0777]\n",  # an explicit key in a flow sequence
    "--- [0777]\n",  # a flow collection on the document marker's line
    "k: {a:[0777, 1.5]}\n",
    "d: |\n  | v | [1.5](u) |\n  [0o17] x\n",  # Markdown in a block scalar: both read text
    # tabs where YAML 1.1 wants indentation or a space: yaml-rs reads some of them, PyYAML refuses them
    *["\t- x\n", "-\tx\n", "a: b\n\t# c\n", "a:\n  - b\n  -\tc\n", "a: |\n  \tx\n", "a: |\n  x\n  \ty\n"],
    "a: &x 1\nb: &x 2\nc: *x\n",  # an anchor given twice: yaml-rs takes the last one, PyYAML refuses it
    *["a: &x 1\nb: *x\n", "a: *x\n", "- **bold** *text*\n", "d: |\n  *Enable* it, &amp;\n"],
    *[
        "--- &a {b: 1}\n",
        "a: 1\n...\nb: 2\n",
        "--- &a [x, *a]\n",
        "--- {a: 1}\n--- {b: 2}\n",
        "--- # c\na: on\n",
    ],
    *["a: 1\n---\n", "---\n---\n", "a: 1\n...\n", "--- |\n  x\n", "%YAML 1.1\n---\na: 1\n", "null\n", "~\n"],
    # a quoted value after a key holds no token, unless a quoted scalar runs over lines
    "rule: 'has(self.x) ? a : !has(self.y) || on'\nm: \"a: 'b', yes\" # c, 1.5\n",
    "k: [ 'a\n  x: ', yes, '\n  z']\n",
    'k: [ "a\\\n  x: ", yes, "\n  z"]\n',
    "k: 'first\n  b: ' yes'\n",
    "'k: ': yes\n",
    "# 4.12, 4.14, yes\nk: v\n",
] + [
    template.format(spelling, spelling)
    for spelling in _YAML11_SPELLINGS
    for template in ("k: {}\n", "- {}\n", "{}: v\n", "f: [{}, x]\n", "f: {{{}: {}}}\n", "{}\n")
]


@pytest.mark.parametrize("text", EDGE_DOCUMENTS, ids=range(len(EDGE_DOCUMENTS)))
def test_edge_documents_read_the_same(text: str) -> None:
    assert _fast(text) == _reference(text)
    assert _unified(text) == _pyyaml_values(text)


_keys = st.text(max_size=8)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
)
_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=4),
    max_leaves=30,
)


@given(value=st.dictionaries(_keys, _values, max_size=5), flow=st.booleans())
def test_generated_documents_read_the_same(value: dict[str, Any], flow: bool) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True, sort_keys=False)
    assert _fast(text) == _reference(text)
    assert _unified(text) == _pyyaml_values(text)


_RISKY = st.sampled_from(_YAML11_SPELLINGS)


@st.composite
def _risky_documents(draw: st.DrawFn) -> str:
    """Block and flow documents with YAML 1.1 spellings written unquoted as keys, values and list items."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        key = draw(_RISKY | st.sampled_from(["a", "b", "name"]))
        shape = draw(st.sampled_from(["value", "list", "flow", "map", "quoted", "over lines"]))
        if shape == "value":
            lines.append(f"{key}: {draw(_RISKY)}")
        elif shape == "list":
            lines.append(
                f"{key}:\n"
                + "".join(f"  - {item}\n" for item in draw(st.lists(_RISKY, min_size=1, max_size=3))).rstrip(
                    "\n"
                )
            )
        elif shape == "flow":
            lines.append(f"{key}: [{', '.join(draw(st.lists(_RISKY, max_size=3)))}]")
        elif shape == "map":
            lines.append(f"{key}: {{{draw(_RISKY)}: {draw(_RISKY)}}}")
        elif shape == "quoted":  # a quoted value holds no token: the scan looks past it
            risky = [draw(_RISKY) for _ in range(6)]
            lines.append(f"{key}: '{risky[0]}: {risky[1]}, !t &a [{risky[2]}]' # {risky[3]}")
            lines.append(f'{key}x: "{risky[4]} #{risky[5]}, \\" yes"')
        else:  # unless a quoted scalar runs over lines: then a line's first quote may close it
            lines.append(f"{key}: [ '{draw(_RISKY)}\n  x: ', {draw(_RISKY)}, '\n  z: {draw(_RISKY)}']")
    return "\n".join(lines) + "\n"


@given(text=_risky_documents())
def test_generated_yaml11_spellings_read_the_same(text: str) -> None:
    assert _fast(text) == _reference(text)
    assert _unified(text) == _pyyaml_values(text)


# opm reads YAML with go-yaml v2 (through sigs.k8s.io/yaml) and turns it into JSON. go-yaml v2 resolves a
# plain scalar as a float when it matches ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ and
# strconv.ParseFloat takes it; ParseFloat fails with a range error past float64's range, so the scalar stays
# a string. .inf and .nan are floats, which JSON cannot hold ("json: unsupported value: +Inf"); NUL and other
# control characters are refused by its reader.
@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("k: 1.0e+999999\n", [{"k": "1.0e+999999"}]),
        ("k: -1.5e+999\n", [{"k": "-1.5e+999"}]),
        ("k: " + "9" * 400 + ".0\n", [{"k": "9" * 400 + ".0"}]),
        ("k: [1.0e+999]\n", [{"k": ["1.0e+999"]}]),
        ("k: =\n=: [=, 0x_, 0b_]\n", [{"k": "=", "=": ["=", "0x_", "0b_"]}]),
        ("k: 1e-06\nj: [1e5, -2E+3]\n", [{"k": 1e-06, "j": [1e5, -2e3]}]),
        ("k: .inf\n", REFUSED),
        ("k: -.Inf\n", REFUSED),
        ("k: .nan\n", REFUSED),
        ("k: .inf\nj: 1.0e+999\n", REFUSED),
        ("k: a\x00b\n", REFUSED),
        ("k: a\x01b\n", REFUSED),
        ("k: a\x7fb\n", REFUSED),
    ],
)
def test_special_values_get_opms_verdict(text: str, verdict: list[Any] | str) -> None:
    assert _fast(text) == verdict
    assert _reference(text) == verdict


def test_yamlio_keeps_an_overflowing_float_as_written() -> None:
    docs = load_yaml_documents("a: 1.0e+999\nb: -.inf\nc: !!float 1e999\nd: 1.5\n", track_paths=False)
    assert docs[0].data == {"a": "1.0e+999", "b": float("-inf"), "c": "1e999", "d": 1.5}


def test_infinity_is_still_refused_with_gos_message() -> None:
    findings: list[Any] = []
    assert list(_yaml_docs("a: 1\nk: .inf\n", "f.yaml", findings, LoadLimits())) == []
    assert [f.message for f in findings] == ["invalid YAML: json: unsupported value: +Inf"]


# Every short plain scalar over the characters that YAML 1.1 and yaml-rs put into numbers, and every case
# spelling of the words either reads as a bool or null: the scan that chooses the reader before parsing
# must send each one that reads otherwise to PyYAML (issue 25), as a key, a value, an item and a flow item.
_NUMBER_ALPHABET = "09.eE+-_:xob"
_WORDS = ["yes", "no", "on", "off", "y", "n", "true", "false", "null", "inf", "nan", "<<", "=", "~"]


def _short_tokens() -> list[str]:
    tokens = list(_NUMBER_ALPHABET)
    tokens += [a + b for a in _NUMBER_ALPHABET for b in _NUMBER_ALPHABET]
    tokens += [a + b + c for a in _NUMBER_ALPHABET for b in _NUMBER_ALPHABET for c in "09._:e"]
    for word in _WORDS:
        tokens += sorted(
            {word, word.title(), word.upper(), "." + word, "." + word.title(), "." + word.upper()}
        )
    return tokens


@pytest.mark.parametrize("template", ["k: {}\n", "{}: v\n", "- {}\n", "k: [a, {}]\n", "k: {{{}: x}}\n"])
def test_every_short_number_or_word_spelling_reads_the_same(template: str) -> None:
    differ = []
    for token in _short_tokens():
        if token.startswith(("-", "?", ":")) and template in ("{}: v\n", "- {}\n"):
            continue  # an indicator, not a scalar, where a block token starts
        text = template.format(token)
        if _fast(text) != _reference(text) or _unified(text) != _pyyaml_values(text):
            differ.append(text)
    assert differ == []


@given(
    values=st.lists(_RISKY, min_size=1, max_size=6),
    quote=st.sampled_from(["'", '"']),
    over_lines=st.booleans(),
)
def test_quoted_values_after_plain_keys_read_the_same(
    values: list[str], quote: str, over_lines: bool
) -> None:
    """The scan looks past a quoted value (issue 25), unless a quoted scalar runs over lines."""
    text = "".join(f"k{i}: {quote}{v}: {v}, !t &a [{v}]{quote} # {v}\n" for i, v in enumerate(values))
    if over_lines:
        text += f"m: [ {quote}a\n  x: {quote}, {values[0]}, {quote}\n  z{quote}]\n"
    assert _fast(text) == _reference(text)
    assert _unified(text) == _pyyaml_values(text)
