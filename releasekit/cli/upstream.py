"""``releasekit upstream``: record upstream Kueue releases (CRDs and feature gates) from git.

Subcommands live in their own modules and load on first use.
"""

from __future__ import annotations

from releasekit.cli._lazy import LazyGroup

__all__ = ["group"]

group = LazyGroup(
    name="upstream",
    help="Record upstream Kueue releases (CRDs and feature gates) from git.",
    commands_spec={
        "import": "releasekit.cli.upstream_import:command",
    },
)
