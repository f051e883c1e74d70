"""``releasekit upstream import``: record a Kueue pin's CRDs and feature gates from git."""

from __future__ import annotations

from pathlib import Path

from releasekit.errors import UpstreamError
from releasekit.io.streams import load_streams
from releasekit.io.upstream import (
    check_line,
    check_ref,
    inventory_path,
    open_repository,
    read_inventory,
    render_inventory,
    write_inventory,
)
from releasekit.model.inventory import Inventory
from releasekit.model.stream import ReleaseStatus

__all__ = ["import_upstream"]


def _released_users(streams_dir: Path, name: str) -> list[str]:
    """The published releases (not candidates) under ``streams_dir`` that name inventory ``name``."""
    if not any(streams_dir.glob("*.yaml")):
        return []
    return [
        f"{stream.name} {release.version}"
        for stream in load_streams(streams_dir).streams
        for release in stream.releases
        if release.upstream.inventory == name and release.status is not ReleaseStatus.CANDIDATE
    ]


def import_upstream(
    repo_spec: str, ref: str, streams_dir: Path, *, line: str | None = None, cache: Path | None = None
) -> tuple[Inventory, Path]:
    """Check the ref, open the repo, read at the ref, write the inventory; returns it and its path."""
    check_ref(ref)
    check_line(line)  # file names are made from it
    repo = open_repository(repo_spec, cache=cache)
    inventory = read_inventory(repo, ref, line=line)
    path = inventory_path(streams_dir, inventory)
    if path.is_file() and path.read_text(encoding="utf-8") != render_inventory(inventory):
        users = _released_users(streams_dir, inventory.name)
        if users:
            raise UpstreamError(
                f"{path}: inventory {inventory.name} is used by published release(s) {', '.join(users)}; "
                f"refusing to rewrite it with the facts of {ref} ({inventory.commit[:12]}); import another pin "
                "for a new release instead"
            )
    return inventory, write_inventory(streams_dir, inventory)
