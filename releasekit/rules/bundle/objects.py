"""The object validator (api ``internal/object.go``) and the OperatorGroup validator.

Pure. Rules RK-BUNDLE-070 … 073 for PodDisruptionBudgets, PriorityClasses and RBAC in standalone
Role/ClusterRole manifests, and RK-BUNDLE-028 (annotation case) for OperatorGroups.
"""

from __future__ import annotations

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Finding, Severity
from releasekit.rules.bundle._common import BundleFindings, api_message, as_list, as_map, as_str
from releasekit.rules.bundle.csv import check_annotation_case

__all__ = ["DEFAULT_SCCS", "validate_object_manifest", "validate_objects", "validate_operator_groups"]

DEFAULT_SCCS = frozenset(
    {
        "privileged",
        "restricted",
        "anyuid",
        "hostaccess",
        "hostmount-anyuid",
        "hostnetwork",
        "node-exporter",
        "nonroot",
    }
)

_OPERATOR_GROUP_VERSIONS = ("operators.coreos.com/v1", "operators.coreos.com/v1alpha2")


def _pdb(obj: Manifest, bundle: Bundle | None) -> list[Finding]:
    spec = obj.spec
    out = BundleFindings(bundle)
    max_unavailable = spec.get("maxUnavailable")
    # upstream reads IntVal, which is 0 for every string, so it also refuses "50%"; we refuse only zero
    if not isinstance(max_unavailable, bool | None) and str(max_unavailable).strip() in ("0", "0%"):
        message = api_message("maxUnavailable field cannot be set to 0 or 0%", value=obj.name)
        hint = "allow at least one pod to be unavailable, or OLM cannot drain nodes during upgrades"
        out.flag(ids.OBJ_PDB, message, obj.loc("$.spec.maxUnavailable"), hint)
    if as_str(spec.get("minAvailable")) == "100%":
        message = api_message("minAvailable field cannot be set to 100%", value=obj.name)
        hint = "require fewer than all pods, or nodes can never be drained"
        out.flag(ids.OBJ_PDB, message, obj.loc("$.spec.minAvailable"), hint)
    return out


def _rbac(obj: Manifest, bundle: Bundle | None) -> list[Finding]:
    out = BundleFindings(bundle)
    for index, rule in enumerate(as_list(obj.data.get("rules"))):
        rule = as_map(rule)
        groups = {as_str(g) for g in as_list(rule.get("apiGroups"))}
        resources = {as_str(r) for r in as_list(rule.get("resources"))}
        verbs = {as_str(v) for v in as_list(rule.get("verbs"))}
        names = {as_str(n) for n in as_list(rule.get("resourceNames"))}
        path, risk = f"$.rules[{index}]", "which could impact cluster stability"
        if (
            "policy" in groups
            and "poddisruptionbudgets" in resources
            and verbs & {"*", "create", "update", "patch"}
        ):
            detail = f"RBAC includes permission to create/update poddisruptionbudgets, {risk}"
            hint = "avoid granting write access to PodDisruptionBudgets"
            out.flag(
                ids.OBJ_RBAC_PDB, api_message(detail, value=obj.name), obj.loc(path), hint, Severity.WARNING
            )
        if (
            "security.openshift.io" in groups
            and "securitycontextconstraints" in resources
            and verbs & {"*", "delete", "update", "patch"}
            and names & DEFAULT_SCCS
        ):
            detail = f"RBAC includes permission to modify default securitycontextconstraints, {risk}"
            hint = "never modify the default SCCs; create a dedicated SCC instead"
            out.flag(ids.OBJ_RBAC_SCC, api_message(detail, value=obj.name), obj.loc(path), hint)
    return out


def validate_object_manifest(obj: Manifest, bundle: Bundle | None = None) -> list[Finding]:
    """Object-validator rules for one object (acts by kind only, as upstream)."""
    if obj.kind == "PodDisruptionBudget":
        return _pdb(obj, bundle)
    if obj.kind in ("Role", "ClusterRole"):
        return _rbac(obj, bundle)
    out = BundleFindings(bundle)
    if obj.kind == "PriorityClass" and obj.data.get("globalDefault") is True:
        message = api_message("globalDefault field cannot be set to true", value=obj.name)
        hint = "a bundle must not change the cluster's default priority; set globalDefault: false"
        out.flag(ids.OBJ_PRIORITY_CLASS, message, obj.loc("$.globalDefault"), hint)
    return out


def validate_objects(bundle: Bundle) -> list[Finding]:
    """The object validator over every non-CSV, non-CRD object."""
    out: list[Finding] = []
    for obj in bundle.objects:
        out += validate_object_manifest(obj, bundle)
    return out


def validate_operator_groups(bundle: Bundle) -> list[Finding]:
    """The OperatorGroup validator: OLM annotation names in the right case on v1/v1alpha2 OperatorGroups."""
    out: list[Finding] = []
    for obj in bundle.objects:
        if obj.kind == "OperatorGroup" and obj.api_version in _OPERATOR_GROUP_VERSIONS:
            out += check_annotation_case(obj, bundle)
    return out
