"""``alpha-deprecated-apis``: Kubernetes APIs removed in 1.22, 1.25 and 1.26 (api ``internal/removed_apis.go``).

Pure. Rules RK-BUNDLE-080 (use of a removed API) and 081 (unusable ``k8s-version`` /
``minKubeVersion``). A removal is an error when the ``k8s-version`` option or the CSV's
``minKubeVersion`` is at or past the removing release, else a warning. We follow api HEAD: the 1.25
RBAC check warns only for ``policy/podsecuritypolicies``. Kinds in a message are sorted (upstream
iterates a Go map); upstream's trailing comma after every entry of a multi-kind list is kept.
"""

from __future__ import annotations

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, Manifest, ValidationOptions
from releasekit.model.finding import Finding, Location, Severity
from releasekit.rules.bundle._common import (
    BundleFindings,
    api_message,
    as_list,
    as_map,
    as_str,
    crd_descriptions,
    go_quote_list,
    parse_tolerant,
    permission_rules,
)

__all__ = ["removed_api_message", "removed_objects", "validate_removed_apis"]

_REMOVED: dict[int, dict[str, frozenset[str]]] = {
    22: {
        "scheduling.k8s.io/v1beta1": frozenset({"PriorityClass"}),
        "rbac.authorization.k8s.io/v1beta1": frozenset(
            {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}
        ),
        "apiregistration.k8s.io/v1beta1": frozenset({"APIService"}),
        "authentication.k8s.io/v1beta1": frozenset({"TokenReview"}),
        "authorization.k8s.io/v1beta1": frozenset(
            {"LocalSubjectAccessReview", "SelfSubjectAccessReview", "SubjectAccessReview"}
        ),
        "admissionregistration.k8s.io/v1beta1": frozenset(
            {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}
        ),
        "coordination.k8s.io/v1beta1": frozenset({"Lease"}),
        "extensions/v1beta1": frozenset({"Ingress"}),
        "networking.k8s.io/v1beta1": frozenset({"Ingress", "IngressClass"}),
        "storage.k8s.io/v1beta1": frozenset({"CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"}),
        "certificates.k8s.io/v1beta1": frozenset({"CertificateSigningRequest"}),
    },
    25: {
        "batch/v1beta1": frozenset({"CronJob"}),
        "discovery.k8s.io/v1beta1": frozenset({"EndpointSlice"}),
        "events.k8s.io/v1beta1": frozenset({"Event"}),
        "autoscaling/v2beta1": frozenset({"HorizontalPodAutoscaler"}),
        "policy/v1beta1": frozenset({"PodDisruptionBudget", "PodSecurityPolicy"}),
        "node.k8s.io/v1beta1": frozenset({"RuntimeClass"}),
    },
    26: {"autoscaling/v2beta2": frozenset({"HorizontalPodAutoscaler"})},
}
"""Kubernetes minor -> apiVersion -> kinds that release removed (1.22 also removed v1beta1 CRDs)."""
_WARN_RESOURCES_1_25 = frozenset({("policy", "podsecuritypolicies")})

Found = dict[str, list[str]]


def removed_objects(bundle: Bundle, minor: int) -> tuple[Found, dict[str, Manifest]]:
    """(kind -> names, kind -> first manifest) of objects using APIs removed in 1.<minor> (v1beta1 CRDs: ``CRD``)."""
    removed = [(o.kind, o) for o in bundle.objects if o.kind in _REMOVED[minor].get(o.api_version, ())]
    if minor == 22:
        removed = [
            ("CRD", c) for c in bundle.crds if c.api_version == "apiextensions.k8s.io/v1beta1"
        ] + removed
    found: Found = {}
    where: dict[str, Manifest] = {}
    for key, manifest in removed:
        found.setdefault(key, []).append(manifest.name)
        where.setdefault(key, manifest)
    return found, where


def _removed_rbac_1_25(csv: Manifest) -> Found:
    """Resource -> CSV permission rules on resources 1.25 removed that no CRD of the CSV provides."""
    provided = {
        as_str(as_map(resource).get("kind")).lower() + "s"
        for field in ("owned", "required")
        for _, description in crd_descriptions(csv, field)
        for resource in as_list(description.get("resources"))
    }
    found: Found = {}
    for field, i, j, rule in permission_rules(csv):
        for group in as_list(rule.get("apiGroups")):
            for resource in as_list(rule.get("resources")):
                if resource not in provided and (as_str(group), as_str(resource)) in _WARN_RESOURCES_1_25:
                    go_field = field[0].upper() + field[1:]
                    label = (
                        f"ClusterServiceVersion.Spec.InstallStrategy.StrategySpec.{go_field}[{i}].Rules[{j}]"
                    )
                    found.setdefault(as_str(resource), []).append(label)
    return found


def removed_api_message(minor: int, found: Found) -> str:
    """Operator-framework/api's message for one Kubernetes release: kinds sorted, upstream's trailing commas kept."""
    parts = [f"{key}: ({go_quote_list(found[key])})" for key in sorted(found)]
    listing = parts[0] if len(parts) == 1 else "".join(f"{part}," for part in parts)
    return (
        f"this bundle is using APIs which were deprecated and removed in v1.{minor}. More info: "
        f"https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-{minor}. "
        f"Migrate the API(s) for {listing}"
    )


def validate_removed_apis(bundle: Bundle, options: ValidationOptions) -> list[Finding]:
    """Removed-API findings for 1.22, 1.25 and 1.26, with the severity api gives them."""
    csv = bundle.csv
    if csv is None:
        return []
    name = csv.name
    out = BundleFindings(bundle)
    provided = parse_tolerant(options.k8s_version) if options.k8s_version else None
    if options.k8s_version and provided is None:
        detail = f"invalid value informed via the k8s key option : {options.k8s_version}"
        hint = "give the Kubernetes version as X.Y, e.g. --k8s-version 1.31"
        message = api_message(detail, value=name)
        out.flag(ids.REMOVED_API_VERSION_INPUT, message, Location(file=bundle.root), hint)
    min_kube_text = as_str(csv.spec.get("minKubeVersion")).strip()
    min_kube = parse_tolerant(min_kube_text) if min_kube_text else None
    if min_kube_text and min_kube is None:
        message = api_message(
            "unable to use csv.Spec.MinKubeVersion to verify the CRD/Webhook apis because it has an "
            f"invalid value: {min_kube_text}",
            value=name,
        )
        hint = "write spec.minKubeVersion as semver, e.g. 1.28.0"
        out.flag(ids.REMOVED_API_VERSION_INPUT, message, csv.loc("$.spec.minKubeVersion"), hint)
    hint = "move to the API version that replaces it (see the Kubernetes deprecation guide linked above)"
    for minor in (22, 25, 26):
        unsupported = any(v is not None and v >= (1, minor, 0) for v in (provided, min_kube))
        found, where = removed_objects(bundle, minor)
        # the 1.25 permission rules on removed resources are a warning whatever the version
        for items, severity in (
            (found, Severity.ERROR if unsupported else Severity.WARNING),
            (_removed_rbac_1_25(csv) if minor == 25 else {}, Severity.WARNING),
        ):
            if items:
                first = where.get(sorted(items)[0], csv)
                message = api_message(removed_api_message(minor, items), value=name)
                out.flag(ids.REMOVED_API, message, first.loc("$.apiVersion"), hint, severity)
    return out
