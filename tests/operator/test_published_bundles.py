"""``bundle build`` of every released version equals the published bundle (the fixture, read in place).

The comparison sets the prose list aside (the CSV's description, displayName, icon, keywords, links,
maintainers and provider; the annotations description and alm-examples; owned-CRD fields other than
name/version/kind; description texts inside CRD schemas; the Dockerfile labels io.k8s.description,
description, summary and io.k8s.display-name) and the channel keys (FBC channels live in the catalog).
From 1.2.0 on the published CSV is the repository's with ``:latest`` replaced from
``related_images.json``, as its ``bundle.Dockerfile`` does; this module applies that itself.

The stable stream places Kueue's CRDs in the operator image, so these builds read no upstream
repository: they run offline.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result

from tests.conftest import REPO_ROOT
from tests.operator.conftest import RELEASED, published_dir

pytestmark = pytest.mark.shared

CSV_PROSE = ("description", "displayName", "icon", "keywords", "links", "maintainers", "provider")
PROSE_ANNOTATIONS = ("description", "alm-examples")
PROSE_LABELS = ("io.k8s.description", "description", "summary", "io.k8s.display-name")
CHANNEL_KEYS = (
    "operators.operatorframework.io.bundle.channels.v1",
    "operators.operatorframework.io.bundle.channel.default.v1",
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, run_module: Callable[..., Result]) -> Path:
    """Every stable release built once, offline (no --upstream): the folder of stream ``stable``."""
    out = tmp_path_factory.mktemp("published") / "bundles"
    result = run_module(["bundle", "build", "--stream", "stable", "--all", "--out", out])
    assert result.exit_code == 0, result.output
    return out / "stable"


@pytest.fixture(scope="module")
def run_module() -> Callable[..., Result]:
    from click.testing import CliRunner

    from releasekit.cli import cli

    def _run(args: list[object]) -> Result:
        return CliRunner().invoke(
            cli, [str(a) for a in args] + ["--streams-dir", REPO_ROOT / "streams"], catch_exceptions=False
        )

    return _run


def _substituted(folder: Path, text: str) -> str:
    """The sed substitution of the fixture's bundle.Dockerfile (none where it does none)."""
    dockerfile = folder / "bundle.Dockerfile"
    related = folder / "related_images.json"
    if not dockerfile.is_file() or not related.is_file():
        return text
    source = dockerfile.read_text()
    args = dict(re.findall(r"^ARG (\w+)=(\S+)$", source, re.MULTILINE))
    images = {i["name"]: i["image"] for i in json.loads(related.read_text())}
    for name, original in re.findall(r'select\(\.name == "([^"]+)"\).*?s\|\$\{(\w+)\}\.\*\|', source):
        text = re.sub(re.escape(args[original]) + ".*", images[name], text)
    return text


def _manifests(folder: Path, *, published: bool) -> dict[tuple[str, str], Any]:
    out: dict[tuple[str, str], Any] = {}
    for path in sorted((folder / "manifests").iterdir()):
        text = path.read_text()
        if published and ".clusterserviceversion." in path.name:
            text = _substituted(folder, text)
        obj = yaml.safe_load(text)  # a repeated key: the last wins, as in Go
        out[(obj["kind"], obj["metadata"]["name"])] = obj
    return out


def _no_prose_csv(csv: dict[str, Any]) -> dict[str, Any]:
    csv = copy.deepcopy(csv)
    for key in CSV_PROSE:
        csv["spec"].pop(key, None)
    for key in PROSE_ANNOTATIONS:
        csv["metadata"]["annotations"].pop(key, None)
    owned = csv["spec"]["customresourcedefinitions"]["owned"]
    csv["spec"]["customresourcedefinitions"]["owned"] = [
        {k: c[k] for k in ("name", "version", "kind")} for c in owned
    ]
    return csv


def _no_descriptions(node: Any, in_properties: bool = False) -> Any:
    if isinstance(node, list):
        return [_no_descriptions(x) for x in node]
    if not isinstance(node, dict):
        return node
    return {
        k: _no_descriptions(v, k == "properties" and not in_properties)
        for k, v in node.items()
        if in_properties or not (k == "description" and isinstance(v, str))
    }


def _labels(path: Path) -> dict[str, str]:
    labels: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("FROM "):
            labels = {}
        elif line.startswith("LABEL "):
            for part in shlex.split(line[len("LABEL ") :]):
                key, _, value = part.partition("=")
                labels[key] = value
    return labels


@pytest.mark.parametrize("version", RELEASED)
def test_bundle_build_is_the_published_bundle(version: str, built: Path) -> None:
    published = published_dir(version)
    ours = built / version
    mine, theirs = _manifests(ours, published=False), _manifests(published, published=True)
    assert sorted(mine) == sorted(theirs)  # the same manifests, by kind and name (the ClusterRoles too)
    # no Kueue operand CRD: the stable stream places them in the operator image
    assert not [name for kind, name in mine if kind == "CustomResourceDefinition" and "x-k8s.io" in name]
    for key, obj in theirs.items():
        if key[0] == "ClusterServiceVersion":
            assert _no_prose_csv(mine[key]) == _no_prose_csv(obj)
        elif key[0] == "CustomResourceDefinition":
            assert _no_descriptions(mine[key]) == _no_descriptions(obj)
        else:
            assert mine[key] == obj
    ann_mine = yaml.safe_load((ours / "metadata" / "annotations.yaml").read_text())["annotations"]
    ann_theirs = yaml.safe_load((published / "metadata" / "annotations.yaml").read_text())["annotations"]
    for key in CHANNEL_KEYS:
        ann_mine.pop(key, None)
        ann_theirs.pop(key, None)
    assert ann_mine == ann_theirs
    labels_mine, labels_theirs = _labels(ours / "bundle.Dockerfile"), _labels(published / "bundle.Dockerfile")
    for key in PROSE_LABELS + CHANNEL_KEYS:
        labels_mine.pop(key, None)
        labels_theirs.pop(key, None)
    assert labels_mine == labels_theirs


def test_the_prose_is_ours(built: Path) -> None:
    """The comparison sets prose aside because it differs: the templates supply it, not the record."""
    csv = yaml.safe_load(
        (built / "1.4.1" / "manifests" / "kueue-operator.clusterserviceversion.yaml").read_text()
    )
    prose = yaml.safe_load((REPO_ROOT / "bundle-templates" / "prose.yaml").read_text())["default"]
    assert csv["spec"]["displayName"] == prose["displayName"]
    assert csv["spec"]["customresourcedefinitions"]["owned"][0]["displayName"] == "Kueue"
    assert "alm-examples" in csv["metadata"]["annotations"]


def test_stable_bundles_read_no_kueue_repository(run_module: Callable[..., Result], tmp_path: Path) -> None:
    """crdPlacement: operator-assets: --upstream may even name nothing; no git is touched (offline, CI)."""
    out = tmp_path / "bundles"
    result = run_module(
        ["bundle", "build", "--version", "1.2.0", "--upstream", tmp_path / "no-such-repo", "--out", out]
    )
    assert result.exit_code == 0, result.output
    manifest = yaml.safe_load((out / "stable" / "1.2.0" / "upstream-crds.yaml").read_text())
    assert manifest["upstream"]["inventory"] == "kueue-v0.14.4-1-ga073ed4c"  # cited, not read
    assert manifest["upstream"]["pinned"] is False
