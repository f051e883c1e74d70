"""The real Kueue operator bundles (shared/fixtures/kueue-operator/bundle) give what operator-sdk gives.

Recorded in bundle-testdata/SOURCES.md: clean by default; with good-practices, warnings only. releasekit's
own warning beyond operator-sdk's verdict: every release's CSV grants escalate and bind on (cluster)roles and
their bindings (the operator creates Kueue's ClusterRoles), so RK-OLMV1-006 says so (issue 23).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from releasekit.io.bundle_load import load_bundle
from releasekit.model.bundle import ValidationOptions
from releasekit.model.finding import Finding, Severity
from releasekit.rules.bundle import DEFAULT_VALIDATORS, validate_bundle

pytestmark = pytest.mark.shared


def _validate(shared: Callable[..., Path], version: str, **options: object) -> list[Finding]:
    bundle = load_bundle(shared("kueue-operator", "bundle", version))
    return list(validate_bundle(bundle, ValidationOptions(**options)))  # type: ignore[arg-type]


def _by(findings: list[Finding], severity: Severity) -> list[Finding]:
    return [f for f in findings if f.severity is severity]


ESCALATE_BIND = "RK-OLMV1-006"
"""Every real CSV's clusterPermissions grant escalate and bind on roles and clusterroles: a true warning."""


def _sdk(findings: list[Finding]) -> list[Finding]:
    """The findings operator-sdk also gives: without releasekit's RK-OLMV1-006 warning on escalate/bind."""
    return [f for f in findings if f.rule != ESCALATE_BIND]


@pytest.mark.parametrize("version", ["v1.0.1", "v1.4.1"])
def test_default_validators_are_clean(shared: Callable[..., Path], version: str) -> None:
    findings = _validate(shared, version, validators=DEFAULT_VALIDATORS)
    assert _by(findings, Severity.ERROR) == []
    assert _by(_sdk(findings), Severity.WARNING) == []
    (broad,) = [f for f in findings if f.rule == ESCALATE_BIND]
    assert (
        broad.severity is Severity.WARNING
        and "escalate, bind on clusterrolebindings, clusterroles" in broad.message
    )
    assert broad.location.file.endswith(".clusterserviceversion.yaml") and broad.location.line


@pytest.mark.parametrize(
    ("version", "expected_rules"),
    [
        ("v1.0.1", {"RK-BUNDLE-061", "RK-BUNDLE-062", "RK-BUNDLE-063", "RK-BUNDLE-064"}),
        ("v1.4.1", {"RK-BUNDLE-061", "RK-BUNDLE-063", "RK-BUNDLE-064"}),
    ],
)
def test_good_practices_gives_warnings_only(
    shared: Callable[..., Path], version: str, expected_rules: set[str]
) -> None:
    findings = _sdk(_validate(shared, version, validators=(*DEFAULT_VALIDATORS, "good-practices")))
    warnings = _by(findings, Severity.WARNING)
    assert _by(findings, Severity.ERROR) == []
    assert {f.rule for f in warnings} == expected_rules
    text = "\n".join(f.message for f in warnings)
    assert "unable to find the resource requests for the container: (openshift-kueue-operator)." in text
    assert "CSV contains permissions to create CRD." in text
    assert 'channel(s) ["alpha"] are not following the recommended naming convention' in text
    if version == "v1.0.1":
        assert 'owned CRD "kueues.kueue.openshift.io" has an empty description' in text
    for finding in findings:
        assert finding.location.file and finding.location.line


def test_release_checks_refuse_latest_placeholders(shared: Callable[..., Path]) -> None:
    findings = _validate(shared, "v1.4.1", validators=DEFAULT_VALIDATORS, release_checks=True)
    errors = _by(findings, Severity.ERROR)
    assert errors and {f.rule for f in errors} == {"RK-BUNDLE-091"}
    assert all(":latest" in f.message for f in errors)
    assert len(errors) == 5  # operator image, two RELATED_IMAGE_* values, two relatedImages


def test_release_checks_pass_for_pinned_v1_0_1(shared: Callable[..., Path]) -> None:
    findings = _validate(shared, "v1.0.1", validators=DEFAULT_VALIDATORS, release_checks=True)
    assert _by(findings, Severity.ERROR) == []


def test_duplicate_annotation_key_is_a_note(shared: Callable[..., Path]) -> None:
    findings = _validate(shared, "v1.0.1", validators=DEFAULT_VALIDATORS)
    notes = _by(findings, Severity.INFO)
    assert [f.rule for f in notes] == ["RK-BUNDLE-007"]
    assert notes[0].location.line == 48


def _releases() -> list[str]:
    from tests.conftest import shared_root

    root = shared_root() / "fixtures" / "kueue-operator" / "bundle"
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


@pytest.mark.parametrize("version", _releases())
def test_every_release_has_no_error_as_a_stable_stream_bundle(
    shared: Callable[..., Path], version: str
) -> None:
    """As operator-sdk: no error from the default validators; stream policy on released history warns."""
    from releasekit.jobs.bundle_validate import BundleValidateRequest, run
    from tests.conftest import REPO_ROOT

    path = shared("kueue-operator", "bundle", version)
    result = run(BundleValidateRequest(path=path, streams_dir=REPO_ROOT / "streams"))
    assert result.refusal is None
    findings = list(result.report.findings)
    assert _by(findings, Severity.ERROR) == []
    warnings = {(f.rule, f.location.file.rpartition("/")[2]) for f in _by(findings, Severity.WARNING)}
    expected: set[tuple[str, str]] = {(ESCALATE_BIND, "kueue-operator.clusterserviceversion.yaml")}
    if version == "v0.1.0":  # its own CRD is operator.openshift.io/v1alpha1: history, so a warning
        expected.add(("RK-BUNDLE-090", "operator.openshift.io_kueues.yaml"))
    if version >= "v1.3.0" and version != "v1.4.1":  # the chained multi-dash LABEL form, as published
        expected.add(("RK-BUNDLE-093", "bundle.Dockerfile"))
    assert warnings == expected
