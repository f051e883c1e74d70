"""One set of numbers in every format, baseline states per format, SARIF rule metadata and docs/rules.md."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from releasekit.jobs.rule_docs import all_rule_docs, render_rules_markdown
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.report import BaselineState, CatalogChangeNote, FailOn, Report
from releasekit.report import get_reporter
from releasekit.report.konflux import KonfluxReporter
from releasekit.report.sarif import SarifReporter
from tests.conftest import REPO_ROOT


def _f(rule: str, severity: Severity, subject: tuple[str, ...], message: str = "msg") -> Finding:
    return Finding(
        rule=rule,
        severity=severity,
        message=message,
        location=Location(file="catalog/x.json", line=3),
        subject=subject,
    )


NEW_ERROR = _f("RK-DIFF-003", Severity.ERROR, ("v4.18", "p", "p.v1"), "published bundle p.v1 was removed")
OLD_ERROR = _f("RK-DIFF-001", Severity.ERROR, ("v4.18",), "catalog out of sync")
OLD_WARNING = _f("RK-GRAPH-010", Severity.WARNING, ("p", "p.v0"), "strands p.v0")
CHANGE_A = _f("RK-DIFF-002", Severity.INFO, ("v4.18", "p"), "v4.18 p: -bundle p.v1")
CHANGE_B = _f("RK-DIFF-002", Severity.INFO, ("v4.19", "p"), "v4.19 p: -bundle p.v1")
FIXED = _f("RK-GRAPH-010", Severity.WARNING, ("p", "p.v1"), "strands p.v1")

REPORT = Report(
    command="check",
    findings=(NEW_ERROR, OLD_ERROR, OLD_WARNING, CHANGE_A, CHANGE_B),
    rules=("RK-DIFF-001", "RK-DIFF-002", "RK-DIFF-003", "RK-DIFF-004", "RK-GRAPH-010", "RK-FBC-040"),
    baseline={
        NEW_ERROR: BaselineState.NEW,
        OLD_ERROR: BaselineState.UNCHANGED,
        OLD_WARNING: BaselineState.UNCHANGED,
        CHANGE_A: BaselineState.NEW,
        CHANGE_B: BaselineState.NEW,
    },
    fixed=(FIXED,),
    changes=(CatalogChangeNote(openshift="v4.18", package="p", lines=("bundles removed: p.v1",)),),
    extras=(("Upgrade graph of p (v4.18)", "**Before**\n\nx\n**After**\n\ny\n"),),
)


def test_the_numbers() -> None:
    n = REPORT.numbers
    assert (n.checks, n.clean, n.errors, n.warnings, n.info) == (6, 2, 2, 1, 2)
    assert (n.new, n.unchanged, n.fixed, n.new_errors) == (3, 2, 1, 1)


def test_every_format_reports_the_same_numbers() -> None:
    phrase = "2 errors, 1 warning, 2 notes; 6 checks run, 2 clean; 3 new, 2 unchanged, 1 fixed"
    assert get_reporter("text").render(REPORT).rstrip("\n").endswith(phrase)
    assert get_reporter("github").render(REPORT).rstrip("\n").endswith(phrase)
    konflux = json.loads(KonfluxReporter(epoch=0).render(REPORT))
    assert phrase in konflux["note"]
    assert (konflux["successes"], konflux["failures"], konflux["warnings"]) == (2, 2, 1)
    summary = json.loads(get_reporter("json").render(REPORT))["summary"]
    assert summary == {
        "errors": 2,
        "warnings": 1,
        "info": 2,
        "checked": 0,
        "checks": 6,
        "clean": 2,
        "new": 3,
        "unchanged": 2,
        "fixed": 1,
    }
    sarif = json.loads(get_reporter("sarif").render(REPORT))["runs"][0]["properties"]
    assert sarif == {
        k: summary[k] for k in ("checks", "clean", "errors", "warnings", "info", "new", "unchanged", "fixed")
    }
    suite = ET.fromstring(get_reporter("junit").render(REPORT)).find("testsuite")
    assert suite is not None
    props = {p.get("name"): int(p.get("value") or 0) for p in suite.iter("property")}
    assert props == sarif
    assert "| 6 | 2 | 1 | 2 | 3 | 2 | 1 |" in get_reporter("markdown").render(REPORT)


def test_junit_has_no_passing_testcase_beside_findings_of_the_same_check() -> None:
    root = ET.fromstring(get_reporter("junit").render(REPORT))
    names = [(c.get("classname"), c.get("name")) for c in root.iter("testcase")]
    assert ("releasekit.RK-DIFF-002", "RK-DIFF-002 found nothing") not in names  # it found notes
    assert ("releasekit.RK-GRAPH-010", "RK-GRAPH-010 found nothing") not in names
    assert ("releasekit.RK-DIFF-004", "RK-DIFF-004 found nothing") in names
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == str(len(names)) == "7"
    assert suite.get("failures") == "2"


def test_fail_on_new_fails_only_for_new_errors() -> None:
    from dataclasses import replace

    assert not REPORT.passed
    only_old = replace(REPORT, findings=(OLD_ERROR, OLD_WARNING), fail_on=FailOn.NEW)
    assert only_old.passed and not replace(only_old, fail_on=FailOn.ERROR).passed
    # --fail-on new: the result judges what the change brings (nothing here); the counts report all
    konflux = json.loads(KonfluxReporter(epoch=0).render(only_old))
    assert konflux["result"] == "SUCCESS" and (konflux["failures"], konflux["warnings"]) == (1, 1)
    old = json.loads(KonfluxReporter(epoch=0).render(replace(only_old, fail_on=FailOn.ERROR)))
    assert old["result"] == "FAILURE"
    assert json.loads(KonfluxReporter(epoch=0).render(REPORT))["result"] == "FAILURE"


def test_github_annotates_new_findings_only() -> None:
    lines = get_reporter("github").render(REPORT).splitlines()
    annotated = [line for line in lines if line.startswith("::")]
    assert any("title=RK-DIFF-003" in line for line in annotated)
    assert not any("title=RK-DIFF-001" in line or "title=RK-GRAPH-010" in line for line in annotated)


def test_sarif_results_carry_their_baseline_state() -> None:
    results = json.loads(get_reporter("sarif").render(REPORT))["runs"][0]["results"]
    states = {r["ruleId"]: r["baselineState"] for r in results}
    assert states["RK-DIFF-003"] == "new" and states["RK-DIFF-001"] == "unchanged"
    plain = json.loads(get_reporter("sarif").render(Report(command="x", findings=(NEW_ERROR,))))
    assert "baselineState" not in plain["runs"][0]["results"][0]


def test_markdown_opens_with_the_change_then_new_then_unchanged_folded() -> None:
    text = get_reporter("markdown").render(REPORT)
    order = [
        text.index("### What this change does"),
        text.index("- **v4.18** `p`\n  - bundles removed: p.v1"),
        text.index("#### Upgrade graph of p (v4.18)"),
        text.index("### Findings this change brings"),
        text.index("`RK-DIFF-003`"),
        text.index("<details>"),
        text.index("`RK-DIFF-001`"),
        text.index("</details>"),
        text.index("### Findings this change fixes"),
    ]
    assert order == sorted(order)
    assert "RK-DIFF-002" not in text  # told by the change summary, not repeated as findings


def test_text_shows_the_change_without_verbose() -> None:
    text = get_reporter("text", verbosity=1).render(REPORT)
    assert text.startswith("What this change does:\n  v4.18 p\n    bundles removed: p.v1\n")
    assert "error (new) RK-DIFF-003" in text
    assert "RK-DIFF-001" not in text.split("(2 findings the base")[0]


def test_no_format_points_at_a_graph_only_markdown_has() -> None:
    from releasekit.rules.diff import CatalogChange, check_changes

    (finding,) = check_changes([CatalogChange(openshift="v4.18", package="p", bundles_added=("p.v2",))])
    assert "below" not in finding.hint and "Markdown report" not in finding.hint
    for fmt in ("text", "json", "junit", "sarif", "github", "markdown"):
        assert "graph below" not in get_reporter(fmt).render(Report(command="check", findings=(finding,)))


# ------------------------------------------------------------------------------- rules reference


def test_sarif_rules_carry_descriptions_and_help_into_docs_rules_md() -> None:
    docs = all_rule_docs()
    sarif = json.loads(SarifReporter(docs=docs).render(REPORT))
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    rule = rules["RK-DIFF-003"]
    assert rule["shortDescription"]["text"] == "a published bundle was removed from a channel or catalog"
    assert rule["fullDescription"]["text"] and "Fix:" in rule["help"]["text"]
    assert rule["helpUri"] == "docs/rules.md#rk-diff-003"
    custom = json.loads(SarifReporter(docs=docs, rules_url="https://example.invalid/rules.md").render(REPORT))
    uris = {r["helpUri"] for r in custom["runs"][0]["tool"]["driver"]["rules"]}
    assert all(u.startswith("https://example.invalid/rules.md#rk-") for u in uris)
    assert custom["runs"][0]["tool"]["driver"]["informationUri"] == "https://example.invalid/rules.md"
    assert "informationUri" not in sarif["runs"][0]["tool"]["driver"]  # SARIF wants it absolute


def test_rules_url_option_reaches_sarif(run_line: Callable[..., Result], tmp_path: Path) -> None:
    from tests.conftest import usual_catalog

    folder = tmp_path / "cat" / "foo"
    folder.mkdir(parents=True)
    (folder / "catalog.json").write_text("\n".join(json.dumps(o) for o in usual_catalog()) + "\n")
    result = run_line(
        [
            "catalog",
            "validate",
            tmp_path / "cat",
            "--format",
            "sarif",
            "--rules-url",
            "https://x.invalid/r.md",
        ]
    )
    rules = json.loads(result.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert rules and all(r["helpUri"].startswith("https://x.invalid/r.md#") for r in rules)


def test_every_rule_id_in_the_code_is_documented() -> None:
    docs = all_rule_docs()
    used = set()
    for path in (REPO_ROOT / "releasekit").rglob("*.py"):
        used |= set(re.findall(r"\"(RK-[A-Z]+-\d{3})\"", path.read_text(encoding="utf-8")))
    missing = sorted(used - set(docs))
    assert not missing, (
        f"rule ids docs/rules.md does not know: {missing}; add them to their module's rule table (or the "
        "module to releasekit/jobs/rule_docs.py all_rule_docs), then run `python -m releasekit.jobs.rule_docs`"
    )
    for doc in docs.values():
        assert doc.title and doc.why and doc.example and doc.fix, doc.id


def test_docs_rules_md_is_in_sync_with_the_rule_tables() -> None:
    path = REPO_ROOT / "docs" / "rules.md"
    expected = render_rules_markdown(all_rule_docs())
    assert path.is_file() and path.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is out of date: regenerate it with `python -m releasekit.jobs.rule_docs` "
        "(from the repository root) and commit it"
    )


def test_rule_examples_name_real_rules_and_win_over_the_family() -> None:
    from releasekit.jobs.rule_docs import FAMILIES
    from releasekit.rules.explain import EXAMPLES

    docs = all_rule_docs()
    assert not sorted(set(EXAMPLES) - set(docs)), "examples for rule ids that do not exist"
    for rid, (example, _) in EXAMPLES.items():
        assert docs[rid].example == example or rid.startswith("RK-DIFF") or rid == "RK-POLICY-001"
    assert FAMILIES  # a rule not listed in EXAMPLES falls back on its family's example (see rule_docs)
    assert "(it could never be installed there" in docs["RK-POLICY-011"].title
