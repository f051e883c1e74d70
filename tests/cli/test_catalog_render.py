"""CLI tests for ``releasekit catalog render`` and ``catalog template`` (CliRunner, stdout/stderr apart)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PKG = {"schema": "olm.package", "name": "p", "defaultChannel": "c"}
CHANNEL = {"schema": "olm.channel", "package": "p", "name": "c", "entries": [{"name": "p.v1.0.0"}]}
BUNDLE = {
    "schema": "olm.bundle",
    "name": "p.v1.0.0",
    "package": "p",
    "image": "reg/p:1.0.0",
    "properties": [
        {"type": "olm.bundle.object", "value": {"data": "e30="}},
        {"type": "olm.package", "value": {"version": "1.0.0", "packageName": "p"}},
    ],
    "relatedImages": [{"name": "b", "image": "z"}, {"name": "a", "image": "a"}],
}


def _catalog(tmp_path: Path) -> Path:
    root = tmp_path / "cat"
    root.mkdir()
    (root / "c.json").write_text("\n".join(json.dumps(b) for b in (BUNDLE, CHANNEL, PKG)))
    return root


def test_render_json_orders_blobs_and_properties(tmp_path: Path, run_line) -> None:
    result = run_line(["catalog", "render", _catalog(tmp_path)])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert out.index('"olm.package"') < out.index('"olm.channel"') < out.index('"olm.bundle"')
    # bundle objects go last, relatedImages are sorted by image, nested keys are sorted
    assert out.index('"type": "olm.package"') < out.index('"type": "olm.bundle.object"')
    assert out.index('"image": "a"') < out.index('"image": "z"')
    assert '"packageName": "p",\n                "version": "1.0.0"' in out
    assert out.endswith("}\n")


def test_render_yaml(tmp_path: Path, run_line) -> None:
    result = run_line(["catalog", "render", "-o", "yaml", _catalog(tmp_path)])
    assert result.exit_code == 0
    assert result.stdout.startswith("---\ndefaultChannel: c\nname: p\nschema: olm.package\n---\n")


@pytest.mark.parametrize("flag", ["--format", "-o", "--output"], ids=["format", "short", "old-name"])
def test_render_format_flag_and_its_aliases(tmp_path: Path, run_line, flag: str) -> None:
    """--format names the output format (as everywhere else); -o and the old --output still work."""
    catalog = _catalog(tmp_path)
    expected = run_line(["catalog", "render", "--format", "yaml", catalog])
    result = run_line(["catalog", "render", flag, "yaml", catalog])
    assert result.exit_code == 0 and result.stdout == expected.stdout
    assert result.stdout.startswith("---\ndefaultChannel: c\n")


def test_render_several_refs_are_combined(tmp_path: Path, run_line) -> None:
    first = _catalog(tmp_path)
    second = tmp_path / "second"
    second.mkdir()
    (second / "o.yaml").write_text("schema: x.other\nname: n\n")
    result = run_line(["catalog", "render", first, second])
    assert result.exit_code == 0
    assert result.stdout.rstrip().endswith('"schema": "x.other"\n}')


def test_render_unknown_migration_level(tmp_path: Path, run_line) -> None:
    result = run_line(["catalog", "render", "--migrate-level", "nope", _catalog(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == 'releasekit: error: unknown migration level "nope"\n'


def test_render_migration_without_csv_keeps_bundle(tmp_path: Path, run_line) -> None:
    result = run_line(
        ["catalog", "render", "--migrate-level", "bundle-object-to-csv-metadata", _catalog(tmp_path)]
    )
    assert result.exit_code == 0
    assert "olm.bundle.object" in result.stdout  # the object is not a CSV: nothing to migrate


def test_render_refuses_a_plain_file(tmp_path: Path, run_line) -> None:
    file = _catalog(tmp_path) / "c.json"
    result = run_line(["catalog", "render", file])
    assert result.exit_code == 2
    assert f'ref "{file}" is not a directory: not allowed' in result.stderr
    assert result.stdout == ""


def test_render_missing_path(tmp_path: Path, run_line) -> None:
    result = run_line(["catalog", "render", tmp_path / "nope"])
    assert result.exit_code == 2
    assert "no such file or directory" in result.stderr


def test_render_load_error_is_one_line(tmp_path: Path, run_line) -> None:
    root = _catalog(tmp_path)
    (root / "bad.yaml").write_text("name: no-schema\n")
    result = run_line(["catalog", "render", root])
    assert result.exit_code == 2
    assert "is missing root schema field" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_render_bundle_directory(tmp_path: Path, run_line) -> None:
    bundle = tmp_path / "b"
    (bundle / "manifests").mkdir(parents=True)
    (bundle / "metadata").mkdir()
    (bundle / "metadata" / "annotations.yaml").write_text(
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: p\n"
    )
    (bundle / "manifests" / "csv.yaml").write_text(
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n"
        "metadata: {name: p.v1.0.0}\nspec:\n  version: 1.0.0\n"
        "  relatedImages: [{name: op, image: reg/op:1}]\n"
    )
    (bundle / "manifests" / "crd.yaml").write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.g.io}\n"
        "spec: {group: g.io, names: {kind: W, plural: ws}, versions: [{name: v1}]}\n"
    )
    result = run_line(["catalog", "render", bundle])
    assert result.exit_code == 0, result.stderr
    blob = json.loads(result.stdout)
    assert blob["name"] == "p.v1.0.0" and blob["package"] == "p" and blob["image"] == ""
    types = [p["type"] for p in blob["properties"]]
    assert types == ["olm.gvk", "olm.package", "olm.bundle.object", "olm.bundle.object"]
    assert blob["properties"][0]["value"] == {"group": "g.io", "kind": "W", "version": "v1"}
    assert blob["relatedImages"] == [{"name": "op", "image": "reg/op:1"}]


def test_template_detects_the_type_and_resolves_from_fbc(tmp_path: Path, run_line) -> None:
    bundles = _catalog(tmp_path)
    template = tmp_path / "t.yaml"
    template.write_text(
        "Schema: olm.template.basic\nEntries:\n- {schema: olm.package, name: p, defaultChannel: c}\n"
        "- {schema: olm.bundle, image: reg/p:1.0.0}\n"
    )
    result = run_line(["catalog", "template", template, "--bundles", bundles, "-o", "yaml"])
    assert result.exit_code == 0, result.stderr
    assert "name: p.v1.0.0" in result.stdout


def test_template_unresolvable_image_is_named(tmp_path: Path, run_line) -> None:
    template = tmp_path / "t.yaml"
    template.write_text("schema: olm.semver\nstable:\n  bundles:\n  - image: reg/missing:9\n")
    result = run_line(["catalog", "template", template, "--bundles", _catalog(tmp_path)])
    assert result.exit_code == 2
    assert 'cannot resolve bundle image "reg/missing:9"' in result.stderr


def test_template_without_bundles_dir_says_how_to_resolve(tmp_path: Path, run_line) -> None:
    template = tmp_path / "t.yaml"
    template.write_text("schema: olm.semver\nstable:\n  bundles:\n  - image: reg/p:1.0.0\n")
    result = run_line(["catalog", "template", "semver", template])
    assert result.exit_code == 2
    assert "--bundles" in result.stderr


def test_template_content_error_exits_1(tmp_path: Path, run_line) -> None:
    template = tmp_path / "t.yaml"
    template.write_text("schema: olm.semver\nbogus: 1\n")
    result = run_line(["catalog", "template", "semver", template])
    assert result.exit_code == 1
    assert 'json: unknown field "bogus"' in result.stderr


def test_template_content_error_exits_1_from_the_console_script(tmp_path: Path) -> None:
    """The installed entry point keeps the content verdict's exit 1 (it used to turn it into 2)."""
    template = tmp_path / "t.yaml"
    template.write_text("schema: olm.semver\nbogus: 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "releasekit", "catalog", "template", "semver", str(template)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert 'json: unknown field "bogus"' in done.stderr and "Traceback" not in done.stderr


def test_template_bad_usage(tmp_path: Path, run_line) -> None:
    result = run_line(["catalog", "template", "weird", tmp_path / "t.yaml"])
    assert result.exit_code == 2
