"""Published bundles carried byte for byte: read them from git, choose them, and judge them.

Job module (git and files through :mod:`releasekit.io`; the decision is :mod:`releasekit.plan.carry`'s,
the judgement :mod:`releasekit.rules.carry`'s). ``build`` and ``catalog build`` carry what the catalog
tree holds at git HEAD; ``check`` carries what it holds at the base revision. A tree that is in no git
repository (or one with no commit yet) carries nothing: every blob is generated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from releasekit.io.fbc_blobs import published_blobs
from releasekit.io.gitrev import committed_files
from releasekit.model.fbc import Bundle
from releasekit.model.finding import Finding, Location
from releasekit.model.layout import CatalogLayout
from releasekit.model.published import PublishedBlob, PublishedKey
from releasekit.model.stream import Stream
from releasekit.plan.carry import carried_blobs
from releasekit.rules.carry import check_carried_edits, check_carried_facts

__all__ = ["carried_at", "carried_at_head", "carry_findings", "working_findings"]


def _shown(display: str) -> str:
    return display.rstrip("/") or "."


def carried_at(
    files: Mapping[PurePosixPath, Callable[[], bytes]],
    streams: Sequence[Stream],
    layout: CatalogLayout,
    *,
    display: str,
    revision: str,
) -> dict[PublishedKey, PublishedBlob]:
    """The blobs a build carries from the committed tree ``files`` (paths relative to the layout's root)."""
    published = published_blobs(files, layout, display_root=_shown(display), revision=revision)
    return carried_blobs(streams, published)


def carried_at_head(
    catalog_dir: Path, streams: Sequence[Stream], layout: CatalogLayout, *, display: str
) -> dict[PublishedKey, PublishedBlob]:
    """The blobs a build carries from ``catalog_dir`` as committed at HEAD (none outside git)."""
    committed = committed_files(catalog_dir)
    if committed is None:
        return {}
    files, label = committed
    return carried_at(
        {rel: ref.read for rel, ref in files.items()}, streams, layout, display=display, revision=label
    )


def carry_findings(
    carried: Mapping[PublishedKey, PublishedBlob],
    regenerated: Mapping[PublishedKey, Bundle],
    streams: Sequence[Stream],
) -> list[Finding]:
    """RK-DIFF-011 for carried blobs that contradict their release's facts."""
    defined: dict[tuple[str, str], Location] = {
        (s.package, r.csv_name(s.package)): r.origin.at("") for s in streams for r in s.releases
    }
    pairs = [
        (key, blob, bundle, defined.get((key[1], key[2]), Location()))
        for key, blob in sorted(carried.items())
        if (bundle := regenerated.get(key)) is not None
    ]
    return list(check_carried_facts(pairs))


def working_findings(
    catalog_dir: Path,
    carried: Mapping[PublishedKey, PublishedBlob],
    layout: CatalogLayout,
    *,
    display: str,
) -> list[Finding]:
    """RK-DIFF-010 for carried blobs edited (or removed) in the working tree of ``catalog_dir``."""
    if not carried or not catalog_dir.is_dir():
        return []
    files: dict[PurePosixPath, Callable[[], bytes]] = {}
    for path in sorted(
        catalog_dir.glob(f"*/{layout.fbc_dir}/*/catalog.json")
    ):  # not all of a repository root
        rel = PurePosixPath(path.relative_to(catalog_dir).as_posix())
        if path.is_file() and layout.catalog_key(rel) is not None:
            files[rel] = path.read_bytes
    shown = _shown(display)
    working = published_blobs(files, layout, display_root=shown, revision="working tree")
    names = [f"{shown}/{rel}" if shown != "." else str(rel) for rel in files]
    return list(check_carried_edits(carried, working, names))
