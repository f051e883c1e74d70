"""The ``to_yaml`` / ``to_json`` template filters: YAML that reads back as the value, and an undefined value
reported as such (with the template's file and line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from releasekit.errors import TemplateError
from releasekit.io.templates import TemplateSet, to_json, to_yaml

TRICKY = [
    "",
    " ",
    " lead",
    "trail ",
    "a: b",
    "a:b",
    "a:",
    ":a",
    "- a",
    "-a",
    "-",
    "? x",
    "#x",
    "a #b",
    "a#b",
    "yes",
    "no",
    "No",
    "on",
    "OFF",
    "y",
    "null",
    "~",
    "true",
    "1e3",
    "1.0e3",
    "0o17",
    "017",
    "0x1F",
    "1_000",
    "1:30",
    ".inf",
    ".NaN",
    "2024-01-02",
    "2024-01-02T03:04:05Z",
    "<<",
    "=",
    "---",
    "...",
    "--- x",
    "it's",
    "'quoted'",
    '"dq"',
    "a\nb",
    "a\nb\n",
    "a\n\nb",
    "a\n\n",
    "\na",
    " a\nb",
    "a \nb",
    "a\n b",
    "a\tb",
    "\t",
    "a\rb",
    "a\x85b",
    "a\u2028b",
    "\ufeffbom",
    "ünïcødé ✓ 日本",
    "emoji 🎉",
    "[x]",
    "{x}",
    "*alias",
    "&anchor",
    "!tag",
    "%x",
    "@x",
    "`x",
    "|",
    ">",
    "x" * 130,
]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(TRICKY)
)
keys = st.text() | st.sampled_from(TRICKY)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=20,
)


def _round_trip(value: Any, indent: int = 0) -> Any:
    # A template line ends after the filter: the newline closes a final literal block (``|`` keeps it).
    return yaml.safe_load("k:" + to_yaml(value, indent) + "\n")["k"]


@given(json_values)
@settings(max_examples=400, deadline=None)
@example({"a": TRICKY})
@example({t: t for t in TRICKY})
@example([[1, [2, {}]], {"x": []}, {"y": {"z": "a\nb\n"}}])
def test_to_yaml_reads_back_as_the_value(value: Any) -> None:
    assert _round_trip(value, 2) == value
    assert _round_trip(value, 4) == value


def test_to_yaml_scalars_and_empty_collections_stay_on_the_key_line() -> None:
    assert to_yaml({}) == " {}"
    assert to_yaml([]) == " []"
    assert to_yaml(()) == " []"
    assert to_yaml("a: b") == ' "a: b"'
    assert to_yaml(None) == " null"
    assert to_yaml((1, "x"), 2) == "\n  - 1\n  - x"


@pytest.mark.parametrize("flt", ["to_json", "to_yaml"])
def test_undefined_value_is_reported_with_its_name_and_line(tmp_path: Path, flt: str) -> None:
    (tmp_path / "t.yaml.j2").write_text(f"a: 1\nb: {{{{ missing | {flt} }}}}\n", encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        TemplateSet(tmp_path).render("t.yaml.j2", {})
    message = str(info.value)
    assert "undefined value in template: 'missing' is undefined" in message
    assert "t.yaml.j2:2" in message
    assert "not JSON serializable" not in message


def test_undefined_attribute_is_reported(tmp_path: Path) -> None:
    (tmp_path / "t.yaml.j2").write_text("x: {{ obj.nope | to_json }}\n", encoding="utf-8")
    with pytest.raises(TemplateError, match=r"t\.yaml\.j2:1: undefined value in template: .*'nope'"):
        TemplateSet(tmp_path).render("t.yaml.j2", {"obj": {}})


def test_to_json_is_unchanged_for_values() -> None:
    assert to_json("é") == '"é"'
    assert to_json({"a": [1, None]}) == '{"a": [1, null]}'
