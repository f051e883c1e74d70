"""``releasekit upstream import``: record a Kueue release's CRDs and feature gates from git.

Job: checks the ref, opens the repository (a path, or a URL cloned once into the cache) and reads the
tree at the ref with :mod:`releasekit.io.upstream` (no work tree), then writes the inventory under
``streams/upstream/``.
"""

from __future__ import annotations

from pathlib import Path

from releasekit.io.upstream import check_ref, open_repository, read_inventory, write_inventory
from releasekit.model.inventory import Inventory

__all__ = ["import_upstream"]


def import_upstream(
    repo_spec: str, ref: str, streams_dir: Path, *, line: str | None = None, cache: Path | None = None
) -> tuple[Inventory, Path]:
    """Check the ref, open the repo, read at the ref, write the inventory; returns it and its path.

    Raises:
        UsageError: the ref is unsafe.
        UpstreamError: the repository or the ref cannot be read.
    """
    check_ref(ref)
    repo = open_repository(repo_spec, cache=cache)
    inventory = read_inventory(repo, ref, line=line)
    return inventory, write_inventory(streams_dir, inventory)
