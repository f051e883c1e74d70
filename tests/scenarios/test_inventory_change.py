"""``releasekit check``: changing an inventory a published release uses is an error (RK-STREAM-031);
a new pin's inventory beside it is fine."""

from __future__ import annotations

import shutil
from pathlib import Path

import git

from releasekit.jobs.check import CheckRequest, run_check
from releasekit.model.finding import Severity
from tests.conftest import REPO_ROOT


def _repo(root: Path) -> git.Repo:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    repo = git.Repo.init(root, initial_branch="base")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    repo.index.add(["streams", "bundle-templates", "catalog"])
    repo.index.commit("base")
    return repo


def test_a_changed_inventory_of_a_published_release_is_a_check_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    repo.git.checkout("-q", "-b", "head")
    inventory = tmp_path / "streams" / "upstream" / "kueue-v0.12.9.yaml"  # 1.1.0's
    text = inventory.read_text(encoding="utf-8")
    changed = text.replace("maturity: beta}", "maturity: alpha}", 1)
    assert changed != text
    inventory.write_text(changed, encoding="utf-8")
    repo.git.add("-A")
    repo.index.commit("head")
    report = run_check(CheckRequest(base="base", head="head", repo=tmp_path)).report
    hits = [f for f in report.findings if f.rule == "RK-STREAM-031"]
    assert [(f.severity, f.location.file if f.location else None) for f in hits] == [
        (Severity.ERROR, "streams/upstream/kueue-v0.12.9.yaml")
    ]
    assert "stable 1.1.0" in hits[0].message and not report.passed
    repo.close()
