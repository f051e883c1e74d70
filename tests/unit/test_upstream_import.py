"""``upstream import`` against real temporary git repositories built from the shared fixtures."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import git
import pytest
import yaml

from releasekit.errors import UpstreamError, UsageError
from releasekit.io.streams import load_inventory
from releasekit.io.upstream import (
    CRD_DIRS,
    FEATURE_LIST,
    FEATURES_GO,
    check_ref,
    open_repository,
    read_inventory,
)
from releasekit.jobs.upstream_import import import_upstream
from releasekit.model.inventory import InventorySource, Maturity
from tests.unit.test_gofeatures import expected_gates, render_go

ACTOR = git.Actor("releasekit tests", "tests@example.invalid")


def _commit(repo: git.Repo, message: str) -> None:
    repo.git.add(A=True)
    repo.index.commit(message, author=ACTOR, committer=ACTOR)


def build_kueue_repo(root: Path, fixtures: Path, tag: str) -> tuple[git.Repo, dict[str, Any], dict[str, Any]]:
    """A git repo holding ``tag``'s CRDs and a generated gate file, tagged ``tag``."""
    crd_facts = yaml.safe_load((fixtures / "crds.facts.yaml").read_text(encoding="utf-8"))
    gate_facts = yaml.safe_load((fixtures / "kube_features.facts.yaml").read_text(encoding="utf-8"))
    repo = git.Repo.init(root)
    bases = root / CRD_DIRS[0]
    bases.mkdir(parents=True)
    for crd in sorted((fixtures / "crds").glob("*.yaml")):
        (bases / crd.name).write_bytes(crd.read_bytes())
    (bases / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    go = root / FEATURES_GO
    go.parent.mkdir(parents=True)
    go.write_text(render_go(gate_facts), encoding="utf-8")
    upstream_list = fixtures / "versioned_feature_list.upstream.yaml"
    if upstream_list.exists():
        target = root / FEATURE_LIST
        target.parent.mkdir(parents=True)
        target.write_bytes(upstream_list.read_bytes())
    _commit(repo, f"Kueue {tag}")
    repo.create_tag(tag)
    return repo, crd_facts, gate_facts


@pytest.mark.parametrize("tag", ["v0.10.6", "v0.11.9", "v0.19.2"])
def test_import_matches_the_facts(shared: Callable[..., Path], tmp_path: Path, tag: str) -> None:
    fixtures = shared("kueue", tag)
    repo, crd_facts, gate_facts = build_kueue_repo(tmp_path / "kueue", fixtures, tag)
    # a later commit must not leak into the import: it changes the gate file
    (tmp_path / "kueue" / FEATURES_GO).write_text("package features\n", encoding="utf-8")
    _commit(repo, "later work")

    inventory, path = import_upstream(str(tmp_path / "kueue"), tag, tmp_path / "streams")

    assert path == tmp_path / "streams" / "upstream" / f"kueue-{tag}.yaml"  # one inventory per pin
    assert inventory.source is InventorySource.EXACT
    assert (inventory.ref, inventory.tag, inventory.describe) == (tag, tag, tag)
    assert inventory.commit == repo.tags[tag].commit.hexsha
    assert inventory.features_file == (FEATURE_LIST if tag == "v0.19.2" else FEATURES_GO)
    assert inventory.gates == expected_gates(gate_facts)
    by_name = {c.name: c for c in inventory.crds}
    assert sorted(by_name) == sorted(c["name"] for c in crd_facts["crds"])
    for fact in crd_facts["crds"]:
        crd = by_name[fact["name"]]
        assert (crd.group, crd.kind, crd.plural, crd.scope, crd.file) == (
            fact["group"],
            fact["kind"],
            fact["plural"],
            fact["scope"],
            fact["file"],
        )
        assert [v.name for v in crd.versions] == fact["versions"]
        assert list(crd.served_versions) == fact["served"]
        assert crd.storage_version == fact["storage"]
        assert crd.is_alpha is fact["operatorSkipsAsAlpha"]
        assert crd.maturity is (Maturity.ALPHA if fact["apiMaturity"] != "beta" else Maturity.BETA)
        source = fixtures / "crds" / Path(fact["file"]).name
        assert crd.sha256 == hashlib.sha256(source.read_bytes()).hexdigest()

    # the written file loads back, schema-valid, to the same inventory
    loaded, findings = load_inventory(path, "inv.yaml")
    assert findings == []
    assert loaded is not None
    assert loaded.gates == inventory.gates
    assert loaded.crds == inventory.crds
    # and the output is deterministic
    first = path.read_bytes()
    import_upstream(str(tmp_path / "kueue"), tag, tmp_path / "streams")
    assert path.read_bytes() == first


def test_import_reads_the_alpha_bases_folder_and_a_commit(
    shared: Callable[..., Path], tmp_path: Path
) -> None:
    repo, _, _ = build_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9"), "v0.11.9")
    alpha = tmp_path / "kueue" / CRD_DIRS[1]
    alpha.mkdir(parents=True)
    topology = shared("kueue", "v0.11.1", "crds-partial", "kueue.x-k8s.io_topologies.yaml")
    (alpha / "kueue.x-k8s.io_capacityproviders.yaml").write_text(
        topology.read_text(encoding="utf-8")
        .replace("topologies", "capacityproviders")
        .replace("Topology", "CapacityProvider")
        .replace("topology", "capacityprovider"),
        encoding="utf-8",
    )
    _commit(repo, "alpha API")
    head = repo.head.commit.hexsha
    inventory = read_inventory(repo, head)
    assert inventory.describe == "v0.11.9-1-g" + head[:7]
    assert inventory.line == "0.11"
    assert inventory.tag is None
    provider = inventory.crd("CapacityProvider")
    assert provider is not None
    assert provider.file.startswith(CRD_DIRS[1])
    assert provider.is_alpha  # mixed v1alpha1 + v1beta1 counts as alpha
    assert [v.maturity for v in provider.versions] == [Maturity.ALPHA, Maturity.BETA]


@pytest.mark.parametrize(
    "ref",
    ["-v0.11.9", "--upload-pack=touch /tmp/x", "v0.11.0..v0.11.9", "main@{1}", "v0.11 9", "", "a~1", "x:y"],
)
def test_unsafe_refs_are_refused_before_git(tmp_path: Path, ref: str) -> None:
    with pytest.raises(UsageError, match="ref"):
        check_ref(ref)
    # import_upstream refuses before it even opens the (missing) repository
    with pytest.raises(UsageError):
        import_upstream(str(tmp_path / "does-not-exist"), ref, tmp_path / "streams")


def test_missing_tag_and_missing_paths_are_clear_errors(tmp_path: Path) -> None:
    repo = git.Repo.init(tmp_path / "empty")
    (tmp_path / "empty" / "README").write_text("not kueue\n", encoding="utf-8")
    _commit(repo, "init")
    repo.create_tag("v9.9.9")
    with pytest.raises(UpstreamError, match="ref 'v0.0.1' not found"):
        read_inventory(repo, "v0.0.1")
    with pytest.raises(UpstreamError, match=r"neither .*versioned_feature_list.yaml nor .*kube_features.go"):
        read_inventory(repo, "v9.9.9")
    go = tmp_path / "empty" / FEATURES_GO
    go.parent.mkdir(parents=True)
    go.write_text(
        "var g = map[featuregate.Feature]featuregate.FeatureSpec{A: {Default: true, PreRelease: featuregate.Beta}}\n",
        encoding="utf-8",
    )
    _commit(repo, "gates")
    repo.create_tag("v9.9.10")
    with pytest.raises(UpstreamError, match="no config/components/crd/bases/ folder"):
        read_inventory(repo, "v9.9.10")


def test_repository_errors(tmp_path: Path) -> None:
    from releasekit.errors import InputError

    with pytest.raises(InputError, match="no such repository"):
        open_repository(str(tmp_path / "nope"))
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="not a git repository"):
        open_repository(str(tmp_path / "plain"))


def test_url_is_cloned_once_into_the_cache(
    shared: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_kueue_repo(tmp_path / "origin", shared("kueue", "v0.11.9"), "v0.11.9")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    url = (tmp_path / "origin").as_uri()
    first = open_repository(url)
    assert Path(first.git_dir).is_relative_to(tmp_path / "cache" / "releasekit" / "upstream")
    assert first.bare
    second = open_repository(url)
    assert second.git_dir == first.git_dir
    inventory, _ = import_upstream(url, "v0.11.9", tmp_path / "streams")
    assert inventory.line == "0.11"
