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
import subprocess
import sys
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


def _script_as_tekton_runs_it(workspace: Path, result_path: Path, base: str) -> str:
    """The step's script with Tekton's substitutions made (params, workspace path, result path)."""
    step = _task()["spec"]["steps"][0]
    script = step["script"]
    env = {e["name"]: e["value"] for e in step.get("env", [])}
    values = {
        "$(params.base-revision)": base,
        "$(workspaces.source.path)": str(workspace),
        "$(results.TEST_OUTPUT.path)": str(result_path),
    }
    for placeholder, value in values.items():
        script = script.replace(placeholder, value)
    exports = "".join(
        f"export {name}={shlex.quote(values.get(value, value))}\n" for name, value in sorted(env.items())
    )
    assert "$(" not in script.replace("$(mktemp)", "").replace('"$(results', "")
    first, _, rest = script.partition("\n")
    assert first == "#!/usr/bin/env bash"
    return f"{first}\n{exports}{rest}"


def test_task_takes_the_image_as_a_parameter_and_installs_nothing() -> None:
    spec = _task()["spec"]
    params = {p["name"]: p for p in spec["params"]}
    assert "image" in params and "default" not in params["image"]
    (step,) = spec["steps"]
    assert step["image"] == "$(params.image)"
    assert not re.search(r"\bpip\b|install", step["script"])
    assert "--fail-on new" in step["script"]


def test_task_step_script_runs_as_tekton_would_on_a_workspace_owned_by_another_user(
    fixture_repo: Path, tmp_path: Path
) -> None:
    """The step's own script, run by bash with releasekit on PATH, in a workspace git sees as another user's."""
    repo = git.Repo(fixture_repo)
    repo.git.checkout("-q", "pr")
    result_path = tmp_path / "TEST_OUTPUT"
    script = tmp_path / "step.sh"
    script.write_text(_script_as_tekton_runs_it(fixture_repo, result_path, "origin/main"))
    bindir = str(Path(sys.executable).parent)
    env = {
        "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "SOURCE_DATE_EPOCH": "1767225600",
        "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1",  # git-clone ran as another uid
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    (tmp_path / "home").mkdir()
    done = subprocess.run(
        ["bash", str(script)], cwd=fixture_repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    output = json.loads(result_path.read_text())
    assert set(output) == {"result", "timestamp", "note", "namespace", "successes", "failures", "warnings"}
    assert output["result"] in ("SUCCESS", "WARNING") and output["failures"] == 0
    assert output["timestamp"] == "2026-01-01T00:00:00+00:00"
    assert json.loads(done.stdout.strip().splitlines()[-1]) == output  # the step prints it too
    assert not (tmp_path / "home" / ".gitconfig").exists()  # the trust stayed in a throw-away config


def test_without_the_trust_the_check_reports_gits_reason(fixture_repo: Path, tmp_path: Path) -> None:
    script = _script_as_tekton_runs_it(fixture_repo, tmp_path / "TEST_OUTPUT", "origin/main")
    script = "\n".join(line for line in script.splitlines() if "safe.directory" not in line)
    (tmp_path / "step.sh").write_text(script)
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["bash", str(tmp_path / "step.sh")],
        cwd=fixture_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "dubious ownership" in done.stderr and "Traceback" not in done.stderr
    assert json.loads((tmp_path / "TEST_OUTPUT").read_text())["result"] == "ERROR"


# -------------------------------------------------------------------------------------------- the image

CONTAINERFILE = REPO_ROOT / "Containerfile"


def _instructions() -> list[tuple[str, str]]:
    """The Containerfile's instructions (continuation lines joined, comments dropped)."""
    text = re.sub(r"\\\n", " ", CONTAINERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_containerfile_parses_and_pins_its_base_by_digest() -> None:
    instructions = _instructions()
    known = {"ARG", "FROM", "LABEL", "USER", "RUN", "COPY", "ENV", "WORKDIR", "ENTRYPOINT", "CMD"}
    assert {word for word, _ in instructions} <= known
    args = dict(rest.split("=", 1) for word, rest in instructions if word == "ARG" and "=" in rest)
    (base,) = [rest for word, rest in instructions if word == "FROM"]
    assert base == "${BASE_IMAGE}@${BASE_DIGEST}"
    assert args["BASE_IMAGE"] == "registry.access.redhat.com/ubi9/python-311"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", args["BASE_DIGEST"])
    first_from = next(i for i, (word, _) in enumerate(instructions) if word == "FROM")
    assert {"BASE_IMAGE", "BASE_DIGEST"} <= {
        rest.split("=")[0] for word, rest in instructions[:first_from] if word == "ARG"
    }


def test_containerfile_runs_as_non_root_with_git_and_a_smoke_test() -> None:
    instructions = _instructions()
    users = [rest for word, rest in instructions if word == "USER"]
    assert users and users[-1] not in ("0", "root") and users[-1].isdigit()
    runs = [rest for word, rest in instructions if word == "RUN"]
    assert any("git-core" in r or " git " in f" {r} " for r in runs)
    last_user = max(i for i, (word, _) in enumerate(instructions) if word == "USER")
    assert ("RUN", "releasekit --version") in instructions[last_user:]
    copies = [rest for word, rest in instructions if word == "COPY"]
    assert copies and all(not c.startswith("--from") for c in copies)  # built from the checkout
    trust = [r for r in runs if "safe.directory" in r]
    assert trust and all('safe.directory "${WORKSPACE}"' in r for r in trust)
    assert "*" not in " ".join(trust)  # never every folder
    args = dict(rest.split("=", 1) for word, rest in instructions if word == "ARG" and "=" in rest)
    assert args["WORKSPACE"].startswith("/")


def test_the_copied_sources_build_the_package() -> None:
    """What the Containerfile copies is what ``pip install`` needs (pyproject's readme, the package)."""
    import tomllib

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    copies = " ".join(rest for word, rest in _instructions() if word == "COPY")
    assert project["readme"] in copies and "pyproject.toml" in copies and "releasekit " in copies + " "
    ignored = (REPO_ROOT / ".containerignore").read_text().splitlines()
    assert {".venv", "**/__pycache__", ".git"} <= set(ignored)  # no local caches in the image


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


@pytest.mark.parametrize("fragment", ["v4.18", "v4.22", "v5.0"])
def test_pre_commit_catalog_hook_checks_every_catalog(
    run_line: Callable[..., Result], in_repo: Path, fragment: str
) -> None:
    """The catalog hook judges every OpenShift catalog, not only the first one."""
    git.Repo(in_repo).git.checkout("-q", "pr")
    target = in_repo / "catalog" / fragment / "configs" / "kueue-operator" / "catalog.json"
    original = target.read_text()
    try:
        target.write_text(
            original.replace('"defaultChannel": "stable-v1.4"', '"defaultChannel": "nowhere"', 1)
        )
        assert target.read_text() != original
        hook = next(h for h in yaml.safe_load(HOOKS.read_text()) if h["id"] == "releasekit-catalog-validate")
        result = run_line(shlex.split(hook["entry"])[1:])
        assert result.exit_code == 1, result.stdout
        assert f"catalog/{fragment}/configs/kueue-operator/catalog.json" in result.stdout
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
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    installs = [shlex.split(r) for r in runs if "pip install" in r]
    assert installs, "the workflow installs releasekit from a checkout (or runs the image)"
    for words in installs:  # never from a package index, where releasekit is not published
        assert all(
            w.startswith(("./", "/", "."))
            for w in words[words.index("install") + 1 :]
            if not w.startswith("-")
        )
    assert any("--fail-on new" in r for r in runs if r.startswith("releasekit check"))


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


def test_task_step_script_runs_unchanged_in_a_catalog_repository(tmp_path: Path) -> None:
    """Issue 26: the same Task in a file-based catalog repository (no streams/, openshift/kueue-fbc's layout)."""
    from tests.scenarios.test_fbc_repo_check import LAYOUTS, make_repo
    from tests.scenarios.test_fbc_repo_check import git as run_git

    repo = make_repo(tmp_path, LAYOUTS["kueue-fbc"])
    run_git(repo, "checkout", "-q", "pr")
    result_path = tmp_path / "TEST_OUTPUT"
    script = tmp_path / "step.sh"
    script.write_text(_script_as_tekton_runs_it(repo, result_path, "main"))
    (tmp_path / "home").mkdir()
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "SOURCE_DATE_EPOCH": "1767225600",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["bash", str(script)], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    output = json.loads(result_path.read_text())
    assert (
        output["result"] == "FAILURE" and output["failures"] > 0
    )  # the pull request removes a published bundle
    assert "RK-DIFF-003" in output["note"]


def _run_steps(repo: Path, tmp_path: Path) -> list[subprocess.CompletedProcess[str]]:
    """Every ``run`` step of the workflow as GitHub runs it (bash -eo pipefail), but the install step."""
    steps = [s for job in _workflow()["jobs"].values() for s in job["steps"] if "run" in s]
    installs = [s for s in steps if "pip install" in s["run"]]
    assert len(installs) == 1  # releasekit is on PATH here already
    (tmp_path / "home").mkdir(exist_ok=True)
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = []
    for step in steps:
        if step in installs:
            continue
        script = tmp_path / "step.sh"
        script.write_text(step["run"].replace("${{ github.base_ref }}", "main"))
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        done.append(subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=120))
    return done


def test_workflow_runs_unchanged_in_a_catalog_repository(tmp_path: Path) -> None:
    """Issue 26: the workflow's steps in a file-based catalog repository (no streams/, kueue-fbc's layout).

    As on GitHub, the repository is checked out with its base fetched as ``origin/main`` and releasekit's
    own checkout sits in ``.releasekit/`` (a nested repository, with catalogs of its own, ignored).
    """
    from tests.scenarios.test_fbc_repo_check import LAYOUTS, make_repo
    from tests.scenarios.test_fbc_repo_check import git as run_git

    on = _workflow().get("on", _workflow().get(True))
    assert not (on["pull_request"] or {}).get("paths")  # a path filter would miss v4.18/catalog/...
    repo = make_repo(tmp_path, LAYOUTS["kueue-fbc"])
    run_git(repo, "remote", "add", "origin", str(repo))
    run_git(repo, "fetch", "-q", "origin")
    run_git(repo, "checkout", "-q", "-b", "clean", "main")
    (repo / "README.md").write_text("demo FBC, documented\n")
    run_git(repo, "commit", "-q", "-am", "a change that touches no catalog")
    nested = repo / ".releasekit"
    shutil.copytree(repo / "v4.14", nested / "catalog" / "v4.14")
    run_git(nested, "init", "-q")

    check, build = _run_steps(repo, tmp_path)
    assert (check.returncode, build.returncode) == (0, 0), check.stdout + check.stderr + build.stderr
    assert "::error" not in check.stdout and (tmp_path / "summary.md").read_text().startswith("## releasekit")

    run_git(repo, "checkout", "-q", "pr")
    check, build = _run_steps(repo, tmp_path)
    assert check.returncode == 1 and not check.stderr, (
        check.stderr
    )  # the pull request removes a published bundle
    errors = [line for line in check.stdout.splitlines() if line.startswith("::error")]
    assert any("file=v4.16/catalog/demo-operator/catalog.json" in e and "RK-DIFF-003" in e for e in errors), (
        errors
    )
    assert build.returncode == 0, build.stderr
