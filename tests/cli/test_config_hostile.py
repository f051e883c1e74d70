"""Hostile ``releasekit.yaml`` values (issue 23), and every pattern of the shipped schemas.

A config whose paths collide, leave the repository, are empty or end in a newline is an RK-STREAM-040
finding at its line; ``build`` then writes nothing and never ends in a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from releasekit.io.config import load_layout
from releasekit.model.layout import DEFAULT_LAYOUT
from tests.cli.test_build_published import init_repo, tree_hashes

SCHEMAS = Path(__file__).resolve().parents[2] / "releasekit" / "schemas"
HEAD = "schema: releasekit/config/v1\ncatalog:\n"


def _findings(tmp_path: Path, text: str) -> list[tuple[str, int | None, str]]:
    (tmp_path / "releasekit.yaml").write_text(text)
    layout, findings = load_layout(tmp_path)
    if findings:
        assert layout == DEFAULT_LAYOUT  # the default meanwhile, so the rest is still checked
    return [(f.rule, f.location.line, f.message) for f in findings]


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ('  root: "catalog\\n"\n', 3),  # would write a folder named "catalog\n"
        ('  fbcDir: "configs\\n"\n', 3),
        ('  containerfile: "Containerfile\\n"\n', 3),
        ('  root: "catalog/v4.18\\n"\n', 3),
        ("  root: ..\n", 3),
        ("  root: catalog/../..\n", 3),
        ("  root: ./catalog\n", 3),
        ("  root: catalog/\n", 3),
        ("  root: /srv/catalog\n", 3),
        ('  root: ""\n', 3),
        ('  fbcDir: ""\n', 3),
        ("  fbcDir: ..\n", 3),
        ("  fbcDir: .\n", 3),
        ('  containerfile: ""\n', 3),
        ("  containerfile: catalog/Containerfile\n", 3),  # inside the FBC folder
        ("  containerfile: ../Containerfile\n", 3),
        ('  root: "C:\\\\catalog"\n', 3),
        ('  root: "cat\\ealog"\n', 3),  # an escape character in the name
        ('  containerfile: "Container\\u2028file"\n', 3),
    ],
)
def test_a_path_that_is_empty_absolute_escaping_or_multiline_is_refused(
    tmp_path: Path, body: str, line: int
) -> None:
    found = _findings(tmp_path, HEAD + body)
    assert [(rule, at) for rule, at, _ in found] == [("RK-STREAM-040", line)]
    message = found[0][2]
    assert message.isprintable(), message  # control characters are shown escaped, never raw


@pytest.mark.parametrize(
    ("body", "line", "names"),
    [
        ("  fbcDir: catalog\n  containerfile: catalog\n", 4, ("catalog", "catalog")),
        ("  layout: kueue-fbc\n  containerfile: catalog\n", 4, ("catalog", "catalog")),  # the preset's fbcDir
        ("  fbcDir: Containerfile\n", 3, ("Containerfile", "Containerfile")),  # the default containerfile
        ("  containerfile: Configs\n", 3, ("Configs", "configs")),  # one path on macOS and Windows
    ],
)
def test_a_containerfile_that_is_the_fbc_folder_is_a_finding(
    tmp_path: Path, body: str, line: int, names: tuple[str, str]
) -> None:
    found = _findings(tmp_path, HEAD + body)
    assert [(rule, at) for rule, at, _ in found] == [("RK-STREAM-040", line)]
    assert f"catalog.containerfile {names[0]!r} and catalog.fbcDir {names[1]!r}" in found[0][2]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("  root: streams\n  writes: files\n", "catalog.root 'streams' is the input 'streams'"),
        ("  root: bundle-templates\n  writes: files\n", "is the input 'bundle-templates'"),
        ("  root: streams/openshift\n  writes: files\n", "lies inside the input 'streams'"),
        (
            "  root: Bundle-Templates/x\n",
            "lies inside the input 'Bundle-Templates'",
        ),  # one path, ignoring case
        ("  root: releasekit.yaml\n", "is the input 'releasekit.yaml'"),
        ("  root: README.md\n", "catalog.root 'README.md': 'README.md' is a file, not a folder"),
        ("  root: README.md/catalog\n", "'README.md' is a file, not a folder"),
    ],
)
def test_a_root_among_the_inputs_or_through_a_file_is_a_finding(
    tmp_path: Path, body: str, message: str
) -> None:
    (tmp_path / "README.md").write_text("a file\n")
    found = _findings(tmp_path, HEAD + body)
    assert [(rule, at) for rule, at, _ in found] == [("RK-STREAM-040", 3)]
    assert message in found[0][2]


def test_usual_names_stay_accepted(tmp_path: Path) -> None:
    for body in (
        "  root: fbc/catalogs\n  containerfile: catalog.Dockerfile\n",
        "  root: .\n  writes: files\n",
        "  fbcDir: _x.y-z\n",
    ):
        assert _findings(tmp_path, HEAD + body) == []


@pytest.mark.parametrize(
    "body",
    [
        "  fbcDir: catalog\n  containerfile: catalog\n",
        '  root: "catalog\\n"\n',
        "  root: bundle-templates\n  writes: files\n",  # catalogs written among the templates
        "  root: releasekit.yaml\n",  # NotADirectoryError
    ],
)
def test_build_with_a_degenerate_config_writes_nothing_and_reports_the_line(
    tmp_path: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch, body: str
) -> None:
    root = init_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    (root / "releasekit.yaml").write_text(HEAD + body)
    before = {name: tree_hashes(root / name) for name in ("catalog", "streams", "bundle-templates")}
    result = run_line(["build", "--format", "json"])  # catch_exceptions=False: a traceback fails here
    assert result.exit_code == 1, result.stdout + result.stderr
    config = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-STREAM-040"]
    assert [(f["location"]["file"], f["location"]["line"]) for f in config] == [
        ("releasekit.yaml", 3 if "root" in body else body.count("\n") + 2)
    ]
    assert {name: tree_hashes(root / name) for name in before} == before
    assert not any("\n" in p.name for p in root.rglob("*"))


# --------------------------------------------------------------------- every pattern of every schema


def _patterns(node: Any, where: str) -> Iterator[tuple[str, str]]:
    """``(where, pattern)`` for every ``pattern`` keyword (not a property *named* pattern)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield where, value
            elif key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    yield from _patterns(sub, f"{where}.{name}")
            else:
                yield from _patterns(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _patterns(item, f"{where}[{index}]")


PATTERNS = sorted(
    (f"{path.name}:{where}", pattern)
    for path in SCHEMAS.glob("*.json")
    for where, pattern in _patterns(json.loads(path.read_text()), "$")
)


def test_the_schemas_have_patterns() -> None:
    names = {name.split(":")[0] for name, _ in PATTERNS}
    assert {"releasekit.schema.json", "lifecycle.schema.json", "stream.schema.json"} <= names
    assert len(PATTERNS) >= 20


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[name for name, _ in PATTERNS])
@settings(
    max_examples=30,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],  # lookaheads filter
)
@given(data=st.data())
def test_every_schema_pattern_refuses_a_trailing_newline(
    name: str, pattern: str, data: st.DataObject
) -> None:
    """jsonschema runs ``re.search``, whose ``$`` also matches before a final newline: each pattern is
    anchored at both ends, uses ASCII digits, and refuses ``<a value it accepts>\\n``."""
    assert pattern.startswith("^") and pattern.endswith("$(?!\\n)"), name
    assert "\\d" not in pattern and "\\w" not in pattern and "\\s" not in pattern, name
    example = data.draw(st.from_regex(pattern.removesuffix("(?!\\n)"), fullmatch=True))
    assume("\n" not in example)
    assert re.search(pattern, example), (name, example)
    assert not re.search(pattern, example + "\n"), (name, example)
    assert not re.search(pattern, example + "\r\n"), (name, example)


def test_the_schema_validator_refuses_a_trailing_newline() -> None:
    """jsonschema (the one validator releasekit runs) refuses a trailing newline in a configured path."""
    from jsonschema import Draft202012Validator

    schema = json.loads((SCHEMAS / "releasekit.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    for value, valid in (("catalog", True), ("catalog\n", False), ("a/b", True), ("a/b\n", False)):
        document = {"schema": "releasekit/config/v1", "catalog": {"root": value}}
        assert Draft202012Validator(schema).is_valid(document) is valid
