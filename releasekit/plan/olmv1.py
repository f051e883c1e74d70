"""OLM v1 install manifests from a registry+v1 bundle: a least-privilege installer and a ClusterExtension.

Pure core: Kubernetes objects (dicts) from a loaded bundle, no I/O. OLM v1 installs with a ServiceAccount
the user provides, which must create everything the bundle installs and hold every permission the
operator gets (Kubernetes refuses a Role granting what its creator lacks). So the installer's ClusterRole
also copies the CSV's ``permissions`` (OLM v1 grants them cluster-wide, in AllNamespaces mode) and allows
any ClusterRole and binding (OLM v1 generates their names).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from releasekit.model.bundle import RBAC_FIELDS, Bundle, Manifest, policy_rules_problem
from releasekit.model.operator import pod_specs

__all__ = ["CLUSTER_SCOPED_KINDS", "InstallRequest", "UnreadableRule", "installer_manifests", "plural"]

CLUSTER_SCOPED_KINDS: Final = frozenset(
    {
        "APIService",
        "ClusterRole",
        "ClusterRoleBinding",
        "ConsoleCLIDownload",
        "ConsoleLink",
        "ConsolePlugin",
        "ConsoleQuickStart",
        "ConsoleYAMLSample",
        "CustomResourceDefinition",
        "MutatingWebhookConfiguration",
        "Namespace",
        "PriorityClass",
        "StorageClass",
        "ValidatingWebhookConfiguration",
        "VolumeSnapshotClass",
    }
)
"""Bundled kinds that are cluster-scoped (everything else a bundle may ship is namespaced)."""

_CREATE: Final = ["create", "list", "watch"]
_MANAGE: Final = ["get", "update", "patch", "delete"]
_ALL: Final = ["create", "delete", "get", "list", "patch", "update", "watch"]
_RBAC: Final = "rbac.authorization.k8s.io"


@dataclass(frozen=True, slots=True, kw_only=True)
class InstallRequest:
    """What to install: the package (the ClusterExtension's name too), a version or a channel, the namespace."""

    package: str
    namespace: str
    version: str | None = None
    channel: str | None = None


def plural(kind: str) -> str:
    """The resource name of ``kind`` as Kubernetes pluralises it (``PriorityClass`` → ``priorityclasses``)."""
    lower = kind.lower()
    if lower.endswith(("s", "x", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u"):
        return lower[:-1] + "ies"
    return lower + "s"


def _rule(
    group: str, resources: Sequence[str], verbs: Sequence[str], names: Iterable[str] = ()
) -> dict[str, Any]:
    rule: dict[str, Any] = {"apiGroups": [group], "resources": list(resources)}
    names = sorted(set(names))
    if names:
        rule["resourceNames"] = names
    rule["verbs"] = list(verbs)
    return rule


def _create_and_manage(group: str, resource: str, names: Iterable[str]) -> list[dict[str, Any]]:
    return [_rule(group, [resource], _CREATE), _rule(group, [resource], _MANAGE, names)]


class UnreadableRule(ValueError):
    """A policy rule the plan cannot copy exactly (dropping or reading around a field would widen it)."""


def _copy_rules(rules: object, where: str) -> list[dict[str, Any]]:
    """Policy rules as written (keys in Kubernetes' order)."""
    problem = policy_rules_problem(rules, "rules")
    if problem is not None:
        raise UnreadableRule(f"{where}: {problem[0]}: {problem[1]}")
    return [
        {key: list(rule[key]) for key in RBAC_FIELDS if rule.get(key) is not None} for rule in _list(rules)
    ]


def _dedupe(rules: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rules without repeats, first occurrence kept; linear (a set of hashable keys, not a list scan)."""
    seen: set[tuple[tuple[str, tuple[str, ...]], ...]] = set()
    out: list[dict[str, Any]] = []
    for rule in rules:
        key = tuple(sorted((k, tuple(v)) for k, v in rule.items()))
        if key not in seen:
            seen.add(key)
            out.append(rule)
    return out


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _by_kind(objects: Iterable[Manifest]) -> dict[tuple[str, str], list[str]]:
    kinds: dict[tuple[str, str], list[str]] = {}
    for manifest in objects:
        if manifest.kind and manifest.name:
            kinds.setdefault((manifest.group, manifest.kind), []).append(manifest.name)
    return kinds


def _role_and_binding(
    kind: str, installer: str, ns: str, rules: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``<installer>-clusterrole`` (or ``-role``, in ``ns``) with ``rules``, bound to the installer account."""
    name = f"{installer}-{kind.lower()}"
    meta = {} if kind == "ClusterRole" else {"namespace": ns}
    return [
        {
            "apiVersion": f"{_RBAC}/v1",
            "kind": kind,
            "metadata": {"name": name, **meta},
            "rules": _dedupe(rules),
        },
        {
            "apiVersion": f"{_RBAC}/v1",
            "kind": f"{kind}Binding",
            "metadata": {"name": f"{name}-binding", **meta},
            "roleRef": {"apiGroup": _RBAC, "kind": kind, "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": installer, "namespace": ns}],
        },
    ]


def installer_manifests(bundle: Bundle, request: InstallRequest) -> list[dict[str, Any]]:
    """Namespace, ServiceAccount, ClusterRole + binding, Role + binding, ClusterExtension (in that order).

    Every rule is copied exactly or not at all; judging them is
    :func:`releasekit.rules.olmv1.check_install_safety`'s.

    Raises:
        UnreadableRule: a rule that is not a list of mappings of string lists (a last guard).
    """
    spec = _map(_map(bundle.csv.spec.get("install")).get("spec")) if bundle.csv else {}
    ext, ns = request.package, request.namespace
    installer = f"{ext}-installer"
    deployments = sorted(
        str(d["name"]) for d in _list(spec.get("deployments")) if isinstance(d, Mapping) and d.get("name")
    )
    accounts = sorted(
        {
            str(p["serviceAccountName"])
            for section in ("permissions", "clusterPermissions")
            for p in _list(spec.get(section))
            if isinstance(p, Mapping) and p.get("serviceAccountName")
        }
        | {
            account
            for _, pod in pod_specs(bundle.csv.data if bundle.csv else {})
            if isinstance(account := pod.get("serviceAccountName"), str) and account
        }
    )
    crds = sorted(m.name for m in bundle.crds if m.name)
    kinds = _by_kind(bundle.objects)
    cluster_rules: list[dict[str, Any]] = [
        _rule("olm.operatorframework.io", ["clusterextensions/finalizers"], ["update"], [ext]),
        *_create_and_manage("apiextensions.k8s.io", "customresourcedefinitions", crds),
        _rule(_RBAC, ["clusterroles", "clusterrolebindings"], _ALL),
    ]
    ns_rules: list[dict[str, Any]] = [
        *_create_and_manage("apps", "deployments", deployments),
        *_create_and_manage("", "serviceaccounts", accounts),
        _rule(_RBAC, ["roles", "rolebindings"], _ALL),
    ]
    handled = {(_RBAC, "ClusterRole"), (_RBAC, "ClusterRoleBinding"), (_RBAC, "Role"), (_RBAC, "RoleBinding")}
    for (group, kind), names in sorted(kinds.items()):
        if (group, kind) in handled:
            continue
        target = cluster_rules if kind in CLUSTER_SCOPED_KINDS else ns_rules
        target.extend(_create_and_manage(group, plural(kind), names))
    # AllNamespaces: OLM v1 grants the CSV's permissions cluster-wide too, with ClusterRoles
    for section in ("clusterPermissions", "permissions"):
        for i, p in enumerate(_list(spec.get(section))):
            where = f"CSV {bundle.csv.name if bundle.csv else ''} {section}[{i}]"
            cluster_rules.extend(_copy_rules(_map(p).get("rules"), where))
    for manifest in bundle.objects:
        if manifest.group == _RBAC and manifest.kind in ("ClusterRole", "Role"):
            target = cluster_rules if manifest.kind == "ClusterRole" else ns_rules
            target.extend(_copy_rules(manifest.data.get("rules"), f"{manifest.kind} {manifest.name}"))
    source: dict[str, Any] = {"packageName": request.package}
    if request.channel:
        source["channels"] = [request.channel]
    if request.version:
        source["version"] = request.version
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": installer, "namespace": ns}},
        *_role_and_binding("ClusterRole", installer, ns, cluster_rules),
        *_role_and_binding("Role", installer, ns, ns_rules),
        {
            "apiVersion": "olm.operatorframework.io/v1",
            "kind": "ClusterExtension",
            "metadata": {"name": ext},
            "spec": {
                "namespace": ns,
                "serviceAccount": {"name": installer},
                "source": {"sourceType": "Catalog", "catalog": source},
            },
        },
    ]
