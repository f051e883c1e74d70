"""Catalogs before OpenShift 4.17 carry every object a bundle ships as ``olm.bundle.object``.

A copy of the experimental stream (Kueue's CRDs in the bundle) is sent to a v4.16 catalog; its preview
catalog needs ``--upstream`` (a temporary Kueue repository built from the fixtures) and holds exactly the
objects ``bundle build`` puts in the bundle. Offline, the build stops with one line saying why.
"""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result

from tests.cli.test_bundle_build import make_kueue_repo
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.shared


def _v416_streams(tmp_path: Path) -> Path:
    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    path = streams / "experimental.yaml"
    text = path.read_text(encoding="utf-8")
    for old, new in (
        ("openshift: [v4.18, v4.19]", "openshift: [v4.16]"),
        ("catalogs: [v4.18, v4.19]", "catalogs: [v4.16]"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    (streams / "stable.yaml").unlink()  # a copy of the experimental stream alone: quicker, same objects
    lifecycle = streams / "openshift" / "lifecycle.yaml"  # the lifecycle knows v4.16 (RK-STREAM-052)
    text = lifecycle.read_text(encoding="utf-8")
    assert "versions: [v4.18," in text
    lifecycle.write_text(text.replace("versions: [v4.18,", "versions: [v4.16, v4.18,"), encoding="utf-8")
    return streams


def _objects(catalog: Path) -> set[tuple[str, str]]:
    decoder = json.JSONDecoder()
    text, pos, out = catalog.read_text(encoding="utf-8"), 0, set()
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        meta, pos = decoder.raw_decode(text, pos)
        for prop in meta.get("properties") or []:
            if prop["type"] == "olm.bundle.object":
                obj: dict[str, Any] = json.loads(base64.b64decode(prop["value"]["data"]))
                out.add((obj["kind"], obj["metadata"]["name"]))
    return out


def test_a_v4_16_catalog_holds_every_bundled_object(
    run_line: Callable[..., Result], shared: Callable[..., Path], tmp_path: Path
) -> None:
    streams = _v416_streams(tmp_path)
    kueue = tmp_path / "kueue"
    make_kueue_repo(kueue, shared("kueue", "v0.11.9", "crds"))
    result = run_line(
        ["catalog", "build", "--candidates", "--out", tmp_path / "preview", "--streams-dir", streams]
        + ["--upstream", kueue]
    )
    assert result.exit_code == 0, result.output  # a build with an error writes nothing (issue 13)
    catalog = tmp_path / "preview" / "v4.16" / "configs" / "kueue-operator-experimental" / "catalog.json"
    objects = _objects(catalog)
    built = run_line(
        ["bundle", "build", "--version", "0.3.0", "--upstream", kueue, "--streams-dir", streams]
        + ["--out", tmp_path / "bundles"]
    )
    assert built.exit_code == 0, built.output
    shipped = set()
    for path in sorted((tmp_path / "bundles" / "experimental" / "0.3.0" / "manifests").iterdir()):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        shipped.add((doc["kind"], doc["metadata"]["name"]))
    assert objects == shipped
    assert (
        "CustomResourceDefinition",
        "cohorts.kueue.x-k8s.io",
    ) in objects  # an operand CRD the stream bundles
    assert len([k for k, _ in objects if k == "CustomResourceDefinition"]) == 12


def test_offline_such_a_catalog_is_refused_with_the_reason(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    streams = _v416_streams(tmp_path)
    result = run_line(
        ["catalog", "build", "--candidates", "--out", tmp_path / "preview", "--streams-dir", streams]
    )
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert (
        "catalog v4.16 of stream experimental" in line
        and "olm.bundle.object" in line
        and "--upstream" in line
    )
    assert not (tmp_path / "preview").exists()


def test_upstream_is_refused_for_the_committed_catalog(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    result = run_line(["catalog", "build", "--upstream", tmp_path, "--streams-dir", REPO_ROOT / "streams"])
    assert result.exit_code == 2 and "--candidates --catalog-dir" in result.stderr


def test_a_v4_16_catalog_of_a_recorded_release_carries_its_cluster_roles_offline(tmp_path: Path) -> None:
    """The stable stream keeps Kueue's CRDs in the operator image: no --upstream needed, and the bundle
    objects are the operator record's manifests (the ClusterRoles the template never had) and the CSV."""
    from releasekit.jobs.catalog_build import build_catalogs

    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    (streams / "experimental.yaml").unlink()
    path = streams / "stable.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("openshift: [v4.18,", "openshift: [v4.16, v4.18,", 1)
    text = text.replace(
        "catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]\n    bundle: registry.redhat.io/kueue/kueue-operator-bundle@sha256:2a22",
        "catalogs: [v4.16, v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]\n    bundle: registry.redhat.io/kueue/kueue-operator-bundle@sha256:2a22",
    )
    assert "catalogs: [v4.16," in text
    path.write_text(text, encoding="utf-8")
    built = build_catalogs(streams, REPO_ROOT / "bundle-templates")
    files = {str(k): v for k, v in built.files.items()}
    catalog = tmp_path / "catalog.json"
    catalog.write_bytes(files["v4.16/configs/kueue-operator/catalog.json"])
    assert _objects(catalog) == {
        ("ClusterServiceVersion", "kueue-operator.v1.4.1"),
        ("CustomResourceDefinition", "kueues.kueue.openshift.io"),
        ("ClusterRole", "kueue-batch-admin-role"),
        ("ClusterRole", "kueue-batch-user-role"),
    }
