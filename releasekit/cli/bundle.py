"""``releasekit bundle``: generate and validate registry+v1 bundles.

Subcommands live in their own modules and load on first use.
"""

from __future__ import annotations

from releasekit.cli._lazy import LazyGroup

__all__ = ["group"]

group = LazyGroup(
    name="bundle",
    help="Generate and validate registry+v1 bundles.",
    commands_spec={
        "build": "releasekit.cli.bundle_build:command",
        "validate": "releasekit.cli.bundle_validate:command",
    },
)
