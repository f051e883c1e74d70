"""One inventory per Kueue pin: importing a newer Kueue tag never changes an older release's bundle.

Offline: the Kueue repository is a temporary git repository built from ``shared/fixtures/kueue/``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.cli.test_bundle_build import CRD_BASES, commit_all
from tests.conftest import REPO_ROOT
from tests.unit.test_upstream_import import build_kueue_repo

pytestmark = pytest.mark.shared


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _build_all(run_line: Callable[..., Result], kueue: Path, streams: Path, out: Path) -> dict[str, bytes]:
    result = run_line(
        ["bundle", "build", "--all", "--upstream", kueue, "--streams-dir", streams, "--out", out]
    )
    assert result.exit_code == 0, result.output
    return _tree(out)


def test_importing_a_newer_tag_leaves_every_older_bundle_unchanged(
    run_line: Callable[..., Result], shared: Callable[..., Path], tmp_path: Path
) -> None:
    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    kueue = tmp_path / "kueue"
    repo, _, _ = build_kueue_repo(kueue, shared("kueue", "v0.11.9"), "v0.11.9")
    before = _build_all(run_line, kueue, streams, tmp_path / "before")
    assert {rel.split("/")[0] for rel in before} == {"stable", "experimental"}
    inventories = _tree(streams / "upstream")
    # Kueue tags a newer z-stream of the line, whose Workload CRD changed
    changed = kueue / CRD_BASES / "kueue.x-k8s.io_workloads.yaml"
    changed.write_text(changed.read_text(encoding="utf-8") + "# v0.11.10\n", encoding="utf-8")
    commit_all(repo, "Kueue v0.11.10")
    repo.create_tag("v0.11.10")
    result = run_line(["upstream", "import", "--repo", kueue, "--ref", "v0.11.10", "--streams-dir", streams])
    assert result.exit_code == 0, result.output
    after_import = _tree(streams / "upstream")
    assert set(after_import) - set(inventories) == {"kueue-v0.11.10.yaml"}  # a file of its own
    assert {k: after_import[k] for k in inventories} == inventories  # no older inventory rewritten
    assert _build_all(run_line, kueue, streams, tmp_path / "after") == before


def test_import_refuses_to_rewrite_an_inventory_a_published_release_uses(
    run_line: Callable[..., Result], shared: Callable[..., Path], tmp_path: Path
) -> None:
    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    before = _tree(streams)
    # a repository whose v0.12.9 holds other facts than the ones 1.1.0 shipped
    build_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.12.10"), "v0.12.9")
    result = run_line(
        ["upstream", "import", "--repo", tmp_path / "kueue", "--ref", "v0.12.9", "--streams-dir", streams]
    )
    assert result.exit_code == 2
    assert "kueue-v0.12.9 is used by published release(s) stable 1.1.0" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert _tree(streams) == before


def test_import_of_the_same_facts_is_a_no_op(
    run_line: Callable[..., Result], shared: Callable[..., Path], tmp_path: Path
) -> None:
    """Re-importing a published pin that gives the committed facts is fine (nothing changes)."""
    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    (streams / "upstream" / "kueue-v0.11.9.yaml").unlink()
    build_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9"), "v0.11.9")
    args = ["upstream", "import", "--repo", tmp_path / "kueue", "--ref", "v0.11.9", "--streams-dir", streams]
    assert run_line(args).exit_code == 0
    first = _tree(streams)
    assert run_line(args).exit_code == 0
    assert _tree(streams) == first
