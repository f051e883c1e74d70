"""A bundle blob as it was published: its decoded form, its exact text and where it was read. Pure core.

``catalog/`` at git HEAD (or at the base revision, for ``check``) holds the bundles users already run;
a published release's blob is carried from there byte for byte instead of being generated again
(:mod:`releasekit.plan.carry`).
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

    Attributes:
        bundle: the blob decoded (its facts are compared with the release's).
        text: the blob's exact text in its file (from its opening ``{`` to its closing ``}``).
        location: the file (as shown to the user) and the line the blob starts on.
        revision: what it was read from (``HEAD``, ``base main``), for messages.
    """

    bundle: Bundle
    text: str
    location: Location
    revision: str = "HEAD"
