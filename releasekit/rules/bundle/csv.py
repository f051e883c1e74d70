"""The CSV validator (operator-framework/api ``internal/csv.go``) and the annotation-case check.

Pure. Rules RK-BUNDLE-020 … 031. Messages carry api's wording (docs/olm-bundle-validation.md §2.1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from releasekit.model import bundle_ids as ids
from releasekit.model import jsontext
from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Finding, Severity
from releasekit.model.go_decode import GO_JSON_WRAP, go_json_type
from releasekit.rules.bundle._common import (
    BundleFindings,
    api_message,
    as_list,
    as_map,
    as_str,
    crd_descriptions,
    csv_message,
    gvk_string,
    parse_semver,
)
from releasekit.rules.bundle._k8s import dns1123_subdomain_errors, label_value_errors

__all__ = [
    "MIN_KUBE_NOT_INFORMED",
    "check_annotation_case",
    "min_kube_problems",
    "validate_csv",
    "validate_csv_manifest",
]

MIN_KUBE_NOT_INFORMED = (
    "csv.Spec.minKubeVersion is not informed. It is recommended you provide this information. "
    "Otherwise, it would mean that your operator project can be distributed and installed in any cluster "
    "version available, which is not necessarily the case for all projects."
)

CASE_SENSITIVE_ANNOTATIONS = (
    "olm.operatorGroup",
    "olm.operatorNamespace",
    "olm.targetNamespaces",
    "olm.providedAPIs",
    "olm.skipRange",
)


def name_violations(name: str) -> list[str]:
    """k8s ``IsDNS1123Subdomain`` plus label-value rules, as api's CSV name check applies them."""
    return dns1123_subdomain_errors(name) + label_value_errors(name)


def _parse_json(text: str) -> tuple[Any, str | None]:
    """The value of JSON ``text``, or operator-framework/api's ``validateJSON`` complaint."""
    try:
        return jsontext.loads(text), None
    except jsontext.NestedTooDeep as exc:
        return None, str(exc)
    except json.JSONDecodeError as exc:
        offset = len(text[: exc.pos].encode("utf-8")) + (1 if exc.pos < len(text) else 0)
        prefix = text.encode("utf-8")[:offset].decode("utf-8", errors="replace")
        return None, f"invalid character at {offset}\n {prefix}<--(see the invalid character)"


def _examples_decode_error(text: str, value: Any) -> str | None:
    """Why decoding valid JSON into ``[]unstructured.Unstructured`` fails (api's YAML-or-JSON decoder)."""
    target = "[]unstructured.Unstructured"
    if text.lstrip().startswith("{"):  # sniffed as JSON: encoding/json's own error, unwrapped
        return f"json: cannot unmarshal object into Go value of type {target}"
    wrap = GO_JSON_WRAP  # read as YAML through sigs.k8s.io/yaml
    if value is None:
        return None
    if not isinstance(value, list):
        return f"{wrap}json: cannot unmarshal {go_json_type(value)} into Go value of type {target}"
    for item in value:
        if not isinstance(item, dict):
            kind = go_json_type(item)
            return f"{wrap}json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
        if not (isinstance(item.get("kind"), str) and item["kind"]):
            document = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            return f"{wrap}Object 'Kind' is missing in '{document}'"
    return None


def _read_examples(text: str) -> tuple[list[Any], str | None, str]:
    """(examples, api's complaint or None, what the annotation must be) of an examples annotation."""
    value, problem = _parse_json(text)
    if problem is not None:
        return [], api_message("invalid example", value=problem), "a valid JSON list of custom resources"
    problem = _examples_decode_error(text, value)
    if problem is not None:
        message = api_message("error decoding example CustomResource", value=problem)
        return [], message, "a JSON list of custom resources, each with apiVersion and kind"
    return value or [], None, ""


def _examples(csv: Manifest, bundle: Bundle | None) -> list[Finding]:
    annotations = csv.annotations
    out = BundleFindings(bundle)
    if not annotations:
        message = csv_message("annotations not found", csv.name)
        hint = "add metadata.annotations with an alm-examples list of example custom resources"
        out.flag(ids.CSV_EXAMPLES_MISSING, message, csv.loc("$.metadata"), hint, Severity.WARNING)
        return out
    if "alm-examples" not in annotations and "olm.examples" not in annotations:
        message = csv_message("example annotations not found", csv.name)
        hint = "add an alm-examples annotation with one example per owned API"
        out.flag(ids.CSV_EXAMPLES_MISSING, message, csv.loc("$.metadata.annotations"), hint, Severity.WARNING)
        return out
    key = "alm-examples" if "alm-examples" in annotations else "olm.examples"
    if "alm-examples" in annotations and "olm.examples" in annotations:
        message = csv_message(
            "both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`", csv.name
        )
        out.flag(
            ids.CSV_EXAMPLES_MISSING,
            message,
            csv.loc("$.metadata.annotations['olm.examples']"),
            "keep only alm-examples",
            Severity.WARNING,
        )
    path = f"$.metadata.annotations[{key!r}]"
    text = as_str(annotations.get(key))
    examples, complaint, want = _read_examples(text) if text else ([], None, "")
    if complaint is not None:
        out.flag(ids.CSV_EXAMPLES_INVALID, complaint, csv.loc(path), f"make {key} {want}")
        return out
    parsed: set[tuple[str, str, str]] = set()
    for example in examples:
        group, _, version = as_str(example.get("apiVersion")).rpartition("/")
        parsed.add((group, version, as_str(example.get("kind"))))
    provided: dict[tuple[str, str, str], str] = {}
    for owned_path, owned in crd_descriptions(csv):
        crd_name = as_str(owned.get("name"))
        _, dot, group = crd_name.partition(".")
        if not dot:
            message = f"couldn't parse plural.group from crd name: {crd_name}"
            hint = "name an owned CRD <plural>.<group>, as its metadata.name"
            out.flag(ids.CSV_OWNED_CRD_NAME, message, csv.loc(f"{owned_path}.name"), hint)
            continue
        provided[(group, as_str(owned.get("version")), as_str(owned.get("kind")))] = owned_path
    for index, api in enumerate(as_list(as_map(csv.spec.get("apiservicedefinitions")).get("owned"))):
        api = as_map(api)
        gvk = (as_str(api.get("group")), as_str(api.get("version")), as_str(api.get("kind")))
        provided[gvk] = f"$.spec.apiservicedefinitions.owned[{index}]"
    for gvk in sorted(parsed - provided.keys()):
        message = api_message("example must have a provided API", value=gvk_string(*gvk))
        hint = "drop the example or add the API to spec.customresourcedefinitions.owned"
        out.flag(ids.CSV_EXAMPLE_NOT_PROVIDED, message, csv.loc(path), hint)
    for gvk, owned_path in sorted(provided.items()):
        if gvk not in parsed:
            message = api_message("provided API should have an example annotation", value=gvk_string(*gvk))
            hint = f"add an example {gvk[2]} to the {key} annotation"
            out.flag(ids.CSV_API_WITHOUT_EXAMPLE, message, csv.loc(owned_path), hint, Severity.WARNING)
    return out


def _install_modes(csv: Manifest, bundle: Bundle | None) -> list[Finding]:
    spec = csv.spec
    modes = [as_map(m) for m in as_list(spec.get("installModes"))]
    out = BundleFindings(bundle)
    if not modes:
        message = csv_message("install modes not found", csv.name)
        hint = "declare spec.installModes (releasekit bundles support AllNamespaces only)"
        out.flag(
            ids.CSV_INSTALL_MODES,
            message,
            csv.loc("$.spec.installModes" if "installModes" in spec else "$.spec"),
            hint,
        )
        return out
    last = {as_str(m.get("type")): m.get("supported") is True for m in modes}  # a repeated type: last wins
    supported = {kind for kind, ok in last.items() if ok}
    for index, webhook in enumerate(as_list(spec.get("webhookdefinitions"))):
        if as_list(as_map(webhook).get("conversionCRDs")) and supported != {"AllNamespaces"}:
            message = csv_message(
                "only AllNamespaces InstallModeType is supported when conversionCRDs is present", csv.name
            )
            hint = "support only the AllNamespaces install mode, or drop the conversion webhook"
            out.flag(ids.CSV_INSTALL_MODES, message, csv.loc(f"$.spec.webhookdefinitions[{index}]"), hint)
    if not supported:
        message = csv_message("none of InstallModeTypes are supported", csv.name)
        hint = "mark at least one install mode supported: true"
        out.flag(ids.CSV_INSTALL_MODES, message, csv.loc("$.spec.installModes"), hint)
    return out


def min_kube_problems(spec: Mapping[str, Any]) -> list[tuple[str, str, str, Severity]]:
    """(detail, JSON path, hint, severity) of ``spec.minKubeVersion``: missing (a warning) or not full semver."""
    value = as_str(spec.get("minKubeVersion")).strip()
    if not value:
        return [(MIN_KUBE_NOT_INFORMED, "$.spec", "set spec.minKubeVersion, e.g. 1.28.0", Severity.WARNING)]
    if parse_semver(value) is None:
        detail = f"csv.Spec.MinKubeVersion has an invalid value: {value}"
        hint = "write spec.minKubeVersion as full semver, e.g. 1.28.0"
        return [(detail, "$.spec.minKubeVersion", hint, Severity.ERROR)]
    return []


def _required(csv: Manifest, bundle: Bundle | None) -> list[Finding]:
    """The required-field walk of api's ``checkEmptyFields`` for the fields that have no ``omitempty``."""
    spec = csv.spec
    install = as_map(spec.get("install"))
    install_spec = as_map(install.get("spec"))
    missing = [
        ("ObjectMeta", "$.metadata", "metadata", not csv.metadata),
        ("Spec", "$.spec", "spec", not spec),
        ("Spec.InstallStrategy", "$.spec.install", "spec.install", spec and not install),
        (
            "Spec.InstallStrategy.StrategyName",
            "$.spec.install",
            "spec.install.strategy",
            install and not as_str(install.get("strategy")),
        ),
        (
            "Spec.InstallStrategy.StrategySpec.DeploymentSpecs",
            "$.spec.install.spec",
            "spec.install.spec.deployments",
            install_spec and install_spec.get("deployments") is None,
        ),
        ("Spec.DisplayName", "$.spec", "spec.displayName", spec and not as_str(spec.get("displayName"))),
    ]
    out = BundleFindings(bundle)
    for go_path, path, yaml_path, absent in missing:
        if absent:
            message = api_message("required field missing", field=go_path, value=yaml_path.rpartition(".")[2])
            out.flag(ids.CSV_REQUIRED_FIELD, message, csv.loc(path), f"set {yaml_path}")
    return out


def check_annotation_case(manifest: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """OLM annotations written in the wrong case (api ``annotations.go``); used for CSVs and OperatorGroups."""
    out = BundleFindings(bundle)
    for key in map(str, manifest.annotations):
        for want in CASE_SENSITIVE_ANNOTATIONS:
            if key != want and key.lower() == want.lower():
                message = api_message(
                    f"provided annotation {key} uses wrong case and should be {want} instead",
                    value=manifest.name,
                )
                hint = f"rename the annotation to {want}; OLM reads annotation names case-sensitively"
                out.flag(ids.ANNOTATION_CASE, message, manifest.loc(f"$.metadata.annotations[{key!r}]"), hint)
    return out


def validate_csv_manifest(csv: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """Every CSV-validator rule for one CSV."""
    name = csv.name
    out = BundleFindings(bundle)
    replaces = as_str(csv.spec.get("replaces"))
    for field, value, hint in (
        ("metadata.name", name, "name the CSV <package>.v<version>, lower case, at most 63 characters"),
        ("spec.replaces", replaces, "spec.replaces must name an existing CSV (<package>.v<version>)"),
    ):
        problems = name_violations(value) if value or field == "metadata.name" else []
        if problems:
            message = csv_message(f'{field} "{value}" is invalid: {",".join(problems)}', name)
            out.flag(ids.CSV_NAME, message, csv.loc(f"$.{field}"), hint)
    out += _examples(csv, bundle)
    out += _install_modes(csv, bundle)
    out += _required(csv, bundle)
    for detail, path, hint, severity in min_kube_problems(csv.spec):
        out.flag(ids.CSV_MIN_KUBE_VERSION, csv_message(detail, name), csv.loc(path), hint, severity)
    out += check_annotation_case(csv, bundle)
    if "olm.properties" in csv.annotations:
        message = api_message(
            "found olm.properties annotation, please define these properties in metadata/properties.yaml instead",
            value=name,
        )
        hint = "move the properties to metadata/properties.yaml"
        out.flag(
            ids.CSV_OLM_PROPERTIES,
            message,
            csv.loc("$.metadata.annotations['olm.properties']"),
            hint,
            Severity.WARNING,
        )
    for key in ("apiVersion", "kind"):
        if not as_str(csv.data.get(key)):
            message = csv_message(f"'{key}' is missing", name)
            hint = f"set {key} (operators.coreos.com/v1alpha1, ClusterServiceVersion)"
            out.flag(ids.CSV_TYPE_META, message, csv.loc("$"), hint)
    return out


def validate_csv(bundle: Bundle) -> list[Finding]:
    """The CSV validator over every CSV of the bundle."""
    out: list[Finding] = []
    for csv in (bundle.csv, *bundle.extra_csvs):
        if csv is not None:
            out += validate_csv_manifest(csv, bundle)
    return out
