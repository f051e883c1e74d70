"""``releasekit streams``: show and check the release streams (streams/).

Subcommands live in their own modules and load on first use.
"""

from __future__ import annotations

from releasekit.cli._lazy import LazyGroup

__all__ = ["group"]

group = LazyGroup(
    name="streams",
    help="Show and check the release streams (streams/).",
    commands_spec={
        "show": "releasekit.cli.streams_show:command",
        "map": "releasekit.cli.streams_map:command",
        "validate": "releasekit.cli.streams_validate:command",
    },
)
