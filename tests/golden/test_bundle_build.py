"""Bundles generated from the repository's streams and a temporary Kueue git repository, against golden files.

The upstream repository holds the CRD files of ``shared/fixtures/kueue/v0.11.9/crds/`` at
``config/components/crd/bases/``, tagged ``v0.11.9``, with a fixed author and date (so its commit id is
stable). Cases: the experimental candidate 0.3.0 (its exact inventory kueue-v0.11.9 pins the fixture files'
hashes) and the stable release 1.0.1 (built from its operator record; the stable stream's Kueue CRDs are in
the operator image, so no Kueue file is read). The unpinned flow is tested on a copy of ``streams/`` in which
0.3.0 names the transcribed kueue-0.11.

Golden files (``tests/golden/bundles/<case>/``) record the CSV, ``metadata/annotations.yaml`` and
``bundle.Dockerfile`` in full, the manifest ``upstream-crds.yaml`` (upstream CRDs by name and sha256 only)
and ``files.sha256`` (every generated file by path and sha256). CRD contents are never copied into the
repository. Regenerate with ``RELEASEKIT_UPDATE_GOLDEN=1`` and review the diff by hand; the key facts are
also asserted explicitly below.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import git
import pytest
import yaml
from click.testing import CliRunner, Result

from releasekit.io.streams import load_inventory
from releasekit.model.inventory import InventorySource
from tests.cli.test_bundle_build import CRD_BASES, STREAMS, TEMPLATES, commit_all, make_kueue_repo
from tests.conftest import REPO_ROOT, require_shared

GOLDEN = REPO_ROOT / "tests" / "golden" / "bundles"
CASES = {
    "experimental-0.3.0": ("experimental", "0.3.0", "kueue-operator-experimental.v0.3.0"),
    "stable-1.0.1": ("stable", "1.0.1", "kueue-operator"),
}
USER_ROLE = "manifests/kueue-batch-user-role_rbac.authorization.k8s.io_v1_clusterrole.yaml"
ALPHA_FILES = ("kueue.x-k8s.io_cohorts.yaml", "kueue.x-k8s.io_topologies.yaml")
FEATURES = (
    "cnf",
    "cni",
    "csi",
    "disconnected",
    "fips-compliant",
    "proxy-aware",
    "tls-profiles",
    "token-auth-aws",
    "token-auth-azure",
    "token-auth-gcp",
)

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def kueue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary upstream repository (shared by the tests of this module; tests that change it copy it)."""
    root = tmp_path_factory.mktemp("upstream") / "kueue"
    make_kueue_repo(root, require_shared("kueue", "v0.11.9", "crds"))
    return root


@pytest.fixture(scope="module")
def built(kueue: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Both cases built once into one output folder: case -> bundle folder."""
    from releasekit.cli import cli

    out = tmp_path_factory.mktemp("built") / "bundles"
    roots = {}
    for case in sorted(CASES):
        roots[case] = build_case(
            lambda args: CliRunner().invoke(cli, [str(a) for a in args]), kueue, out, case
        )
    return roots


@pytest.fixture
def own_kueue(kueue: Path, tmp_path: Path) -> Path:
    """A private copy of the upstream repository, for a test that changes it."""
    shutil.copytree(kueue, tmp_path / "kueue", symlinks=True)
    return tmp_path / "kueue"


def build(
    run_line: Callable[..., Result], repo: Path, out: Path, *extra: object, streams: Path = STREAMS
) -> Result:
    return run_line(
        ["bundle", "build", "--upstream", repo, "--out", out, "--streams-dir", streams]
        + ["--templates-dir", TEMPLATES, "--format", "json", *extra]
    )


def build_case(run_line: Callable[..., Result], repo: Path, out: Path, case: str, *extra: object) -> Path:
    stream, version, _ = CASES[case]
    result = build(run_line, repo, out, "--stream", stream, "--version", version, "--allow-unpinned", *extra)
    assert result.exit_code == 0, result.output
    return out / stream / version


def load(path: Path) -> Any:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def golden_files(root: Path, csv_name: str) -> dict[str, bytes]:
    """What the golden folder of a case holds (no CRD content: those are named by sha256 only)."""
    files = tree(root)
    listing = "".join(f"{hashlib.sha256(data).hexdigest()}  {rel}\n" for rel, data in files.items())
    csv = f"manifests/{csv_name}.clusterserviceversion.yaml"
    keep = (csv, "metadata/annotations.yaml", "bundle.Dockerfile", "upstream-crds.yaml")
    return {**{rel: files[rel] for rel in keep}, "files.sha256": listing.encode()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_bundle(built: dict[str, Path], case: str) -> None:
    root = built[case]
    actual = golden_files(root, CASES[case][2])
    folder = GOLDEN / case
    if os.environ.get("RELEASEKIT_UPDATE_GOLDEN") == "1":
        shutil.rmtree(folder, ignore_errors=True)
        for rel, data in actual.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
    expected = tree(folder)
    assert sorted(expected) == sorted(actual), "RELEASEKIT_UPDATE_GOLDEN=1 regenerates the golden files"
    for rel, data in actual.items():
        assert expected[rel].decode() == data.decode(), f"{case}/{rel} differs; RELEASEKIT_UPDATE_GOLDEN=1"


def test_stable_bundle_facts(built: dict[str, Path]) -> None:
    """1.0.1 is built from its operator record (streams/operator/1.0.1.yaml), with no Kueue file at all."""
    root = built["stable-1.0.1"]
    files = tree(root)
    # no Kueue CRD anywhere in a stable build: the operator image embeds them, the inventory is cited
    assert not [rel for rel in files if "x-k8s.io" in rel or rel.startswith("operator-assets/")]
    assert sorted(rel for rel in files if rel.startswith("manifests/")) == [
        "manifests/kueue-batch-admin-role_rbac.authorization.k8s.io_v1_clusterrole.yaml",
        "manifests/kueue-batch-user-role_rbac.authorization.k8s.io_v1_clusterrole.yaml",
        "manifests/kueue-operator.clusterserviceversion.yaml",
        "manifests/kueue.openshift.io_kueues.yaml",
    ]
    manifest = load(root / "upstream-crds.yaml")
    assert {c["name"] for c in manifest["excluded"]} == {
        "cohorts.kueue.x-k8s.io",
        "topologies.kueue.x-k8s.io",
    }
    assert all("alpha" in c["reason"] for c in manifest["excluded"])
    assert len(manifest["crds"]) == 9 and all("path" not in c for c in manifest["crds"])
    assert {c["placement"] for c in manifest["crds"]} == {"operator-assets"}
    assert manifest["upstream"]["pinned"] is False and manifest["upstream"]["ref"] == "v0.11.9"

    csv = load(root / "manifests/kueue-operator.clusterserviceversion.yaml")
    assert csv["metadata"]["name"] == "kueue-operator.v1.0.1" and csv["spec"]["version"] == "1.0.1"
    assert csv["metadata"]["namespace"] == "placeholder"  # a published fact the template got wrong
    assert csv["metadata"]["annotations"]["createdAt"] == "2025-07-15T01:52:59Z"
    assert [c["name"] for c in csv["spec"]["customresourcedefinitions"]["owned"]] == [
        "kueues.kueue.openshift.io"
    ]
    assert "skips" not in csv["spec"] and "replaces" not in csv["spec"]  # as published: edges are the FBC's
    annotations = load(root / "metadata/annotations.yaml")["annotations"]
    assert annotations["operators.operatorframework.io.bundle.channels.v1"] == "stable-v1.0"
    assert "com.redhat.openshift.versions" not in annotations  # published: a Dockerfile LABEL only
    dockerfile = (root / "bundle.Dockerfile").read_text(encoding="utf-8")
    for key, value in annotations.items():
        assert f'LABEL {key}="{value}"' in dockerfile
    assert 'LABEL com.redhat.openshift.versions="v4.18-v4.19"' in dockerfile


def test_experimental_bundle_facts(built: dict[str, Path]) -> None:
    root = built["experimental-0.3.0"]
    files = tree(root)
    for name in ALPHA_FILES:
        assert f"manifests/{name}" in files
    assert not [rel for rel in files if rel.startswith("operator-assets/")]
    csv = load(root / "manifests/kueue-operator-experimental.v0.3.0.clusterserviceversion.yaml")
    spec, annotations = csv["spec"], csv["metadata"]["annotations"]
    owned = {c["kind"]: c for c in spec["customresourcedefinitions"]["owned"]}
    assert {"Kueue", "Cohort", "Topology"} <= set(owned) and len(owned) == 12
    assert owned["Cohort"]["version"] == "v1alpha1" and owned["Topology"]["version"] == "v1alpha1"
    crds = [rel for rel in files if rel.startswith("manifests/") and "clusterserviceversion" not in rel]
    crd_names = {load(root / rel)["metadata"]["name"] for rel in crds}
    assert crd_names == {c["name"] for c in owned.values()}  # owned CRDs match what the bundle ships
    assert [m["type"] for m in spec["installModes"] if m["supported"]] == ["AllNamespaces"]
    assert len(spec["installModes"]) == 4
    for feature in FEATURES:
        assert annotations[f"features.operators.openshift.io/{feature}"] in ("true", "false")
    container = spec["install"]["spec"]["deployments"][0]["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    related = {r["name"]: r["image"] for r in spec["relatedImages"]}
    assert related == {
        "operand-image": env["RELATED_IMAGE_OPERAND_IMAGE"],
        "must-gather": env["RELATED_IMAGE_MUST_GATHER"],
    }
    assert "createdAt" not in annotations  # a candidate has none recorded; the clock is never read
    assert load(root / "metadata/annotations.yaml")["annotations"] == {
        "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
        "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
        "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
        "operators.operatorframework.io.bundle.package.v1": "kueue-operator-experimental",
        "operators.operatorframework.io.bundle.channels.v1": "experimental",
        "operators.operatorframework.io.bundle.channel.default.v1": "experimental",
        "com.redhat.openshift.versions": "v4.18-v4.19",
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_bundles_pass_bundle_validate(
    run_line: Callable[..., Result], built: dict[str, Path], case: str
) -> None:
    result = run_line(["bundle", "validate", built[case], "--format", "json"])
    assert result.exit_code == 0, result.output
    assert not [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]


def test_default_build_is_the_candidates_and_reports_no_error(
    run_line: Callable[..., Result], kueue: Path, tmp_path: Path
) -> None:
    result = build(run_line, kueue, tmp_path / "out", "--allow-unpinned")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["passed"] is True and report["summary"]["errors"] == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["experimental"]
    assert [p.name for p in (tmp_path / "out" / "experimental").iterdir()] == ["0.3.0"]
    assert "wrote " in result.stderr


def test_builds_are_byte_deterministic(
    run_line: Callable[..., Result], built: dict[str, Path], kueue: Path, tmp_path: Path
) -> None:
    for case, root in built.items():
        again = tree(build_case(run_line, kueue, tmp_path / "again", case))
        assert tree(root) == again


def test_check_detects_drift(run_line: Callable[..., Result], kueue: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    root = build_case(run_line, kueue, out, "stable-1.0.1")
    before = tree(root)
    assert build_case(run_line, kueue, out, "stable-1.0.1", "--check") == root  # in sync: exit 0
    (root / "metadata/annotations.yaml").write_text("annotations: {}\n", encoding="utf-8")
    (root / "manifests/extra.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    (root / "manifests/kueue-batch-user-role_rbac.authorization.k8s.io_v1_clusterrole.yaml").unlink()
    result = build(run_line, kueue, out, "--version", "1.0.1", "--allow-unpinned", "--check")
    assert result.exit_code == 1, result.output
    drift = {
        f["location"]["file"]: f["message"]
        for f in json.loads(result.stdout)["findings"]
        if f["rule"] == "RK-DIFF-001"
    }
    shown = f"{out}/stable/1.0.1"
    assert drift == {
        f"{shown}/manifests/extra.yaml": f"{shown}/manifests/extra.yaml is not generated any more (stale)",
        f"{shown}/metadata/annotations.yaml": f"{shown}/metadata/annotations.yaml differs from a fresh build",
        f"{shown}/{USER_ROLE}": f"{shown}/{USER_ROLE} is missing",
    }
    assert tree(root) != before  # --check never writes
    assert (
        build(
            run_line, kueue, tmp_path / "none", "--version", "1.0.1", "--allow-unpinned", "--check"
        ).exit_code
        == 1
    )


# ------------------------------------------------------------------------------------------ pinned builds


def pinned_streams(tmp_path: Path) -> Path:
    """A copy of ``streams/``: 0.3.0 names the exact inventory of its pin (kueue-v0.11.9, a sha256 per CRD)."""
    copy = tmp_path / "streams"
    shutil.copytree(STREAMS, copy)
    inventory, findings = load_inventory(copy / "upstream" / "kueue-v0.11.9.yaml", "kueue-v0.11.9.yaml")
    assert inventory is not None and not findings and inventory.source is InventorySource.EXACT
    return copy


def transcribed_streams(tmp_path: Path) -> Path:
    """A copy of ``streams/`` in which 0.3.0 names the transcribed, unpinned kueue-0.11 (no hashes)."""
    copy = tmp_path / "streams"
    shutil.copytree(STREAMS, copy)
    path = copy / "experimental.yaml"
    text = path.read_text(encoding="utf-8")
    assert "inventory: kueue-v0.11.9" in text
    path.write_text(text.replace("inventory: kueue-v0.11.9", "inventory: kueue-0.11"), encoding="utf-8")
    return copy


def test_pinned_build_needs_no_flag(run_line: Callable[..., Result], kueue: Path, tmp_path: Path) -> None:
    streams = pinned_streams(tmp_path)
    before = tree(streams)
    result = build(run_line, kueue, tmp_path / "out", "--version", "0.3.0", streams=streams)
    assert result.exit_code == 0, result.output
    manifest = load(tmp_path / "out/experimental/0.3.0/upstream-crds.yaml")
    assert manifest["upstream"]["pinned"] is True and manifest["upstream"]["inventorySource"] == "exact"
    assert tree(streams) == before  # bundle build never edits streams/


def test_crd_changed_after_its_hash_was_recorded_stops_the_build(
    run_line: Callable[..., Result], own_kueue: Path, tmp_path: Path
) -> None:
    kueue = own_kueue
    streams = pinned_streams(tmp_path)
    out = tmp_path / "out"
    assert build(run_line, kueue, out, "--version", "0.3.0", streams=streams).exit_code == 0
    before = tree(out)
    # upstream moves the tag to a commit whose Workload CRD differs from the recorded one
    repo = git.Repo(kueue)
    changed = kueue / CRD_BASES / "kueue.x-k8s.io_workloads.yaml"
    changed.write_text(changed.read_text(encoding="utf-8") + "# changed upstream\n", encoding="utf-8")
    commit_all(repo, "change a CRD")
    repo.create_tag("v0.11.9", force=True)
    result = build(run_line, kueue, out, "--version", "0.3.0", streams=streams)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    message = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(message) == 1
    assert "kueue.x-k8s.io_workloads.yaml has sha256" in message[0] and "do not match" in message[0]
    assert "releasekit upstream import --repo" in message[0]
    assert tree(out) == before  # a stopped build leaves the old output


def test_transcribed_inventory_without_flag_stops(
    run_line: Callable[..., Result], kueue: Path, tmp_path: Path
) -> None:
    result = build(
        run_line, kueue, tmp_path / "out", "--version", "0.3.0", streams=transcribed_streams(tmp_path)
    )
    assert result.exit_code == 2
    assert f"releasekit upstream import --repo {kueue} --ref v0.11.9" in result.stderr
    assert not (tmp_path / "out").exists()
