"""Konflux layout rules: each rule fires on a fragment that breaks it, and on nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from releasekit.io.catalog_tree import catalog_fragments, read_tree
from releasekit.jobs.catalog_validate import validate_tree
from releasekit.model.fbc import (
    PROP_BUNDLE_OBJECT,
    PROP_CSV_METADATA,
    Bundle,
    DeclarativeConfig,
    FragmentFacts,
    Package,
    Property,
)
from releasekit.model.finding import Severity
from releasekit.model.stream import OpenShiftVersion
from releasekit.plan.catalog import containerfile
from releasekit.rules.konflux import check_fragment

DIGEST = "registry.redhat.io/kueue/kueue-operator-bundle@sha256:" + "a" * 64


def _facts(**overrides: object) -> FragmentFacts:
    base: dict[str, object] = {
        "folder": "v4.18",
        "folder_path": "catalog/v4.18",
        "containerfile": containerfile(OpenShiftVersion(major=4, minor=18)),
        "containerfile_path": "catalog/v4.18/Containerfile",
        "package_files": (("p", "catalog.json", "catalog/v4.18/configs/p/catalog.json"),),
        "config": DeclarativeConfig(
            packages=(Package(name="p", default_channel="c"),),
            bundles=(
                Bundle(
                    name="p.v1.0.0",
                    package="p",
                    image=DIGEST,
                    properties=(Property(type=PROP_CSV_METADATA, value={}),),
                ),
            ),
        ),
    }
    base.update(overrides)
    return FragmentFacts(**base)  # type: ignore[arg-type]


def _rules(facts: FragmentFacts) -> list[str]:
    return sorted(f.rule for f in check_fragment(facts))


def test_a_good_fragment_has_no_finding() -> None:
    assert _rules(_facts()) == []


@pytest.mark.parametrize(
    ("overrides", "rule"),
    [
        ({"folder": "4.18"}, "RK-KONFLUX-001"),
        ({"containerfile": None}, "RK-KONFLUX-002"),
        (
            {
                "containerfile": "FROM quay.io/operator-framework/opm:latest\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n"
            },
            "RK-KONFLUX-003",
        ),
        ({"containerfile": containerfile(OpenShiftVersion(major=4, minor=19))}, "RK-KONFLUX-004"),
        (
            {"containerfile": "FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v4.18\n"},
            "RK-KONFLUX-005",
        ),
        ({"package_files": (("", "catalog.json", "catalog/v4.18/configs/catalog.json"),)}, "RK-KONFLUX-006"),
        ({"config": DeclarativeConfig()}, "RK-KONFLUX-007"),
    ],
    ids=[
        "error/folder-not-a-version",
        "error/no-containerfile",
        "error/wrong-base-image",
        "error/base-tag-mismatch",
        "error/missing-configs-label",
        "error/layout",
        "error/no-package",
    ],
)
def test_each_layout_rule(overrides: dict[str, object], rule: str) -> None:
    assert rule in _rules(_facts(**overrides))


def _bundle_config(image: str, prop: str) -> DeclarativeConfig:
    return DeclarativeConfig(
        packages=(Package(name="p", default_channel="c"),),
        bundles=(
            Bundle(name="p.v1.0.0", package="p", image=image, properties=(Property(type=prop, value={}),)),
        ),
    )


def test_metadata_format_follows_the_openshift_version() -> None:
    assert "RK-KONFLUX-008" in _rules(_facts(config=_bundle_config(DIGEST, PROP_BUNDLE_OBJECT)))
    old = _facts(
        folder="v4.16",
        containerfile=containerfile(OpenShiftVersion(major=4, minor=16)),
        config=_bundle_config(DIGEST, PROP_CSV_METADATA),
    )
    assert _rules(old) == ["RK-KONFLUX-008"]
    assert (
        _rules(
            _facts(
                folder="v4.16",
                containerfile=containerfile(OpenShiftVersion(major=4, minor=16)),
                config=_bundle_config(DIGEST, PROP_BUNDLE_OBJECT),
            )
        )
        == []
    )


def test_bundle_images_pinned_and_from_registry_redhat_io() -> None:
    tagged = "registry.redhat.io/kueue/kueue-operator-bundle:v1.0.0"
    assert _rules(_facts(config=_bundle_config(tagged, PROP_CSV_METADATA))) == ["RK-KONFLUX-009"]
    quay = "quay.io/redhat-user-workloads/kueue-operator-tenant/kueue-bundle@sha256:" + "b" * 64
    assert _rules(_facts(config=_bundle_config(quay, PROP_CSV_METADATA))) == ["RK-KONFLUX-010"]


def test_openshift5_base_image() -> None:
    text = containerfile(OpenShiftVersion(major=5, minor=0))
    assert "registry.redhat.io/openshift5/ose-operator-registry-rhel9:v5.0" in text
    assert _rules(_facts(folder="v5.0", containerfile=text)) == []


def test_legacy_quay_catalogs_are_rejected(shared: Callable[..., Path]) -> None:
    """The first Kueue FBC (release-4.19 branch) pointed at quay.io: not releasable through Konflux."""
    tree = shared("kueue-operator", "catalog", "kueue-operator-release-4.19-legacy")
    findings, _, _ = validate_tree(tree)
    quay = [f for f in findings if f.rule == "RK-KONFLUX-010"]
    assert {f.subject[-1] for f in quay} == {'bundle "kueue-operator.v0.0.1"'}
    assert len(quay) == 2  # v4.18 and v4.19
    assert all("quay.io/redhat-user-workloads" in f.message for f in quay)


def test_published_catalogs_pass_every_content_rule(shared: Callable[..., Path]) -> None:
    """The published kueue-fbc fragments break only the rule about the Containerfile they were shipped without."""
    tree = shared("kueue-operator", "catalog", "kueue-fbc")
    findings, checked, _ = validate_tree(tree)
    assert {f.rule for f in findings if f.severity is Severity.ERROR} == {"RK-KONFLUX-002"}
    assert len(checked) == 7


def test_read_tree_finds_layout(tmp_path: Path) -> None:
    folder = tmp_path / "v4.18"
    (folder / "configs" / "p").mkdir(parents=True)
    (folder / "configs" / "p" / "catalog.json").write_text(
        '{"schema":"olm.package","name":"p","defaultChannel":"c"}'
    )
    (folder / "Containerfile").write_text(containerfile(OpenShiftVersion(major=4, minor=18)))
    (fragment,) = catalog_fragments(str(tmp_path), read_tree(tmp_path))
    assert fragment.facts.package_files[0][:2] == ("p", "catalog.json")
    assert [p.name for p in fragment.facts.config.packages] == ["p"]


@pytest.mark.parametrize(
    "ignores",
    [
        {"configs/.indexignore": "drafts/\n", "configs/p/.indexignore": "*.md\n"},
        {"configs/.indexignore": "*.json\n", "configs/p/.indexignore": "!catalog.json\n"},
        {"configs/.indexignore": "p/\n"},
        {"configs/p/.indexignore": "/drafts\n!drafts/keep.json\n"},
    ],
)
def test_the_tree_reader_ignores_what_the_catalog_loader_ignores(
    tmp_path: Path, ignores: dict[str, str]
) -> None:
    """``.indexignore`` files (any level, negations, folders) leave out of a fragment what ``load_catalog`` leaves out."""
    from releasekit.io.fbc_load import load_catalog

    folder = tmp_path / "v4.18"
    package = '{"schema":"olm.package","name":"p","defaultChannel":"c"}'
    for rel, text in {
        "configs/p/catalog.json": package,
        "configs/p/README.md": "# not a catalog\n",
        "configs/p/drafts/keep.json": "{}",
        "configs/p/drafts/draft.yaml": "name: [x]\n",
        **ignores,
    }.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    (fragment,) = catalog_fragments(str(tmp_path), read_tree(tmp_path))
    assert fragment.loaded is not None
    assert fragment.loaded.files == load_catalog(folder / "configs").files
