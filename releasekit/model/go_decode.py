"""How Go's ``encoding/json`` decodes manifests into operator-framework's types, and the errors it gives.

Pure core: no I/O. A ported subset of the Go types (the CSV, the CRD, ``ObjectMeta``): what Go cannot
decode is refused, never dropped or widened. The bundle loader asks it for the CSV and CRDs
(RK-BUNDLE-123, :mod:`releasekit.io.bundle_load`), operator-registry's content check for every other
object's metadata (RK-BUNDLE-018).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from releasekit.model.bundle import Manifest
from releasekit.model.version import Version, VersionError, parse_version

__all__ = [
    "GO_JSON_WRAP",
    "go_json_type",
    "object_meta_problem",
    "semver_tolerant_error",
    "tolerant_version",
    "typed_decode_problem",
]

GO_JSON_WRAP = "error unmarshaling JSON: while decoding JSON: "
"""How ``sigs.k8s.io/yaml`` wraps a decoding error the api loader reports."""


def tolerant_version(text: str) -> Version:
    """``text`` as blang ``semver.ParseTolerant`` (the CSV's ``spec.version`` type) reads it.

    Raises:
        VersionError: in blang's words.
    """
    parts = text.strip().removeprefix("v").split(".", 2)
    for index, part in enumerate(parts):  # leading zeroes are dropped before parsing
        if len(part) > 1:
            part = part.lstrip("0")
            parts[index] = part if "0" <= part[:1] <= "9" else "0" + part
    if len(parts) < 3 and any(ch in parts[-1] for ch in "+-"):
        raise VersionError("Short version cannot contain PreRelease/Build meta data")
    return parse_version(".".join(parts + ["0"] * (3 - len(parts))))


def semver_tolerant_error(text: str) -> str | None:
    """Why :func:`tolerant_version` refuses ``text`` (None when it reads it)."""
    try:
        tolerant_version(text)
    except VersionError as exc:
        return str(exc)
    return None


# A Go type as the typed decode sees it: "string", "bool", "semver", _MAP (string values), another string
# (a named string type), [element] (a slice) or a dict of fields whose "" entry names the struct type.
_MAP = "map[string]string"
_STRINGS = ["string"]
_META = {"": "v1.ObjectMeta", "labels": _MAP, "annotations": _MAP}
_META |= dict.fromkeys(("name", "namespace", "generateName", "uid", "resourceVersion"), "string")
_LINK = {"": "v1alpha1.AppLink", "name": "string", "url": "string"}
_RULE = {"": "v1.PolicyRule"} | dict.fromkeys(
    ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"), _STRINGS
)
"""rbac/v1 PolicyRule: every field a list of strings (a string ``resourceNames`` would widen the rule if dropped)."""
_PERMISSIONS = [
    {"": "v1alpha1.StrategyDeploymentPermissions", "serviceAccountName": "string", "rules": [_RULE]}
]
_CONTAINER = {"": "v1.Container", "name": "string", "env": [{"": "v1.EnvVar", "name": "string"}]}
_POD = {"": "v1.PodSpec", "serviceAccountName": "string", "containers": [_CONTAINER]}
_TEMPLATE = {"": "v1.PodTemplateSpec", "metadata": _META, "spec": _POD}
_DEPLOYMENT: dict[str, Any] = {"": "v1alpha1.StrategyDeploymentSpec", "name": "string", "label": _MAP}
_DEPLOYMENT["spec"] = {"": "v1.DeploymentSpec", "template": _TEMPLATE}
_STRATEGY = {"": "v1alpha1.StrategyDetailsDeployment", "deployments": [_DEPLOYMENT]}
_STRATEGY |= {"permissions": _PERMISSIONS, "clusterPermissions": _PERMISSIONS}
_CSV_SPEC: dict[str, Any] = {"": "v1alpha1.ClusterServiceVersionSpec", "version": "semver"}
_CSV_SPEC |= dict.fromkeys(("displayName", "description", "maturity", "minKubeVersion", "replaces"), "string")
_CSV_SPEC |= {"skips": _STRINGS, "keywords": _STRINGS, "labels": _MAP, "annotations": _MAP}
_CSV_SPEC |= {"provider": _LINK, "links": [_LINK]}
_CSV_SPEC["maintainers"] = [{"": "v1alpha1.Maintainer", "name": "string", "email": "string"}]
_CSV_SPEC["installModes"] = [
    {"": "v1alpha1.InstallMode", "type": "v1alpha1.InstallModeType", "supported": "bool"}
]
_CSV_SPEC["relatedImages"] = [{"": "v1alpha1.RelatedImage", "name": "string", "image": "string"}]
_CSV_SPEC["install"] = {"": "v1alpha1.NamedInstallStrategy", "strategy": "string", "spec": _STRATEGY}
_CSV_TYPE = {"": "v1alpha1.ClusterServiceVersion", "metadata": _META, "spec": _CSV_SPEC}
"""The CSV as far as releasekit reads it: the fields real bundles get wrong and the install strategy."""


def _crd_type(package: str) -> dict[str, Any]:
    names = {"": f"{package}.CustomResourceDefinitionNames", "shortNames": _STRINGS, "categories": _STRINGS}
    names |= dict.fromkeys(("plural", "singular", "kind", "listKind"), "string")
    version = {"": f"{package}.CustomResourceDefinitionVersion", "name": "string"}
    version |= dict.fromkeys(("served", "storage", "deprecated"), "bool")
    spec: dict[str, Any] = {"": f"{package}.CustomResourceDefinitionSpec", "preserveUnknownFields": "bool"}
    spec |= {"group": "string", "version": "string", "scope": f"{package}.ResourceScope"}
    spec |= {"names": names, "versions": [version]}
    return {"": f"{package}.CustomResourceDefinition", "metadata": _META, "spec": spec}


def _go_type(desc: Any) -> str:
    if isinstance(desc, list):
        return "[]" + _go_type(desc[0])
    return str(desc[""] if isinstance(desc, dict) else desc)


_GO_JSON_TYPES = {str: "string", bool: "bool", int: "number", float: "number", list: "array", dict: "object"}


def go_json_type(value: object) -> str:
    """The JSON type encoding/json names in its errors (``cannot unmarshal number into ...``)."""
    return _GO_JSON_TYPES.get(type(value), "value")


def _unmarshal_error(value: Any, struct: str, field: str, go_type: str) -> str:
    return f"json: cannot unmarshal {go_json_type(value)} into Go struct field {struct}.{field} of type {go_type}"


def _decode_errors(
    value: Any, desc: Any, field: str, struct: str, path: str
) -> Iterator[tuple[bool, str, str]]:
    """(aborts, JSON path, Go's error) in the order encoding/json meets them (keys sorted, as YAML->JSON sorts).

    encoding/json keeps the first type mismatch and goes on, but a version that is not semver stops it.
    """
    if value is None:
        return
    if desc == "semver":
        problem = (
            semver_tolerant_error(value)
            if isinstance(value, str)
            else f"json: cannot unmarshal {go_json_type(value)} into Go value of type string"
        )
        if problem is not None:
            yield True, path, problem
    elif isinstance(desc, str) and desc != _MAP:  # a bool is no string and a string no bool
        if type(value) is not (bool if desc == "bool" else str):
            yield False, path, _unmarshal_error(value, struct, field, desc)
    elif not isinstance(value, list if isinstance(desc, list) else dict):
        yield False, path, _unmarshal_error(value, struct, field, _go_type(desc))
    elif desc == _MAP:
        for key in sorted(value, key=str):
            if value[key] is not None and not isinstance(value[key], str):
                yield False, f"{path}[{key!r}]", _unmarshal_error(value[key], struct, field, "string")
    elif isinstance(desc, list):
        for index, item in enumerate(value):
            yield from _decode_errors(item, desc[0], field, struct, f"{path}[{index}]")
    else:  # errors name the innermost struct and the dotted field
        name = desc[""].rpartition(".")[2]
        for key in sorted(value, key=str):
            if key != "" and key in desc:
                child = f"{field}.{key}" if field else str(key)
                yield from _decode_errors(value[key], desc[key], child, name, f"{path}.{key}")


def typed_decode_problem(manifest: Manifest) -> tuple[str, str, str] | None:
    """The error decoding the CSV or CRD into its Go type gives: (JSON path, Go's error, hint), or None."""
    if manifest.kind == "ClusterServiceVersion":
        desc = _CSV_TYPE
    else:
        desc = _crd_type("v1beta1" if manifest.api_version.endswith("/v1beta1") else "v1")
    errors = list(_decode_errors(dict(manifest.data), desc, "", manifest.kind, "$"))
    if not errors:
        return None
    _, path, detail = next((e for e in errors if e[0]), errors[0])
    hint = "give the field the type Kubernetes expects (quote strings, write booleans unquoted)"
    if path == "$.spec.version":
        hint = 'write spec.version as a semantic version in quotes, such as "1.2.3"'
    elif "of type []string" in detail and not path.endswith("]"):
        hint = "write the field as a list of strings (resourceNames: [one-secret]), not one value"
    return path, detail, hint


_OBJECT = {"": "", "metadata": _META}


def object_meta_problem(metadata: object) -> tuple[str, str] | None:
    """(JSON path, Go's error) of the first field of ``metadata`` Go cannot decode into ``ObjectMeta``."""
    errors = _decode_errors({"metadata": metadata}, _OBJECT, "", "", "$")
    return next(((path, detail) for _, path, detail in errors), None)
