"""Kubernetes object-metadata validation, as operator-sdk's content check and the CRD validator run it.

Pure. A port of ``k8s.io/apimachinery`` v0.36's rules and messages (the version operator-framework/api
v0.45.0 builds with): ``ValidateObjectMetaAccessor`` and the label, annotation, finalizer,
owner-reference and DNS name checks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from releasekit.rules.bundle._common import as_list, as_map

__all__ = [
    "aggregate",
    "dns1035_label_errors",
    "dns1123_subdomain_errors",
    "field_error",
    "label_key_errors",
    "label_value_errors",
    "object_meta_problems",
]


@dataclass(frozen=True, slots=True)
class _Syntax:
    """One apimachinery string check: a byte limit and a regular expression, with its message and examples."""

    limit: int
    fmt: str
    message: str
    examples: tuple[str, ...]

    def regex_error(self) -> str:
        """The ``RegexError`` message: ``msg (e.g. 'a',  or 'b', regex used for validation is '...')``."""
        examples = " or ".join(f"'{example}', " for example in self.examples)
        return f"{self.message} (e.g. {examples}regex used for validation is '{self.fmt}')"

    def errors(self, value: str) -> list[str]:
        """The byte-limit error, then the regular expression's."""
        out = [f"must be no more than {self.limit} bytes"] if len(value.encode()) > self.limit else []
        return out + ([] if re.fullmatch(self.fmt, value) else [self.regex_error()])


_ALNUM_ENDS = "must start and end with an alphanumeric character"
_QUALIFIED = _Syntax(
    63,
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]",
    f"must consist of alphanumeric characters, '-', '_' or '.', and {_ALNUM_ENDS}",
    ("MyName", "my.name", "123-abc"),
)
_LABEL_VALUE = _Syntax(
    63,
    f"({_QUALIFIED.fmt})?",
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    + _ALNUM_ENDS,
    ("MyValue", "my_value", "12345"),
)
_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = _Syntax(
    253,
    f"{_DNS1123_LABEL}(\\.{_DNS1123_LABEL})*",
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    + _ALNUM_ENDS,
    ("example.com",),
)
_DNS1035 = _Syntax(
    63,
    "[a-z]([-a-z0-9]*[a-z0-9])?",
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character",
    ("my-name", "abc-123"),
)
_ANNOTATIONS_LIMIT = 256 * 1024


def dns1123_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain``."""
    return _SUBDOMAIN.errors(value)


def dns1035_label_errors(value: str) -> list[str]:
    """``IsDNS1035Label``."""
    return _DNS1035.errors(value)


def label_value_errors(value: str) -> list[str]:
    """``IsLabelValue``."""
    return _LABEL_VALUE.errors(value)


def label_key_errors(value: str) -> list[str]:
    """``IsLabelKey`` (``IsQualifiedName``): an optional DNS subdomain prefix, '/', and a name part."""
    parts = value.split("/")
    if len(parts) > 2:
        return [
            f"a valid label key {_QUALIFIED.regex_error()} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        ]
    errors: list[str] = []
    if len(parts) == 2 and not parts[0]:
        errors.append("prefix part must be non-empty")
    elif len(parts) == 2:
        errors += ["prefix part " + message for message in dns1123_subdomain_errors(parts[0])]
    if not parts[-1]:
        errors.append("name part must be non-empty")
    return errors + ["name part " + message for message in _QUALIFIED.errors(parts[-1])]


def _go_value(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def field_error(kind: str, path: str, detail: str = "", value: object = None) -> str:
    """``field.Error.Error()``: ``<path>: Invalid value: "<v>": <detail>`` / ``<path>: Required value``."""
    body = f"{kind}: {_go_value(value)}" if kind in ("Invalid value", "Unsupported value") else kind
    return f"{path}: {body}" + (f": {detail}" if detail else "")


def aggregate(messages: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message as is, several de-duplicated in ``[a, b]``."""
    unique = list(dict.fromkeys(messages))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


def _text(mapping: object, key: str) -> str:
    """A string field as ``unstructured`` reads it: a value of another type counts as absent."""
    value = as_map(mapping).get(key)
    return value if isinstance(value, str) else ""


def _string_map(value: object) -> dict[str, str]:
    """Labels/annotations as ``unstructured`` returns them: empty unless every value is a string."""
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        return {}
    return {str(k): v for k, v in value.items()}


def _invalid(path: str, field: str, detail: str, value: object) -> tuple[str, str]:
    return path, field_error("Invalid value", field, detail, value)


def object_meta_problems(
    metadata: object, *, namespaced: bool = False, name_errors: list[str] | None = None
) -> list[tuple[str, str]]:
    """(JSON path, message) for every rule ``ValidateObjectMetaAccessor`` breaks on ``metadata``.

    ``namespaced`` is false for operator-sdk's content check (a namespace is forbidden); ``name_errors``
    is what the caller's name function says of a non-empty name.
    """
    meta = as_map(metadata)
    return [
        *_identity_problems(meta, namespaced, name_errors or []),
        *_map_problems(meta),
        *_list_problems(meta),
    ]


def _identity_problems(
    meta: Mapping[str, Any], namespaced: bool, name_errors: list[str]
) -> list[tuple[str, str]]:
    """A name that passes the caller's check, a namespace only where ``namespaced``, a generation >= 0."""
    name = _text(meta, "name")
    if name:
        out = [_invalid("$.metadata.name", "metadata.name", message, name) for message in name_errors]
    else:
        required = field_error("Required value", "metadata.name", "name or generateName is required")
        out = [("$.metadata", required)]
    if _text(meta, "namespace") and not namespaced:
        forbidden = field_error("Forbidden", "metadata.namespace", "not allowed on this type")
        out.append(("$.metadata.namespace", forbidden))
    generation = meta.get("generation")
    if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
        detail = "must be greater than or equal to 0"
        out.append(_invalid("$.metadata.generation", "metadata.generation", detail, generation))
    return out


def _map_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Label keys and values, annotation keys (lower-cased) and the annotations' total size."""
    out: list[tuple[str, str]] = []
    labels = _string_map(meta.get("labels"))
    for key in sorted(labels):
        path = f"$.metadata.labels[{key!r}]"
        out += [_invalid(path, "metadata.labels", message, key) for message in label_key_errors(key)]
        value = labels[key]
        out += [_invalid(path, "metadata.labels", message, value) for message in label_value_errors(value)]
    annotations = _string_map(meta.get("annotations"))
    for key in sorted(annotations):
        path = f"$.metadata.annotations[{key!r}]"
        out += [_invalid(path, "metadata.annotations", m, key) for m in label_key_errors(key.lower())]
    if sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items()) > _ANNOTATIONS_LIMIT:
        too_long = "metadata.annotations: Too long: may not be more than 262144 bytes"
        out.append(("$.metadata.annotations", too_long))
    return out


def _list_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """String finalizers are qualified names; owner references have an apiVersion, kind, name and uid."""
    out = [
        _invalid("$.metadata.finalizers", "metadata.finalizers", message, item)
        for item in as_list(meta.get("finalizers"))
        if isinstance(item, str)
        for message in label_key_errors(item)
    ]
    for index, owner in enumerate(as_list(meta.get("ownerReferences"))):
        base = f"metadata.ownerReferences[{index}]"
        for key in ("apiVersion", "kind", "name", "uid"):
            if not _text(owner, key):
                out.append((f"$.{base}", field_error("Required value", f"{base}.{key}", "must not be empty")))
    return out
