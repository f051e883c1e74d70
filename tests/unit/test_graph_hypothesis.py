"""Property tests: for random release histories and policies, releasekit's own catalogs are sound.

A history is a set of versions (up to three majors), optionally with a change of the owned API group at
a minor boundary (as 0.1 → 0.2 had). It becomes a ``Stream`` in memory, the planner
(:func:`~releasekit.plan.catalog.plan_package`, which uses ``plan_channels``) writes the package, and:

- the catalog passes ``opm validate``'s rules (:func:`releasekit.rules.fbc.validate_config`);
- the graph rules find no error and no warning;
- with ``replace-previous-minor`` every bundle reaches the default head, except across what the policy
  forbids on purpose (another major: RK-GRAPH-007; another API group: RK-GRAPH-009);
- with ``none`` every bundle outside the head's minor gets exactly one reachability finding, the
  declared-island info RK-GRAPH-005 (or 007/009 for the same reasons as above).
"""

from __future__ import annotations

from collections.abc import Sequence

import semver
from hypothesis import given
from hypothesis import strategies as st

from releasekit.model.finding import Severity
from releasekit.model.stream import (
    ApiMaturityPolicy,
    ChannelPolicy,
    CrdPlacement,
    CrossMinor,
    FeatureGatePolicy,
    Gvk,
    OpenShiftVersion,
    Release,
    ReleaseImages,
    ReleaseStatus,
    Stream,
    UpgradePolicy,
    Upstream,
)
from releasekit.plan.catalog import ReleaseManifests, plan_package
from releasekit.plan.channels import plan_channels
from releasekit.rules.fbc import validate_config
from releasekit.rules.graph import GraphPolicy, analyze_package, check_graph

OCP = OpenShiftVersion(major=4, minor=18)
DIGEST = "sha256:" + "0" * 64
NEW = Gvk(group="kueue.openshift.io", version="v1", kind="Kueue")
OLD = Gvk(group="operator.openshift.io", version="v1alpha1", kind="Kueue")

Triple = tuple[int, int, int]

histories = st.sets(
    st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=10
)


def make_stream(
    versions: Sequence[Triple], cross_minor: CrossMinor, break_before: tuple[int, int] | None
) -> Stream:
    releases = tuple(
        Release(
            version=semver.Version(*v),
            status=ReleaseStatus.RELEASED,
            upstream=Upstream(line="0.11", inventory="kueue-0.11"),
            catalogs=(OCP,),
            bundle_image=f"registry.redhat.io/kueue/kueue-operator-bundle@{DIGEST}",
            images=ReleaseImages(
                operator="registry.redhat.io/kueue/o@" + DIGEST,
                operand="registry.redhat.io/kueue/p@" + DIGEST,
            ),
            owned_api_override=OLD if break_before is not None and v[:2] < break_before else None,
            stream_owned_api=NEW,
        )
        for v in versions
    )
    return Stream(
        name="stable",
        package="kueue-operator",
        channels=ChannelPolicy(pattern="stable-v{major}.{minor}"),
        openshift=(OCP,),
        crd_placement=CrdPlacement.OPERATOR_ASSETS,
        owned_api=NEW,
        api_maturity=ApiMaturityPolicy(),
        feature_gates=FeatureGatePolicy(),
        upgrades=UpgradePolicy(cross_minor=cross_minor),
        released_registries=("registry.redhat.io/kueue/",),
        releases=releases,
    )


def csv(release: Release) -> ReleaseManifests:
    api = release.owned_api or NEW
    return ReleaseManifests(
        csv={
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": {"name": release.csv_name("kueue-operator")},
            "spec": {
                "customresourcedefinitions": {
                    "owned": [{"name": f"kueues.{api.group}", "kind": api.kind, "version": api.version}]
                }
            },
        }
    )


@given(
    history=histories,
    cross_minor=st.sampled_from([CrossMinor.NONE, CrossMinor.REPLACE_PREVIOUS_MINOR]),
    break_index=st.none() | st.integers(1, 9),
)
def test_generated_catalogs_are_sound_and_reach_the_head_as_promised(
    history: set[Triple], cross_minor: CrossMinor, break_index: int | None
) -> None:
    versions = sorted(history)
    minors = sorted({v[:2] for v in versions})
    break_before = minors[break_index] if break_index is not None and break_index < len(minors) else None
    stream = make_stream(versions, cross_minor, break_before)
    config = plan_package(stream, OCP, {str(r.version): csv(r) for r in stream.releases})
    assert config is not None

    assert [f for f in validate_config(config) if f.severity is Severity.ERROR] == []
    policy = GraphPolicy.from_stream(stream)
    findings = check_graph(config, policy)
    assert [f for f in findings if f.severity is not Severity.INFO] == []

    planned = plan_channels(stream, stream.releases)
    assert planned.default_channel == stream.default_channel == config.packages[0].default_channel

    head = versions[-1]
    graph = analyze_package(config, "kueue-operator", policy)
    assert graph is not None and graph.default_head == f"kueue-operator.v{semver.Version(*head)}"

    def group(v: Triple) -> str:
        return OLD.group if break_before is not None and v[:2] < break_before else NEW.group

    expected: dict[str, str | None] = {}
    for v in versions:
        if v[:2] == head[:2]:
            reason = None  # the newest z-stream skips the earlier ones
        elif v[0] != head[0]:
            reason = "RK-GRAPH-007"
        elif group(v) != group(head):
            reason = "RK-GRAPH-009"
        elif cross_minor is CrossMinor.NONE:
            reason = "RK-GRAPH-005"
        else:
            reason = None  # replace-previous-minor promises the path
        expected[str(semver.Version(*v))] = reason
    assert {r.version: r.reason for r in graph.reachability} == expected
    assert all(r.reachable == (r.reason is None) for r in graph.reachability)
    for row in graph.reachability:
        if row.reachable:
            assert row.path[0] == row.bundle and row.path[-1] == graph.default_head

    per_bundle = {f.subject[-1]: f.rule for f in findings}
    assert len(per_bundle) == len(findings)  # exactly one reachability finding per unreachable bundle
    assert per_bundle == {
        f'bundle "kueue-operator.v{version}"': reason
        for version, reason in expected.items()
        if reason is not None
    }
