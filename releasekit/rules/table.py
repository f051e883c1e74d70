"""Rule tables as text: a rule a line, its fields apart by `` | ``. Pure; imports nothing of releasekit."""

from __future__ import annotations

__all__ = ["parse_table"]


def parse_table(text: str) -> dict[str, list[str]]:
    """Rule id -> its fields, for each line of ``text`` that starts with ``RK-``.

    An indented line continues the row above it (joined with a space); any other line (blank, a ``#``
    heading) is left out.
    """
    rows: dict[str, str] = {}
    rule = ""
    for line in text.splitlines():
        if line.startswith(" "):
            rows[rule] += " " + line.strip()
        elif line.startswith("RK-"):
            rule, _, fields = line.partition(" ")
            rows[rule] = fields.strip()
    return {rule: fields.split(" | ") for rule, fields in rows.items()}
