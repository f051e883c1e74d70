"""``releasekit catalog matrix`` and ``catalog validate --graph`` across OpenShift catalogs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)


@pytest.mark.usefixtures("in_repo")
def test_matrix_json_follows_the_contract(run_line: Callable[..., Result]) -> None:
    result = run_line(["catalog", "matrix", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    upgrades = document["upgrades"]
    assert [(u["from"], u["to"], u["kind"]) for u in upgrades][:3] == [
        ("v4.18", "v4.19", "minor"),
        ("v4.18", "v4.20", "eus"),
        ("v4.19", "v4.20", "minor"),
    ]
    for upgrade in upgrades:
        assert upgrade["kind"] in ("minor", "eus", "major")
        for row in upgrade["versions"]:
            assert set(row) in ({"version", "reaches", "path"}, {"version", "stranded", "why"})
    by_kind = {
        kind: sum(1 for u in upgrades if u["kind"] == kind for r in u["versions"] if r.get("stranded"))
        for kind in ("minor", "eus", "major")
    }
    assert by_kind == {"minor": 10, "eus": 8, "major": 0}


@pytest.mark.usefixtures("in_repo")
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_matrix_text_and_markdown(run_line: Callable[..., Result], fmt: str) -> None:
    result = run_line(["catalog", "matrix", "catalog", "--format", fmt])
    assert result.exit_code == 0, result.stderr
    assert "10 along minor upgrades, 8 along eus upgrades" in result.stdout
    if fmt == "markdown":
        assert "## kueue-operator: v4.18 → v4.20 (eus)" in result.stdout
        assert "| 1.0.0 | **stranded** | not in the v4.20 catalog" in result.stdout
    else:
        assert "kueue-operator: v4.22 -> v5.0 (major)" in result.stdout


def test_matrix_without_a_lifecycle_goes_minor_by_minor(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_line(["catalog", "matrix", str(REPO_ROOT / "catalog"), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    kinds = {u["kind"] for u in json.loads(result.stdout)["upgrades"]}
    assert kinds == {"minor"}


def test_matrix_unreadable_input_exits_2(run_line: Callable[..., Result], tmp_path: Path) -> None:
    result = run_line(["catalog", "matrix", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    bad = tmp_path / "lifecycle.yaml"
    bad.write_text("schema: releasekit/openshift-lifecycle/v1\nversions: [4.18]\n")
    result = run_line(["catalog", "matrix", str(REPO_ROOT / "catalog"), "--lifecycle", str(bad)])
    assert result.exit_code == 2
    assert "lifecycle.yaml:2" in result.stderr


@pytest.mark.usefixtures("in_repo")
def test_validate_graph_checks_cluster_upgrades_between_the_folders(run_line: Callable[..., Result]) -> None:
    result = run_line(
        [
            "catalog",
            "validate",
            "--graph",
            "catalog/v4.18/configs",
            "catalog/v4.20/configs",
            "--format",
            "json",
        ]
    )
    stranded = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-GRAPH-010"]
    assert len(stranded) == 5 and all("from v4.18 to v4.20" in f["message"] for f in stranded)
    tree = run_line(["catalog", "validate", "--graph", "catalog", "--format", "json"])
    assert tree.exit_code == 0
    assert sum(f["rule"] == "RK-GRAPH-010" for f in json.loads(tree.stdout)["findings"]) == 18


# ------------------------------------------------------------------ hostile lifecycle files (issue 23)

_HEAD = (
    "schema: releasekit/openshift-lifecycle/v1\nversions: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]\n"
)


def _streams_with_lifecycle(tmp_path: Path, text: str) -> Path:
    """A copy of this repository's streams/ (the product's own data) whose lifecycle is ``text``."""
    import shutil

    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    (streams / "openshift" / "lifecycle.yaml").write_text(text)
    return streams


@pytest.mark.parametrize(
    ("upgrades", "line"),
    [
        ("upgrades:\n  - {from: v4.19, to: v4.19, kind: minor}\n", 4),  # a self-edge
        (
            "upgrades:\n  - {from: v4.18, to: v4.19, kind: minor}\n  - {from: v4.19, to: v4.18, kind: minor}\n",
            5,
        ),
    ],
    ids=["self-edge", "cycle"],
)
def test_matrix_refuses_the_lifecycle_build_refuses(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upgrades: str, line: int
) -> None:
    from releasekit.jobs.streams_validate import validate_streams

    streams = _streams_with_lifecycle(tmp_path, _HEAD + upgrades)
    _, report = validate_streams(streams, display_root="streams")
    (refused,) = [f for f in report.findings if f.rule == "RK-STREAM-051"]  # what build and check report
    assert refused.location.line == line
    monkeypatch.chdir(tmp_path)
    for args in (
        ["catalog", "matrix", REPO_ROOT / "catalog"],
        ["catalog", "matrix", REPO_ROOT / "catalog", "--lifecycle", streams / "openshift" / "lifecycle.yaml"],
        ["catalog", "validate", "--graph", REPO_ROOT / "catalog"],
    ):
        result = run_line(args)
        assert result.exit_code == 2, result.stdout
        assert f"lifecycle.yaml:{line}: {refused.message}" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("lifecycle", "line", "path"),
    [
        (
            f"schema: releasekit/openshift-lifecycle/v1\nversions: [v4.18, v4.{'1' * 5001}]\n",
            2,
            "$.versions[1]",
        ),
        (f"{_HEAD}eus:\n  - v4.18\n  - v{'4' * 5001}.20\n", 5, "$.eus[1]"),
        (
            f"{_HEAD}upgrades:\n  - from: v4.22\n    to: v5.0\n    kind: major\n"
            f"  - from: v4.23\n    to: v5.{'7' * 5001}\n    kind: major\n",
            7,
            "$.upgrades[1]",
        ),
    ],
    ids=["versions", "eus", "upgrades"],
)
def test_a_5001_digit_version_number_is_refused_at_its_line(
    run_line: Callable[..., Result],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lifecycle: str,
    line: int,
    path: str,
) -> None:
    """Python's int() refuses more than 4,300 digits with a ValueError: the parser bounds the digits first."""
    from releasekit.io.lifecycle import load_lifecycle

    streams = _streams_with_lifecycle(tmp_path, lifecycle)
    loaded, findings = load_lifecycle(streams, display_root="streams")
    assert loaded is None
    assert [(f.rule, f.location.line, f.location.path) for f in findings] == [("RK-STREAM-012", line, path)]
    assert "at most 9 digits" in findings[0].message and len(findings[0].message) < 200
    monkeypatch.chdir(tmp_path)
    matrix = run_line(["catalog", "matrix", REPO_ROOT / "catalog"])
    assert matrix.exit_code == 2
    assert f"streams/openshift/lifecycle.yaml:{line}: {path}: " in matrix.stderr
    assert "at most 9 digits" in matrix.stderr and len(matrix.stderr.strip().splitlines()) == 1
    validate = run_line(["streams", "validate", "--streams-dir", streams, "--format", "json"])
    assert validate.exit_code == 1
    assert [
        (f["rule"], f["location"]["line"])
        for f in json.loads(validate.stdout)["findings"]
        if f["rule"] == "RK-STREAM-012"
    ] == [("RK-STREAM-012", line)]


def test_control_characters_of_the_lifecycle_are_shown_escaped(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    bad = tmp_path / "lifecycle.yaml"
    bad.write_text(
        'schema: releasekit/openshift-lifecycle/v1\nversions: [v4.18, v4.19]\n"\\e]0;x\\a\\e[2J": 1\n'
        'upgrades:\n  - {from: v4.18, to: v4.19, kind: "\\e[31m"}\n'
    )
    result = run_line(["catalog", "matrix", REPO_ROOT / "catalog", "--lifecycle", bad])
    assert result.exit_code == 2
    assert result.stderr.rstrip("\n").isprintable()  # one line, no raw control character
    assert "'\\x1b]0;x\\x07\\x1b[2J'" in result.stderr


@pytest.mark.parametrize("value", ["4.\u00b2", "\u0664.19", f"4.{'1' * 5001}"])
def test_a_max_openshift_version_that_is_no_number_is_no_traceback(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """olm.maxOpenShiftVersion with a superscript, Arabic-Indic or 5,001 digits (str.isdigit takes all)."""
    import shutil

    from releasekit.model.tech_preview import parse_max_openshift

    assert parse_max_openshift(value) is None
    tree = tmp_path / "catalog"
    shutil.copytree(REPO_ROOT / "catalog", tree)
    target = tree / "v4.18" / "configs" / "kueue-operator" / "catalog.json"
    text = target.read_text()
    at = text.index('"properties": [', text.index('"schema": "olm.bundle"')) + len('"properties": [')
    prop = json.dumps({"type": "olm.maxOpenShiftVersion", "value": value})
    target.write_text(f"{text[:at]}\n      {prop},{text[at:]}")
    monkeypatch.chdir(REPO_ROOT)
    for args in (["catalog", "matrix", tree], ["catalog", "validate", "--graph", tree]):
        result = run_line(args)  # catch_exceptions=False: a traceback fails the test
        assert result.exit_code in (0, 1), result.stderr
