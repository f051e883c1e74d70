"""Carried, not regenerated: which published bundle blobs a new catalog keeps byte for byte. Pure core.

Published means immutable: a published release's blob is kept exactly as committed, and only the
package, channels, edges and deprecations are planned around it. A blob is generated only the first time
a release ships in a catalog, and for candidates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from releasekit.model.fbc import PublishedBlob, PublishedKey
from releasekit.model.stream import Stream, published_bundles

__all__ = ["carried_blobs"]


def carried_blobs(
    streams: Sequence[Stream], published: Mapping[PublishedKey, PublishedBlob]
) -> dict[PublishedKey, PublishedBlob]:
    """The blobs of ``published`` that the new catalogs carry, keyed as ``published`` is.

    A blob is carried when it is the bundle of a published release of the stream that owns its package,
    and that release still lists the catalog's OpenShift version.
    """
    wanted = published_bundles(streams)
    return {key: blob for key, blob in sorted(published.items()) if key in wanted}
