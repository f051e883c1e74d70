"""``releasekit bundle build`` through click: template safety, unreachable upstream, usage errors.

Every failure that stops a build is one line on stderr and exit 2, never a traceback. The upstream
repository is a temporary git repository built from the shared Kueue v0.11.9 CRDs
(:func:`make_kueue_repo`, also used by ``tests/golden/test_bundle_build.py``).
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

STREAMS = REPO_ROOT / "streams"
TEMPLATES = REPO_ROOT / "bundle-templates"
CRD_BASES = "config/components/crd/bases"
ACTOR = git.Actor("releasekit tests", "tests@example.invalid")
COMMIT_DATE = "1753660800 +0000"  # 2025-07-28, fixed so the commit id (recorded in golden files) is stable


def commit_all(repo: git.Repo, message: str) -> git.Commit:
    """Commit the whole work tree with a fixed author, committer and date."""
    repo.git.add(A=True)
    return repo.index.commit(
        message, author=ACTOR, committer=ACTOR, author_date=COMMIT_DATE, commit_date=COMMIT_DATE
    )


def make_kueue_repo(root: Path, crds: Path, tag: str = "v0.11.9") -> git.Repo:
    """A git repository holding the CRD files of ``crds`` at ``config/components/crd/bases/``, tagged ``tag``."""
    repo = git.Repo.init(root)
    bases = root / CRD_BASES
    bases.mkdir(parents=True)
    for crd in sorted(crds.glob("*.yaml")):
        (bases / crd.name).write_bytes(crd.read_bytes())
    (bases / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    commit_all(repo, f"Kueue {tag}")
    repo.create_tag(tag)
    return repo


@pytest.fixture
def kueue_repo(shared: Callable[..., Path], tmp_path: Path) -> Path:
    make_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9", "crds"))
    return tmp_path / "kueue"


def _build(run_line: Callable[..., Result], repo: Path | str, out: Path, *extra: object) -> Result:
    return run_line(
        [
            "bundle",
            "build",
            "--upstream",
            repo,
            "--out",
            out,
            "--streams-dir",
            STREAMS,
            "--allow-unpinned",
            *extra,
        ]
    )


def _templates(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "templates"
    shutil.copytree(TEMPLATES, folder)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def _one_line_exit_2(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("wrote ")]
    assert len(lines) == 1, result.stderr
    return lines[0]


# --------------------------------------------------------------------------------- template safety


@pytest.mark.shared
def test_undefined_variable_names_template_and_line(
    run_line: Callable[..., Result], kueue_repo: Path, tmp_path: Path
) -> None:
    text = "# Generated\nannotations:\n  x: {{ no_such_value }}\n"
    folder = _templates(tmp_path, "annotations.yaml.j2", text)
    result = _build(run_line, kueue_repo, tmp_path / "out", "--templates-dir", folder)
    line = _one_line_exit_2(result)
    assert "annotations.yaml.j2:3" in line and "undefined" in line and "no_such_value" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.shared
def test_undefined_variable_through_a_filter_names_template_and_line(
    run_line: Callable[..., Result], kueue_repo: Path, tmp_path: Path
) -> None:
    text = "# Generated\nannotations:\n  x: {{ no_such_value | to_json }}\n"
    folder = _templates(tmp_path, "annotations.yaml.j2", text)
    result = _build(run_line, kueue_repo, tmp_path / "out", "--templates-dir", folder)
    line = _one_line_exit_2(result)
    assert "annotations.yaml.j2:3" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.shared
def test_sandbox_escape_is_refused(run_line: Callable[..., Result], kueue_repo: Path, tmp_path: Path) -> None:
    text = "FROM scratch\n\nLABEL x={{ ''.__class__.__mro__ }}\n"
    folder = _templates(tmp_path, "bundle.Dockerfile.j2", text)
    result = _build(run_line, kueue_repo, tmp_path / "out", "--templates-dir", folder)
    line = _one_line_exit_2(result)
    assert "bundle.Dockerfile.j2:3" in line and "sandbox" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.shared
def test_include_outside_the_templates_folder(
    run_line: Callable[..., Result], kueue_repo: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.txt").write_text("secret\n", encoding="utf-8")
    folder = _templates(tmp_path, "annotations.yaml.j2", "{% include '../secret.txt' %}\n")
    result = _build(run_line, kueue_repo, tmp_path / "out", "--templates-dir", folder)
    line = _one_line_exit_2(result)
    assert "annotations.yaml.j2" in line and "../secret.txt" in line
    assert "secret\n" not in result.stdout


@pytest.mark.shared
def test_template_symlink_leaving_the_folder(
    run_line: Callable[..., Result], kueue_repo: Path, tmp_path: Path
) -> None:
    folder = _templates(tmp_path, "README.md", "x\n")
    outside = tmp_path / "elsewhere.j2"
    outside.write_text("{{ csv.name }}\n", encoding="utf-8")
    (folder / "bundle.Dockerfile.j2").unlink()
    (folder / "bundle.Dockerfile.j2").symlink_to(outside)
    result = _build(run_line, kueue_repo, tmp_path / "out", "--templates-dir", folder)
    line = _one_line_exit_2(result)
    assert "bundle.Dockerfile.j2" in line and "outside" in line


def test_missing_templates_folder(run_line: Callable[..., Result], tmp_path: Path) -> None:
    result = _build(
        run_line, tmp_path / "no-repo", tmp_path / "out", "--templates-dir", tmp_path / "nope", "--all"
    )
    line = _one_line_exit_2(result)
    assert "nope" in line and "templates" in line


# --------------------------------------------------------------------------------- upstream


def test_unreachable_upstream_url(run_line: Callable[..., Result], tmp_path: Path) -> None:
    url = f"file://{tmp_path}/no-such-kueue.git"
    result = run_line(
        ["bundle", "build", "--upstream", url, "--out", tmp_path / "out", "--streams-dir", STREAMS]
        + ["--allow-unpinned"],
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    line = _one_line_exit_2(result)
    assert "unreachable" in line and url in line
    assert not (tmp_path / "out").exists()


def test_upstream_path_not_a_repository(run_line: Callable[..., Result], tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    line = _one_line_exit_2(_build(run_line, tmp_path / "plain", tmp_path / "out"))
    assert "not a git repository" in line


@pytest.mark.shared
def test_missing_ref_in_upstream(
    run_line: Callable[..., Result], shared: Callable[..., Path], tmp_path: Path
) -> None:
    make_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9", "crds"), tag="v9.9.9")
    line = _one_line_exit_2(_build(run_line, tmp_path / "kueue", tmp_path / "out"))
    assert "v0.11.9" in line and "not found" in line


def test_unpinned_inventory_stops_before_touching_git(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """No git work happens: the repository does not even exist (0.3.0 bundles Kueue's CRDs)."""
    from tests.golden.test_bundle_build import transcribed_streams

    result = run_line(
        ["bundle", "build", "--upstream", tmp_path / "kueue", "--out", tmp_path / "out"]
        + ["--streams-dir", transcribed_streams(tmp_path), "--version", "0.3.0"]
    )
    line = _one_line_exit_2(result)
    assert f"releasekit upstream import --repo {tmp_path / 'kueue'} --ref v0.11.9" in line
    assert "--allow-unpinned" in line and "kueue-0.11" in line


# --------------------------------------------------------------------------------- usage


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--stream", "nightly"], ["nightly", "stable"]),
        (["--version", "9.9.9"], ["9.9.9"]),
        (["--version", "1.0.1", "--all"], ["--all"]),
        (["--stream", "experimental", "--version", "1.0.1"], ["1.0.1", "experimental"]),
    ],
)
def test_usage_errors_exit_2(
    run_line: Callable[..., Result], tmp_path: Path, args: list[str], words: list[str]
) -> None:
    line = _one_line_exit_2(_build(run_line, tmp_path / "kueue", tmp_path / "out", *args))
    for word in words:
        assert word in line


def test_no_candidates_selected_exits_0(run_line: Callable[..., Result], tmp_path: Path) -> None:
    result = _build(run_line, tmp_path / "kueue", tmp_path / "out", "--stream", "stable")
    assert result.exit_code == 0, result.output
    assert "no release selected" in result.stderr
    assert not (tmp_path / "out").exists()


def test_konflux_format_still_writes_test_output_on_stop(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    result = run_line(
        ["bundle", "build", "--upstream", tmp_path / "kueue", "--out", tmp_path / "out"]
        + ["--streams-dir", STREAMS, "--version", "0.3.0", "--format", "konflux"]
    )
    assert result.exit_code == 2
    assert json.loads(result.stdout)["result"] == "ERROR"
