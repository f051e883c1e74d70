"""Pure bundle planning: alpha filtering per stream, placement, hash checks, refs, annotations, selection."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath

import pytest

from releasekit.errors import SafetyLimitError, UpstreamError, UsageError
from releasekit.io.streams import load_streams
from releasekit.model.inventory import Crd, CrdVersion, Inventory, InventorySource, Maturity, version_maturity
from releasekit.model.stream import Release, Stream, UpgradePolicy, Upstream
from releasekit.plan.bundle import (
    BundlePlan,
    PlannedCrd,
    UpstreamPin,
    bundle_annotations,
    check_hashes,
    manifest_document,
    plan_bundle,
    require_pinned,
    select_releases,
    template_context,
    upstream_ref,
)
from tests.conftest import REPO_ROOT

LOADED = load_streams(REPO_ROOT / "streams", display_root="streams")
STREAMS = {s.name: s for s in LOADED.streams}
STABLE, EXPERIMENTAL = STREAMS["stable"], STREAMS["experimental"]
INVENTORY = LOADED.inventories["kueue-0.11"]
PIN = UpstreamPin(ref="v0.11.9", source="tag")
COMMIT = "0" * 40
REPO = "/src/kueue"


def _release(stream: Stream, version: str) -> Release:
    release = stream.release(version)
    assert release is not None
    return release


def _kinds(crds: tuple[PlannedCrd, ...]) -> tuple[str, ...]:
    return tuple(sorted(c.crd.kind for c in crds))


def _assets(plan: BundlePlan) -> tuple[PlannedCrd, ...]:
    return tuple(c for c in plan.crds if c.placement == "operator-assets")


def _crd(kind: str, plural: str, *versions: str, sha: str | None = None) -> Crd:
    return Crd(
        group="kueue.x-k8s.io",
        kind=kind,
        plural=plural,
        scope="Cluster",
        versions=tuple(
            CrdVersion(name=v, served=True, storage=i == 0, maturity=version_maturity(v))
            for i, v in enumerate(versions)
        ),
        file=f"config/components/crd/bases/kueue.x-k8s.io_{plural}.yaml",
        sha256=sha if sha is not None else (plural[:1] * 64),
    )


# What a ref of Kueue 0.11.1 holds: Topology served as v1alpha1 AND v1beta1 (still alpha as a whole).
READ_0_11_1 = (
    _crd("ClusterQueue", "clusterqueues", "v1beta1"),
    _crd("Cohort", "cohorts", "v1alpha1"),
    _crd("LocalQueue", "localqueues", "v1beta1"),
    _crd("Topology", "topologies", "v1alpha1", "v1beta1"),
)


def _exact(read: tuple[Crd, ...]) -> Inventory:
    return replace(
        INVENTORY, source=InventorySource.EXACT, crds=read, file="streams/upstream/kueue-0.11.yaml"
    )


def _plan(stream: Stream, version: str, read: tuple[Crd, ...] = READ_0_11_1, **kw: object) -> BundlePlan:
    return plan_bundle(
        stream,
        _release(stream, version),
        kw.pop("inventory", _exact(read)),  # type: ignore[arg-type]
        read,
        pin=PIN,
        commit=COMMIT,
        repo=REPO,
        **kw,  # type: ignore[arg-type]
    )


# ------------------------------------------------------------------------------------------ alpha + placement


def test_stable_leaves_out_every_crd_with_an_alpha_version() -> None:
    plan = _plan(STABLE, "1.0.1")
    assert _kinds(plan.excluded_crds) == ("Cohort", "Topology")  # Topology had v1beta1 too: still out
    assert [c.kind for c in plan.shipped] == ["ClusterQueue", "LocalQueue"]
    assert all(v.maturity is not Maturity.ALPHA for c in plan.shipped for v in c.versions)
    topology = next(c for c in plan.excluded_crds if c.crd.kind == "Topology")
    assert topology.path is None and "v1alpha1" in topology.reason and "stable" in topology.reason


def test_stable_cites_operand_crds_embedded_in_the_operator_image() -> None:
    """operator-assets: the bundle holds no Kueue file; the CRDs are cited from the inventory, unhashed."""
    plan = _plan(STABLE, "1.0.1", inventory=replace(INVENTORY, crds=READ_0_11_1))
    assert plan.bundle_crds == ()
    assert [(c.crd.kind, c.path) for c in _assets(plan)] == [("ClusterQueue", None), ("LocalQueue", None)]
    assert not plan.pinned and "cited" in _assets(plan)[0].reason
    entries = manifest_document(plan)["crds"]
    assert [e["placement"] for e in entries] == ["operator-assets", "operator-assets"]
    owned = template_context(plan, defaults={}, prose={})["owned_crds"]
    assert [c["name"] for c in owned] == ["kueues.kueue.openshift.io"]


def test_experimental_keeps_alpha_apis_in_the_bundle_owned_by_the_csv() -> None:
    plan = _plan(EXPERIMENTAL, "0.3.0")
    assert plan.excluded_crds == () and _assets(plan) == ()
    assert _kinds(plan.bundle_crds) == ("ClusterQueue", "Cohort", "LocalQueue", "Topology")
    assert all(c.path is not None and c.path.parent == PurePosixPath("manifests") for c in plan.bundle_crds)
    owned = template_context(plan, defaults={}, prose={})["owned_crds"]
    assert {c["kind"] for c in owned} == {"Kueue", "ClusterQueue", "Cohort", "LocalQueue", "Topology"}
    topology = next(c for c in owned if c["kind"] == "Topology")
    assert topology["version"] == "v1alpha1"  # the storage version


def test_experimental_leaves_out_alpha_apis_it_does_not_name() -> None:
    read = (*READ_0_11_1, _crd("CapacityProvider", "capacityproviders", "v1alpha1"))
    plan = _plan(EXPERIMENTAL, "0.3.0", read)
    assert _kinds(plan.excluded_crds) == ("CapacityProvider",)
    assert "alphaApis" in plan.excluded_crds[0].reason


def test_alpha_is_decided_from_the_files_read_not_the_inventory() -> None:
    """A transcribed inventory that calls Topology beta does not let its alpha file into stable."""
    claimed = tuple(
        replace(c, versions=(CrdVersion(name="v1beta1", served=True, storage=True, maturity=Maturity.BETA),))
        for c in READ_0_11_1
    )
    transcribed = replace(INVENTORY, source=InventorySource.TRANSCRIBED, crds=claimed)
    plan = _plan(STABLE, "1.0.1", inventory=transcribed, allow_unpinned=True)
    assert _kinds(plan.excluded_crds) == ("Cohort", "Topology")


def test_file_names_and_layout_are_deterministic() -> None:
    plan = _plan(STABLE, "1.0.1")
    assert plan.root == PurePosixPath("stable/1.0.1")
    assert plan.csv_path == PurePosixPath("manifests/kueue-operator.v1.0.1.clusterserviceversion.yaml")
    assert plan.operator_crd_path == PurePosixPath("manifests/kueue.openshift.io_kueues.yaml")
    assert plan.annotations_path == PurePosixPath("metadata/annotations.yaml")
    assert (
        str(plan.dockerfile_path) == "bundle.Dockerfile" and str(plan.manifest_path) == "upstream-crds.yaml"
    )
    shuffled = _plan(STABLE, "1.0.1", tuple(reversed(READ_0_11_1)))
    assert shuffled.crds == plan.crds


def test_unsafe_path_components_are_refused() -> None:
    with pytest.raises(SafetyLimitError, match="stream name"):
        _plan(replace(STABLE, name="../x"), "1.0.1")
    bad = (replace(READ_0_11_1[0], file="config/components/crd/bases/.hidden.yaml"),)
    with pytest.raises(SafetyLimitError, match="CRD file name"):
        _plan(EXPERIMENTAL, "0.3.0", bad, inventory=_exact(bad))


def test_two_files_on_one_path_are_refused() -> None:
    twin = replace(READ_0_11_1[0], file="config/components/crd/alpha/bases/kueue.x-k8s.io_clusterqueues.yaml")
    with pytest.raises(SafetyLimitError, match="both be written"):
        _plan(EXPERIMENTAL, "0.3.0", (*READ_0_11_1, twin), inventory=_exact((*READ_0_11_1, twin)))


# ------------------------------------------------------------------------------------------ pins and hashes


def test_transcribed_inventory_stops_with_the_import_command() -> None:
    assert INVENTORY.source is InventorySource.TRANSCRIBED
    with pytest.raises(UpstreamError) as caught:
        require_pinned(INVENTORY, repo=REPO, ref="v0.11.9", allow_unpinned=False)
    message = str(caught.value)
    assert "releasekit upstream import --repo /src/kueue --ref v0.11.9" in message
    assert "--allow-unpinned" in message and "\n" not in message
    require_pinned(INVENTORY, repo=REPO, ref="v0.11.9", allow_unpinned=True)


def test_exact_inventory_with_a_missing_hash_counts_as_unpinned() -> None:
    inventory = _exact((replace(READ_0_11_1[0], sha256=None), *READ_0_11_1[1:]))
    with pytest.raises(UpstreamError, match="upstream import"):
        require_pinned(inventory, repo=REPO, ref="v0.11.9", allow_unpinned=False)


def test_matching_hashes_pass_and_the_plan_is_pinned() -> None:
    plan = _plan(EXPERIMENTAL, "0.3.0")
    assert plan.pinned
    assert manifest_document(plan)["upstream"]["pinned"] is True


def test_every_hash_disagreement_is_listed() -> None:
    changed = replace(READ_0_11_1[0], sha256="f" * 64)
    extra = _crd("Workload", "workloads", "v1beta1")
    read = (changed, READ_0_11_1[2], READ_0_11_1[3], extra)  # cohorts missing
    with pytest.raises(UpstreamError) as caught:
        check_hashes(_exact(READ_0_11_1), read, ref="v0.11.9", repo=REPO)
    message = str(caught.value)
    assert (
        f"kueue.x-k8s.io_clusterqueues.yaml has sha256 {'f' * 64}, the inventory records {'c' * 64}"
        in message
    )
    assert "kueue.x-k8s.io_cohorts.yaml is listed but missing at v0.11.9" in message
    assert "kueue.x-k8s.io_workloads.yaml is at v0.11.9 but not listed" in message
    assert message.startswith("streams/upstream/kueue-0.11.yaml:") and "\n" not in message


def test_a_hash_mismatch_stops_even_with_allow_unpinned() -> None:
    read = (replace(READ_0_11_1[0], sha256="f" * 64), *READ_0_11_1[1:])
    with pytest.raises(UpstreamError, match="do not match"):
        _plan(EXPERIMENTAL, "0.3.0", read, inventory=_exact(READ_0_11_1), allow_unpinned=True)


def test_transcribed_inventory_with_allow_unpinned_is_recorded_unpinned() -> None:
    plan = _plan(STABLE, "1.0.1", inventory=INVENTORY, allow_unpinned=True)
    document = manifest_document(plan)
    assert document["upstream"] == {
        "ref": "v0.11.9",
        "refFrom": "tag",
        "commit": COMMIT,
        "inventory": "kueue-0.11",
        "inventorySource": "transcribed",
        "pinned": False,
    }
    assert [c["name"] for c in document["crds"]] == [
        "clusterqueues.kueue.x-k8s.io",
        "localqueues.kueue.x-k8s.io",
    ]
    assert [c["name"] for c in document["excluded"]] == [
        "cohorts.kueue.x-k8s.io",
        "topologies.kueue.x-k8s.io",
    ]
    assert all(len(c["sha256"]) == 64 for c in document["crds"] + document["excluded"])


# ------------------------------------------------------------------------------------------ refs


@pytest.mark.parametrize(
    ("upstream", "expected"),
    [
        (
            dict(tag="v0.11.9", commit="02dd5106", describe="v0.11.9"),
            UpstreamPin(ref="v0.11.9", source="tag"),
        ),
        (dict(commit="02dd5106", describe="v0.11.9"), UpstreamPin(ref="02dd5106", source="commit")),
        (dict(describe="v0.19.0-devel-19-g982b8b02"), UpstreamPin(ref="982b8b02", source="describe")),
        (dict(describe="v0.11.9"), UpstreamPin(ref="v0.11.9", source="describe")),
        ({}, UpstreamPin(ref="v0.11.9", source="inventory")),
    ],
)
def test_ref_order_tag_commit_describe_inventory(upstream: dict[str, str], expected: UpstreamPin) -> None:
    release = replace(
        _release(STABLE, "1.0.1"), upstream=Upstream(line="0.11", inventory="kueue-0.11", **upstream)
    )
    assert upstream_ref(release, INVENTORY) == expected


def test_no_ref_at_all_stops() -> None:
    release = _release(STABLE, "1.0.1")
    with pytest.raises(UpstreamError, match="no upstream tag"):
        upstream_ref(release, None)


# ------------------------------------------------------------------------------------------ annotations, context


def test_annotations_of_a_stable_release() -> None:
    assert bundle_annotations(STABLE, _release(STABLE, "1.4.1")) == {
        "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
        "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
        "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
        "operators.operatorframework.io.bundle.package.v1": "kueue-operator",
        "operators.operatorframework.io.bundle.channels.v1": "stable-v1.4",
        "operators.operatorframework.io.bundle.channel.default.v1": "stable-v1.4",
        "com.redhat.openshift.versions": "v4.18-v4.19-v4.20-v4.21-v4.22",  # the published value, as published
    }


def test_new_release_gets_the_range_form_and_a_literal_default_channel() -> None:
    release = replace(_release(EXPERIMENTAL, "0.3.0"), openshift_versions_label=None)
    annotations = bundle_annotations(EXPERIMENTAL, release)
    assert annotations["com.redhat.openshift.versions"] == "v4.18-v4.19"
    assert annotations["operators.operatorframework.io.bundle.channels.v1"] == "experimental"
    assert annotations["operators.operatorframework.io.bundle.channel.default.v1"] == "experimental"


def test_context_carries_annotations_and_a_skip_range() -> None:
    stream = replace(EXPERIMENTAL, upgrades=UpgradePolicy(skip_range=">=0.0.0 <{version}"))
    plan = _plan(stream, "0.3.0")
    context = template_context(plan, defaults={}, prose={})
    assert context["bundle_annotations"] == dict(plan.annotations)
    assert context["annotations"]["olm.skipRange"] == ">=0.0.0 <0.3.0"
    assert (
        "olm.skipRange"
        not in template_context(_plan(EXPERIMENTAL, "0.3.0"), defaults={}, prose={})["annotations"]
    )


# ------------------------------------------------------------------------------------------ selection


def _names(chosen: tuple[tuple[Stream, Release], ...]) -> list[str]:
    return [f"{s.name}/{r.version}" for s, r in chosen]


def test_default_selection_is_the_candidates() -> None:
    assert _names(select_releases(LOADED.streams)) == ["experimental/0.3.0"]
    assert _names(select_releases(LOADED.streams, stream="stable")) == []


def test_all_and_version_selection() -> None:
    assert len(select_releases(LOADED.streams, stream="stable", every=True)) == len(STABLE.releases)
    assert _names(select_releases(LOADED.streams, version="1.0.1")) == ["stable/1.0.1"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"stream": "nightly"},
        {"version": "9.9.9"},
        {"version": "1.0.1", "every": True},
        {"stream": "experimental", "version": "1.0.1"},
    ],
)
def test_selection_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        select_releases(LOADED.streams, **kwargs)  # type: ignore[arg-type]
