"""The ``releasekit`` command line: a thin click layer.

Each noun lives in its own module and is imported only when used, so start-up stays fast.
Commands parse options, call the core, hand the report to a reporter and return the exit code
of the contract: 0 no error findings, 1 error findings, 2 unreadable input or bad usage.
"""

from __future__ import annotations

import click

from releasekit import __version__
from releasekit.cli._lazy import LazyGroup

__all__ = ["cli", "main"]

cli = LazyGroup(
    name="releasekit",
    help="Cut OLM releases of the Kueue operator: streams, bundles, file-based catalogs and their checks.",
    commands_spec={
        "build": "releasekit.cli.build:command",
        "streams": "releasekit.cli.streams:group",
        "upstream": "releasekit.cli.upstream:group",
        "operator": "releasekit.cli.operator:group",
        "bundle": "releasekit.cli.bundle:group",
        "catalog": "releasekit.cli.catalog:group",
        "check": "releasekit.cli.check:command",
        "olmv1": "releasekit.cli.olmv1:group",
    },
)


cli = click.version_option(__version__, "--version", prog_name="releasekit", message="%(prog)s %(version)s")(
    cli
)


def main() -> None:
    """Console-script entry point."""
    from releasekit.cli._main import run_main

    run_main(cli)
