"""JSON text held inside documents, read within the nesting limit every input keeps.

Pure core: no I/O. A string in a bounded file (CSV annotations, ``related_images.json``) is a second
JSON document the json module reads recursively, so :func:`loads` refuses one nested too deep.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_DEPTH", "NestedTooDeep", "loads", "too_deep_at"]

MAX_DEPTH = 256
"""Deepest nesting of mappings and sequences accepted in any YAML or JSON input (files and embedded text)."""


class NestedTooDeep(ValueError):
    """JSON text nested deeper than :data:`MAX_DEPTH`."""


def too_deep_at(text: str, limit: int = MAX_DEPTH) -> tuple[int, int] | None:
    """``(line, depth)`` where JSON ``text`` first nests deeper than ``limit``, else ``None``.

    One forward pass counting brackets outside strings: a regex for the strings would be quadratic.
    """
    if text.count("[") + text.count("{") <= limit:  # the usual case: too few brackets to be that deep
        return None
    depth = 0
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, index) + 1, depth
        elif char in "]}":
            depth -= 1
    return None


def loads(text: str) -> Any:
    """``json.loads(text)``, refusing text nested deeper than :data:`MAX_DEPTH`.

    Raises:
        NestedTooDeep: the text nests too deep (a ``ValueError``, as the json module's refusals).
        json.JSONDecodeError: the text is not JSON.
    """
    if too_deep_at(text) is not None:
        raise NestedTooDeep(f"nested deeper than {MAX_DEPTH} levels")
    return json.loads(text)
