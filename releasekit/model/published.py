"""A bundle blob as it was published: its decoded form, its exact text and where it was read. Pure core.

Read from ``catalog/`` at HEAD (or the base revision, for ``check``); :mod:`releasekit.plan.carry` keeps
a published release's blob byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from releasekit.model.fbc import Bundle
from releasekit.model.finding import Location

__all__ = ["PublishedBlob", "PublishedKey"]

PublishedKey = tuple[str, str, str]
"""``(OpenShift version, package, bundle name)``: one bundle in one catalog."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishedBlob:
    """One ``olm.bundle`` blob of a committed catalog.

    ``text`` is the blob's exact text, ``{`` to ``}``; ``revision`` what it was read from (``HEAD``).
    """

    bundle: Bundle
    text: str
    location: Location
    revision: str = "HEAD"
