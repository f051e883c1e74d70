"""One verdict: ``build`` is ``check --base HEAD`` (issue 24).

For every scenario of tests/scenarios/test_check.py, plus the two the issue names, the change is made
in the working tree of a repository whose HEAD holds this checkout's data; the catalogs are regenerated
from the changed streams (through the job, without its checks, so that ``check`` sees them in sync as a
pull request would carry them); then ``build --check`` and ``check --base HEAD`` must report the same
(rule, severity, subject) for every error and warning.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT
from tests.scenarios.test_check import DIGEST, NEW_RELEASE, OPT_IN, SCENARIOS, regenerate

ACKS = "releasekit-acknowledgements.yaml"


def _without_v4_23(root: Path) -> None:
    stable = root / "streams" / "stable.yaml"
    release = NEW_RELEASE.format(d=DIGEST, gates=OPT_IN.rstrip("\n")).replace(" v4.23,", "")
    stable.write_text(stable.read_text() + release)


def _delete_1_4_1(root: Path) -> None:
    stable = root / "streams" / "stable.yaml"
    text = stable.read_text()
    stable.write_text(text[: text.index("  - version: 1.4.1\n")])


ALL = {**SCENARIOS, "stranded-on-upgrade": _without_v4_23, "unpublish": _delete_1_4_1}


def _repo(root: Path) -> git.Repo:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    shutil.copy(REPO_ROOT / ACKS, root / ACKS)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    repo.git.add("-A")
    repo.index.commit("published")
    return repo


def _judged(result: Result) -> set[tuple[str, str, tuple[str, ...]]]:
    """Errors and warnings by (rule, severity, subject).

    RK-POLICY-020 (an acknowledgement that matches nothing) is left out: only a run that judges the whole
    repository (build) can say an entry matches nothing; check judges what a change touches.
    """
    data = json.loads(result.stdout)
    return {
        (f["rule"], f["severity"], tuple(f.get("subject", ())))
        for f in data["findings"]
        if f["severity"] in ("error", "warning") and f["rule"] != "RK-POLICY-020"
    }


@pytest.mark.parametrize("scenario", sorted(ALL))
def test_build_and_check_against_head_agree(
    scenario: str, run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repo(tmp_path)
    ALL[scenario](tmp_path)
    regenerate(tmp_path)
    monkeypatch.chdir(tmp_path)
    built = run_line(["build", "--check", "--format", "json"])
    checked = run_line(["check", "--repo", tmp_path, "--base", "HEAD", "--format", "json"])
    assert built.exit_code in (0, 1) and checked.exit_code in (0, 1), (built.stderr, checked.stderr)
    assert _judged(built) == _judged(checked)
    assert built.exit_code == checked.exit_code


def test_unpublishing_a_release_fails_build_and_writes_nothing(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repo(tmp_path)
    _delete_1_4_1(tmp_path)
    before = {p: p.read_bytes() for p in sorted((tmp_path / "catalog").rglob("*")) if p.is_file()}
    monkeypatch.chdir(tmp_path)
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    rules = {f["rule"] for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"}
    assert "RK-DIFF-003" in rules  # a published bundle removed
    assert {p: p.read_bytes() for p in sorted((tmp_path / "catalog").rglob("*")) if p.is_file()} == before


def test_a_release_missing_from_the_newest_catalog_fails_build(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repo(tmp_path)
    _without_v4_23(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    errors = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["facts"]) for f in errors] == [("RK-GRAPH-010", {"from": "v4.22", "to": "v4.23"})]
