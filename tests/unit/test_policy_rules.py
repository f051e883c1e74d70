"""One test per RK-POLICY rule, each failing without its rule; the real history passes; the gate policy
(RK-STREAM-014…017, issue 6 scenario (e)) as the stream rules implement it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from releasekit.io.fbc_load import load_catalog
from releasekit.io.streams import LoadedStreams, load_streams
from releasekit.model.fbc import Channel, ChannelEntry, DeclarativeConfig, Package
from releasekit.model.finding import Severity
from releasekit.model.inventory import Crd, CrdVersion, Inventory, InventorySource, Maturity
from releasekit.model.stream import ApiMaturityPolicy, GateSetting, Gvk, Stream
from releasekit.rules import policy
from releasekit.rules.stream import check_streams
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="module")
def loaded() -> LoadedStreams:
    return load_streams(REPO_ROOT / "streams", display_root="streams")


@pytest.fixture(scope="module")
def stable(loaded: LoadedStreams) -> Stream:
    return next(s for s in loaded.streams if s.name == "stable")


def _release(stream: Stream, version: str, **changes: object) -> Stream:
    releases = tuple(replace(r, **changes) if str(r.version) == version else r for r in stream.releases)  # type: ignore[arg-type]
    return replace(stream, releases=releases)


def _catalogs() -> list[tuple[str, DeclarativeConfig]]:
    return [
        (d.name, load_catalog(d / "configs").config)
        for d in sorted((REPO_ROOT / "catalog").iterdir())
        if d.is_dir()
    ]


def _errors(findings: tuple[object, ...]) -> list[object]:
    return [f for f in findings if f.severity is Severity.ERROR]  # type: ignore[attr-defined]


def test_the_real_history_has_no_policy_error(loaded: LoadedStreams) -> None:
    findings = policy.check_policy(loaded.streams, loaded.inventories, _catalogs())
    assert _errors(findings) == []
    # 0.1.0 owned operator.openshift.io/v1alpha1: published history, a warning
    warnings = [f for f in findings if f.severity is Severity.WARNING]
    assert [(f.rule, f.subject) for f in warnings] == [("RK-POLICY-001", ("stable", "kueue-operator.v0.1.0"))]
    assert warnings[0].location.file == "streams/stable.yaml" and warnings[0].location.line is not None


# ------------------------------------------------------------------------------------------- 001


def test_001_stable_never_ships_an_alpha_crd(stable: Stream, loaded: LoadedStreams) -> None:
    widened = replace(stable, api_maturity=replace(stable.api_maturity, alpha_apis=("Cohort",)))
    new = _release(widened, "1.0.1", recorded=None)  # as if releasekit made 1.0.1 (Kueue 0.11: Cohort alpha)
    findings = policy.check_alpha_apis(new, loaded.inventories)
    errors = _errors(findings)
    assert [(f.rule, f.subject) for f in errors] == [("RK-POLICY-001", ("stable", "kueue-operator.v1.0.1"))]
    assert "cohorts.kueue.x-k8s.io in the operator image" in errors[0].message
    assert "v1alpha1" in errors[0].message
    assert errors[0].location.path == "$.apiMaturity.alphaApis[0]"


def test_001_the_bundle_placement_is_named(stable: Stream, loaded: LoadedStreams) -> None:
    from releasekit.model.stream import CrdPlacement

    bundle = replace(
        stable, crd_placement=CrdPlacement.BUNDLE, api_maturity=ApiMaturityPolicy(alpha_apis=("Topology",))
    )
    findings = policy.check_alpha_apis(_release(bundle, "1.0.0", recorded=None), loaded.inventories)
    assert any("topologies.kueue.x-k8s.io in the bundle" in f.message for f in _errors(findings))


def test_001_experimental_may_ship_alpha_apis(loaded: LoadedStreams) -> None:
    experimental = next(s for s in loaded.streams if s.name == "experimental")
    assert not policy.is_stable(experimental)
    assert policy.check_alpha_apis(experimental, loaded.inventories) == ()


def test_001_a_new_stable_release_owning_an_alpha_api_is_an_error(
    stable: Stream, loaded: LoadedStreams
) -> None:
    alpha = Gvk(group="kueue.openshift.io", version="v1alpha2", kind="Kueue")
    findings = policy.check_alpha_apis(
        _release(stable, "1.4.1", recorded=None, owned_api_override=alpha), loaded.inventories
    )
    errors = _errors(findings)
    assert len(errors) == 1 and "ships Kueue (kueue.openshift.io/v1alpha2) in the bundle" in errors[0].message


# ------------------------------------------------------------------------------------------- 002


def _inventory(name: str, served_old: bool) -> Inventory:
    versions = (
        CrdVersion(name="v1beta1", served=served_old, storage=False, maturity=Maturity.BETA),
        CrdVersion(name="v1beta2", served=True, storage=True, maturity=Maturity.BETA),
    )
    return Inventory(
        line=name,
        source=InventorySource.TRANSCRIBED,
        ref=f"v{name}.0",
        commit="0" * 40,
        crds=(
            Crd(
                group="kueue.x-k8s.io",
                kind="Workload",
                plural="workloads",
                scope="Namespaced",
                versions=versions,
                file="w.yaml",
            ),
        ),
    )


def _edge(source: str, target: str) -> policy.UpgradeEdge:
    return policy.UpgradeEdge(
        package="kueue-operator",
        source=source,
        target=target,
        kind="skips",
        openshift=("v4.18",),
        location=None,  # type: ignore[arg-type]
    )


def test_002_storage_change_must_keep_the_old_version_served(stable: Stream, loaded: LoadedStreams) -> None:
    inventories = dict(loaded.inventories)
    inventories["kueue-9.1"] = _inventory("9.1", served_old=False)
    stream = _release(
        stable, "1.3.1", upstream=replace(stable.release("1.3.1").upstream, inventory="kueue-9.1")
    )  # type: ignore[union-attr]
    stream = _release(
        stream,
        "1.3.0",
        upstream=replace(stable.release("1.3.0").upstream, inventory="kueue-v0.14.4-1-ga073ed4c"),
    )  # type: ignore[union-attr]
    findings = policy.check_edges(
        [stream], inventories, [_edge("kueue-operator.v1.3.0", "kueue-operator.v1.3.1")]
    )
    errors = _errors(findings)
    assert [(f.rule, f.subject) for f in errors] == [("RK-POLICY-002", ("stable", "kueue-operator.v1.3.1"))]
    assert "workloads.kueue.x-k8s.io moves its storage version from v1beta1" in errors[0].message
    assert "1.3.1 no longer serves v1beta1" in errors[0].message


def test_002_old_version_still_served_is_a_note(stable: Stream, loaded: LoadedStreams) -> None:
    inventories = dict(loaded.inventories)
    inventories["kueue-9.1"] = _inventory("9.1", served_old=True)
    stream = _release(
        stable, "1.3.1", upstream=replace(stable.release("1.3.1").upstream, inventory="kueue-9.1")
    )  # type: ignore[union-attr]
    stream = _release(
        stream,
        "1.3.0",
        upstream=replace(stable.release("1.3.0").upstream, inventory="kueue-v0.14.4-1-ga073ed4c"),
    )  # type: ignore[union-attr]
    findings = policy.check_edges(
        [stream], inventories, [_edge("kueue-operator.v1.3.0", "kueue-operator.v1.3.1")]
    )
    assert [(f.rule, f.severity) for f in findings] == [("RK-POLICY-002", Severity.INFO)]


# ------------------------------------------------------------------------------------------- 003


def test_003_current_opm_edge_across_the_api_group_change_is_flagged(
    shared: Callable[..., Path], loaded: LoadedStreams
) -> None:
    root = shared("kueue-operator", "catalog", "opm-current-render", "v4.18")
    findings = policy.check_policy(loaded.streams, loaded.inventories, [("v4.18", load_catalog(root).config)])
    errors = _errors(findings)
    assert [(f.rule, f.subject) for f in errors] == [("RK-POLICY-003", ("stable", "kueue-operator.v0.2.1"))]
    assert errors[0].message.startswith(
        "upgrade edge kueue-operator.v0.2.1 replaces kueue-operator.v0.1.0 (catalogs v4.18) changes the owned "
        "API group: 0.1.0 owns Kueue (operator.openshift.io/v1alpha1)"
    )
    assert errors[0].location.file == "streams/stable.yaml"


def test_003_a_kind_change_is_flagged_too(stable: Stream, loaded: LoadedStreams) -> None:
    renamed = Gvk(group="kueue.openshift.io", version="v1", kind="KueueConfig")
    stream = _release(stable, "1.3.1", owned_api_override=renamed)
    findings = policy.check_edges(
        [stream], loaded.inventories, [_edge("kueue-operator.v1.3.0", "kueue-operator.v1.3.1")]
    )
    assert [f.rule for f in findings] == ["RK-POLICY-003"]
    assert "changes the owned kind" in findings[0].message


# ------------------------------------------------------------------------------------------- 004


def _channel_config(package: str, entries: tuple[ChannelEntry, ...]) -> DeclarativeConfig:
    return DeclarativeConfig(
        packages=(Package(name=package, default_channel="stable-v1.4"),),
        channels=(Channel(name="stable-v1.4", package=package, entries=entries),),
    )


def test_004_no_edge_joins_two_streams(loaded: LoadedStreams) -> None:
    config = _channel_config(
        "kueue-operator",
        (ChannelEntry(name="kueue-operator.v1.4.1", replaces="kueue-operator-experimental.v0.3.0"),),
    )
    findings = policy.check_policy(loaded.streams, loaded.inventories, [("v4.18", config)])
    errors = _errors(findings)
    assert [(f.rule, f.subject) for f in errors] == [("RK-POLICY-004", ("stable", "kueue-operator.v1.4.1"))]
    assert "joins stream 'experimental' and stream 'stable'" in errors[0].message


def test_004_no_edge_joins_two_packages(loaded: LoadedStreams) -> None:
    other = DeclarativeConfig(
        packages=(Package(name="other", default_channel="stable"),),
        bundles=(replace(_bundle_named("other.v1.0.0"), package="other"),),
    )
    config = _channel_config(
        "kueue-operator", (ChannelEntry(name="kueue-operator.v1.4.1", skips=("other.v1.0.0",)),)
    )
    findings = policy.check_policy(loaded.streams, loaded.inventories, [("v4.18", config.merged(other))])
    assert [f.rule for f in _errors(findings)] == ["RK-POLICY-004"]
    assert "joins package other and package kueue-operator" in _errors(findings)[0].message  # type: ignore[attr-defined]


def _bundle_named(name: str) -> object:
    from releasekit.model.fbc import Bundle

    return Bundle(name=name, package="other")


# ------------------------------------------------------------------------------- gate policy (e)


def _gate_findings(stream: Stream, loaded: LoadedStreams, rule: str) -> list[object]:
    others = tuple(s for s in loaded.streams if s.name != stream.name)
    return [f for f in check_streams((stream, *others), loaded.inventories) if f.rule == rule]


def test_gate_policy_alpha_gate_in_stable_without_opt_in(stable: Stream, loaded: LoadedStreams) -> None:
    """Issue 6 (e): RK-STREAM-015 names the gate and the release (AdmissionGatedBy is Alpha in Kueue 0.18)."""
    on = GateSetting(gate="AdmissionGatedBy", enabled=True, reason="try it")
    findings = _gate_findings(_release(stable, "1.4.1", gate_settings=(on,)), loaded, "RK-STREAM-015")
    assert [(f.subject, "'AdmissionGatedBy' is Alpha" in f.message) for f in findings] == [  # type: ignore[attr-defined]
        (("kueue-operator", "1.4.1"), True)
    ]


def test_gate_policy_real_history_passes(loaded: LoadedStreams) -> None:
    """1.0/1.1 switch off two Beta gates; 1.4 opts in to Alpha gates: no gate error."""
    gate_rules = {"RK-STREAM-014", "RK-STREAM-015", "RK-STREAM-016", "RK-STREAM-017"}
    findings = check_streams(loaded.streams, loaded.inventories)
    assert [f for f in findings if f.rule in gate_rules and f.severity is Severity.ERROR] == []


@pytest.mark.parametrize(
    ("gate", "enabled", "rule"),
    [
        ("NoSuchGate", False, "RK-STREAM-014"),
        ("ConfigurableResourceTransformations", False, "RK-STREAM-016"),
    ],
)
def test_gate_policy_missing_and_locked_gates(
    stable: Stream, loaded: LoadedStreams, gate: str, enabled: bool, rule: str
) -> None:
    setting = GateSetting(gate=gate, enabled=enabled, reason="test")
    findings = _gate_findings(_release(stable, "1.2.0", gate_settings=(setting,)), loaded, rule)
    history = ("kueue-operator", "0.1.0")  # its misspelled HierarchialCohorts: a warning of its own
    assert [f.subject for f in findings if f.subject != history] == [("kueue-operator", "1.2.0")]  # type: ignore[attr-defined]


def test_gate_policy_deprecated_gate_is_a_warning(stable: Stream, loaded: LoadedStreams) -> None:
    setting = GateSetting(gate="AdmissionCheckValidationRules", enabled=False, reason="test")
    findings = _gate_findings(_release(stable, "1.0.0", gate_settings=(setting,)), loaded, "RK-STREAM-017")
    assert [f.severity for f in findings] == [Severity.WARNING]  # type: ignore[attr-defined]
