"""Which published blobs a build carries (plan/carry.py): published releases, in the catalogs they list."""

from __future__ import annotations

from pathlib import Path

from releasekit.io.streams import load_streams
from releasekit.model.fbc import Bundle, PublishedBlob
from releasekit.model.finding import Location
from releasekit.plan.carry import carried_blobs
from tests.conftest import REPO_ROOT


def _blob(package: str, name: str) -> PublishedBlob:
    return PublishedBlob(
        bundle=Bundle(name=name, package=package), text="{}", location=Location(file="catalog.json", line=1)
    )


def test_only_published_releases_in_catalogs_they_list_are_carried() -> None:
    streams = load_streams(Path(REPO_ROOT / "streams")).streams
    keys = [
        ("v4.23", "kueue-operator", "kueue-operator.v1.4.1"),  # released, lists v4.23: carried
        ("v4.23", "kueue-operator", "kueue-operator.v1.4.0"),  # released, not listed for v4.23
        ("v4.18", "kueue-operator-experimental", "kueue-operator-experimental.v0.3.0"),  # a candidate
        ("v4.18", "kueue-operator", "kueue-operator.v9.9.9"),  # no such release
        ("v4.18", "other", "kueue-operator.v1.4.1"),  # the name under another package
    ]
    carried = carried_blobs(streams, {k: _blob(k[1], k[2]) for k in keys})
    assert list(carried) == [keys[0]]
