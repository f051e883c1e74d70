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
    go_quote_list,
    parse_tolerant,
)

__all__ = [
    "removed_api_message",
    "removed_apis_1_22",
    "removed_apis_1_25",
    "removed_apis_1_26",
    "validate_removed_apis",
]

_REMOVED_1_22: dict[str, frozenset[str]] = {
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
}
_REMOVED_1_25 = frozenset(
    {
        ("batch/v1beta1", "CronJob"),
        ("discovery.k8s.io/v1beta1", "EndpointSlice"),
        ("events.k8s.io/v1beta1", "Event"),
        ("autoscaling/v2beta1", "HorizontalPodAutoscaler"),
        ("policy/v1beta1", "PodDisruptionBudget"),
        ("policy/v1beta1", "PodSecurityPolicy"),
        ("node.k8s.io/v1beta1", "RuntimeClass"),
    }
)
_WARN_RESOURCES_1_25 = frozenset({("policy", "podsecuritypolicies")})
_REMOVED_1_26 = frozenset({("autoscaling/v2beta2", "HorizontalPodAutoscaler")})

Found = dict[str, list[str]]


def _add(found: Found, where: dict[str, Manifest], key: str, name: str, manifest: Manifest) -> None:
    found.setdefault(key, []).append(name)
    where.setdefault(key, manifest)


def removed_apis_1_22(bundle: Bundle) -> tuple[Found, dict[str, Manifest]]:
    """Kind -> names of objects using APIs removed in 1.22 (v1beta1 CRDs under the key ``CRD``)."""
    found: Found = {}
    where: dict[str, Manifest] = {}
    for crd in bundle.crds:
        if crd.api_version == "apiextensions.k8s.io/v1beta1":
            _add(found, where, "CRD", crd.name, crd)
    for obj in bundle.objects:
        if obj.kind in _REMOVED_1_22.get(obj.api_version, frozenset()):
            _add(found, where, obj.kind, obj.name, obj)
    return found, where


def removed_apis_1_25(bundle: Bundle) -> tuple[Found, Found, dict[str, Manifest]]:
    """(objects removed in 1.25, CSV permission rules on removed resources, where) for 1.25."""
    found: Found = {}
    warn: Found = {}
    where: dict[str, Manifest] = {}
    for obj in bundle.objects:
        if (obj.api_version, obj.kind) in _REMOVED_1_25:
            _add(found, where, obj.kind, obj.name, obj)
    csv = bundle.csv
    if csv is not None:
        resources_in_crds: set[str] = set()
        descriptions = as_map(csv.spec.get("customresourcedefinitions"))
        for field in ("owned", "required"):
            for desc in as_list(descriptions.get(field)):
                for res in as_list(as_map(desc).get("resources")):
                    resources_in_crds.add(as_str(as_map(res).get("kind")).lower() + "s")
        install_spec = as_map(as_map(csv.spec.get("install")).get("spec"))
        for go_field, field in (("ClusterPermissions", "clusterPermissions"), ("Permissions", "permissions")):
            for i, perm in enumerate(as_list(install_spec.get(field))):
                for j, rule in enumerate(as_list(as_map(perm).get("rules"))):
                    rule_map = as_map(rule)
                    for group in as_list(rule_map.get("apiGroups")):
                        for res in as_list(rule_map.get("resources")):
                            if (
                                res in resources_in_crds
                                or (as_str(group), as_str(res)) not in _WARN_RESOURCES_1_25
                            ):
                                continue
                            label = f"ClusterServiceVersion.Spec.InstallStrategy.StrategySpec.{go_field}[{i}].Rules[{j}]"
                            _add(warn, where, as_str(res), label, csv)
    return found, warn, where


def removed_apis_1_26(bundle: Bundle) -> tuple[Found, dict[str, Manifest]]:
    """Kind -> names of objects using APIs removed in 1.26."""
    found: Found = {}
    where: dict[str, Manifest] = {}
    for obj in bundle.objects:
        if (obj.api_version, obj.kind) in _REMOVED_1_26:
            _add(found, where, obj.kind, obj.name, obj)
    return found, where


def removed_api_message(minor: int, found: Found) -> str:
    """Operator-framework/api's message for one Kubernetes release: kinds sorted, upstream's trailing commas kept."""
    keys = sorted(found)
    parts = [f"{key}: ({go_quote_list(found[key])})" for key in keys]
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
    provided = None
    if options.k8s_version:
        provided = parse_tolerant(options.k8s_version)
        if provided is None:
            out.flag(
                ids.REMOVED_API_VERSION_INPUT,
                api_message(
                    f"invalid value informed via the k8s key option : {options.k8s_version}", value=name
                ),
                Location(file=bundle.root),
                "give the Kubernetes version as X.Y, e.g. --k8s-version 1.31",
            )
    min_kube_text = as_str(csv.spec.get("minKubeVersion")).strip()
    min_kube = None
    if min_kube_text:
        min_kube = parse_tolerant(min_kube_text)
        if min_kube is None:
            out.flag(
                ids.REMOVED_API_VERSION_INPUT,
                api_message(
                    "unable to use csv.Spec.MinKubeVersion to verify the CRD/Webhook apis because it has an "
                    f"invalid value: {min_kube_text}",
                    value=name,
                ),
                csv.loc("$.spec.minKubeVersion"),
                "write spec.minKubeVersion as semver, e.g. 1.28.0",
            )

    def unsupported(minor: int) -> bool:
        return any(v is not None and v >= (1, minor, 0) for v in (provided, min_kube))

    hint = "move to the API version that replaces it (see the Kubernetes deprecation guide linked above)"

    def emit(minor: int, found: Found, where: dict[str, Manifest], severity: Severity) -> None:
        first = where.get(sorted(found)[0], csv)
        out.flag(
            ids.REMOVED_API,
            api_message(removed_api_message(minor, found), value=name),
            first.loc("$.apiVersion"),
            hint,
            severity,
        )

    found, where = removed_apis_1_22(bundle)
    if found:
        emit(22, found, where, Severity.ERROR if unsupported(22) else Severity.WARNING)
    found, warn, where = removed_apis_1_25(bundle)
    if found:
        emit(25, found, where, Severity.ERROR if unsupported(25) else Severity.WARNING)
    if warn:
        emit(25, warn, where, Severity.WARNING)
    found, where = removed_apis_1_26(bundle)
    if found:
        emit(26, found, where, Severity.ERROR if unsupported(26) else Severity.WARNING)
    return out
