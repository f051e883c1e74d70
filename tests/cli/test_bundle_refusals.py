"""``bundle validate`` on a folder operator-sdk's loader refuses: exit 2, one line, the reference's wording.

One test per refusal class; each also proves the machine formats still get the refusal as a report
(``--format json``: the findings; ``--format konflux``: a TEST_OUTPUT with result ERROR). A bundle
releasekit generates itself never exits 2 for this: there a refusal is an error finding.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from releasekit.io.streams import load_streams
from releasekit.jobs.bundle_build import validate_built
from releasekit.model.finding import Severity
from tests.bundle_factory import annotations, crd_data, csv_data, write_bundle
from tests.conftest import REPO_ROOT


def _csv_version(version: object) -> dict[str, Any]:
    data = csv_data()
    data["spec"]["version"] = version
    return data


def _crd_v2() -> dict[str, Any]:
    data = crd_data()
    data["apiVersion"] = "apiextensions.k8s.io/v2"
    return data


def _csv_annotation(value: object) -> dict[str, Any]:
    data = csv_data()
    data["metadata"]["annotations"]["features.operators.openshift.io/disconnected"] = value
    return data


def _csv_install_mode(value: object) -> dict[str, Any]:
    data = csv_data()
    data["spec"]["installModes"][0]["supported"] = value
    return data


def _crd_served(value: object) -> dict[str, Any]:
    data = crd_data()
    data["spec"]["versions"][0]["served"] = value
    return data


def _second_csv() -> dict[str, Any]:
    data = csv_data()
    data["metadata"]["name"] = "widget-operator.v0.3.1"
    return data


def _csv_rule(section: str, **fields: object) -> dict[str, Any]:
    """The default CSV with one RBAC rule (``fields`` override the rule's keys) in ``section``."""
    data = csv_data()
    rule: dict[str, Any] = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"], **fields}
    data["spec"]["install"]["spec"][section] = [{"serviceAccountName": "widget-operator", "rules": [rule]}]
    return data


def _csv_deployment_spec(value: object) -> dict[str, Any]:
    data = csv_data()
    data["spec"]["install"]["spec"]["deployments"][0]["spec"] = value
    return data


# (case id, write_bundle arguments, rule, the reference's wording in the message)
CASES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "hidden-file",
        {"extra": {"manifests/.notes": "x"}},
        "RK-BUNDLE-004",
        "bundle manifests dir has hidden file: ",
    ),
    (
        "sub-folder",
        {"extra": {"manifests/more/role.yaml": {"kind": "Role"}}},
        "RK-BUNDLE-003",
        "bundle manifests dir contains directory: ",
    ),
    (
        "no-csv",
        {"manifests": {"widget.clusterserviceversion.yaml": None}},
        "RK-BUNDLE-005",
        "unable to find a csv in bundle directory ",
    ),
    (
        "two-csvs",
        {"manifests": {"zz.clusterserviceversion.yaml": _second_csv()}},
        "RK-BUNDLE-005",
        "invalid bundle: contains multiple CSVs",
    ),
    (
        "broken-yaml",
        {"manifests": {"bad.yaml": "kind: Role\nmetadata: [\n"}},
        "RK-BUNDLE-001",
        "unable to decode object: ",
    ),
    ("empty-file", {"manifests": {"empty.yaml": b""}}, "RK-BUNDLE-122", "unable to decode object: EOF"),
    (
        "no-kind",
        {"manifests": {"nokind.yaml": {"apiVersion": "v1", "metadata": {"name": "x"}}}},
        "RK-BUNDLE-122",
        "unable to decode object: error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in "
        '\'{"apiVersion":"v1","metadata":{"name":"x"}}\'',
    ),
    (
        "crd-apiversion",
        {"manifests": {"widgets.crd.yaml": _crd_v2()}},
        "RK-BUNDLE-006",
        "unsupported CRD version apiextensions.k8s.io/v2 for widgets.crd.yaml",
    ),
    (
        "csv-version-not-semver",
        {"manifests": {"widget.clusterserviceversion.yaml": _csv_version("one.two")}},
        "RK-BUNDLE-123",
        "unable to parse CSV widget.clusterserviceversion.yaml: error unmarshaling JSON: while decoding JSON: "
        'Invalid character(s) found in major number "0one"',
    ),
    (
        "csv-version-a-number",
        {"manifests": {"widget.clusterserviceversion.yaml": _csv_version(1.5)}},
        "RK-BUNDLE-123",
        "json: cannot unmarshal number into Go value of type string",
    ),
    (
        "csv-annotation-not-a-string",
        {"manifests": {"widget.clusterserviceversion.yaml": _csv_annotation(True)}},
        "RK-BUNDLE-123",
        "unable to parse CSV widget.clusterserviceversion.yaml: error unmarshaling JSON: while decoding JSON: "
        "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.annotations of type string",
    ),
    (
        "install-mode-supported-a-string",
        {"manifests": {"widget.clusterserviceversion.yaml": _csv_install_mode("true")}},
        "RK-BUNDLE-123",
        "unable to parse CSV widget.clusterserviceversion.yaml: error unmarshaling JSON: while decoding JSON: "
        "json: cannot unmarshal string into Go struct field InstallMode.spec.installModes.supported of type bool",
    ),
    (
        "crd-served-not-a-bool",
        {"manifests": {"widgets.crd.yaml": _crd_served("yes")}},
        "RK-BUNDLE-123",
        "unable to parse CRD widgets.crd.yaml: error unmarshaling JSON: while decoding JSON: json: cannot "
        "unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of type bool",
    ),
    (
        "resource-names-a-string",  # dropped, the rule would widen to every secret
        {
            "manifests": {
                "widget.clusterserviceversion.yaml": _csv_rule(
                    "clusterPermissions", resourceNames="one-secret"
                )
            }
        },
        "RK-BUNDLE-123",
        "unable to parse CSV widget.clusterserviceversion.yaml: error unmarshaling JSON: while decoding JSON: "
        "json: cannot unmarshal string into Go struct field "
        "PolicyRule.spec.install.spec.clusterPermissions.rules.resourceNames of type []string",
    ),
    (
        "verbs-a-string",
        {"manifests": {"widget.clusterserviceversion.yaml": _csv_rule("permissions", verbs="get")}},
        "RK-BUNDLE-123",
        "json: cannot unmarshal string into Go struct field PolicyRule.spec.install.spec.permissions.rules.verbs "
        "of type []string",
    ),
    (
        "resource-a-number",
        {"manifests": {"widget.clusterserviceversion.yaml": _csv_rule("permissions", resources=[7])}},
        "RK-BUNDLE-123",
        "json: cannot unmarshal number into Go struct field PolicyRule.spec.install.spec.permissions.rules."
        "resources of type string",
    ),
    (
        "rules-a-mapping",
        {
            "manifests": {
                "widget.clusterserviceversion.yaml": _csv_rule("clusterPermissions")
                | {
                    "spec": {
                        **csv_data()["spec"],
                        "install": {"spec": {"clusterPermissions": [{"rules": {}}]}},
                    }
                }
            }
        },
        "RK-BUNDLE-123",
        "json: cannot unmarshal object into Go struct field "
        "StrategyDeploymentPermissions.spec.install.spec.clusterPermissions.rules of type []v1.PolicyRule",
    ),
    (
        "deployment-spec-a-list",
        {"manifests": {"widget.clusterserviceversion.yaml": _csv_deployment_spec([{"replicas": 1}])}},
        "RK-BUNDLE-123",
        "json: cannot unmarshal array into Go struct field StrategyDeploymentSpec.spec.install.spec.deployments."
        "spec of type v1.DeploymentSpec",
    ),
    ("no-annotations", {"metadata": {}}, "RK-BUNDLE-120", "metadata not found in "),
    (
        "annotation-not-a-string",
        {"metadata": {**annotations(), "operators.operatorframework.io.bundle.channels.v1": 1.5}},
        "RK-BUNDLE-124",
        "metadata/annotations.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number "
        "into Go struct field AnnotationMetadata.annotations of type string",
    ),
    (
        "no-manifest-files",
        {"manifests": {"widget.clusterserviceversion.yaml": None, "widgets.crd.yaml": None}},
        "RK-BUNDLE-121",
        "contains no yaml files",
    ),
]


@pytest.mark.parametrize(("case", "layout", "rule", "wording"), CASES, ids=[c[0] for c in CASES])
def test_refusal_exits_2_with_one_line_and_a_json_report(
    run_line: Callable[..., Result],
    tmp_path: Path,
    case: str,
    layout: dict[str, Any],
    rule: str,
    wording: str,
) -> None:
    root = write_bundle(tmp_path / case, **layout)
    result = run_line(["bundle", "validate", root, "--streams-dir", tmp_path / "none"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "not a loadable bundle" in lines[0] and wording in lines[0], result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""

    out = tmp_path / "report.json"
    result = run_line(["bundle", "validate", root, "--format", "json", "--output", out])
    assert result.exit_code == 2
    report = json.loads(out.read_text())
    assert report["passed"] is False
    refused = [f for f in report["findings"] if f["rule"] == rule]
    assert refused and wording in refused[0]["message"] and refused[0]["location"]["file"]


def test_refusal_is_a_konflux_error_result(run_line: Callable[..., Result], tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b", extra={"manifests/.notes": "x"})
    result = run_line(["bundle", "validate", root, "--format", "konflux"], env={"SOURCE_DATE_EPOCH": "0"})
    assert result.exit_code == 2
    output = json.loads(result.stdout)
    assert output["result"] == "ERROR" and "bundle manifests dir has hidden file" in output["note"]


def test_flat_folder_without_manifests_folder_is_refused(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """operator-sdk reads manifests from the folder the annotation names (manifests/), not the root."""
    root = write_bundle(tmp_path / "b")
    for path in (root / "manifests").iterdir():
        path.rename(root / path.name)
    (root / "manifests").rmdir()
    result = run_line(["bundle", "validate", root])
    assert result.exit_code == 2
    assert "manifests contains no yaml files" in result.stderr


def test_a_loadable_bundle_is_not_refused(run_line: Callable[..., Result], tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    result = run_line(["bundle", "validate", root, "--streams-dir", tmp_path / "none"])
    assert result.exit_code == 0, result.output


def test_generated_bundle_reports_a_refusal_as_an_error_finding(tmp_path: Path) -> None:
    loaded = load_streams(REPO_ROOT / "streams")
    stream = next(s for s in loaded.streams if s.name == "stable")
    release = stream.releases[-1]
    root = write_bundle(tmp_path / "b", extra={"manifests/.notes": "x"})
    findings = validate_built(root, "out/b", stream, release)
    hidden = [f for f in findings if f.rule == "RK-BUNDLE-004"]
    assert hidden and hidden[0].severity is Severity.ERROR
    assert hidden[0].message == "bundle manifests dir has hidden file: out/b/manifests/.notes"


def test_the_line_says_what_operator_sdk_meets_first_in_its_words(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """Metadata is looked for before the manifests are loaded; loader errors come wrapped as api wraps them."""
    root = write_bundle(tmp_path / "b", metadata={}, extra={"manifests/.notes": "x"})
    result = run_line(["bundle", "validate", root])
    assert result.exit_code == 2
    assert f"metadata not found in {root} (and 1 more)" in result.stderr
    root = write_bundle(tmp_path / "c", extra={"manifests/.notes": "x"})
    result = run_line(["bundle", "validate", root])
    assert (
        f"error loading objs in directory: bundle manifests dir has hidden file: {root}/manifests/.notes"
        in result.stderr
    )


def test_annotations_outside_metadata_are_found_as_operator_sdk_finds_them(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """operator-sdk walks the folder for any annotations map; then reg's format check reports the layout."""
    root = write_bundle(
        tmp_path / "b", metadata={}, extra={"labels/annotations.yaml": {"annotations": annotations()}}
    )
    result = run_line(["bundle", "validate", root, "--streams-dir", tmp_path / "none", "--format", "json"])
    assert result.exit_code == 1, result.output
    assert "Unable to locate metadata directory" in {
        f["message"] for f in json.loads(result.stdout)["findings"]
    }
