"""The YAML fast path (yaml-rs) against PyYAML's reading (issue 14).

yaml-rs reads catalog YAML because it is fast; PyYAML (through :mod:`releasekit.io.yamlio`, which keeps
timestamps as written and refuses duplicate keys, as opm's go-yaml does) is the reference. Every document
of every YAML file under ``../shared/fixtures/`` and of generated documents must come out the same from
both, or be refused by both. The fast path's guards (characters YAML forbids, nesting depth) are applied
to both sides as the loader applies them. Known differences, not generated: YAML 1.1 spellings that
yaml-rs (YAML 1.2) reads otherwise when written unquoted (``yes``/``on``, ``0o17``, ``1:20``, ``1e5`` -- which go-yaml, as opm, reads as a number, like yaml-rs),
and a number past float64's range (``1.0e+999999``: yaml-rs reads infinity, PyYAML infinity or a string).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from releasekit.errors import SafetyLimitError
from releasekit.io.fbc_load import LoadLimits, _yaml_chunks, _yaml_docs
from releasekit.io.inputs import check_nesting, forbidden_character
from releasekit.io.yamlio import YamlContentError, load_yaml_documents

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
    values = [doc.value for doc in _yaml_docs(text, "f.yaml", findings, LoadLimits())]
    return REFUSED if findings else values


def _reference(text: str) -> list[Any] | str:
    """PyYAML's reading of the same documents (split the same way), or REFUSED."""
    values: list[Any] = []
    try:
        for chunk, _line in _yaml_chunks(text):
            docs = load_yaml_documents(chunk, track_paths=False)
            values.append(docs[0].data if docs else None)
    except (YamlContentError, SafetyLimitError):
        return REFUSED
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
        if _fast(text) != _reference(text):
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
]


@pytest.mark.parametrize("text", EDGE_DOCUMENTS, ids=range(len(EDGE_DOCUMENTS)))
def test_edge_documents_read_the_same(text: str) -> None:
    assert _fast(text) == _reference(text)


# Plain scalars PyYAML (YAML 1.1) writes unquoted but yaml-rs (YAML 1.2) reads as numbers: 0o17, and an
# exponent without a dot (0E0, 1e5) -- the latter as go-yaml, and so opm, reads it too.
_YAML12_ONLY = re.compile(r"[-+]?(0o[0-7]+|(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+)$", re.IGNORECASE)

_keys = st.text(max_size=8).filter(lambda s: not _YAML12_ONLY.match(s.strip()))
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20).filter(
        lambda s: not _YAML12_ONLY.match(s.strip())
    )
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
