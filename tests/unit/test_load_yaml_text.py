"""``load_yaml_text``: one YAML document read by releasekit's loader (:mod:`releasekit.io.yamlio`).

The loader is PyYAML's C safe loader that also reads an exponent without a dot (``1e3``) as a float, as opm
does (:data:`releasekit.io.yamlio.EXPONENT_FLOAT`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from releasekit.errors import TemplateError
from releasekit.io.templates import TemplateSet, load_yaml_text
from releasekit.io.yamlio import SafeLoader, YamlContentError
from tests.conftest import REPO_ROOT

FILES = sorted((REPO_ROOT / "bundle-templates").glob("*.yaml")) + sorted(
    (REPO_ROOT / "streams").rglob("*.yaml")
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_repository_files_read_as_pyyaml_reads_them(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert load_yaml_text(text) == yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader


def test_an_exponent_without_a_dot_is_a_float_as_opm_reads_it() -> None:
    """Stock PyYAML (YAML 1.1) reads ``1e-06`` as a string; opm writes small floats that way."""
    assert yaml.safe_load("x: 1e-06") == {"x": "1e-06"}  # the library's own reading, for contrast
    assert load_yaml_text("x: 1e-06\ny: 2E+3\nz: '1e5'") == {"x": 1e-06, "y": 2000.0, "z": "1e5"}


def test_a_repeated_key_keeps_its_last_value_and_nothing_is_none() -> None:
    assert load_yaml_text("a: 1\nb: 2\na: 3") == {"a": 3, "b": 2}
    assert load_yaml_text("") is None
    assert load_yaml_text("a: &x [1]\nb: *x") == {"a": [1], "b": [1]}


def test_a_second_document_is_refused_with_its_line() -> None:
    with pytest.raises(YamlContentError) as info:
        load_yaml_text("a: b\n---\nc: d")
    assert info.value.line == 3


def test_invalid_rendered_yaml_names_the_template_line(tmp_path: Path) -> None:
    (tmp_path / "t.yaml.j2").write_text("a: 1\nb: {{ '[x' }}\n", encoding="utf-8")
    with pytest.raises(
        TemplateError, match=r"t\.yaml\.j2:2: the rendered YAML is invalid at output line 2: "
    ):
        TemplateSet(tmp_path).render_yaml("t.yaml.j2", {})
