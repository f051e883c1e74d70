"""``releasekit check`` against a base revision's own findings: new, unchanged and fixed.

Temporary git repositories copied from this checkout (``streams/``, ``bundle-templates/``, ``catalog/``,
``README.md``), one commit per step, as tests/scenarios/test_check.py builds them:

- a README-only commit: every finding is ``unchanged`` and the check passes;
- a published bundle removed: the removal is a ``new`` error in JSON, SARIF and GitHub output, and the
  base's warnings are neither annotated nor new;
- a base that already holds an error (a hand-edited catalog) plus a harmless change: ``--fail-on new``
  exits 0, the default exits 1.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import git
import jsonschema
import pytest
from click.testing import Result
from hypothesis import given
from hypothesis import strategies as st

from releasekit.jobs.check import CheckRequest, run_check
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.report import BaselineState, match_baseline
from releasekit.report import get_reporter
from tests.conftest import REPO_ROOT
from tests.scenarios.test_check import regenerate

SCHEMA = json.loads((REPO_ROOT / "releasekit" / "schemas" / "report.schema.json").read_text())


def _init(root: Path) -> git.Repo:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    shutil.copy(REPO_ROOT / "README.md", root / "README.md")
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    repo.git.add("-A")
    repo.index.commit("base")
    return repo


def _commit(repo: git.Repo, message: str) -> None:
    repo.git.add("-A")
    repo.index.commit(message)


def _json(run_line: Callable[..., Result], root: Path, *extra: str) -> tuple[Result, dict]:  # type: ignore[type-arg]
    result = run_line(["check", "--repo", root, "--base", "HEAD~1", "--format", "json", *extra])
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return result, data


def test_a_readme_only_commit_leaves_every_finding_unchanged(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = _init(tmp_path)
    (tmp_path / "README.md").write_text("# a README-only change\n", encoding="utf-8")
    _commit(repo, "README only")
    result, data = _json(run_line, tmp_path)
    assert result.exit_code == 0, result.stdout
    assert data["findings"], "the repository's own warnings are expected here"
    assert {f["baseline"] for f in data["findings"]} == {"unchanged"}
    assert data["summary"]["new"] == 0 and data["summary"]["fixed"] == 0
    assert data["summary"]["unchanged"] == len(data["findings"])
    assert "changes" not in data
    text = run_line(["check", "--repo", tmp_path, "--base", "HEAD~1"])
    assert text.exit_code == 0
    assert "already had not shown; -v shows them" in text.stdout
    assert "warning (" not in text.stdout  # nothing new to show by default


def test_when_nothing_releasekit_reads_changed_the_short_cut_equals_checking_the_base(tmp_path: Path) -> None:
    """``check`` skips the second run when base and head hold the same files; the answer is the same."""
    from releasekit.io.fbc_load import LoadLimits
    from releasekit.io.gitrev import open_repo, resolve_commit, snapshot_commit
    from releasekit.jobs import check as check_job

    repo = _init(tmp_path)
    (tmp_path / "README.md").write_text("# a README-only change\n", encoding="utf-8")
    _commit(repo, "README only")
    git_repo = open_repo(tmp_path)
    request = CheckRequest(base="HEAD~1", head="HEAD", repo=tmp_path)
    base = snapshot_commit(resolve_commit(git_repo, "HEAD~1"), tmp_path / ".base")
    head = snapshot_commit(resolve_commit(git_repo, "HEAD"), tmp_path / ".head")
    loaded = check_job._base_streams(base)
    result = check_job._check(request, base, head, LoadLimits(), base_loaded=loaded)
    assert not check_job._changed(base.files, head.files)  # the same blobs: the short cut applies
    full = check_job._baseline(base, LoadLimits(), result.packages, loaded)
    short = check_job._baseline(
        base, LoadLimits(), result.packages, loaded, head=head, head_findings=result.report.findings
    )
    assert sorted(f.sort_key() for f in full) == sorted(f.sort_key() for f in short) != []


def _remove_release(root: Path, version: str) -> None:
    stable = root / "streams" / "stable.yaml"
    text = stable.read_text()
    start = text.index(f"  - version: {version}\n")
    end = text.index("  - version: ", start + 1)
    stable.write_text(text[:start] + text[end:])
    (root / "streams" / "recorded" / f"kueue-operator.v{version}.yaml").unlink()
    regenerate(root)  # the catalogs a pull request would carry (build itself refuses this change)


def test_removing_a_published_bundle_is_a_new_error_in_json_sarif_and_github(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = _init(tmp_path)
    _remove_release(tmp_path, "1.3.0")
    _commit(repo, "remove 1.3.0")
    result, data = _json(run_line, tmp_path)
    assert result.exit_code == 1
    removed = [f for f in data["findings"] if f["rule"] == "RK-DIFF-003"]
    assert removed and {f["baseline"] for f in removed} == {"new"}
    assert {f["severity"] for f in removed} == {"error"}
    assert all(f["baseline"] == "unchanged" for f in data["findings"] if f["severity"] == "warning")
    # what the base said about 1.3.0 (a stranding across OpenShift upgrades) no longer holds
    assert data["fixed"] and all("kueue-operator.v1.3.0" in " ".join(f["subject"]) for f in data["fixed"])
    changes = {c["openshift"]: c["lines"] for c in data["changes"]}
    assert changes["v4.18"][0] == "bundles removed: kueue-operator.v1.3.0"

    # SARIF and GitHub output of the same check, rendered from one run
    report = run_check(CheckRequest(base="HEAD~1", repo=tmp_path)).report
    results = json.loads(get_reporter("sarif").render(report))["runs"][0]["results"]
    states = {(r["ruleId"], r["baselineState"]) for r in results}
    assert ("RK-DIFF-003", "new") in states
    assert all(r["baselineState"] == "unchanged" for r in results if r["level"] == "warning")

    github = get_reporter("github").render(report)
    annotations = [line for line in github.splitlines() if line.startswith("::")]
    assert any(line.startswith("::error") and "title=RK-DIFF-003" in line for line in annotations)
    assert not [line for line in annotations if line.startswith("::warning")]  # all warnings are the base's
    assert f"{data['summary']['unchanged']} unchanged" in github.splitlines()[-1]


def test_an_error_the_base_already_had_fails_only_without_fail_on_new(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    repo = _init(tmp_path)
    catalog = tmp_path / "catalog" / "v4.18" / "configs" / "kueue-operator" / "catalog.json"
    catalog.write_text(catalog.read_text().replace('"stable-v1.4"', '"stable-v1.3"', 1))
    _commit(repo, "a base with a hand-edited catalog")
    stable = tmp_path / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + "# a harmless comment\n")
    _commit(repo, "harmless")
    default, data = _json(run_line, tmp_path)
    assert default.exit_code == 1
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert errors and {f["baseline"] for f in errors} == {"unchanged"}
    new_only, data = _json(run_line, tmp_path, "--fail-on", "new")
    assert new_only.exit_code == 0
    assert data["passed"] is True and data["failOn"] == "new"


# ------------------------------------------------------------------------------------- matching, pure


def _f(rule: str, subject: tuple[str, ...], line: int, message: str = "m") -> Finding:
    return Finding(
        rule=rule,
        severity=Severity.ERROR,
        message=message,
        location=Location(file="f", line=line),
        subject=subject,
    )


def test_matching_is_by_rule_and_subject_not_line() -> None:
    base = [_f("RK-DIFF-003", ("v4.18", "p", "b"), 10), _f("RK-GRAPH-010", ("p", "x"), 3)]
    head = [_f("RK-DIFF-003", ("v4.18", "p", "b"), 99), _f("RK-DIFF-003", ("v4.19", "p", "b"), 10)]
    states, fixed = match_baseline(head, base)
    assert states[head[0]] is BaselineState.UNCHANGED  # moved lines, same rule and subject
    assert states[head[1]] is BaselineState.NEW  # same line, another subject
    assert fixed == (base[1],)


def test_a_warning_that_becomes_an_error_is_a_new_error() -> None:
    base = [_f("RK-GRAPH-010", ("p", "x"), 3)]
    warning = Finding(rule="RK-GRAPH-010", severity=Severity.WARNING, message="m", subject=("p", "x"))
    states, fixed = match_baseline(base, [warning])
    assert states[base[0]] is BaselineState.NEW and fixed == (warning,)


def test_one_subject_in_two_catalog_files_is_two_findings() -> None:
    def graph(file: str) -> Finding:
        return Finding(
            rule="RK-GRAPH-010",
            severity=Severity.WARNING,
            message="strands it",
            location=Location(file=file, line=5),
            subject=("package p", "bundle p.v1"),
        )

    base = [graph("catalog/v4.20/configs/p/catalog.json")]
    head = [graph("catalog/v4.19/configs/p/catalog.json")]
    states, fixed = match_baseline(head, base)
    assert states[head[0]] is BaselineState.NEW and fixed == tuple(base)


def test_matching_counts_repeated_keys() -> None:
    base = [_f("RK-STREAM-020", ("p", "1.0.0"), 1)]
    head = [_f("RK-STREAM-020", ("p", "1.0.0"), 1, "a"), _f("RK-STREAM-020", ("p", "1.0.0"), 2, "b")]
    states, fixed = match_baseline(head, base)
    assert sorted(s.value for s in states.values()) == ["new", "unchanged"]
    assert fixed == ()


@pytest.mark.parametrize("message", ["same", "other"])
def test_findings_without_subject_match_on_file_and_message(message: str) -> None:
    base = [Finding(rule="RK-DIFF-001", severity=Severity.ERROR, message="same", location=Location(file="a"))]
    head = [
        Finding(rule="RK-DIFF-001", severity=Severity.ERROR, message=message, location=Location(file="a"))
    ]
    states, _ = match_baseline(head, base)
    assert states[head[0]] is (BaselineState.UNCHANGED if message == "same" else BaselineState.NEW)


_RULES = st.sampled_from(["RK-DIFF-003", "RK-GRAPH-010", "RK-STREAM-020"])
_SUBJECTS = st.tuples(st.sampled_from(["v4.18", "v4.19"]), st.sampled_from(["a", "b"]))
_FINDINGS = st.lists(
    st.builds(_f, _RULES, _SUBJECTS, st.integers(min_value=1, max_value=50), st.sampled_from(["x", "y"])),
    max_size=12,
    unique=True,
)


@given(head=_FINDINGS, base=_FINDINGS)
def test_matching_accounts_for_every_finding(head: list[Finding], base: list[Finding]) -> None:
    states, fixed = match_baseline(head, base)
    unchanged = sum(s is BaselineState.UNCHANGED for s in states.values())
    assert set(states) == set(head)
    assert unchanged + len(fixed) == len(base)  # each base finding is matched once or fixed
    same, _ = match_baseline(head, head)
    assert all(s is BaselineState.UNCHANGED for s in same.values())
    moved = [_f(f.rule, f.subject, (f.location.line or 0) + 7, f.message) for f in head]
    assert match_baseline(moved, head)[1] == ()  # lines moving never makes a finding fixed
