"""The console entry's process handling: run the group, map errors to exit codes, exit fast when asked.

Kept apart from :mod:`releasekit.cli._common` so ``releasekit --help`` imports little beyond click.
"""

from __future__ import annotations

import os
import sys

import click

from releasekit.errors import ReleasekitError, one_line

__all__ = ["request_fast_exit", "run_main"]

EXIT_INPUT = 2

_fast_exit = False
_in_console = False
_kept: list[object] = []


def request_fast_exit(keep: object = None) -> None:
    """Let :func:`run_main` end the process without freeing what the command loaded.

    For commands that hold a large catalog and have nothing left to clean up: tearing down millions of
    objects at interpreter exit costs about a tenth of a second. ``keep`` (what the command loaded) is
    held until then, so that it is not freed on the way out either (about 10 ms for half of a community
    catalog). Only the console entry acts on it; under click's test runner (or any other caller of the
    command) nothing changes and nothing is held.
    """
    global _fast_exit
    _fast_exit = True
    if _in_console and keep is not None:
        _kept.append(keep)


def run_main(group: click.Group, args: list[str] | None = None) -> None:
    """Run ``group``, turning releasekit errors into one line and exit 2.

    The process ends soon after the command, so loaded catalogs are frozen out of the garbage
    collector's view (:mod:`releasekit.io.collector`), which a long-lived library caller would not want.
    """
    from releasekit.io.collector import freeze_after_loading

    global _fast_exit, _in_console
    _fast_exit = False
    _in_console = True
    freeze_after_loading()
    try:
        rc = group.main(args=args, prog_name="releasekit", standalone_mode=False)
        _exit(rc if isinstance(rc, int) else 0)
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
        _exit(exc.exit_code)
    finally:  # reached only when the process is not ended at once (no fast exit)
        _in_console = False
        _kept.clear()


def _exit(code: int) -> None:
    if _fast_exit:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
