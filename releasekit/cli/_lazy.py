"""A click group whose subcommands are imported on first use (keeps ``releasekit --help`` fast)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click

from releasekit.errors import ReleasekitError, one_line

__all__ = ["LazyGroup"]


class LazyGroup(click.Group):
    """Group whose commands are ``name -> "module:attribute"`` (imported when asked for) or a command."""

    def __init__(self, *args: Any, commands_spec: Mapping[str, str | click.Command], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands_spec = commands_spec

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.commands_spec})

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a releasekit error becomes one line on stderr and exit 2 (never a traceback)."""
        try:
            return super().invoke(ctx)
        except ReleasekitError as exc:
            click.echo(f"releasekit: error: {one_line(exc)}", err=True)
            ctx.exit(2)
        except RecursionError:  # a last guard behind the nesting limits checked before parsing
            click.echo("releasekit: error: input nested too deeply to read; refusing it", err=True)
            ctx.exit(2)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = self.commands_spec.get(cmd_name)
        if isinstance(spec, str):
            module_name, _, attr = spec.partition(":")
            spec = getattr(importlib.import_module(module_name), attr)
        return spec if spec is not None else super().get_command(ctx, cmd_name)
