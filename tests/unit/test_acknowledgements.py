"""Acknowledged history: matching by full identity, counting apart, and what each format makes of it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from click.testing import Result
from hypothesis import given
from hypothesis import strategies as st

from releasekit.model.acknowledgement import Acknowledgement, acknowledge, identity_of
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.report import Report
from releasekit.report import get_reporter
from releasekit.report.konflux import KonfluxReporter
from tests.conftest import REPO_ROOT

SCHEMA = json.loads((REPO_ROOT / "releasekit" / "schemas" / "report.schema.json").read_text())
ACKS = "releasekit-acknowledgements.yaml"

STRANDED = Finding(
    rule="RK-GRAPH-010",
    severity=Severity.WARNING,
    message='bundle "p.v1.0.0" is in the v4.18 catalog but not in v4.20',
    location=Location(file="catalog/v4.18/configs/p/catalog.json", line=10),
    subject=('package "p"', 'bundle "p.v1.0.0"'),
    facts=(("from", "v4.18"), ("to", "v4.20")),
)
OTHER_UPGRADE = Finding(
    rule="RK-GRAPH-010",
    severity=Severity.WARNING,
    message='bundle "p.v1.0.0" is in the v4.18 catalog but not in v4.21',
    location=Location(file="catalog/v4.18/configs/p/catalog.json", line=10),
    subject=('package "p"', 'bundle "p.v1.0.0"'),
    facts=(("from", "v4.18"), ("to", "v4.21")),
)
AN_ERROR = Finding(
    rule="RK-DIFF-003",
    severity=Severity.ERROR,
    message="published bundle removed",
    subject=('package "p"', 'bundle "p.v0.9.0"'),
)


def _ack(finding: Finding, line: int = 3) -> Acknowledgement:
    return Acknowledgement(
        rule=finding.rule,
        subject=finding.subject,
        facts=finding.facts,
        reason="published history, kept as it shipped",
        location=Location(file=ACKS, line=line),
    )


def test_an_entry_matches_exactly_one_identity() -> None:
    """The OpenShift upgrade is part of the identity: acknowledging v4.18 -> v4.20 leaves v4.18 -> v4.21."""
    acked, problems = acknowledge([STRANDED, OTHER_UPGRADE], [_ack(STRANDED)])
    assert set(acked) == {STRANDED}
    assert problems == ()


def test_an_error_is_never_acknowledged() -> None:
    acked, problems = acknowledge([AN_ERROR], [_ack(AN_ERROR)])
    assert acked == {}
    assert [p.rule for p in problems] == ["RK-POLICY-021"]
    report = Report(command="build", findings=(AN_ERROR, *problems), acknowledged=acked)
    assert not report.passed


def test_an_entry_that_matches_nothing_or_repeats_is_a_warning() -> None:
    acked, problems = acknowledge([STRANDED], [_ack(STRANDED, 3), _ack(STRANDED, 9), _ack(OTHER_UPGRADE, 12)])
    assert set(acked) == {STRANDED}
    assert sorted((p.rule, p.location.line) for p in problems) == [
        ("RK-POLICY-020", 9),
        ("RK-POLICY-020", 12),
    ]
    assert all(p.severity is Severity.WARNING for p in problems)
    assert "repeats the one at line 3" in next(p.message for p in problems if p.location.line == 9)


def test_a_partial_check_does_not_call_an_unmatched_entry_stale() -> None:
    _, problems = acknowledge([], [_ack(STRANDED)], complete=False)
    assert problems == ()


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["RK-GRAPH-010", "RK-STREAM-020"]),
            st.sampled_from([Severity.WARNING, Severity.INFO, Severity.ERROR]),
            st.sampled_from(["a", "b"]),
            st.sampled_from(["v4.18", "v4.19"]),
        ),
        max_size=8,
    ),
    st.lists(st.integers(0, 7), max_size=8),
)
def test_acknowledging_never_hides_an_error_and_counts_add_up(
    specs: list[tuple[str, Severity, str, str]], picks: list[int]
) -> None:
    findings = [
        Finding(rule=r, severity=s, message=f"{r} {b}", subject=(b,), facts=(("to", o),))
        for r, s, b, o in specs
    ]
    acks = [_ack(findings[i], line=n) for n, i in enumerate(picks) if i < len(findings)]
    acked, problems = acknowledge(findings, acks)
    report = Report(command="build", findings=(*findings, *problems), acknowledged=acked)
    assert all(f.severity is not Severity.ERROR for f in acked)
    assert report.passed == (not any(f.severity is Severity.ERROR for f in findings))
    n = report.numbers
    assert n.errors + n.warnings + n.info + n.acknowledged == len(report.findings)
    assert {identity_of(f) for f in acked} <= {a.identity for a in acks}


def _report() -> Report:
    acked, _ = acknowledge([STRANDED, OTHER_UPGRADE], [_ack(STRANDED)])
    return Report(
        command="build", findings=(STRANDED, OTHER_UPGRADE), rules=("RK-GRAPH-010",), acknowledged=acked
    )


def test_formats_keep_acknowledged_findings_and_count_them_apart() -> None:
    report = _report()
    data = json.loads(get_reporter("json").render(report))
    jsonschema.validate(data, SCHEMA)
    assert data["summary"]["warnings"] == 1 and data["summary"]["acknowledged"] == 1
    acked = [f for f in data["findings"] if "acknowledged" in f]
    assert [f["facts"] for f in acked] == [{"from": "v4.18", "to": "v4.20"}]
    assert acked[0]["acknowledged"]["location"] == {"file": ACKS, "line": 3}

    sarif = json.loads(get_reporter("sarif").render(report))
    results = sarif["runs"][0]["results"]
    assert len(results) == 2
    suppressed = [r for r in results if "suppressions" in r]
    assert len(suppressed) == 1 and suppressed[0]["suppressions"][0]["kind"] == "external"
    assert suppressed[0]["suppressions"][0]["justification"] == "published history, kept as it shipped"

    github = get_reporter("github").render(report)
    assert github.count("::warning ") == 1 and "v4.21" in github

    default = get_reporter("text", verbosity=1).render(report)
    assert "v4.21" in default and "v4.20" not in default
    assert "(1 acknowledged finding not shown; -v lists them)" in default
    assert default.rstrip().endswith("1 warning, 0 notes; 1 check run, 0 clean; 1 acknowledged")
    verbose = get_reporter("text", verbosity=2).render(report)
    assert "warning (acknowledged) RK-GRAPH-010" in verbose
    assert (
        "acknowledged: published history, kept as it shipped (releasekit-acknowledgements.yaml:3)" in verbose
    )

    konflux = json.loads(KonfluxReporter(epoch=0).render(report))
    assert konflux["warnings"] == 1 and konflux["result"] == "WARNING"
    only_acked = Report(
        command="build",
        findings=(STRANDED,),
        checked=("catalog/v4.18/configs/p/catalog.json",),
        rules=("RK-GRAPH-010",),
        acknowledged=report.acknowledged,
    )
    assert json.loads(KonfluxReporter(epoch=0).render(only_acked))["result"] == "SUCCESS"


# ------------------------------------------------------------------------------------- the real repository


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    shutil.copy(REPO_ROOT / ACKS, tmp_path / ACKS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.usefixtures("repo_copy")
def test_a_clean_checkout_builds_with_no_warning(run_line: Callable[..., Result]) -> None:
    """The published history's warnings are acknowledged once; a new one would stand out."""
    result = run_line(["build", "--check", "--format", "json"])
    assert result.exit_code == 0, result.stdout
    summary = json.loads(result.stdout)["summary"]
    assert summary["warnings"] == 0
    assert summary["acknowledged"] == 22


def test_without_the_file_the_history_warns_again(run_line: Callable[..., Result], repo_copy: Path) -> None:
    (repo_copy / ACKS).unlink()
    result = run_line(["build", "--check", "--format", "json"])
    summary = json.loads(result.stdout)["summary"]
    assert summary["warnings"] == 22 and "acknowledged" not in summary


def test_a_stale_entry_is_reported_at_its_line(run_line: Callable[..., Result], repo_copy: Path) -> None:
    path = repo_copy / ACKS
    path.write_text(
        path.read_text()
        + "  - rule: RK-GRAPH-010\n"
        + '    subject: ["package \\"kueue-operator\\"", "bundle \\"kueue-operator.v9.9.9\\""]\n'
        + "    facts: {from: v4.18, to: v4.20}\n"
        + "    reason: a release that never existed\n"
    )
    line = path.read_text().count("\n") - 3
    result = run_line(["build", "--check", "--format", "json"])
    assert result.exit_code == 0
    stale = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-POLICY-020"]
    assert [(f["location"]["file"], f["location"]["line"]) for f in stale] == [(ACKS, line)]


def test_a_broken_file_acknowledges_nothing_and_says_where(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    (repo_copy / ACKS).write_text(
        "schema: releasekit/acknowledgements/v1\nacknowledged:\n  - rule: RK-GRAPH-010\n"
    )
    result = run_line(["build", "--check", "--format", "json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 1
    assert any(f["rule"] == "RK-POLICY-022" and f["location"]["file"] == ACKS for f in data["findings"])
    assert data["summary"]["warnings"] == 22


def test_escaping_a_hostile_name_keeps_the_acknowledgement() -> None:
    """Reporters escape names from input first; an acknowledged finding must stay acknowledged."""
    from dataclasses import replace

    hostile = replace(STRANDED, location=Location(file="catalog/v4.18/\x1b[2J.json", line=10))
    acked, _ = acknowledge([hostile], [_ack(hostile)])
    report = Report(command="build", findings=(hostile,), rules=("RK-GRAPH-010",), acknowledged=acked)
    data = json.loads(get_reporter("json").render(report))
    assert data["summary"] == {**data["summary"], "warnings": 0, "acknowledged": 1}
    assert "\\x1b" in data["findings"][0]["location"]["file"] and "acknowledged" in data["findings"][0]
