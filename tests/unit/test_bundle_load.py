"""The bundle loader: layouts, parse problems as findings with lines, unreadable paths as InputError."""

from __future__ import annotations

from pathlib import Path

import pytest

from releasekit.errors import InputError
from releasekit.io.bundle_load import load_bundle, load_manifests_dir
from releasekit.model.bundle import BundleLayout
from releasekit.model.finding import Severity

CSV = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: x.v1.0.0\n"


def test_missing_path_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_bundle(tmp_path / "missing")


def test_bundle_root_layout_and_metadata(tmp_path: Path) -> None:
    (tmp_path / "manifests").mkdir()
    (tmp_path / "metadata").mkdir()
    (tmp_path / "manifests" / "csv.yaml").write_text(CSV)
    (tmp_path / "metadata" / "zz.yaml").write_text("annotations:\n  a: b\n")
    (tmp_path / "bundle.Dockerfile").write_text(
        'FROM scratch\nLABEL com.redhat.openshift.versions="v4.18" \\\n  x=y\n'
    )
    bundle = load_bundle(tmp_path)
    assert bundle.layout is BundleLayout.BUNDLE_ROOT and bundle.csv is not None
    assert bundle.annotation("a") == "b"  # found by content, not by file name
    assert bundle.dockerfile is not None
    label = bundle.dockerfile.label("com.redhat.openshift.versions")
    assert label is not None and (label.value, label.line) == ("v4.18", 2)
    assert bundle.size > 0 and bundle.compressed_size > 0


def test_parse_error_is_a_finding_with_line(tmp_path: Path) -> None:
    (tmp_path / "csv.yaml").write_text(CSV)
    (tmp_path / "bad.yaml").write_text("kind: Service\nmetadata: {\n")
    bundle = load_manifests_dir(tmp_path)
    assert bundle.layout is BundleLayout.MANIFESTS_DIR
    [problem] = bundle.load_findings
    assert (
        problem.rule == "RK-BUNDLE-001"
        and problem.location.file.endswith("bad.yaml")
        and problem.location.line
    )


def test_repeated_key_is_a_note_and_last_value_wins(tmp_path: Path) -> None:
    (tmp_path / "csv.yaml").write_text(CSV + "  annotations:\n    k: one\n    k: two\n")
    bundle = load_manifests_dir(tmp_path)
    assert bundle.csv is not None and bundle.csv.annotations["k"] == "two"
    [note] = bundle.load_findings
    assert (note.rule, note.severity, note.location.line) == ("RK-BUNDLE-007", Severity.INFO, 7)


def test_every_repeated_key_is_a_note_with_its_path(tmp_path: Path) -> None:
    extra = "spec:\n  install:\n    strategy: a\n    strategy: b\n  keywords: [x]\n  keywords: [y]\n"
    (tmp_path / "csv.yaml").write_text(CSV + extra)
    bundle = load_manifests_dir(tmp_path)
    assert bundle.csv is not None and bundle.csv.spec == {"install": {"strategy": "b"}, "keywords": ["y"]}
    notes = [(f.rule, f.location.path, f.location.line) for f in bundle.load_findings]
    assert notes == [
        ("RK-BUNDLE-007", "$.spec.install.strategy", 8),
        ("RK-BUNDLE-007", "$.spec.keywords", 10),
    ]


def test_stray_entries_recorded(tmp_path: Path) -> None:
    (tmp_path / "csv.yaml").write_text(CSV)
    (tmp_path / ".hidden").write_text("x")
    (tmp_path / "sub").mkdir()
    bundle = load_manifests_dir(tmp_path)
    assert sorted((Path(s.path).name, s.is_dir) for s in bundle.stray_entries) == [
        (".hidden", False),
        ("sub", True),
    ]


def test_a_folder_without_metadata_gets_the_sdk_refusal(tmp_path: Path) -> None:
    """load_bundle (what ``bundle validate`` reads) adds what operator-sdk refuses before its loader runs."""
    (tmp_path / "csv.yaml").write_text(CSV)
    assert [f.rule for f in load_bundle(tmp_path).load_findings] == ["RK-BUNDLE-120"]
    assert load_manifests_dir(tmp_path).load_findings == ()


def test_a_file_is_no_bundle(tmp_path: Path) -> None:
    """``bundle validate`` reads a bundle root; a manifest file alone is refused as operator-sdk refuses it."""
    (tmp_path / "csv.yaml").write_text(CSV)
    with pytest.raises(InputError, match="csv.yaml: not a folder"):
        load_bundle(tmp_path / "csv.yaml")
