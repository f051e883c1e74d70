"""The root of releasekit's exceptions.

Exceptions are for what stops a command (exit 2: unreadable input, bad usage, a safety limit).
Wrong *content* is never an exception: rules return findings. Each class also subclasses the
matching builtin so callers' existing ``except`` clauses keep working.
"""

from __future__ import annotations

import re

__all__ = [
    "InputError",
    "one_line",
    "printable",
    "ReleasekitError",
    "SafetyLimitError",
    "TemplateError",
    "UpstreamError",
    "UsageError",
]


class ReleasekitError(Exception):
    """Root of every error releasekit raises on purpose; the CLI turns it into one line and exit 2."""


class InputError(ReleasekitError, OSError):
    """Input that cannot be read at all (missing path, a directory where a file is expected, a FIFO)."""


class SafetyLimitError(ReleasekitError, ValueError):
    """Input refused by a safety limit (size, alias expansion, a symlink leaving the tree)."""


class UsageError(ReleasekitError, ValueError):
    """A command line or argument combination that cannot work."""


class TemplateError(ReleasekitError, ValueError):
    """A bundle template that cannot be rendered (undefined variable, sandbox escape, bad name)."""


class UpstreamError(ReleasekitError, OSError):
    """Upstream Kueue content that cannot be reached or does not match what was recorded."""


def one_line(text: object) -> str:
    """An error message as the one line the CLI contract promises.

    Parsers such as yaml-rs explain an error over several lines (a caret drawing under the source); keep
    the first line and the last one, which carry the position and the problem.
    """
    lines = [line.strip() for line in printable(str(text), newlines=True).splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return f"{lines[0]}: {lines[-1]}"


_CONTROLS = (
    "\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f"  # C0 but the newline, DEL, C1
    "\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"  # line and paragraph separators, bidirectional controls
    "\\ufffe\\uffff\\ud800-\\udfff"  # what XML 1.0 forbids and UTF-8 cannot encode
)
_UNPRINTABLE = re.compile(f"[{_CONTROLS}]")
_UNPRINTABLE_OR_NEWLINE = re.compile(f"[{_CONTROLS}\\n]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (a file name read with surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, newlines: bool = False) -> str:
    r"""``text`` safe to print and to encode: control characters and undecodable bytes escaped.

    File names and other strings from input may hold terminal escape codes (ESC, the other C0 and C1
    controls, DEL), line and bidirectional-text controls, characters XML 1.0 forbids, and bytes that
    are not UTF-8 (surrogate-escaped in Python); each becomes a visible escape (``\x1b``, ``\xff``,
    ``\u202e``). ``newlines`` keeps ``\n`` (a message of several lines). One regular-expression pass
    over single characters: linear time.
    """
    if text.isprintable():  # C speed; everything escaped here is unprintable to Python too
        return text
    pattern = _UNPRINTABLE if newlines else _UNPRINTABLE_OR_NEWLINE
    return pattern.sub(_escape, text) if pattern.search(text) else text
