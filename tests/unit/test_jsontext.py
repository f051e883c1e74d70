"""JSON text inside documents is read within the nesting limit (releasekit.model.jsontext)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from releasekit.model import jsontext


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_KEYS = st.text(alphabet='ab[]{}"\\:,', max_size=4)
_VALUES = st.recursive(
    st.one_of(st.none(), st.integers(), _KEYS),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=40,
)


@given(_VALUES, st.integers(min_value=0, max_value=6))
def test_the_depth_of_json_text_is_its_values_depth(value: Any, limit: int) -> None:
    """Brackets inside strings (escaped quotes too) do not count; the answer is the value's own depth."""
    assert (jsontext.too_deep_at(json.dumps(value), limit) is not None) == (_depth(value) > limit)


def test_loads_refuses_text_past_the_limit_as_a_value_error() -> None:
    deep = "[" * 300 + "]" * 300
    with pytest.raises(ValueError, match="nested deeper than 256 levels"):
        jsontext.loads(deep)
    assert jsontext.loads("[" * 256 + "]" * 256) is not None
    assert jsontext.loads('{"a": "' + "[" * 1000 + '"}') == {"a": "[" * 1000}


def test_the_line_where_json_text_first_nests_too_deep() -> None:
    """Strings are blanked out without moving lines: the line and depth are those of the bracket itself."""
    text = '{\n"a": "[[[[",\n"b": ' + "[" * 300 + "]" * 300 + "}"
    assert jsontext.too_deep_at(text, 256) == (3, 257)
    assert jsontext.too_deep_at(text, 400) is None
