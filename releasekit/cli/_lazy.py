"""A click group whose subcommands are imported on first use (keeps ``releasekit --help`` fast)."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import click

__all__ = ["LazyGroup"]


class LazyGroup(click.Group):
    """Group that resolves ``name -> "module:attribute"`` only when a command is asked for.

    Modules that do not exist yet are simply not listed, so nouns can land one at a time.
    """

    def __init__(self, *args: Any, commands_spec: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands_spec = dict(commands_spec or {})

    def _available(self, name: str) -> bool:
        module = self.commands_spec[name].partition(":")[0]
        return importlib.util.find_spec(module) is not None

    def list_commands(self, ctx: click.Context) -> list[str]:
        lazy = [name for name in self.commands_spec if self._available(name)]
        return sorted({*super().list_commands(ctx), *lazy})

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a releasekit error becomes one line on stderr and exit 2 (never a traceback)."""
        from releasekit.errors import ReleasekitError, one_line

        try:
            return super().invoke(ctx)
        except ReleasekitError as exc:
            click.echo(f"releasekit: error: {one_line(exc)}", err=True)
            ctx.exit(2)
        except RecursionError:  # a last guard behind the nesting limits checked before parsing
            click.echo("releasekit: error: input nested too deeply to read; refusing it", err=True)
            ctx.exit(2)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands_spec and self._available(cmd_name):
            module_name, _, attr = self.commands_spec[cmd_name].partition(":")
            command = getattr(importlib.import_module(module_name), attr)
            if not isinstance(command, click.Command):  # pragma: no cover - programming error
                raise TypeError(f"{self.commands_spec[cmd_name]} is not a click command")
            return command
        return super().get_command(ctx, cmd_name)
