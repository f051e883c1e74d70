"""``load_yaml_text``: one YAML document read by releasekit's loader (:mod:`releasekit.io.yamlio`).

The loader is PyYAML's C safe loader that also reads an exponent without a dot (``1e3``) as a float, as opm
does (:data:`releasekit.io.yamlio.EXPONENT_FLOAT`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from releasekit.errors import SafetyLimitError, TemplateError
from releasekit.io.templates import TemplateSet, load_yaml_text
from releasekit.io.yamlio import SafeLoader, YamlContentError, load_yaml_documents
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


def _bomb(levels: int) -> str:
    """Each level names the previous one ten times: 10**levels nodes once expanded."""
    return "a0: &a0 [x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, levels + 1)
    )


def _traced_lines(text: str, max_nodes: int) -> int:
    """Python lines run while loading ``text`` (a timing-free measure of the work)."""
    count = 0

    def trace(_frame: object, event: str, _arg: object) -> object:
        nonlocal count
        count += event == "line"
        return trace

    sys.settrace(trace)
    try:
        load_yaml_documents(text, max_nodes=max_nodes, source="bomb.yaml")
    except SafetyLimitError:
        pass
    finally:
        sys.settrace(None)
    return count


def test_an_alias_bomb_is_refused_by_the_node_count_after_a_few_events() -> None:
    with pytest.raises(SafetyLimitError, match=r"bomb\.yaml:\d+: .*alias"):
        load_yaml_documents(_bomb(9), source="bomb.yaml")
    # an alias counts the nodes of what it names without building them again: the work grows with the
    # text, not with the expansion, whether the count refuses the document or not
    for max_nodes in (1_000, 10**40):
        assert _traced_lines(_bomb(30), max_nodes) <= 2.5 * _traced_lines(_bomb(15), max_nodes)


def test_aliases_merge_keys_and_lines_come_out_as_written() -> None:
    text = "base: &b {k: v, n: 1}\nitems:\n  - <<: *b\n    n: 2\n  - *b\n"
    (doc,) = load_yaml_documents(text)
    assert doc.data == {"base": {"k": "v", "n": 1}, "items": [{"k": "v", "n": 2}, {"k": "v", "n": 1}]}
    assert list(doc.data["items"][0]) == ["k", "n"]  # merged keys first, as PyYAML orders them
    assert doc.line_of("$.items[0].n") == 4
    assert doc.line_of("$.items[1]") == 5
    with pytest.raises(YamlContentError, match="undefined alias"):
        load_yaml_documents("a: &a [*a]\n")
    with pytest.raises(YamlContentError, match="duplicate anchor 'x'") as info:
        load_yaml_documents("a: &x 1\nb: &x [2]\n")
    assert info.value.line == 2


def _counting_pyyaml(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the text of every PyYAML reading (issue 25: yaml-rs reads, PyYAML finds lines when asked)."""
    from releasekit.io import yamlio

    read: list[str] = []
    real = yamlio._pyyaml

    def counting(text: str, *args: Any) -> Any:
        read.append(text)
        return real(text, *args)

    monkeypatch.setattr(yamlio, "_pyyaml", counting)
    return read


def test_lines_are_found_only_when_asked_for_and_then_once(monkeypatch: pytest.MonkeyPatch) -> None:
    read = _counting_pyyaml(monkeypatch)
    text = "a: 1\nb:\n  - x\n  - c: 'y'\n"
    (doc,) = load_yaml_documents(text)
    assert (doc.data, doc.line, read) == ({"a": 1, "b": ["x", {"c": "y"}]}, 1, [])
    assert doc.line_of("$.b[1].c") == 4
    assert doc.lines_under("$.b") == [("", 2), ("[0]", 3), ("[1]", 4), ("[1].c", 4)]
    assert doc.line_of("$.b[7]") == 2
    assert read == [text]  # once, on the first question
    (untracked,) = load_yaml_documents(text, track_paths=False)
    assert untracked.lines == {} and len(read) == 1


def test_yaml_1_1_spellings_and_duplicate_keys_still_read_as_pyyaml_reads_them() -> None:
    (doc,) = load_yaml_documents("a: yes\nb: 0777\nc: 1e-06\nd: 2024-01-02\ne: '!x: on'\n")
    assert doc.data == {"a": True, "b": 511, "c": 1e-06, "d": "2024-01-02", "e": "!x: on"}
    with pytest.raises(YamlContentError, match="duplicate key 'a'") as info:
        load_yaml_documents("a: 1\nb: 2\na: 3\n")
    assert info.value.line == 3
    with pytest.raises(YamlContentError, match="too long"):
        load_yaml_documents("a: " + "9" * 5000 + "\n")


def test_a_build_reads_the_operator_records_without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """The records (~330 KB) are the largest YAML a build reads and never get a finding with a line."""
    from releasekit.io.operator_records import load_operator_records

    read = _counting_pyyaml(monkeypatch)
    records, findings = load_operator_records(REPO_ROOT / "streams")
    assert len(records) >= 11 and findings == [] and read == []


def test_documents_are_read_lazily_so_a_first_document_comes_before_a_later_error() -> None:
    """A bundle manifest is its file's first document: what follows it is not read (as before issue 25)."""
    from releasekit.io.yamlio import iter_yaml_documents

    documents = iter_yaml_documents("kind: A\n---\n{broken")
    assert next(documents).data == {"kind": "A"}
    with pytest.raises(YamlContentError):
        next(documents)
