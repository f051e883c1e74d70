"""Kubernetes object-metadata validation, as operator-sdk's content check and the CRD validator run it.

Pure. A port of ``k8s.io/apimachinery`` v0.36's rules and messages (the version operator-framework/api
v0.45.0 builds with): ``ValidateObjectMetaAccessor`` and the label, annotation, finalizer,
owner-reference and DNS name checks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "aggregate",
    "dns1035_label_errors",
    "dns1123_subdomain_errors",
    "field_error",
    "label_key_errors",
    "label_value_errors",
    "object_meta_problems",
]

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY = re.compile(f"^{_LABEL_KEY_FMT}$")
_LABEL_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character"
)
_DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035 = re.compile(f"^{_DNS1035_FMT}$")
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character"
)
_ANNOTATIONS_LIMIT = 256 * 1024


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    """Kubernetes apimachinery's ``RegexError``: ``msg (e.g. 'a',  or 'b', regex used for validation is '...')``."""
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    text = message + " (e.g. "
    for index, example in enumerate(examples):
        if index:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def _max_len(length: int) -> str:
    return f"must be no more than {length} bytes"


def dns1123_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain``."""
    errors = []
    if len(value.encode()) > 253:
        errors.append(_max_len(253))
    if not _DNS1123_SUBDOMAIN.match(value):
        errors.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def dns1035_label_errors(value: str) -> list[str]:
    """``IsDNS1035Label``."""
    errors = []
    if len(value.encode()) > 63:
        errors.append(_max_len(63))
    if not _DNS1035.match(value):
        errors.append(_regex_error(_DNS1035_MSG, _DNS1035_FMT, "my-name", "abc-123"))
    return errors


def label_key_errors(value: str) -> list[str]:
    """``IsLabelKey`` (``IsQualifiedName``): an optional DNS subdomain prefix, '/', and a name part."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += ["prefix part " + msg for msg in dns1123_subdomain_errors(prefix)]
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errors.append("name part " + _max_len(63))
    if not _LABEL_KEY.match(name):
        errors.append(
            "name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


def label_value_errors(value: str) -> list[str]:
    """``IsLabelValue``."""
    errors = []
    if len(value.encode()) > 63:
        errors.append(_max_len(63))
    if not _LABEL_VALUE.match(value):
        errors.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


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


def _string_map(value: object) -> dict[str, str] | None:
    """What ``unstructured`` returns for labels/annotations: the map when every value is a string, else none."""
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        return None
    return {str(k): v for k, v in value.items()}


def object_meta_problems(
    metadata: object, *, namespaced: bool = False, name_errors: list[str] | None = None
) -> list[tuple[str, str]]:
    """(JSON path, message) for every rule ``ValidateObjectMetaAccessor`` breaks on ``metadata``.

    Read as ``unstructured`` reads it: a value of the wrong type counts as absent. ``namespaced`` is false
    for operator-sdk's content check (a namespace is forbidden); ``name_errors`` is what the caller's name
    function says of a non-empty name.
    """
    meta = metadata if isinstance(metadata, Mapping) else {}
    return [
        *_name_problems(meta, namespaced=namespaced, name_errors=name_errors),
        *_generation_problems(meta),
        *_label_problems(meta),
        *_annotation_problems(meta),
        *_finalizer_problems(meta),
        *_owner_reference_problems(meta),
    ]


def _name_problems(
    meta: Mapping[str, Any], *, namespaced: bool, name_errors: list[str] | None
) -> list[tuple[str, str]]:
    """The name is required and must pass the caller's name check; a namespace only where ``namespaced``."""
    out: list[tuple[str, str]] = []
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    if not name:
        out.append(
            ("$.metadata", field_error("Required value", "metadata.name", "name or generateName is required"))
        )
    else:
        for message in name_errors or []:
            out.append(("$.metadata.name", field_error("Invalid value", "metadata.name", message, name)))
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    if namespace and not namespaced:
        out.append(
            (
                "$.metadata.namespace",
                field_error("Forbidden", "metadata.namespace", "not allowed on this type"),
            )
        )
    return out


def _generation_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """An integer ``generation`` must not be negative."""
    generation = meta.get("generation")
    if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
        return [
            (
                "$.metadata.generation",
                field_error(
                    "Invalid value", "metadata.generation", "must be greater than or equal to 0", generation
                ),
            )
        ]
    return []


def _label_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every label key must be a qualified name and every value a label value."""
    out: list[tuple[str, str]] = []
    labels = _string_map(meta.get("labels")) or {}
    for key in sorted(labels):
        path = f"$.metadata.labels[{key!r}]"
        for message in label_key_errors(key):
            out.append((path, field_error("Invalid value", "metadata.labels", message, key)))
        for message in label_value_errors(labels[key]):
            out.append((path, field_error("Invalid value", "metadata.labels", message, labels[key])))
    return out


def _annotation_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every annotation key (lower-cased) must be a qualified name; all of them within the size limit."""
    out: list[tuple[str, str]] = []
    annotations = _string_map(meta.get("annotations")) or {}
    for key in sorted(annotations):
        for message in label_key_errors(key.lower()):
            out.append(
                (
                    f"$.metadata.annotations[{key!r}]",
                    field_error("Invalid value", "metadata.annotations", message, key),
                )
            )
    if sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items()) > _ANNOTATIONS_LIMIT:
        out.append(
            (
                "$.metadata.annotations",
                "metadata.annotations: Too long: may not be more than 262144 bytes",
            )
        )
    return out


def _finalizer_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every string finalizer must be a qualified name."""
    finalizers = meta.get("finalizers")
    if not isinstance(finalizers, list):
        return []
    return [
        ("$.metadata.finalizers", field_error("Invalid value", "metadata.finalizers", message, item))
        for item in finalizers
        if isinstance(item, str)
        for message in label_key_errors(item)
    ]


def _owner_reference_problems(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every owner reference needs a non-empty apiVersion, kind, name and uid."""
    owners = meta.get("ownerReferences")
    if not isinstance(owners, list):
        return []
    out: list[tuple[str, str]] = []
    for index, owner in enumerate(owners):
        owner = owner if isinstance(owner, Mapping) else {}
        base = f"metadata.ownerReferences[{index}]"
        for key in ("apiVersion", "kind", "name", "uid"):
            if not (isinstance(owner.get(key), str) and owner.get(key)):
                out.append((f"$.{base}", field_error("Required value", f"{base}.{key}", "must not be empty")))
    return out
