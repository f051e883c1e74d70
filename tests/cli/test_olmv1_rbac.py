"""No silent privilege (issue 23): broad RBAC, undecodable rules and bad namespaces in OLM v1 installs.

A rule granting ``*`` on ``*``, escalate/bind/impersonate or every non-resource URL is RK-OLMV1-005 … 007:
an error with ``bundle validate --optional-checks olmv1``, a warning otherwise, and ``olmv1 manifests``
refuses the bundle (exit 1, nothing written) unless ``--allow-broad-rbac``. A rule field Go or the API
server cannot decode is refused, never dropped (which would widen the rule). The install namespace must be
a namespace name and not one Kubernetes keeps for itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.bundle_factory import csv_data, write_bundle

CSV_FILE = "widget.clusterserviceversion.yaml"
EVERYTHING = {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}


def _csv(
    section: str | None = None, rule: dict[str, Any] | None = None, **annotations: str
) -> dict[str, Any]:
    data = csv_data()
    if section is not None:
        data["spec"]["install"]["spec"][section] = [
            {
                "serviceAccountName": "widget-operator",
                "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}, rule],
            }
        ]
    data["metadata"]["annotations"].update(annotations)
    return data


CLUSTER_ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widget-aggregate
rules:
  - apiGroups: [example.com]
    resources: [widgets]
    verbs: [get, list]
  - {rule}
"""


def _bundle(tmp_path: Path, *, csv: dict[str, Any] | None = None, role_rule: str | None = None) -> Path:
    manifests: dict[str, Any] = {CSV_FILE: csv or csv_data()}
    if role_rule is not None:
        manifests["widget-aggregate.clusterrole.yaml"] = CLUSTER_ROLE.format(rule=role_rule)
    return write_bundle(tmp_path / "bundle", manifests=manifests)


def _validate(run_line: Callable[..., Result], root: Path, *options: str) -> tuple[int, list[dict[str, Any]]]:
    result = run_line(
        ["bundle", "validate", root, "--streams-dir", root / "none", "--format", "json", *options]
    )
    return result.exit_code, json.loads(result.stdout)["findings"]


def _olmv1(findings: list[dict[str, Any]]) -> list[tuple[str, str, str, int]]:
    return [
        (f["rule"], f["severity"], f["location"]["file"].rpartition("/")[2], f["location"]["line"])
        for f in findings
        if f["rule"].startswith("RK-OLMV1-")
    ]


def _manifests(run_line: Callable[..., Result], root: Path, *options: object) -> Result:
    return run_line(
        [
            "olmv1",
            "manifests",
            "--version",
            "0.3.0",
            "--bundle",
            root,
            "--streams-dir",
            root / "none",
            *options,
        ]
    )


def _rule_line(section: str) -> int:
    """The line of the second rule of ``section``'s first entry, as write_bundle dumps the CSV."""
    import yaml

    text = yaml.safe_dump(_csv(section, {"MARK": ["x"]}), sort_keys=False)
    return next(i for i, line in enumerate(text.splitlines(), 1) if "MARK" in line)


# (case id, CSV section or None for the bundled ClusterRole, the rule, the rule id)
BROAD: list[tuple[str, str | None, Any, str]] = [
    ("cluster-star-on-star", "clusterPermissions", EVERYTHING, "RK-OLMV1-005"),
    ("namespaced-star-on-star", "permissions", EVERYTHING, "RK-OLMV1-005"),
    (
        "core-star-on-star",
        "permissions",
        {"apiGroups": [""], "resources": ["*"], "verbs": ["*"]},
        "RK-OLMV1-005",
    ),
    ("role-star-on-star", None, "{apiGroups: ['*'], resources: ['*'], verbs: ['*']}", "RK-OLMV1-005"),
    (
        "escalate-bind",
        "clusterPermissions",
        {
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": ["clusterroles"],
            "verbs": ["escalate", "bind"],
        },
        "RK-OLMV1-006",
    ),
    (
        "impersonate",
        "clusterPermissions",
        {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]},
        "RK-OLMV1-006",
    ),
    (
        "star-verbs-on-clusterroles",
        "clusterPermissions",
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["*"]},
        "RK-OLMV1-006",
    ),
    (
        "role-bind",
        None,
        "{apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [bind]}",
        "RK-OLMV1-006",
    ),
    ("every-url", "clusterPermissions", {"nonResourceURLs": ["*"], "verbs": ["get"]}, "RK-OLMV1-007"),
    ("role-every-url", None, "{nonResourceURLs: ['*'], verbs: ['*']}", "RK-OLMV1-007"),
]


def _broad_bundle(tmp_path: Path, section: str | None, rule: Any) -> tuple[Path, str, int]:
    if section is None:
        return _bundle(tmp_path, role_rule=rule), "widget-aggregate.clusterrole.yaml", 9
    return _bundle(tmp_path, csv=_csv(section, rule)), CSV_FILE, _rule_line(section)


@pytest.mark.parametrize(("section", "rule", "rule_id"), [c[1:] for c in BROAD], ids=[c[0] for c in BROAD])
def test_broad_rule_is_an_error_under_olmv1_and_a_warning_otherwise(
    run_line: Callable[..., Result], tmp_path: Path, section: str | None, rule: Any, rule_id: str
) -> None:
    root, file, line = _broad_bundle(tmp_path, section, rule)
    code, findings = _validate(run_line, root, "--optional-checks", "olmv1")
    assert code == 1
    assert _olmv1(findings) == [(rule_id, "error", file, line)]
    (found,) = [f for f in findings if f["rule"] == rule_id]
    assert (
        found["hint"]
        and "--allow-broad-rbac" in found["hint"]
        and "installer must hold it" in found["message"]
    )
    code, findings = _validate(run_line, root)
    assert code == 0
    assert _olmv1(findings) == [(rule_id, "warning", file, line)]


@pytest.mark.parametrize(("section", "rule", "rule_id"), [c[1:] for c in BROAD], ids=[c[0] for c in BROAD])
def test_olmv1_manifests_refuses_broad_rbac_unless_allowed(
    run_line: Callable[..., Result], tmp_path: Path, section: str | None, rule: Any, rule_id: str
) -> None:
    root, file, line = _broad_bundle(tmp_path, section, rule)
    out = tmp_path / "install.yaml"
    refused = _manifests(run_line, root, "--output", out)
    assert refused.exit_code == 1 and refused.stdout == "" and not out.exists()
    assert f"error {rule_id}" in refused.stderr and f"{file}:{line}" in refused.stderr
    assert "nothing written" in refused.stderr
    allowed = _manifests(run_line, root, "--output", out, "--allow-broad-rbac")
    assert allowed.exit_code == 0, allowed.stderr
    assert f"warning {rule_id}" in allowed.stderr  # accepted, never silently
    assert "kind: ClusterExtension" in out.read_text()


def test_narrow_rules_pass(run_line: Callable[..., Result], tmp_path: Path) -> None:
    rule = {
        "apiGroups": ["rbac.authorization.k8s.io"],
        "resources": ["clusterroles"],
        "verbs": ["get", "create"],
    }
    root = _bundle(tmp_path, csv=_csv("clusterPermissions", rule))
    code, findings = _validate(run_line, root, "--optional-checks", "olmv1")
    assert code == 0 and _olmv1(findings) == []
    assert _manifests(run_line, root).exit_code == 0


def test_string_resource_names_in_the_csv_refuses_olmv1_manifests(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    rule = {"apiGroups": [""], "resources": ["secrets"], "resourceNames": "one-secret", "verbs": ["get"]}
    root = _bundle(tmp_path, csv=_csv("clusterPermissions", rule))
    result = _manifests(run_line, root, "--allow-broad-rbac")
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and CSV_FILE in lines[0] and "resourceNames of type []string" in lines[0]


def test_string_resource_names_in_a_bundled_role_is_never_widened(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    """A bundled ClusterRole is not decoded by operator-sdk's loader; the API server would refuse it."""
    root = _bundle(
        tmp_path, role_rule="{apiGroups: [''], resources: [secrets], resourceNames: one-secret, verbs: [get]}"
    )
    code, findings = _validate(run_line, root, "--optional-checks", "olmv1")
    assert code == 1
    assert _olmv1(findings) == [("RK-OLMV1-010", "error", "widget-aggregate.clusterrole.yaml", 9)]
    code, findings = _validate(run_line, root)
    assert code == 0 and _olmv1(findings) == [
        ("RK-OLMV1-010", "warning", "widget-aggregate.clusterrole.yaml", 9)
    ]
    result = _manifests(run_line, root, "--allow-broad-rbac")  # not broad RBAC: no option accepts it
    assert result.exit_code == 1 and result.stdout == "" and "error RK-OLMV1-010" in result.stderr


def test_deployment_spec_a_list_is_one_line_exit_2(run_line: Callable[..., Result], tmp_path: Path) -> None:
    data = csv_data()
    data["spec"]["install"]["spec"]["deployments"][0]["spec"] = [{"replicas": 1}]
    root = _bundle(tmp_path, csv=data)
    result = _manifests(run_line, root)
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and CSV_FILE in lines[0] and "Traceback" not in result.stderr


SUGGESTED = "operatorframework.io/suggested-namespace"


@pytest.mark.parametrize(
    ("namespace", "rule_id", "under_olmv1"),
    [
        ("kube-system", "RK-OLMV1-009", "warning"),
        ("default", "RK-OLMV1-009", "warning"),
        ("widgets\nkube-system", "RK-OLMV1-008", "error"),
        ("Widgets", "RK-OLMV1-008", "error"),
        ("w" * 64, "RK-OLMV1-008", "error"),
        ("widgets-", "RK-OLMV1-008", "error"),
    ],
)
def test_suggested_namespace_is_checked(
    run_line: Callable[..., Result], tmp_path: Path, namespace: str, rule_id: str, under_olmv1: str
) -> None:
    root = _bundle(tmp_path, csv=_csv(**{SUGGESTED: namespace}))
    code, findings = _validate(run_line, root, "--optional-checks", "olmv1")
    assert [(r, s, f) for r, s, f, _ in _olmv1(findings)] == [(rule_id, under_olmv1, CSV_FILE)]
    assert code == (1 if under_olmv1 == "error" else 0)
    code, findings = _validate(run_line, root)
    assert code == 0 and [(r, s) for r, s, _, _ in _olmv1(findings)] == [(rule_id, "warning")]
    # olmv1 manifests would install there: refused, nothing written; another --namespace installs
    result = _manifests(run_line, root)
    assert result.exit_code == 1 and result.stdout == "" and f"error {rule_id}" in result.stderr
    assert _manifests(run_line, root, "--namespace", "widgets").exit_code == 0


@pytest.mark.parametrize(
    "namespace", ["Widgets", "widgets\n", "widgets\nkube-system", "w" * 64, "-w", "a.b", ""]
)
def test_invalid_namespace_option_is_bad_usage(
    run_line: Callable[..., Result], tmp_path: Path, namespace: str
) -> None:
    result = _manifests(run_line, _bundle(tmp_path), "--namespace", namespace)
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "--namespace" in result.stderr


@pytest.mark.parametrize(
    ("namespace", "code"),
    [("kube-system", 1), ("kube-public", 1), ("default", 1), ("openshift-widgets", 0), ("w" * 63, 0)],
)
def test_namespace_option_into_a_system_namespace_is_refused(
    run_line: Callable[..., Result], tmp_path: Path, namespace: str, code: int
) -> None:
    result = _manifests(run_line, _bundle(tmp_path), "--namespace", namespace)
    assert result.exit_code == code, result.stderr
    if code:
        assert "error RK-OLMV1-009" in result.stderr and result.stdout == ""
    else:
        assert f"namespace: {namespace}" in result.stdout
