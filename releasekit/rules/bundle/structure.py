"""The bundle validator (api ``internal/bundle.go``) and the api manifests-loader checks.

Pure. Rules RK-BUNDLE-003 … 006 (loader) and 040 … 046 (bundle).
"""

from __future__ import annotations

import re

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Finding, Location, Severity, make_finding
from releasekit.model.operator import pod_specs
from releasekit.rules.bundle._common import (
    BundleFindings,
    api_message,
    as_list,
    as_map,
    as_str,
    crd_descriptions,
    gvk_string,
)
from releasekit.rules.bundle.crd import CRD_API_VERSIONS, crd_versions

__all__ = [
    "MAX_COMPRESSED_SIZE",
    "crd_keys",
    "format_size",
    "pullspec_error",
    "validate_bundle_structure",
    "validate_loader",
]

MAX_COMPRESSED_SIZE = 1 << 20
"""OLM stages an unpacked bundle in one ConfigMap, so its gzip+base64 size must stay under 1 MiB."""


def format_size(size: float) -> str:
    """Operator-framework/api's decimal size rendering: ``948.6 kB``, ``2.1 MB``."""
    if size < 1000:
        return f"{int(size)} B"
    exp = 0
    while size / 1000 ** (exp + 1) >= 1000 and exp < 5:
        exp += 1
    return f"{size / 1000 ** (exp + 1):.1f} {'kMGTPE'[exp]}B"


def validate_loader(bundle: Bundle) -> list[Finding]:
    """What api's loader refuses: sub-folders and hidden files, CSV count, CRD apiVersions."""
    out = BundleFindings(bundle)
    for stray in bundle.stray_entries:
        if stray.is_dir:
            rule, detail = ids.STRAY_DIRECTORY, "contains directory"
            hint = "registry+v1 manifests must be a flat folder; move or delete the sub-folder"
        else:
            rule, detail = ids.STRAY_HIDDEN_FILE, "has hidden file"
            hint = "delete the hidden file from the manifests folder"
        out.flag(rule, f"bundle manifests dir {detail}: {stray.path}", Location(file=stray.path), hint)
    if bundle.csv is None:
        folder = (
            f"{bundle.root.rstrip('/')}/manifests" if bundle.layout.value == "bundle-root" else bundle.root
        )
        message = f"unable to find a csv in bundle directory {folder}"
        hint = "a registry+v1 bundle needs exactly one ClusterServiceVersion in its manifests"
        out.flag(ids.CSV_COUNT, message, Location(file=bundle.root), hint)
    for extra in bundle.extra_csvs:
        hint = "keep one ClusterServiceVersion per bundle"
        out.flag(ids.CSV_COUNT, "invalid bundle: contains multiple CSVs", extra.loc(), hint)
    for crd in bundle.crds:
        if crd.api_version not in CRD_API_VERSIONS:
            message = f"unsupported CRD version {crd.api_version} for {crd.file.rpartition('/')[2]}"
            out.flag(ids.CRD_API_VERSION, message, crd.loc("$.apiVersion"), "use apiextensions.k8s.io/v1")
    return out


def crd_keys(crd: Manifest) -> list[tuple[str, str, str]]:
    """(group, version, kind) keys a CRD provides, as api's bundle validator counts them."""
    group = as_str(crd.spec.get("group"))
    kind = as_str(as_map(crd.spec.get("names")).get("kind"))
    return [(group, version, kind) for version in crd_versions(crd)]


_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_ANY_PATH_COMPONENT = r"[a-zA-Z0-9]+(?:(?:[._]|__|[-]+)[a-zA-Z0-9]+)*"
_REFERENCE = re.compile(
    rf"^(?P<name>(?:{_DOMAIN}/)?{_ANY_PATH_COMPONENT}(?:/{_ANY_PATH_COMPONENT})*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Za-z=_-]+))?$"
)
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}


def pullspec_error(image: str) -> str | None:
    """Why docker reference normalisation would refuse ``image`` (None when it is a valid pull spec)."""
    match = _REFERENCE.match(image)
    if match is None:
        return "invalid reference format"
    name = match.group("name")
    first, slash, rest = name.partition("/")
    has_domain = "." in first or ":" in first or first == "localhost" or first != first.lower()
    remote = rest if slash and has_domain else name
    if remote != remote.lower() or not re.fullmatch(rf"{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*", remote):
        return f"invalid reference format: repository name ({remote}) must be lowercase"
    if len(name) > 255:
        return "repository name must not be more than 255 characters"
    digest = match.group("digest")
    if digest:
        algorithm, _, encoded = digest.partition(":")
        if algorithm not in _DIGEST_LENGTHS:
            return "unsupported digest algorithm"
        if len(encoded) != _DIGEST_LENGTHS[algorithm]:
            return "invalid checksum digest length"
        if not re.fullmatch(r"[a-f0-9]+", encoded):
            return "invalid checksum digest format"
    return None


def _service_accounts(bundle: Bundle, csv: Manifest) -> list[Finding]:
    used = {as_str(pod.get("serviceAccountName")) for _, pod in pod_specs(csv.data)} - {""}
    out = BundleFindings(bundle)
    for obj in bundle.objects:
        if obj.kind == "ServiceAccount" and obj.api_version == "v1" and obj.name in used:
            message = api_message(
                f"invalid service account found in bundle. This service account {obj.name} in your bundle "
                "is not valid, because a service account with the same name was already specified in your "
                "CSV. If this was unintentional, please remove the service account manifest from your "
                "bundle. If it was intentional to specify a separate service account, please rename the SA "
                "in either the bundle manifest or the CSV.",
                value=obj.name,
            )
            hint = "OLM creates the CSV's service accounts itself; drop this manifest or rename it"
            out.flag(ids.BUNDLE_SERVICE_ACCOUNT, message, obj.loc("$.metadata.name"), hint)
    return out


def _size(bundle: Bundle, csv: Manifest) -> list[Finding]:
    text = (
        f"size=~{format_size(bundle.compressed_size)} , max={format_size(MAX_COMPRESSED_SIZE)}. "
        f"Bundle uncompressed size is {format_size(bundle.size)}"
    )
    severity = Severity.WARNING
    if bundle.compressed_size == 0:
        message = "unable to check the bundle compressed size"
    elif bundle.size == 0:
        message = "unable to check the bundle size"
    elif bundle.compressed_size > MAX_COMPRESSED_SIZE:
        message, severity = f"maximum bundle compressed size with gzip size exceeded: {text}", Severity.ERROR
    elif bundle.compressed_size > MAX_COMPRESSED_SIZE * 0.85:
        message = f"nearing maximum bundle compressed size with gzip: {text}"
    else:
        return []
    hint = "shrink the bundle (large CRD descriptions, icons): OLM stores it in one ConfigMap"
    message = api_message(message, value=csv.name)
    return [
        make_finding(ids.BUNDLE_SIZE, message, Location(file=bundle.root), hint, bundle.subject, severity)
    ]


def _release_name(bundle: Bundle, csv: Manifest) -> list[Finding]:
    release = as_str(csv.spec.get("release"))
    expected = f"{bundle.package}-v{as_str(csv.spec.get('version'))}-{release}"
    if not release or csv.name == expected:
        return []
    message = f'bundle name with release versioning "{csv.name}" does not match expected name "{expected}"'
    message, where = api_message(message, value=csv.name), csv.loc("$.metadata.name")
    return [
        make_finding(ids.BUNDLE_RELEASE_NAME, message, where, f"rename the CSV {expected}", bundle.subject)
    ]


def _related_images(bundle: Bundle, csv: Manifest) -> list[Finding]:
    out = BundleFindings(bundle)
    for index, item in enumerate(as_list(csv.spec.get("relatedImages"))):
        image = as_str(as_map(item).get("image"))
        path = f"$.spec.relatedImages[{index}]"
        if not image:
            detail, hint = (
                "has an empty image field",
                "give every related image a pull spec, or remove the entry",
            )
        elif (problem := pullspec_error(image)) is not None:
            detail = f'has an invalid image pullspec "{image}": {problem}'
            hint, path = "write the image as registry/repository[:tag][@sha256:<64 hex>]", f"{path}.image"
        else:
            continue
        message = api_message(f"relatedImages[{index}] {detail}", value=f"spec.relatedImages[{index}].image")
        out.flag(ids.BUNDLE_RELATED_IMAGE, message, csv.loc(path), hint)
    return out


def validate_bundle_structure(bundle: Bundle) -> list[Finding]:
    """Operator-framework/api's bundle validator."""
    csv = bundle.csv
    if csv is None:
        return []
    name = csv.name
    out = BundleFindings(bundle)
    keys: dict[tuple[str, str, str], Manifest] = {}
    for crd in bundle.crds:
        for key in crd_keys(crd):
            if key in keys:
                message = api_message(
                    f'duplicate CRD "{gvk_string(*key)}" in bundle "{name}"', value=gvk_string(*key)
                )
                hint = f"ship {key[2]} {key[1]} in one CustomResourceDefinition only"
                out.flag(ids.BUNDLE_DUPLICATE_CRD, message, crd.loc("$.spec"), hint)
            else:
                keys[key] = crd
    owned: dict[tuple[str, str, str], str] = {}
    for path, item in crd_descriptions(csv):
        owned_name = as_str(item.get("name"))
        group = owned_name.partition(".")[2] if "." in owned_name else owned_name  # api keeps a dotless name
        owned[(group, as_str(item.get("version")), as_str(item.get("kind")))] = path
    for key, path in owned.items():
        if key not in keys:
            message = api_message(
                f'owned CRD "{gvk_string(*key)}" not found in bundle "{name}"', value=gvk_string(*key)
            )
            hint = "add the CustomResourceDefinition to the bundle or drop it from spec.customresourcedefinitions.owned"
            out.flag(ids.BUNDLE_OWNED_CRD_MISSING, message, csv.loc(path), hint)
    owned_group_kinds = {(g, k) for g, _, k in owned}
    for key, crd in keys.items():
        if key not in owned and (key[0], key[2]) not in owned_group_kinds:
            message = api_message(
                f'CRD "{gvk_string(*key)}" is present in bundle "{name}" but not defined in CSV',
                value=gvk_string(*key),
            )
            hint = "list the CRD in spec.customresourcedefinitions.owned, or remove it from the bundle"
            out.flag(ids.BUNDLE_CRD_NOT_OWNED, message, crd.loc("$.spec"), hint)
    out += _service_accounts(bundle, csv)
    out += _size(bundle, csv)
    out += _release_name(bundle, csv)
    out += _related_images(bundle, csv)
    return out
