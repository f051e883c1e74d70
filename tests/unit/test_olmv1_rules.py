"""OLM v1 readiness (RK-OLMV1): the real v1.4.1 bundle is ready; each kind of obstacle is found."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import Result

from releasekit.io.bundle_load import load_bundle_root
from releasekit.model.finding import Severity
from releasekit.rules.olmv1 import check_olmv1
from tests.conftest import REPO_ROOT

FIXTURE = ("kueue-operator", "bundle", "v1.4.1+d745bcd4")
CSV = "manifests/kueue-operator.clusterserviceversion.yaml"


@pytest.fixture
def bundle_copy(shared: Callable[..., Path], tmp_path: Path) -> Path:
    root = tmp_path / "bundle"
    shutil.copytree(shared(*FIXTURE), root)
    return root


def _edit_csv(root: Path, edit: Callable[[dict], None]) -> None:
    path = root / CSV
    data = yaml.safe_load(path.read_text())
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _rules(root: Path, severity: Severity = Severity.ERROR) -> list[str]:
    return [f.rule for f in check_olmv1(load_bundle_root(root), severity)]


READINESS = ("RK-OLMV1-001", "RK-OLMV1-002", "RK-OLMV1-003", "RK-OLMV1-004")


@pytest.mark.shared
def test_real_bundle_is_ready_under_the_optional_check_but_grants_escalate_and_bind(
    run_line: Callable[..., Result], shared: Callable[..., Path]
) -> None:
    """Ready for OLM v1, but its operator may escalate and bind (cluster)roles: cluster-admin in effect."""
    result = run_line(
        ["bundle", "validate", "--optional-checks", "olmv1", shared(*FIXTURE), "--format", "json"]
    )
    findings = json.loads(result.stdout)["findings"]
    assert not [f for f in findings if f["rule"] in READINESS]
    olmv1 = [f for f in findings if f["rule"].startswith("RK-OLMV1-")]
    assert [(f["rule"], f["severity"], f["location"]["line"]) for f in olmv1] == [
        ("RK-OLMV1-006", "error", 113)
    ]
    assert (
        "grants escalate, bind on clusterrolebindings, clusterroles, rolebindings, roles"
        in olmv1[0]["message"]
    )
    assert olmv1[0]["location"]["path"] == "$.spec.install.spec.clusterPermissions[0].rules[3]"
    assert "--allow-broad-rbac" in olmv1[0]["hint"]
    assert result.exit_code == 1


@pytest.mark.shared
def test_olm_package_dependency_is_found(run_line: Callable[..., Result], bundle_copy: Path) -> None:
    (bundle_copy / "metadata" / "dependencies.yaml").write_text(
        "dependencies:\n  - type: olm.package\n    value:\n      packageName: cert-manager\n      version: '>=1.0.0'\n"
    )
    result = run_line(["bundle", "validate", "--optional-checks", "olmv1", bundle_copy, "--format", "json"])
    olmv1 = [f for f in json.loads(result.stdout)["findings"] if f["rule"] in READINESS]
    assert [(f["rule"], f["severity"], f["location"]["line"]) for f in olmv1] == [
        ("RK-OLMV1-003", "error", 2)
    ]
    assert olmv1[0]["location"]["file"].endswith("metadata/dependencies.yaml")
    assert result.exit_code == 1
    schema = json.loads((REPO_ROOT / "releasekit" / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(json.loads(result.stdout), schema)  # OLMV1 is a rule area of the report schema
    # without the optional check there is no such finding
    plain = run_line(["bundle", "validate", bundle_copy, "--format", "json"])
    assert not [f for f in json.loads(plain.stdout)["findings"] if f["rule"] in READINESS]


@pytest.mark.shared
def test_dependency_property_in_olm_properties_and_properties_yaml(bundle_copy: Path) -> None:
    def add(data: dict) -> None:
        data["metadata"]["annotations"]["olm.properties"] = json.dumps(
            [{"type": "olm.package.required", "value": {"packageName": "x", "versionRange": ">=1"}}]
        )

    _edit_csv(bundle_copy, add)
    (bundle_copy / "metadata" / "properties.yaml").write_text(
        "properties:\n  - type: olm.constraint\n    value: {failureMessage: no, cel: {rule: 'true'}}\n"
        "  - type: olm.maxOpenShiftVersion\n    value: '4.22'\n"
    )
    assert _rules(bundle_copy) == ["RK-OLMV1-002", "RK-OLMV1-002"]


@pytest.mark.shared
def test_required_api_is_a_dependency(bundle_copy: Path) -> None:
    def add(data: dict) -> None:
        data["spec"]["customresourcedefinitions"]["required"] = [
            {"name": "certificates.cert-manager.io", "version": "v1", "kind": "Certificate"}
        ]

    _edit_csv(bundle_copy, add)
    assert _rules(bundle_copy, Severity.WARNING) == ["RK-OLMV1-002"]


@pytest.mark.shared
def test_own_namespace_only_is_not_ready(bundle_copy: Path) -> None:
    def own_only(data: dict) -> None:
        for mode in data["spec"]["installModes"]:
            mode["supported"] = mode["type"] == "OwnNamespace"

    _edit_csv(bundle_copy, own_only)
    assert _rules(bundle_copy) == ["RK-OLMV1-001"]


@pytest.mark.shared
def test_operator_conditions_use_is_found(bundle_copy: Path) -> None:
    def use(data: dict) -> None:
        spec = data["spec"]["install"]["spec"]
        spec["clusterPermissions"][0]["rules"].append(
            {"apiGroups": ["operators.coreos.com"], "resources": ["operatorconditions"], "verbs": ["get"]}
        )
        container = spec["deployments"][0]["spec"]["template"]["spec"]["containers"][0]
        container.setdefault("env", []).append({"name": "OPERATOR_CONDITION_NAME", "value": "x"})

    _edit_csv(bundle_copy, use)
    assert _rules(bundle_copy) == ["RK-OLMV1-004", "RK-OLMV1-004"]


@pytest.mark.shared
@pytest.mark.parametrize(("readiness", "severity"), [("recommended", "warning"), ("required", "error")])
def test_stream_policy_judges_stream_bundles(bundle_copy: Path, readiness: str, severity: str) -> None:
    from dataclasses import replace

    from releasekit.io.streams import load_streams
    from releasekit.jobs.bundle_build import validate_built
    from releasekit.model.stream import OlmV1Readiness

    def own_only(data: dict) -> None:
        for mode in data["spec"]["installModes"]:
            mode["supported"] = mode["type"] == "OwnNamespace"

    _edit_csv(bundle_copy, own_only)
    stream = next(s for s in load_streams(REPO_ROOT / "streams").streams if s.name == "stable")
    stream = replace(stream, olmv1=OlmV1Readiness(readiness))
    found = validate_built(bundle_copy, "bundles/stable/1.4.1", stream, stream.releases[-1])
    assert [(f.rule, f.severity.value) for f in found if f.rule.startswith("RK-OLMV1")] == [
        ("RK-OLMV1-006", "warning"),  # escalate/bind: releasekit's default rules, a warning on any stream
        ("RK-OLMV1-001", severity),
    ]
