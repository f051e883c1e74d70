"""Tech Preview blocks cluster upgrades: olm.maxOpenShiftVersion in the experimental stream's CSV and catalog."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import Result

from releasekit.jobs.catalog_build import CatalogBuild, build_catalogs
from releasekit.model.fbc import Bundle, DeclarativeConfig, Property
from releasekit.model.finding import Location, Severity
from releasekit.rules.tech_preview import check_catalog_blocking, check_csv_blocking
from tests.conftest import REPO_ROOT

PROP = "olm.maxOpenShiftVersion"


def _build(tmp_path: Path | None = None, *, edit: Callable[[Path], None] | None = None) -> CatalogBuild:
    streams = REPO_ROOT / "streams"
    if edit is not None:
        assert tmp_path is not None
        streams = tmp_path / "streams"
        shutil.copytree(REPO_ROOT / "streams", streams)
        edit(streams)
    return build_catalogs(streams, REPO_ROOT / "bundle-templates", candidates=True)


def _configs(build: CatalogBuild) -> list[tuple[str, DeclarativeConfig]]:
    return [(str(f.openshift), c) for f in build.fragments for _, c in f.packages]


def test_experimental_candidate_carries_max_openshift_version_and_stable_does_not() -> None:
    build = _build()
    values: dict[tuple[str, str], list[object]] = {}
    for openshift, config in _configs(build):
        for bundle in config.bundles:
            values[(openshift, bundle.name)] = [p.value for p in bundle.properties_of(PROP)]
    experimental = {k: v for k, v in values.items() if k[1].startswith("kueue-operator-experimental.")}
    assert experimental == {
        ("v4.18", "kueue-operator-experimental.v0.3.0"): ["4.19"],
        ("v4.19", "kueue-operator-experimental.v0.3.0"): ["4.19"],
    }
    assert all(v == [] for k, v in values.items() if k[1].startswith("kueue-operator.v"))
    # the CSV (csv.metadata of the candidate catalogs) carries the matching olm.properties annotation
    csv = build.manifests[("experimental", "0.3.0")].csv
    annotation = csv["metadata"]["annotations"]["olm.properties"]
    assert json.loads(annotation) == [{"type": PROP, "value": "4.19"}]
    stable_csv = build.manifests[("stable", "1.4.1")].csv
    assert "olm.properties" not in stable_csv["metadata"]["annotations"]
    assert check_catalog_blocking(build.loaded.streams, _configs(build)) == ()


def test_experimental_release_without_it_is_an_error(tmp_path: Path) -> None:
    def off(streams: Path) -> None:
        path = streams / "experimental.yaml"
        path.write_text(path.read_text().replace("blockClusterUpgrades: true", "blockClusterUpgrades: false"))

    build = _build(tmp_path, edit=off)
    findings = check_catalog_blocking(build.loaded.streams, _configs(build))
    assert [(f.rule, f.severity) for f in findings] == [("RK-POLICY-010", Severity.ERROR)]
    assert findings[0].location.file.endswith("experimental.yaml") and findings[0].location.line
    assert "blockClusterUpgrades: true" in findings[0].hint
    # the stream check says so before any catalog holds the candidate (streams validate, build, check)
    from releasekit.jobs.streams_validate import validate_streams

    _, report = validate_streams(tmp_path / "streams", display_root="streams")
    stream = [f for f in report.findings if f.rule == "RK-STREAM-053"]
    assert [(f.location.file, f.severity) for f in stream] == [("streams/experimental.yaml", Severity.ERROR)]
    _, clean = validate_streams(REPO_ROOT / "streams", display_root="streams")
    assert not [f for f in clean.findings if f.rule == "RK-STREAM-053"]
    assert "RK-STREAM-053" in clean.rules and "streams/openshift/lifecycle.yaml" in clean.checked


def test_a_value_below_a_listed_catalog_is_an_error() -> None:
    build = _build()
    configs = []
    for openshift, config in _configs(build):
        bundles = tuple(
            replace(
                b,
                properties=tuple(
                    Property(type=PROP, value="4.18") if p.type == PROP else p for p in b.properties
                ),
            )
            for b in config.bundles
        )
        configs.append((openshift, replace(config, bundles=bundles)))
    findings = check_catalog_blocking(build.loaded.streams, configs)
    assert [f.rule for f in findings] == ["RK-POLICY-011"]
    assert "below the catalogs the release is listed in (v4.19)" in findings[0].message
    assert "use 4.19" in findings[0].hint


def test_a_stable_release_carrying_it_is_a_warning(tmp_path: Path) -> None:
    def on(streams: Path) -> None:
        path = streams / "stable.yaml"
        path.write_text(path.read_text().replace("upgrades:\n", "blockClusterUpgrades: true\nupgrades:\n", 1))

    build = _build(tmp_path, edit=on)
    findings = check_catalog_blocking(build.loaded.streams, _configs(build))
    assert {f.rule for f in findings} == {"RK-POLICY-012"}
    assert {f.severity for f in findings} == {Severity.WARNING}
    assert len(findings) == 11  # one per stable release, not one per catalog


@pytest.mark.parametrize(
    ("annotations", "rules"),
    [
        ({}, ["RK-BUNDLE-110"]),
        ({"olm.properties": '[{"type":"olm.maxOpenShiftVersion","value":"4.19"}]'}, []),
        ({"olm.properties": '[{"type":"olm.maxOpenShiftVersion","value":"4.18"}]'}, ["RK-BUNDLE-111"]),
        ({"olm.properties": '[{"type":"olm.maxOpenShiftVersion","value":"four"}]'}, ["RK-BUNDLE-111"]),
    ],
)
def test_csv_rules_for_an_experimental_release(annotations: dict[str, str], rules: list[str]) -> None:
    build = _build()
    stream = next(s for s in build.loaded.streams if s.name == "experimental")
    release = stream.releases[0]
    found = check_csv_blocking(stream, release, annotations, Location(file="csv.yaml", line=7))
    assert [f.rule for f in found] == rules


def test_csv_rule_for_a_stable_release() -> None:
    build = _build()
    stream = next(s for s in build.loaded.streams if s.name == "stable")
    value = {"olm.properties": '[{"type":"olm.maxOpenShiftVersion","value":"5.0"}]'}
    found = check_csv_blocking(stream, stream.releases[-1], value, Location(file="csv.yaml"))
    assert [(f.rule, f.severity) for f in found] == [("RK-BUNDLE-112", Severity.WARNING)]
    assert check_csv_blocking(stream, stream.releases[-1], {}, Location(file="csv.yaml")) == ()


def test_unrelated_bundle_is_ignored() -> None:
    build = _build()
    stray = DeclarativeConfig(bundles=(Bundle(name="other.v1.0.0", package="other"),))
    assert check_catalog_blocking(build.loaded.streams, [("v4.18", stray)]) == ()


@pytest.mark.shared
def test_built_experimental_bundle_has_no_olm_properties_warning(
    run_line: Callable[..., Result], shared: Callable[..., Path], tmp_path: Path
) -> None:
    """RK-BUNDLE-029 does not apply to the olm.properties releasekit writes itself (and 110 is satisfied)."""
    from tests.cli.test_bundle_build import make_kueue_repo

    make_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9", "crds"))
    result = run_line(
        [
            "bundle",
            "build",
            "--upstream",
            tmp_path / "kueue",
            "--out",
            tmp_path / "out",
            "--streams-dir",
            REPO_ROOT / "streams",
            "--stream",
            "experimental",
            "--version",
            "0.3.0",
            "--allow-unpinned",
            "--format",
            "json",
        ]
    )
    rules = {f["rule"] for f in json.loads(result.stdout)["findings"]}
    assert not rules & {"RK-BUNDLE-029", "RK-BUNDLE-110", "RK-BUNDLE-111", "RK-BUNDLE-112"}, rules
    csv = next((tmp_path / "out").rglob("*.clusterserviceversion.yaml")).read_text()
    assert "olm.maxOpenShiftVersion" in csv
