"""``releasekit check`` on real temporary git repositories: the five pull requests of issue 6.

One base repository per module (the repository's own ``streams/``, ``bundle-templates/`` and ``catalog/``,
committed once), and one branch per scenario on top of it, its catalogs regenerated with ``releasekit
build`` as a release engineer would:

(a) ``add-release``  -- a new 1.4.2 in stable.yaml, properly: the check passes;
(b) ``remove-bundle`` -- 1.3.0 dropped from stable.yaml: the pruning rule names the bundle;
(c) ``change-facts`` -- a related image digest of released 1.2.0 edited in streams/recorded: the
    immutability rules name the field;
(d) ``strand``        -- v4.20 dropped from released 1.1.0's catalogs: the stranded-user rule names the
    version and the OpenShift catalog;
(e) ``alpha-gate``    -- a new 1.4.2 that switches on an Alpha gate without the opt-in allow-list: the
    gate-policy rule names the gate and the release.

Each scenario asserts its rule id and subject in every format; golden files per format live in
``tests/golden/check/<scenario>/`` (``RELEASEKIT_UPDATE_GOLDEN=1`` rewrites them; read them when you do).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path

import git
import pytest
from click.testing import Result

from releasekit.io.atomic import write_tree_atomic
from releasekit.io.gitrev import committed_files
from releasekit.io.streams import load_streams
from releasekit.jobs.carry import carried_at_head
from releasekit.jobs.catalog_build import build_catalogs
from releasekit.jobs.check import CheckRequest, run_check
from releasekit.model.layout import DEFAULT_LAYOUT
from releasekit.model.report import Report
from releasekit.report import get_reporter
from releasekit.report.konflux import KonfluxReporter
from tests.conftest import REPO_ROOT

GOLDEN = REPO_ROOT / "tests" / "golden" / "check"
EPOCH = 1767225600  # 2026-01-01T00:00:00Z
FORMATS = {
    "text": "txt",
    "json": "json",
    "junit": "xml",
    "sarif": "json",
    "github": "txt",
    "markdown": "md",
    "konflux": "json",
}
DIGEST = "sha256:" + "4" * 64

NEW_RELEASE = """\
  - version: 1.4.2
    status: released
    upstream:
      line: "0.18"
      describe: v0.18.4-40-ge4ce3bcc
      inventory: kueue-v0.18.4-40-ge4ce3bcc
    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]
    bundle: registry.redhat.io/kueue/kueue-operator-bundle@{d}
    images:
      operator: registry.redhat.io/kueue/kueue-rhel9-operator@{d}
      operand: registry.redhat.io/kueue/kueue-rhel9@{d}
      mustGather: registry.redhat.io/kueue/kueue-must-gather-rhel9@{d}
    createdAt: "2026-09-01T10:00:00Z"
    featureGates:
{gates}
"""

OPT_IN = """\
      optIn:
        - gate: SparkApplicationIntegration
          configField: spec.config.integrations.frameworks[SparkApplication]
          reason: the SparkApplication integration needs its upstream gate
"""

ALPHA_SETTING = """\
      settings:
        - gate: AdmissionGatedBy
          enabled: true
          reason: try admission gates in production
"""


def _add_release(root: Path, gates: str) -> None:
    stable = root / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + NEW_RELEASE.format(d=DIGEST, gates=gates.rstrip("\n")))


def _remove_release(root: Path, version: str) -> None:
    stable = root / "streams" / "stable.yaml"
    text = stable.read_text()
    start = text.index(f"  - version: {version}\n")
    end = text.index("  - version: ", start + 1)
    stable.write_text(text[:start] + text[end:])
    (root / "streams" / "recorded" / f"kueue-operator.v{version}.yaml").unlink()


def _change_related_image(root: Path) -> None:
    recorded = root / "streams" / "recorded" / "kueue-operator.v1.2.0.yaml"
    old = "kueue-rhel9@sha256:bdf48afa3c62beec7402edddac8803363e793cf74c1c4cf908ae81845296ce3b"
    text = recorded.read_text()
    assert old in text
    recorded.write_text(text.replace(old, "kueue-rhel9@" + DIGEST))


def _drop_catalog(root: Path) -> None:
    stable = root / "streams" / "stable.yaml"
    text = stable.read_text()
    start = text.index("  - version: 1.1.0\n")
    line = "    catalogs: [v4.18, v4.19, v4.20]\n"
    at = text.index(line, start)
    stable.write_text(text[:at] + "    catalogs: [v4.18, v4.19]\n" + text[at + len(line) :])


SCENARIOS: dict[str, Callable[[Path], None]] = {
    "add-release": lambda root: _add_release(root, OPT_IN),
    "remove-bundle": lambda root: _remove_release(root, "1.3.0"),
    "change-facts": _change_related_image,
    "strand": _drop_catalog,
    "alpha-gate": lambda root: _add_release(root, OPT_IN + ALPHA_SETTING),
}


def regenerate(root: Path) -> None:
    """What ``build`` would write from the changed streams (published blobs carried from HEAD), written
    without its checks: the catalogs a pull request carries, which ``build`` refuses to write when they
    hold an error (one verdict, issue 24)."""
    loaded = load_streams(root / "streams")
    carried = carried_at_head(
        committed_files(root / "catalog"), loaded.streams, DEFAULT_LAYOUT, display="catalog"
    )
    built = build_catalogs(root / "streams", root / "bundle-templates", loaded=loaded, carried=carried)
    shutil.rmtree(root / "catalog")  # a catalog no release is in any more goes, as build would remove it
    write_tree_atomic(root / "catalog", built.files, marker=False, lock=False)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A git repository: ``base`` holds the repository's data, one branch per scenario on top."""
    root = tmp_path_factory.mktemp("check-repo")
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, root / name)
    r = git.Repo.init(root, initial_branch="base")
    with r.config_writer() as cfg:
        cfg.set_value("user", "name", "releasekit tests")
        cfg.set_value("user", "email", "tests@example.invalid")
    r.index.add(["streams", "bundle-templates", "catalog"])
    r.index.commit("base")
    for name, change in SCENARIOS.items():
        r.git.checkout("-q", "-f", "-B", name, "base")
        change(root)
        regenerate(root)  # as a pull request carries it: build itself refuses to write the bad ones
        r.git.add("-A", "streams", "catalog")
        r.index.commit(name)
    r.git.checkout("-q", "-f", "base")
    yield root
    r.close()


@pytest.fixture(scope="module")
def reports(repo: Path) -> dict[str, Report]:
    return {name: run_check(CheckRequest(base="base", head=name, repo=repo)).report for name in SCENARIOS}


def _render(report: Report, fmt: str) -> str:
    if fmt == "konflux":
        return KonfluxReporter(epoch=EPOCH).render(report)
    return get_reporter(fmt).render(report)


def _golden(scenario: str, fmt: str, text: str) -> None:
    path = GOLDEN / scenario / f"{fmt}.{FORMATS[fmt]}"
    if os.environ.get("RELEASEKIT_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.is_file(), f"missing golden file {path} (RELEASEKIT_UPDATE_GOLDEN=1 writes it)"
    assert text == path.read_text(), f"{path} differs"


def _ids(report: Report) -> set[str]:
    return {f.rule for f in report.findings}


def _errors(report: Report) -> list[tuple[str, tuple[str, ...], str]]:
    return sorted((f.rule, f.subject, f.message) for f in report.findings if f.severity.value == "error")


# ------------------------------------------------------------------------------ what each one finds


def test_a_proper_release_passes(reports: dict[str, Report]) -> None:
    report = reports["add-release"]
    assert report.passed, _errors(report)
    changes = [f for f in report.findings if f.rule == "RK-DIFF-002"]
    assert {f.subject[0] for f in changes} == {"v4.18", "v4.19", "v4.20", "v4.21", "v4.22", "v4.23", "v5.0"}
    assert all("+bundle kueue-operator.v1.4.2" in f.message for f in changes)
    assert all(
        "kueue-operator.v1.4.1 -> kueue-operator.v1.4.2 (skips, stable-v1.4)" in f.message for f in changes
    )
    titles = [title for title, _ in report.extras]
    assert any(t.startswith("Upgrade graph of kueue-operator (v4.18") for t in titles)
    block = dict(report.extras)[titles[0]]
    assert "**Before**" in block and "**After**" in block and "```mermaid" in block
    assert "kueue-operator.v1.4.2 (head)" in block.split("**After**")[1]
    assert "kueue-operator.v1.4.2" not in block.split("**After**")[0]


def test_b_removing_a_published_bundle_is_a_pruning_error(reports: dict[str, Report]) -> None:
    report = reports["remove-bundle"]
    pruned = [f for f in report.findings if f.rule == "RK-DIFF-003"]
    assert {f.subject for f in pruned} == {
        (v, "kueue-operator", "kueue-operator.v1.3.0") for v in ("v4.18", "v4.19", "v4.20", "v4.21")
    }
    assert all("published bundle kueue-operator.v1.3.0 was removed" in f.message for f in pruned)
    assert all(f.severity.value == "error" for f in pruned)
    assert any(
        f.rule == "RK-DIFF-006" and "no longer in stream 'stable'" in f.message for f in report.findings
    )
    assert not report.passed


def test_c_changing_released_facts_names_the_field(reports: dict[str, Report]) -> None:
    report = reports["change-facts"]
    facts = [f for f in report.findings if f.rule == "RK-DIFF-006"]
    assert [f.subject for f in facts] == [("stable", "kueue-operator.v1.2.0")]
    assert facts[0].message.startswith("recorded.relatedImages[3].image of released version 1.2.0")
    assert facts[0].location.file == "streams/recorded/kueue-operator.v1.2.0.yaml"
    assert facts[0].location.line is not None
    # The published blob is carried from base as it is (build refused to rewrite it), so it is not
    # drift: it contradicts the edited facts, in every catalog that holds it.
    assert not [f for f in report.findings if f.rule in ("RK-DIFF-001", "RK-DIFF-005")]
    carried = [f for f in report.findings if f.rule == "RK-DIFF-011"]
    assert {f.subject[0] for f in carried} == {"v4.18", "v4.19", "v4.20", "v4.21"}
    assert all(f.subject[-1] == 'bundle "kueue-operator.v1.2.0"' for f in carried)
    assert all(
        "relatedImages registry.redhat.io/kueue/kueue-rhel9@sha256:bdf48afa" in f.message for f in carried
    )
    assert all(f"kueue-rhel9@{DIGEST}" in f.message for f in carried)


def test_d_stranding_a_version_names_version_and_catalog(reports: dict[str, Report]) -> None:
    report = reports["strand"]
    stranded = [f for f in report.findings if f.rule == "RK-DIFF-007"]
    assert [f.subject for f in stranded] == [("v4.20", "kueue-operator", "kueue-operator.v1.1.0")]
    assert "users of kueue-operator.v1.1.0 on OpenShift v4.20 are stranded" in stranded[0].message
    upgrade = [f for f in report.findings if f.rule == "RK-GRAPH-010" and f.severity.value == "error"]
    # along every cluster upgrade into v4.20: the minor one from v4.19 and the EUS one from v4.18
    assert [f.message.split(":")[0] for f in upgrade] == [
        'bundle "kueue-operator.v1.1.0" is in the v4.18 catalog but not in v4.20, and no bundle there '
        "upgrades from it",
        'bundle "kueue-operator.v1.1.0" is in the v4.19 catalog but not in v4.20, and no bundle there '
        "upgrades from it",
    ]
    assert not report.passed
    # the pull-request Markdown shows the matrix rows the change alters, and only those
    title, table = next(e for e in report.extras if e[0].startswith("OpenShift upgrade matrix"))
    assert "kueue-operator" in title
    rows = [line for line in table.splitlines()[2:]]
    assert [r.split(" | ")[1:3] for r in rows] == [
        ["v4.18 → v4.20 (eus)", "1.1.0"],
        ["v4.19 → v4.20 (minor)", "1.1.0"],
        ["v4.20 → v4.21 (minor)", "1.1.0"],  # no longer installable on v4.20: the row goes away
        ["v4.20 → v4.22 (eus)", "1.1.0"],
    ]
    assert all("| 1.1.0 via 1.1.0 | stranded: not in the v4.20 catalog" in r for r in rows[:2])
    assert all(r.startswith("| kueue-operator |") and r.endswith(" | - |") for r in rows[2:])


def test_e_alpha_gate_without_opt_in_names_gate_and_release(reports: dict[str, Report]) -> None:
    report = reports["alpha-gate"]
    gates = [f for f in report.findings if f.rule == "RK-STREAM-015"]
    assert len(gates) == 1
    assert gates[0].subject == ("kueue-operator", "1.4.2")
    assert "gate 'AdmissionGatedBy' is Alpha" in gates[0].message
    assert gates[0].location.file == "streams/stable.yaml" and gates[0].location.line is not None
    # build refused to write the catalogs (all or nothing), so the new bundle is also missing there
    others = [e for e in _errors(report) if e[0] != "RK-DIFF-001"]
    assert others == [(gates[0].rule, gates[0].subject, gates[0].message)]


# --------------------------------------------------------------------------------- every format

EXPECTED = {
    "add-release": ("RK-DIFF-002", "kueue-operator.v1.4.2"),
    "remove-bundle": ("RK-DIFF-003", "kueue-operator.v1.3.0"),
    "change-facts": ("RK-DIFF-006", "recorded.relatedImages[3].image"),
    "strand": ("RK-DIFF-007", "users of kueue-operator.v1.1.0 on OpenShift v4.20"),
    "alpha-gate": ("RK-STREAM-015", "AdmissionGatedBy"),
}


def _assert_in_format(fmt: str, text: str, rule: str, subject: str, passed: bool) -> None:
    if fmt == "konflux":
        out = json.loads(text)
        assert out["result"] == ("WARNING" if passed else "FAILURE") or (
            passed and out["result"] == "SUCCESS"
        )
        assert out["timestamp"] == "2026-01-01T00:00:00+00:00"
        assert (out["failures"] > 0) is (not passed)
        if not passed:  # the note names the failing rules (the subject needs the full report)
            assert rule in out["note"]
        return
    if fmt == "json":
        data = json.loads(text)
        assert data["passed"] is passed
        assert any(f["rule"] == rule and subject in f["message"] for f in data["findings"])
        return
    if fmt == "sarif":
        data = json.loads(text)
        results = data["runs"][0]["results"]
        assert any(r["ruleId"] == rule and subject in r["message"]["text"] for r in results)
        return
    if fmt == "junit":
        root = ET.fromstring(text)
        cases = [
            c for c in root.iter("testcase") if rule in (c.get("name") or "") + (c.get("classname") or "")
        ]
        assert cases, f"no testcase for {rule}"
        assert any(subject in ET.tostring(c, encoding="unicode") for c in cases)
        return
    if fmt == "github":
        line = next(ln for ln in text.splitlines() if f"title={rule}" in ln and subject in ln)
        assert line.startswith("::notice" if rule == "RK-DIFF-002" else "::error")
        return
    # text and Markdown tell the change itself ("What this change does") instead of RK-DIFF-002 notes
    assert subject in text and (rule in text or rule == "RK-DIFF-002")


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_every_format_names_rule_and_subject(scenario: str, reports: dict[str, Report]) -> None:
    report = reports[scenario]
    rule, subject = EXPECTED[scenario]
    for fmt in FORMATS:
        text = _render(report, fmt)
        _assert_in_format(fmt, text, rule, subject, report.passed)
        _golden(scenario, fmt, text)


# ------------------------------------------------------------------------------------- command line


def test_cli_exit_codes_and_konflux(run_line: Callable[..., Result], repo: Path, tmp_path: Path) -> None:
    ok = run_line(["check", "--repo", repo, "--base", "base", "--head", "add-release", "--format", "json"])
    assert ok.exit_code == 0, ok.stdout
    bad = run_line(["check", "--repo", repo, "--base", "base", "--head", "strand"])
    assert bad.exit_code == 1
    assert "RK-DIFF-007" in bad.stdout
    out = tmp_path / "test-output.json"
    konflux = run_line(
        [
            "check",
            "--repo",
            repo,
            "--base",
            "base",
            "--head",
            "strand",
            "--format",
            "konflux",
            "--output",
            out,
        ],
        env={"SOURCE_DATE_EPOCH": str(EPOCH)},
    )
    assert konflux.exit_code == 0
    assert json.loads(out.read_text())["result"] == "FAILURE"


def test_konflux_fail_on_new_judges_only_what_the_change_brings(
    run_line: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    """A clean new release is SUCCESS with --fail-on new, although the base's history holds warnings."""
    results = {}
    for fail_on in ("new", "error"):
        out = tmp_path / f"test-output-{fail_on}.json"
        args = ["check", "--repo", repo, "--base", "base", "--head", "add-release", "--format", "konflux"]
        done = run_line([*args, "--fail-on", fail_on, "--output", out], env={"SOURCE_DATE_EPOCH": str(EPOCH)})
        assert done.exit_code == 0
        results[fail_on] = json.loads(out.read_text())
    assert results["new"]["result"] == "SUCCESS"
    assert results["error"]["result"] == "WARNING"  # every finding counts: the history's warnings too
    assert results["new"]["warnings"] == results["error"]["warnings"] > 0  # the counts report all


def test_working_tree_is_the_default_head(run_line: Callable[..., Result], repo: Path) -> None:
    clean = run_line(["check", "--repo", repo, "--base", "base", "--format", "json"])
    assert clean.exit_code == 0
    assert not [f for f in json.loads(clean.stdout)["findings"] if f["rule"].startswith("RK-DIFF")]


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("--upload-pack=touch x", "starts with '-'"),
        ("base..strand", "'..' makes it a range"),
        ("no-such-branch", "names no commit"),
    ],
)
def test_refs_are_validated_before_git_sees_them(
    run_line: Callable[..., Result], repo: Path, ref: str, message: str
) -> None:
    result = run_line(["check", "--repo", repo, f"--base={ref}"])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_not_a_repository_is_exit_2(run_line: Callable[..., Result], tmp_path: Path) -> None:
    result = run_line(["check", "--repo", tmp_path, "--base", "main", "--format", "konflux"])
    assert result.exit_code == 2
    assert re.search(r"not a git repository", result.stderr)
    assert json.loads(result.stdout)["result"] == "ERROR"
