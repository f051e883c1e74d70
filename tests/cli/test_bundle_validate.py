"""``releasekit bundle validate``: exit codes 0/1/2, JSON output, option parsing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import Result

from releasekit.cli.bundle import parse_optional_checks
from tests.bundle_factory import annotations, csv_data, write_bundle
from tests.conftest import REPO_ROOT

KUEUE = ("kueue-operator", "bundle")


@pytest.mark.shared
def test_clean_bundle_exits_0(run_line: Callable[..., Result], shared: Callable[..., Path]) -> None:
    result = run_line(["bundle", "validate", shared(*KUEUE, "v1.4.1")])
    assert result.exit_code == 0, result.output
    # the one warning is releasekit's own: the CSV grants escalate and bind on (cluster)roles (RK-OLMV1-006)
    assert "bundle validate: passed: 0 errors, 1 warning" in result.stdout
    assert "warning RK-OLMV1-006" in result.stdout


@pytest.mark.shared
def test_warnings_only_exit_0(run_line: Callable[..., Result], shared: Callable[..., Path]) -> None:
    result = run_line(["bundle", "validate", shared(*KUEUE, "v1.4.1"), "--optional-checks", "good-practices"])
    assert result.exit_code == 0, result.output
    assert "RK-BUNDLE-063" in result.stdout


@pytest.mark.shared
def test_release_checks_exit_1_and_json_parses(
    run_line: Callable[..., Result], shared: Callable[..., Path]
) -> None:
    result = run_line(
        ["bundle", "validate", shared(*KUEUE, "v1.4.1"), "--release-checks", "--format", "json"]
    )
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["passed"] is False
    assert {f["rule"] for f in report["findings"] if f["severity"] == "error"} == {"RK-BUNDLE-091"}
    assert {f["rule"] for f in report["findings"]} == {"RK-BUNDLE-091", "RK-OLMV1-006"}
    assert all(f["location"]["file"] and f["location"]["line"] for f in report["findings"])


@pytest.mark.shared
def test_k8s_version_alone_turns_on_removed_apis(
    run_line: Callable[..., Result], shared: Callable[..., Path], tmp_path: Path
) -> None:
    flat = shared("bundle-testdata", "api-valid_bundle_v1beta1")  # a flat folder: operator-sdk needs a root
    folder = write_bundle(
        tmp_path / "b",
        manifests={p.name: p.read_text() for p in flat.iterdir()}
        | {
            "widget.clusterserviceversion.yaml": None,
            "widgets.crd.yaml": None,
        },
    )
    result = run_line(["bundle", "validate", folder, "--k8s-version", "1.22", "--format", "json"])
    assert result.exit_code == 1
    messages = [f["message"] for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-BUNDLE-080"]
    assert messages and "removed in v1.22" in messages[0]


def test_missing_directory_exits_2(run_line: Callable[..., Result], tmp_path: Path) -> None:
    result = run_line(["bundle", "validate", tmp_path / "nope"])
    assert result.exit_code == 2
    assert "nope" in result.stderr and "Traceback" not in result.stderr


def test_a_manifest_file_is_no_bundle_exits_2(run_line: Callable[..., Result], tmp_path: Path) -> None:
    """A bundle root is what operator-sdk validates; one manifest file alone is refused, not judged."""
    manifest = tmp_path / "widget.clusterserviceversion.yaml"
    manifest.write_text("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n")
    result = run_line(["bundle", "validate", manifest])
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("widget.clusterserviceversion.yaml: not a folder")


def test_unknown_optional_check_exits_2(run_line: Callable[..., Result], tmp_path: Path) -> None:
    result = run_line(["bundle", "validate", tmp_path, "--optional-checks", "bogus"])
    assert result.exit_code == 2
    assert "bogus" in result.stderr


def test_broken_yaml_is_a_refusal_reported_with_line(run_line: Callable[..., Result], tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b", manifests={"csv.yaml": "kind: ClusterServiceVersion\nmetadata: [\n"})
    result = run_line(["bundle", "validate", root, "--format", "json", "--output", tmp_path / "out.json"])
    assert result.exit_code == 2
    assert "unable to decode object" in result.stderr and len(result.stderr.splitlines()) == 1
    report = json.loads((tmp_path / "out.json").read_text())
    broken = [f for f in report["findings"] if f["rule"] == "RK-BUNDLE-001"]
    assert broken and broken[0]["location"]["line"] >= 2


def test_parse_optional_checks() -> None:
    assert parse_optional_checks("good-practices, operatorhubv2", None) == ("good-practices", "operatorhubv2")
    assert parse_optional_checks(None, "1.25") == ("alpha-deprecated-apis",)
    assert parse_optional_checks("alpha-deprecated-apis", "1.25") == ("alpha-deprecated-apis",)
    with pytest.raises(click.BadParameter):
        parse_optional_checks("nope", None)


# --- stream policy applies only to bundles of a releasekit stream --------------------------------------

STREAMS = REPO_ROOT / "streams"


def _findings(result: Result) -> list[dict[str, object]]:
    return list(json.loads(result.stdout)["findings"])


def test_other_operators_stable_bundle_with_alpha_crd_has_no_error(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    root = write_bundle(tmp_path / "b")  # package widget-operator, channel stable, CRD v1alpha1
    result = run_line(["bundle", "validate", root, "--streams-dir", STREAMS, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert _findings(result) == []


def test_the_same_bundle_named_as_a_stable_stream_bundle_is_refused_alpha(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    root = write_bundle(tmp_path / "b")
    result = run_line(
        ["bundle", "validate", root, "--streams-dir", STREAMS, "--stream", "stable", "--format", "json"]
    )
    assert result.exit_code == 1, result.output
    (found,) = _findings(result)
    assert found["rule"] == "RK-BUNDLE-090" and found["severity"] == "error"
    assert 'stream "stable" excludes alpha APIs' in str(found["message"])


@pytest.mark.parametrize(
    ("version", "severity", "exit_code"), [("9.9.9", "error", 1), ("0.1.0", "warning", 0)]
)
def test_a_bundle_of_a_stream_package_gets_the_policy(
    run_line: Callable[..., Result], tmp_path: Path, version: str, severity: str, exit_code: int
) -> None:
    """kueue-operator is the stable stream's package; 0.1.0 is released history, so only a warning."""
    csv = csv_data()
    csv["spec"]["version"] = version
    root = write_bundle(
        tmp_path / "b",
        manifests={"widget.clusterserviceversion.yaml": csv},
        metadata=annotations(package="kueue-operator"),
    )
    result = run_line(["bundle", "validate", root, "--streams-dir", STREAMS, "--format", "json"])
    assert result.exit_code == exit_code, result.output
    assert [(f["rule"], f["severity"]) for f in _findings(result)] == [("RK-BUNDLE-090", severity)]


def test_the_experimental_stream_allows_its_alpha_kinds_only(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    root = write_bundle(tmp_path / "b")
    result = run_line(["bundle", "validate", root, "--streams-dir", STREAMS, "--stream", "experimental"])
    assert result.exit_code == 1 and "RK-BUNDLE-090" in result.stdout  # Widget is not one of its alpha APIs


def test_unknown_stream_exits_2(run_line: Callable[..., Result], tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    result = run_line(["bundle", "validate", root, "--streams-dir", STREAMS, "--stream", "nightly"])
    assert result.exit_code == 2
    assert "--stream nightly: no such stream" in result.stderr and "experimental, stable" in result.stderr


def test_unsupported_kind_fails_the_default_run(run_line: Callable[..., Result], tmp_path: Path) -> None:
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "extra"}}
    root = write_bundle(tmp_path / "b", manifests={"deployment.yaml": deployment})
    result = run_line(["bundle", "validate", root, "--streams-dir", tmp_path / "none", "--format", "json"])
    assert result.exit_code == 1
    assert [f["message"] for f in _findings(result)] == [
        "Value apps/v1, Kind=Deployment: unsupported media type registry+v1 for bundle object"
    ]


def test_a_comment_only_manifest_is_an_object_without_kind(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """Go decodes a null document to an empty object, which operator-sdk's content check then refuses."""
    root = write_bundle(tmp_path / "b", manifests={"old.yaml": "# kind: Deployment (retired)\n"})
    result = run_line(["bundle", "validate", root, "--streams-dir", tmp_path / "none", "--format", "json"])
    assert result.exit_code == 1, result.output
    assert [f["message"] for f in _findings(result)] == [
        "Value /, Kind=: unsupported media type registry+v1 for bundle object"
    ]


def test_an_unreadable_streams_folder_only_matters_with_stream(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    root = write_bundle(tmp_path / "b")
    broken = tmp_path / "streams"
    broken.mkdir()
    (broken / "stable.yaml").write_text("package: [\n")
    assert run_line(["bundle", "validate", root, "--streams-dir", broken]).exit_code == 0
    result = run_line(["bundle", "validate", root, "--streams-dir", broken, "--stream", "stable"])
    assert result.exit_code == 2 and "stable.yaml" in result.stderr
