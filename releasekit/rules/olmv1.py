"""OLM v1 readiness: what keeps a registry+v1 bundle from installing as a ClusterExtension.

Pure core: rules take a :class:`~releasekit.model.bundle.Bundle` and return findings. OLM v1
(operator-controller) installs registry+v1 bundles only when they support the ``AllNamespaces`` install
mode and declare no dependencies, and it does not provide the OperatorConditions API. ``bundle validate
--optional-checks olmv1`` runs them as errors; ``build``/``bundle build`` run them on a stream's bundles
as warnings, or errors where the stream says ``olmv1: required``.

Rule ids (stable, never renumbered) and titles: :data:`RULES`; RK-OLMV1-005 … 010 are
:func:`check_install_safety`'s (``olmv1 manifests`` refuses a bundle they flag as errors).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from releasekit.model import jsontext
from releasekit.model.bundle import RBAC_FIELDS, Bundle, Manifest, policy_rules_problem
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.operator import pod_specs
from releasekit.rules.bundle._common import BundleFindings, as_list, as_map, as_str, permission_rules

__all__ = [
    "BROAD_RBAC_RULES",
    "DEPENDENCY_PROPERTIES",
    "RBAC_FIELDS",
    "RULES",
    "check_install_namespace",
    "check_install_safety",
    "check_olmv1",
    "namespace_name_problem",
]

RULES: Final = {
    "RK-OLMV1-001": "AllNamespaces install mode not supported",
    "RK-OLMV1-002": "dependency property or required API",
    "RK-OLMV1-003": "dependencies.yaml entry",
    "RK-OLMV1-004": "OperatorConditions API used",
    "RK-OLMV1-005": "an RBAC rule grants every verb on every resource",
    "RK-OLMV1-006": "an RBAC rule grants escalate, bind or impersonate",
    "RK-OLMV1-007": "an RBAC rule grants every non-resource URL",
    "RK-OLMV1-008": "the install namespace is not a valid namespace name",
    "RK-OLMV1-009": "the install namespace is a system namespace",
    "RK-OLMV1-010": "a bundled Role or ClusterRole rule Kubernetes cannot decode",
}

BROAD_RBAC_RULES: Final = frozenset({"RK-OLMV1-005", "RK-OLMV1-006", "RK-OLMV1-007"})
"""What ``olmv1 manifests --allow-broad-rbac`` accepts (as warnings) instead of refusing the bundle."""

DEPENDENCY_PROPERTIES: Final = (
    "olm.gvk.required",
    "olm.package.required",
    "olm.constraint",
    "olm.label.required",
)
_WHY: Final = "OLM v1 (ClusterExtension) installs no bundle with dependencies"


def _install_modes(csv: Manifest, out: BundleFindings, severity: Severity) -> None:
    modes = [as_map(m) for m in as_list(csv.spec.get("installModes"))]
    if not any(as_str(m.get("type")) == "AllNamespaces" and m.get("supported") is True for m in modes):
        out.flag(
            "RK-OLMV1-001",
            f"CSV {csv.name} does not support the AllNamespaces install mode: OLM v1 installs registry+v1 "
            "bundles only in AllNamespaces mode",
            csv.loc("$.spec.installModes"),
            "support AllNamespaces (type: AllNamespaces, supported: true) to be installable by OLM v1",
            severity,
        )


def _properties(items: object) -> list[tuple[int, str]]:
    return [
        (i, as_str(as_map(p).get("type")))
        for i, p in enumerate(as_list(items))
        if as_str(as_map(p).get("type")) in DEPENDENCY_PROPERTIES
    ]


def _dependency_properties(csv: Manifest, bundle: Bundle, out: BundleFindings, severity: Severity) -> None:
    hint = "drop the {} property (OLM v1 resolves no dependencies; document the prerequisite)"
    text = csv.annotations.get("olm.properties")
    try:
        declared = jsontext.loads(text) if isinstance(text, str) else []
    except ValueError:
        declared = []
    for _, kind in _properties(declared):
        out.flag(
            "RK-OLMV1-002",
            f"CSV {csv.name} declares the dependency property {kind} in olm.properties: {_WHY}",
            csv.loc("$.metadata.annotations['olm.properties']"),
            hint.format(kind),
            severity,
        )
    if bundle.properties is not None:
        for index, kind in _properties(bundle.properties.data.get("properties")):
            out.flag(
                "RK-OLMV1-002",
                f"metadata/properties.yaml declares the dependency property {kind}: {_WHY}",
                bundle.properties.loc(f"$.properties[{index}]"),
                hint.format(kind),
                severity,
            )
    for section in ("customresourcedefinitions", "apiservicedefinitions"):
        required = as_list(as_map(csv.spec.get(section)).get("required"))
        for index, item in enumerate(required):
            name = as_str(as_map(item).get("name")) or as_str(as_map(item).get("kind"))
            out.flag(
                "RK-OLMV1-002",
                f"CSV {csv.name} requires API {name} (spec.{section}.required, an olm.gvk.required "
                f"dependency): {_WHY}",
                csv.loc(f"$.spec.{section}.required[{index}]"),
                "drop the required API; install its provider separately and document it",
                severity,
            )


def _dependencies_file(bundle: Bundle, out: BundleFindings, severity: Severity) -> None:
    deps = bundle.dependencies
    if deps is None:
        return
    for index, raw in enumerate(as_list(deps.data.get("dependencies"))):
        kind = as_str(as_map(raw).get("type")) or "?"
        out.flag(
            "RK-OLMV1-003",
            f"metadata/dependencies.yaml declares a dependency of type {kind}: {_WHY}",
            deps.loc(f"$.dependencies[{index}]"),
            "remove the entry (and dependencies.yaml when it is empty); document the prerequisite instead",
            severity,
        )


def _rule_mentions_conditions(rule: object) -> bool:
    item = as_map(rule)
    groups = [as_str(g) for g in as_list(item.get("apiGroups"))]
    resources = [as_str(r) for r in as_list(item.get("resources"))]
    return any(g in ("operators.coreos.com", "*") for g in groups) and any(
        r.split("/")[0] == "operatorconditions" for r in resources
    )


def _csv_conditions(csv: Manifest, add: Callable[[Location, str], None]) -> None:
    """RBAC on operatorconditions and ``OPERATOR_CONDITION_NAME`` in the CSV's install strategy."""
    for section, i, j, rule in permission_rules(csv):
        if _rule_mentions_conditions(rule):
            add(
                csv.loc(f"$.spec.install.spec.{section}[{i}].rules[{j}]"),
                f"CSV {csv.name} grants access to operatorconditions ({section})",
            )
    for path, pod in pod_specs(csv.data):
        for j, container in enumerate(as_list(pod.get("containers"))):
            for k, env in enumerate(as_list(as_map(container).get("env"))):
                if as_str(as_map(env).get("name")) == "OPERATOR_CONDITION_NAME":
                    add(
                        csv.loc(f"{path}.containers[{j}].env[{k}]"),
                        f"CSV {csv.name} deployment reads OPERATOR_CONDITION_NAME",
                    )


def _operator_conditions(
    csv: Manifest | None, bundle: Bundle, out: BundleFindings, severity: Severity
) -> None:

    def add(location: Location, what: str) -> None:
        out.flag(
            "RK-OLMV1-004",
            f"{what}: OLM v1 does not support the OperatorConditions API",
            location,
            "stop relying on OperatorConditions (report upgrade readiness another way)",
            severity,
        )

    if csv is not None:
        _csv_conditions(csv, add)
    for manifest in bundle.objects:
        if manifest.kind == "OperatorCondition":
            add(manifest.loc("$"), f"the bundle ships an OperatorCondition ({manifest.name})")


def check_olmv1(bundle: Bundle, severity: Severity = Severity.ERROR) -> list[Finding]:
    """RK-OLMV1-001…004 over ``bundle``, at ``severity``."""
    out = BundleFindings(bundle)
    csv = bundle.csv
    if csv is not None:
        _install_modes(csv, out, severity)
        _dependency_properties(csv, bundle, out, severity)
    _operator_conditions(csv, bundle, out, severity)
    _dependencies_file(bundle, out, severity)
    return out


# ------------------------------------------------------------------ RBAC and namespaces (005 … 010)

_RBAC: Final = "rbac.authorization.k8s.io"
_ESCALATING: Final = ("escalate", "bind", "impersonate")
_IMPLIED: Final = (
    # verb, the API groups and resources ``*`` verbs grant it on
    ("escalate", frozenset({_RBAC, "*"}), frozenset({"roles", "clusterroles", "*"})),
    ("bind", frozenset({_RBAC, "*"}), frozenset({"roles", "clusterroles", "*"})),
    (
        "impersonate",
        frozenset({"", "authentication.k8s.io", "*"}),
        frozenset({"users", "groups", "serviceaccounts", "uids", "userextras/*", "*"}),
    ),
)
_BROAD: Final = {  # rule id: what the grant lets its holder do, the fix
    "RK-OLMV1-005": (
        "whoever holds it can do anything (cluster-admin in effect)",
        "list the API groups, resources and verbs the operator uses instead of '*'",
    ),
    "RK-OLMV1-006": (
        "whoever holds it can give itself any permission (cluster-admin in effect)",
        "grant escalate/bind only on the roles the operator manages (resourceNames), or ship those roles "
        "in the bundle; impersonate only the accounts it needs",
    ),
    "RK-OLMV1-007": (
        "whoever holds it can reach every API server endpoint outside the resources (/logs, /debug)",
        "list the non-resource URLs the operator reads (such as /metrics, /healthz)",
    ),
}
_INSTALLER: Final = "and the OLM v1 installer must hold it too to grant it"
_LABEL: Final = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?\Z")
_SYSTEM_NAMESPACES: Final = frozenset({"default", "openshift"})


def namespace_name_problem(name: str) -> str | None:
    """Why ``name`` is no Kubernetes namespace name (an RFC 1123 label), or None when it is one."""
    if not name:
        return "it is empty"
    if len(name) > 63:
        return f"it is {len(name)} characters long (at most 63)"
    if _LABEL.match(name) is None:
        return (
            "a namespace name is an RFC 1123 label: lower-case letters, digits and '-', starting and "
            "ending with a letter or digit"
        )
    return None


def _strings(value: object) -> list[str]:
    return [v for v in as_list(value) if isinstance(v, str)]


def _broad_grants(rule: Mapping[str, object]) -> list[tuple[str, str]]:
    """(rule id, what it grants) for each way ``rule`` grants more than any operator should hold."""
    verbs, groups = set(_strings(rule.get("verbs"))), set(_strings(rule.get("apiGroups")))
    resources = set(_strings(rule.get("resources")))
    out: list[tuple[str, str]] = []
    if "*" in verbs and "*" in resources:
        shown = ", ".join(repr(g) for g in sorted(groups)) or "no"
        out.append(("RK-OLMV1-005", f"every verb ('*') on every resource ('*') of API group(s) {shown}"))
    else:
        escalating: list[str] = [v for v in _ESCALATING if v in verbs]
        if "*" in verbs:
            escalating += [
                f"{verb} (through '*')"
                for verb, on_groups, on_resources in _IMPLIED
                if groups & on_groups and resources & on_resources
            ]
        if escalating:
            shown = ", ".join(sorted(resources)) or "no resources"
            out.append(("RK-OLMV1-006", f"{', '.join(escalating)} on {shown}"))
    urls = set(_strings(rule.get("nonResourceURLs")))
    if urls & {"*", "/*"}:
        out.append(("RK-OLMV1-007", "every non-resource URL (nonResourceURLs: ['*'])"))
    return out


def _rule_findings(
    rule: object, where: str, location: Location, out: BundleFindings, severity: Severity
) -> None:
    for rid, what in _broad_grants(as_map(rule)):
        consequence, hint = _BROAD[rid]
        out.flag(
            rid,
            f"{where} grants {what}: {consequence}, {_INSTALLER}",
            location,
            f"{hint}; `olmv1 manifests --allow-broad-rbac` installs it only when a cluster admin "
            "accepts an installer that can do anything",
            severity,
        )


def _bundled_roles(bundle: Bundle, out: BundleFindings, severity: Severity) -> None:
    for manifest in bundle.objects:
        if manifest.kind not in ("ClusterRole", "Role") or manifest.group != _RBAC:
            continue
        rules = manifest.data.get("rules")
        problem = policy_rules_problem(rules, "$.rules")
        if problem is not None:
            path, what = problem
            out.flag(
                "RK-OLMV1-010",
                f"{manifest.kind} {manifest.name}: {what}, which Kubernetes cannot decode; copied into "
                "the installer's role the rule would be dropped or widened",
                manifest.loc(path),
                "write every rule field as a list of strings (resourceNames: [one-secret])",
                severity,
            )
            continue
        for index, rule in enumerate(as_list(rules)):
            where = f"{manifest.kind} {manifest.name} rules[{index}]"
            _rule_findings(rule, where, manifest.loc(f"$.rules[{index}]"), out, severity)


def _csv_rules(csv: Manifest, out: BundleFindings, severity: Severity) -> None:
    install = as_map(as_map(csv.spec.get("install")).get("spec"))
    for section in ("clusterPermissions", "permissions"):
        for i, perm in enumerate(as_list(install.get(section))):
            account = as_str(as_map(perm).get("serviceAccountName")) or "?"
            for j, rule in enumerate(as_list(as_map(perm).get("rules"))):
                where = f"CSV {csv.name} {section}[{i}] (service account {account}) rules[{j}]"
                location = csv.loc(f"$.spec.install.spec.{section}[{i}].rules[{j}]")
                _rule_findings(rule, where, location, out, severity)


def check_install_namespace(
    namespace: str,
    location: Location,
    what: str,
    bundle: Bundle | None,
    severity: Severity,
    system_severity: Severity = Severity.WARNING,
) -> list[Finding]:
    """RK-OLMV1-008 (at ``severity``) or 009 (at ``system_severity``) for an install namespace.

    ``what`` says where the namespace comes from (``the suggested namespace``, ``--namespace``).
    ``openshift-*`` is allowed: Red Hat's operators install into ``openshift-<operator>`` by convention.
    """
    out = BundleFindings(bundle)
    problem = namespace_name_problem(namespace)
    if problem is not None:
        out.flag(
            "RK-OLMV1-008",
            f"{what} {namespace!r} is not a valid namespace name: {problem}",
            location,
            "use a namespace name such as the package's (widget-operator); `olmv1 manifests --namespace N` "
            "chooses another",
            severity,
        )
    elif namespace in _SYSTEM_NAMESPACES or namespace.startswith("kube-"):
        out.flag(
            "RK-OLMV1-009",
            f"{what} {namespace!r} is a namespace Kubernetes or OpenShift keeps for itself: the operator "
            "and an installer allowed to create Deployments, Roles and RoleBindings there would sit beside "
            "the control plane's own accounts and secrets",
            location,
            "install into the operator's own namespace (openshift-<operator> or <operator>-system)",
            system_severity,
        )
    return out


def check_install_safety(bundle: Bundle, severity: Severity = Severity.ERROR) -> list[Finding]:
    """RK-OLMV1-005 … 010 over ``bundle``: broad RBAC, undecodable bundled roles, the suggested namespace.

    All at ``severity`` but 009 (a system namespace suggested), always a warning: the bundle only suggests
    it, and ``olmv1 manifests`` refuses to install there.
    """
    out = BundleFindings(bundle)
    csv = bundle.csv
    if csv is not None:
        _csv_rules(csv, out, severity)
    _bundled_roles(bundle, out, severity)
    if csv is not None:
        suggested = csv.annotations.get("operatorframework.io/suggested-namespace")
        if isinstance(suggested, str):
            location = csv.loc("$.metadata.annotations['operatorframework.io/suggested-namespace']")
            out += check_install_namespace(suggested, location, "the suggested namespace", bundle, severity)
    return out
