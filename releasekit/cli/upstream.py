"""``releasekit upstream import``: record a Kueue release's CRDs and feature gates from git."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import streams_dir_option

__all__ = ["import_command"]


@click.command(name="import")
@click.option(
    "--repo", "repo", required=True, help="A local Kueue clone, or a URL (cloned once into the cache)."
)
@click.option("--ref", "ref", required=True, help="The tag or commit to read.")
@streams_dir_option("Write streams/upstream/kueue-<pin>.yaml under this folder.")
@click.option("--line", "line", default=None, help="The Kueue line (X.Y) when the ref has no tag to tell it.")
def import_command(repo: str, ref: str, streams_dir: Path, line: str | None) -> None:
    """Read CRDs and feature gates at REF (no work tree) and write the exact inventory."""
    from releasekit.jobs.upstream_import import import_upstream

    inventory, path = import_upstream(repo, ref, streams_dir, line=line)
    click.echo(
        f"wrote {path}: Kueue {inventory.line} at {inventory.ref} ({inventory.commit[:12]}), "
        f"{len(inventory.crds)} CRDs, {len(inventory.gates)} gates from {inventory.features_file}"
    )
