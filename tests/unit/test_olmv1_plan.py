"""The OLM v1 installer plan: rules copied exactly or not at all, repeats removed in linear time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from releasekit.io.bundle_load import load_bundle_root
from releasekit.plan.olmv1 import InstallRequest, UnreadableRule, _dedupe, installer_manifests
from releasekit.rules.olmv1 import namespace_name_problem
from tests.bundle_factory import csv_data, write_bundle

REQUEST = InstallRequest(package="widget-operator", namespace="widgets", version="0.3.0")


class _Counted(dict):  # type: ignore[type-arg]
    """A rule that counts the work done on it: comparisons, hashing, reading its items."""

    work = 0

    def __eq__(self, other: object) -> bool:
        _Counted.work += 1
        return dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def items(self) -> Any:
        _Counted.work += 1
        return dict.items(self)

    def __iter__(self) -> Any:
        _Counted.work += 1
        return dict.__iter__(self)


def _work(n: int) -> int:
    rules = [_Counted(apiGroups=[""], resources=[f"r{i}"], verbs=["get"]) for i in range(n)]
    rules += rules[: n // 2]  # repeats too
    _Counted.work = 0
    kept = _dedupe(rules)
    assert len(kept) == n
    return _Counted.work


def test_dedupe_is_linear() -> None:
    """20,000 distinct rules took 40 s when each was compared with every kept one (quadratic)."""
    small, large = _work(400), _work(800)
    assert large / small <= 2.5, (small, large)


def test_dedupe_keeps_the_first_of_equal_rules_in_order() -> None:
    a = {"apiGroups": [""], "resources": ["a"], "verbs": ["get"]}
    b = {"apiGroups": [""], "resources": ["b"], "verbs": ["get"]}
    reordered = {"verbs": ["get"], "resources": ["a"], "apiGroups": [""]}  # equal as a dict
    assert _dedupe([a, b, dict(a), reordered]) == [a, b]
    assert _dedupe([a, {**a, "resourceNames": ["x"]}]) == [a, {**a, "resourceNames": ["x"]}]


def test_many_csv_rules_are_planned(tmp_path: Path) -> None:
    csv = csv_data()
    rules = [{"apiGroups": ["example.com"], "resources": [f"r{i}"], "verbs": ["get"]} for i in range(2000)]
    csv["spec"]["install"]["spec"]["clusterPermissions"] = [
        {"serviceAccountName": "w", "rules": rules + rules}
    ]
    root = write_bundle(tmp_path / "b", manifests={"widget.clusterserviceversion.yaml": csv})
    objects = installer_manifests(load_bundle_root(root), REQUEST)
    cluster = next(o for o in objects if o["kind"] == "ClusterRole")["rules"]
    assert sum(1 for r in cluster if r["apiGroups"] == ["example.com"]) == 2000


@pytest.mark.parametrize(
    "rule",
    [
        "{apiGroups: [''], resources: [secrets], resourceNames: one-secret, verbs: [get]}",
        "{apiGroups: [''], resources: secrets, verbs: [get]}",
        "{apiGroups: [''], resources: [secrets], verbs: [get, 7]}",
        "just-a-string",
    ],
)
def test_a_rule_it_cannot_read_is_never_dropped(tmp_path: Path, rule: str) -> None:
    """Dropping ``resourceNames: one-secret`` would grant every secret; the plan refuses instead."""
    role = (
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\nrules:\n"
        f"  - {rule}\n"
    )
    root = write_bundle(tmp_path / "b", manifests={"role.yaml": role})
    with pytest.raises(UnreadableRule, match="ClusterRole r: rules\\[0\\]"):
        installer_manifests(load_bundle_root(root), REQUEST)


def test_a_deployment_spec_of_the_wrong_type_is_no_traceback(tmp_path: Path) -> None:
    """The loader refuses such a CSV (RK-BUNDLE-123); the plan itself never fails on the shape."""
    csv = csv_data()
    csv["spec"]["install"]["spec"]["deployments"][0]["spec"] = ["not", "a", "mapping"]
    root = write_bundle(tmp_path / "b", manifests={"widget.clusterserviceversion.yaml": csv})
    objects = installer_manifests(load_bundle_root(root), REQUEST)
    assert objects[0] == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "widgets"}}


_WORDS = st.sampled_from(["", "*", "get", "secrets", "apps", "a", "b"])
_RULES = st.lists(
    st.fixed_dictionaries(
        {"apiGroups": st.lists(_WORDS, max_size=2), "verbs": st.lists(_WORDS, max_size=2)},
        optional={
            "resources": st.lists(_WORDS, max_size=2),
            "resourceNames": st.lists(_WORDS, max_size=2),
        },
    ),
    max_size=12,
)


@given(_RULES)
def test_dedupe_is_the_first_occurrence_of_each_distinct_rule(rules: list[dict[str, Any]]) -> None:
    naive: list[dict[str, Any]] = []
    for rule in rules:
        if rule not in naive:
            naive.append(rule)
    assert _dedupe(rules) == naive


_NAMESPACE_CHARS = st.sampled_from("abz09-.A_ \n\t/é")


@given(st.text(_NAMESPACE_CHARS, max_size=70))
def test_namespace_names_are_rfc_1123_labels(name: str) -> None:
    """Checked against the definition, character by character (no regex), so a ``$`` before a newline slips nothing."""
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-")
    label = 0 < len(name) <= 63 and all(c in allowed for c in name) and name[0] != "-" and name[-1] != "-"
    assert (namespace_name_problem(name) is None) == label
