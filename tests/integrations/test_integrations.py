"""The integrations releasekit ships (Tekton Task, pre-commit hooks, GitHub workflow), checked offline.

Nothing here can reach a cluster or GitHub, so each file is parsed, checked for the fields its schema
requires, and the exact ``releasekit`` command lines it runs are run on a fixture repository: a git
repository whose ``main`` holds this repository's streams, templates and catalogs, and whose pull-request
branch adds a release the proper way.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import git
import pytest
import yaml
from click.testing import Result

from releasekit.jobs.build import BuildRequest, run_build
from tests.conftest import REPO_ROOT

TASK = REPO_ROOT / "integrations" / "tekton" / "releasekit-check-task.yaml"
WORKFLOW = REPO_ROOT / "integrations" / "github" / "releasekit.yml"
HOOKS = REPO_ROOT / ".pre-commit-hooks.yaml"

NEW_RELEASE = """
  - version: 1.4.2
    status: released
    upstream:
      line: "0.18"
      describe: v0.18.4-40-ge4ce3bcc
      inventory: kueue-v0.18.4-40-ge4ce3bcc
    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]
    bundle: registry.redhat.io/kueue/kueue-operator-bundle@sha256:{d1}
    images:
      operator: registry.redhat.io/kueue/kueue-rhel9-operator@sha256:{d2}
      operand: registry.redhat.io/kueue/kueue-rhel9@sha256:{d3}
      mustGather: registry.redhat.io/kueue/kueue-must-gather-rhel9@sha256:{d4}
    createdAt: "2026-11-20T10:00:00Z"
    openshiftVersionsLabel: v4.18-v5.0
""".format(d1="1" * 64, d2="2" * 64, d3="3" * 64, d4="4" * 64)


def _commands(text: str) -> list[str]:
    """Every shell line that starts with ``releasekit``."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith("releasekit ")]


@pytest.fixture(scope="module")
def fixture_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``main``: the repository's data; ``pr``: main plus a properly added release; origin/main fetched."""
    root = tmp_path_factory.mktemp("integration-repo")
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    repo.git.add("-A")
    repo.index.commit("main")
    repo.git.checkout("-q", "-b", "pr")
    stable = root / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + NEW_RELEASE.lstrip("\n"))
    report = run_build(
        BuildRequest(
            streams_dir=root / "streams",
            templates_dir=root / "bundle-templates",
            catalog_dir=root / "catalog",
        )
    )
    assert report.passed, [f.message for f in report.findings if f.severity.value == "error"]
    repo.git.add("-A")
    repo.index.commit("add 1.4.2")
    origin = repo.create_remote("origin", str(root))
    origin.fetch()
    yield root
    repo.close()


@pytest.fixture
def in_repo(fixture_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(fixture_repo)
    return fixture_repo


# ------------------------------------------------------------------------------------------------ Tekton


def _task() -> dict[str, Any]:
    data = yaml.safe_load(TASK.read_text())
    assert isinstance(data, dict)
    return data


def test_task_has_what_tekton_requires() -> None:
    task = _task()
    assert task["apiVersion"] == "tekton.dev/v1" and task["kind"] == "Task"
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", task["metadata"]["name"])
    spec = task["spec"]
    assert [r["name"] for r in spec["results"]] == ["TEST_OUTPUT"]
    params = {p["name"]: p for p in spec["params"]}
    assert "base-revision" in params and "default" not in params["base-revision"]
    assert [w["name"] for w in spec["workspaces"]] == ["source"]
    for step in spec["steps"]:
        assert step["name"] and step["image"]
        assert ("script" in step) != ("command" in step)
    references = re.findall(r"\$\((params|results|workspaces)\.([\w-]+)", TASK.read_text())
    declared = {"params": set(params), "results": {"TEST_OUTPUT"}, "workspaces": {"source"}}
    assert references and all(name in declared[kind] for kind, name in references)


def test_task_command_line_passes_and_writes_test_output(
    run_line: Callable[..., Result], in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    in_repo_git = git.Repo(in_repo)
    in_repo_git.git.checkout("-q", "pr")
    result_path = tmp_path / "TEST_OUTPUT"
    (line,) = _commands(_task()["spec"]["steps"][0]["script"])
    line = line.replace("${BASE_REVISION}", "main").replace("$(results.TEST_OUTPUT.path)", str(result_path))
    args = shlex.split(line)[1:]
    result = run_line(args)
    assert result.exit_code == 0, result.stdout + result.stderr
    output = json.loads(result_path.read_text())
    assert set(output) == {"result", "timestamp", "note", "namespace", "successes", "failures", "warnings"}
    assert output["result"] in ("SUCCESS", "WARNING")
    assert output["failures"] == 0
    assert output["timestamp"] == "2026-01-01T00:00:00+0000"


# ------------------------------------------------------------------------------------------ pre-commit


def test_pre_commit_hooks_have_the_required_fields() -> None:
    hooks = yaml.safe_load(HOOKS.read_text())
    assert isinstance(hooks, list) and hooks
    ids = [h["id"] for h in hooks]
    assert "releasekit-validate" in ids and len(set(ids)) == len(ids)
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python"
        assert hook["entry"].startswith("releasekit ")
        re.compile(hook.get("files", ""))


@pytest.mark.parametrize("hook_id", ["releasekit-validate", "releasekit-catalog-validate"])
def test_pre_commit_entries_pass_on_the_fixture_repository(
    run_line: Callable[..., Result], in_repo: Path, hook_id: str
) -> None:
    git.Repo(in_repo).git.checkout("-q", "pr")
    hook = next(h for h in yaml.safe_load(HOOKS.read_text()) if h["id"] == hook_id)
    result = run_line(shlex.split(hook["entry"])[1:])
    assert result.exit_code == 0, result.stdout + result.stderr


def test_pre_commit_validate_fails_when_catalog_drifts(
    run_line: Callable[..., Result], in_repo: Path
) -> None:
    repo = git.Repo(in_repo)
    repo.git.checkout("-q", "pr")
    target = in_repo / "catalog" / "v4.18" / "configs" / "kueue-operator" / "catalog.json"
    original = target.read_text()
    try:
        target.write_text(original.replace('"stable-v1.4"', '"stable-v1.3"', 1))
        hook = next(h for h in yaml.safe_load(HOOKS.read_text()) if h["id"] == "releasekit-validate")
        result = run_line(shlex.split(hook["entry"])[1:])
        assert result.exit_code == 1
        assert "RK-DIFF-001" in result.stdout
    finally:
        target.write_text(original)


# ------------------------------------------------------------------------------------------------ GitHub


def _workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(data, dict)
    return data


def test_workflow_has_the_required_fields() -> None:
    workflow = _workflow()
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert "pull_request" in on
    assert workflow["jobs"]
    for job in workflow["jobs"].values():
        assert job["runs-on"]
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step)


def test_workflow_command_lines_pass_with_github_annotations(
    run_line: Callable[..., Result], in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git.Repo(in_repo).git.checkout("-q", "pr")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    lines = [
        line
        for job in _workflow()["jobs"].values()
        for step in job["steps"]
        for line in _commands(step.get("run", ""))
    ]
    assert any(line.startswith("releasekit check") for line in lines)
    for line in lines:
        args = shlex.split(line.replace("${{ github.base_ref }}", "main"))[1:]
        result = run_line(args)
        assert result.exit_code == 0, line + "\n" + result.stdout + result.stderr
        assert "::error" not in result.stdout
    assert summary.read_text().startswith("## releasekit")
