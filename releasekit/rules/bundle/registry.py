"""operator-registry's bundle checks: the *format* of a bundle root and the *content* of its manifests.

Pure. Rules RK-BUNDLE-010 … 018. Format (reg ``ValidateBundleFormat``): both folders, an annotations
file with the required keys, the media type, non-empty channels, ``dependencies.yaml``. Content (reg
``ValidateBundleContent``): supported kinds, object metadata that kubectl accepts, and reg's own
owned-CRD check keyed by CRD name; CSV and CRD validator errors are added by the caller's validator
list (reg drops warnings, so the content validator reports the CSV/CRD errors only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import (
    ANNOTATION_CHANNELS,
    ANNOTATION_DEFAULT_CHANNEL,
    ANNOTATION_MANIFESTS,
    ANNOTATION_MEDIATYPE,
    ANNOTATION_METADATA,
    ANNOTATION_PACKAGE,
    Bundle,
    Manifest,
)
from releasekit.model.finding import Finding, Location, Severity
from releasekit.rules.bundle._common import BundleFindings, as_list, as_map, as_str, finding
from releasekit.rules.bundle.crd import crd_versions, validate_crd_manifest
from releasekit.rules.bundle.csv import validate_csv_manifest

__all__ = ["SUPPORTED_KINDS", "semver_range_valid", "validate_registry_content", "validate_registry_format"]

SUPPORTED_KINDS = frozenset(
    {
        "ClusterServiceVersion",
        "CustomResourceDefinition",
        "ClusterRole",
        "ClusterRoleBinding",
        "Service",
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "PrometheusRule",
        "ServiceMonitor",
        "Secret",
        "ConfigMap",
        "PodDisruptionBudget",
        "PriorityClass",
        "VerticalPodAutoscaler",
        "ConsoleYAMLSample",
        "ConsoleQuickStart",
        "ConsoleCLIDownload",
        "ConsoleLink",
        "ConsolePlugin",
        "NetworkPolicy",
        "PodMonitor",
    }
)

_REQUIRED = (
    ANNOTATION_MEDIATYPE,
    ANNOTATION_MANIFESTS,
    ANNOTATION_METADATA,
    ANNOTATION_PACKAGE,
    ANNOTATION_CHANNELS,
)

_VERSION = r"v?(?:\d+|[xX*])(?:\.(?:\d+|[xX*])){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
_COMPARATOR = re.compile(rf"^(?:>=|<=|>|<|==|=|!=|!)?{_VERSION}$")


def semver_range_valid(text: str) -> bool:
    """Blang's ``semver.ParseRange``: ``>=1.0.0 <2.0.0 || 3.x`` style ranges."""
    if not text.strip():
        return False
    for alternative in text.split("||"):
        parts = alternative.split()
        if not parts:
            return False
        joined: list[str] = []
        for part in parts:  # "> 1.0.0" is written with a space in some ranges
            if joined and joined[-1] in (">=", "<=", ">", "<", "=", "==", "!=", "!"):
                joined[-1] += part
            else:
                joined.append(part)
        if not all(_COMPARATOR.match(p) for p in joined):
            return False
    return True


def _dependency_findings(bundle: Bundle, deps: Manifest) -> list[Finding]:
    out = BundleFindings(bundle)

    def add(index: int, detail: str, hint: str) -> None:
        out.flag(ids.FORMAT_DEPENDENCY, detail, deps.loc(f"$.dependencies[{index}]"), hint)

    for index, raw in enumerate(as_list(deps.data.get("dependencies"))):
        item = as_map(raw)
        kind = as_str(item.get("type"))
        value = item.get("value")
        unparsable = "value" not in item or (value is not None and not isinstance(value, Mapping))
        if kind not in ("olm.gvk", "olm.package", "olm.label", "olm.constraint") or unparsable:
            add(
                index,
                f"couldn't parse dependency of type {kind}",
                "use olm.gvk, olm.package, olm.label or olm.constraint with a value map",
            )
            continue
        value_map = as_map(value)
        if kind == "olm.gvk":
            for field, label in (("group", "Group"), ("version", "Version"), ("kind", "Kind")):
                if not as_str(value_map.get(field)):
                    add(index, f"API {label} is empty", f"set value.{field}")
        elif kind == "olm.package":
            if not as_str(value_map.get("packageName")):
                add(index, "Package name is empty", "set value.packageName")
            version = as_str(value_map.get("version"))
            if not version:
                add(index, "Package version is empty", "set value.version to a semver range such as >=1.0.0")
            elif not semver_range_valid(version):
                add(
                    index,
                    "Invalid semver format version",
                    "write value.version as a semver range such as >=1.0.0",
                )
        elif kind == "olm.label":
            if not as_str(value_map.get("label")):
                add(index, "Label information is missing", "set value.label")
        elif kind == "olm.constraint" and not any(
            key in value_map for key in ("cel", "gvk", "package", "all", "any", "not")
        ):
            add(
                index,
                "The CEL field is missing",
                "give the constraint a cel, gvk, package, all, any or not field",
            )
    return out


def validate_registry_format(bundle: Bundle) -> list[Finding]:
    """Operator-registry's ``ValidateBundleFormat``: folders, annotations, media type, dependencies."""
    if bundle.layout.value != "bundle-root":
        return []
    out = _layout_findings(bundle)
    if out:
        return out
    annotations = bundle.annotations
    if annotations is None:
        return [
            finding(
                ids.FORMAT_NO_ANNOTATIONS,
                "Could not find annotations file",
                Location(file=bundle.metadata_files[0] if bundle.metadata_files else bundle.root),
                "add metadata/annotations.yaml with a top-level annotations map",
                bundle,
            )
        ]
    out += _missing_annotation_findings(bundle, annotations)
    out += _mediatype_findings(bundle, annotations)
    out += _channel_findings(bundle, annotations)
    out += _dir_value_findings(bundle, annotations)
    if bundle.dependencies is not None:
        out += _dependency_findings(bundle, bundle.dependencies)
    return out


def _layout_findings(bundle: Bundle) -> list[Finding]:
    """A bundle root holds a manifests and a metadata folder."""
    root = Location(file=bundle.root)
    out = BundleFindings(bundle)
    if not bundle.has_manifests_dir:
        out.flag(
            ids.FORMAT_LAYOUT,
            "Unable to locate manifests directory",
            root,
            "put the manifests in a manifests/ folder",
        )
    if not bundle.has_metadata_dir:
        out.flag(
            ids.FORMAT_LAYOUT, "Unable to locate metadata directory", root, "add metadata/annotations.yaml"
        )
    return out


def _annotation_loc(bundle: Bundle, annotations: Manifest, key: str) -> Location:
    """Where annotation ``key`` is written, or the annotations map when it is missing."""
    return annotations.loc(f"$.annotations[{key!r}]" if key in bundle.annotation_values else "$.annotations")


def _missing_annotation_findings(bundle: Bundle, annotations: Manifest) -> list[Finding]:
    """Every annotation operator-registry requires is present."""
    return [
        finding(
            ids.FORMAT_MISSING_ANNOTATION,
            f'Missing annotation "{key}"',
            _annotation_loc(bundle, annotations, key),
            f"add {key} to metadata/annotations.yaml",
            bundle,
        )
        for key in _REQUIRED
        if key not in bundle.annotation_values
    ]


def _mediatype_findings(bundle: Bundle, annotations: Manifest) -> list[Finding]:
    """The media type annotation names the format detected (registry+v1 with a CSV, plain without)."""
    media = bundle.annotation(ANNOTATION_MEDIATYPE)
    detected = "registry+v1" if bundle.csv is not None else "plain"
    if media is None:
        media = ""  # reg compares the missing value too, so a missing media type is reported twice
    if media == detected:
        return []
    return [
        finding(
            ids.FORMAT_MEDIATYPE,
            f'Expecting annotation "{ANNOTATION_MEDIATYPE}" to have value "{detected}" instead of "{media}"',
            _annotation_loc(bundle, annotations, ANNOTATION_MEDIATYPE),
            f"set {ANNOTATION_MEDIATYPE}: {detected}",
            bundle,
        )
    ]


def _channel_findings(bundle: Bundle, annotations: Manifest) -> list[Finding]:
    """The channels (missing counts as empty) and a given default channel are not empty."""
    out = BundleFindings(bundle)
    for key in (ANNOTATION_CHANNELS, ANNOTATION_DEFAULT_CHANNEL):
        value = bundle.annotation(key)
        if value is None and key == ANNOTATION_CHANNELS:
            value = ""  # missing channels are also "empty" to reg
        if value == "":
            out.flag(
                ids.FORMAT_EMPTY_CHANNELS,
                f'Expecting annotation "{key}" to have non-empty value',
                _annotation_loc(bundle, annotations, key),
                "name the channel(s), comma separated",
            )
    return out


def _dir_value_findings(bundle: Bundle, annotations: Manifest) -> list[Finding]:
    """The manifests and metadata annotations name the bundle's folders (releasekit's own warning)."""
    out = BundleFindings(bundle)
    for key, want in ((ANNOTATION_MANIFESTS, "manifests/"), (ANNOTATION_METADATA, "metadata/")):
        value = bundle.annotation(key)
        if value is not None and value.strip("/") != want.strip("/"):
            out.flag(
                ids.FORMAT_DIR_VALUES,
                f'annotation "{key}" is "{value}" but the bundle layout is "{want}"',
                _annotation_loc(bundle, annotations, key),
                f"set {key}: {want} (operator-registry does not check the value; releasekit does)",
                Severity.WARNING,
            )
    return out


_GO_JSON_TYPES = {bool: "bool", int: "number", float: "number", list: "array", dict: "object"}


def _metadata_problems(obj: Manifest) -> list[tuple[str, str]]:
    metadata = obj.data.get("metadata")
    if metadata is None:
        return []
    if not isinstance(metadata, Mapping):
        kind = _GO_JSON_TYPES.get(type(metadata), "string")
        return [
            (
                "$.metadata",
                f"json: cannot unmarshal {kind} into Go struct field .metadata of type v1.ObjectMeta",
            )
        ]
    problems: list[tuple[str, str]] = []
    for field in ("name", "namespace", "generateName", "uid", "resourceVersion"):
        value = metadata.get(field)
        if value is not None and not isinstance(value, str):
            kind = _GO_JSON_TYPES.get(type(value), "value")
            problems.append(
                (
                    f"$.metadata.{field}",
                    f"json: cannot unmarshal {kind} into Go struct field ObjectMeta.metadata.{field} of type string",
                )
            )
    for field in ("labels", "annotations"):
        value = metadata.get(field)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            kind = _GO_JSON_TYPES.get(type(value), "string")
            problems.append(
                (
                    f"$.metadata.{field}",
                    f"json: cannot unmarshal {kind} into Go struct field ObjectMeta.metadata.{field} of type map[string]string",
                )
            )
            continue
        for key, item in value.items():
            if not isinstance(item, str):
                kind = _GO_JSON_TYPES.get(type(item), "value")
                problems.append(
                    (
                        f"$.metadata.{field}",
                        f"json: cannot unmarshal {kind} into Go struct field ObjectMeta.metadata.{field} of type string",
                    )
                )
                break
            del key
    return problems


def _registry_owned(bundle: Bundle, csv: Manifest) -> list[Finding]:
    """Operator-registry's own owned-CRD check, keyed by CRD name and version."""
    present: dict[tuple[str, str], Manifest] = {}
    for crd in bundle.crds:
        for version in crd_versions(crd):
            present.setdefault((crd.name, version), crd)
    owned: dict[tuple[str, str], str] = {}
    for index, item in enumerate(as_list(as_map(csv.spec.get("customresourcedefinitions")).get("owned"))):
        item = as_map(item)
        owned[(as_str(item.get("name")), as_str(item.get("version")))] = (
            f"$.spec.customresourcedefinitions.owned[{index}]"
        )
    out = BundleFindings(bundle)
    for (name, version), path in owned.items():
        if (name, version) not in present:
            out.flag(
                ids.BUNDLE_OWNED_CRD_MISSING,
                f'owned CRD {name}/{version} not found in bundle "{csv.name}"',
                csv.loc(path),
                "add the CustomResourceDefinition to the bundle or drop it from the owned list",
            )
    owned_names = {name for name, _ in owned}
    for (name, version), crd in present.items():
        if name not in owned_names:
            out.flag(
                ids.BUNDLE_CRD_NOT_OWNED,
                f'CRD {name}/{version} is present in bundle "{csv.name}" but not defined in CSV',
                crd.loc("$.metadata.name"),
                "list the CRD in spec.customresourcedefinitions.owned, or remove it from the bundle",
                Severity.WARNING,
            )
    return out


def validate_registry_content(bundle: Bundle) -> list[Finding]:
    """Operator-registry's ``ValidateBundleContent``: kinds, object metadata, owned CRDs, CSV, CRDs."""
    out = BundleFindings(bundle)
    for obj in bundle.all_manifests:
        if obj.kind not in SUPPORTED_KINDS:
            out.flag(
                ids.CONTENT_UNSUPPORTED_KIND,
                f"{obj.kind or '<no kind>'} is not supported type for registryV1 bundle: {obj.file}",
                obj.loc("$.kind"),
                "ship only kinds OLM can install from a registry+v1 bundle: "
                + ", ".join(sorted(SUPPORTED_KINDS)),
            )
    for obj in bundle.objects:
        for path, problem in _metadata_problems(obj):
            out.flag(
                ids.CONTENT_OBJECT_METADATA,
                f"error validating object metadata: {problem}",
                obj.loc(path),
                "metadata fields must have the types Kubernetes expects (strings, string maps)",
            )
    if bundle.csv is not None:
        out += _registry_owned(bundle, bundle.csv)
        out += [f for f in validate_csv_manifest(bundle.csv, bundle) if f.severity is Severity.ERROR]
    for crd in bundle.crds:
        out += validate_crd_manifest(crd, bundle)
    return out
