"""``releasekit olmv1 manifests``: golden files for 1.4.1, and an installer that can grant every CSV rule."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result

from tests.conftest import REPO_ROOT

GOLDEN = REPO_ROOT / "tests" / "golden" / "olmv1"
FIXTURE = ("kueue-operator", "bundle", "v1.4.1+d745bcd4")
CSV = "manifests/kueue-operator.clusterserviceversion.yaml"

pytestmark = pytest.mark.shared


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RELEASEKIT_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs; RELEASEKIT_UPDATE_GOLDEN=1 regenerates it"
    )


ALLOW = "--allow-broad-rbac"
"""Kueue's operator may escalate and bind (cluster)roles (it creates Kueue's): its installer must be let do it."""


def _manifests(run_line: Callable[..., Result], *args: object) -> Result:
    return run_line(["olmv1", "manifests", "--streams-dir", REPO_ROOT / "streams", *args])


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_golden_manifests_for_1_4_1(
    run_line: Callable[..., Result], shared: Callable[..., Path], fmt: str
) -> None:
    result = _manifests(run_line, "--version", "1.4.1", "--bundle", shared(*FIXTURE), "--format", fmt, ALLOW)
    assert result.exit_code == 0, result.stderr
    assert "warning RK-OLMV1-006" in result.stderr  # accepted, never silently
    _golden(f"kueue-operator-1.4.1.{fmt}", result.stdout)
    # upstream CRD content stays out: the CRD appears by name only
    assert "openAPIV3Schema" not in result.stdout and "x-kubernetes" not in result.stdout
    assert "kueues.kueue.openshift.io" in result.stdout


def _objects(text: str) -> dict[str, dict[str, Any]]:
    return {d["kind"]: d for d in yaml.safe_load_all(text) if d}


def _covers(held: Iterable[Mapping[str, Any]], rule: Mapping[str, Any]) -> list[str]:
    """The (group, resource, verb, name) parts of ``rule`` that no rule of ``held`` grants."""
    missing = []
    names = rule.get("resourceNames") or [None]
    for group in rule.get("apiGroups", []):
        for resource in rule.get("resources", []):
            for verb in rule.get("verbs", []):
                for name in names:
                    if not any(
                        (group in h.get("apiGroups", []) or "*" in h.get("apiGroups", []))
                        and (resource in h.get("resources", []) or "*" in h.get("resources", []))
                        and (verb in h.get("verbs", []) or "*" in h.get("verbs", []))
                        and (not h.get("resourceNames") or (name is not None and name in h["resourceNames"]))
                        for h in held
                    ):
                        missing.append(f"{group}/{resource} {verb} {name or ''}".strip())
    for url in rule.get("nonResourceURLs", []):
        for verb in rule.get("verbs", []):
            if not any(url in h.get("nonResourceURLs", []) and verb in h.get("verbs", []) for h in held):
                missing.append(f"{url} {verb}")
    return missing


def test_installer_can_grant_every_rule_of_the_csv(
    run_line: Callable[..., Result], shared: Callable[..., Path]
) -> None:
    bundle = shared(*FIXTURE)
    objects = _objects(_manifests(run_line, "--version", "1.4.1", "--bundle", bundle, ALLOW).stdout)
    cluster = objects["ClusterRole"]["rules"]
    namespaced = objects["Role"]["rules"]
    csv = yaml.safe_load((bundle / CSV).read_text())
    spec = csv["spec"]["install"]["spec"]
    cluster_rules = [r for p in spec["clusterPermissions"] for r in p["rules"]]
    ns_rules = [r for p in spec["permissions"] for r in p["rules"]]
    assert cluster_rules and ns_rules
    for rule in cluster_rules:
        assert _covers(cluster, rule) == [], rule  # cluster-wide grants need cluster-wide holdings
    for rule in ns_rules:  # AllNamespaces: OLM v1 grants the CSV's permissions cluster-wide too
        assert _covers(cluster, rule) == [], rule
    # it can install what the bundle holds, and the controller, and nothing is granted on other CRDs by name
    assert (
        _covers(
            cluster,
            {
                "apiGroups": ["apiextensions.k8s.io"],
                "resources": ["customresourcedefinitions"],
                "resourceNames": ["kueues.kueue.openshift.io"],
                "verbs": ["get", "update", "patch", "delete", "create"],
            },
        )
        == []
    )
    for deployment in spec["deployments"]:
        assert (
            _covers(
                namespaced,
                {
                    "apiGroups": ["apps"],
                    "resources": ["deployments"],
                    "resourceNames": [deployment["name"]],
                    "verbs": ["create", "get", "update", "delete"],
                },
            )
            == []
        )
    finalizers = {
        "apiGroups": ["olm.operatorframework.io"],
        "resources": ["clusterextensions/finalizers"],
        "resourceNames": ["kueue-operator"],
        "verbs": ["update"],
    }
    assert _covers(cluster, finalizers) == []
    extension = objects["ClusterExtension"]["spec"]
    assert extension == {
        "namespace": "openshift-kueue-operator",  # the CSV's suggested namespace
        "serviceAccount": {"name": "kueue-operator-installer"},
        "source": {"sourceType": "Catalog", "catalog": {"packageName": "kueue-operator", "version": "1.4.1"}},
    }


def test_a_missing_rule_is_noticed() -> None:
    held = [{"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["a"], "verbs": ["get"]}]
    assert _covers(held, {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]}) == [
        "apps/deployments get"
    ]
    assert (
        _covers(
            held,
            {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["a"], "verbs": ["get"]},
        )
        == []
    )


def test_namespace_and_channel_options(run_line: Callable[..., Result], shared: Callable[..., Path]) -> None:
    result = _manifests(
        run_line,
        "--version",
        "1.4.1",
        "--bundle",
        shared(*FIXTURE),
        "--namespace",
        "kueue",
        "--channel",
        "stable-v1.4",
        ALLOW,
    )
    objects = _objects(result.stdout)
    assert objects["Namespace"]["metadata"]["name"] == "kueue"
    assert objects["RoleBinding"]["subjects"][0]["namespace"] == "kueue"
    assert objects["ClusterExtension"]["spec"]["source"]["catalog"] == {
        "packageName": "kueue-operator",
        "channels": ["stable-v1.4"],
    }


def test_bad_input_is_one_line_exit_2(
    run_line: Callable[..., Result],
    shared: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    wrong = _manifests(run_line, "--version", "1.4.0", "--bundle", shared(*FIXTURE))
    assert wrong.exit_code == 2 and "the bundle in" in wrong.stderr and "1.4.1" in wrong.stderr
    # no built bundle: it is planned from the recorded facts, which needs the bundle templates (not here)
    missing = _manifests(run_line, "--version", "1.4.1", "--stream", "stable")
    assert missing.exit_code == 2 and "bundle-templates" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1 and "Traceback" not in missing.stderr
    unknown = _manifests(run_line, "--version", "9.9.9")
    assert unknown.exit_code == 2 and "no stream has this release" in unknown.stderr


def test_from_the_bundle_the_builder_generates(
    run_line: Callable[..., Result],
    shared: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.cli.test_bundle_build import make_kueue_repo

    make_kueue_repo(tmp_path / "kueue", shared("kueue", "v0.11.9", "crds"))
    built = run_line(
        [
            "bundle",
            "build",
            "--upstream",
            tmp_path / "kueue",
            "--out",
            tmp_path / "bundles",
            "--streams-dir",
            REPO_ROOT / "streams",
            "--stream",
            "experimental",
            "--version",
            "0.3.0",
            "--allow-unpinned",
        ]
    )
    assert built.exit_code in (0, 1), built.stderr
    monkeypatch.chdir(tmp_path)
    result = _manifests(run_line, "--version", "0.3.0", "--format", "json", ALLOW)
    assert result.exit_code == 0, result.stderr
    items = {i["kind"]: i for i in json.loads(result.stdout)["items"]}
    crd_rule = next(
        r
        for r in items["ClusterRole"]["rules"]
        if r.get("resourceNames") and "customresourcedefinitions" in r["resources"]
    )
    assert "topologies.kueue.x-k8s.io" in crd_rule["resourceNames"]  # alpha CRDs ship in this stream's bundle
    assert (
        items["ClusterExtension"]["spec"]["source"]["catalog"]["packageName"] == "kueue-operator-experimental"
    )


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_a_fresh_clone_needs_no_built_bundle(
    run_line: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """Issue 24: with no bundles/ folder the bundle is planned in memory from the recorded facts; the
    manifests are the ones the published 1.4.1 bundle gives (the same golden file)."""
    import shutil

    for name in ("streams", "bundle-templates"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    result = run_line(["olmv1", "manifests", "--version", "1.4.1", "--format", fmt, ALLOW])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (GOLDEN / f"kueue-operator-1.4.1.{fmt}").read_text(encoding="utf-8")
    assert not (tmp_path / "bundles").exists()  # nothing written
    refused = run_line(["olmv1", "manifests", "--version", "1.4.1"])
    assert refused.exit_code == 1 and "RK-OLMV1-006" in refused.stderr
