"""The CRD validator: the Kubernetes apiserver's CRD rules that api's ``internal/crd.go`` reports.

Pure. Rule RK-BUNDLE-035. api defaults the CRD, converts it to the internal type and runs
``ValidateCustomResourceDefinition``, dropping every error whose field path mentions
``openAPIV3Schema`` or ``status``; this module ports the remaining rules (names, group, scope,
versions, conversion, top-level vs per-version fields). Messages use the apiserver's field-error
wording (``spec.versions: Invalid value: ...: must contain unique version names``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Finding, Severity
from releasekit.rules.bundle._common import BundleFindings, api_message, as_list, as_map, as_str
from releasekit.rules.bundle._k8s import (
    dns1035_label_errors,
    dns1123_subdomain_errors,
    field_error,
    object_meta_problems,
)

__all__ = [
    "CRD_API_VERSIONS",
    "PROTECTED_GROUP_SUFFIXES",
    "crd_problems",
    "crd_versions",
    "check_served_versions",
    "protected_group",
    "validate_crd",
    "validate_crd_manifest",
]

PROTECTED_GROUP_SUFFIXES = ("k8s.io", "kubernetes.io")
"""Groups (and their sub-domains) whose CRDs need the ``api-approved.kubernetes.io`` annotation."""
_APPROVAL = "api-approved.kubernetes.io"

CRD_API_VERSIONS = ("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1")


_COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
_COLUMN_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")
_REVIEW_VERSIONS = ("v1", "v1beta1")
_SIMPLE_JSON_PATH = "must be a simple json path starting with ."


def _column_problems(path: str, column: dict[str, Any], json_path_key: str) -> list[tuple[str, str]]:
    """``ValidateCustomResourceColumnDefinition`` (the internal field is ``JSONPath`` in both versions)."""
    out: list[tuple[str, str]] = []
    if not as_str(column.get("name")):
        out.append(_required(f"{path}.name"))
    kind = as_str(column.get("type"))
    must = "must be one of " + ",".join(_COLUMN_TYPES)
    if not kind:
        out.append(_required(f"{path}.type", must))
    elif kind not in _COLUMN_TYPES:
        out.append(_invalid(f"{path}.type", kind, must))
    fmt = as_str(column.get("format"))
    if fmt and fmt not in _COLUMN_FORMATS:
        out.append(_invalid(f"{path}.format", fmt, "must be one of " + ",".join(_COLUMN_FORMATS)))
    json_path = as_str(column.get(json_path_key))
    if not json_path:
        out.append(_required(f"{path}.JSONPath"))
    elif not json_path.startswith("."):
        out.append(_invalid(f"{path}.JSONPath", json_path, _SIMPLE_JSON_PATH))
    return out


def _internal_places(
    spec: Any, versions: list[dict[str, Any]], beta: bool, field: str
) -> list[tuple[str, Any]]:
    """(internal path, value) of ``field`` as the internal CRD holds it.

    v1 moves values identical in every version to the top level; v1beta1 keeps both places as written.
    """
    per_version = [v.get(field) for v in versions]
    if beta:
        return [(f"spec.{field}", spec.get(field))] + [
            (f"spec.versions[{i}].{field}", value) for i, value in enumerate(per_version)
        ]
    if per_version and all(value == per_version[0] for value in per_version):
        return [(f"spec.{field}", per_version[0])]
    return [(f"spec.versions[{i}].{field}", value) for i, value in enumerate(per_version)]


def _columns(spec: Any, versions: list[dict[str, Any]], beta: bool) -> list[tuple[str, str]]:
    """Printer columns where the internal CRD has them."""
    key = "JSONPath" if beta else "jsonPath"
    out: list[tuple[str, str]] = []
    for prefix, columns in _internal_places(spec, versions, beta, "additionalPrinterColumns"):
        for index, column in enumerate(as_list(columns)):
            out += _column_problems(f"{prefix}[{index}]", dict(as_map(column)), key)
    return out


def _scale(spec: Any, versions: list[dict[str, Any]], beta: bool) -> list[tuple[str, str]]:
    """``ValidateCustomResourceDefinitionSubresources``: the scale paths (status paths are not reported)."""
    out: list[tuple[str, str]] = []
    for prefix, subresources in _internal_places(spec, versions, beta, "subresources"):
        scale = as_map(subresources).get("scale")
        if not isinstance(scale, dict):
            continue
        for field, under, where in (
            ("specReplicasPath", (".spec.",), ".spec"),
            ("labelSelectorPath", (".spec.", ".status."), "either .spec or .status"),
        ):
            value, path = as_str(scale.get(field)), f"{prefix}.scale.{field}"
            if not value and field == "specReplicasPath":  # the selector path is optional
                out.append(_required(path))
            elif value and not value.startswith("."):
                out.append(_invalid(path, value, _SIMPLE_JSON_PATH))
            elif value and not value.startswith(under):
                out.append(_invalid(path, value, f"should be a json path under {where}"))
    return out


def _review_version_problems(review: list[Any], path: str) -> list[tuple[str, str]]:
    """``validateConversionReviewVersions`` for a webhook conversion."""
    out: list[tuple[str, str]] = []
    if not review:
        return [_required(path)]
    seen: set[str] = set()
    for index, item in enumerate(review):
        version = as_str(item)
        if version in seen:
            out.append(_invalid(f"{path}[{index}]", version, "duplicate version"))
            continue
        seen.add(version)
        for message in dns1035_label_errors(version):
            out.append(_invalid(f"{path}[{index}]", version, message))
    if not seen & set(_REVIEW_VERSIONS):
        out.append(
            _invalid(
                path,
                [as_str(v) for v in review],
                "must include at least one of " + ", ".join(_REVIEW_VERSIONS),
            )
        )
    return out


def _invalid(path: str, value: object, detail: str) -> tuple[str, str]:
    return path, field_error("Invalid value", path, detail, value)


def _required(path: str, detail: str = "") -> tuple[str, str]:
    return path, field_error("Required value", path, detail)


def _forbidden(path: str, detail: str) -> tuple[str, str]:
    return path, field_error("Forbidden", path, detail)


def _unsupported(path: str, value: str, allowed: tuple[str, ...]) -> tuple[str, str]:
    choices = ", ".join(f'"{choice}"' for choice in allowed)
    return path, field_error("Unsupported value", path, f"supported values: {choices}", value)


def protected_group(group: str) -> bool:
    """``k8s.io``, ``kubernetes.io`` and their sub-domains: CRDs there need API approval."""
    return any(group == suffix or group.endswith("." + suffix) for suffix in PROTECTED_GROUP_SUFFIXES)


def crd_versions(crd: Manifest) -> list[str]:
    """Version names a CRD defines (v1beta1's top-level ``version`` when ``versions`` is empty)."""
    return [as_str(version.get("name")) for version in _defaulted_versions(crd)]


def _defaulted_versions(crd: Manifest) -> list[dict[str, Any]]:
    spec = crd.spec
    versions = [dict(as_map(v)) for v in as_list(spec.get("versions"))]
    if crd.api_version.endswith("/v1beta1") and not versions and as_str(spec.get("version")):
        versions = [{"name": as_str(spec.get("version")), "served": True, "storage": True}]
    return versions


def crd_problems(crd: Manifest) -> list[tuple[str, str]]:
    """(field path, apiserver message) for every rule the CRD breaks (schema/status paths excluded)."""
    spec = crd.spec
    beta = crd.api_version.endswith("/v1beta1")
    group = as_str(spec.get("group"))
    versions = _defaulted_versions(crd)
    shown = [
        {"name": as_str(v.get("name")), "served": v.get("served"), "storage": v.get("storage")}
        for v in versions
    ]
    strategy = as_str(as_map(spec.get("conversion")).get("strategy")) or "None"
    # v1beta1 defaults preserveUnknownFields to true, and creating a CRD with true is refused
    preserve = (
        spec.get("preserveUnknownFields") is not False if beta else spec.get("preserveUnknownFields") is True
    )
    problems = [
        *_crd_metadata_problems(crd, f"{as_str(as_map(spec.get('names')).get('plural'))}.{group}"),
        *_group_problems(group),
        *_scope_problems(spec, beta),
        *_names_problems(as_map(spec.get("names"))),
        *_version_problems(spec, versions, shown, beta),
        *(_per_version_exclusive_problems(spec, versions, shown) if beta else []),
        *_conversion_problems(spec, strategy, beta),
        *_columns(spec, versions, beta),
        *_scale(spec, versions, beta),
        *_deprecation_warning_problems(versions),
    ]
    if preserve and strategy != "None":
        detail = "must be None if spec.preserveUnknownFields is true"
        problems.append(_invalid("spec.conversion.strategy", strategy, detail))
    problems += _approval_problems(crd, group)
    if preserve:
        detail = "set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"
        problems.append(_invalid("spec.preserveUnknownFields", True, f"cannot set to true, {detail}"))
    return [
        (path, message)
        for path, message in problems
        if "openAPIV3Schema" not in path and "status" not in path
    ]


def _crd_metadata_problems(crd: Manifest, expected_name: str) -> list[tuple[str, str]]:
    """Object metadata, with a name that is a DNS subdomain spelled ``<plural>.<group>``."""
    name_errors = dns1123_subdomain_errors(crd.name) if crd.name else []
    if crd.name != expected_name:
        name_errors.append('must be spec.names.plural+"."+spec.group')
    return [
        (message.partition(": ")[0], message)  # the k8s field path heads each message
        for _, message in object_meta_problems(crd.data.get("metadata"), name_errors=name_errors)
    ]


def _group_problems(group: str) -> list[tuple[str, str]]:
    """``spec.group`` is required, a DNS subdomain, and a domain with at least one dot."""
    if not group:
        return [_required("spec.group")]
    if dns1123_subdomain_errors(group):
        return [_invalid("spec.group", group, ",".join(dns1123_subdomain_errors(group)))]
    if "." not in group:
        return [_invalid("spec.group", group, "should be a domain with at least one dot")]
    return []


def _scope_problems(spec: Any, beta: bool) -> list[tuple[str, str]]:
    """``spec.scope`` is required (v1beta1 defaults it to Namespaced) and Cluster or Namespaced."""
    scope = as_str(spec.get("scope")) or ("Namespaced" if beta else "")
    if not scope:
        return [_required("spec.scope")]
    if scope not in ("Cluster", "Namespaced"):
        return [_unsupported("spec.scope", scope, ("Cluster", "Namespaced"))]
    return []


def _names_problems(names: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``spec.names`` (singular and listKind defaulted from kind): each a DNS-1035 label (kinds in any case)."""
    kind = as_str(names.get("kind"))
    list_kind = as_str(names.get("listKind")) or (kind + "List" if kind else "")
    fields = (
        ("plural", as_str(names.get("plural"))),
        ("singular", as_str(names.get("singular")) or kind.lower()),
        ("kind", kind),
        ("listKind", list_kind),
    )
    problems = [_required(f"spec.names.{field}") for field, value in fields if not value]
    for field, value in fields:
        mixed_case = field in ("kind", "listKind")
        errors = dns1035_label_errors(value.lower() if mixed_case else value) if value else []
        if errors:
            detail = ("may have mixed case, but should otherwise match: " if mixed_case else "") + ",".join(
                errors
            )
            problems.append(_invalid(f"spec.names.{field}", value, detail))
    problems += _label_list_problems("spec.names.shortNames", as_list(names.get("shortNames")))
    if kind and kind == list_kind:
        problems.append(_invalid("spec.names.listKind", list_kind, "kind and listKind may not be the same"))
    return problems + _label_list_problems("spec.names.categories", as_list(names.get("categories")))


def _label_problems(path: str, value: object) -> list[tuple[str, str]]:
    """A value that must be a DNS-1035 label: its errors joined in one problem."""
    errors = dns1035_label_errors(as_str(value))
    return [_invalid(path, value, ",".join(errors))] if errors else []


def _label_list_problems(path: str, items: Sequence[Any]) -> list[tuple[str, str]]:
    """Each item of a list of names (short names, categories) must be a DNS-1035 label."""
    return [
        problem for index, item in enumerate(items) for problem in _label_problems(f"{path}[{index}]", item)
    ]


def _version_problems(
    spec: Any, versions: list[dict[str, Any]], shown: list[dict[str, Any]], beta: bool
) -> list[tuple[str, str]]:
    """The versions: at least one, labels, unique, exactly one storage; v1beta1's ``version`` agrees."""
    problems: list[tuple[str, str]] = []
    version_names = [as_str(v.get("name")) for v in versions]
    one_storage = "must have exactly one version marked as storage version"
    if not versions:
        problems.append(_required("spec.versions", one_storage))
    else:
        for index, name in enumerate(version_names):
            problems += _label_problems(f"spec.versions[{index}].name", name)
        if len(set(version_names)) != len(version_names):
            problems.append(_invalid("spec.versions", shown, "must contain unique version names"))
        if sum(1 for v in versions if v.get("storage") is True) != 1:
            problems.append(_invalid("spec.versions", shown, one_storage))
    top = as_str(spec.get("version")) if beta else ""
    problems += _label_problems("spec.version", top) if top else []
    if top and version_names and version_names[0] != top:
        detail = "must match the first version in spec.versions"
        problems.append(_invalid("spec.version", spec.get("version"), detail))
    return problems


def _per_version_exclusive_problems(
    spec: Any, versions: list[dict[str, Any]], shown: list[dict[str, Any]]
) -> list[tuple[str, str]]:
    """v1beta1: a schema, subresources or columns at the top level or per version, not both, not all equal."""
    problems: list[tuple[str, str]] = []
    for top_field, per_version, what in (
        ("validation", "schema", "schemas"),
        ("subresources", "subresources", "subresources"),
        ("additionalPrinterColumns", "additionalPrinterColumns", "additionalPrinterColumns"),
    ):
        present = [v.get(per_version) for v in versions]
        top_value = spec.get(top_field)
        top_set = bool(top_value) if top_field == "additionalPrinterColumns" else top_value is not None
        if top_set and any(item is not None for item in present):
            detail = f"top-level and per-version {what} are mutually exclusive"
            problems.append(_forbidden(f"spec.{top_field}", detail))
        if present and all(item is not None and item == present[0] for item in present):
            instead = f"(top-level {top_field} should be used instead)"
            detail = f"per-version {what} may not all be set to identical values {instead}"
            problems.append(_invalid("spec.versions", shown, detail))
    return problems


def _conversion_problems(spec: Any, strategy: str, beta: bool) -> list[tuple[str, str]]:
    """``spec.conversion``: a known strategy; a client config and review versions only for Webhook."""
    problems: list[tuple[str, str]] = []
    conversion = as_map(spec.get("conversion"))
    if strategy not in ("None", "Webhook"):
        problems.append(_unsupported("spec.conversion.strategy", strategy, ("None", "Webhook")))
    if beta:
        client_config = conversion.get("webhookClientConfig")
        review = as_list(conversion.get("conversionReviewVersions")) or (
            ["v1beta1"] if strategy == "Webhook" else []
        )
    else:
        webhook = as_map(conversion.get("webhook"))
        client_config = webhook.get("clientConfig")
        review = as_list(webhook.get("conversionReviewVersions"))
    if strategy == "Webhook":
        return problems + _webhook_problems(client_config, list(review))
    not_webhook = "should not be set when strategy is not set to Webhook"
    if client_config is not None:
        problems.append(_forbidden("spec.conversion.webhookClientConfig", not_webhook))
    if review:
        problems.append(_forbidden("spec.conversion.conversionReviewVersions", not_webhook))
    return problems


def _webhook_problems(client_config: object, review: list[Any]) -> list[tuple[str, str]]:
    """A Webhook conversion needs a client config with exactly one of url or service, and review versions."""
    problems: list[tuple[str, str]] = []
    if client_config is None:
        problems.append(
            _required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook")
        )
    else:
        config = as_map(client_config)
        if (config.get("url") is None) == (config.get("service") is None):
            problems.append(
                _required("spec.conversion.webhookClientConfig", "exactly one of url or service is required")
            )
    return problems + _review_version_problems(review, "spec.conversion.conversionReviewVersions")


def _deprecation_warning_problems(versions: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """A ``deprecationWarning`` only on a deprecated version, not empty, at most 256 characters."""
    problems: list[tuple[str, str]] = []
    for index, version in enumerate(versions):
        warning = version.get("deprecationWarning")
        if warning is None:
            continue
        path = f"spec.versions[{index}].deprecationWarning"
        if version.get("deprecated") is not True:
            problems.append(_invalid(path, warning, "can only be set for deprecated versions"))
        elif isinstance(warning, str) and len(warning) > 256:
            problems.append(_invalid(path, warning, "must be <= 256 characters long"))
        elif warning == "":
            problems.append(_invalid(path, warning, "must not be an empty string"))
    return problems


def _approval_problems(crd: Manifest, group: str) -> list[tuple[str, str]]:
    """A CRD of a protected group needs the API approval annotation: a URL or a reason ``unapproved...``."""
    if not protected_group(group):
        return []
    approval = as_str(crd.annotations.get(_APPROVAL))
    path, must = (
        f"metadata.annotations[{_APPROVAL}]",
        f'protected groups must have approval annotation "{_APPROVAL}"',
    )
    see = "see https://github.com/kubernetes/enhancements/pull/1111"
    if not approval:
        return [_required(path, f"{must}, {see}")]
    if not approval.startswith(("unapproved", "http://", "https://")):
        return [
            _invalid(
                path, approval, f'{must} with either a URL or a reason starting with "unapproved", {see}'
            )
        ]
    return []


def _json_path(k8s_path: str) -> str:
    path = "$." + k8s_path
    return path.replace("spec.conversion.conversionReviewVersions", "spec.conversion").replace(
        "spec.conversion.webhookClientConfig", "spec.conversion"
    )


def validate_crd_manifest(crd: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """The CRD validator for one CRD (skipped for apiVersions the loader already rejects)."""
    out = BundleFindings(bundle)
    hint = "fix the CustomResourceDefinition; the API server would reject it as it is"
    for path, message in crd_problems(crd) if crd.api_version in CRD_API_VERSIONS else []:
        out.flag(
            ids.CRD_INVALID, api_message(message, field=path, value=crd.name), crd.loc(_json_path(path)), hint
        )
    return out


def check_served_versions(crd: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """RK-BUNDLE-125 (ours, a warning): no version of the CRD is served, so no client can use its API."""
    versions = _defaulted_versions(crd)
    out = BundleFindings(bundle)
    if (
        crd.api_version in CRD_API_VERSIONS
        and versions
        and not any(v.get("served") is True for v in versions)
    ):
        message = (
            f'CRD "{crd.name}" serves none of its versions ({", ".join(crd_versions(crd))}): the API server '
            "accepts it, but no client can read or write its objects"
        )
        hint = "set served: true on the version(s) clients use"
        out.flag(ids.CRD_NO_SERVED_VERSION, message, crd.loc("$.spec.versions"), hint, Severity.WARNING)
    return out


def validate_crd(bundle: Bundle) -> list[Finding]:
    """The CRD validator over every CRD of the bundle, and the served-versions warning."""
    out: list[Finding] = []
    for crd in bundle.crds:
        out += validate_crd_manifest(crd, bundle)
        out += check_served_versions(crd, bundle)
    return out
