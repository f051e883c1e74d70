"""``layout: kueue-fbc``: ``build`` keeps each fragment's opm template in step with its catalog (issue 26).

openshift/kueue-fbc regenerates each ``v<X.Y>/catalog/`` from ``v<X.Y>/catalog-template.yaml`` with opm
(``generate-fbc.sh``). releasekit writes that template too: an ``olm.template.basic`` template whose rendering
is the catalog it writes (package, channels with their edges, bundles by image). Proven with releasekit's
own offline renderer of opm's basic template, resolving each image from the written catalog's blobs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import Result

from releasekit.io.bundle_source import config_from_entries
from releasekit.io.fbc_load import load_catalog
from releasekit.io.fbc_write import render_json
from releasekit.model.fbc import Bundle
from releasekit.plan.template_basic import basic_entries, render_basic
from tests.cli.test_build_published import commit_all, init_repo, tree_hashes

KUEUE_FBC_CONFIG = "schema: releasekit/config/v1\ncatalog:\n  layout: kueue-fbc\n"


@pytest.fixture
def fbc_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """streams/ and bundle-templates/ of this repository, laid out as openshift/kueue-fbc, not built yet."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "releasekit.yaml").write_text(KUEUE_FBC_CONFIG)
    init_repo(root, folders=("streams", "bundle-templates"))
    monkeypatch.chdir(root)
    return root


def _rendered(template: Path, catalog: Path) -> tuple[str, str]:
    """The template rendered as opm renders a basic template (each image resolved from ``catalog``'s
    blobs), and the catalog, both written by one writer."""
    config = load_catalog(catalog.parent).config
    bundles = config.bundles

    def resolve(image: str) -> list[Bundle]:
        return [b for b in bundles if b.image == image]

    entries, errors = config_from_entries(basic_entries(yaml.safe_load(template.read_text())), str(template))
    assert not errors
    return render_json(render_basic(entries, resolve)), render_json(config)


def test_build_writes_a_basic_template_that_renders_to_each_catalog(
    fbc_repo: Path, run_line: Callable[..., Result]
) -> None:
    result = run_line(["build"])
    assert result.exit_code == 0, result.stdout + result.stderr
    fragments = sorted(fbc_repo.glob("v*"))
    assert len(fragments) > 3
    listed = (fbc_repo / ".releasekit-generated").read_text()
    for fragment in fragments:
        template = fragment / "catalog-template.yaml"
        catalog = fragment / "catalog" / "kueue-operator" / "catalog.json"
        doc = yaml.safe_load(template.read_text())
        assert doc["schema"] == "olm.template.basic"
        refs = [e for e in doc["entries"] if e["schema"] == "olm.bundle"]
        assert refs and all(set(e) == {"schema", "image"} for e in refs)  # bundles by image alone
        rendered, written = _rendered(template, catalog)
        assert rendered == written  # package, channels, entries and edges, and every bundle
        assert f"{fragment.name}/catalog-template.yaml" in listed
    edges = [
        e
        for e in yaml.safe_load((fragments[-1] / "catalog-template.yaml").read_text())["entries"]
        if e["schema"] == "olm.channel"
        for e in e["entries"]
        if "replaces" in e or "skips" in e or "skipRange" in e
    ]
    assert edges
    commit_all(fbc_repo, "built")
    assert run_line(["build", "--check"]).exit_code == 0


def test_a_stale_template_is_drift_and_build_brings_it_in_step(
    fbc_repo: Path, run_line: Callable[..., Result]
) -> None:
    assert run_line(["build"]).exit_code == 0
    commit_all(fbc_repo, "built")
    template = fbc_repo / "v4.19" / "catalog-template.yaml"
    written = template.read_text()
    template.write_text(
        written.replace("- schema: olm.bundle\n  image: ", "- schema: olm.bundle\n  image: x", 1)
    )
    result = run_line(["build", "--check", "--format", "json"])
    assert result.exit_code == 1
    drift = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-DIFF-001"]
    assert [f["location"]["file"] for f in drift] == ["./v4.19/catalog-template.yaml"]
    assert run_line(["build"]).exit_code == 0
    assert template.read_text() == written


def test_a_template_releasekit_did_not_write_is_never_overwritten(
    fbc_repo: Path, run_line: Callable[..., Result]
) -> None:
    theirs = fbc_repo / "v4.18" / "catalog-template.yaml"
    theirs.parent.mkdir()
    theirs.write_text("Schema: olm.semver\nStable:\n  Bundles: []\n")
    before = tree_hashes(fbc_repo)
    result = run_line(["build"])
    assert result.exit_code == 2
    assert "v4.18/catalog-template.yaml: exists and releasekit did not write it" in result.stderr
    assert tree_hashes(fbc_repo) == before


def test_check_runs_in_a_kueue_fbc_layout_repository(fbc_repo: Path, run_line: Callable[..., Result]) -> None:
    """The templates are no catalog content; a released blob rewritten by hand is an error with --published."""
    assert run_line(["build"]).exit_code == 0
    commit_all(fbc_repo, "built")
    clean = run_line(["check", "--base", "HEAD", "--format", "json"])
    assert clean.exit_code == 0, clean.stdout + clean.stderr
    catalog = fbc_repo / "v4.20" / "catalog" / "kueue-operator" / "catalog.json"
    image = yaml.safe_load((fbc_repo / "v4.20" / "catalog-template.yaml").read_text())["entries"][-1]["image"]
    text = catalog.read_text()
    assert f'"image": "{image}"' in text
    catalog.write_text(text.replace(f'"image": "{image}"', f'"image": "{image[:-4]}beef"'))
    result = run_line(["check", "--base", "HEAD", "--published", "v4.20=HEAD", "--format", "json"])
    assert result.exit_code == 1, result.stdout + result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert not [f for f in findings if f["rule"].startswith("RK-FBC")]
    changed = [f for f in findings if f["rule"] == "RK-DIFF-023"]
    assert len(changed) == 1 and changed[0]["severity"] == "error"
    assert changed[0]["location"]["file"] == "v4.20/catalog/kueue-operator/catalog.json"
