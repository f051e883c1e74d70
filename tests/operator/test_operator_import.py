"""``releasekit operator import`` on a temporary operator repository built from the published bundles.

Every committed record under ``streams/operator/`` must come back byte for byte (apart from the source
commit, which names the real openshift/kueue-operator commit), the ``related_images.json`` substitution
must apply exactly where ``bundle.Dockerfile`` does it (1.2.0 on), and unreadable input is one line, exit 2.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import Result

from tests.conftest import REPO_ROOT
from tests.operator.conftest import RELEASED, published_dir

pytestmark = pytest.mark.shared

STREAMS = REPO_ROOT / "streams"
COMMIT_LINE = re.compile(r"^  commit: [0-9a-f]{40}$", re.MULTILINE)


def _import(run_line: Callable[..., Result], repo: Path, ref: str, version: str, out: Path) -> Result:
    return run_line(
        ["operator", "import", "--repo", repo, "--ref", ref, "--version", version, "--streams-dir", out]
    )


@pytest.mark.parametrize("version", RELEASED)
def test_reimport_reproduces_the_committed_record(
    version: str, operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    result = _import(run_line, operator_repo, f"v{version}", version, tmp_path)
    assert result.exit_code == 0, result.output
    written = (tmp_path / "operator" / f"{version}.yaml").read_text(encoding="utf-8")
    committed = (STREAMS / "operator" / f"{version}.yaml").read_text(encoding="utf-8")
    assert len(COMMIT_LINE.findall(committed)) == 1
    assert COMMIT_LINE.sub("  commit: C", written) == COMMIT_LINE.sub("  commit: C", committed)


@pytest.mark.parametrize("version", ["1.2.0", "1.3.0", "1.3.1", "1.4.0", "1.4.1"])
def test_related_images_are_substituted_from_1_2_0_on(
    version: str, operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    raw = (published_dir(version) / "manifests" / "kueue-operator.clusterserviceversion.yaml").read_text()
    assert ":latest" in raw  # the repository keeps placeholders
    images = {
        i["name"]: i["image"]
        for i in json.loads((published_dir(version) / "related_images.json").read_text())
    }
    assert _import(run_line, operator_repo, f"v{version}", version, tmp_path).exit_code == 0
    record = yaml.safe_load((tmp_path / "operator" / f"{version}.yaml").read_text())
    text = json.dumps(record["csv"])
    assert ":latest" not in text
    spec = record["csv"]["spec"]
    container = spec["install"]["spec"]["deployments"][0]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == images["operator"]
    assert {i["image"] for i in spec["relatedImages"]} >= {images["operand"], images["must-gather"]}
    assert [s["image"] for s in record["source"]["relatedImagesSubstituted"]] == [
        images["operator"],
        images["operand"],
        images["must-gather"],
    ]


def test_no_substitution_where_the_dockerfile_does_none(
    operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """1.1.0 has related_images.json, but its bundle.Dockerfile is FROM scratch: the CSV stays as written."""
    assert (published_dir("1.1.0") / "related_images.json").is_file()
    assert _import(run_line, operator_repo, "v1.1.0", "1.1.0", tmp_path).exit_code == 0
    record = yaml.safe_load((tmp_path / "operator" / "1.1.0.yaml").read_text())
    assert record["source"]["relatedImagesSubstituted"] == []
    published = yaml.safe_load(
        (published_dir("1.1.0") / "manifests" / "kueue-operator.clusterserviceversion.yaml").read_text()
    )
    assert record["csv"]["spec"]["relatedImages"] == published["spec"]["relatedImages"]


def test_prose_is_left_out(operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path) -> None:
    assert _import(run_line, operator_repo, "v1.4.1", "1.4.1", tmp_path).exit_code == 0
    record = yaml.safe_load((tmp_path / "operator" / "1.4.1.yaml").read_text())
    spec = record["csv"]["spec"]
    for key in ("description", "displayName", "icon", "keywords", "links", "maintainers", "provider"):
        assert key not in spec
    assert not {"description", "alm-examples"} & set(record["csv"]["metadata"]["annotations"])
    assert spec["customresourcedefinitions"]["owned"] == [
        {"name": "kueues.kueue.openshift.io", "version": "v1", "kind": "Kueue"}
    ]
    crd = next(m["object"] for m in record["manifests"] if m["object"]["kind"] == "CustomResourceDefinition")
    assert '"description": "' not in json.dumps(crd)  # schema texts gone (a property named description stays)
    labels = {label["name"] for label in record["dockerfileLabels"]}
    assert not {"io.k8s.description", "description", "summary", "io.k8s.display-name"} & labels
    assert {"com.redhat.openshift.versions", "maintainer", "cpe"} <= labels
    # the facts the template got wrong are here: namespace placeholder, the 1.4 RBAC for JobSet and LWS
    assert record["csv"]["metadata"]["namespace"] == "placeholder"
    groups = {
        g for rule in spec["install"]["spec"]["clusterPermissions"][0]["rules"] for g in rule["apiGroups"]
    }
    assert "operator.openshift.io" in groups


def test_the_last_duplicate_key_wins_as_in_go(
    operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """0.1.0–1.0.1 CSVs give operators.operatorframework.io/builder twice; the published metadata has the last."""
    assert _import(run_line, operator_repo, "v1.0.0", "1.0.0", tmp_path).exit_code == 0
    record = yaml.safe_load((tmp_path / "operator" / "1.0.0.yaml").read_text())
    assert (
        record["csv"]["metadata"]["annotations"]["operators.operatorframework.io/builder"]
        == "operator-sdk-v1.33.0"
    )


@pytest.mark.parametrize(
    ("ref", "version", "needle"),
    [
        ("--upload-pack=x", "1.4.1", "starts with '-'"),
        ("v9.9.9", "9.9.9", "not found"),
        ("v1.4.1", "1.4.0", "the CSV there is version 1.4.1, not 1.4.0"),
        ("v1.4.1", "one", "not a semantic version"),
    ],
)
def test_unreadable_input_is_one_line_exit_2(
    ref: str, version: str, needle: str, operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    result = _import(run_line, operator_repo, ref, version, tmp_path)
    assert result.exit_code == 2
    assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "operator").exists()


def test_a_repository_without_a_bundle_is_refused(run_line: Callable[..., Result], tmp_path: Path) -> None:
    import git

    from tests.cli.test_bundle_build import commit_all

    repo = git.Repo.init(tmp_path / "empty")
    (tmp_path / "empty" / "README.md").write_text("no bundle\n")
    commit_all(repo, "init")
    result = _import(run_line, tmp_path / "empty", "HEAD", "1.0.0", tmp_path / "out")
    assert result.exit_code == 2 and "no bundle/manifests/ folder" in result.stderr


def test_a_csv_that_is_not_yaml_is_refused(
    operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    import git

    from tests.cli.test_bundle_build import commit_all

    copy = tmp_path / "repo"
    shutil.copytree(operator_repo, copy)
    repo = git.Repo(copy)
    (copy / "bundle" / "manifests" / "kueue-operator.clusterserviceversion.yaml").write_text("a: [\n")
    commit_all(repo, "broken")
    result = _import(run_line, copy, "HEAD", "1.4.1", tmp_path / "out")
    assert result.exit_code == 2 and "not YAML" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_stream_loader_ignores_streams_operator() -> None:
    from releasekit.io.streams import load_streams

    loaded = load_streams(STREAMS)
    assert (STREAMS / "operator").is_dir()
    assert {s.name for s in loaded.streams} == {p.stem for p in STREAMS.glob("*.yaml")}
    assert not any("/operator/" in f for f in loaded.files)


def test_a_z_stream_whose_csv_is_not_bumped_says_what_to_do_or_takes_as_version(
    operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """Issue 24: the release-1.4 head still carries the 1.4.1 CSV when 1.4.2 is cut."""
    refused = _import(run_line, operator_repo, "v1.4.1", "1.4.2", tmp_path)
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    for needle in ("import the commit that bumps the CSV to 1.4.2", "RK-BUNDLE-100", "--as-version"):
        assert needle in refused.stderr
    done = run_line(
        [
            "operator",
            "import",
            "--repo",
            operator_repo,
            "--ref",
            "v1.4.1",
            "--version",
            "1.4.2",
            "--as-version",
            "--streams-dir",
            tmp_path,
        ]
    )
    assert done.exit_code == 0, done.output
    record = yaml.safe_load((tmp_path / "operator" / "1.4.2.yaml").read_text())
    assert record["version"] == "1.4.2" and record["source"]["csvVersion"] == "1.4.1"
    assert record["csv"]["spec"]["version"] == "1.4.1"  # the facts as read; the bundle re-aims them


def test_a_record_imported_as_another_version_builds_the_releases_own_bundle() -> None:
    from dataclasses import replace

    from releasekit.io.operator_records import load_operator_records
    from releasekit.io.streams import load_streams
    from releasekit.model.finding import Severity
    from releasekit.plan.operator_bundle import choose_operator_facts, recorded_csv

    stable = next(s for s in load_streams(STREAMS).streams if s.name == "stable")
    records, _ = load_operator_records(STREAMS)
    as_142 = replace(records["1.4.1"], version="1.4.2", csv_version="1.4.1")
    release = replace(stable.releases[-1], version=stable.releases[-1].version.bump_patch())
    stream = replace(stable, releases=(*stable.releases, release))
    facts = choose_operator_facts(stream, release, {**records, "1.4.2": as_142})
    assert (
        facts.record is as_142
        and facts.carried_from is not None
        and str(facts.carried_from.version) == "1.4.1"
    )
    assert [(f.rule, f.severity) for f in facts.findings] == [("RK-BUNDLE-100", Severity.INFO)]
    csv = recorded_csv(stream, release, as_142, carried_from=facts.carried_from, prose_doc={})
    assert csv["metadata"]["name"] == "kueue-operator.v1.4.2" and csv["spec"]["version"] == "1.4.2"


def test_a_release_published_on_a_carried_record_keeps_its_bundle(
    operator_repo: Path, run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """Issue 24: 1.4.2 shipped on 1.4.1's record; a record imported later that changes its bundle is refused."""
    import shutil

    streams = tmp_path / "streams"
    shutil.copytree(STREAMS, streams)
    stable = streams / "stable.yaml"
    text = stable.read_text()
    release = text[text.index("  - version: 1.4.1\n") :].replace("version: 1.4.1", "version: 1.4.2", 1)
    release = release.split("    recorded:")[0].rstrip("\n") + "\n"
    stable.write_text(text + release)  # released, with no record of its own: it shipped on 1.4.1's

    def as_142(ref: str) -> Result:
        return run_line(
            [
                "operator",
                "import",
                "--repo",
                operator_repo,
                "--ref",
                ref,
                "--version",
                "1.4.2",
                "--as-version",
                "--streams-dir",
                streams,
            ]
        )

    changed = as_142("v1.4.0")
    assert changed.exit_code == 2, changed.output
    assert (
        "refusing to record 1.4.2: it was published on" in changed.stderr and "new release" in changed.stderr
    )
    assert not (streams / "operator" / "1.4.2.yaml").exists()
    same = as_142("v1.4.1")  # the facts it shipped with: recording them changes nothing
    assert same.exit_code == 0, same.output
    assert (streams / "operator" / "1.4.2.yaml").is_file()
