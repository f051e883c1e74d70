"""Checks operator-sdk's default run makes that releasekit lacked, with the reference's wording.

operator-sdk's content check (kinds a registry+v1 bundle may carry, object metadata), the CRD rules of
the API server that api's CRD validator reports (v1beta1 ``preserveUnknownFields``, names, API
approval, top-level vs per-version fields), the served-versions warning (RK-BUNDLE-125, a CRD the
reference accepts), and the CSV version parse of the loader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from releasekit.io.bundle_load import load_manifests_dir
from releasekit.model.bundle import Bundle, BundleLayout, Manifest, ValidationOptions
from releasekit.model.finding import Finding, Severity
from releasekit.model.go_decode import semver_tolerant_error
from releasekit.rules.bundle import DEFAULT_VALIDATORS, validate_bundle
from tests.bundle_factory import annotations, crd_data, csv_data

LABEL_KEY_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def _bundle(*objects: dict[str, Any], crds: tuple[dict[str, Any], ...] | None = None) -> Bundle:
    return Bundle(
        root="b",
        layout=BundleLayout.BUNDLE_ROOT,
        csv=Manifest(file="b/manifests/csv.yaml", data=csv_data()),
        crds=tuple(
            Manifest(file=f"b/manifests/crd{i}.yaml", data=c) for i, c in enumerate(crds or (crd_data(),))
        ),
        objects=tuple(Manifest(file=f"b/manifests/obj{i}.yaml", data=o) for i, o in enumerate(objects)),
    )


def _run(bundle: Bundle, *validators: str) -> list[Finding]:
    return list(validate_bundle(bundle, ValidationOptions(validators=validators or DEFAULT_VALIDATORS)))


def _rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


# --- operator-sdk's content check (default): kinds and object metadata -------------------------------


@pytest.mark.parametrize(
    ("api_version", "kind", "gvk"),
    [
        ("apps/v1", "Deployment", "apps/v1, Kind=Deployment"),
        ("networking.k8s.io/v1", "Ingress", "networking.k8s.io/v1, Kind=Ingress"),
        ("v1", "Pod", "/v1, Kind=Pod"),
    ],
)
def test_unsupported_kind_is_an_error_by_default(api_version: str, kind: str, gvk: str) -> None:
    findings = _rule(
        _run(_bundle({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}})), "RK-BUNDLE-017"
    )
    assert [(f.severity, f.message) for f in findings] == [
        (Severity.ERROR, f"Value {gvk}: unsupported media type registry+v1 for bundle object")
    ]
    assert findings[0].location.file == "b/manifests/obj0.yaml"


def test_supported_kinds_with_good_metadata_pass() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "labels": {"app": "w"}}}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}
    assert _run(_bundle(service, role), "sdk-content") == []


def test_object_without_a_name() -> None:
    findings = _run(_bundle({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}), "sdk-content")
    assert [f.message for f in findings] == [
        "Value : error validating object: metadata.name: Required value: name or generateName is required"
    ]
    assert findings[0].rule == "RK-BUNDLE-018" and findings[0].severity is Severity.ERROR


def test_object_with_a_namespace_and_bad_label_and_annotation_keys() -> None:
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "cm",
            "namespace": "somewhere",
            "labels": {"bad key": "ok"},
            "annotations": {"a/b/c": "x"},
        },
    }
    (found,) = _run(_bundle(obj), "sdk-content")
    assert found.message.startswith(
        "Value cm: error validating object: [metadata.namespace: Forbidden: not allowed"
    )
    assert 'metadata.labels: Invalid value: "bad key": ' + LABEL_KEY_NAME_MSG in found.message
    assert 'metadata.annotations: Invalid value: "a/b/c": a valid label key must consist of' in found.message
    assert found.location.path == "$.metadata.namespace"


def test_label_value_and_prefix_rules() -> None:
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cm", "labels": {"Example.COM/x": "-bad"}},
    }
    (found,) = _run(_bundle(obj), "sdk-content")
    assert (
        'metadata.labels: Invalid value: "Example.COM/x": prefix part a lowercase RFC 1123 subdomain'
        in found.message
    )
    assert 'metadata.labels: Invalid value: "-bad": a valid label must be an empty string' in found.message


# --- CRD validator: what the API server refuses -------------------------------------------------------


def _beta_crd(**spec: Any) -> dict[str, Any]:
    data = crd_data()
    data["apiVersion"] = "apiextensions.k8s.io/v1beta1"
    data["spec"]["versions"] = [{"name": "v1alpha1", "served": True, "storage": True}]
    data["spec"]["validation"] = {"openAPIV3Schema": {"type": "object"}}
    data["spec"].update(spec)
    return data


PRESERVE = (
    "Field spec.preserveUnknownFields, Value widgets.example.com: spec.preserveUnknownFields: Invalid value: true: "
    "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"
)


@pytest.mark.parametrize(
    ("spec", "refused"),
    [({"preserveUnknownFields": True}, True), ({}, True), ({"preserveUnknownFields": False}, False)],
)
def test_v1beta1_crd_preserving_unknown_fields(spec: dict[str, Any], refused: bool) -> None:
    """v1beta1 defaults preserveUnknownFields to true, and the API server refuses to create such a CRD."""
    messages = [f.message for f in _rule(_run(_bundle(crds=(_beta_crd(**spec),)), "crd"), "RK-BUNDLE-035")]
    assert messages == ([PRESERVE] if refused else [])


def test_crd_serving_no_version_is_a_warning_not_an_error() -> None:
    data = crd_data()
    data["spec"]["versions"][0]["served"] = False
    findings = _run(_bundle(crds=(data,)), "crd")
    assert [(f.rule, f.severity) for f in findings] == [("RK-BUNDLE-125", Severity.WARNING)]
    assert 'CRD "widgets.example.com" serves none of its versions (v1alpha1)' in findings[0].message


def test_crd_kind_message_carries_the_mixed_case_wording() -> None:
    data = crd_data()
    data["spec"]["names"]["kind"] = "Wid_get"
    data["spec"]["names"]["listKind"] = "WidgetList"
    messages = [f.message for f in _run(_bundle(crds=(data,)), "crd")]
    assert any(
        'spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: '
        "a DNS-1035 label must consist of" in m
        for m in messages
    ), messages


def test_crd_of_a_protected_group_needs_api_approval() -> None:
    data = crd_data()
    data["metadata"]["name"] = "widgets.x.k8s.io"
    data["spec"]["group"] = "x.k8s.io"
    messages = [f.message for f in _run(_bundle(crds=(data,)), "crd")]
    assert messages == [
        "Field metadata.annotations[api-approved.kubernetes.io], Value widgets.x.k8s.io: "
        "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval "
        'annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'
    ]
    data["metadata"]["annotations"] = {
        "api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"
    }
    assert _run(_bundle(crds=(data,)), "crd") == []


def test_crd_with_a_namespace_is_refused() -> None:
    data = crd_data()
    data["metadata"]["namespace"] = "default"
    messages = [f.message for f in _run(_bundle(crds=(data,)), "crd")]
    assert messages == [
        "Field metadata.namespace, Value widgets.example.com: metadata.namespace: Forbidden: not allowed on this type"
    ]


def test_v1beta1_top_level_and_per_version_schemas_are_exclusive() -> None:
    data = _beta_crd(preserveUnknownFields=False)
    data["spec"]["versions"][0]["schema"] = {"openAPIV3Schema": {"type": "object"}}
    messages = [f.message for f in _run(_bundle(crds=(data,)), "crd")]
    assert any(
        "spec.validation: Forbidden: top-level and per-version schemas are mutually exclusive" in m
        for m in messages
    )
    assert any(
        "per-version schemas may not all be set to identical values (top-level validation should be used instead)"
        in m
        for m in messages
    )


# --- the loader's CSV version parse (blang ParseTolerant) ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("1.2.3", None),
        ("v1.2", None),
        ("01.2.3", None),
        ("1.2.3-rc.1+build.5", None),
        ("1.2-rc", "Short version cannot contain PreRelease/Build meta data"),
        ("1.2.x", 'Invalid character(s) found in patch number "x"'),
        ("1.2.3.4", 'Invalid character(s) found in patch number "3.4"'),
        ("1.2.3-", "Prerelease is empty"),
        ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.2.3+a_b", 'Invalid character(s) found in build meta data "a_b"'),
        ("", 'strconv.ParseUint: parsing "": invalid syntax'),
    ],
)
def test_semver_tolerant_errors(text: str, error: str | None) -> None:
    assert semver_tolerant_error(text) == error


@given(
    st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.booleans(),
    st.sampled_from(["", "-rc.1", "-alpha", "+build.7", "-beta.2+exp.sha.5114f85"]),
)
def test_every_semver_parses_tolerantly(parts: tuple[int, int, int], prefix: bool, tail: str) -> None:
    text = ("v" if prefix else "") + ".".join(map(str, parts)) + tail
    assert semver_tolerant_error(text) is None


def test_registry_content_reports_the_first_metadata_field_go_cannot_decode() -> None:
    """operator-registry decodes ObjectMeta as encoding/json does: one error, the first field it meets."""
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": 7, "labels": {"a": 1, "b": 2}}}
    [found] = _rule(_run(_bundle(service), "registry-content"), "RK-BUNDLE-018")
    assert found.location.path == "$.metadata.labels['a']"
    assert found.message == (
        "error validating object metadata: json: cannot unmarshal number into Go struct field "
        "ObjectMeta.metadata.labels of type string"
    )


def test_a_csv_uid_go_cannot_decode_is_a_loader_refusal(tmp_path: Path) -> None:
    """ObjectMeta's uid is a string to Go: the loader refuses the CSV (RK-BUNDLE-123), as operator-sdk does."""
    csv = csv_data()
    csv["metadata"]["uid"] = 5
    (tmp_path / "csv.yaml").write_text(json.dumps(csv))
    [refusal] = [f for f in load_manifests_dir(tmp_path).load_findings if f.rule == "RK-BUNDLE-123"]
    assert refusal.location.path == "$.metadata.uid"
    assert refusal.message.endswith("Go struct field ObjectMeta.metadata.uid of type string")


def test_core_group_gvk_renders_as_go_does() -> None:
    """Go's GroupVersionKind.String() keeps the slash for the core group: an example of kind Pod."""
    from releasekit.rules.bundle._common import gvk_string

    assert gvk_string("", "v1", "Pod") == "/v1, Kind=Pod"
    csv = csv_data()
    csv["metadata"]["annotations"]["alm-examples"] = (
        '[{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]'
    )
    bundle = Bundle(root="b", layout=BundleLayout.BUNDLE_ROOT, csv=Manifest(file="csv.yaml", data=csv))
    messages = [f.message for f in _run(bundle, "csv")]
    assert "Value /v1, Kind=Pod: example must have a provided API" in messages


# --- the bundle validator's messages carry api's Value (the GVK or the field, not the CSV name) ------


def test_bundle_validator_values_are_the_references() -> None:
    csv = csv_data()
    csv["spec"]["customresourcedefinitions"]["owned"].append(
        {"name": "gadgets", "version": "v1", "kind": "Gadget"}
    )
    csv["spec"]["relatedImages"] = [{"name": "x", "image": "Quay.io/Upper/Case:1"}]
    crd = crd_data()
    bundle = Bundle(
        root="b",
        layout=BundleLayout.BUNDLE_ROOT,
        csv=Manifest(file="csv.yaml", data=csv),
        crds=(Manifest(file="a.yaml", data=crd), Manifest(file="b.yaml", data=crd_data())),
        size=10,
        compressed_size=10,
    )
    messages = [f.message for f in _run(bundle, "bundle")]
    assert (
        'Value example.com/v1alpha1, Kind=Widget: duplicate CRD "example.com/v1alpha1, Kind=Widget" in bundle '
        '"widget-operator.v0.3.0"' in messages
    )
    # api keeps a name without a dot as the group
    assert (
        'Value gadgets/v1, Kind=Gadget: owned CRD "gadgets/v1, Kind=Gadget" not found in bundle "widget-operator.v0.3.0"'
        in messages
    )
    assert any(
        m.startswith("Value spec.relatedImages[0].image: relatedImages[0] has an invalid image pullspec")
        for m in messages
    )


# --- CSV validator: alm-examples as api reads it (any JSON passes validateJSON, then the decode) ------


@pytest.mark.parametrize(
    ("examples", "message"),
    [
        (
            '{"apiVersion": "example.com/v1alpha1", "kind": "Widget"}',
            "Value json: cannot unmarshal object into Go value of type []unstructured.Unstructured: "
            "error decoding example CustomResource",
        ),
        (
            '[{"apiVersion": "example.com/v1alpha1"}]',
            "Value error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in "
            '\'{"apiVersion":"example.com/v1alpha1"}\': error decoding example CustomResource',
        ),
        (
            "42",
            "Value error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go value of "
            "type []unstructured.Unstructured: error decoding example CustomResource",
        ),
        ("kind: Widget", "Value invalid character at 1\n k<--(see the invalid character): invalid example"),
    ],
)
def test_alm_examples_decoding_as_api_does(examples: str, message: str) -> None:
    csv = csv_data()
    csv["metadata"]["annotations"]["alm-examples"] = examples
    bundle = Bundle(root="b", layout=BundleLayout.MANIFESTS_DIR, csv=Manifest(file="csv.yaml", data=csv))
    found = [f for f in _run(bundle, "csv") if f.rule == "RK-BUNDLE-022"]
    assert [f.message for f in found] == [message]


# --- operator-registry's format check (part of operator-sdk's default run) ----------------------------


def _format(values: dict[str, str]) -> list[str]:
    bundle = Bundle(
        root="b",
        layout=BundleLayout.BUNDLE_ROOT,
        csv=Manifest(file="csv.yaml", data=csv_data()),
        annotations=Manifest(file="b/metadata/annotations.yaml", data={"annotations": values}),
    )
    return [f.message for f in _run(bundle, "registry-format")]


def test_missing_media_type_and_channels_are_reported_as_reg_does() -> None:
    values = annotations()
    del values["operators.operatorframework.io.bundle.mediatype.v1"]
    del values["operators.operatorframework.io.bundle.channels.v1"]
    assert sorted(_format(values)) == sorted(
        [
            'Missing annotation "operators.operatorframework.io.bundle.mediatype.v1"',
            'Missing annotation "operators.operatorframework.io.bundle.channels.v1"',
            'Expecting annotation "operators.operatorframework.io.bundle.mediatype.v1" to have value "registry+v1" '
            'instead of ""',
            'Expecting annotation "operators.operatorframework.io.bundle.channels.v1" to have non-empty value',
        ]
    )


def test_a_blank_channel_is_not_empty_to_reg() -> None:
    assert _format({**annotations(), "operators.operatorframework.io.bundle.channels.v1": " "}) == []


def _crd_messages(data: dict[str, Any]) -> list[str]:
    return [
        f.message.partition(": ")[2] for f in _run(_bundle(crds=(data,)), "crd") if f.rule == "RK-BUNDLE-035"
    ]


def test_crd_webhook_conversion_rules() -> None:
    data = crd_data()
    data["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {"clientConfig": {}, "conversionReviewVersions": ["v2", "v2"]},
    }
    assert _crd_messages(data) == [
        "spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required",
        'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
        'spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
    ]


def test_crd_printer_columns_and_deprecation_warning() -> None:
    data = crd_data()
    version = data["spec"]["versions"][0]
    version["additionalPrinterColumns"] = [{"name": "Age", "type": "duration", "jsonPath": "metadata.age"}]
    version["deprecationWarning"] = "use v1"
    assert _crd_messages(data) == [
        'spec.additionalPrinterColumns[0].type: Invalid value: "duration": must be one of '
        "boolean,date,integer,number,string",
        'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "metadata.age": must be a simple json path '
        "starting with .",
        'spec.versions[0].deprecationWarning: Invalid value: "use v1": can only be set for deprecated versions',
    ]


def test_crd_scale_subresource_paths() -> None:
    data = crd_data()
    data["spec"]["versions"][0]["subresources"] = {
        "scale": {"specReplicasPath": ".replicas", "statusReplicasPath": "", "labelSelectorPath": "selector"}
    }
    assert _crd_messages(data) == [
        'spec.subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec',
        'spec.subresources.scale.labelSelectorPath: Invalid value: "selector": must be a simple json path starting '
        "with .",
    ]  # statusReplicasPath errors name a status path: api's CRD validator drops them


_LABEL_NAME = st.from_regex(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", fullmatch=True)
_DNS_LABEL = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?", fullmatch=True)


@given(st.lists(_DNS_LABEL, min_size=0, max_size=4), _LABEL_NAME)
def test_every_well_formed_label_key_passes(prefix_labels: list[str], name: str) -> None:
    from releasekit.rules.bundle._k8s import label_key_errors

    key = (".".join(prefix_labels) + "/" + name) if prefix_labels else name
    assert label_key_errors(key) == []


@given(_LABEL_NAME, st.sampled_from([" ", "!", "/x/", "_"]))
def test_a_label_key_with_a_bad_character_fails(name: str, bad: str) -> None:
    from releasekit.rules.bundle._k8s import label_key_errors

    assert label_key_errors(bad + name) != []


def test_a_trailing_newline_is_no_valid_label_value() -> None:
    """Go's ``$`` ends the text: a value that only a trailing newline spoils is refused, as Kubernetes does."""
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"app": "web\n"}}}
    (found,) = _run(_bundle(obj), "sdk-content")
    assert 'metadata.labels: Invalid value: "web\\n": a valid label must be an empty string' in found.message


def test_csv_name_limits_count_bytes_as_go_does() -> None:
    """60 two-byte characters are 120 bytes: over the 63-byte label limit although 60 characters long."""
    bundle = _bundle()
    assert bundle.csv is not None
    data = dict(bundle.csv.data, metadata={"name": "é" * 60})
    csv = Manifest(file=bundle.csv.file, data=data)
    (found,) = _rule(_run(Bundle(root="b", layout=BundleLayout.BUNDLE_ROOT, csv=csv), "csv"), "RK-BUNDLE-020")
    assert "must be no more than 63 bytes" in found.message


def test_crd_invalid_values_keep_printable_unicode_as_go_quotes_it() -> None:
    data = crd_data()
    data["spec"]["names"]["shortNames"] = ["wïdget"]
    (message,) = [m for m in _crd_messages(data) if "shortNames" in m]
    assert 'spec.names.shortNames[0]: Invalid value: "wïdget"' in message
