"""``render_semver(..., legacy=True)``: older opm linked each channel alone (what it wrote is no drift)."""

from __future__ import annotations

from releasekit.model.fbc import Bundle, ChannelEntry, Property
from releasekit.plan.template_semver import parse_semver, render_semver

VERSIONS = ("1.0.0", "1.1.0", "1.1.1", "1.2.0")


def resolve(image: str) -> list[Bundle]:
    version = image.rsplit(":", 1)[1]
    prop = Property(type="olm.package", value={"packageName": "p", "version": version})
    return [Bundle(name=f"p.v{version}", package="p", image=image, properties=(prop,))]


def entries(legacy: bool) -> dict[str, tuple[ChannelEntry, ...]]:
    doc = {
        "schema": "olm.semver",
        "generateMajorChannels": True,
        "generateMinorChannels": True,
        "stable": {"bundles": [{"image": f"reg/p:{v}"} for v in VERSIONS]},
    }
    config = render_semver(parse_semver(doc), resolve, legacy=legacy)
    return {c.name: c.entry_list for c in config.channels}


def test_older_opm_writes_no_edge_out_of_a_minor_channel() -> None:
    old, new = entries(legacy=True), entries(legacy=False)
    # a minor channel: the top skips its own Y-stream, replaces nothing (newer opm: the previous Y's top)
    assert old["stable-v1.1"][-1] == ChannelEntry(name="p.v1.1.1", skips=("p.v1.1.0",))
    assert new["stable-v1.1"][-1] == ChannelEntry(name="p.v1.1.1", replaces="p.v1.0.0", skips=("p.v1.1.0",))
    assert old["stable-v1.2"] == (ChannelEntry(name="p.v1.2.0"),)
    # a major channel: each Y-stream's top replaces (and skips) the previous one's, as opm's inchworm did
    assert old["stable-v1"] == (
        ChannelEntry(name="p.v1.0.0"),
        ChannelEntry(name="p.v1.1.0"),
        ChannelEntry(name="p.v1.1.1", replaces="p.v1.0.0", skips=("p.v1.0.0", "p.v1.1.0")),
        ChannelEntry(name="p.v1.2.0", replaces="p.v1.1.1", skips=("p.v1.1.1",)),
    )
