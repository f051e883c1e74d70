"""operator-registry's bundle checks: the *format* of a bundle root and the *content* of its manifests.

Pure. Rules RK-BUNDLE-010 … 018. Format (reg ``ValidateBundleFormat``): both folders, an annotations
file with the required keys, the media type, non-empty channels, ``dependencies.yaml``. Content (reg
``ValidateBundleContent``): supported kinds, object metadata that kubectl accepts, and reg's own
owned-CRD check keyed by CRD name; CSV and CRD validator errors are added by the caller's validator
list (reg drops warnings, so the content validator reports the CSV/CRD errors only). operator-sdk's own
content check (sdk ``internal/registry/validate.go``) is :func:`validate_sdk_content`.
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
from releasekit.model.go_decode import object_meta_problem
from releasekit.rules.bundle._common import (
    BundleFindings,
    api_message,
    as_list,
    as_map,
    as_str,
    crd_descriptions,
    gvk_string,
)
from releasekit.rules.bundle._k8s import aggregate, object_meta_problems
from releasekit.rules.bundle.crd import crd_versions, validate_crd_manifest
from releasekit.rules.bundle.csv import validate_csv_manifest

__all__ = [
    "SUPPORTED_KINDS",
    "semver_range_valid",
    "validate_registry_content",
    "validate_registry_format",
    "validate_sdk_content",
]

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
_OPERATORS = ">=|<=|>|<|==|=|!=|!"
_COMPARATOR = re.compile(rf"^(?:{_OPERATORS})?{_VERSION}$")
_OPERATOR_SPACE = re.compile(rf"(?<!\S)({_OPERATORS})\s+")


def semver_range_valid(text: str) -> bool:
    """Blang's ``semver.ParseRange``: ``>=1.0.0 <2.0.0 || 3.x`` style ranges."""
    if not text.strip():
        return False
    for alternative in text.split("||"):
        parts = _OPERATOR_SPACE.sub(r"\1", alternative).split()  # some ranges write "> 1.0.0"
        if not parts or not all(_COMPARATOR.match(part) for part in parts):
            return False
    return True


_DEPENDENCY_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "olm.gvk": (
        ("group", "API Group is empty"),
        ("version", "API Version is empty"),
        ("kind", "API Kind is empty"),
    ),
    "olm.package": (("packageName", "Package name is empty"),),
    "olm.label": (("label", "Label information is missing"),),
    "olm.constraint": (),
}
"""The dependency types reg parses: each required ``value`` field and reg's complaint when it is empty."""


def _dependency_findings(bundle: Bundle, deps: Manifest) -> list[Finding]:
    out = BundleFindings(bundle)

    def add(index: int, detail: str, hint: str) -> None:
        out.flag(ids.FORMAT_DEPENDENCY, detail, deps.loc(f"$.dependencies[{index}]"), hint)

    for index, raw in enumerate(as_list(deps.data.get("dependencies"))):
        item = as_map(raw)
        kind = as_str(item.get("type"))
        value = item.get("value")
        unparsable = "value" not in item or (value is not None and not isinstance(value, Mapping))
        if kind not in _DEPENDENCY_FIELDS or unparsable:
            add(
                index,
                f"couldn't parse dependency of type {kind}",
                "use olm.gvk, olm.package, olm.label or olm.constraint with a value map",
            )
            continue
        value_map = as_map(value)
        for field, detail in _DEPENDENCY_FIELDS[kind]:
            if not as_str(value_map.get(field)):
                add(index, detail, f"set value.{field}")
        version, semver = as_str(value_map.get("version")), "a semver range such as >=1.0.0"
        if kind == "olm.package" and not version:
            add(index, "Package version is empty", f"set value.version to {semver}")
        elif kind == "olm.package" and not semver_range_valid(version):
            add(index, "Invalid semver format version", f"write value.version as {semver}")
        if kind == "olm.constraint" and not value_map.keys() & {"cel", "gvk", "package", "all", "any", "not"}:
            add(
                index,
                "The CEL field is missing",
                "give the constraint a cel, gvk, package, all, any or not field",
            )
    return out


def validate_registry_format(bundle: Bundle) -> list[Finding]:
    """Operator-registry's ``ValidateBundleFormat``: folders, annotations, media type, dependencies."""
    out = BundleFindings(bundle)
    if bundle.layout.value != "bundle-root":
        return out
    root = Location(file=bundle.root)
    if not bundle.has_manifests_dir:
        hint = "put the manifests in a manifests/ folder"
        out.flag(ids.FORMAT_LAYOUT, "Unable to locate manifests directory", root, hint)
    if not bundle.has_metadata_dir:
        out.flag(
            ids.FORMAT_LAYOUT, "Unable to locate metadata directory", root, "add metadata/annotations.yaml"
        )
    annotations = bundle.annotations
    if not out and annotations is None:
        hint = "add metadata/annotations.yaml with a top-level annotations map"
        out.flag(
            ids.FORMAT_NO_ANNOTATIONS,
            "Could not find annotations file",
            Location(file=bundle.metadata_files[0] if bundle.metadata_files else bundle.root),
            hint,
        )
    if out or annotations is None:  # reg stops at the first of these
        return out
    out += _annotation_findings(bundle, annotations)
    if bundle.dependencies is not None:
        out += _dependency_findings(bundle, bundle.dependencies)
    return out


def _annotation_findings(bundle: Bundle, annotations: Manifest) -> list[Finding]:
    """The required annotations, the media type detected, non-empty channels, the folder names (ours)."""
    out = BundleFindings(bundle)

    def where(key: str) -> Location:  # the annotation, or the annotations map when it is missing
        return annotations.loc(
            f"$.annotations[{key!r}]" if key in bundle.annotation_values else "$.annotations"
        )

    for key in _REQUIRED:
        if key not in bundle.annotation_values:
            message = f'Missing annotation "{key}"'
            hint = f"add {key} to metadata/annotations.yaml"
            out.flag(ids.FORMAT_MISSING_ANNOTATION, message, where(key), hint)
    media = bundle.annotation(ANNOTATION_MEDIATYPE) or ""  # reg compares a missing one too: reported twice
    detected = "registry+v1" if bundle.csv is not None else "plain"
    if media != detected:
        message = (
            f'Expecting annotation "{ANNOTATION_MEDIATYPE}" to have value "{detected}" instead of "{media}"'
        )
        hint = f"set {ANNOTATION_MEDIATYPE}: {detected}"
        out.flag(ids.FORMAT_MEDIATYPE, message, where(ANNOTATION_MEDIATYPE), hint)
    for key in (ANNOTATION_CHANNELS, ANNOTATION_DEFAULT_CHANNEL):
        value = bundle.annotation(key)
        if value == "" or (
            value is None and key == ANNOTATION_CHANNELS
        ):  # missing channels are "empty" to reg
            message = f'Expecting annotation "{key}" to have non-empty value'
            out.flag(ids.FORMAT_EMPTY_CHANNELS, message, where(key), "name the channel(s), comma separated")
    for key, want in ((ANNOTATION_MANIFESTS, "manifests/"), (ANNOTATION_METADATA, "metadata/")):
        value = bundle.annotation(key)
        if value is not None and value.strip("/") != want.strip("/"):
            message = f'annotation "{key}" is "{value}" but the bundle layout is "{want}"'
            hint = f"set {key}: {want} (operator-registry does not check the value; releasekit does)"
            out.flag(ids.FORMAT_DIR_VALUES, message, where(key), hint, Severity.WARNING)
    return out


def _registry_owned(bundle: Bundle, csv: Manifest) -> list[Finding]:
    """Operator-registry's own owned-CRD check, keyed by CRD name and version."""
    present: dict[tuple[str, str], Manifest] = {}
    for crd in bundle.crds:
        for version in crd_versions(crd):
            present.setdefault((crd.name, version), crd)
    owned = {
        (as_str(item.get("name")), as_str(item.get("version"))): path for path, item in crd_descriptions(csv)
    }
    out = BundleFindings(bundle)
    for (name, version), path in owned.items():
        if (name, version) not in present:
            message = f'owned CRD {name}/{version} not found in bundle "{csv.name}"'
            hint = "add the CustomResourceDefinition to the bundle or drop it from the owned list"
            out.flag(ids.BUNDLE_OWNED_CRD_MISSING, message, csv.loc(path), hint)
    owned_names = {name for name, _ in owned}
    for (name, version), crd in present.items():
        if name not in owned_names:
            message = f'CRD {name}/{version} is present in bundle "{csv.name}" but not defined in CSV'
            hint = "list the CRD in spec.customresourcedefinitions.owned, or remove it from the bundle"
            out.flag(ids.BUNDLE_CRD_NOT_OWNED, message, crd.loc("$.metadata.name"), hint, Severity.WARNING)
    return out


def validate_registry_content(bundle: Bundle) -> list[Finding]:
    """Operator-registry's ``ValidateBundleContent``: kinds, object metadata, owned CRDs, CSV, CRDs."""
    out = BundleFindings(bundle)
    for obj in bundle.all_manifests:
        if obj.kind not in SUPPORTED_KINDS:
            message = f"{obj.kind or '<no kind>'} is not supported type for registryV1 bundle: {obj.file}"
            hint = "ship only kinds OLM can install from a registry+v1 bundle: " + ", ".join(
                sorted(SUPPORTED_KINDS)
            )
            out.flag(ids.CONTENT_UNSUPPORTED_KIND, message, obj.loc("$.kind"), hint)
    for obj in bundle.objects:
        problem = object_meta_problem(obj.data.get("metadata"))
        if problem is not None:
            message = f"error validating object metadata: {problem[1]}"
            hint = "metadata fields must have the types Kubernetes expects (strings, string maps)"
            out.flag(ids.CONTENT_OBJECT_METADATA, message, obj.loc(problem[0]), hint)
    if bundle.csv is not None:
        out += _registry_owned(bundle, bundle.csv)
        out += [f for f in validate_csv_manifest(bundle.csv, bundle) if f.severity is Severity.ERROR]
    for crd in bundle.crds:
        out += validate_crd_manifest(crd, bundle)
    return out


def validate_sdk_content(bundle: Bundle) -> list[Finding]:
    """Operator-sdk's own ``ValidateBundleContent``: kinds and metadata of the objects besides CSV and CRDs.

    The sdk appends the Go dump of the object to the metadata message; releasekit names file and line.
    """
    if bundle.csv is None:
        return []  # without a CSV the loader refuses the bundle
    out = BundleFindings(bundle)
    for obj in bundle.objects:
        if obj.kind not in SUPPORTED_KINDS:
            hint = (
                "OLM installs only these kinds from a registry+v1 bundle: "
                + ", ".join(sorted(SUPPORTED_KINDS))
                + "; let the operator create the object, or leave it out"
            )
            message = api_message(
                "unsupported media type registry+v1 for bundle object",
                value=gvk_string(obj.group, obj.api_version.rpartition("/")[2], obj.kind),
            )
            out.flag(ids.CONTENT_UNSUPPORTED_KIND, message, obj.loc("$.kind"), hint)
            continue
        problems = object_meta_problems(obj.data.get("metadata"))
        if problems:
            hint = (
                "give the object a metadata.name, no metadata.namespace (OLM installs it in the "
                "operator's namespace), and label/annotation keys of the form [prefix/]name"
            )
            message = api_message(
                f"error validating object: {aggregate([text for _, text in problems])}",
                value=obj.name,
            )
            out.flag(ids.CONTENT_OBJECT_METADATA, message, obj.loc(problems[0][0]), hint)
    return out
