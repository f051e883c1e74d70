"""The console entry's process handling: run the group, map errors to exit codes.

Kept apart from :mod:`releasekit.cli._common` so ``releasekit --help`` imports little beyond click.
"""

from __future__ import annotations

import sys

import click

from releasekit.errors import ReleasekitError, one_line

__all__ = ["run_main"]

EXIT_INPUT = 2


def run_main(group: click.Group, args: list[str] | None = None) -> None:
    """Run ``group``, turning releasekit errors into one line and exit 2."""
    try:
        rc = group.main(args=args, prog_name="releasekit", standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else 0)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(EXIT_INPUT)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_INPUT if exc.exit_code != 0 else 0)
    except ReleasekitError as exc:
        click.echo(f"releasekit: error: {one_line(exc)}", err=True)
        sys.exit(EXIT_INPUT)
    except RecursionError:  # a last guard behind the nesting limits checked before parsing
        click.echo("releasekit: error: input nested too deeply to read; refusing it", err=True)
        sys.exit(EXIT_INPUT)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
