"""The semver-template and basic-template cases of shared/fixtures/opm-testdata/cases.yaml, driven by the file.

A new case needs no code. ``bundles.yaml`` stands in for pulling each image: every entry becomes an
``olm.bundle`` object (name, package, image, one ``olm.package`` property) in a temporary folder passed as
``--bundles``. Cases marked ``detect: true`` omit the template type. ``expected_output`` is compared as
parsed objects: the whole FBC stream for basic, the package/defaultChannel/channels summary for semver;
error cases by substring of the one-line error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import require_shared

KINDS = {"semver-template": "semver", "basic-template": "basic"}


def _cases() -> list[dict[str, Any]]:
    try:
        path = require_shared("opm-testdata", "cases.yaml")
    except pytest.skip.Exception:
        return []
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [c for c in doc["cases"] if c["kind"] in KINDS]


CASES = _cases()


def _write_bundles(stub: Path, folder: Path) -> None:
    stub_doc = yaml.safe_load(stub.read_text(encoding="utf-8"))
    blobs = [
        {
            "schema": "olm.bundle",
            "name": b["name"],
            "package": b["package"],
            "image": b["image"],
            "properties": [
                {"type": "olm.package", "value": {"packageName": b["package"], "version": str(b["version"])}}
            ],
        }
        for b in stub_doc.get("bundles") or []
    ]
    (folder / "bundles.json").write_text("\n".join(json.dumps(b) for b in blobs) + "\n", encoding="utf-8")


def _docs(text: str) -> list[Any]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


@pytest.mark.shared
@pytest.mark.parametrize("case", CASES, ids=[f"{c['kind']}/{c['name']}" for c in CASES])
def test_template_case(case: dict[str, Any], tmp_path: Path, run_line) -> None:
    root = require_shared("opm-testdata")
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    if case.get("bundle_stub"):
        _write_bundles(root / case["bundle_stub"], bundles)
    args = ["catalog", "template"]
    if not case.get("detect"):
        args.append(KINDS[case["kind"]])
    args += [str(root / case["input"]), "--bundles", str(bundles), "-o", "yaml"]
    result = run_line(args)
    expected = case["expected"]

    if "expected_output" in expected:
        assert result.exit_code == 0, result.stderr
        got = _docs(result.stdout)
        want_text = (root / expected["expected_output"]).read_text(encoding="utf-8")
        if case["kind"] == "basic-template":
            assert got == _docs(want_text)
        else:
            want = yaml.safe_load(want_text)
            packages = [d for d in got if d["schema"] == "olm.package"]
            assert [p["name"] for p in packages] == [want["package"]]
            assert packages[0]["defaultChannel"] == want["defaultChannel"]
            assert [d for d in got if d["schema"] == "olm.channel"] == want["channels"]
        return

    assert result.exit_code == 1, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    needle = expected.get("error_contains")
    if needle is not None:
        assert needle in result.stderr


def test_all_nineteen_template_cases_are_driven() -> None:
    if not CASES:
        pytest.skip("shared fixtures not found")
    assert len(CASES) == 19
