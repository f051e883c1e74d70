"""The catalogs built from streams/ reproduce what was published (facts; prose is this project's own).

- ``cross-minor: none`` (the stream's policy) equals the 7 published kueue-fbc catalogs;
- ``replace-previous-minor`` equals current opm's render of the same templates, except the one edge
  current opm gets wrong (0.2.1 replaces 0.1.0 across the owned-API-group change), which releasekit
  must not emit;
- flipping the policy changes edges and nothing else.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from releasekit.io.atomic import MARKER
from releasekit.io.fbc_load import load_catalog_text
from releasekit.jobs.catalog_build import CatalogBuild, build_catalogs
from releasekit.model.stream import CrossMinor
from tests.conftest import REPO_ROOT

OPENSHIFT = ("v4.18", "v4.19", "v4.20", "v4.21", "v4.22", "v4.23", "v5.0")
PROSE_KEYS = ("description", "displayName", "icon", "keywords", "links", "maintainers", "provider")
PACKAGE = "kueue-operator"


def _facts(blob: dict[str, Any]) -> dict[str, Any]:
    """A blob with the prose and branding of olm.csv.metadata removed (the release-model issue's list)."""
    blob = copy.deepcopy(blob)
    for prop in blob.get("properties") or []:
        if prop["type"] != "olm.csv.metadata":
            continue
        value = prop["value"]
        for key in PROSE_KEYS:
            value.pop(key, None)
        value.get("annotations", {}).pop("description", None)
        value.get("annotations", {}).pop("alm-examples", None)
        for owned in value.get("crdDescriptions", {}).get("owned", []):
            for key in list(owned):
                if key not in ("name", "version", "kind"):
                    del owned[key]
    return blob


def _blobs(data: bytes, name: str) -> dict[tuple[str, str], dict[str, Any]]:
    metas, findings = load_catalog_text(data, name)
    assert not findings
    return {(m.schema, m.name): _facts(dict(m.data)) for m in metas}


@pytest.fixture(scope="module")
def built() -> dict[CrossMinor, CatalogBuild]:
    return {
        mode: build_catalogs(REPO_ROOT / "streams", REPO_ROOT / "bundle-templates", cross_minor=mode)
        for mode in CrossMinor
    }


def _ours(build: CatalogBuild, ocp: str) -> dict[tuple[str, str], dict[str, Any]]:
    return _blobs(build.files[PurePosixPath(ocp, "configs", PACKAGE, "catalog.json")], f"{ocp} (releasekit)")


@pytest.mark.parametrize("ocp", OPENSHIFT)
def test_none_policy_equals_the_published_catalog(
    built: dict[CrossMinor, CatalogBuild], shared: Callable[..., Path], ocp: str
) -> None:
    published = shared("kueue-operator", "catalog", "kueue-fbc", ocp, "catalog", PACKAGE, "catalog.json")
    ours = _ours(built[CrossMinor.NONE], ocp)
    theirs = _blobs(published.read_bytes(), str(published))
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("ocp", OPENSHIFT)
def test_replace_previous_minor_equals_current_opm_but_the_api_group_edge(
    built: dict[CrossMinor, CatalogBuild], shared: Callable[..., Path], ocp: str
) -> None:
    rendered = shared("kueue-operator", "catalog", "opm-current-render", ocp, "catalog.json")
    ours = _ours(built[CrossMinor.REPLACE_PREVIOUS_MINOR], ocp)
    theirs = _blobs(rendered.read_bytes(), str(rendered))
    assert sorted(ours) == sorted(theirs)
    wrong_edge = False
    for key, blob in theirs.items():
        if key == ("olm.channel", "stable-v0.2"):
            for entry in blob["entries"]:
                if entry.get("replaces") == "kueue-operator.v0.1.0":
                    assert entry["name"] == "kueue-operator.v0.2.1"
                    del entry["replaces"]  # current opm links across the API-group change; we must not
                    wrong_edge = True
        assert ours[key] == blob, key
    assert wrong_edge == (ocp in ("v4.18", "v4.19"))


def test_flipping_the_policy_changes_edges_and_nothing_else(built: dict[CrossMinor, CatalogBuild]) -> None:
    changed_edges = 0
    for ocp in OPENSHIFT:
        none = _ours(built[CrossMinor.NONE], ocp)
        replace = _ours(built[CrossMinor.REPLACE_PREVIOUS_MINOR], ocp)
        assert sorted(none) == sorted(replace)
        for key in none:
            if key[0] != "olm.channel":
                assert none[key] == replace[key], key
                continue
            a, b = none[key], replace[key]
            assert [e["name"] for e in a["entries"]] == [e["name"] for e in b["entries"]]
            assert {k: v for k, v in a.items() if k != "entries"} == {
                k: v for k, v in b.items() if k != "entries"
            }
            changed_edges += sum(ea != eb for ea, eb in zip(a["entries"], b["entries"], strict=True))
    assert changed_edges > 0


def test_the_committed_catalog_is_what_streams_generate(built: dict[CrossMinor, CatalogBuild]) -> None:
    """Golden files: catalog/ in the repository is exactly the build's output."""
    files = built[CrossMinor.NONE].files
    on_disk = {
        PurePosixPath(p.relative_to(REPO_ROOT / "catalog").as_posix()): p.read_bytes()
        for p in (REPO_ROOT / "catalog").rglob("*")
        if p.is_file() and p.name != MARKER  # the marker a build leaves (git ignores it) is no catalog file
    }
    assert on_disk == dict(files)


def test_bundles_use_csv_metadata_and_digests(built: dict[CrossMinor, CatalogBuild]) -> None:
    for ocp in OPENSHIFT:
        for (schema, name), blob in _ours(built[CrossMinor.NONE], ocp).items():
            if schema != "olm.bundle":
                continue
            types = [p["type"] for p in blob["properties"]]
            assert "olm.csv.metadata" in types and "olm.bundle.object" not in types, name
            assert "@sha256:" in blob["image"]
