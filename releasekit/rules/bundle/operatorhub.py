"""OperatorHub validators: ``operatorhubv2``, ``capabilities``, ``categories`` and the deprecated ``operatorhub``.

Pure. Rules RK-BUNDLE-050 … 053 (api ``internal/operatorhub*.go``, ``standardcapabilities.go``,
``standardcategories.go``); messages are api's ``Value : (<csv>) <detail>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, ValidationOptions
from releasekit.model.finding import Finding, Location, Severity
from releasekit.rules.bundle._common import (
    BundleFindings,
    as_list,
    as_map,
    as_str,
    csv_message,
    parse_tolerant,
)
from releasekit.rules.bundle.csv import min_kube_problems
from releasekit.rules.bundle.removed_apis import validate_removed_apis

__all__ = [
    "STANDARD_CAPABILITIES",
    "STANDARD_CATEGORIES",
    "validate_capabilities",
    "validate_categories",
    "validate_operatorhub",
    "validate_operatorhub_v2",
]

STANDARD_CAPABILITIES = (
    "Basic Install",
    "Seamless Upgrades",
    "Full Lifecycle",
    "Deep Insights",
    "Auto Pilot",
)
STANDARD_CATEGORIES = (
    "AI/Machine Learning",
    "Application Runtime",
    "Big Data",
    "Cloud Provider",
    "Developer Tools",
    "Database",
    "Integration & Delivery",
    "Logging & Tracing",
    "Monitoring",
    "Modernization & Migration",
    "Networking",
    "OpenShift Optional",
    "Security",
    "Storage",
    "Streaming & Messaging",
    "Observability",
)
_ICON_TYPES = ("image/gif", "image/jpeg", "image/png", "image/svg+xml")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_ADDR = re.compile(r"^[^@\s<>()\[\]\\,;:\"]+@[^@\s<>()\[\]\\,;:\"]+$")


def _mail_error(address: str) -> str | None:
    """A small net/mail ``ParseAddress`` stand-in: the errors operator authors actually hit."""
    text = address.strip()
    if "<" in text:
        if not text.endswith(">"):
            return "mail: unclosed angle-addr"
        text = text[text.rindex("<") + 1 : -1]
    if "@" not in text:
        return "mail: missing '@' or angle-addr"
    if not _ADDR.match(text):
        return "mail: no angle-addr"
    local, _, domain = text.partition("@")
    if not local or not domain or domain.startswith(".") or domain.endswith(".") or ".." in domain:
        return "mail: invalid domain"
    return None


def _url_error(url: str) -> str | None:
    """Go ``url.ParseRequestURI``: an absolute URI or an absolute path."""
    if _SCHEME.match(url) or url.startswith("/"):
        if " " in url:
            return f'parse "{url}": invalid character " " in URL'
        return None
    return f'parse "{url}": invalid URI for request'


def validate_operatorhub_v2(bundle: Bundle, options: ValidationOptions) -> list[Finding]:
    """``operatorhubv2``: provider, maintainers, links, version, icon, minKubeVersion, plus removed APIs."""
    out = _hub_checks(bundle)
    out += validate_removed_apis(bundle, options)
    return out


class _Problem(NamedTuple):
    """One operatorhub problem of the CSV, before it becomes a finding of HUB_METADATA."""

    detail: str
    path: str
    hint: str
    severity: Severity = Severity.ERROR


def _hub_checks(bundle: Bundle) -> list[Finding]:
    """The operatorhub metadata checks of the CSV, each problem a finding of HUB_METADATA."""
    csv = bundle.csv
    if csv is None:
        return []
    spec = csv.spec
    problems = [
        *_provider_problems(spec),
        *_named_items(spec, "maintainers", "email", _mail_error, "write a valid e-mail address"),
        *_named_items(spec, "links", "url", _url_error, "write an absolute URL (https://...)"),
        *_version_problems(spec),
        *_icon_problems(spec),
        *(_Problem(*problem) for problem in min_kube_problems(spec)),
    ]
    out = BundleFindings(bundle)
    for detail, path, hint, severity in problems:
        out.flag(ids.HUB_METADATA, csv_message(detail, csv.name), csv.loc(path), hint, severity)
    return out


def _provider_problems(spec: Mapping[str, Any]) -> list[_Problem]:
    """``spec.provider.name`` is set."""
    if as_str(as_map(spec.get("provider")).get("name")).strip():
        return []
    return [_Problem("csv.Spec.Provider.Name not specified", "$.spec.provider", "set spec.provider.name")]


def _named_items(
    spec: Mapping[str, Any], key: str, field: str, error: Callable[[str], str | None], fix: str
) -> list[_Problem]:
    """Every ``spec.<key>`` item (maintainers, links) has a name and a valid ``field`` (email, url)."""
    out: list[_Problem] = []
    go = key.capitalize()
    hint = f"give each {key[:-1]} a name and {'an' if field == 'email' else 'a'} {field}"
    for index, raw in enumerate(as_list(spec.get(key))):
        item = as_map(raw)
        value = as_str(item.get(field))
        path = f"$.spec.{key}[{index}]"
        if not as_str(item.get("name")) or not value:
            out.append(_Problem(f"csv.Spec.{go} elements should contain both name and {field}", path, hint))
        problem = error(value) if value else None
        if problem is not None:
            detail = f"csv.Spec.{go} {field} {value} is invalid: {problem}"
            out.append(_Problem(detail, f"{path}.{field}", fix))
    return out


def _version_problems(spec: Mapping[str, Any]) -> list[_Problem]:
    """``spec.version`` is set (and not 0.0.0)."""
    version = parse_tolerant(as_str(spec.get("version")))
    if version is not None and version != (0, 0, 0):
        return []
    path = "$.spec.version" if "version" in spec else "$.spec"
    return [_Problem("csv.Spec.Version must be set", path, "set spec.version")]


def _icon_problems(spec: Mapping[str, Any]) -> list[_Problem]:
    """One icon, with data and a media type of an image format OperatorHub shows."""
    if spec.get("icon") is None:
        hint = "add spec.icon with one base64 image"
        return [_Problem("csv.Spec.Icon not specified", "$.spec", hint, Severity.WARNING)]
    icons = as_list(spec.get("icon"))
    out: list[_Problem] = []
    if len(icons) != 1:
        out.append(
            _Problem("csv.Spec.Icon should only have one element", "$.spec.icon", "keep exactly one icon")
        )
    icon = as_map(icons[0]) if icons else {}
    media = as_str(icon.get("mediatype"))
    if icons and (not as_str(icon.get("base64data")) or not media):
        detail = "csv.Spec.Icon elements should contain both data and mediatype"
        out.append(_Problem(detail, "$.spec.icon[0]", "set base64data and mediatype"))
    elif icons and media not in _ICON_TYPES:
        detail = f"csv.Spec.Icon {media} does not have a valid mediatype"
        out.append(_Problem(detail, "$.spec.icon[0].mediatype", "use one of " + ", ".join(_ICON_TYPES)))
    return out


def validate_capabilities(bundle: Bundle) -> list[Finding]:
    """``capabilities``: the ``capabilities`` annotation, when present, is a standard level."""
    csv = bundle.csv
    out = BundleFindings(bundle)
    if csv is None or "capabilities" not in csv.annotations:
        return out
    value = as_str(csv.annotations.get("capabilities"))
    if value not in STANDARD_CAPABILITIES:
        message = csv_message(
            f'csv.Metadata.Annotations.Capabilities "{value}" is not a valid capabilities level', csv.name
        )
        hint = "use one of " + ", ".join(STANDARD_CAPABILITIES)
        out.flag(ids.HUB_CAPABILITIES, message, csv.loc("$.metadata.annotations.capabilities"), hint)
    return out


def validate_categories(bundle: Bundle, options: ValidationOptions) -> list[Finding]:
    """``categories``: each comma-separated category is standard (or in the custom list given)."""
    csv = bundle.csv
    out = BundleFindings(bundle)
    if csv is None or "categories" not in csv.annotations:
        return out
    allowed = options.custom_categories if options.custom_categories is not None else STANDARD_CATEGORIES
    label = "custom" if options.custom_categories is not None else "standard"
    for item in as_str(csv.annotations.get("categories")).split(","):
        if item.strip() not in allowed:
            message = csv_message(
                f'csv.Metadata.Annotations["categories"] value "{item}" is not in the set of {label} categories',
                csv.name,
            )
            hint = "use categories from: " + ", ".join(sorted(allowed))
            out.flag(ids.HUB_CATEGORIES, message, csv.loc("$.metadata.annotations.categories"), hint)
    return out


def validate_operatorhub(bundle: Bundle, options: ValidationOptions) -> list[Finding]:
    """Deprecated ``operatorhub``: v2 checks + capabilities + categories, and a deprecation warning."""
    out = BundleFindings(bundle)
    out += _hub_checks(bundle) + validate_capabilities(bundle) + validate_categories(bundle, options)
    message = (
        'The "operatorhub" validator is deprecated; for equivalent validation use "operatorhub/v2", '
        '"standardcapabilities" and "standardcategories" validators'
    )
    hint = "select operatorhubv2,capabilities,categories instead"
    out.flag(ids.HUB_DEPRECATED_VALIDATOR, message, Location(file=bundle.root), hint, Severity.WARNING)
    return out
