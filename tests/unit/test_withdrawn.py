"""Deprecated and withdrawn releases: deprecation entries in the catalogs, and the rules that keep them sound."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from releasekit.io.fbc_load import load_catalog_text
from releasekit.jobs.build import BuildRequest, run_build
from tests.conftest import REPO_ROOT


def _copy(tmp_path: Path) -> Path:
    for name in ("streams", "bundle-templates"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    return tmp_path


def _set_status(root: Path, version: str, status: str, message: str) -> None:
    stable = root / "streams" / "stable.yaml"
    text = stable.read_text()
    old = f"  - version: {version}\n    status: released\n"
    assert old in text
    stable.write_text(
        text.replace(
            old,
            f"  - version: {version}\n    status: {status}\n    deprecationMessage: {json.dumps(message)}\n",
        )
    )


def _build(root: Path):  # type: ignore[no-untyped-def]
    return run_build(
        BuildRequest(
            streams_dir=root / "streams",
            templates_dir=root / "bundle-templates",
            catalog_dir=root / "catalog",
        )
    )


def _blobs(root: Path, ocp: str) -> list[dict[str, object]]:
    data = (root / "catalog" / ocp / "configs" / "kueue-operator" / "catalog.json").read_bytes()
    metas, findings = load_catalog_text(data, ocp)
    assert not findings
    return [dict(m.data) for m in metas]


@pytest.mark.parametrize("status", ["withdrawn", "deprecated"])
def test_an_older_release_gets_a_deprecation_entry_and_stays_skipped(tmp_path: Path, status: str) -> None:
    root = _copy(tmp_path)
    _set_status(root, "1.3.0", status, "1.3.0 loses workloads on upgrade; use 1.3.1")
    report = _build(root)
    assert report.passed, [f.message for f in report.findings if f.severity.value == "error"]
    for ocp in ("v4.18", "v4.21"):
        blobs = _blobs(root, ocp)
        deprecations = [b for b in blobs if b["schema"] == "olm.deprecations"]
        assert deprecations == [
            {
                "schema": "olm.deprecations",
                "package": "kueue-operator",
                "entries": [
                    {
                        "reference": {"schema": "olm.bundle", "name": "kueue-operator.v1.3.0"},
                        "message": "1.3.0 loses workloads on upgrade; use 1.3.1",
                    }
                ],
            }
        ]
        channel = next(b for b in blobs if b["schema"] == "olm.channel" and b["name"] == "stable-v1.3")
        head = channel["entries"][-1]  # type: ignore[index]
        assert head["name"] == "kueue-operator.v1.3.1" and "kueue-operator.v1.3.0" in head["skips"]
    assert not [b for b in _blobs(root, "v4.22") if b["schema"] == "olm.deprecations"]  # 1.3.0 is not there


def test_withdrawing_the_newest_release_of_a_minor_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _set_status(root, "1.4.1", "withdrawn", "broken")
    report = _build(root)
    found = [f for f in report.findings if f.rule == "RK-STREAM-026"]
    assert found and all("1.4.1" in f.message for f in found)
    assert {f.message.split("catalog ")[1].split(",")[0] for f in found} == {
        "v4.18",
        "v4.19",
        "v4.20",
        "v4.21",
        "v4.22",
        "v4.23",
        "v5.0",
    }
    assert found[0].location.file.endswith("stable.yaml") and found[0].location.line
    assert not report.passed


def test_an_owned_api_change_inside_a_minor_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    stable = root / "streams" / "stable.yaml"
    text = stable.read_text()
    old = "  - version: 0.2.1\n    status: released\n"
    stable.write_text(
        text.replace(
            old, old + "    ownedApi: {group: operator.openshift.io, version: v1alpha1, kind: Kueue}\n"
        )
    )
    report = _build(root)
    found = [f for f in report.findings if f.rule == "RK-STREAM-027"]
    assert len(found) == 1 and "0.2.1" in found[0].message and "0.2.0" in found[0].message
