"""Reporters: each format's exact shape for a small hand-made report (expected texts written by hand)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from click.testing import Result
from hypothesis import given
from hypothesis import strategies as st

from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.report import BaselineState, CatalogChangeNote, Report
from releasekit.report import REPORTERS, get_reporter
from releasekit.report.github import MAX_PER_KIND, escape_data, escape_property
from releasekit.report.konflux import KonfluxReporter, konflux_error

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "releasekit" / "schemas" / "report.schema.json").read_text()
)

HEADS = Finding(
    rule="RK-FBC-040",
    severity=Severity.ERROR,
    message="multiple channel heads found in graph: foo.v1.0.0, foo.v1.1.0",
    location=Location(file="catalog/v4.18/configs/foo/catalog.json", line=12, path="$.entries"),
    hint="make one bundle replace or skip the other",
    subject=('package "foo"', 'channel "stable"'),
)
WARN = Finding(
    rule="RK-GRAPH-007",
    severity=Severity.WARNING,
    message='bundle "foo.v0.9.0" replaces "foo.v0.8.0", which is in no channel',
    location=Location(file="catalog/v4.18/configs/foo/catalog.json", line=30),
    hint="drop the replaces, or add the bundle",
    subject=('package "foo"', 'channel "stable"', 'bundle "foo.v0.9.0"'),
)
REPORT = Report(
    command="catalog validate",
    findings=(WARN, HEADS),
    checked=("catalog/v4.18",),
    rules=("RK-FBC-040", "RK-FBC-041", "RK-GRAPH-007"),
)
CLEAN = Report(command="catalog validate", checked=("catalog/v4.18",), rules=("RK-FBC-040",))


def test_text_groups_by_subject_as_a_tree() -> None:
    text = get_reporter("text").render(REPORT)
    assert text == (
        'package "foo"\n'
        '└── channel "stable"\n'
        "    ├── error RK-FBC-040: catalog/v4.18/configs/foo/catalog.json:12: $.entries: "
        "multiple channel heads found in graph: foo.v1.0.0, foo.v1.1.0\n"
        "    │     hint: make one bundle replace or skip the other\n"
        '    └── bundle "foo.v0.9.0"\n'
        "        └── warning RK-GRAPH-007: catalog/v4.18/configs/foo/catalog.json:30: "
        'bundle "foo.v0.9.0" replaces "foo.v0.8.0", which is in no channel\n'
        "              hint: drop the replaces, or add the bundle\n"
        "catalog validate: failed: 1 error, 1 warning, 0 notes; 3 checks run, 1 clean\n"
    )


def test_text_colour_only_when_asked() -> None:
    assert "\x1b[" not in get_reporter("text").render(REPORT)
    assert "\x1b[31merror" in get_reporter("text", color=True).render(REPORT)


def test_json_follows_the_contract_and_its_schema() -> None:
    doc = json.loads(get_reporter("json").render(REPORT))
    jsonschema.validate(doc, SCHEMA)
    assert doc["schema"] == "releasekit/report/v1"
    assert doc["passed"] is False
    assert doc["summary"] == {"errors": 1, "warnings": 1, "info": 0, "checked": 1, "checks": 3, "clean": 1}
    assert doc["findings"][0]["location"] == {
        "file": "catalog/v4.18/configs/foo/catalog.json",
        "line": 12,
        "path": "$.entries",
    }
    assert [f["rule"] for f in doc["findings"]] == ["RK-FBC-040", "RK-GRAPH-007"]


def test_schema_rejects_a_malformed_report() -> None:
    doc = json.loads(get_reporter("json").render(REPORT))
    doc["findings"][0]["rule"] = "FBC-1"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA)


def test_junit_has_a_failing_case_per_rule_and_subject_and_passing_rules() -> None:
    root = ET.fromstring(get_reporter("junit").render(REPORT))
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "3" and suite.get("failures") == "1"
    cases = {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}
    failing = cases[("releasekit.RK-FBC-040", 'package "foo" / channel "stable"')]
    failure = failing.find("failure")
    assert failure is not None and "multiple channel heads" in (failure.get("message") or "")
    assert failing.get("file") == "catalog/v4.18/configs/foo/catalog.json" and failing.get("line") == "12"
    warned = cases[("releasekit.RK-GRAPH-007", 'package "foo" / channel "stable" / bundle "foo.v0.9.0"')]
    assert warned.find("failure") is None and "warning:" in (warned.findtext("system-out") or "")
    assert ("releasekit.RK-FBC-041", "RK-FBC-041 found nothing") in cases


def test_sarif_levels_rules_and_locations() -> None:
    log = json.loads(get_reporter("sarif").render(REPORT))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["RK-FBC-040", "RK-FBC-041", "RK-GRAPH-007"]
    first = run["results"][0]
    assert first["level"] == "error" and first["ruleIndex"] == 0
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "catalog/v4.18/configs/foo/catalog.json"},
        "region": {"startLine": 12},
    }
    assert run["results"][1]["level"] == "warning"


def test_github_annotations_escape_and_cap_at_ten_per_kind() -> None:
    many = tuple(
        Finding(
            rule="RK-FBC-010",
            severity=Severity.ERROR,
            message=f"bad {i}",
            location=Location(file="a,b:c", line=i + 1),
        )
        for i in range(MAX_PER_KIND + 3)
    )
    text = get_reporter("github").render(Report(command="catalog validate", findings=many))
    lines = text.splitlines()
    assert sum(line.startswith("::error ") for line in lines) == MAX_PER_KIND
    assert lines[0] == "::error file=a%2Cb%3Ac,line=1,title=RK-FBC-010::bad 0"
    assert "3 more error finding(s)" in text
    assert escape_data("50%\nx") == "50%25%0Ax" and escape_property("a:b,c") == "a%3Ab%2Cc"


def test_github_message_carries_the_hint_on_a_new_line() -> None:
    text = get_reporter("github").render(REPORT)
    assert (
        "::error file=catalog/v4.18/configs/foo/catalog.json,line=12,title=RK-FBC-040::multiple channel heads "
        "found in graph: foo.v1.0.0, foo.v1.1.0%0Ahint: make one bundle replace or skip the other"
    ) in text


def test_markdown_has_summary_findings_and_extras() -> None:
    report = Report(
        command="check", findings=(HEADS,), extras=(("kueue-operator (v4.18)", "```mermaid\ngraph LR\n```"),)
    )
    text = get_reporter("markdown").render(report)
    assert text.startswith("## releasekit check: ❌ failed\n")
    assert "| 1 | 0 | 0 | 0 |" in text
    assert "| ❌ | `RK-FBC-040` | catalog/v4.18/configs/foo/catalog.json:12: $.entries |" in text
    assert "### kueue-operator (v4.18)\n\n```mermaid\ngraph LR\n```" in text


def test_konflux_test_output_fields_and_fixed_timestamp() -> None:
    out = json.loads(KonfluxReporter(epoch=1700000000).render(REPORT))
    assert out == {
        "result": "FAILURE",
        "timestamp": "2023-11-14T22:13:20+00:00",
        "note": "releasekit catalog validate: 1 error, 1 warning, 0 notes; 3 checks run, 1 clean (RK-FBC-040); "
        "run releasekit with --format text for details",
        "namespace": "releasekit",
        "successes": 1,
        "failures": 1,
        "warnings": 1,
    }
    assert json.loads(KonfluxReporter(epoch=0).render(CLEAN))["result"] == "SUCCESS"
    only_warning = Report(command="x", findings=(WARN,), rules=("RK-GRAPH-007",))
    assert json.loads(KonfluxReporter(epoch=0).render(only_warning))["result"] == "WARNING"
    assert json.loads(KonfluxReporter(epoch=0).render(Report(command="x")))["result"] == "SKIPPED"
    assert json.loads(konflux_error("cannot read x", 0))["result"] == "ERROR"


def test_konflux_honours_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    assert json.loads(get_reporter("konflux").render(CLEAN))["timestamp"] == "1970-01-02T00:00:00+00:00"


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_every_reporter_is_deterministic(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert get_reporter(name).render(REPORT) == get_reporter(name).render(
        Report(command=REPORT.command, findings=(HEADS, WARN), checked=REPORT.checked, rules=REPORT.rules)
    )


NOTE = Finding(rule="RK-GRAPH-005", severity=Severity.INFO, message="island", subject=('package "foo"',))


@pytest.mark.parametrize(
    ("verbosity", "shown", "hidden"),
    [
        (0, ["RK-FBC-040"], None),  # -q: the errors and the closing line, nothing else
        (1, ["RK-FBC-040", "RK-GRAPH-007"], "1 finding not shown"),
        (2, ["RK-FBC-040", "RK-GRAPH-007", "RK-GRAPH-005"], None),
    ],
    ids=["quiet/errors-only", "default/no-notes", "verbose/everything"],
)
def test_text_verbosity(verbosity: int, shown: list[str], hidden: str | None) -> None:
    report = Report(command="build", findings=(HEADS, WARN, NOTE))
    text = get_reporter("text", verbosity=verbosity).render(report)
    assert [r for r in ("RK-FBC-040", "RK-GRAPH-007", "RK-GRAPH-005") if f" {r}: " in text] == shown
    assert (hidden is None) == ("not shown" not in text)
    if hidden:
        assert hidden in text and "-v shows them" in text
    assert text.endswith("build: failed: 1 error, 1 warning, 1 note; 3 checks run, 0 clean\n")


def test_cli_verbosity_flags(run_line: Callable[..., Result], tmp_path: Path) -> None:
    catalog = tmp_path / "c"
    catalog.mkdir()
    (catalog / "a.json").write_text('{"schema":"olm.package","name":"p","defaultChannel":"alpha"}')
    quiet = run_line(["catalog", "validate", str(catalog), "-q"])
    loud = run_line(["catalog", "validate", str(catalog), "-v"])
    assert quiet.exit_code == loud.exit_code == 1
    assert "RK-FBC-041" in loud.stdout and "RK-FBC-041" in quiet.stdout


def test_konflux_skipped_when_nothing_was_checked() -> None:
    nothing = Report(command="catalog validate", rules=("RK-FBC-040",))
    assert json.loads(KonfluxReporter(epoch=0).render(nothing))["result"] == "SKIPPED"


def test_error_messages_become_one_line() -> None:
    from releasekit.errors import one_line

    assert one_line(
        "x: YAML parse error at line 1, column 4\n  |\n1 | a: [\n  |    ^\nunclosed bracket '['"
    ) == ("x: YAML parse error at line 1, column 4: unclosed bracket '['")
    assert one_line("plain") == "plain"


def test_cli_prints_a_multi_line_parser_error_as_one_line(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    bad = tmp_path / "t.yaml"
    bad.write_text("x: [\n")
    result = run_line(["catalog", "template", str(bad)])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and f"{bad}:2: invalid YAML: " in result.stderr


# --------------------------------------------------------------------- names from hostile input (issue 23)

HOSTILE_NAME = "catalog/v4.18/n\udcff\x1b[2J\x9b\x7f\x07\u202e\r.json"
"""A file name with a byte that is not UTF-8 (surrogate-escaped), ESC, C1 CSI, DEL, BEL, RLO and CR."""
ESCAPED_NAME = "catalog/v4.18/n\\xff\\x1b[2J\\x9b\\x7f\\x07\\u202e\\x0d.json"
HOSTILE = Finding(
    rule="RK-DIFF-001",
    severity=Severity.ERROR,
    message=f"{HOSTILE_NAME} is not generated from streams/ (stale)\nsecond line",
    location=Location(file=HOSTILE_NAME, line=3, path="$.a\x1b"),
    hint=f"remove {HOSTILE_NAME}",
    subject=('package "p\x1b]0;title\x07"', HOSTILE_NAME),
)
HOSTILE_REPORT = Report(
    command="check",
    findings=(HOSTILE, WARN),
    checked=(HOSTILE_NAME,),
    rules=("RK-DIFF-001", "RK-GRAPH-007"),
    extras=(("graph of p\x1b", f"```\n{HOSTILE_NAME}\n```\n"),),
    baseline={WARN: BaselineState.UNCHANGED},
    fixed=(replace(HOSTILE, rule="RK-DIFF-002"),),
    changes=(
        CatalogChangeNote(openshift="v4.18", package="p\x1b", lines=(f"bundles added: {HOSTILE_NAME}",)),
    ),
)


def _controls(text: str) -> set[str]:
    return {ch for ch in text if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) <= 0x9F or ch in "\u202e"}


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_every_reporter_escapes_control_characters_and_undecodable_bytes(name: str) -> None:
    text = get_reporter(name).render(HOSTILE_REPORT)
    text.encode("utf-8")  # strict: no lone surrogate left
    assert not _controls(text), sorted(_controls(text))
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)
    if name == "json":
        doc = json.loads(text)
        by_rule = {f["rule"]: f for f in doc["findings"]}
        assert by_rule["RK-DIFF-001"]["location"]["file"] == ESCAPED_NAME
        assert (
            by_rule["RK-DIFF-001"]["message"]
            == f"{ESCAPED_NAME} is not generated from streams/ (stale)\nsecond line"
        )
        assert by_rule["RK-DIFF-001"]["baseline"] == "new"  # baseline states survive the escaping
        assert by_rule["RK-GRAPH-007"]["baseline"] == "unchanged"
        jsonschema.validate(doc, SCHEMA)
    elif name in ("sarif", "konflux"):
        json.loads(text)
    elif name == "junit":
        case = ET.fromstring(text).find(".//testcase[@classname='releasekit.RK-DIFF-001']")
        assert case is not None and case.get("file") == ESCAPED_NAME
    elif name in ("text", "github", "markdown"):
        assert ESCAPED_NAME in text


def test_the_text_reporter_still_paints_when_asked() -> None:
    text = get_reporter("text", color=True).render(HOSTILE_REPORT)
    assert "\x1b[31merror" in text  # its own colours
    assert "\x1b[2J" not in text  # never the input's
    lines = text.splitlines()
    error = next(i for i, line in enumerate(lines) if "RK-DIFF-001" in line)
    assert lines[error + 1].strip() == "second line"  # a message keeps its own line breaks


@given(st.text())
def test_printable_escapes_exactly_what_cannot_be_shown(text: str) -> None:
    from releasekit.errors import printable

    out = printable(text)
    out.encode("utf-8")
    assert not _controls(out) and "\n" not in out
    if text.isascii() and text.isprintable():
        assert out == text
    assert printable(text, newlines=True).split("\n") == [printable(part) for part in text.split("\n")]


def test_quiet_text_is_the_errors_and_the_closing_line_only() -> None:
    """-q prints errors only: no counts of hidden findings, no change summary, no fixed list."""
    from releasekit.model.report import CatalogChangeNote

    report = Report(
        command="check",
        findings=(HEADS, WARN, NOTE),
        changes=(CatalogChangeNote(openshift="v4.18", package="p", lines=("adds bundle p.v1",)),),
    )
    lines = get_reporter("text", verbosity=0).render(report).splitlines()
    assert [line for line in lines if " RK-" in line] == [line for line in lines if "RK-FBC-040" in line]
    assert "What this change does:" not in lines
    assert not any("not shown" in line for line in lines)
    assert lines[-1] == "check: failed: 1 error, 1 warning, 1 note; 3 checks run, 0 clean"
