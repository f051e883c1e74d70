"""The pure release model: versions, labels, images, channels, maturity, gate overlays, recorded metadata."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import semver
from hypothesis import given
from hypothesis import strategies as st

from releasekit.io.streams import load_streams
from releasekit.model.inventory import Crd, CrdVersion, Maturity, line_of_version, version_maturity
from releasekit.model.stream import (
    OpenShiftVersion,
    image_has_digest,
    openshift_versions_label_form,
    operand_crds,
)
from tests.conftest import REPO_ROOT

DIGEST = "sha256:" + "a" * 64


@given(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99), st.integers(0, 99))
def test_openshift_versions_order_like_tuples(a: int, b: int, c: int, d: int) -> None:
    left, right = OpenShiftVersion.parse(f"v{a}.{b}"), OpenShiftVersion.parse(f"v{c}.{d}")
    assert (left < right) == ((a, b) < (c, d))
    assert str(left) == f"v{a}.{b}"


@pytest.mark.parametrize("text", ["4.18", "v4.18.1", "v4.018", "V4.18", "v4", "v4.18 ", ""])
def test_malformed_openshift_versions(text: str) -> None:
    with pytest.raises(ValueError, match="vX.Y"):
        OpenShiftVersion.parse(text)


@pytest.mark.parametrize(
    ("value", "form"),
    [
        ("v4.18", "minimum"),
        ("=v4.18", "exact"),
        ("v4.18-v4.22", "range"),
        ("v4.18-v4.19-v4.20-v4.21-v4.22", None),
        ("v4.22-v4.18", None),
        ("v4.18,v4.19", None),
        ("4.18", None),
    ],
)
def test_openshift_versions_label_forms(value: str, form: str | None) -> None:
    assert openshift_versions_label_form(value) == form


def test_images() -> None:
    assert image_has_digest(f"registry.redhat.io/kueue/kueue-rhel9@{DIGEST}")
    assert not image_has_digest("registry.redhat.io/kueue/kueue-rhel9:1.4")


@pytest.mark.parametrize(
    ("name", "maturity"),
    [
        ("v1alpha1", Maturity.ALPHA),
        ("v1beta2", Maturity.BETA),
        ("v1", Maturity.GA),
        ("v2alpha3", Maturity.ALPHA),
    ],
)
def test_version_maturity(name: str, maturity: Maturity) -> None:
    assert version_maturity(name) is maturity


def test_a_crd_with_any_alpha_version_is_alpha() -> None:
    crd = Crd(
        group="kueue.x-k8s.io",
        kind="Topology",
        plural="topologies",
        scope="Cluster",
        file="x.yaml",
        versions=(
            CrdVersion(name="v1alpha1", served=True, storage=True, maturity=Maturity.ALPHA),
            CrdVersion(name="v1beta1", served=True, storage=False, maturity=Maturity.BETA),
        ),
    )
    assert crd.is_alpha and crd.name == "topologies.kueue.x-k8s.io" and crd.storage_version == "v1alpha1"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("v0.19.0-devel-19-g982b8b02", "0.19"),
        ("v0.14.4-1-ga073ed4c", "0.14"),
        ("0.11", "0.11"),
        ("main", None),
    ],
)
def test_line_of_version(text: str, line: str | None) -> None:
    assert line_of_version(text) == line


@pytest.fixture(scope="module")
def repo_streams() -> Any:
    loaded = load_streams(REPO_ROOT / "streams", display_root="streams")
    assert [f for f in loaded.findings if f.severity.value == "error"] == []
    return loaded


def test_real_history(repo_streams: Any) -> None:
    stable = next(s for s in repo_streams.streams if s.name == "stable")
    assert [str(r.version) for r in stable.releases] == [
        "0.1.0", "0.2.0", "0.2.1", "1.0.0", "1.0.1", "1.1.0", "1.2.0", "1.3.0", "1.3.1", "1.4.0", "1.4.1",
    ]  # fmt: skip
    assert stable.default_channel == "stable-v1.4"
    assert stable.channel_of(stable.releases[2]) == "stable-v0.2"
    assert [str(v) for v in stable.openshift] == [
        "v4.18",
        "v4.19",
        "v4.20",
        "v4.21",
        "v4.22",
        "v4.23",
        "v5.0",
    ]
    assert [r.images.must_gather is None for r in stable.releases[:3]] == [True, True, False]
    r140 = stable.release("1.4.0")
    assert (
        r140 is not None
        and r140.upstream.inventory == "kueue-v0.19.0-devel-19-g982b8b02"
        and r140.upstream.line == "0.18"
    )
    r010 = stable.release("0.1.0")
    assert r010 is not None and r010.owned_api is not None and r010.owned_api.group == "operator.openshift.io"
    r100, r200 = stable.release("1.0.0"), stable.release("1.2.0")
    assert r100 is not None and r200 is not None
    assert {s.gate: s.enabled for s in stable.effective_gate_settings(r100)} == {
        "HierarchicalCohorts": False,
        "VisibilityOnDemand": False,
    }
    assert stable.effective_gate_settings(r200) == ()
    # never across a major or an owned-API change
    assert not stable.upgrades.may_cross(r010, stable.releases[1])
    assert not stable.upgrades.may_cross(stable.releases[2], r100)
    assert stable.upgrades.may_cross(r100, r200)


def test_experimental_ships_its_alpha_apis(repo_streams: Any) -> None:
    experimental = next(s for s in repo_streams.streams if s.name == "experimental")
    inventory = repo_streams.inventories["kueue-v0.11.9"]
    shipped = {c.kind for c in operand_crds(experimental, inventory)}
    assert {"Cohort", "Topology"} <= shipped
    stable = next(s for s in repo_streams.streams if s.name == "stable")
    assert not {"Cohort", "Topology"} & {c.kind for c in operand_crds(stable, inventory)}
    assert experimental.default_channel == "experimental"


def _catalog_bundles(root: Path) -> dict[str, dict[str, Any]]:
    decoder = json.JSONDecoder()
    out: dict[str, dict[str, Any]] = {}
    for catalog in root.glob("v*/catalog/kueue-operator/catalog.json"):
        text, i = catalog.read_text(encoding="utf-8"), 0
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                break
            obj, i = decoder.raw_decode(text, i)
            if obj["schema"] == "olm.bundle":
                out[obj["name"]] = obj
    return out


PROSE = ("description", "displayName", "icon", "keywords", "links", "maintainers", "provider")


def test_recorded_facts_rebuild_the_published_bundles(shared: Callable[..., Path], repo_streams: Any) -> None:
    """Facts + prose (taken from the catalog here, from bundle-templates/ later) == the published objects."""
    published = _catalog_bundles(shared("kueue-operator", "catalog", "kueue-fbc"))
    stable = next(s for s in repo_streams.streams if s.name == "stable")
    assert sorted(published) == sorted(r.csv_name(stable.package) for r in stable.releases)
    for release in stable.releases:
        bundle = published[release.csv_name(stable.package)]
        recorded = release.recorded
        assert recorded is not None
        assert bundle["image"] == release.bundle_image
        assert bundle["relatedImages"] == [
            {"name": r.name, "image": r.image} for r in recorded.related_images
        ]
        gvks = [p["value"] for p in bundle["properties"] if p["type"] == "olm.gvk"]
        assert gvks == [{"group": g.group, "kind": g.kind, "version": g.version} for g in recorded.gvks]
        metadata = next(p["value"] for p in bundle["properties"] if p["type"] == "olm.csv.metadata")
        rebuilt = recorded.csv_metadata.to_wire(created_at=release.created_at)
        for key in PROSE:
            if key in metadata:
                rebuilt[key] = metadata[key]
        for key in ("description", "alm-examples"):
            if key in metadata["annotations"]:
                rebuilt["annotations"][key] = metadata["annotations"][key]
        for mine, theirs in zip(
            rebuilt["crdDescriptions"].get("owned", []), metadata["crdDescriptions"]["owned"], strict=True
        ):
            mine.update({k: v for k, v in theirs.items() if k not in ("name", "version", "kind")})
        assert json.dumps(rebuilt, sort_keys=True) == json.dumps(metadata, sort_keys=True), release.version
        assert [str(c) for c in release.catalogs] == sorted(
            (
                p.parent.parent.parent.name
                for p in shared("kueue-operator", "catalog", "kueue-fbc").glob(
                    "v*/catalog/kueue-operator/catalog.json"
                )
                if release.csv_name(stable.package) in p.read_text(encoding="utf-8")
            ),
            key=lambda v: OpenShiftVersion.parse(v),
        )


def test_recorded_facts_agree_with_the_version_map(shared: Callable[..., Path], repo_streams: Any) -> None:
    import yaml

    facts = yaml.safe_load(shared("kueue-operator", "version-map.facts.yaml").read_text(encoding="utf-8"))
    stable = next(s for s in repo_streams.streams if s.name == "stable")
    for entry in facts["releases"]:
        release = stable.release(entry["version"])
        assert release is not None
        assert stable.channel_of(release) == entry["channel"]
        assert [str(c) for c in release.catalogs] == entry["ocpCatalogs"]
        assert release.bundle_image.startswith(entry["bundleRepo"] + "@sha256:")
        assert release.created_at is not None and release.created_at.startswith(entry["createdAt"])
        assert release.upstream.line == entry["kueue"]["line"].split()[0]
        assert release.openshift_versions_label == entry.get("bundleLabelOpenshiftVersions")
    assert stable.default_channel == facts["defaultChannel"]


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12))
def test_channels_follow_the_newest_release(versions: list[tuple[int, int, int]]) -> None:
    from releasekit.model.stream import (
        ApiMaturityPolicy,
        ChannelPolicy,
        CrdPlacement,
        FeatureGatePolicy,
        Gvk,
        Release,
        ReleaseImages,
        ReleaseStatus,
        Stream,
        UpgradePolicy,
        Upstream,
    )

    releases = tuple(
        Release(
            version=semver.Version(*v),
            status=ReleaseStatus.RELEASED,
            upstream=Upstream(line="0.11", inventory="kueue-0.11"),
            catalogs=(),
            bundle_image="b",
            images=ReleaseImages(operator="o", operand="p"),
        )
        for v in versions
    )
    stream = Stream(
        name="s",
        package="p",
        channels=ChannelPolicy(pattern="stable-v{major}.{minor}"),
        openshift=(),
        crd_placement=CrdPlacement.BUNDLE,
        owned_api=Gvk(group="g", version="v1", kind="K"),
        api_maturity=ApiMaturityPolicy(),
        feature_gates=FeatureGatePolicy(),
        upgrades=UpgradePolicy(),
        released_registries=("r",),
        releases=releases,
    )
    newest = max(versions)
    assert stream.default_channel == f"stable-v{newest[0]}.{newest[1]}"
    assert stream.channel_names[-1] == stream.default_channel
    assert set(stream.channel_names) == {f"stable-v{a}.{b}" for a, b, _ in versions}
    # channels are ordered by their newest release
    newest_of = [max(r.version for r in releases if stream.channel_of(r) == c) for c in stream.channel_names]
    assert newest_of == sorted(newest_of)
