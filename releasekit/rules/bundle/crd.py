"""The CRD validator: the Kubernetes apiserver's CRD rules that api's ``internal/crd.go`` reports.

Pure. Rule RK-BUNDLE-035. api defaults the CRD, converts it to the internal type and runs
``ValidateCustomResourceDefinition``, dropping every error whose field path mentions
``openAPIV3Schema`` or ``status``; this module ports the remaining rules (names, group, scope,
versions, conversion, top-level vs per-version fields). Messages use the apiserver's field-error
wording (``spec.versions: Invalid value: ...: must contain unique version names``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Finding, Severity
from releasekit.rules.bundle._common import api_message, as_list, as_map, as_str, finding

__all__ = ["CRD_API_VERSIONS", "crd_problems", "crd_versions", "validate_crd", "validate_crd_manifest"]

CRD_API_VERSIONS = ("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1")

_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def _go(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    return json.dumps(value, sort_keys=True, default=str)


def _invalid(path: str, value: object, detail: str) -> tuple[str, str]:
    return path, f"{path}: Invalid value: {_go(value)}: {detail}"


def _required(path: str, detail: str = "") -> tuple[str, str]:
    return path, f"{path}: Required value" + (f": {detail}" if detail else "")


def _forbidden(path: str, detail: str) -> tuple[str, str]:
    return path, f"{path}: Forbidden: {detail}"


def _unsupported(path: str, value: object, allowed: list[str]) -> tuple[str, str]:
    choices = ", ".join(json.dumps(a) for a in allowed)
    return path, f"{path}: Unsupported value: {_go(value)}: supported values: {choices}"


def crd_versions(crd: Manifest) -> list[str]:
    """Version names a CRD defines (v1beta1's top-level ``version`` when ``versions`` is empty)."""
    spec = crd.spec
    names = [as_str(as_map(v).get("name")) for v in as_list(spec.get("versions"))]
    if not names and crd.api_version.endswith("/v1beta1") and as_str(spec.get("version")):
        names = [as_str(spec.get("version"))]
    return names


def _defaulted_versions(crd: Manifest) -> list[dict[str, Any]]:
    spec = crd.spec
    versions = [dict(as_map(v)) for v in as_list(spec.get("versions"))]
    if crd.api_version.endswith("/v1beta1") and not versions and as_str(spec.get("version")):
        versions = [{"name": as_str(spec.get("version")), "served": True, "storage": True}]
    return versions


def crd_problems(crd: Manifest) -> list[tuple[str, str]]:
    """(field path, apiserver message) for every rule the CRD breaks (schema/status paths excluded)."""
    problems: list[tuple[str, str]] = []
    spec = crd.spec
    beta = crd.api_version.endswith("/v1beta1")
    group = as_str(spec.get("group"))
    names = as_map(spec.get("names"))
    plural = as_str(names.get("plural"))
    singular = as_str(names.get("singular")) or as_str(names.get("kind")).lower()
    kind = as_str(names.get("kind"))
    list_kind = as_str(names.get("listKind")) or (kind + "List" if kind else "")

    if crd.name != f"{plural}.{group}":
        problems.append(_invalid("metadata.name", crd.name, 'must be spec.names.plural+"."+spec.group'))
    if not group:
        problems.append(_required("spec.group"))
    elif "." not in group:
        problems.append(_invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = as_str(spec.get("scope")) or ("Namespaced" if beta else "")
    if not scope:
        problems.append(_required("spec.scope"))
    elif scope not in ("Cluster", "Namespaced"):
        problems.append(_unsupported("spec.scope", scope, ["Cluster", "Namespaced"]))
    for field, value in (("plural", plural), ("singular", singular)):
        if not value:
            problems.append(_required(f"spec.names.{field}"))
        elif not _DNS1035.match(value):
            problems.append(_invalid(f"spec.names.{field}", value, _DNS1035_MSG))
    for field, value in (("kind", kind), ("listKind", list_kind)):
        if not value:
            problems.append(_required(f"spec.names.{field}"))
        elif not _DNS1035.match(value.lower()):
            problems.append(_invalid(f"spec.names.{field}", value, _DNS1035_MSG))
    if kind and kind == list_kind:
        problems.append(_invalid("spec.names.listKind", list_kind, "kind and listKind may not be the same"))
    for index, short in enumerate(as_list(names.get("shortNames"))):
        if not _DNS1035.match(as_str(short)):
            problems.append(_invalid(f"spec.names.shortNames[{index}]", short, _DNS1035_MSG))

    versions = _defaulted_versions(crd)
    version_names = [as_str(v.get("name")) for v in versions]
    if not versions:
        problems.append(_required("spec.versions", "must have exactly one version marked as storage version"))
    else:
        shown = [
            {"name": as_str(v.get("name")), "served": v.get("served"), "storage": v.get("storage")}
            for v in versions
        ]
        for index, name in enumerate(version_names):
            if not _DNS1035.match(name):
                problems.append(_invalid(f"spec.versions[{index}].name", name, _DNS1035_MSG))
        if len(set(version_names)) != len(version_names):
            problems.append(_invalid("spec.versions", shown, "must contain unique version names"))
        if sum(1 for v in versions if v.get("storage") is True) != 1:
            problems.append(
                _invalid("spec.versions", shown, "must have exactly one version marked as storage version")
            )
        if not any(v.get("served") is True for v in versions):
            problems.append(
                _invalid("spec.versions", shown, "must have at least one version marked as served")
            )
    if (
        beta
        and as_str(spec.get("version"))
        and version_names
        and version_names[0] != as_str(spec.get("version"))
    ):
        problems.append(
            _invalid("spec.version", spec.get("version"), "must match the first version in spec.versions")
        )

    for field in ("subresources", "additionalPrinterColumns", "validation"):
        if beta and spec.get(field) is not None:
            for index, version in enumerate(versions):
                per_version = "schema" if field == "validation" else field
                if version.get(per_version) is not None:
                    problems.append(
                        _forbidden(
                            f"spec.versions[{index}].{per_version}",
                            f"top-level and per-version {field} are mutually exclusive",
                        )
                    )

    conversion = as_map(spec.get("conversion"))
    strategy = as_str(conversion.get("strategy")) or "None"
    if strategy not in ("None", "Webhook"):
        problems.append(_unsupported("spec.conversion.strategy", strategy, ["None", "Webhook"]))
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
        if client_config is None:
            problems.append(
                _required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook")
            )
        if not review:
            problems.append(_required("spec.conversion.conversionReviewVersions"))
    elif client_config is not None:
        problems.append(
            _forbidden(
                "spec.conversion.webhookClientConfig", "should not be set when strategy is not set to Webhook"
            )
        )
    if not beta and spec.get("preserveUnknownFields") is True:
        problems.append(
            _invalid(
                "spec.preserveUnknownFields",
                True,
                "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
                "spec.versions[*].schema instead",
            )
        )
    return [
        (path, message)
        for path, message in problems
        if "openAPIV3Schema" not in path and "status" not in path
    ]


def _json_path(k8s_path: str) -> str:
    path = "$." + k8s_path
    return path.replace("spec.conversion.conversionReviewVersions", "spec.conversion").replace(
        "spec.conversion.webhookClientConfig", "spec.conversion"
    )


def validate_crd_manifest(crd: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """The CRD validator for one CRD (skipped for apiVersions the loader already rejects)."""
    if crd.api_version not in CRD_API_VERSIONS:
        return []
    return [
        finding(
            ids.CRD_INVALID,
            Severity.ERROR,
            api_message(message, field=path, value=crd.name),
            crd.loc(_json_path(path)),
            "fix the CustomResourceDefinition; the API server would reject it as it is",
            bundle,
        )
        for path, message in crd_problems(crd)
    ]


def validate_crd(bundle: Bundle) -> list[Finding]:
    """The CRD validator over every CRD of the bundle."""
    out: list[Finding] = []
    for crd in bundle.crds:
        out += validate_crd_manifest(crd, bundle)
    return out
