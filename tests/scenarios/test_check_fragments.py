"""``check`` reads the fragments a change touches as ``build`` reads a catalog tree (issue 25).

The touched fragments are judged whole, through the reader ``build`` uses (``.indexignore`` applied);
findings stay with the files and packages the change touches.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.conftest import REPO_ROOT
from tests.scenarios.test_fbc_repo_check import git

FRAGMENT = "catalog/v4.18"
OTHER = {
    "schema": "olm.bundle",
    "name": "other.v1.0.0",
    "package": "other",
    "image": "quay.io/example/other-bundle:v1.0.0",  # RK-KONFLUX-009 and 010: a tag, not registry.redhat.io
    "properties": [{"type": "olm.package", "value": {"packageName": "other", "version": "1.0.0"}}],
}


def _repo(tmp_path: Path) -> Path:
    """This checkout's data, committed, with a second package beside kueue-operator in v4.18."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, repo / name)
    other = repo / FRAGMENT / "configs" / "other"
    other.mkdir()
    channel = {
        "schema": "olm.channel",
        "name": "stable",
        "package": "other",
        "entries": [{"name": OTHER["name"]}],
    }
    package = {"schema": "olm.package", "name": "other", "defaultChannel": "stable"}
    (other / "catalog.json").write_text("\n".join(json.dumps(o) for o in (package, channel, OTHER)) + "\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def _findings(run_line: Callable[..., Result], repo: Path) -> list[dict]:  # type: ignore[type-arg]
    result = run_line(["check", "--repo", repo, "--base", "HEAD", "--format", "json"])
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)["findings"]  # type: ignore[no-any-return]


def test_a_containerfile_change_judges_the_fragment_not_its_untouched_packages(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = _repo(tmp_path)
    containerfile = repo / FRAGMENT / "Containerfile"
    containerfile.write_text(containerfile.read_text().replace("rhel9:v4.18", "rhel9:v4.17"))
    findings = _findings(run_line, repo)
    assert {f["rule"] for f in findings if f["location"]["file"] == f"{FRAGMENT}/Containerfile"} >= {
        "RK-KONFLUX-004"
    }
    assert not [f for f in findings if "/other/" in f["location"]["file"]]
    assert not [f for f in findings if f["rule"] == "RK-KONFLUX-007"]  # the fragment holds its packages


def test_a_change_to_a_package_reports_on_it(run_line: Callable[..., Result], tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    target = repo / FRAGMENT / "configs" / "other" / "catalog.json"
    target.write_text(target.read_text() + "\n")
    rules = {f["rule"] for f in _findings(run_line, repo) if "/other/" in f["location"]["file"]}
    assert {"RK-KONFLUX-009", "RK-KONFLUX-010"} <= rules


def test_indexignore_is_honoured_as_build_honours_it(run_line: Callable[..., Result], tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    package = repo / FRAGMENT / "configs" / "kueue-operator"
    (package / ".indexignore").write_text("todo.yaml\n")
    (package / "todo.yaml").write_text("schema: olm.bundle\nname: [not, a, name]\n")
    findings = _findings(run_line, repo)
    assert not [
        f for f in findings if f["location"]["file"].endswith("todo.yaml") and f["rule"].startswith("RK-FBC")
    ]
    (package / ".indexignore").write_text("# nothing ignored\n")
    findings = _findings(run_line, repo)
    assert [
        f for f in findings if f["location"]["file"].endswith("todo.yaml") and f["rule"].startswith("RK-FBC")
    ]
