"""Helpers shared by the bundle rules: api-style message rendering, safe field access, versions.

Pure: no I/O. Messages follow operator-framework/api's ``Error()`` rendering without the level prefix
(the severity carries it), ``[Field <f>, ][Value <v>: ]<detail>``, as ``operator-sdk bundle validate``
prints them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from releasekit.model.bundle import Bundle, Manifest
from releasekit.model.finding import Findings, Location, Severity
from releasekit.model.go_decode import tolerant_version
from releasekit.model.version import Version, VersionError, parse_version

__all__ = [
    "BundleFindings",
    "api_message",
    "as_list",
    "as_map",
    "as_str",
    "crd_descriptions",
    "csv_message",
    "go_quote_list",
    "gvk_string",
    "parse_semver",
    "parse_tolerant",
    "permission_rules",
]

_UNSET = object()


def api_message(detail: str, *, value: object = _UNSET, field: str = "") -> str:
    """Render like api's ``Error.Error()`` minus the ``Error: ``/``Warning: `` level prefix."""
    parts = [f"Field {field}"] if field else []
    if value is not _UNSET:
        parts.append(f"Value {value}")
    head = ", ".join(parts)
    return f"{head}: {detail}" if head and detail else head or detail


def csv_message(detail: str, csv_name: str) -> str:
    """Operator-framework/api's ``ErrInvalidCSV``/``WarnInvalidCSV``: ``Value : (<csv>) <detail>``."""
    return api_message(f"({csv_name}) {detail}", value="")


class BundleFindings(Findings):
    """Findings about one bundle (or about files validated alone, when ``bundle`` is None)."""

    def __init__(self, bundle: Bundle | None) -> None:
        super().__init__()
        self.subject = bundle.subject if bundle is not None else ()

    def flag(
        self, rule: str, message: str, location: Location, hint: str, severity: Severity = Severity.ERROR
    ) -> None:
        """Add a finding with the bundle as subject."""
        self.add(rule, message, location, hint, self.subject, severity)


def as_map(value: object) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> Sequence[Any]:
    """``value`` when it is a list, else an empty tuple."""
    return value if isinstance(value, list) else ()


def as_str(value: object) -> str:
    """``value`` when it is a string; numbers and booleans as YAML wrote them; else ''."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return ""


def crd_descriptions(csv: Manifest, field: str = "owned") -> list[tuple[str, Mapping[str, Any]]]:
    """(JSON path, entry) of the CSV's ``spec.customresourcedefinitions.<field>`` list."""
    items = as_list(as_map(csv.spec.get("customresourcedefinitions")).get(field))
    return [(f"$.spec.customresourcedefinitions.{field}[{i}]", as_map(item)) for i, item in enumerate(items)]


def _install_spec(csv: Manifest) -> Mapping[str, Any]:
    return as_map(as_map(csv.spec.get("install")).get("spec"))


def permission_rules(csv: Manifest) -> list[tuple[str, int, int, Mapping[str, Any]]]:
    """(field, permission index, rule index, rule) of the CSV's clusterPermissions, then permissions."""
    spec = _install_spec(csv)
    return [
        (field, i, j, as_map(rule))
        for field in ("clusterPermissions", "permissions")
        for i, permission in enumerate(as_list(spec.get(field)))
        for j, rule in enumerate(as_list(as_map(permission).get("rules")))
    ]


def gvk_string(group: str, version: str, kind: str) -> str:
    """Go's ``schema.GroupVersionKind.String()``: ``group/version, Kind=Kind`` (``/v1, Kind=Pod`` for core)."""
    return f"{group}/{version}, Kind={kind}"


def go_quote_list(items: Sequence[str]) -> str:
    """Go's ``%+q`` of a string slice: ``["a" "b"]`` (ASCII only, escapes as Go does for common cases)."""
    quoted = []
    for item in items:
        text = item.replace("\\", "\\\\").replace('"', '\\"')
        text = "".join(ch if 32 <= ord(ch) < 127 else f"\\u{ord(ch):04x}" for ch in text)
        quoted.append(f'"{text}"')
    return "[" + " ".join(quoted) + "]"


def _triple(parse: Callable[[str], Version], text: str) -> tuple[int, int, int] | None:
    try:
        version = parse(text)
    except VersionError:
        return None
    return version.major, version.minor, version.patch


def parse_semver(text: str) -> tuple[int, int, int] | None:
    """Strict semver (blang ``semver.Parse``): ``1.2.3[-pre][+build]``; returns (major, minor, patch)."""
    return _triple(parse_version, text)


def parse_tolerant(text: str) -> tuple[int, int, int] | None:
    """Blang's ``semver.ParseTolerant``: trims spaces and a leading ``v``, pads ``1.2`` to ``1.2.0``."""
    return _triple(tolerant_version, text)
