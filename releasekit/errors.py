"""The root of releasekit's exceptions.

Exceptions are for what stops a command (exit 2: unreadable input, bad usage, a safety limit).
Wrong *content* is never an exception: rules return findings. Each class also subclasses the
matching builtin so callers' existing ``except`` clauses keep working.
"""

from __future__ import annotations

__all__ = [
    "InputError",
    "one_line",
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
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return f"{lines[0]}: {lines[-1]}"
