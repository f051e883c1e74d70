"""One test per RK-DIFF rule (002-007), each failing without its rule, on small hand-made catalogs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from releasekit.io.streams import load_streams
from releasekit.model.fbc import (
    PROP_CSV_METADATA,
    PROP_PACKAGE,
    Bundle,
    Channel,
    ChannelEntry,
    DeclarativeConfig,
    Package,
    Property,
    RelatedImage,
)
from releasekit.model.stream import OpenShiftVersion, ReleaseStatus, Stream
from releasekit.rules import diff
from releasekit.rules.diff import PackageCatalog
from tests.conftest import REPO_ROOT

PKG = "demo"


def _bundle(version: str, *, image: str = "", annotations: dict[str, str] | None = None) -> Bundle:
    return Bundle(
        name=f"{PKG}.v{version}",
        package=PKG,
        image=image or f"registry.redhat.io/demo/bundle@sha256:{version.replace('.', '') * 8}",
        properties=(
            Property(type=PROP_PACKAGE, value={"packageName": PKG, "version": version}),
            Property(type=PROP_CSV_METADATA, value={"annotations": annotations or {"containerImage": "a"}}),
        ),
        related_images=(RelatedImage(name="", image="registry.redhat.io/demo/op@sha256:" + "1" * 64),),
    )


def _config(
    channels: dict[str, list[ChannelEntry]], versions: list[str], default: str = ""
) -> DeclarativeConfig:
    return DeclarativeConfig(
        packages=(Package(name=PKG, default_channel=default or next(iter(channels), "")),),
        channels=tuple(Channel(name=n, package=PKG, entries=tuple(e)) for n, e in channels.items()),
        bundles=tuple(_bundle(v) for v in versions),
    )


def _cat(config: DeclarativeConfig, openshift: str = "v4.18") -> dict[tuple[str, str], PackageCatalog]:
    return {
        (openshift, PKG): PackageCatalog(
            openshift=openshift,
            package=PKG,
            config=config,
            file=f"catalog/{openshift}/configs/{PKG}/catalog.json",
        )
    }


E = ChannelEntry
V100, V101, V110 = f"{PKG}.v1.0.0", f"{PKG}.v1.0.1", f"{PKG}.v1.1.0"
BASE = _config({"stable-v1.0": [E(name=V100), E(name=V101, skips=(V100,))]}, ["1.0.0", "1.0.1"])


def _rules(findings: tuple[object, ...]) -> list[str]:
    return [f.rule for f in findings]  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------- 002


def test_002_changes_are_summarised_per_openshift_version() -> None:
    head = _config(
        {
            "stable-v1.0": [E(name=V100), E(name=V101, skips=(V100,))],
            "stable-v1.1": [E(name=V110, replaces=V101)],
        },
        ["1.0.0", "1.0.1", "1.1.0"],
        default="stable-v1.1",
    )
    changes = diff.summarize_changes(_cat(BASE), _cat(head))
    assert len(changes) == 1
    change = changes[0]
    assert change.bundles_added == (V110,)
    assert change.channels_added == ("stable-v1.1",)
    assert [(e.source, e.target, e.kind.value) for e in change.edges_added] == [(V101, V110, "replaces")]
    assert (change.default_before, change.default_after) == ("stable-v1.0", "stable-v1.1")
    findings = diff.check_changes(changes)
    assert _rules(findings) == ["RK-DIFF-002"]
    assert findings[0].severity.value == "info"
    assert "default channel stable-v1.0 -> stable-v1.1" in findings[0].message
    assert findings[0].subject == ("v4.18", PKG)


def test_002_nothing_for_an_unchanged_catalog() -> None:
    assert diff.summarize_changes(_cat(BASE), _cat(BASE)) == ()


# ---------------------------------------------------------------------------------- 003 and 004


def test_003_a_published_bundle_may_not_leave_its_channel() -> None:
    head = _config({"stable-v1.0": [E(name=V101)]}, ["1.0.1"])
    findings = diff.check_pruning(_cat(BASE), _cat(head))
    assert _rules(findings) == ["RK-DIFF-003"]
    assert findings[0].subject == ("v4.18", PKG, V100)
    assert "published bundle demo.v1.0.0 was removed from the v4.18 catalog" in findings[0].message


def test_004_a_published_channel_may_not_go_away() -> None:
    head = _config({"stable-v1.1": [E(name=V110)]}, ["1.1.0"])
    findings = diff.check_pruning(_cat(BASE), _cat(head))
    assert sorted(_rules(findings)) == ["RK-DIFF-003", "RK-DIFF-003", "RK-DIFF-004"]
    channel = next(f for f in findings if f.rule == "RK-DIFF-004")
    assert channel.subject == ("v4.18", PKG, "stable-v1.0")


def test_004_a_whole_catalog_going_away_is_pruning_too() -> None:
    findings = diff.check_pruning(_cat(BASE), {})
    assert sorted(_rules(findings)) == ["RK-DIFF-003", "RK-DIFF-003", "RK-DIFF-004"]


@pytest.mark.parametrize("name", ["candidate", "stable-pre-ga", "dev-preview-v1", "Candidate-v1.0"])
def test_pruning_exempts_candidate_pre_ga_and_dev_preview(name: str) -> None:
    base = _config({name: [E(name=V100), E(name=V101, skips=(V100,))]}, ["1.0.0", "1.0.1"])
    head = _config({"stable-v1.0": [E(name=V101)]}, ["1.0.1"])
    assert diff.check_pruning(_cat(base), _cat(head)) == ()


# ------------------------------------------------------------------------------------------- 005


def test_005_a_released_bundle_is_immutable_and_the_field_is_named() -> None:
    changed = replace(BASE, bundles=(BASE.bundles[0], _bundle("1.0.1", annotations={"containerImage": "b"})))
    findings = diff.check_bundle_content(_cat(BASE), _cat(changed))
    assert _rules(findings) == ["RK-DIFF-005"]
    assert findings[0].subject == ("v4.18", PKG, V101)
    assert findings[0].message.endswith("properties.olm.csv.metadata.annotations.containerImage")


def test_005_bundle_image_change_is_named() -> None:
    changed = replace(
        BASE, bundles=(BASE.bundles[0], _bundle("1.0.1", image="registry.redhat.io/x@sha256:" + "9" * 64))
    )
    assert diff.bundle_field_changes(BASE.bundles[1], changed.bundles[1]) == ("image",)
    assert diff.check_bundle_content(_cat(BASE), _cat(BASE)) == ()


# ------------------------------------------------------------------------------------------- 006


@pytest.fixture(scope="module")
def stable() -> Stream:
    loaded = load_streams(REPO_ROOT / "streams", display_root="streams")
    return next(s for s in loaded.streams if s.name == "stable")


def _with_release(stream: Stream, version: str, **changes: object) -> Stream:
    releases = tuple(replace(r, **changes) if str(r.version) == version else r for r in stream.releases)  # type: ignore[arg-type]
    return replace(stream, releases=releases)


def test_006_recorded_facts_never_change(stable: Stream) -> None:
    images = replace(
        stable.release("1.2.0").images, operand="registry.redhat.io/kueue/kueue-rhel9@sha256:" + "5" * 64
    )  # type: ignore[union-attr]
    head = _with_release(stable, "1.2.0", images=images, created_at="2030-01-01T00:00:00Z")
    findings = diff.check_recorded_facts([stable], [head])
    assert _rules(findings) == ["RK-DIFF-006", "RK-DIFF-006"]
    assert [f.message.split(" of ")[0] for f in findings] == ["createdAt", "images.operand"]
    assert all(f.subject == ("stable", "kueue-operator.v1.2.0") for f in findings)
    assert findings[1].location.file == "streams/stable.yaml" and findings[1].location.line is not None


def test_006_lifecycle_moves_are_allowed_but_not_back_to_candidate(stable: Stream) -> None:
    deprecated = _with_release(stable, "1.0.0", status=ReleaseStatus.DEPRECATED, deprecation_message="old")
    assert diff.check_recorded_facts([stable], [deprecated]) == ()
    candidate = _with_release(stable, "1.0.0", status=ReleaseStatus.CANDIDATE)
    assert "went back to status candidate" in diff.check_recorded_facts([stable], [candidate])[0].message


def test_006_a_released_version_cannot_leave_its_stream_or_a_catalog(stable: Stream) -> None:
    gone = replace(stable, releases=tuple(r for r in stable.releases if str(r.version) != "1.3.0"))
    findings = diff.check_recorded_facts([stable], [gone])
    assert [f.message for f in findings] == [
        "released version 1.3.0 (kueue-operator.v1.3.0) is no longer in stream 'stable'"
    ]
    fewer = _with_release(stable, "1.1.0", catalogs=(OpenShiftVersion.parse("v4.18"),))
    lost = diff.check_recorded_facts([stable], [fewer])
    assert [f.message for f in lost] == [
        "catalogs of released version 1.1.0 (kueue-operator.v1.1.0) lost v4.19, v4.20"
    ]
    wider = _with_release(
        stable, "1.1.0", catalogs=(*stable.release("1.1.0").catalogs, OpenShiftVersion.parse("v4.21"))
    )  # type: ignore[union-attr]
    assert diff.check_recorded_facts([stable], [wider]) == ()


def test_006_candidates_may_change() -> None:
    loaded = load_streams(REPO_ROOT / "streams", display_root="streams")
    experimental = next(s for s in loaded.streams if s.name == "experimental")
    edited = _with_release(experimental, "0.3.0", created_at="2030-01-01T00:00:00Z")
    assert diff.check_recorded_facts([experimental], [edited]) == ()


# ------------------------------------------------------------------------------------------- 007


def test_007_a_bundle_that_leaves_without_an_edge_strands_its_users() -> None:
    head = _config({"stable-v1.0": [E(name=V101)]}, ["1.0.1"])
    findings = diff.check_stranded(_cat(BASE), _cat(head))
    assert _rules(findings) == ["RK-DIFF-007"]
    assert findings[0].message.startswith("users of demo.v1.0.0 on OpenShift v4.18 are stranded")
    assert findings[0].subject == ("v4.18", PKG, V100)


def test_007_a_head_that_still_skips_it_keeps_users_moving() -> None:
    head = _config({"stable-v1.0": [E(name=V101, skips=(V100,))]}, ["1.0.1"])
    assert diff.check_stranded(_cat(BASE), _cat(head)) == ()
    ranged = _config({"stable-v1.0": [E(name=V101, skip_range=">=1.0.0 <1.0.1")]}, ["1.0.1"])
    assert diff.check_stranded(_cat(BASE), _cat(ranged)) == ()


def test_007_a_broken_edge_strands_and_history_is_left_alone() -> None:
    broken = _config({"stable-v1.0": [E(name=V100), E(name=V101)]}, ["1.0.0", "1.0.1"])
    findings = diff.check_stranded(_cat(BASE), _cat(broken))
    assert [f.subject[-1] for f in findings] == [V100]
    assert "no upgrade path leads from it to a channel head" in findings[0].message
    # already broken at base: not this change's doing
    assert diff.check_stranded(_cat(broken), _cat(broken)) == ()


def test_check_diff_runs_every_rule() -> None:
    head = _config({"stable-v1.0": [E(name=V101)]}, ["1.0.1"])
    rules = set(_rules(diff.check_diff(_cat(BASE), _cat(head))))
    assert rules == {"RK-DIFF-002", "RK-DIFF-003", "RK-DIFF-007"}
    assert set(diff.RULES) == {f"RK-DIFF-{n:03d}" for n in range(1, 8)}


def test_the_real_catalogs_against_themselves_are_clean() -> None:
    from releasekit.io.fbc_load import load_catalog

    cats = {}
    for folder in sorted((REPO_ROOT / "catalog").iterdir()):
        if not folder.is_dir():  # the marker a build leaves beside the fragments
            continue
        config = load_catalog(folder / "configs").config
        cats[(folder.name, "kueue-operator")] = PackageCatalog(
            openshift=folder.name, package="kueue-operator", config=config, file=str(folder)
        )
    assert diff.check_diff(cats, cats) == ()
