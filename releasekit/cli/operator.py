"""``releasekit operator``: record the Kueue operator's own bundle facts from its git repository.

Subcommands live in their own modules and load on first use.
"""

from __future__ import annotations

from releasekit.cli._lazy import LazyGroup

__all__ = ["group"]

group = LazyGroup(
    name="operator",
    help="Record a release's operator facts (CSV, RBAC, manifests, labels) from the operator repository.",
    commands_spec={
        "import": "releasekit.cli.operator_import:command",
    },
)
