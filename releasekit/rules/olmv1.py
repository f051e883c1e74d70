"""OLM v1 readiness: what keeps a registry+v1 bundle from installing as a ClusterExtension.

Pure core: rules take a :class:`~releasekit.model.bundle.Bundle` and return findings. OLM v1
(operator-controller) installs registry+v1 bundles only when they support the ``AllNamespaces`` install
mode and declare no dependencies, and it does not provide the OperatorConditions API. ``bundle validate
--optional-checks olmv1`` runs them as errors; ``build``/``bundle build`` run them on a stream's bundles
as warnings, or errors where the stream says ``olmv1: required``.

Rule ids (stable, never renumbered):

============= ===============================================================================
RK-OLMV1-001  the CSV does not support the AllNamespaces install mode
RK-OLMV1-002  the bundle declares a dependency property (``olm.gvk.required``, ``olm.package.required``,
              ``olm.constraint``, ``olm.label.required``) in the CSV's ``olm.properties`` or in
              ``metadata/properties.yaml``, or requires APIs (``spec.customresourcedefinitions.required``,
              ``spec.apiservicedefinitions.required``, which OLM turns into ``olm.gvk.required``)
RK-OLMV1-003  ``metadata/dependencies.yaml`` has an entry (``olm.gvk``, ``olm.package``, ``olm.constraint``,
              ``olm.label``): OLM v1 resolves no dependencies
RK-OLMV1-004  the bundle uses the OperatorConditions API (a bundled OperatorCondition, RBAC on
              ``operators.coreos.com`` ``operatorconditions``, or ``OPERATOR_CONDITION_NAME`` in a
              deployment)
============= ===============================================================================
"""

from __future__ import annotations

from typing import Final

from releasekit.model import jsontext
from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Finding, Location, Severity
from releasekit.rules.bundle._common import as_list, as_map, as_str, finding

__all__ = ["DEPENDENCY_PROPERTIES", "RULES", "check_olmv1"]

RULES: Final = {
    "RK-OLMV1-001": "AllNamespaces install mode not supported",
    "RK-OLMV1-002": "dependency property or required API",
    "RK-OLMV1-003": "dependencies.yaml entry",
    "RK-OLMV1-004": "OperatorConditions API used",
}

DEPENDENCY_PROPERTIES: Final = (
    "olm.gvk.required",
    "olm.package.required",
    "olm.constraint",
    "olm.label.required",
)
_WHY: Final = "OLM v1 (ClusterExtension) installs no bundle with dependencies"


def _install_modes(csv: Manifest, bundle: Bundle, severity: Severity) -> list[Finding]:
    modes = [as_map(m) for m in as_list(csv.spec.get("installModes"))]
    if any(as_str(m.get("type")) == "AllNamespaces" and m.get("supported") is True for m in modes):
        return []
    return [
        finding(
            "RK-OLMV1-001",
            severity,
            f"CSV {csv.name} does not support the AllNamespaces install mode: OLM v1 installs registry+v1 "
            "bundles only in AllNamespaces mode",
            csv.loc("$.spec.installModes"),
            "support AllNamespaces (type: AllNamespaces, supported: true) to be installable by OLM v1",
            bundle,
        )
    ]


def _properties(items: object) -> list[tuple[int, str]]:
    return [
        (i, as_str(as_map(p).get("type")))
        for i, p in enumerate(as_list(items))
        if as_str(as_map(p).get("type")) in DEPENDENCY_PROPERTIES
    ]


def _dependency_properties(csv: Manifest, bundle: Bundle, severity: Severity) -> list[Finding]:
    out: list[Finding] = []
    text = csv.annotations.get("olm.properties")
    if isinstance(text, str):
        try:
            items = jsontext.loads(text)
        except ValueError:
            items = []
        for _, kind in _properties(items):
            out.append(
                finding(
                    "RK-OLMV1-002",
                    severity,
                    f"CSV {csv.name} declares the dependency property {kind} in olm.properties: {_WHY}",
                    csv.loc("$.metadata.annotations['olm.properties']"),
                    f"drop the {kind} property (OLM v1 resolves no dependencies; document the prerequisite)",
                    bundle,
                )
            )
    if bundle.properties is not None:
        for index, kind in _properties(bundle.properties.data.get("properties")):
            out.append(
                finding(
                    "RK-OLMV1-002",
                    severity,
                    f"metadata/properties.yaml declares the dependency property {kind}: {_WHY}",
                    bundle.properties.loc(f"$.properties[{index}]"),
                    f"drop the {kind} property (OLM v1 resolves no dependencies; document the prerequisite)",
                    bundle,
                )
            )
    for section in ("customresourcedefinitions", "apiservicedefinitions"):
        required = as_list(as_map(csv.spec.get(section)).get("required"))
        for index, item in enumerate(required):
            name = as_str(as_map(item).get("name")) or as_str(as_map(item).get("kind"))
            out.append(
                finding(
                    "RK-OLMV1-002",
                    severity,
                    f"CSV {csv.name} requires API {name} (spec.{section}.required, an olm.gvk.required "
                    f"dependency): {_WHY}",
                    csv.loc(f"$.spec.{section}.required[{index}]"),
                    "drop the required API; install its provider separately and document it",
                    bundle,
                )
            )
    return out


def _dependencies_file(bundle: Bundle, severity: Severity) -> list[Finding]:
    deps = bundle.dependencies
    if deps is None:
        return []
    out = []
    for index, raw in enumerate(as_list(deps.data.get("dependencies"))):
        kind = as_str(as_map(raw).get("type")) or "?"
        out.append(
            finding(
                "RK-OLMV1-003",
                severity,
                f"metadata/dependencies.yaml declares a dependency of type {kind}: {_WHY}",
                deps.loc(f"$.dependencies[{index}]"),
                "remove the entry (and dependencies.yaml when it is empty); document the prerequisite instead",
                bundle,
            )
        )
    return out


def _rule_mentions_conditions(rule: object) -> bool:
    item = as_map(rule)
    groups = [as_str(g) for g in as_list(item.get("apiGroups"))]
    resources = [as_str(r) for r in as_list(item.get("resources"))]
    return any(g in ("operators.coreos.com", "*") for g in groups) and any(
        r.split("/")[0] == "operatorconditions" for r in resources
    )


def _operator_conditions(csv: Manifest, bundle: Bundle, severity: Severity) -> list[Finding]:
    out: list[Finding] = []
    install = as_map(as_map(csv.spec.get("install")).get("spec"))

    def add(location: Location, what: str) -> None:
        out.append(
            finding(
                "RK-OLMV1-004",
                severity,
                f"{what}: OLM v1 does not support the OperatorConditions API",
                location,
                "stop relying on OperatorConditions (report upgrade readiness another way)",
                bundle,
            )
        )

    for section in ("permissions", "clusterPermissions"):
        for i, perm in enumerate(as_list(install.get(section))):
            for j, rule in enumerate(as_list(as_map(perm).get("rules"))):
                if _rule_mentions_conditions(rule):
                    add(
                        csv.loc(f"$.spec.install.spec.{section}[{i}].rules[{j}]"),
                        f"CSV {csv.name} grants access to operatorconditions ({section})",
                    )
    for i, dep in enumerate(as_list(install.get("deployments"))):
        pod = as_map(as_map(as_map(as_map(dep).get("spec")).get("template")).get("spec"))
        for j, container in enumerate(as_list(pod.get("containers"))):
            for k, env in enumerate(as_list(as_map(container).get("env"))):
                if as_str(as_map(env).get("name")) == "OPERATOR_CONDITION_NAME":
                    add(
                        csv.loc(
                            f"$.spec.install.spec.deployments[{i}].spec.template.spec.containers[{j}].env[{k}]"
                        ),
                        f"CSV {csv.name} deployment reads OPERATOR_CONDITION_NAME",
                    )
    for manifest in bundle.objects:
        if manifest.kind == "OperatorCondition":
            add(manifest.loc("$"), f"the bundle ships an OperatorCondition ({manifest.name})")
    return out


def check_olmv1(bundle: Bundle, severity: Severity = Severity.ERROR) -> list[Finding]:
    """RK-OLMV1-001…004 over ``bundle``, at ``severity``."""
    out: list[Finding] = []
    csv = bundle.csv
    if csv is not None:
        out += _install_modes(csv, bundle, severity)
        out += _dependency_properties(csv, bundle, severity)
        out += _operator_conditions(csv, bundle, severity)
    else:
        out += [
            f
            for m in bundle.objects
            if m.kind == "OperatorCondition"
            for f in [
                finding(
                    "RK-OLMV1-004",
                    severity,
                    f"the bundle ships an OperatorCondition ({m.name}): OLM v1 does not support the "
                    "OperatorConditions API",
                    m.loc("$"),
                    "stop relying on OperatorConditions",
                    bundle,
                )
            ]
        ]
    out += _dependencies_file(bundle, severity)
    return out
