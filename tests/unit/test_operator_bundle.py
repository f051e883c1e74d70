"""Which operator facts a release's bundle is built from (RK-BUNDLE-100/101/102), and a carried candidate's CSV."""

from __future__ import annotations

import json
from dataclasses import replace

import semver

from releasekit.io.operator_records import load_operator_records
from releasekit.io.streams import load_streams
from releasekit.model.finding import Severity
from releasekit.model.stream import ReleaseImages, ReleaseStatus, Stream
from releasekit.plan.operator_bundle import (
    RULE_CARRIED,
    RULE_MISMATCH,
    RULE_NO_RECORD,
    choose_operator_facts,
    recorded_csv,
    recorded_files,
)
from tests.conftest import REPO_ROOT

STREAMS = REPO_ROOT / "streams"
LOADED = load_streams(STREAMS)
BY_NAME = {s.name: s for s in LOADED.streams}
RECORDS, RECORD_FINDINGS = load_operator_records(STREAMS)
PROSE = {"default": {"displayName": "D", "description": "text", "examples": {}, "ownedCrdText": {}}}
DEV = "quay.io/redhat-user-workloads/kueue-operator-tenant/"


def _release(stream: Stream, version: str):  # type: ignore[no-untyped-def]
    return next(r for r in stream.releases if str(r.version) == version)


def _with_candidate(version: str) -> tuple[Stream, object]:
    stable = BY_NAME["stable"]
    base = _release(stable, "1.4.1")
    candidate = replace(
        base,
        version=semver.Version.parse(version),
        status=ReleaseStatus.CANDIDATE,
        created_at=None,
        images=ReleaseImages(operator=DEV + "op:c", operand=DEV + "operand:c", must_gather=DEV + "mg:c"),
    )
    return replace(stable, releases=(*stable.releases, candidate)), candidate


def test_every_committed_record_loads() -> None:
    assert not RECORD_FINDINGS
    assert sorted(RECORDS) == sorted(str(r.version) for r in BY_NAME["stable"].releases)


def test_a_released_release_uses_its_own_record_and_agrees_with_the_stream() -> None:
    stable = BY_NAME["stable"]
    for release in stable.releases:
        facts = choose_operator_facts(stable, release, RECORDS)
        assert facts.record is RECORDS[str(release.version)] and facts.carried_from is None
        assert facts.findings == ()


def test_a_record_naming_other_images_is_an_error() -> None:
    stable = BY_NAME["stable"]
    release = _release(stable, "1.4.1")
    other = replace(
        release,
        images=replace(release.images, operand="registry.redhat.io/kueue/kueue-rhel9@sha256:" + "0" * 64),
    )
    facts = choose_operator_facts(stable, other, RECORDS)
    assert [(f.rule, f.severity) for f in facts.findings] == [(RULE_MISMATCH, Severity.ERROR)]
    assert "images.operand" in facts.findings[0].message
    late = replace(release, created_at="2030-01-01T00:00:00Z")
    assert [f.rule for f in choose_operator_facts(stable, late, RECORDS).findings] == [RULE_MISMATCH]


def test_a_candidate_carries_its_minors_previous_release_with_a_finding() -> None:
    stream, candidate = _with_candidate("1.4.2")
    facts = choose_operator_facts(stream, candidate, RECORDS)  # type: ignore[arg-type]
    assert facts.record is RECORDS["1.4.1"] and facts.carried_from is not None
    assert [(f.rule, f.severity) for f in facts.findings] == [(RULE_CARRIED, Severity.INFO)]
    assert "1.4.1" in facts.findings[0].message and "operator import" in (facts.findings[0].hint or "")
    csv = recorded_csv(stream, candidate, RECORDS["1.4.1"], carried_from=facts.carried_from, prose_doc=PROSE)  # type: ignore[arg-type]
    assert csv["metadata"]["name"] == "kueue-operator.v1.4.2" and csv["spec"]["version"] == "1.4.2"
    assert "createdAt" not in csv["metadata"]["annotations"]
    text = str(csv)
    assert DEV + "op:c" in text and DEV + "operand:c" in text and DEV + "mg:c" in text
    assert "0cf6d39f" not in text  # 1.4.1's operator digest is gone everywhere
    # the RBAC and the rest of the facts are 1.4.1's
    assert (
        csv["spec"]["install"]["spec"]["clusterPermissions"]
        == RECORDS["1.4.1"].csv["spec"]["install"]["spec"]["clusterPermissions"]
    )
    files = recorded_files(stream, candidate, facts, bundle_annotations={}, prose_doc=PROSE)  # type: ignore[arg-type]
    dockerfile = files[next(p for p in files if p.name == "bundle.Dockerfile")]
    assert 'LABEL version="1.4.2"' in dockerfile and 'LABEL release="1.4.2"' in dockerfile


def test_a_release_of_a_new_minor_carries_its_streams_newest_record() -> None:
    """Issue 24: no record of its minor, so the stream's newest earlier one (1.4.1), with a note naming it."""
    stream, candidate = _with_candidate("1.5.0")
    facts = choose_operator_facts(stream, candidate, RECORDS)  # type: ignore[arg-type]
    assert facts.record is RECORDS["1.4.1"]
    assert [(f.rule, f.severity) for f in facts.findings] == [(RULE_CARRIED, Severity.INFO)]
    assert "its stream's newest earlier record" in facts.findings[0].message


def test_a_released_z_stream_without_a_record_carries_its_minors_record() -> None:
    """Issue 24: a released 1.4.2 without its own record builds from 1.4.1's facts, not the templates'."""
    stream, candidate = _with_candidate("1.4.2")
    released = replace(candidate, status=ReleaseStatus.RELEASED)  # type: ignore[type-var]
    facts = choose_operator_facts(stream, released, RECORDS)  # type: ignore[arg-type]
    assert facts.record is RECORDS["1.4.1"] and facts.carried_from is not None
    assert [(f.rule, f.severity) for f in facts.findings] == [(RULE_CARRIED, Severity.INFO)]
    assert facts.findings[0].message.startswith("released 1.4.2 of stream stable has no operator record")


def test_the_experimental_candidate_keeps_the_templates_facts_with_a_note() -> None:
    """No earlier release of its stream has a record; a candidate is a preview, so a note, not a warning."""
    experimental = BY_NAME["experimental"]
    facts = choose_operator_facts(experimental, _release(experimental, "0.3.0"), RECORDS)
    assert facts.record is None
    assert [(f.rule, f.severity) for f in facts.findings] == [(RULE_NO_RECORD, Severity.INFO)]
    released = replace(_release(experimental, "0.3.0"), status=ReleaseStatus.RELEASED)
    assert [f.severity for f in choose_operator_facts(experimental, released, RECORDS).findings] == [
        Severity.WARNING
    ]
    assert facts.findings[0].location is not None and facts.findings[0].location.file.endswith(
        "experimental.yaml"
    )


def test_a_broken_record_is_a_finding_naming_file_and_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    folder = tmp_path / "operator"
    folder.mkdir()
    shutil.copy(STREAMS / "operator" / "1.4.1.yaml", folder / "1.4.1.yaml")
    text = (folder / "1.4.1.yaml").read_text(encoding="utf-8")
    (folder / "1.4.1.yaml").write_text(text.replace("csvFile:", "csvFiel:"), encoding="utf-8")
    shutil.copy(STREAMS / "operator" / "1.4.0.yaml", folder / "1.4.9.yaml")  # records 1.4.0, named 1.4.9
    records, findings = load_operator_records(tmp_path, display_root="streams")
    assert records == {}
    assert {(f.rule, f.location.file) for f in findings if f.location is not None} == {
        ("RK-STREAM-001", "streams/operator/1.4.1.yaml"),  # the unknown key and the missing one
        ("RK-STREAM-001", "streams/operator/1.4.9.yaml"),
    }
    assert all(f.location is not None and f.location.line for f in findings)


def test_a_record_in_a_stream_that_blocks_cluster_upgrades_gets_olm_max_openshift_version() -> None:
    stream, candidate = _with_candidate("1.4.2")
    blocking = replace(stream, block_cluster_upgrades=True)  # type: ignore[type-var]
    facts = choose_operator_facts(blocking, candidate, RECORDS)  # type: ignore[arg-type]
    csv = recorded_csv(
        blocking, candidate, RECORDS["1.4.1"], carried_from=facts.carried_from, prose_doc=PROSE
    )  # type: ignore[arg-type]
    assert json.loads(csv["metadata"]["annotations"]["olm.properties"]) == [
        {"type": "olm.maxOpenShiftVersion", "value": "5.0"}
    ]
    plain = recorded_csv(
        stream, candidate, RECORDS["1.4.1"], carried_from=facts.carried_from, prose_doc=PROSE
    )  # type: ignore[arg-type]
    assert "olm.properties" not in plain["metadata"]["annotations"]


def test_every_record_agrees_with_the_published_catalog_metadata() -> None:
    """The operator records (read from the operator repository) and the recorded catalog facts (read from the
    published catalogs by tools/extract_recorded.py) are two sources of the same release: they agree."""
    import yaml

    for version, record in sorted(RECORDS.items()):
        recorded = yaml.safe_load((STREAMS / "recorded" / f"kueue-operator.v{version}.yaml").read_text())
        meta, csv = recorded["csvMetadata"], record.csv
        annotations = dict(csv["metadata"]["annotations"])
        assert annotations.pop("createdAt") == _release(BY_NAME["stable"], version).created_at
        assert annotations == meta["annotations"], version
        assert csv["metadata"].get("labels") == meta.get("labels"), version
        spec = csv["spec"]
        assert spec["installModes"] == meta["installModes"], version
        assert spec.get("minKubeVersion") == meta.get("minKubeVersion"), version
        assert spec.get("maturity") == meta.get("maturity"), version
        assert spec["customresourcedefinitions"]["owned"] == meta["crdDescriptions"]["owned"], version
        published = {(i["name"], i["image"]) for i in recorded["relatedImages"] if i["name"]}
        assert published <= {(i["name"], i["image"]) for i in spec["relatedImages"]}, version


def test_a_record_that_is_not_yaml_is_refused_naming_file_and_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from releasekit.errors import InputError

    (tmp_path / "operator").mkdir()
    (tmp_path / "operator" / "1.4.1.yaml").write_text("schema: [unclosed\nversion: 1.4.1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^streams/operator/1\.4\.1\.yaml:\d+: invalid YAML"):
        load_operator_records(tmp_path, display_root="streams")
