"""releasekit's own bundle rules (RK-BUNDLE-090 … 094) and small pure helpers of the bundle rules."""

from __future__ import annotations

from typing import Any

import pytest

from releasekit.model.bundle import (
    ANNOTATION_CHANNELS,
    ANNOTATION_OPENSHIFT_VERSIONS,
    Bundle,
    BundleLayout,
    Dockerfile,
    DockerfileLabel,
    Manifest,
    StreamPolicy,
    ValidationOptions,
)
from releasekit.model.finding import Severity
from releasekit.rules.bundle import validate_bundle
from releasekit.rules.bundle._common import parse_semver, parse_tolerant
from releasekit.rules.bundle.openshift import check_openshift_versions, parse_openshift_versions
from releasekit.rules.bundle.policy import check_alpha_crds, check_image_pinning
from releasekit.rules.bundle.registry import semver_range_valid
from releasekit.rules.bundle.removed_apis import removed_api_message
from releasekit.rules.bundle.structure import format_size, pullspec_error
from tests.bundle_factory import csv_data

DIGEST = "@sha256:" + "a" * 64
ALLOWED = ("registry.redhat.io/",)


def _csv(images: dict[str, str] | None = None, related: list[str] | None = None) -> Manifest:
    container: dict[str, Any] = {
        "name": "manager",
        "image": (images or {}).get("manager", "registry.redhat.io/k/op" + DIGEST),
    }
    container["env"] = [
        {
            "name": "RELATED_IMAGE_OPERAND",
            "value": (images or {}).get("env", "registry.redhat.io/k/x" + DIGEST),
        }
    ]
    data = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "kueue-operator.v1.0.0"},
        "spec": {
            "relatedImages": [{"name": f"r{i}", "image": image} for i, image in enumerate(related or [])],
            "install": {
                "spec": {"deployments": [{"spec": {"template": {"spec": {"containers": [container]}}}}]}
            },
        },
    }
    return Manifest(file="csv.yaml", data=data, lines={"$.spec.relatedImages[0].image": 9})


def _crd(name: str, versions: list[str]) -> Manifest:
    data = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": {
            "group": name.partition(".")[2],
            "versions": [{"name": v, "served": True, "storage": i == 0} for i, v in enumerate(versions)],
        },
    }
    return Manifest(file=f"{name}.yaml", data=data, lines={"$.spec.versions": 12})


def _annotations(values: dict[str, str]) -> Manifest:
    return Manifest(
        file="metadata/annotations.yaml", data={"annotations": values}, lines={"$.annotations": 1}
    )


def _bundle(**kwargs: Any) -> Bundle:
    return Bundle(root="b", layout=BundleLayout.BUNDLE_ROOT, **kwargs)


# --- RK-BUNDLE-090: stream policy, alpha CRDs stay out of streams that exclude alpha APIs ------------

STABLE = StreamPolicy(stream="stable")
STABLE_RELEASED = StreamPolicy(stream="stable", released=True)


def test_alpha_crd_in_stable_stream_bundle_is_an_error() -> None:
    bundle = _bundle(
        crds=(
            _crd("topologies.kueue.x-k8s.io", ["v1beta1", "v1alpha1"]),
            _crd("queues.kueue.x-k8s.io", ["v1beta1"]),
        )
    )
    findings = check_alpha_crds(bundle, STABLE)
    assert [f.rule for f in findings] == ["RK-BUNDLE-090"]
    assert findings[0].severity is Severity.ERROR
    assert 'CRD "topologies.kueue.x-k8s.io" has alpha version(s) v1alpha1' in findings[0].message
    assert 'stream "stable" excludes alpha APIs' in findings[0].message
    assert findings[0].location.file == "topologies.kueue.x-k8s.io.yaml" and findings[0].location.line == 12


def test_alpha_crd_of_a_released_version_is_a_warning() -> None:
    bundle = _bundle(crds=(_crd("kueues.operator.openshift.io", ["v1alpha1"]),))
    findings = check_alpha_crds(bundle, STABLE_RELEASED)
    assert [(f.rule, f.severity) for f in findings] == [("RK-BUNDLE-090", Severity.WARNING)]


def test_alpha_crd_allowed_without_a_stream_or_when_the_stream_lists_the_kind() -> None:
    bundle = _bundle(crds=(_crd("topologies.kueue.x-k8s.io", ["v1alpha1"]),))
    assert check_alpha_crds(bundle, None) == []
    experimental = StreamPolicy(stream="experimental", alpha_kinds=("Topology",))
    crd = _crd("topologies.kueue.x-k8s.io", ["v1alpha1"])
    data = {**crd.data, "spec": {**crd.spec, "names": {"kind": "Topology"}}}
    allowed = _bundle(crds=(Manifest(file=crd.file, data=data),))
    assert check_alpha_crds(allowed, experimental) == []
    assert [f.rule for f in check_alpha_crds(bundle, experimental)] == ["RK-BUNDLE-090"]


def test_a_stable_channel_alone_is_no_stream_policy() -> None:
    bundle = _bundle(
        crds=(_crd("cohorts.kueue.x-k8s.io", ["v1alpha1"]),),
        annotations=_annotations({ANNOTATION_CHANNELS: "stable"}),
    )
    assert validate_bundle(bundle, ValidationOptions(validators=("releasekit",))) == ()
    findings = validate_bundle(bundle, ValidationOptions(validators=("releasekit",), stream=STABLE))
    assert [f.rule for f in findings] == ["RK-BUNDLE-090"]


# --- RK-BUNDLE-091/092: released images pinned, from allowed registries ----------------------------


def test_tag_references_are_errors_with_release_checks() -> None:
    bundle = _bundle(
        csv=_csv(images={"manager": "registry.redhat.io/k/op:latest"}, related=["registry.redhat.io/k/x:v1"])
    )
    findings = check_image_pinning(bundle, allowed_registries=ALLOWED)
    assert [f.rule for f in findings] == ["RK-BUNDLE-091", "RK-BUNDLE-091"]
    assert ":latest" in findings[1].message or ":latest" in findings[0].message
    assert all(f.severity is Severity.ERROR and f.hint for f in findings)


def test_pinned_images_pass() -> None:
    bundle = _bundle(csv=_csv(related=["registry.redhat.io/k/x" + DIGEST]))
    assert check_image_pinning(bundle, allowed_registries=ALLOWED) == []


def test_image_from_other_registry_is_an_error() -> None:
    bundle = _bundle(csv=_csv(images={"env": "quay.io/someone/x" + DIGEST}))
    findings = check_image_pinning(bundle, allowed_registries=ALLOWED)
    assert [f.rule for f in findings] == ["RK-BUNDLE-092"]
    assert "RELATED_IMAGE_OPERAND" in findings[0].message


def test_release_checks_off_by_default() -> None:
    bundle = _bundle(csv=_csv(images={"manager": "registry.redhat.io/k/op:latest"}))
    assert validate_bundle(bundle, ValidationOptions(validators=("releasekit",))) == ()
    on = validate_bundle(bundle, ValidationOptions(validators=("releasekit",), release_checks=True))
    assert [f.rule for f in on] == ["RK-BUNDLE-091"]


# --- RK-BUNDLE-093/094: com.redhat.openshift.versions -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "low", "high", "legacy"),
    [
        ("v4.18", (4, 18), None, False),
        ('"v4.18-v4.21"', (4, 18), (4, 21), False),
        ("=v4.18", (4, 18), (4, 18), False),
        ("v4.6,v4.5", (4, 5), None, True),
    ],
)
def test_openshift_versions_forms(
    text: str, low: tuple[int, int], high: tuple[int, int] | None, legacy: bool
) -> None:
    parsed = parse_openshift_versions(text)
    assert parsed is not None and (parsed.low, parsed.high, parsed.legacy) == (low, high, legacy)


@pytest.mark.parametrize("text", ["4.18+", "v4.21-v4.18", "=v4.18-v4.19", "latest", ""])
def test_openshift_versions_bad_forms(text: str) -> None:
    assert parse_openshift_versions(text) is None


def test_bad_openshift_versions_annotation_is_an_error() -> None:
    bundle = _bundle(annotations=_annotations({ANNOTATION_OPENSHIFT_VERSIONS: "4.18+"}))
    findings = check_openshift_versions(bundle)
    assert [(f.rule, f.severity) for f in findings] == [("RK-BUNDLE-093", Severity.ERROR)]
    assert findings[0].location.file == "metadata/annotations.yaml"


@pytest.mark.parametrize(
    ("stream", "severity"),
    [(None, Severity.WARNING), (STABLE_RELEASED, Severity.WARNING), (STABLE, Severity.ERROR)],
)
def test_bad_openshift_versions_is_an_error_only_for_a_streams_candidate(
    stream: StreamPolicy | None, severity: Severity
) -> None:
    bundle = _bundle(annotations=_annotations({ANNOTATION_OPENSHIFT_VERSIONS: "v4.18-v4.19-v4.20"}))
    findings = validate_bundle(bundle, ValidationOptions(validators=("releasekit",), stream=stream))
    assert [(f.rule, f.severity) for f in findings] == [("RK-BUNDLE-093", severity)]


def test_dockerfile_label_disagreeing_with_annotation_warns() -> None:
    label = DockerfileLabel(key=ANNOTATION_OPENSHIFT_VERSIONS, value="v4.17", line=7)
    bundle = _bundle(
        annotations=_annotations({ANNOTATION_OPENSHIFT_VERSIONS: "v4.18"}),
        dockerfile=Dockerfile(file="bundle.Dockerfile", labels=(label,)),
    )
    findings = check_openshift_versions(bundle)
    assert [(f.rule, f.severity, f.location.line) for f in findings] == [
        ("RK-BUNDLE-093", Severity.WARNING, 7)
    ]


def test_range_disagreeing_with_catalogs_warns() -> None:
    bundle = _bundle(annotations=_annotations({ANNOTATION_OPENSHIFT_VERSIONS: "v4.18-v4.20"}))
    findings = check_openshift_versions(bundle, ("v4.18", "v4.19", "v4.21"))
    assert [(f.rule, f.severity) for f in findings] == [("RK-BUNDLE-094", Severity.WARNING)]
    assert (
        "v4.21 outside the range" in findings[0].message
        and "v4.20 where the release is in no catalog" in findings[0].message
    )
    assert check_openshift_versions(bundle, ("v4.18", "v4.19", "v4.20")) == []


def test_open_range_needs_its_lower_bound_catalog() -> None:
    bundle = _bundle(annotations=_annotations({ANNOTATION_OPENSHIFT_VERSIONS: "v4.18"}))
    assert check_openshift_versions(bundle, ("v4.18", "v4.19", "v4.22")) == []
    assert [f.rule for f in check_openshift_versions(bundle, ("v4.17", "v4.18"))] == ["RK-BUNDLE-094"]


# --- helpers ------------------------------------------------------------------------------------------


def test_semver_helpers() -> None:
    assert parse_semver("1.21") is None and parse_semver("1.21.0") == (1, 21, 0)
    assert parse_tolerant("v1.22") == (1, 22, 0) and parse_tolerant("invalid") is None
    assert parse_tolerant("1.22-rc.1") is None  # blang: a short version cannot carry a pre-release


def test_min_kube_version_blang_refuses_is_reported() -> None:
    """The removed-API check reads minKubeVersion as blang ParseTolerant does, refusals included."""
    csv = csv_data()
    csv["spec"]["minKubeVersion"] = "1.22-rc.1"
    bundle = Bundle(root="b", layout=BundleLayout.BUNDLE_ROOT, csv=Manifest(file="csv.yaml", data=csv))
    found = validate_bundle(bundle, ValidationOptions(validators=("alpha-deprecated-apis",)))
    assert [f.rule for f in found] == ["RK-BUNDLE-081"]


@pytest.mark.parametrize(
    ("text", "ok"), [(">=0.2.0", True), (">=1.0.0 <2.0.0 || 3.x", True), (">!0.2.0", False), ("", False)]
)
def test_semver_ranges(text: str, ok: bool) -> None:
    assert semver_range_valid(text) is ok


@pytest.mark.parametrize(
    ("image", "ok"),
    [
        ("registry.redhat.io/kueue/kueue-rhel9" + DIGEST, True),
        ("quay.io/a/b:v1.0", True),
        ("quay.io/A/b:v1", False),
        ("quay.io/a/b@sha256:abc", False),
        ("quay.io/a/b:v!1", False),
    ],
)
def test_pullspecs(image: str, ok: bool) -> None:
    assert (pullspec_error(image) is None) is ok


def test_format_size_and_removed_api_message() -> None:
    assert format_size(948_600) == "948.6 kB" and format_size(1 << 20) == "1.0 MB"
    two = removed_api_message(25, {"PodDisruptionBudget": ["b"], "HorizontalPodAutoscaler": ["a"]})
    assert two.endswith('HorizontalPodAutoscaler: (["a"]),PodDisruptionBudget: (["b"]),')
    assert removed_api_message(26, {"HorizontalPodAutoscaler": ["a"]}).endswith(
        'HorizontalPodAutoscaler: (["a"])'
    )
