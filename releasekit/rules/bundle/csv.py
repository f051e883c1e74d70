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
from releasekit.rules.bundle._common import (
    BundleFindings,
    api_message,
    as_list,
    as_map,
    as_str,
    csv_message,
    finding,
    gvk_string,
    parse_semver,
)
from releasekit.rules.bundle._k8s import dns1123_subdomain_errors, label_value_errors

__all__ = ["MIN_KUBE_NOT_INFORMED", "check_annotation_case", "validate_csv", "validate_csv_manifest"]

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


_GO_TYPES = {bool: "bool", int: "number", float: "number", str: "string", list: "array", dict: "object"}


def _examples_decode_error(text: str, value: Any) -> str | None:
    """Why decoding valid JSON into ``[]unstructured.Unstructured`` fails (api's YAML-or-JSON decoder)."""
    target = "[]unstructured.Unstructured"
    if text.lstrip().startswith("{"):  # sniffed as JSON: encoding/json's own error, unwrapped
        return f"json: cannot unmarshal object into Go value of type {target}"
    wrap = "error unmarshaling JSON: while decoding JSON: "  # read as YAML through sigs.k8s.io/yaml
    if value is None:
        return None
    if not isinstance(value, list):
        return f"{wrap}json: cannot unmarshal {_GO_TYPES.get(type(value), 'value')} into Go value of type {target}"
    for item in value:
        if not isinstance(item, dict):
            kind = _GO_TYPES.get(type(item), "value")
            return f"{wrap}json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
        if not (isinstance(item.get("kind"), str) and item["kind"]):
            document = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            return f"{wrap}Object 'Kind' is missing in '{document}'"
    return None


def _examples(csv: Manifest, bundle: Bundle | None) -> list[Finding]:
    name = csv.name
    annotations = csv.annotations
    out = BundleFindings(bundle)
    if not annotations:
        return [
            finding(
                ids.CSV_EXAMPLES_MISSING,
                csv_message("annotations not found", name),
                csv.loc("$.metadata"),
                "add metadata.annotations with an alm-examples list of example custom resources",
                bundle,
                severity=Severity.WARNING,
            )
        ]
    if "alm-examples" not in annotations and "olm.examples" not in annotations:
        return [
            finding(
                ids.CSV_EXAMPLES_MISSING,
                csv_message("example annotations not found", name),
                csv.loc("$.metadata.annotations"),
                "add an alm-examples annotation with one example per owned API",
                bundle,
                severity=Severity.WARNING,
            )
        ]
    key = "alm-examples" if "alm-examples" in annotations else "olm.examples"
    if "alm-examples" in annotations and "olm.examples" in annotations:
        out.flag(
            ids.CSV_EXAMPLES_MISSING,
            csv_message(
                "both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`", name
            ),
            csv.loc("$.metadata.annotations['olm.examples']"),
            "keep only alm-examples",
            Severity.WARNING,
        )
    path = f"$.metadata.annotations[{key!r}]"
    text = as_str(annotations.get(key))
    examples: list[Any] = []
    if text:
        value, problem = _parse_json(text)
        if problem is not None:
            out.flag(
                ids.CSV_EXAMPLES_INVALID,
                api_message("invalid example", value=problem),
                csv.loc(path),
                f"make {key} a valid JSON list of custom resources",
            )
            return out
        decode_error = _examples_decode_error(text, value)
        if decode_error is not None:
            out.flag(
                ids.CSV_EXAMPLES_INVALID,
                api_message("error decoding example CustomResource", value=decode_error),
                csv.loc(path),
                f"make {key} a JSON list of custom resources, each with apiVersion and kind",
            )
            return out
        examples = value or []
    parsed: dict[tuple[str, str, str], None] = {}
    for item in examples:
        api_version = as_str(item.get("apiVersion"))
        group, _, version = api_version.rpartition("/")
        parsed[(group, version, as_str(item.get("kind")))] = None
    provided: dict[tuple[str, str, str], str] = {}
    spec = csv.spec
    for index, owned in enumerate(as_list(as_map(spec.get("customresourcedefinitions")).get("owned"))):
        owned = as_map(owned)
        crd_name = as_str(owned.get("name"))
        plural, dot, group = crd_name.partition(".")
        owned_path = f"$.spec.customresourcedefinitions.owned[{index}]"
        if not dot:
            out.flag(
                ids.CSV_OWNED_CRD_NAME,
                f"couldn't parse plural.group from crd name: {crd_name}",
                csv.loc(f"{owned_path}.name"),
                "name an owned CRD <plural>.<group>, as its metadata.name",
            )
            continue
        provided[(group, as_str(owned.get("version")), as_str(owned.get("kind")))] = owned_path
    for index, api in enumerate(as_list(as_map(spec.get("apiservicedefinitions")).get("owned"))):
        api = as_map(api)
        key3 = (as_str(api.get("group")), as_str(api.get("version")), as_str(api.get("kind")))
        provided[key3] = f"$.spec.apiservicedefinitions.owned[{index}]"
    for gvk in sorted(parsed):
        if gvk not in provided:
            out.flag(
                ids.CSV_EXAMPLE_NOT_PROVIDED,
                api_message("example must have a provided API", value=gvk_string(*gvk)),
                csv.loc(path),
                "drop the example or add the API to spec.customresourcedefinitions.owned",
            )
    for gvk, owned_path in sorted(provided.items()):
        if gvk not in parsed:
            out.flag(
                ids.CSV_API_WITHOUT_EXAMPLE,
                api_message("provided API should have an example annotation", value=gvk_string(*gvk)),
                csv.loc(owned_path),
                f"add an example {gvk[2]} to the {key} annotation",
                Severity.WARNING,
            )
    return out


def _install_modes(csv: Manifest, bundle: Bundle | None) -> list[Finding]:
    name = csv.name
    spec = csv.spec
    modes = [as_map(m) for m in as_list(spec.get("installModes"))]
    hint = "declare spec.installModes (releasekit bundles support AllNamespaces only)"
    if not modes:
        return [
            finding(
                ids.CSV_INSTALL_MODES,
                csv_message("install modes not found", name),
                csv.loc("$.spec.installModes" if "installModes" in spec else "$.spec"),
                hint,
                bundle,
            )
        ]
    out = BundleFindings(bundle)
    webhooks = as_list(spec.get("webhookdefinitions"))
    supported = {as_str(m.get("type")): m.get("supported") is True for m in modes}
    all_only = supported.get("AllNamespaces", False) and not any(
        v for k, v in supported.items() if k != "AllNamespaces"
    )
    for index, webhook in enumerate(webhooks):
        if as_list(as_map(webhook).get("conversionCRDs")) and not all_only:
            out.flag(
                ids.CSV_INSTALL_MODES,
                csv_message(
                    "only AllNamespaces InstallModeType is supported when conversionCRDs is present", name
                ),
                csv.loc(f"$.spec.webhookdefinitions[{index}]"),
                "support only the AllNamespaces install mode, or drop the conversion webhook",
            )
    if not any(supported.values()):
        out.flag(
            ids.CSV_INSTALL_MODES,
            csv_message("none of InstallModeTypes are supported", name),
            csv.loc("$.spec.installModes"),
            "mark at least one install mode supported: true",
        )
    return out


def _min_kube(csv: Manifest, bundle: Bundle | None) -> list[Finding]:
    value = as_str(csv.spec.get("minKubeVersion")).strip()
    if not value:
        return [
            finding(
                ids.CSV_MIN_KUBE_VERSION,
                csv_message(MIN_KUBE_NOT_INFORMED, csv.name),
                csv.loc("$.spec"),
                "set spec.minKubeVersion, e.g. 1.28.0",
                bundle,
                severity=Severity.WARNING,
            )
        ]
    if parse_semver(value) is None:
        return [
            finding(
                ids.CSV_MIN_KUBE_VERSION,
                csv_message(f"csv.Spec.MinKubeVersion has an invalid value: {value}", csv.name),
                csv.loc("$.spec.minKubeVersion"),
                "write spec.minKubeVersion as full semver, e.g. 1.28.0",
                bundle,
            )
        ]
    return []


def _required(csv: Manifest, bundle: Bundle | None) -> list[Finding]:
    """The required-field walk of api's ``checkEmptyFields`` for the fields that have no ``omitempty``."""
    missing: list[tuple[str, str, str]] = []
    data = csv.data
    if not csv.metadata:
        missing.append(("ObjectMeta", "$.metadata", "metadata"))
    spec = data.get("spec")
    if not isinstance(spec, Mapping) or not spec:
        missing.append(("Spec", "$.spec", "spec"))
    else:
        install = as_map(spec.get("install"))
        if not install:
            missing.append(("Spec.InstallStrategy", "$.spec.install", "spec.install"))
        else:
            if not as_str(install.get("strategy")):
                missing.append(
                    ("Spec.InstallStrategy.StrategyName", "$.spec.install", "spec.install.strategy")
                )
            install_spec = as_map(install.get("spec"))
            if (
                install_spec
                and not as_list(install_spec.get("deployments"))
                and install_spec.get("deployments") is None
            ):
                missing.append(
                    (
                        "Spec.InstallStrategy.StrategySpec.DeploymentSpecs",
                        "$.spec.install.spec",
                        "spec.install.spec.deployments",
                    )
                )
        if not as_str(spec.get("displayName")):
            missing.append(("Spec.DisplayName", "$.spec", "spec.displayName"))
    return [
        finding(
            ids.CSV_REQUIRED_FIELD,
            api_message("required field missing", field=go_path, value=yaml_path.rpartition(".")[2]),
            csv.loc(path),
            f"set {yaml_path}",
            bundle,
        )
        for go_path, path, yaml_path in missing
    ]


def check_annotation_case(manifest: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """OLM annotations written in the wrong case (api ``annotations.go``); used for CSVs and OperatorGroups."""
    out = BundleFindings(bundle)
    for key in manifest.annotations:
        key_text = str(key)
        for want in CASE_SENSITIVE_ANNOTATIONS:
            if key_text != want and key_text.lower() == want.lower():
                out.flag(
                    ids.ANNOTATION_CASE,
                    api_message(
                        f"provided annotation {key_text} uses wrong case and should be {want} instead",
                        value=manifest.name,
                    ),
                    manifest.loc(f"$.metadata.annotations[{key_text!r}]"),
                    f"rename the annotation to {want}; OLM reads annotation names case-sensitively",
                )
    return out


def validate_csv_manifest(csv: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """Every CSV-validator rule for one CSV."""
    name = csv.name
    out = BundleFindings(bundle)
    problems = name_violations(name)
    if problems:
        out.flag(
            ids.CSV_NAME,
            csv_message(f'metadata.name "{name}" is invalid: {",".join(problems)}', name),
            csv.loc("$.metadata.name"),
            "name the CSV <package>.v<version>, lower case, at most 63 characters",
        )
    replaces = as_str(csv.spec.get("replaces"))
    if replaces:
        problems = name_violations(replaces)
        if problems:
            out.flag(
                ids.CSV_NAME,
                csv_message(f'spec.replaces "{replaces}" is invalid: {",".join(problems)}', name),
                csv.loc("$.spec.replaces"),
                "spec.replaces must name an existing CSV (<package>.v<version>)",
            )
    out += _examples(csv, bundle)
    out += _install_modes(csv, bundle)
    out += _required(csv, bundle)
    out += _min_kube(csv, bundle)
    out += check_annotation_case(csv, bundle)
    if "olm.properties" in csv.annotations:
        out.flag(
            ids.CSV_OLM_PROPERTIES,
            api_message(
                "found olm.properties annotation, please define these properties in metadata/properties.yaml instead",
                value=name,
            ),
            csv.loc("$.metadata.annotations['olm.properties']"),
            "move the properties to metadata/properties.yaml",
            Severity.WARNING,
        )
    for key in ("apiVersion", "kind"):
        if not as_str(csv.data.get(key)):
            out.flag(
                ids.CSV_TYPE_META,
                csv_message(f"'{key}' is missing", name),
                csv.loc("$"),
                f"set {key} (operators.coreos.com/v1alpha1, ClusterServiceVersion)",
            )
    return out


def validate_csv(bundle: Bundle) -> list[Finding]:
    """The CSV validator over every CSV of the bundle."""
    out: list[Finding] = []
    for csv in (bundle.csv, *bundle.extra_csvs):
        if csv is not None:
            out += validate_csv_manifest(csv, bundle)
    return out
