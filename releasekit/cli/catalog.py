"""``releasekit catalog``: adopt, build, validate, render and graph file-based catalogs.

Subcommands live in their own modules and load on first use.
"""

from __future__ import annotations

from releasekit.cli._lazy import LazyGroup

__all__ = ["group"]

group = LazyGroup(
    name="catalog",
    help="Adopt, build, validate, render and graph file-based catalogs.",
    commands_spec={
        "adopt": "releasekit.cli.catalog_adopt:command",
        "build": "releasekit.cli.catalog_build:command",
        "validate": "releasekit.cli.catalog_validate:command",
        "render": "releasekit.cli.catalog_render:command",
        "template": "releasekit.cli.catalog_template:command",
        "graph": "releasekit.cli.catalog_graph:command",
        "matrix": "releasekit.cli.catalog_matrix:command",
    },
)
