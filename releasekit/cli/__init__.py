"""The ``releasekit`` command line: a thin click layer; each command's module is imported only when used."""

from __future__ import annotations

import sys

import click

from releasekit import __version__
from releasekit.cli._lazy import LazyGroup

__all__ = ["cli", "main"]


def _noun(name: str, text: str, commands: str) -> LazyGroup:
    """A noun whose subcommands (``commands``, space-separated) ``x`` are ``releasekit.cli.<noun>:x_command``."""
    spec = {sub: f"releasekit.cli.{name}:{sub}_command" for sub in commands.split()}
    return LazyGroup(name=name, help=text, commands_spec=spec)


cli = LazyGroup(
    name="releasekit",
    help="Cut OLM releases of the Kueue operator: streams, bundles, file-based catalogs and their checks.",
    commands_spec={
        "build": "releasekit.cli.build:command",
        "streams": _noun("streams", "Show and check the release streams (streams/).", "show map validate"),
        "upstream": _noun(
            "upstream", "Record upstream Kueue releases (CRDs and feature gates) from git.", "import"
        ),
        "operator": _noun(
            "operator",
            "Record a release's operator facts (CSV, RBAC, manifests, labels) from the operator repository.",
            "import",
        ),
        "bundle": _noun("bundle", "Generate and validate registry+v1 bundles.", "build validate"),
        "catalog": _noun(
            "catalog",
            "Adopt, build, validate, render and graph file-based catalogs.",
            "adopt build validate render template graph matrix",
        ),
        "check": "releasekit.cli.check:command",
        "olmv1": _noun(
            "olmv1", "Install releases with OLM v1 (ClusterExtension) instead of a Subscription.", "manifests"
        ),
        "release": _noun("release", "Release notes and other documents about one release.", "notes"),
    },
)


cli = click.version_option(__version__, "--version", prog_name="releasekit", message="%(prog)s %(version)s")(
    cli
)


def main() -> None:
    """Console-script entry point: click's refusals exit 2 (bad usage), never a traceback.

    A releasekit error or a nesting too deep for Python is one line and exit 2 already (:class:`LazyGroup`).
    """
    try:
        rc = cli.main(prog_name="releasekit", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if exc.exit_code != 0 else 0)
    sys.exit(rc if isinstance(rc, int) else 0)
