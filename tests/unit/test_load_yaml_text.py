"""``load_yaml_text`` gives what ``yaml.load`` with releasekit's safe loader gives, value or error, always.

Its fast path builds plain trees itself; aliases, merge keys, other tags and errors go to PyYAML. The
loader is PyYAML's C safe loader that also reads an exponent without a dot (``1e3``) as a float, as opm
does (:data:`releasekit.io.yamlio.EXPONENT_FLOAT`).
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest
import yaml

from releasekit.io.templates import load_yaml_text
from releasekit.io.yamlio import SafeLoader
from tests.conftest import REPO_ROOT

_LOADER: Any = SafeLoader

CASES = [
    "",
    "---\n",
    "a: 1",
    "a: 1\na: 2",
    "a: &x [1]\nb: *x",
    "a: &x {q: 1}\nb: *x\nc: *x",
    "x: &s str\ny: *s",
    "- &a [*a]",
    "a: &r\n  b: *r",
    "<<: {a: 1}\nb: 2",
    "a:\n  <<: [{x: 1}, {y: 2}]\n  x: 3",
    "= : 1",
    "a: =",
    "a: 0x1G",
    "a: 2023-13-45",
    "a: 2023-01-02",
    "a: 2023-01-02 10:00:00",
    "x: !!timestamp 2001-12-14",
    "a: !!binary aGVsbG8=",
    "? !!binary aGk=\n: 1",
    "a: !!set {x, y}",
    "a: !!omap [{x: 1}]",
    "a: !foo x",
    "? [1, 2]\n: x",
    "a: .nan",
    "a: .inf",
    "a: 1_000",
    "a: 0o17",
    "a: 017",
    "a: 1:20",
    "x: 190:20:30",
    "a: yes",
    "x: On",
    "a: ~",
    "a: null",
    "a: 'x'\n'b': \"y\"",
    "a: [1, 2, {b: c}]",
    "x: !!str 1",
    "x: !!int '3'",
    "x: !!float 1",
    "x: !!bool yes",
    "x: !!null ''",
    "- !!map {a: 1}",
    "- !!seq [1]",
    "x: -.5",
    "x: 1e3",
    "x: 1.0e+3",
    "x: 0b101",
    "a: b\n---\nc: d",
    "a: [",
    "{a: 1, a: 2}",
]
FILES = sorted((REPO_ROOT / "bundle-templates").glob("*.yaml")) + sorted(
    (REPO_ROOT / "streams").rglob("*.yaml")
)


def _outcome(load: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", pickle.dumps(load(text))  # pickling keeps shared objects shared, and nan equal
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return "error", (type(exc), str(exc))


@pytest.mark.parametrize("text", CASES + [p.read_text(encoding="utf-8") for p in FILES])
def test_same_value_or_error_as_pyyaml(text: str) -> None:
    assert _outcome(load_yaml_text, text) == _outcome(lambda t: yaml.load(t, Loader=_LOADER), text)  # noqa: S506


def test_an_alias_stays_one_object() -> None:
    data = load_yaml_text("a: &x [1]\nb: *x")
    assert data["a"] is data["b"]


def test_an_exponent_without_a_dot_is_a_float_as_opm_reads_it() -> None:
    """Stock PyYAML (YAML 1.1) reads ``1e-06`` as a string; opm writes small floats that way."""
    assert yaml.safe_load("x: 1e-06") == {"x": "1e-06"}  # the library's own reading, for contrast
    assert load_yaml_text("x: 1e-06\ny: 2E+3\nz: '1e5'") == {"x": 1e-06, "y": 2000.0, "z": "1e5"}
