"""Bad streams input: every rule fires with file, line and a hint (edits of a copy of streams/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import semver
from hypothesis import given
from hypothesis import strategies as st

from releasekit.errors import InputError
from releasekit.jobs.streams_validate import validate_streams
from releasekit.model.finding import Finding, Severity
from releasekit.model.stream import (
    ApiMaturityPolicy,
    ChannelPolicy,
    CrdPlacement,
    FeatureGatePolicy,
    Gvk,
    Origin,
    Release,
    ReleaseImages,
    ReleaseStatus,
    Stream,
    UpgradePolicy,
    Upstream,
)
from releasekit.rules.stream import RULES, check_streams
from tests.conftest import REPO_ROOT

OPERAND_141 = "registry.redhat.io/kueue/kueue-rhel9@sha256:cdc406dab199d85bfb280b0f70bdd8a3865a46436bcd6ad72801343a281cabf4"


@pytest.fixture
def streams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the repository's streams/, with the working folder beside it."""
    shutil.copytree(REPO_ROOT / "streams", tmp_path / "streams")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "streams"


def edit(path: Path, old: str, new: str, count: int = 1) -> int:
    """Replace ``old`` by ``new`` (must be present); return the 1-based line where ``new`` starts."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    text = text.replace(old, new, count)
    path.write_text(text, encoding="utf-8")
    return text[: text.index(new)].count("\n") + 1


def run(streams: Path) -> list[Finding]:
    _, report = validate_streams(streams, display_root="streams")
    return [f for f in report.findings if f.severity is not Severity.INFO]


def only(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


def test_the_repository_streams_have_no_errors(streams: Path) -> None:
    findings = run(streams)
    assert [f for f in findings if f.severity is Severity.ERROR] == []
    # the two published labels outside the documented forms and 0.1.0's misspelled gate are warnings for past
    # releases
    assert sorted((f.rule, f.subject[-1]) for f in findings) == [
        ("RK-STREAM-014", "0.1.0"),
        ("RK-STREAM-020", "1.3.1"),
        ("RK-STREAM-020", "1.4.1"),
    ]


CASES = [
    # (id, file, old, new, marker line text, rule, severity, message part, hint part)
    (
        "unknown-key",
        "stable.yaml",
        '    status: released\n    upstream:\n      line: "0.12"',
        '    status: released\n    colour: blue\n    upstream:\n      line: "0.12"',
        "colour: blue",
        "RK-STREAM-001",
        "unknown key 'colour'",
        "allowed keys here: bundle, catalogs",
    ),
    (
        "wrong-type",
        "stable.yaml",
        "catalogs: [v4.18, v4.19, v4.20]\n",
        "catalogs: v4.18\n",
        "catalogs: v4.18",
        "RK-STREAM-001",
        "expected array, got string 'v4.18'",
        "streams/README.md",
    ),
    (
        "duplicate-version",
        "stable.yaml",
        "  - version: 0.2.1\n",
        "  - version: 0.2.0\n",
        '  - version: 0.2.0\n    status: released\n    upstream:\n      line: "0.11"\n      inventory: kueue-0.11\n    catalogs: [v4.18, v4.19]\n    bundle: registry.redhat.io/kueue-tech-preview/kueue-operator-bundle@sha256:6f0b',
        "RK-STREAM-004",
        "version '0.2.0' is listed twice",
        "remove or renumber",
    ),
    (
        "tag-not-digest",
        "stable.yaml",
        f"operand: {OPERAND_141}",
        "operand: registry.redhat.io/kueue/kueue-rhel9:1.4.1",
        "operand: registry.redhat.io/kueue/kueue-rhel9:1.4.1",
        "RK-STREAM-010",
        "operand image 'registry.redhat.io/kueue/kueue-rhel9:1.4.1' is not pinned by digest",
        "@sha256",
    ),
    (
        "unknown-gate",
        "experimental.yaml",
        "    - gate: TopologyAwareScheduling\n",
        "    - gate: TopologyAwareSchedulingX\n",
        "- gate: TopologyAwareSchedulingX",
        "RK-STREAM-014",
        "gate 'TopologyAwareSchedulingX' does not exist in Kueue kueue-v0.11.9 (v0.11.9)",
        "TopologyAwareScheduling",
    ),
    (
        "alpha-gate-on-stable",
        "stable.yaml",
        "        - gate: VisibilityOnDemand\n          enabled: false\n          reason: disabled for an upstream security issue (kubernetes-sigs/kueue#4433)\n    recorded: recorded/kueue-operator.v1.1.0.yaml",
        "        - gate: TopologyAwareScheduling\n          enabled: true\n    recorded: recorded/kueue-operator.v1.1.0.yaml",
        "- gate: TopologyAwareScheduling",
        "RK-STREAM-015",
        "gate 'TopologyAwareScheduling' is Alpha in Kueue kueue-v0.12.9 (v0.12.9); stream 'stable' switches on only Beta, GA gates",
        "featureGates.optIn",
    ),
    (
        "missing-inventory-line",
        "stable.yaml",
        '      line: "0.18"\n      describe: v0.18.4-40-ge4ce3bcc\n      inventory: kueue-v0.18.4-40-ge4ce3bcc',
        '      line: "0.18"\n      describe: v0.18.4-40-ge4ce3bcc\n      inventory: kueue-v0.16.4-15-ga97bf20a',
        "inventory: kueue-v0.16.4-15-ga97bf20a\n    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]",
        "RK-STREAM-009",
        "inventory 'kueue-v0.16.4-15-ga97bf20a' describes Kueue 0.16, but the release ships Kueue 0.18",
        "refer to kueue-v0.18.4-40-ge4ce3bcc",
    ),
    (
        "not-semver",
        "stable.yaml",
        "  - version: 1.4.1\n",
        '  - version: "1.4"\n',
        '  - version: "1.4"',
        "RK-STREAM-003",
        "version '1.4' is not strict semver",
        "MAJOR.MINOR.PATCH",
    ),
    (
        "out-of-order",
        "stable.yaml",
        "  - version: 1.3.0\n",
        "  - version: 1.5.0\n",
        "  - version: 1.3.1\n",
        "RK-STREAM-005",
        "version '1.3.1' follows '1.5.0'; versions must increase",
        "oldest first",
    ),
    (
        "version-in-two-streams",
        "experimental.yaml",
        "  - version: 0.3.0\n",
        "  - version: 0.2.1\n",
        "  - version: 0.2.1",
        "RK-STREAM-006",
        "version '0.2.1' is also a release of stream",
        "belongs to one stream",
    ),
    (
        "candidate-label-form",
        "experimental.yaml",
        "openshiftVersionsLabel: v4.18-v4.19",
        "openshiftVersionsLabel: v4.18,v4.19",
        "openshiftVersionsLabel: v4.18,v4.19",
        "RK-STREAM-020",
        "'v4.18,v4.19' is not a documented form",
        "vA.B-vC.D",
    ),
    (
        "released-image-in-dev-registry",
        "experimental.yaml",
        "    status: candidate\n",
        '    status: released\n    createdAt: "2026-09-01T00:00:00Z"\n',
        "    bundle: quay.io",
        "RK-STREAM-011",
        "bundle image 'quay.io/redhat-user-workloads/kueue-operator-tenant/kueue-bundle-experimental:candidate' is not in an allowed registry",
        "allowed for released releases: registry.redhat.io/kueue-tech-preview/",
    ),
    (
        "bad-openshift-version",
        "experimental.yaml",
        "openshift: [v4.18, v4.19]",
        'openshift: [v4.18, "4.19"]',
        "openshift: [v4.18",
        "RK-STREAM-012",
        "'4.19' is not an OpenShift version",
        "vX.Y",
    ),
    (
        "catalog-outside-stream",
        "experimental.yaml",
        "    catalogs: [v4.18, v4.19]",
        "    catalogs: [v4.18, v4.20]",
        "    catalogs: [v4.18, v4.20]",
        "RK-STREAM-013",
        "catalog v4.20 is not an OpenShift version of stream 'experimental'",
        "v4.18, v4.19",
    ),
    (
        "short-created-at",
        "stable.yaml",
        'createdAt: "2026-08-03T20:53:18Z"',
        'createdAt: "2026-08-03"',
        'createdAt: "2026-08-03"',
        "RK-STREAM-021",
        "'2026-08-03' is not a full timestamp",
        "YYYY-MM-DDTHH:MM:SSZ",
    ),
    (
        "deprecated-without-message",
        "stable.yaml",
        "  - version: 0.1.0\n    status: released",
        "  - version: 0.1.0\n    status: deprecated",
        "    status: deprecated",
        "RK-STREAM-023",
        "a deprecated release needs a deprecationMessage",
        "what to install instead",
    ),
    (
        "unknown-alpha-api",
        "experimental.yaml",
        "alphaApis: [Cohort, Topology]",
        "alphaApis: [Cohort, Topologie]",
        "alphaApis: [Cohort, Topologie]",
        "RK-STREAM-019",
        "API 'Topologie' does not exist in Kueue kueue-v0.11.9 (v0.11.9)",
        "known kinds: AdmissionCheck",
    ),
    (
        "recorded-owned-api",
        "stable.yaml",
        "    ownedApi: {group: operator.openshift.io, version: v1alpha1, kind: Kueue}\n",
        "",
        "  - version: 0.1.0",
        "RK-STREAM-022",
        "owned API kueue.openshift.io/v1 Kueue is not among the recorded olm.gvk properties",
        "ownedApi",
    ),
    (
        "recorded-file-missing",
        "stable.yaml",
        "    recorded: recorded/kueue-operator.v1.4.1.yaml",
        "    recorded: recorded/kueue-operator.v1.4.9.yaml",
        "    recorded: recorded/kueue-operator.v1.4.9.yaml",
        "RK-STREAM-022",
        "recorded facts file 'recorded/kueue-operator.v1.4.9.yaml' does not exist",
        "tools/extract_recorded.py",
    ),
    (
        "shared-package",
        "experimental.yaml",
        "package: kueue-operator-experimental",
        "package: kueue-operator",
        "package: kueue-operator",
        "RK-STREAM-007",
        "package 'kueue-operator' is also the package of stream",
        "its own OLM package",
    ),
    (
        "duplicate-yaml-key",
        "experimental.yaml",
        "crdPlacement: bundle\n",
        "crdPlacement: bundle\ncrdPlacement: operator-assets\n",
        "crdPlacement: operator-assets",
        "RK-STREAM-002",
        "duplicate key 'crdPlacement'",
        "remove or rename",
    ),
]


@pytest.mark.parametrize(
    ("name", "old", "new", "marker", "rule", "message", "hint"),
    [pytest.param(*case[1:], id=f"error/{case[0]}") for case in CASES],
)
def test_bad_input_gives_findings_with_file_line_and_hint(
    streams: Path, name: str, old: str, new: str, marker: str, rule: str, message: str, hint: str
) -> None:
    edit(streams / name, old, new)
    text = (streams / name).read_text(encoding="utf-8")
    line = text[: text.index(marker)].count("\n") + 1
    hits = only(run(streams), rule)
    assert hits, f"{rule} did not fire"
    hit = next((f for f in hits if message in f.message), None)
    assert hit is not None, [f.message for f in hits]
    assert hit.severity is Severity.ERROR
    assert hit.location.file == f"streams/{name}"
    assert hit.location.line == line
    assert hint in hit.hint and hit.hint


def test_locked_deprecated_and_opt_in(streams: Path) -> None:
    line = edit(
        streams / "stable.yaml",
        "    recorded: recorded/kueue-operator.v1.4.1.yaml",
        "      settings:\n        - gate: HierarchicalCohorts\n          enabled: false\n"
        "        - gate: DynamicResourceAllocation\n          enabled: false\n"
        "    recorded: recorded/kueue-operator.v1.4.1.yaml",
    )
    findings = run(streams)
    locked = only(findings, "RK-STREAM-016")
    assert [(f.location.line, f.severity) for f in locked] == [(line + 1, Severity.ERROR)]
    assert "locked to true in Kueue kueue-v0.18.4-40-ge4ce3bcc (v0.18.4-40-ge4ce3bcc)" in locked[0].message
    deprecated = only(findings, "RK-STREAM-017")
    assert [(f.location.line, f.severity) for f in deprecated] == [(line + 3, Severity.WARNING)]


def test_missing_inventory(streams: Path) -> None:
    (streams / "upstream" / "kueue-v0.16.0-17-ga47b502f.yaml").unlink()
    hits = only(run(streams), "RK-STREAM-008")
    assert sorted(f.subject[-1] for f in hits) == ["1.3.0"]  # one inventory per pin: 1.3.1 has its own
    assert all(f.location.file == "streams/stable.yaml" and f.location.line for f in hits)
    assert "upstream import" in hits[0].hint


def test_inventory_schema_and_name(streams: Path) -> None:
    (streams / "upstream" / "kueue-v0.12.9.yaml").rename(streams / "upstream" / "kueue-0.12-old.yaml")
    edit(streams / "upstream" / "kueue-v0.14.4-1-ga073ed4c.yaml", "source: exact", "source: guessed")
    findings = run(streams)
    assert any(
        f.rule == "RK-STREAM-025" and f.location.file == "streams/upstream/kueue-0.12-old.yaml"
        for f in findings
    )
    bad = only(findings, "RK-STREAM-001")
    assert [(f.location.file, f.location.line) for f in bad] == [
        ("streams/upstream/kueue-v0.14.4-1-ga073ed4c.yaml", 4)
    ]
    assert "'guessed' is not one of: exact, transcribed" in bad[0].message


def test_recorded_prose_is_refused(streams: Path) -> None:
    line = edit(
        streams / "recorded" / "kueue-operator.v1.0.0.yaml",
        "  minKubeVersion: 1.28.0\n",
        "  minKubeVersion: 1.28.0\n  displayName: Kueue\n",
    )
    bad = only(run(streams), "RK-STREAM-001")
    assert [(f.location.file, f.location.line, f.message) for f in bad] == [
        ("streams/recorded/kueue-operator.v1.0.0.yaml", line + 1, "unknown key 'displayName'")
    ]


@pytest.mark.parametrize("text", ["releases: [\n", "a: b: c\n", "\t- x\n"])
def test_unreadable_yaml_is_an_input_error(streams: Path, text: str) -> None:
    (streams / "stable.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"streams/stable.yaml(:\d+)?: invalid YAML"):
        run(streams)


def test_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a streams folder"):
        validate_streams(tmp_path / "nope")


def test_every_rule_is_documented() -> None:
    assert sorted(RULES) == [f"RK-STREAM-{n:03d}" for n in (*range(1, 29), 30, 31, 32)]


def _stream(versions: list[tuple[int, int, int]]) -> Stream:
    return Stream(
        name="s",
        package="p",
        channels=ChannelPolicy(pattern="stable-v{major}.{minor}"),
        openshift=(),
        crd_placement=CrdPlacement.BUNDLE,
        owned_api=Gvk(group="g", version="v1", kind="K"),
        api_maturity=ApiMaturityPolicy(),
        feature_gates=FeatureGatePolicy(),
        upgrades=UpgradePolicy(),
        released_registries=("quay.io/dev/",),
        development_registries=("quay.io/dev/",),
        releases=tuple(
            Release(
                version=semver.Version(*v),
                status=ReleaseStatus.CANDIDATE,
                upstream=Upstream(line="0.11", inventory="kueue-0.11"),
                catalogs=(),
                bundle_image="quay.io/dev/b:x",
                images=ReleaseImages(operator="quay.io/dev/o:x", operand="quay.io/dev/p:x"),
                origin=Origin(file="s.yaml", path=f"$.releases[{i}]", lines=(("", i + 10),)),
            )
            for i, v in enumerate(versions)
        ),
    )


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)), max_size=8))
def test_ordering_rules_match_the_semver_order(versions: list[tuple[int, int, int]]) -> None:
    findings = check_streams((_stream(versions),), {})
    duplicates = {f.subject[-1] for f in findings if f.rule == "RK-STREAM-004"}
    order = [f for f in findings if f.rule == "RK-STREAM-005"]
    assert duplicates == {f"{a}.{b}.{c}" for i, (a, b, c) in enumerate(versions) if (a, b, c) in versions[:i]}
    strictly_increasing = all(x < y for x, y in zip(versions, versions[1:], strict=False))
    assert (not order and not duplicates) == strictly_increasing
    assert all(f.location.line is not None for f in order)


def test_a_streams_folder_without_stream_files_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "upstream").mkdir()
    shutil.copy(REPO_ROOT / "streams" / "upstream" / "kueue-0.11.yaml", tmp_path / "upstream")
    loaded, report = validate_streams(tmp_path, display_root="streams")
    assert loaded.streams == ()
    assert [(f.rule, f.severity, f.location.file) for f in report.findings] == [
        ("RK-STREAM-028", Severity.ERROR, "streams")
    ]
    assert "--streams-dir" in report.findings[0].hint


def test_a_pinned_release_names_its_own_pins_inventory(streams: Path) -> None:
    """RK-STREAM-030: 1.3.1 pins v0.16.4-15-ga97bf20a; naming 1.3.0's exact inventory is an error."""
    edit(
        streams / "stable.yaml",
        "      inventory: kueue-v0.16.4-15-ga97bf20a",
        "      inventory: kueue-v0.16.0-17-ga47b502f",
    )
    text = (streams / "stable.yaml").read_text(encoding="utf-8")
    line = text[: text.rindex("inventory: kueue-v0.16.0-17-ga47b502f")].count("\n") + 1  # 1.3.1's
    hits = only(run(streams), "RK-STREAM-030")
    assert [(f.location.file, f.location.line, f.severity, f.subject[-1]) for f in hits] == [
        ("streams/stable.yaml", line, Severity.ERROR, "1.3.1")
    ]
    assert "kueue-v0.16.4-15-ga97bf20a" in (hits[0].hint or "")
    assert "upstream import --repo KUEUE --ref v0.16.4-15-ga97bf20a" in (hits[0].hint or "")


def test_check_refuses_a_changed_inventory_a_published_release_uses() -> None:
    """RK-STREAM-031: facts a published release shipped are never rewritten; a new pin is a new file."""
    from dataclasses import replace

    from releasekit.io.streams import load_streams
    from releasekit.rules.stream import check_inventory_changes

    loaded = load_streams(REPO_ROOT / "streams", display_root="streams")
    base = dict(loaded.inventories)
    assert check_inventory_changes(loaded.streams, base, base) == []
    name = "kueue-v0.18.4-40-ge4ce3bcc"  # 1.4.1's
    changed = {**base, name: replace(base[name], gates=base[name].gates[1:])}
    hits = check_inventory_changes(loaded.streams, base, changed)
    assert [(f.rule, f.severity, f.location.file, f.location.line) for f in hits] == [
        ("RK-STREAM-031", Severity.ERROR, f"streams/upstream/{name}.yaml", 1)
    ]
    assert "stable 1.4.1" in hits[0].message
    removed = {k: v for k, v in base.items() if k != name}
    assert [f.rule for f in check_inventory_changes(loaded.streams, base, removed)] == ["RK-STREAM-031"]
    newer = {**base, "kueue-v0.18.6": replace(base[name], ref="v0.18.6")}
    assert check_inventory_changes(loaded.streams, base, newer) == []  # a new pin: a new file, fine
    candidate_only = "kueue-v0.11.9"  # the experimental candidate's: not published yet
    edited = {**base, candidate_only: replace(base[candidate_only], gates=())}
    assert check_inventory_changes(loaded.streams, base, edited) == []


def test_an_unknown_gate_is_a_warning_on_published_history_and_an_error_on_a_candidate(streams: Path) -> None:
    """RK-STREAM-014: Kueue refuses to start on a gate it does not define. 0.1.0 forced the misspelled
    HierarchialCohorts (recorded as published): a warning; a candidate doing so: an error."""
    history = [f for f in run(streams) if f.rule == "RK-STREAM-014"]
    assert [(f.subject[-1], f.severity) for f in history] == [("0.1.0", Severity.WARNING)]
    assert "'HierarchialCohorts'" in history[0].message and "HierarchicalCohorts" in (history[0].hint or "")
    edit(
        streams / "experimental.yaml",
        "    - gate: TopologyAwareScheduling\n",
        "    - gate: HierarchialCohorts\n",
    )
    candidate = [f for f in run(streams) if f.rule == "RK-STREAM-014" and f.subject[-1] == "0.3.0"]
    assert [f.severity for f in candidate] == [Severity.ERROR]


def test_the_recorded_gate_history() -> None:
    """The gates the operator forced in kueue-manager-config, per release (hand-recorded from
    pkg/configmap/configmap.go at each release's commit)."""
    from releasekit.io.streams import load_streams

    stable = next(s for s in load_streams(REPO_ROOT / "streams").streams if s.name == "stable")
    forced = {
        str(r.version): sorted((g.gate, g.enabled) for g in stable.effective_gate_settings(r))
        for r in stable.releases
    }
    off = [("HierarchicalCohorts", False), ("VisibilityOnDemand", False)]
    assert forced == {
        "0.1.0": [("HierarchialCohorts", False), ("VisibilityOnDemand", False)],
        **{v: off for v in ("0.2.0", "0.2.1", "1.0.0", "1.0.1", "1.1.0")},
        **{v: [] for v in ("1.2.0", "1.3.0", "1.3.1", "1.4.0", "1.4.1")},
    }
    conditional = {
        str(r.version): [g.gate for g in r.opt_in_gates] for r in stable.releases if r.opt_in_gates
    }
    assert sorted(conditional) == ["1.4.0", "1.4.1"]
