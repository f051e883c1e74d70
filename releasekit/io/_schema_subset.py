"""An exact yes/no answer to "is this document valid?" for the JSON Schema keywords releasekit's schemas use.

Adapter helper (no I/O), so that a valid ``streams/`` file needs no jsonschema: importing it and walking a
document with it cost about a sixth of a ``catalog build --check`` run. The answer is exact both ways (``not``
needs that), but only "valid" is acted on: for a document that is not valid the caller runs jsonschema's
own ``Draft202012Validator``, whose errors become the findings, so findings and messages never change.

To be safe rather than fast, :func:`compile_schema` refuses (returns ``None``) any schema that holds a keyword
it does not implement with Draft 2020-12's exact semantics, so a new keyword in a shipped schema silently
sends every document to jsonschema. The keywords implemented, as jsonschema 4 reads them: ``type``,
``properties``, ``required``, ``additionalProperties``, ``items`` (without ``prefixItems``), ``minItems``,
``minLength``, ``uniqueItems``, ``pattern`` (``re.search``), ``enum`` and ``const`` of strings, ``not``, ``anyOf``, and the
annotations ``$schema``, ``$id``, ``title``, ``description``, ``$comment``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from numbers import Number
from typing import Any

__all__ = ["Check", "Undecided", "compile_schema"]

Check = Callable[[Any], bool]
"""True when the instance is valid, False when it is not: exactly jsonschema's verdict (or
:class:`Undecided` raised when it cannot be exact for this instance)."""

_ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "$comment"})


class _Unsupported(Exception):
    """The schema uses something this module does not implement exactly."""


def _is_integer(value: Any) -> bool:
    # Draft 6+: an int (not a bool), or a float with no fractional part
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": _is_integer,
    "number": lambda v: not isinstance(v, bool) and isinstance(v, Number),
}


def _always(_value: Any) -> bool:
    return True


def _never(_value: Any) -> bool:
    return False


def _strings(value: Any, keyword: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(type(v) is str for v in value):
        raise _Unsupported(keyword)
    return tuple(value)


def _compile(schema: Any) -> Check:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, Mapping):
        raise _Unsupported(repr(schema))
    checks: list[Check] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        checks.append(_keyword(keyword, value, schema))
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


class Undecided(Exception):  # noqa: N818 - not an error: "ask jsonschema"
    """Raised by a check that cannot give jsonschema's exact verdict for this instance."""


def _unique(items: list[Any]) -> bool:
    # jsonschema's uniq sorts and compares neighbours, with quirks for mixed lists (``[[1], [True], [1]]``
    # counts as unique); strings alone are exact, anything else is left to jsonschema itself
    if all(isinstance(i, str) for i in items):
        return len(set(items)) == len(items)
    raise Undecided


def _keyword(keyword: str, value: Any, schema: Mapping[str, Any]) -> Check:  # noqa: C901 - one branch per keyword
    if keyword == "type":
        names = (value,) if isinstance(value, str) else _strings(value, keyword)
        if not all(name in _TYPES for name in names):
            raise _Unsupported(f"type {value!r}")
        tests = tuple(_TYPES[name] for name in names)
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(test(v) for test in tests)
    if keyword == "properties":
        if not isinstance(value, Mapping):
            raise _Unsupported(keyword)
        props = tuple((name, _compile(sub)) for name, sub in value.items())

        def properties(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            return all(check(v[name]) for name, check in props if name in v)

        return properties
    if keyword == "required":
        names = _strings(value, keyword)
        return lambda v: not isinstance(v, dict) or all(name in v for name in names)
    if keyword == "additionalProperties":
        if "patternProperties" in schema:
            raise _Unsupported("patternProperties")
        known = schema.get("properties", {})
        if not isinstance(known, Mapping):
            raise _Unsupported("properties")
        extra_check = _compile(value)

        def additional(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            return all(extra_check(item) for key, item in v.items() if key not in known)

        return additional
    if keyword == "items":
        if "prefixItems" in schema:
            raise _Unsupported("prefixItems")
        item_check = _compile(value)
        return lambda v: not isinstance(v, list) or all(item_check(item) for item in v)
    if keyword in ("minItems", "minLength"):
        if type(value) is not int:
            raise _Unsupported(keyword)
        if keyword == "minItems":
            return lambda v: not isinstance(v, list) or len(v) >= value
        return lambda v: not isinstance(v, str) or len(v) >= value
    if keyword == "uniqueItems":
        if not isinstance(value, bool):
            raise _Unsupported(keyword)
        if not value:
            return _always
        return lambda v: not isinstance(v, list) or _unique(v)
    if keyword == "pattern":
        if not isinstance(value, str):
            raise _Unsupported(keyword)
        search = re.compile(value).search
        return lambda v: not isinstance(v, str) or search(v) is not None
    if keyword == "enum":
        # jsonschema's ``equal``: a string equals only an equal string
        allowed = frozenset(_strings(value, keyword))
        return lambda v: isinstance(v, str) and v in allowed
    if keyword == "const":
        if type(value) is not str:
            raise _Unsupported(keyword)
        return lambda v: isinstance(v, str) and v == value
    if keyword == "not":
        inner = _compile(value)
        return lambda v: not inner(v)
    if keyword == "anyOf":
        if not isinstance(value, list) or not value:
            raise _Unsupported(keyword)
        options = tuple(_compile(sub) for sub in value)
        return lambda v: any(option(v) for option in options)
    raise _Unsupported(keyword)


def compile_schema(schema: Any) -> Check | None:
    """A checker that answers exactly as jsonschema's Draft 2020-12 validator would, or ``None``.

    ``None`` means the schema uses something not implemented here: validate with jsonschema instead.
    """
    try:
        return _compile(schema)
    except _Unsupported:
        return None
