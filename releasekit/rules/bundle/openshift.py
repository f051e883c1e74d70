"""OpenShift version metadata: the ``community`` validator and releasekit's ``com.redhat.openshift.versions`` rules.

Pure. Rules RK-BUNDLE-085/086 (api ``internal/community.go``, deprecated upstream but named by the
cases) and releasekit's own RK-BUNDLE-093/094.

The OpenShift versions value, in the forms ocp-olm-catalog-validator accepts and releasekit documents:

==============  =====================================================
``v4.18``       4.18 and every later release
``v4.18-v4.21`` 4.18 up to 4.21, inclusive
``=v4.18``      4.18 only
``v4.5,v4.6``   legacy list, read as ``>= 4.5`` (accepted with a warning)
==============  =====================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from releasekit.model import bundle_ids as ids
from releasekit.model import jsontext
from releasekit.model.bundle import ANNOTATION_OPENSHIFT_VERSIONS, Bundle, Dockerfile, ValidationOptions
from releasekit.model.finding import Finding, Location, Severity
from releasekit.rules.bundle._common import BundleFindings, as_str, csv_message, parse_tolerant
from releasekit.rules.bundle.removed_apis import removed_api_message, removed_objects

__all__ = [
    "OpenShiftRange",
    "check_ocp_label",
    "check_openshift_versions",
    "parse_openshift_versions",
    "validate_community",
]

_K8S_DEPRECATED_INFO = (
    "using APIs which were deprecated and removed in v1.22. More info: "
    "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22"
)
_OCP_UNSUPPORTED = (4, 9, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenShiftRange:
    """A parsed ``com.redhat.openshift.versions`` value: ``low`` to ``high`` (None = open), as (4, minor)."""

    low: tuple[int, int]
    high: tuple[int, int] | None
    legacy: bool = False

    def contains(self, version: tuple[int, int]) -> bool:
        """Whether OpenShift ``version`` is inside the range."""
        return self.low <= version and (self.high is None or version <= self.high)


def _minor(text: str) -> tuple[int, int] | None:
    """``v4.18`` (or ``4.18``) as (4, 18)."""
    match = re.fullmatch(r"v?(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def parse_openshift_versions(text: str) -> OpenShiftRange | None:
    """Parse a versions value (quotes stripped); None when it is not one of the documented forms."""
    value = text.strip().strip("'\"").strip()
    if value.startswith("=") and (only := _minor(value[1:])) is not None:
        return OpenShiftRange(low=only, high=only)
    low_text, dash, high_text = value.partition("-")
    low, high = _minor(low_text), _minor(high_text)
    if dash and low is not None and high is not None:
        return OpenShiftRange(low=low, high=high) if low <= high else None
    if low is not None and not dash:
        return OpenShiftRange(low=low, high=None)
    lows = [_minor(part.strip()) for part in value.split(",")]
    known = [version for version in lows if version is not None]
    return OpenShiftRange(low=min(known), high=None, legacy=True) if len(known) == len(lows) > 1 else None


def check_openshift_versions(
    bundle: Bundle, catalogs: tuple[str, ...] = (), *, form_severity: Severity = Severity.ERROR
) -> list[Finding]:
    """RK-BUNDLE-093/094: the OpenShift versions value is right.

    It is in a documented form, Dockerfile and metadata agree, and the range matches the OpenShift catalogs
    the release is published to. ``form_severity`` is the severity of a value in no documented form (an
    error for a stream's candidate, a warning for released history and other operators' bundles).
    """
    out = BundleFindings(bundle)
    sources: list[tuple[str, Location]] = []
    value = bundle.annotation(ANNOTATION_OPENSHIFT_VERSIONS)
    if value is not None and bundle.annotations is not None:
        sources.append((value, bundle.annotations.loc(f"$.annotations[{ANNOTATION_OPENSHIFT_VERSIONS!r}]")))
    label = bundle.dockerfile.label(ANNOTATION_OPENSHIFT_VERSIONS) if bundle.dockerfile is not None else None
    if label is not None and bundle.dockerfile is not None:
        sources.append((label.value, Location(file=bundle.dockerfile.file, line=label.line)))
    forms = "v4.18 (4.18 and later), v4.18-v4.21 (inclusive range) or =v4.18 (exactly 4.18)"
    parsed: OpenShiftRange | None = None
    for text, location in sources:
        current = parse_openshift_versions(text)
        if current is None or current.legacy:
            problem, severity = "is not a valid OpenShift version range", form_severity
            if current is not None:
                low = f"v{current.low[0]}.{current.low[1]}"
                problem, severity = f'uses the legacy comma form, read as "{low}" and later', Severity.WARNING
            message = f'{ANNOTATION_OPENSHIFT_VERSIONS} "{text}" {problem}'
            out.flag(ids.RK_OCP_VERSIONS_FORM, message, location, f"write it as {forms}", severity)
        if parsed is None:
            parsed = current
    if len(sources) == 2 and sources[0][0].strip("'\" ") != sources[1][0].strip("'\" "):
        message = (
            f'{ANNOTATION_OPENSHIFT_VERSIONS} is "{sources[1][0]}" in the Dockerfile but "{sources[0][0]}" in '
            "metadata/annotations.yaml (the annotations file wins)"
        )
        hint = "make the LABEL and the annotation equal"
        out.flag(ids.RK_OCP_VERSIONS_FORM, message, sources[1][1], hint, Severity.WARNING)
    if parsed is None or not catalogs:
        return out
    wanted = sorted({v for v in (_minor(c.strip()) for c in catalogs) if v is not None})
    outside = [v for v in wanted if not parsed.contains(v)]
    missing: list[tuple[int, int]] = []
    if parsed.high is not None and parsed.low[0] == parsed.high[0]:
        missing = [
            (parsed.low[0], minor)
            for minor in range(parsed.low[1], parsed.high[1] + 1)
            if (parsed.low[0], minor) not in wanted
        ]
    elif parsed.high is None and parsed.low not in wanted:
        missing = [parsed.low]
    if outside or missing:

        def show(items: list[tuple[int, int]]) -> str:
            return ", ".join(f"v{a}.{b}" for a, b in items)

        parts = []
        if outside:
            parts.append(f"the release is in catalog(s) {show(outside)} outside the range")
        if missing:
            parts.append(f"the range includes {show(missing)} where the release is in no catalog")
        message = (
            f'{ANNOTATION_OPENSHIFT_VERSIONS} "{sources[0][0]}" disagrees with the OpenShift catalogs '
            f"({show(wanted)}): " + "; ".join(parts)
        )
        hint = (
            "derive the value from the stream's OpenShift range, or fix the catalogs the release is added to"
        )
        out.flag(ids.RK_OCP_VERSIONS_CATALOGS, message, sources[0][1], hint, Severity.WARNING)
    return out


def _max_openshift(bundle: Bundle, removed: str) -> tuple[list[str], list[str]]:
    """(errors, warnings) of api's ``checkMaxOpenShiftVersion`` as plain details."""
    csv = bundle.csv
    assert csv is not None
    properties = as_str(csv.annotations.get("olm.properties"))
    if not properties:
        return [
            "csv.Annotations not specified olm.maxOpenShiftVersion for an OCP version < 4.9. This annotation is "
            "required to prevent the user from upgrading their OCP cluster before they have installed a version "
            "of their operator which is compatible with 4.9. This bundle is "
            f"{_K8S_DEPRECATED_INFO} which are no longer supported on 4.9. Migrate the API(s) for {removed} or use "
            "the annotation"
        ], []
    try:
        items = jsontext.loads(properties)
        if not isinstance(items, list):
            raise ValueError("not a list")
    except ValueError:
        return [
            "csv.Annotations has an invalid value specified for olm.properties. Please, check the value  "
            f"({properties}) and ensure that it is an array such as: "
            '"olm.properties": \'[{"type": "key name", "value": "key value"}]\''
        ], []
    value = None
    for item in items:
        if isinstance(item, dict) and item.get("type") == "olm.maxOpenShiftVersion":
            value = as_str(item.get("value"))
            break
    if value is None:
        return [
            "csv.Annotations.olm.properties with the key `olm.maxOpenShiftVersion` and a value with an OCP version "
            f"which is < 4.9 is required for any operator bundle that is {_K8S_DEPRECATED_INFO}. Migrate the "
            f"API(s) for {removed} or use the annotation"
        ], []
    version = parse_tolerant(value)
    if version is None:
        return [
            f"csv.Annotations.olm.properties has an invalid value.Unable to parse ({value}) using semver"
        ], []
    warnings: list[str] = []
    core = value.strip().removeprefix("v").split("+")[0].split("-")[0]
    if core.count(".") >= 2:
        warnings.append(
            "csv.Annotations.olm.properties has an invalid value. olm.maxOpenShiftVersion must specify only "
            f"major.minor versions, {value} will be truncated to {version[0]}.{version[1]}.0"
        )
    if (version[0], version[1], 0) >= _OCP_UNSUPPORTED:
        return [
            "csv.Annotations.olm.properties with the key and value for olm.maxOpenShiftVersion has the OCP version "
            f"value {value} which is >= of 4.9. This bundle is {_K8S_DEPRECATED_INFO}. Migrate the API(s) for "
            f"{removed} or inform in this property an OCP version which is < 4.9"
        ], warnings
    return [], warnings


def check_ocp_label(dockerfile: Dockerfile, removed: str) -> list[str]:
    """operator-framework/api's ``checkOCPLabelsWithHasDeprecatedAPIs`` on one Dockerfile: error details.

    Empty when fine. Without ``index-path`` the caller warns instead.
    """
    label = dockerfile.label(ANNOTATION_OPENSHIFT_VERSIONS)
    if label is None:
        return [
            f"this bundle is {_K8S_DEPRECATED_INFO}. Migrate the APIs for {removed} or provide compatible "
            f"version(s) via the labels. (e.g. LABEL {ANNOTATION_OPENSHIFT_VERSIONS}='4.6-4.8')"
        ]
    value = label.value.replace("'", "").replace('"', "")
    if len(value) <= 1:
        return [f"unable to get the range informed on {ANNOTATION_OPENSHIFT_VERSIONS}"]
    if not value.startswith("=") and "-" not in value:
        return [
            f"this bundle is {removed}. The {value} allows to distribute it on >= 4.9. Migrate the API(s) for "
            f"{removed} or provide comatible version(s) via the labels. (e.g. LABEL "
            f"{ANNOTATION_OPENSHIFT_VERSIONS}='4.6-4.8')"
        ]
    upper = value[1:] if value.startswith("=") else value.split("-")[1]  # =v4.8 or v4.6-v4.8
    version = parse_tolerant(upper)
    if version is None:
        return [f"unable to parse the value ({upper}) on ({ANNOTATION_OPENSHIFT_VERSIONS})"]
    if version < _OCP_UNSUPPORTED:
        return []
    if value.startswith("="):
        return [
            f"this bundle is {_K8S_DEPRECATED_INFO}. Migrate the API(s) for {removed} or use the OCP labels "
            f"for compatible version(s). (e.g. LABEL {ANNOTATION_OPENSHIFT_VERSIONS}='=v4.8')"
        ]
    return [
        f"this bundle is {_K8S_DEPRECATED_INFO}. Upgrade the APIs from (v1beta1) to (v1) for {removed} or "
        f"provide com[atible version(s) via the labels. (e.g. LABEL {ANNOTATION_OPENSHIFT_VERSIONS}='4.6-4.8')"
    ]


def validate_community(bundle: Bundle, options: ValidationOptions) -> list[Finding]:
    """The deprecated ``community`` validator: needed only when the bundle uses APIs removed in 1.22."""
    csv = bundle.csv
    if csv is None:
        return []
    found, _ = removed_objects(bundle, 22)
    if not found:
        return []
    removed = removed_api_message(22, found).partition("Migrate the API(s) for ")[2]
    errors, warnings = _max_openshift(bundle, removed)
    location = csv.loc("$.metadata.annotations['olm.properties']")
    out = BundleFindings(bundle)
    for text in errors:
        hint = "set olm.maxOpenShiftVersion below 4.9, or migrate to the v1 APIs"
        out.flag(ids.COMMUNITY_MAX_OCP, csv_message(text, csv.name), location, hint)
    for text in warnings:
        message = csv_message(text, csv.name)
        out.flag(ids.COMMUNITY_MAX_OCP, message, location, "write major.minor", Severity.WARNING)
    dockerfile = options.index_dockerfile
    if dockerfile is None:
        # upstream builds this warning list from its *error* list (community.go:196); we keep only the warning
        message = csv_message(
            "please, inform the path of its index image file via the the optional key values and the key "
            f"index-path to allow this validator check the labels configuration or migrate the API(s) for "
            f"{removed}. (e.g. index-path=./mypath/bundle.Dockerfile). This bundle is {_K8S_DEPRECATED_INFO} ",
            csv.name,
        )
        hint = "pass the bundle Dockerfile as index-path"
        out.flag(ids.COMMUNITY_OCP_LABEL, message, Location(file=bundle.root), hint, Severity.WARNING)
        return out
    label = dockerfile.label(ANNOTATION_OPENSHIFT_VERSIONS)
    label_location = Location(file=dockerfile.file, line=label.line if label is not None else None)
    hint = f"limit {ANNOTATION_OPENSHIFT_VERSIONS} to releases before 4.9, e.g. v4.6-v4.8"
    for text in check_ocp_label(dockerfile, removed):
        out.flag(ids.COMMUNITY_OCP_LABEL, csv_message(text, csv.name), label_location, hint)
    return out
