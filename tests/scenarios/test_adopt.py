"""Adopting openshift/kueue-fbc's published catalogs, then building around them (issue 13's "must show").

A temporary git repository holds a copy of this repository's ``streams/``, ``bundle-templates/`` and
``catalog/``; ``releasekit catalog adopt`` imports ``../shared/fixtures/kueue-operator/catalog/kueue-fbc``
(read in place, never copied here) and the import is committed, as a team starting from what it
publishes would. ``releasekit build`` must then keep every one of the 40 published bundle blobs byte for
byte (kueue-fbc's CSV prose included), and a new release must change only its own blob and the edges.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import git
import pytest
from click.testing import Result

from releasekit.io.fbc_blobs import json_stream_blobs
from tests.cli.test_build_published import commit_all, init_repo, tree_hashes
from tests.conftest import REPO_ROOT, require_shared
from tests.scenarios.test_check import DIGEST, NEW_RELEASE, OPT_IN

Blobs = dict[tuple[str, str], str]


def blobs_of(path: Path) -> Blobs:
    raws = json_stream_blobs(path.read_text(encoding="utf-8"))
    assert raws is not None, f"{path} is not a JSON stream"
    return {(r.schema, r.name): r.text for r in raws}


def published(kueue_fbc: Path) -> dict[str, Blobs]:
    """kueue-fbc's bundle blobs per OpenShift version."""
    return {
        path.parts[-4]: {k: v for k, v in blobs_of(path).items() if k[0] == "olm.bundle"}
        for path in sorted(kueue_fbc.glob("v*/catalog/*/catalog.json"))
    }


def built(repo: Path, openshift: str) -> Blobs:
    return blobs_of(repo / "catalog" / openshift / "configs" / "kueue-operator" / "catalog.json")


@pytest.fixture(scope="module")
def kueue_fbc() -> Path:
    return require_shared("kueue-operator", "catalog", "kueue-fbc")


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory, kueue_fbc: Path) -> Iterator[Path]:
    """The repository after ``catalog adopt`` (committed as "adopt") and ``build``."""
    from click.testing import CliRunner

    from releasekit.cli import cli

    root = init_repo(tmp_path_factory.mktemp("adopt") / "repo")
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        adopt = runner.invoke(cli, ["catalog", "adopt", str(kueue_fbc), "--layout", "kueue-fbc"])
        assert adopt.exit_code == 0, adopt.output
        commit_all(root, "adopt")
        build = runner.invoke(cli, ["build"])
        assert build.exit_code == 0, build.output
    yield root


def test_build_after_adopting_keeps_all_40_published_bundle_blobs(adopted: Path, kueue_fbc: Path) -> None:
    theirs = published(kueue_fbc)
    assert sum(len(b) for b in theirs.values()) == 40
    mine = {openshift: built(REPO_ROOT, openshift) for openshift in theirs}
    differ = [k for o, blobs in theirs.items() for k, text in blobs.items() if mine[o].get(k) != text]
    assert differ, "kueue-fbc's blobs equal this project's own: the test would pass without carrying"
    for openshift, blobs in theirs.items():
        now = built(adopted, openshift)
        for key, text in blobs.items():
            assert now.get(key) == text, f"{openshift} {key[1]} was not carried byte for byte"


def test_the_adopted_repository_passes_every_check(
    adopted: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(adopted)
    assert run_line(["build", "--check"]).exit_code == 0
    assert run_line(["check", "--base", "HEAD"]).exit_code == 0
    roots = sorted(str(p.relative_to(adopted)) for p in (adopted / "catalog").glob("v*/configs"))
    assert len(roots) == 7
    validate = run_line(["catalog", "validate", *roots, "--graph", "--format", "json"])
    assert validate.exit_code == 0, validate.stdout


def test_a_new_release_changes_only_its_blob_and_the_edges(
    adopted: Path, kueue_fbc: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(adopted)
    repo = git.Repo(adopted)
    try:
        before = {o: built(adopted, o) for o in published(kueue_fbc)}
        stable = adopted / "streams" / "stable.yaml"
        stable.write_text(stable.read_text() + NEW_RELEASE.format(d=DIGEST, gates=OPT_IN.rstrip("\n")))
        result = run_line(["build"])
        assert result.exit_code == 0, result.stdout
        new = ("olm.bundle", "kueue-operator.v1.4.2")
        for openshift, old in before.items():
            now = built(adopted, openshift)
            changed = {k for k in set(old) | set(now) if old.get(k) != now.get(k)}
            assert new in changed and new not in old
            assert {k[0] for k in changed - {new}} == {"olm.channel"}, (openshift, sorted(changed))
            assert "kueue-operator.v1.4.2" in "".join(now[k] for k in changed - {new})
        assert run_line(["check", "--base", "HEAD"]).exit_code == 0
    finally:
        repo.git.checkout("-q", "--", "streams", "catalog")
        repo.close()


def test_a_candidate_preview_adds_only_its_blob_and_edges(
    adopted: Path, kueue_fbc: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(adopted)
    repo = git.Repo(adopted)
    try:
        stable = adopted / "streams" / "stable.yaml"
        release = NEW_RELEASE.format(d=DIGEST, gates=OPT_IN.rstrip("\n"))
        stable.write_text(stable.read_text() + release.replace("status: released", "status: candidate"))
        committed = tree_hashes(adopted / "catalog")
        result = run_line(["catalog", "build", "--candidates", "--out", "preview"])
        assert result.exit_code == 0, result.stdout
        assert tree_hashes(adopted / "catalog") == committed
        for openshift, blobs in published(kueue_fbc).items():
            preview = blobs_of(
                adopted / "preview" / openshift / "configs" / "kueue-operator" / "catalog.json"
            )
            assert all(preview[k] == text for k, text in blobs.items())
            assert ("olm.bundle", "kueue-operator.v1.4.2") in preview
    finally:
        repo.git.checkout("-q", "--", "streams")
        repo.close()


def test_adopt_reports_what_the_streams_do_not_know(
    tmp_path: Path, kueue_fbc: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    stable = root / "streams" / "stable.yaml"
    text = stable.read_text()
    stable.write_text(
        text.replace("    catalogs: [v4.18, v4.19, v4.20]\n", "    catalogs: [v4.18, v4.19]\n", 1)
    )
    before = tree_hashes(root / "catalog")
    result = run_line(["catalog", "adopt", str(kueue_fbc), "--format", "json"])
    assert result.exit_code == 1
    import json

    unknown = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-DIFF-014"]
    assert [(f["subject"][0], f["subject"][-1]) for f in unknown] == [
        ("v4.20", 'bundle "kueue-operator.v1.1.0"')
    ]
    assert unknown[0]["location"]["file"].endswith("v4.20/catalog/kueue-operator/catalog.json")
    assert tree_hashes(root / "catalog") == before
    assert result.stderr == "catalog/ left unchanged: 1 error\n"


def test_adopt_reports_unknown_packages_and_openshift_versions(
    tmp_path: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from tests.conftest import usual_catalog

    source = tmp_path / "fbc"
    for openshift in ("v4.18", "v3.11"):
        target = source / openshift / "catalog" / "foo" / "catalog.json"
        target.parent.mkdir(parents=True)
        target.write_text("".join(json.dumps(b, indent=4) + "\n" for b in usual_catalog()))
    (source / "v4.18" / "catalog-template.yaml").write_text("schema: olm.semver\n")
    root = init_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    result = run_line(["catalog", "adopt", str(source), "--format", "json"])
    assert result.exit_code == 1
    found = sorted((f["rule"], tuple(f["subject"])) for f in json.loads(result.stdout)["findings"])
    assert found == [
        ("RK-DIFF-012", ("v3.11", "foo")),
        ("RK-DIFF-012", ("v4.18", "foo")),
        ("RK-DIFF-013", ("v3.11",)),
        ("RK-DIFF-015", ("not imported",)),
    ]
    assert not (root / "catalog" / "v4.18" / "configs" / "foo").exists()


def test_adopting_a_releasekit_layout_copies_it_byte_for_byte(
    tmp_path: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", folders=("streams", "bundle-templates"))
    monkeypatch.chdir(root)
    result = run_line(["catalog", "adopt", str(REPO_ROOT / "catalog"), "--layout", "releasekit", "-v"])
    assert result.exit_code == 0, result.stdout
    mine = {k: v for k, v in tree_hashes(REPO_ROOT / "catalog").items() if k.endswith("catalog.json")}
    adopted = {k: v for k, v in tree_hashes(root / "catalog").items() if k != ".releasekit-generated"}
    assert adopted == mine  # the Containerfiles are releasekit's to write, not imported
    assert set((root / "catalog" / ".releasekit-generated").read_text().splitlines()[2:]) == set(mine)
    assert "Containerfile is not a package catalog of the releasekit layout" in result.stdout


def test_adopt_refuses_a_catalog_it_could_not_carry(
    tmp_path: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    source = tmp_path / "fbc" / "v4.18" / "catalog" / "kueue-operator" / "catalog.json"
    source.parent.mkdir(parents=True)
    source.write_text("---\nschema: olm.package\nname: kueue-operator\n")
    root = init_repo(tmp_path / "repo", folders=("streams", "bundle-templates"))
    monkeypatch.chdir(root)
    result = run_line(["catalog", "adopt", str(tmp_path / "fbc"), "--format", "json"])
    assert result.exit_code == 1
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["RK-DIFF-016"]
    assert not (root / "catalog").exists()
