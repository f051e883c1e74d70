"""``releasekit.yaml``: writing straight into a repository laid out like openshift/kueue-fbc."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from releasekit.io.config import load_layout
from releasekit.model.layout import DEFAULT_LAYOUT, KUEUE_FBC_LAYOUT
from tests.cli.test_build_published import commit_all, init_repo, tree_hashes
from tests.conftest import require_shared

KUEUE_FBC_CONFIG = "schema: releasekit/config/v1\ncatalog:\n  layout: kueue-fbc\n"
THEIR_CONTAINERFILE = (
    "FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v4.18\nCOPY catalog/ /configs\n"
)


@pytest.fixture
def fbc_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kueue-fbc-like repository (its published catalogs, templates, a script) plus streams/."""
    kueue_fbc = require_shared("kueue-operator", "catalog", "kueue-fbc")
    root = tmp_path / "kueue-fbc"
    shutil.copytree(kueue_fbc, root, copy_function=shutil.copyfile)
    for folder in root.glob("v*"):
        (folder / "Containerfile.catalog").write_text(THEIR_CONTAINERFILE)
    (root / "generate-fbc.sh").write_text("#!/bin/sh\n")
    (root / "releasekit.yaml").write_text(KUEUE_FBC_CONFIG)
    init_repo(root, folders=("streams", "bundle-templates"))
    monkeypatch.chdir(root)
    return root


def drop_their_containerfiles(root: Path) -> set[str]:
    """Remove the Containerfiles and templates releasekit did not write, as a team adopting releasekit does once."""
    theirs = {
        f"{v.name}/{name}"
        for v in root.glob("v*")
        for name in ("Containerfile.catalog", "catalog-template.yaml")
    }
    for name in theirs:
        (root / name).unlink()
    return theirs


def test_build_writes_file_by_file_into_the_kueue_fbc_layout(
    fbc_repo: Path, run_line: Callable[..., Result]
) -> None:
    (fbc_repo / "v4.18" / "notes.txt").write_text("not releasekit's\n")  # untracked, in a fragment
    before = tree_hashes(fbc_repo)
    refused = run_line(["build"])  # their Containerfiles are not releasekit's to replace
    assert refused.exit_code == 2
    assert "v4.18/Containerfile.catalog: exists and releasekit did not write it" in refused.stderr
    assert tree_hashes(fbc_repo) == before
    theirs = drop_their_containerfiles(fbc_repo)
    result = run_line(["build"])
    assert result.exit_code == 0, result.stdout + result.stderr
    after = tree_hashes(fbc_repo)
    changed = {
        p for p in set(before) | set(after) if before.get(p) != after.get(p) and not p.startswith(".git/")
    }
    assert changed == theirs | {
        ".releasekit-generated"
    }  # catalog.json: the same bytes, taken into the marker
    listed = (fbc_repo / ".releasekit-generated").read_text()
    assert "v4.18/catalog/kueue-operator/catalog.json" in listed and "notes.txt" not in listed
    assert "COPY catalog /configs" in (fbc_repo / "v5.0" / "Containerfile.catalog").read_text()
    assert (fbc_repo / "v4.18" / "notes.txt").read_text() == "not releasekit's\n"
    assert not (fbc_repo / "catalog").exists()
    commit_all(fbc_repo, "releasekit's Containerfiles")
    assert run_line(["build", "--check"]).exit_code == 0


def test_an_edited_published_blob_in_the_kueue_fbc_layout_is_drift(
    fbc_repo: Path, run_line: Callable[..., Result]
) -> None:
    drop_their_containerfiles(fbc_repo)
    target = fbc_repo / "v4.20" / "catalog" / "kueue-operator" / "catalog.json"
    text = target.read_text()
    bundle = '"schema": "olm.bundle",\n    "name": "kueue-operator.v1.1.0",'
    assert text.count(bundle) == 1
    target.write_text(text.replace(bundle, bundle + '\n    "x": 1,'))
    edited = target.read_bytes()
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    edits = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-DIFF-010"]
    assert [f["location"]["file"] for f in edits] == ["v4.20/catalog/kueue-operator/catalog.json"]
    assert result.stderr.strip().endswith("left unchanged: 1 error")
    assert target.read_bytes() == edited


def test_no_file_is_the_default_layout(tmp_path: Path) -> None:
    assert load_layout(tmp_path) == (DEFAULT_LAYOUT, [])


def test_presets_and_overrides(tmp_path: Path) -> None:
    (tmp_path / "releasekit.yaml").write_text(KUEUE_FBC_CONFIG)
    assert load_layout(tmp_path) == (KUEUE_FBC_LAYOUT, [])
    (tmp_path / "releasekit.yaml").write_text(
        "schema: releasekit/config/v1\ncatalog:\n  root: fbc\n  containerfile: catalog.Dockerfile\n"
    )
    layout, findings = load_layout(tmp_path)
    assert not findings
    assert (layout.root, layout.fbc_dir, layout.containerfile, layout.owns_tree) == (
        "fbc",
        "configs",
        "catalog.Dockerfile",
        True,
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("schema: releasekit/config/v1\ncatalog:\n  layout: nope\n", 3),
        ("schema: releasekit/config/v1\ncatalog:\n  root: ../elsewhere\n", 3),
        ("schema: releasekit/config/v1\ncatalog:\n  root: .\n  writes: tree\n", 2),
        ("schema: releasekit/config/v2\n", 1),
    ],
)
def test_a_wrong_config_is_a_finding_at_its_line(tmp_path: Path, text: str, line: int) -> None:
    (tmp_path / "releasekit.yaml").write_text(text)
    _layout, findings = load_layout(tmp_path)
    assert [(f.rule, f.location.file, f.location.line) for f in findings] == [
        ("RK-STREAM-040", str(tmp_path / "releasekit.yaml"), line)
    ]


def test_build_with_a_wrong_config_writes_nothing(
    tmp_path: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    (root / "releasekit.yaml").write_text("schema: releasekit/config/v1\ncatalog:\n  layout: nope\n")
    shutil.rmtree(root / "catalog" / "v5.0")
    before = tree_hashes(root / "catalog")
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    config = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-STREAM-040"]
    assert [(f["location"]["file"], f["location"]["line"]) for f in config] == [("releasekit.yaml", 3)]
    assert tree_hashes(root / "catalog") == before


def test_check_runs_the_catalog_repository_check_in_the_kueue_fbc_layout(
    fbc_repo: Path, run_line: Callable[..., Result]
) -> None:
    """Issue 26: no longer refused; its catalog roots are found and judged as in any catalog repository."""
    catalog = fbc_repo / "v4.20" / "catalog" / "kueue-operator" / "catalog.json"
    text = catalog.read_text()
    assert "kueue-operator.v1.1.0" in text
    result = run_line(["check", "--base", "HEAD", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["passed"] and not [f for f in report["findings"] if f["severity"] == "error"]
