"""``releasekit release notes VERSION`` and ``streams map --released-only``, on this repository's streams/."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import Result

from releasekit.io.streams import load_streams
from releasekit.jobs.release_notes import build_notes, inventory_for, render_json, render_markdown
from releasekit.model.inventory import (
    Crd,
    CrdVersion,
    FeatureGate,
    GateStage,
    Inventory,
    InventorySource,
    Maturity,
)
from releasekit.model.stream import ReleaseStatus
from tests.conftest import REPO_ROOT

STREAMS = REPO_ROOT / "streams"


def test_notes_of_1_4_0(run_line: Callable[..., Result]) -> None:
    result = run_line(["release", "notes", "1.4.0", "--streams-dir", STREAMS])
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert text.startswith("## kueue-operator 1.4.0\n")
    assert "- this release: Kueue 0.18 (v0.19.0-devel-19-g982b8b02)" in text
    assert "- previous release (1.3.1): Kueue 0.16 (v0.16.4-15-ga97bf20a)" in text
    assert "- operator: `registry.redhat.io/kueue/kueue-rhel9-operator@sha256:2f2fe648" in text
    assert "- v4.18, v4.19, v4.20, v4.21, v4.22, v5.0" in text
    assert "- opt-in: SparkApplicationIntegration when spec.config.integrations.frameworks" in text
    # gates between the two inventories, read from streams/upstream
    loaded = load_streams(STREAMS)
    (stable,) = [s for s in loaded.streams if s.name == "stable"]
    old = inventory_for(next(r for r in stable.releases if str(r.version) == "1.3.1"), loaded.inventories)
    new = inventory_for(next(r for r in stable.releases if str(r.version) == "1.4.0"), loaded.inventories)
    assert old is not None and new is not None
    added = sorted({g.name for g in new.gates} - {g.name for g in old.gates})
    assert added and all(f"- added: {name} (" in text for name in added)
    data = json.loads(
        run_line(["release", "notes", "1.4.0", "--streams-dir", STREAMS, "--format", "json"]).stdout
    )
    assert data["schema"] == "releasekit/release-notes/v1"
    assert data["previous"] == {"version": "1.3.1", "kueue": "0.16 (v0.16.4-15-ga97bf20a)"}
    assert [i["name"] for i in data["images"]] == ["bundle", "operator", "operand", "mustGather"]
    assert all("@sha256:" in i["image"] for i in data["images"])


def test_versions_that_upgrade_into_a_release() -> None:
    loaded = load_streams(STREAMS)
    notes = build_notes(loaded.streams, loaded.inventories, "1.3.1")
    assert notes.upgrades_from == ("1.3.0",)  # its own skips, as of its release


def _crd(kind: str, versions: list[tuple[str, bool]]) -> Crd:
    return Crd(
        group="kueue.x-k8s.io",
        kind=kind,
        plural=kind.lower() + "s",
        scope="Namespaced",
        versions=tuple(
            CrdVersion(
                name=v, served=True, storage=s, maturity=Maturity.ALPHA if "alpha" in v else Maturity.BETA
            )
            for v, s in versions
        ),
        file=f"{kind}.yaml",
    )


def _inventory(line: str, crds: list[Crd], gates: list[FeatureGate]) -> Inventory:
    return Inventory(
        line=line,
        source=InventorySource.TRANSCRIBED,
        ref=f"v{line}.0",
        commit="0" * 40,
        crds=tuple(crds),
        gates=tuple(gates),
    )


def test_api_and_gate_changes_between_the_two_inventories() -> None:
    loaded = load_streams(STREAMS)
    (stable,) = [s for s in loaded.streams if s.name == "stable"]
    release = next(r for r in stable.releases if str(r.version) == "1.4.0")
    previous = next(r for r in stable.releases if str(r.version) == "1.3.1")
    old = _inventory(
        "0.16",
        [_crd("Gone", [("v1beta1", True)]), _crd("Queue", [("v1beta1", True)])],
        [
            FeatureGate(name="Removed", stage=GateStage.BETA, default=True),
            FeatureGate(name="Grows", stage=GateStage.ALPHA, default=False),
        ],
    )
    new = _inventory(
        "0.18",
        [
            _crd("Queue", [("v1beta1", False), ("v1beta2", True)]),
            _crd("Fresh", [("v1beta1", True)]),
            _crd("Topology", [("v1alpha1", True)]),
        ],
        [
            FeatureGate(name="Grows", stage=GateStage.BETA, default=True),
            FeatureGate(name="Brand", stage=GateStage.ALPHA, default=False),
        ],
    )
    inventories = {previous.upstream.inventory: old, release.upstream.inventory: new}
    notes = build_notes(loaded.streams, inventories, "1.4.0", "stable")
    assert notes.apis.crds_added == ("freshs.kueue.x-k8s.io", "topologys.kueue.x-k8s.io")
    assert notes.apis.crds_removed == ("gones.kueue.x-k8s.io",)
    assert notes.apis.versions_added == ("queues.kueue.x-k8s.io v1beta2",)
    assert notes.apis.storage_changes == ("queues.kueue.x-k8s.io: v1beta1 → v1beta2",)
    assert notes.apis.alpha_kept_out == ("topologys.kueue.x-k8s.io v1alpha1",)  # stable ships no alpha CRD
    assert [g.name for g in notes.gates.added] == ["Brand"]
    assert [g.name for g in notes.gates.removed] == ["Removed"]
    assert [(b.stage.value, a.stage.value) for b, a in notes.gates.promoted] == [("Alpha", "Beta")]
    assert [(b.default, a.default) for b, a in notes.gates.flipped] == [(False, True)]
    gates = json.loads(render_json(notes))["featureGates"]
    assert gates["promoted"] == [{"name": "Grows", "from": "Alpha", "to": "Beta"}]
    assert gates["added"] == [{"name": "Brand", "stage": "Alpha", "default": False, "lockToDefault": False}]
    text = render_markdown(notes)
    assert "- added: Brand (Alpha, off by default)\n- removed: Removed (Beta, on by default)\n" in text
    assert "- promoted: Grows: Alpha → Beta\n- default flipped: Grows: off → on by default\n" in text
    assert "### Alpha API versions kept out of this stream\n\n- topologys.kueue.x-k8s.io v1alpha1" in text
    missing = build_notes(loaded.streams, {}, "1.4.0")
    assert missing.missing and "incomplete" in render_markdown(missing)


def test_deprecations_name_withdrawn_releases() -> None:
    loaded = load_streams(STREAMS)
    (stable,) = [s for s in loaded.streams if s.name == "stable"]
    releases = tuple(
        replace(r, status=ReleaseStatus.WITHDRAWN, deprecation_message="use 1.3.1")
        if str(r.version) == "1.3.0"
        else r
        for r in stable.releases
    )
    streams = tuple(replace(s, releases=releases) if s.name == "stable" else s for s in loaded.streams)
    notes = build_notes(streams, loaded.inventories, "1.4.0")
    assert "1.3.0 (withdrawn): use 1.3.1" in notes.deprecations


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["9.9.9"], "release 9.9.9 is not in any stream"),
        (["one"], "not a semantic version"),
        (["1.4.0", "--stream", "nope"], "no such stream"),
    ],
)
def test_bad_versions_are_one_line_exit_2(
    run_line: Callable[..., Result], args: list[str], message: str
) -> None:
    result = run_line(["release", "notes", *args, "--streams-dir", STREAMS])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


# -------------------------------------------------------------------------------------- streams map


def test_map_released_only_lists_stable_first_and_no_candidates(
    run_line: Callable[..., Result], tmp_path: Path
) -> None:
    streams = tmp_path / "streams"
    shutil.copytree(STREAMS, streams)
    stable = streams / "stable.yaml"
    text = stable.read_text()
    at = text.rindex("    status: released")
    stable.write_text(text[:at] + "    status: candidate" + text[at + len("    status: released") :])
    full = run_line(["streams", "map", "--streams-dir", streams, "--format", "markdown"])
    only = run_line(["streams", "map", "--streams-dir", streams, "--format", "markdown", "--released-only"])
    assert full.exit_code == 0 and only.exit_code == 0, full.stderr + only.stderr
    assert "| candidate |" in full.stdout and "| candidate |" not in only.stdout
    assert only.stdout.index("(stable)") < only.stdout.index("(experimental)")
    assert full.stdout.index("(stable)") < full.stdout.index("(experimental)")
    bad = run_line(["streams", "map", "--streams-dir", streams, "--released-only"])
    assert bad.exit_code == 2
