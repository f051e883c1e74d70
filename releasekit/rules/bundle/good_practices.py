"""``good-practices`` (api ``internal/good_practices.go``): advice that is a warning, bar one error.

Pure. Rules RK-BUNDLE-060 … 065.
"""

from __future__ import annotations

import re

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Finding, Severity
from releasekit.model.operator import pod_specs
from releasekit.rules.bundle._common import (
    BundleFindings,
    api_message,
    as_list,
    as_map,
    as_str,
    crd_descriptions,
    go_quote_list,
    parse_semver,
    permission_rules,
)

__all__ = ["CHANNEL_PREFIXES", "validate_good_practices"]

CHANNEL_PREFIXES = ("candidate", "stable", "fast")

_REQUESTS_DETAIL = (
    "unable to find the resource requests for the container: ({name}). It is recommended to ensure the "
    "resource request for CPU and Memory. Be aware that for some clusters configurations it is required to "
    "specify requests or limits for those values. Otherwise, the system or quota may reject Pod creation. "
    "More info: https://master.sdk.operatorframework.io/docs/best-practices/managing-resources/"
)
_CRD_PERMISSION_DETAIL = (
    "CSV contains permissions to create CRD. An Operator shouldn't deploy or manage other operators (such "
    "patterns are known as meta or super operators or include CRDs in its Operands). It's the Operator "
    "Lifecycle Manager's job to manage the deployment and lifecycle of operators.  Please, review the design "
    "of your solution and if you should not be using Dependency Resolution from OLM instead. More info: "
    "https://sdk.operatorframework.io/docs/best-practices/common-recommendation/"
)
_NAME_VERSION = re.compile(r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$")
_ANY = ("*", "[*]")


def validate_good_practices(bundle: Bundle) -> list[Finding]:
    """Every good-practices rule for the bundle's CSV."""
    csv = bundle.csv
    if csv is None:
        return []
    name = csv.name
    out = BundleFindings(bundle)
    if as_map(as_map(csv.spec.get("install")).get("spec")).get("deployments") is None:
        message = api_message("unable to find a deployment to install in the CSV", value=name)
        out.flag(
            ids.GP_NO_DEPLOYMENT, message, csv.loc("$.spec.install"), "add spec.install.spec.deployments"
        )
    for pod_path, pod in pod_specs(csv.data):
        for index, container in enumerate(as_list(pod.get("containers"))):
            if as_map(as_map(container).get("resources")).get("requests") is None:
                message = api_message(
                    _REQUESTS_DETAIL.format(name=as_str(as_map(container).get("name"))), value=name
                )
                hint = "set resources.requests.cpu and resources.requests.memory on the container"
                out.flag(
                    ids.GP_RESOURCE_REQUESTS,
                    message,
                    csv.loc(f"{pod_path}.containers[{index}].resources"),
                    hint,
                    Severity.WARNING,
                )
    for field in ("owned", "required"):
        for path, description in crd_descriptions(csv, field):
            if not as_str(description.get("description")):
                message = api_message(
                    f'{field} CRD "{as_str(description.get("name"))}" has an empty description',
                    value=name,
                )
                hint = "describe the API in a sentence; the console shows it"
                out.flag(ids.GP_CRD_DESCRIPTION, message, csv.loc(path), hint, Severity.WARNING)
    bad_channels = sorted(c for c in bundle.channels if not c.startswith(CHANNEL_PREFIXES))
    if bad_channels:
        message = api_message(
            f"channel(s) {go_quote_list(bad_channels)} are not following the recommended naming "
            "convention: https://olm.operatorframework.io/docs/best-practices/channel-naming",
            value=name,
        )
        hint = "name channels stable*, fast* or candidate* (e.g. stable-v1.4)"
        out.flag(
            ids.GP_CHANNEL_NAMING,
            message,
            bundle.annotations.loc("$.annotations") if bundle.annotations is not None else csv.loc(),
            hint,
            Severity.WARNING,
        )
    crd_rule = _crd_create_rule(csv)
    if crd_rule is not None:
        message = api_message(_CRD_PERMISSION_DETAIL, value=name)
        hint = "ship the CRDs in the bundle and let OLM install them instead of creating them at run time"
        out.flag(ids.GP_CRD_PERMISSION, message, csv.loc(crd_rule), hint, Severity.WARNING)
    version_match = _NAME_VERSION.search(name)
    for broken, convention, hint in (
        (
            version_match is None or parse_semver(version_match.group(1)) is None,
            "versioning convention (MAJOR.MINOR.PATCH e.g 0.0.1): https://semver.org/",
            "end the CSV name with .vMAJOR.MINOR.PATCH",
        ),
        (
            len(name.split(".v")) != 2,
            "recommended naming convention: <operator-name>.v<semver> e.g. memcached-operator.v0.0.1",
            "name the CSV <operator-name>.v<semver>",
        ),
    ):
        if broken:
            message = api_message(f"csv.metadata.Name {name} is not following the {convention}", value=name)
            out.flag(ids.GP_CSV_NAME, message, csv.loc("$.metadata.name"), hint, Severity.WARNING)
    return out


def _crd_create_rule(csv: Manifest) -> str | None:
    """JSON path of the first (cluster)permission rule that lets the operator create CRDs."""
    for field, i, j, rule in permission_rules(csv):
        resources = [as_str(r) for r in as_list(rule.get("resources"))]
        verbs = [as_str(v) for v in as_list(rule.get("verbs"))]
        if (
            "apiextensions.k8s.io" in [as_str(g) for g in as_list(rule.get("apiGroups"))]
            and any(r in ("customresourcedefinitions", *_ANY) for r in resources)
            and any(v in ("create", "patch", *_ANY) for v in verbs)
        ):
            return f"$.spec.install.spec.{field}[{i}].rules[{j}]"
    return None
