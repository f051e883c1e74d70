"""Peer cases for bundle validation, driven by ``shared/fixtures/bundle-testdata/cases.yaml``.

Every case is loaded by the product's own readers, mutated by its ``options`` (``csv_overrides``,
``optional_values``, ``env``) and validated by the one validator it names. A new case needs no code.
Messages are compared in api's rendering: ``"Error: "``/``"Warning: "`` + the finding's message.

``bundle validate`` reads bundle roots only; api's other layouts are read as what they are: a flat
bundle is its CSV's folder (a manifests folder, as api's ``GetBundleFromDir`` reads it) unless it has
``manifests/``, and a single file is the manifests folder holding it alone.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from releasekit.io.bundle_load import (
    load_bundle_root,
    load_categories_file,
    load_dockerfile,
    load_manifests_dir,
)
from releasekit.model import bundle_ids
from releasekit.model.bundle import Bundle, ValidationOptions
from releasekit.model.finding import Finding, Severity
from releasekit.rules.bundle import validate_bundle
from releasekit.rules.bundle._common import go_quote_list
from releasekit.rules.bundle.openshift import check_ocp_label

pytestmark = pytest.mark.shared


def _case_list() -> list[dict[str, Any]]:
    from tests.conftest import shared_root

    path = shared_root() / "fixtures" / "bundle-testdata" / "cases.yaml"
    if not path.exists():
        return []
    return list(yaml.safe_load(path.read_text())["cases"])


CASES = _case_list()


def _load(kind: str, path: Path) -> Bundle:
    if kind.endswith("-file"):  # each such file is alone in its folder
        assert [p.name for p in path.parent.iterdir()] == [path.name]
        bundle = load_manifests_dir(path.parent)
        # api validates the object alone, never through the loader: its decode refusals do not apply
        refusals = (bundle_ids.LOADER_UNDECODABLE, bundle_ids.LOADER_CSV_UNPARSABLE)
        kept = tuple(f for f in bundle.load_findings if f.rule not in refusals)
        return dataclasses.replace(bundle, load_findings=kept)
    if kind == "manifests-dir" or (kind == "flat-bundle" and not (path / "manifests").is_dir()):
        return load_manifests_dir(path)
    return load_bundle_root(path)


def _set_path(data: Any, dotted: str, value: Any) -> None:
    """Set ``a.b[0].c`` in nested dicts/lists (intermediate mappings are created)."""
    parts = [p for p in re.split(r"\.(?![^\[]*\])", dotted) if p]
    target = data
    for index, part in enumerate(parts):
        name, *indexes = re.split(r"\[(\d+)\]", part)
        indexes = [i for i in indexes if i]
        last = index == len(parts) - 1
        if last and not indexes:
            target[name] = value
            return
        target = target.setdefault(name, {})
        for pos, item in enumerate(indexes):
            if last and pos == len(indexes) - 1:
                target[int(item)] = value
                return
            target = target[int(item)]


def _apply_overrides(bundle: Bundle, overrides: dict[str, Any]) -> Bundle:
    assert bundle.csv is not None
    data = copy.deepcopy(dict(bundle.csv.data))
    for dotted, value in overrides.items():
        _set_path(data, dotted, value)
    return dataclasses.replace(bundle, csv=dataclasses.replace(bundle.csv, data=data))


def _render(finding: Finding) -> str:
    return ("Error: " if finding.severity is Severity.ERROR else "Warning: ") + finding.message


def _run(case: dict[str, Any], root: Path) -> tuple[list[str], list[str], list[Finding]]:
    bundle = _load(case["input_kind"], root / case["input"])
    options_in = case.get("options") or {}
    if options_in.get("csv_overrides"):
        bundle = _apply_overrides(bundle, options_in["csv_overrides"])
    values = options_in.get("optional_values") or {}
    categories = None
    env = options_in.get("env") or {}
    if "OPERATOR_BUNDLE_CATEGORIES" in env:
        categories = load_categories_file(root / env["OPERATOR_BUNDLE_CATEGORIES"])
    index = values.get("index-path")
    options = ValidationOptions(
        validators=(case["validator"],),
        k8s_version=values.get("k8s-version"),
        index_dockerfile=load_dockerfile(root / index) if index else None,
        custom_categories=categories,
    )
    findings = list(validate_bundle(bundle, options))
    errors = [_render(f) for f in findings if f.severity is Severity.ERROR]
    warnings = [_render(f) for f in findings if f.severity is Severity.WARNING]
    return errors, warnings, findings


def _check_severity(label: str, got: list[str], expected: dict[str, Any], all_text: str) -> None:
    wanted = expected.get(label) or []
    for text in wanted:
        assert any(text in item for item in got), f"{label[:-1]} {text!r} not among:\n{all_text}"
    if expected.get(f"exact_{label}"):  # the complete set: nothing beyond what the expected strings describe
        extra = [item for item in got if not any(text in item for text in wanted)]
        assert not extra, f"unexpected {label}: {extra}\nall:\n{all_text}"
    count = expected.get(f"{label[:-1]}_count")
    if count is not None:
        assert len(got) == count, f"expected {count} {label}, got:\n{all_text}"


_KEYS = re.compile(r"(\w+): \(\[")


def _removed_keys(messages: list[str], minor: int, *, rbac: bool) -> dict[str, str]:
    """Kind (or, for ``rbac``, resource) -> message, from removed-API messages for v1.<minor>."""
    keys: dict[str, str] = {}
    for message in messages:
        if f"removed in v1.{minor}." not in message:
            continue
        for key in _KEYS.findall(message):
            if key[0].islower() == rbac:
                keys[key] = message
    return keys


def _check_removed_maps(expected: dict[str, Any], messages: list[str]) -> None:
    for field, minor, rbac in (
        ("removed_1_22", 22, False),
        ("removed_1_25", 25, False),
        ("warn_rbac_1_25", 25, True),
        ("removed_1_26", 26, False),
    ):
        if field not in expected:
            continue
        got = _removed_keys(messages, minor, rbac=rbac)
        want: dict[str, list[str]] = expected[field] or {}
        assert sorted(got) == sorted(want), f"{field}: kinds {sorted(got)} != {sorted(want)}"
        for key, names in want.items():
            assert f"{key}: ({go_quote_list(names)})" in got[key], (
                f"{field}: {key} names {names} not in {got[key]!r}"
            )


def _check_verdict(expected: dict[str, Any], errors: list[str], warnings: list[str], all_text: str) -> None:
    result = expected.get("result")
    not_asserted = set(expected.get("not_asserted") or [])
    if result == "invalid":
        assert errors, f"expected errors, got none:\n{all_text}"
    elif result == "warnings-only":
        if "errors" not in not_asserted:  # upstream did not look at errors: their absence is not claimed
            assert not errors, f"expected no errors:\n{all_text}"
        assert warnings, f"expected warnings, got none:\n{all_text}"
    elif result == "valid":
        assert not errors, f"expected no errors:\n{all_text}"
        if "warnings" not in not_asserted and "underlying_warning" not in expected:
            assert not warnings, f"expected no warnings:\n{all_text}"


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["input_kind"] != "dockerfile-set"], ids=lambda c: c["name"]
)
def test_case(case: dict[str, Any], shared: Callable[..., Path]) -> None:
    root = shared("bundle-testdata")
    errors, warnings, findings = _run(case, root)
    all_text = "\n".join(f"{f.rule} {f.location}: {_render(f)}" for f in findings) or "(none)"
    expected = case["expected"]
    _check_verdict(expected, errors, warnings, all_text)
    _check_severity("errors", errors, expected, all_text)
    _check_severity("warnings", warnings, expected, all_text)
    if "error_suffix" in expected:
        assert any(e.endswith(expected["error_suffix"]) for e in errors), all_text
    if "underlying_warning" in expected:
        assert any(expected["underlying_warning"] in w for w in warnings), all_text
    _check_removed_maps(expected, [f.message for f in findings])
    for item in findings:  # every finding names a file (and a line when it points into one)
        assert item.rule.startswith("RK-BUNDLE-") and item.location.file and item.hint


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["input_kind"] == "dockerfile-set"], ids=lambda c: c["name"]
)
def test_dockerfile_set(case: dict[str, Any], shared: Callable[..., Path]) -> None:
    folder = shared("bundle-testdata") / case["input"]
    removed = 'CRD: (["etcdbackups.etcd.database.coreos.com"])'
    for name, expected in case["expected"].items():
        if not (folder / name).exists():
            continue  # a missing index-path: releasekit judges the bundle's own Dockerfile, never a path given
        problems = check_ocp_label(load_dockerfile(folder / name), removed)
        verdict = "invalid" if problems else "valid"
        assert verdict == expected["result"], f"{name}: {problems}"


def test_cases_file_is_present(shared: Callable[..., Path]) -> None:
    shared("bundle-testdata", "cases.yaml")
    assert len(CASES) >= 76
