"""Catalog roots of a file-based catalog repository: the pure pairing, the version guess, the readers' parts."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

import pytest

from releasekit.io.catalog_roots import RepoConfig, read_repo_config
from releasekit.io.fbc_load import indexignored
from releasekit.io.gitrev import FileRef, RepoTree
from releasekit.model.catalog_root import CatalogRoot, guess_openshift, pair_roots, parse_containerfile


def root(path: str, openshift: str | None, *packages: str) -> CatalogRoot:
    return CatalogRoot(path=path, packages=packages or ("p",), openshift=openshift)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("v4.18/catalog", "v4.18"),
        ("catalog/v4.12", "v4.12"),
        ("catalog/lvms-operator-v4.17", "v4.17"),
        ("catalog-4-14", "v4.14"),
        ("fbc/ocp-4.16/index", "v4.16"),
        ("catalog/stable-v1.2", None),  # an operator version, not OpenShift's
        ("catalog", None),
        ("x" * 10_000 + "-v4.18", None),  # a name longer than any file system allows is not read
    ],
)
def test_guess_openshift(path: str, expected: str | None) -> None:
    assert guess_openshift(path) == expected


def test_pairing_by_version_makes_a_moved_folder_a_move() -> None:
    pairing = pair_roots([root("catalog/v4.15", "v4.15")], [root("catalog/ocp-v4.15", "v4.15")])
    [pair] = pairing.pairs
    assert pair.moved and pair.label == "v4.15" and pair.base and pair.head
    assert not pairing.openshift_added and not pairing.openshift_dropped


def test_pairing_reports_catalogs_added_and_dropped() -> None:
    base = [root("v4.14/catalog", "v4.14"), root("v4.15/catalog", "v4.15")]
    head = [root("v4.15/catalog", "v4.15"), root("v4.16/catalog", "v4.16")]
    pairing = pair_roots(base, head)
    assert [(p.label, p.base is not None, p.head is not None) for p in pairing.pairs] == [
        ("v4.14", True, False),
        ("v4.15", True, True),
        ("v4.16", False, True),
    ]
    assert pairing.openshift_added == ("v4.16",) and pairing.openshift_dropped == ("v4.14",)


def test_pairing_falls_back_on_the_path_and_keeps_shared_versions_apart() -> None:
    # no version at all: the path pairs them
    [pair] = pair_roots([root("catalog/main", None)], [root("catalog/main", None)]).pairs
    assert pair.label == "catalog/main" and not pair.moved
    # a version the guess now reads otherwise: the path pairs them
    [pair] = pair_roots([root("fbc/a", None)], [root("fbc/a", "v4.18")]).pairs
    assert pair.base is not None and pair.head is not None
    # two roots of one version for one package: labels carry the path, each pairs with its own
    base = [root("ga/v4.18", "v4.18"), root("preview/v4.18", "v4.18")]
    pairing = pair_roots(base, list(base))
    assert sorted(p.label for p in pairing.pairs) == ["v4.18 ga/v4.18", "v4.18 preview/v4.18"]
    assert all(p.base == p.head for p in pairing.pairs)


def test_pairing_is_per_package() -> None:
    base = [root("catalog/v4.18", "v4.18", "a", "b")]
    head = [root("catalog/v4.18", "v4.18", "a"), root("other/v4.18", "v4.18", "b")]
    pairs = {p.package: p for p in pair_roots(base, head).pairs}
    assert not pairs["a"].moved and pairs["b"].moved
    assert pairs["a"].label == pairs["b"].label == "v4.18"  # one root of v4.18 per package: no path needed


def test_containerfile_copies_to_configs() -> None:
    text = (
        "FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v4.18 AS builder\n"
        "# COPY ignored/ /configs\n"
        "COPY --from=builder /x /configs\n"
        "COPY --chown=1001:0 \\\n    catalog/ /configs/\n"
        'ADD ["other dir", "/configs"]\n'
        "COPY catalog.json /configs/pkg/catalog.json\n"
    )
    sources, tag = parse_containerfile(text)
    assert sources == ["catalog/", "other dir"] and tag == "v4.18"


def test_indexignore_follows_gitignore_across_levels() -> None:
    import pathspec

    specs = {  # opm's peer example in the package folder, another file at the root
        PurePosixPath("."): pathspec.GitIgnoreSpec.from_lines(["*.md", "drafts/"]),
        PurePosixPath("pkg"): pathspec.GitIgnoreSpec.from_lines(
            ["*", "!*.json", "!*.yaml", "*.clusterserviceversion.yaml"]
        ),
    }
    assert not indexignored(PurePosixPath("pkg/catalog.json"), specs)
    assert not indexignored(PurePosixPath("pkg/bundles.yaml"), specs)
    assert indexignored(PurePosixPath("pkg/notes.txt"), specs)
    assert indexignored(PurePosixPath("pkg/x.clusterserviceversion.yaml"), specs)
    assert indexignored(PurePosixPath("README.md"), specs) and indexignored(
        PurePosixPath("drafts/c.json"), specs
    )
    assert not indexignored(PurePosixPath("other/catalog.json"), specs)
    folder = {PurePosixPath("."): pathspec.GitIgnoreSpec.from_lines(["drafts/"])}
    assert indexignored(PurePosixPath("drafts/pkg/catalog.json"), folder)  # an ignored folder is not walked


def test_version_pattern() -> None:
    config = RepoConfig(version_pattern="ocp{major}.{minor}")
    assert config.version_of("catalogs/ocp4.16/index") == "v4.16"
    assert config.version_of("catalogs/ocp4.x") is None
    star = RepoConfig(version_pattern="release-{major}-{minor}-*")
    assert star.version_of("release-4-18-ga") == "v4.18"


def _tree(text: str) -> RepoTree:
    data = text.encode()

    def read() -> bytes:
        return data

    path = PurePosixPath("releasekit.yaml")
    return RepoTree(
        label="t", files={path: FileRef(sha="x", reader=read)}, sizes={path: len(data)}, special={}
    )


def test_releasekit_yaml_catalog_repository() -> None:
    config = read_repo_config(
        _tree(
            "schema: releasekit/config/v1\ncatalogRepository:\n  versionPattern: 'ocp{major}.{minor}'\n"
            "  roots:\n    - {path: fbc/ga, openshift: v4.18}\n    - {path: fbc/next}\n"
        )
    )
    assert config.roots == (("fbc/ga", "v4.18"), ("fbc/next", None)) and not config.findings
    assert config.version_pattern == "ocp{major}.{minor}"


@pytest.mark.parametrize(
    "bad",
    [
        "  versionPattern: 'ocp*{major}*.{minor}'\n",  # two stars could backtrack
        "  versionPattern: 'ocp{major}'\n",  # no minor
        "  roots:\n    - {path: ../elsewhere}\n",
        "  roots:\n    - {path: fbc, openshift: '4.18'}\n",
        "  rootz: []\n",
    ],
)
def test_releasekit_yaml_that_does_not_follow_the_schema_is_a_finding(bad: str) -> None:
    config = read_repo_config(_tree("schema: releasekit/config/v1\ncatalogRepository:\n" + bad))
    assert config.findings and {f.rule for f in config.findings} == {"RK-STREAM-040"}
    assert not config.roots and config.version_pattern is None


def _memory_tree(files: dict[str, bytes]) -> RepoTree:
    refs: dict[PurePosixPath, FileRef] = {}
    for name, data in files.items():

        def read(data: bytes = data) -> bytes:
            return data

        refs[PurePosixPath(name)] = FileRef(sha=str(hash(data)), reader=read)
    return RepoTree(label="t", files=refs, sizes={p: len(files[str(p)]) for p in refs}, special={})


def _split_repository(catalogs: int, bundles: int) -> dict[str, bytes]:
    """``catalogs`` roots ``catalog-4-N/`` of one package, each split over one file per object."""
    import json

    files: dict[str, bytes] = {}
    for n in range(catalogs):
        folder = f"catalog-4-{n + 10}"
        names = [f"p.v1.0.{i}" for i in range(bundles)]
        files[f"{folder}/package.json"] = json.dumps(
            {"schema": "olm.package", "name": "p", "defaultChannel": "s"}
        ).encode()
        files[f"{folder}/channels/s.json"] = json.dumps(
            {"schema": "olm.channel", "name": "s", "package": "p", "entries": [{"name": b} for b in names]}
        ).encode()
        for i, name in enumerate(names):
            files[f"{folder}/bundles/{name}.json"] = json.dumps(
                {
                    "schema": "olm.bundle",
                    "name": name,
                    "package": "p",
                    "image": "r/b@sha256:" + "a" * 64,
                    "properties": [
                        {"type": "olm.package", "value": {"packageName": "p", "version": f"1.0.{i}"}}
                    ],
                }
            ).encode()
    return files


def _root_finding_work(files: dict[str, bytes]) -> int:
    """Line events in the root-finding modules (io and model) while finding the roots (timing-free)."""
    import sys

    from releasekit.io import catalog_roots
    from releasekit.io.catalog_roots import ParseCache, find_catalog_roots
    from releasekit.model import catalog_root

    tree = _memory_tree(files)
    cache = ParseCache()
    for path in tree.files:  # parsing is the loader's cost, measured elsewhere; count root finding only
        cache.get(tree, path)
    targets = {catalog_roots.__file__, catalog_root.__file__}
    count = 0

    def tracer(frame: Any, event: str, _arg: Any) -> Any:
        nonlocal count
        if frame.f_code.co_filename not in targets:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        find_catalog_roots(tree, cache=cache)
    finally:
        sys.settrace(None)
    return count


def test_root_finding_is_linear_in_catalogs_and_files() -> None:
    small = _root_finding_work(_split_repository(8, 20))
    assert _root_finding_work(_split_repository(16, 20)) <= 2.5 * small
    assert _root_finding_work(_split_repository(8, 40)) <= 2.5 * small
