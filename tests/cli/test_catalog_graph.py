"""``releasekit catalog graph``: folder choice, formats, --package/--openshift, exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from releasekit.jobs.catalog_build import build_catalogs
from tests.conftest import REPO_ROOT

Run = Callable[..., Result]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog tree built from the repository's streams (catalog/v<X.Y>/configs/...)."""
    root = tmp_path_factory.mktemp("catalog")
    for rel, data in build_catalogs(REPO_ROOT / "streams", REPO_ROOT / "bundle-templates").files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def assert_one_line_exit_2(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    err = result.stderr.strip()
    assert err.startswith("releasekit: error: ") and "\n" not in err, err
    for needle in needles:
        assert needle in err, err


def test_tree_draws_the_newest_openshift_version(run_line: Run, tree: Path) -> None:
    result = run_line(["catalog", "graph", tree])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout == (
        "flowchart LR\n"
        "  %% package kueue-operator, default channel stable-v1.4\n"
        "  classDef head stroke-width:3px\n"
        '  subgraph c1["stable-v1.3"]\n'
        '    c1b1["kueue-operator.v1.3.1 (head)"]:::head\n'
        "  end\n"
        '  subgraph c2["stable-v1.4 (default)"]\n'
        '    c2b1["kueue-operator.v1.4.0"]\n'
        '    c2b2["kueue-operator.v1.4.1 (head)"]:::head\n'
        "  end\n"
        "  c2b1 -- skips --> c2b2\n"
    )  # v5.0: 1.3.1, 1.4.0 and 1.4.1


def test_openshift_option_one_folder_and_fbc_root_agree(run_line: Run, tree: Path) -> None:
    by_option = run_line(["catalog", "graph", tree, "--openshift", "v4.18", "--format", "dot"])
    by_folder = run_line(["catalog", "graph", tree / "v4.18", "--format", "dot"])
    by_root = run_line(["catalog", "graph", tree / "v4.18" / "configs", "--format", "dot"])
    assert by_option.exit_code == by_folder.exit_code == by_root.exit_code == 0
    assert by_option.stdout == by_folder.stdout == by_root.stdout
    assert by_option.stdout.count("subgraph cluster_p1c") == 7  # stable-v0.1 … stable-v1.4


def test_json_has_the_reachability_table(run_line: Run, tree: Path) -> None:
    result = run_line(
        ["catalog", "graph", tree, "--openshift", "v4.19", "--format", "json", "--package", "kueue-operator"]
    )
    assert result.exit_code == 0
    (package,) = json.loads(result.stdout)["packages"]
    table = {row["version"]: (row["reachable"], row["reason"]) for row in package["reachability"]}
    assert table["1.4.0"] == (True, None)
    assert table["0.1.0"] == (False, "RK-GRAPH-007")
    assert table["1.3.1"] == (False, "RK-GRAPH-006")  # the default policy does not declare islands


def test_output_file(run_line: Run, tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "graph.mmd"
    result = run_line(["catalog", "graph", tree, "--output", out])
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text(encoding="utf-8").startswith("flowchart LR\n")


def test_default_dir_is_catalog(
    run_line: Run, tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "catalog").symlink_to(tree, target_is_directory=True)
    result = run_line(["catalog", "graph"])
    assert result.exit_code == 0 and "stable-v1.4 (default)" in result.stdout


def test_missing_dir_exits_2(run_line: Run, tmp_path: Path) -> None:
    assert_one_line_exit_2(
        run_line(["catalog", "graph", tmp_path / "nope"]), "nope", "no such catalog folder"
    )


def test_unknown_openshift_and_package_exit_2(run_line: Run, tree: Path) -> None:
    assert_one_line_exit_2(
        run_line(["catalog", "graph", tree, "--openshift", "v9.9"]), "v9.9", "v4.18, v4.19"
    )
    assert_one_line_exit_2(run_line(["catalog", "graph", tree, "--openshift", "4.18"]), "vX.Y")
    assert_one_line_exit_2(
        run_line(["catalog", "graph", tree / "v4.18", "--openshift", "v4.18"]), "one catalog"
    )
    assert_one_line_exit_2(
        run_line(["catalog", "graph", tree, "--package", "nope"]), "nope", "kueue-operator"
    )


def test_bad_usage_exits_2(run_line: Run, tree: Path) -> None:
    assert run_line(["catalog", "graph", tree, "--format", "svg"]).exit_code == 2


def test_unreadable_catalog_exits_2(run_line: Run, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"schema": "olm.package", "name": ', encoding="utf-8")
    assert_one_line_exit_2(run_line(["catalog", "graph", tmp_path]), "bad.json", "catalog validate")


def test_empty_catalog_exits_2(run_line: Run, tmp_path: Path) -> None:
    assert_one_line_exit_2(run_line(["catalog", "graph", tmp_path]), "no olm.package")


def test_mermaid_needs_one_package(run_line: Run, tmp_path: Path) -> None:
    lines = []
    for name in ("a", "b"):
        lines += [
            {"schema": "olm.package", "name": name, "defaultChannel": "s"},
            {"schema": "olm.channel", "package": name, "name": "s", "entries": [{"name": f"{name}.v1.0.0"}]},
            {
                "schema": "olm.bundle",
                "package": name,
                "name": f"{name}.v1.0.0",
                "image": f"quay.io/x/{name}:1",
                "properties": [{"type": "olm.package", "value": {"packageName": name, "version": "1.0.0"}}],
            },
        ]
    (tmp_path / "c.json").write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    assert_one_line_exit_2(run_line(["catalog", "graph", tmp_path]), "--package", "a, b")
    assert run_line(["catalog", "graph", tmp_path, "--package", "b"]).exit_code == 0
    dot = run_line(["catalog", "graph", tmp_path, "--format", "dot"])
    assert dot.exit_code == 0 and "cluster_p2" in dot.stdout
