"""``releasekit build`` and ``releasekit catalog build`` on the repository's own data and on copies."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from releasekit.io.atomic import MARKER
from tests.conftest import REPO_ROOT


def test_build_check_on_the_repository_is_clean(
    run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI proves catalog/ is in sync with streams/ (the committed catalogs are the golden files)."""
    monkeypatch.chdir(REPO_ROOT)
    result = run_line(["build", "--check", "--format", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert report["passed"] is True
    assert report["summary"]["errors"] == 0


def _generated(path: Path) -> bool:
    """A generated catalog file (not the ownership marker, which git ignores)."""
    return path.is_file() and path.name != MARKER


def test_build_writes_the_same_bytes_twice(run_line: Callable[..., Result], repo_copy: Path) -> None:
    shutil.rmtree(repo_copy / "catalog")
    assert run_line(["build"]).exit_code == 0
    first = {p: p.read_bytes() for p in sorted((repo_copy / "catalog").rglob("*")) if _generated(p)}
    assert run_line(["build"]).exit_code == 0
    second = {p: p.read_bytes() for p in sorted((repo_copy / "catalog").rglob("*")) if _generated(p)}
    assert first == second
    original = {p.relative_to(repo_copy): b for p, b in first.items()}
    committed = {
        p.relative_to(REPO_ROOT): p.read_bytes() for p in (REPO_ROOT / "catalog").rglob("*") if _generated(p)
    }
    assert original == committed


def test_check_lists_drifted_files(run_line: Callable[..., Result], repo_copy: Path) -> None:
    target = repo_copy / "catalog" / "v4.20" / "configs" / "kueue-operator" / "catalog.json"
    target.write_text(target.read_text().replace("stable-v1.4", "stable-v9.9", 1))
    (repo_copy / "catalog" / "v4.20" / "stray.txt").write_text("x")
    result = run_line(["catalog", "build", "--check", "--format", "json"])
    assert result.exit_code == 1
    drift = {
        f["location"]["file"] for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-DIFF-001"
    }
    assert drift == {"catalog/v4.20/configs/kueue-operator/catalog.json", "catalog/v4.20/stray.txt"}
    assert target.read_text().count("stable-v9.9") == 1  # --check wrote nothing


@pytest.mark.usefixtures("repo_copy")
def test_candidates_need_an_out_folder(run_line: Callable[..., Result]) -> None:
    result = run_line(["catalog", "build", "--candidates"])
    assert result.exit_code == 2
    assert "--catalog-dir" in result.stderr


@pytest.mark.parametrize("flag", ["--catalog-dir", "--out"], ids=["name", "old-name"])
def test_catalog_build_names_its_tree_as_build_does(
    run_line: Callable[..., Result], repo_copy: Path, flag: str
) -> None:
    """`catalog build` takes `--catalog-dir` like `build`; `--out` stays as an alias."""
    result = run_line(["catalog", "build", "--candidates", flag, "preview"])
    assert result.exit_code == 0, result.output
    assert sorted((repo_copy / "preview").rglob("catalog.json"))


def test_candidates_preview_holds_the_experimental_package(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    result = run_line(["catalog", "build", "--candidates", "--out", "preview", "--format", "json"])
    preview = repo_copy / "preview"
    packages = sorted(
        p.parent.name + "/" + p.parent.parent.parent.name for p in preview.rglob("catalog.json")
    )
    assert "kueue-operator-experimental/v4.18" in packages and "kueue-operator-experimental/v4.19" in packages
    assert not any("experimental/v4.20" in p for p in packages)
    assert not (repo_copy / "catalog" / "v4.18" / "configs" / "kueue-operator-experimental").exists()
    report = json.loads(result.stdout)
    dev = [f for f in report["findings"] if f["rule"] in ("RK-KONFLUX-009", "RK-KONFLUX-010")]
    assert dev, "development image references in the preview are reported"
    assert {f["severity"] for f in dev} == {"warning"}
    assert all("kueue-operator-experimental" in f["message"] for f in dev)
    assert result.exit_code == 0


def test_unreadable_streams_exit_2(run_line: Callable[..., Result], repo_copy: Path) -> None:
    (repo_copy / "streams" / "stable.yaml").write_text("releases: [\n")
    result = run_line(["build"])
    assert result.exit_code == 2
    assert "stable.yaml" in result.stderr and "Traceback" not in result.stderr


def test_failed_build_leaves_the_old_catalog(run_line: Callable[..., Result], repo_copy: Path) -> None:
    before = {p: p.read_bytes() for p in (repo_copy / "catalog").rglob("*") if p.is_file()}
    (repo_copy / "bundle-templates" / "clusterserviceversion.yaml.j2").write_text("{{ nope }}\n")
    result = run_line(["build"])
    assert result.exit_code == 2
    assert "clusterserviceversion.yaml.j2" in result.stderr
    after = {p: p.read_bytes() for p in (repo_copy / "catalog").rglob("*") if p.is_file()}
    assert before == after


def test_build_with_bundles_reads_upstream_and_validates(
    run_line: Callable[..., Result], repo_copy: Path, shared: Callable[..., Path]
) -> None:
    """`build --bundles` generates bundles from the given upstream; stable is left out here (other Kueue lines)."""
    from tests.cli.test_bundle_build import make_kueue_repo

    upstream = repo_copy / "kueue"
    make_kueue_repo(upstream, shared("kueue", "v0.11.9", "crds"))
    (repo_copy / "streams" / "stable.yaml").unlink()
    shutil.rmtree(repo_copy / "catalog")
    result = run_line(
        ["build", "--bundles", "--upstream", str(upstream), "--allow-unpinned", "--format", "json"]
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    csv = repo_copy / "bundles" / "experimental" / "0.3.0" / "manifests"
    assert (csv / "kueue-operator-experimental.v0.3.0.clusterserviceversion.yaml").is_file()
    assert (csv / "kueue.x-k8s.io_topologies.yaml").is_file()
    assert not list((repo_copy / "catalog").rglob("catalog.json"))  # a candidate is not in committed catalogs


def test_build_with_bundles_stops_when_upstream_is_unreachable(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    result = run_line(
        ["build", "--bundles", "--upstream", str(repo_copy / "no-such-repo"), "--allow-unpinned"]
    )
    assert result.exit_code == 2
    assert "no-such-repo" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_upstream_needs_bundles(run_line: Callable[..., Result], repo_copy: Path) -> None:
    result = run_line(["build", "--upstream", str(repo_copy)])
    assert result.exit_code == 2 and "--bundles" in result.stderr


def test_version_and_help(run_line: Callable[..., Result]) -> None:
    from releasekit import __version__

    version = run_line(["--version"])
    assert version.exit_code == 0 and version.stdout == f"releasekit {__version__}\n"
    helped = run_line(["--help"])
    assert helped.exit_code == 0
    for noun in ("build", "bundle", "catalog", "check", "streams", "upstream"):
        assert f"  {noun} " in helped.stdout


def test_the_settings_of_the_removed_cache_and_compiled_loops_are_accepted_and_ignored(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    """Pipelines that set RELEASEKIT_CACHE_DIR, RELEASEKIT_NO_CACHE or RELEASEKIT_PURE_PYTHON keep working,
    and nothing is stored between runs any more."""
    cache, xdg = repo_copy.parent / "results", repo_copy.parent / "xdg"
    env = {"RELEASEKIT_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(xdg), "RELEASEKIT_PURE_PYTHON": "1"}
    before = {p: p.read_bytes() for p in sorted((repo_copy / "catalog").rglob("*")) if _generated(p)}
    assert run_line(["build"], env=env).exit_code == 0
    assert run_line(["build", "--check"], env={**env, "RELEASEKIT_NO_CACHE": "1"}).exit_code == 0
    after = {p: p.read_bytes() for p in sorted((repo_copy / "catalog").rglob("*")) if _generated(p)}
    assert after == before
    assert not cache.exists() and not xdg.exists()
