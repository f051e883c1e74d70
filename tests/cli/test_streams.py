"""``releasekit streams show|map|validate`` and ``upstream import`` through click, with golden output.

Golden files live in ``tests/golden/streams/``; regenerate them with ``RELEASEKIT_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT

GOLDEN = REPO_ROOT / "tests" / "golden" / "streams"

Run = Callable[..., Result]


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository root, so ``streams/`` is the default and paths print as ``streams/…``."""
    monkeypatch.chdir(REPO_ROOT)


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RELEASEKIT_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs; RELEASEKIT_UPDATE_GOLDEN=1 regenerates it"
    )


@pytest.mark.usefixtures("in_repo")
@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["streams", "show"], "show.txt"),
        (["streams", "show", "--format", "json"], "show.json"),
        (["streams", "map"], "map.txt"),
        (["streams", "map", "--format", "json"], "map.json"),
        (["streams", "map", "--format", "markdown"], "map.md"),
        (["streams", "validate"], "validate.txt"),
        (["streams", "validate", "--format", "json"], "validate.json"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_commands_on_the_repository_streams(run_line: Run, args: list[str], name: str) -> None:
    result = run_line(args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    golden(name, result.stdout)
    if name.endswith(".json"):
        json.loads(result.stdout)


@pytest.mark.usefixtures("in_repo")
def test_map_writes_the_support_matrix_to_a_file(run_line: Run, tmp_path: Path) -> None:
    out = tmp_path / "matrix.md"
    result = run_line(["streams", "map", "--format", "markdown", "--output", out])
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text(encoding="utf-8") == (GOLDEN / "map.md").read_text(encoding="utf-8")


@pytest.fixture
def bad_streams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(REPO_ROOT / "streams", tmp_path / "streams")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "streams"


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_validate_bad_input_exits_1_with_file_line_and_hint(run_line: Run, bad_streams: Path) -> None:
    stable = bad_streams / "stable.yaml"
    _replace(stable, "  - version: 0.2.1\n", "  - version: 0.2.0\n")  # duplicate version
    _replace(
        stable,
        "registry.redhat.io/kueue/kueue-rhel9@sha256:cdc406dab199d85bfb280b0f70bdd8a3865a46436bcd6ad72801343a281cabf4",
        "registry.redhat.io/kueue/kueue-rhel9:1.4.1",
    )  # a tag instead of a digest
    _replace(
        stable, "        - gate: VisibilityOnDemand\n", "        - gate: VisibilityOnDemandz\n"
    )  # no such gate
    (bad_streams / "upstream" / "kueue-v0.12.9.yaml").unlink()  # missing inventory for 1.1.0
    _replace(bad_streams / "experimental.yaml", "upgrades:\n", "upgrade:\n")  # unknown key
    result = run_line(["streams", "validate"])
    assert result.exit_code == 1
    golden("validate-bad.txt", result.stdout)
    result = run_line(["streams", "validate", "--format", "json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    rules = {f["rule"] for f in report["findings"] if f["severity"] == "error"}
    assert {"RK-STREAM-001", "RK-STREAM-004", "RK-STREAM-008", "RK-STREAM-010"} <= rules
    warned = {f["rule"] for f in report["findings"] if f["severity"] == "warning"}
    assert "RK-STREAM-014" in warned  # an unknown gate of published history (1.0.0) is a warning
    assert all(
        f["location"]["file"].startswith("streams/") and f["location"]["line"] for f in report["findings"]
    )
    assert all(f["hint"] for f in report["findings"])


def test_wrong_type_in_show_exits_1(run_line: Run, bad_streams: Path) -> None:
    _replace(bad_streams / "experimental.yaml", "crdPlacement: bundle", "crdPlacement: [bundle]")
    result = run_line(["streams", "show"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "error RK-STREAM-001: streams/experimental.yaml:12: $.crdPlacement:" in result.stderr


@pytest.mark.parametrize("command", ["validate", "show", "map"])
def test_unreadable_yaml_exits_2(run_line: Run, bad_streams: Path, command: str) -> None:
    (bad_streams / "stable.yaml").write_text("releases: [\n  - version: 1.0.0\n", encoding="utf-8")
    result = run_line(["streams", command])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("releasekit: error: streams/stable.yaml:2: invalid YAML")
    assert "Traceback" not in result.stderr


def test_missing_streams_dir_exits_2(run_line: Run, tmp_path: Path) -> None:
    result = run_line(["streams", "validate", "--streams-dir", tmp_path / "missing"])
    assert result.exit_code == 2
    assert "not a streams folder" in result.stderr


def test_upstream_import_cli(run_line: Run, shared: Callable[..., Path], tmp_path: Path) -> None:
    from tests.unit.test_upstream_import import build_kueue_repo

    build_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9"), "v0.11.9")
    result = run_line(
        [
            "upstream",
            "import",
            "--repo",
            tmp_path / "kueue",
            "--ref",
            "v0.11.9",
            "--streams-dir",
            tmp_path / "streams",
        ]
    )
    assert result.exit_code == 0, result.stderr
    written = tmp_path / "streams" / "upstream" / "kueue-v0.11.9.yaml"
    assert result.stdout.startswith(f"wrote {written}: Kueue 0.11 at v0.11.9 (")
    assert "11 CRDs, 23 gates from pkg/features/kube_features.go" in result.stdout
    text = written.read_text(encoding="utf-8")
    assert "source: exact" in text and "sha256: " in text


@pytest.mark.parametrize(
    ("ref", "message"),
    [("--upload-pack=evil", "starts with '-'"), ("v0.11.0..v0.11.9", "'..' makes it a range")],
)
def test_upstream_import_refuses_unsafe_refs(run_line: Run, tmp_path: Path, ref: str, message: str) -> None:
    result = run_line(["upstream", "import", "--repo", tmp_path, "--ref", ref])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_upstream_import_missing_tag_exits_2(
    run_line: Run, shared: Callable[..., Path], tmp_path: Path
) -> None:
    from tests.unit.test_upstream_import import build_kueue_repo

    build_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9"), "v0.11.9")
    result = run_line(["upstream", "import", "--repo", tmp_path / "kueue", "--ref", "v0.11.99"])
    assert result.exit_code == 2
    assert "ref 'v0.11.99' not found" in result.stderr
