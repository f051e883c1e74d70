"""Channels and upgrade edges of one stream in one catalog, computed from the stream's upgrade policy.

Pure core; never copied from a published catalog. One channel per operator minor, entries ascending;
inside a minor the head skips every earlier release. ``cross-minor: none`` leaves each minor an island;
``replace-previous-minor`` (as opm's semver template) makes each minor's head replace the previous
minor's newest release and skip every earlier one of the major. Beyond opm, no edge joins releases
across a major, a stream or an owned API group change (0.2.1 neither replaces nor skips 0.1.0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from releasekit.model.fbc import Channel, ChannelEntry
from releasekit.model.stream import DEFAULT_NEWEST_MINOR, CrossMinor, Release, ReleaseStatus, Stream

__all__ = ["PlannedChannels", "catalog_releases", "csv_edges", "plan_channels"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedChannels:
    """Every channel of one package in one catalog, and the default channel."""

    channels: tuple[Channel, ...]
    default_channel: str


def catalog_releases(stream: Stream, catalog: str, *, candidates: bool = False) -> tuple[Release, ...]:
    """The releases of ``stream`` that go into the catalog of OpenShift ``catalog`` (``v4.18``), ascending.

    Released and deprecated ones; withdrawn ones leave the channels (they become deprecation entries);
    candidates only with ``candidates`` (preview catalogs).
    """
    wanted = {ReleaseStatus.RELEASED, ReleaseStatus.DEPRECATED}
    if candidates:
        wanted.add(ReleaseStatus.CANDIDATE)
    chosen = [r for r in stream.releases if r.status in wanted and any(str(c) == catalog for c in r.catalogs)]
    return tuple(sorted(chosen, key=lambda r: r.version))


def _edges(stream: Stream, releases: Sequence[Release], cross_minor: CrossMinor) -> dict[str, ChannelEntry]:
    """Each minor head's entry with its edges, by bundle name, for ascending ``releases`` of one stream."""
    package = stream.package
    policy = stream.upgrades
    by_minor: dict[tuple[int, int], list[Release]] = {}
    for release in releases:
        by_minor.setdefault((release.version.major, release.version.minor), []).append(release)
    minors = sorted(by_minor)
    edges: dict[str, ChannelEntry] = {}
    for index, key in enumerate(minors):
        group = by_minor[key]
        head = group[-1]
        skips = {r.csv_name(package) for r in group[:-1] if policy.may_cross(r, head)}
        replaces = ""
        if cross_minor is CrossMinor.REPLACE_PREVIOUS_MINOR:
            earlier = [r for k in minors[:index] if k[0] == key[0] for r in by_minor[k]]
            if earlier:
                previous_head = by_minor[minors[index - 1]][-1] if minors[index - 1][0] == key[0] else None
                if previous_head is not None and policy.may_cross(previous_head, head):
                    replaces = previous_head.csv_name(package)
                skips |= {r.csv_name(package) for r in earlier if policy.may_cross(r, head)}
                skips.discard(replaces)
        edges[head.csv_name(package)] = ChannelEntry(
            name=head.csv_name(package),
            replaces=replaces,
            skips=tuple(sorted(skips)),
            skip_range=policy.skip_range_for(head.version) or "",
        )
    return edges


def plan_channels(
    stream: Stream, releases: Iterable[Release], *, cross_minor: CrossMinor | None = None
) -> PlannedChannels:
    """Channels, entries and edges for ``releases`` of ``stream`` (one catalog's worth).

    ``cross_minor`` overrides the stream's policy (tests flip it to compare the two behaviours).
    """
    ordered = sorted(releases, key=lambda r: r.version)
    mode = cross_minor if cross_minor is not None else stream.upgrades.cross_minor
    edges = _edges(stream, ordered, mode)
    grouped: dict[str, list[Release]] = {}
    for release in ordered:
        grouped.setdefault(stream.channels.channel_for(release.version), []).append(release)
    channels = []
    for name, members in sorted(grouped.items()):
        bundles = (r.csv_name(stream.package) for r in members)
        entries = tuple(edges.get(bundle) or ChannelEntry(name=bundle) for bundle in bundles)
        channels.append(Channel(name=name, package=stream.package, entries=entries))
    if stream.channels.default == DEFAULT_NEWEST_MINOR:
        default = stream.channels.channel_for(ordered[-1].version) if ordered else ""
    else:
        default = stream.channels.default
    return PlannedChannels(channels=tuple(channels), default_channel=default)


def csv_edges(stream: Stream, release: Release) -> ChannelEntry:
    """The ``replaces``/``skips``/``skipRange`` a release's own CSV records: its edges as of its release.

    Computed over the stream's published releases up to ``release`` (a candidate counts only for itself),
    in every catalog together.
    """
    upto = [
        r
        for r in stream.releases
        if r.version <= release.version
        and (r.status in (ReleaseStatus.RELEASED, ReleaseStatus.DEPRECATED) or r is release)
    ]
    planned = plan_channels(stream, upto)
    bundle = release.csv_name(stream.package)
    found = (e for c in planned.channels for e in c.entry_list if e.name == bundle)
    return next(found, ChannelEntry(name=bundle))
