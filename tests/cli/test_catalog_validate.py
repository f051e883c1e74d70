"""``releasekit catalog validate``: exit codes, the JSON report contract, and bad input.

Content opm rejects is a finding with file and line (exit 1) and the other files are still checked;
input that cannot be read, or that a safety limit refuses, is one clear line on stderr and exit 2.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from click.testing import Result

from releasekit.io.fbc_load import DEFAULT_MAX_FILE_BYTES

Run = Callable[..., Result]

VALID = """\
---
schema: olm.package
name: foo
defaultChannel: alpha
---
schema: olm.channel
name: alpha
package: foo
entries:
- name: foo.v0.2.0
  replaces: foo.v0.1.0
- name: foo.v0.1.0
---
schema: olm.bundle
name: foo.v0.1.0
package: foo
image: quay.io/example/foo-bundle:v0.1.0
properties:
- type: olm.package
  value: {packageName: foo, version: 0.1.0}
---
schema: olm.bundle
name: foo.v0.2.0
package: foo
image: quay.io/example/foo-bundle:v0.2.0
properties:
- type: olm.package
  value: {packageName: foo, version: 0.2.0}
"""

SCHEMA = Path(__file__).resolve().parents[2] / "releasekit" / "schemas" / "report.schema.json"


def catalog(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "catalog"
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    root.mkdir(exist_ok=True)
    return root


def assert_one_line_exit_2(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert err and "\n" not in err, err
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in err, err


# ----------------------------------------------------------------------------------------- exit codes


def test_valid_catalog_exits_0(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"foo/catalog.yaml": VALID})
    result = run_line(["catalog", "validate", root])
    assert result.exit_code == 0, result.output
    assert "passed" in result.stdout


def test_invalid_catalog_exits_1_and_groups_by_package_channel_bundle(run_line: Run, tmp_path: Path) -> None:
    broken = VALID.replace("  replaces: foo.v0.1.0\n", "  skipRange: '>v0.1.0'\n")
    root = catalog(tmp_path, {"foo/catalog.yaml": broken})
    result = run_line(["catalog", "validate", root])
    assert result.exit_code == 1
    out = result.stdout
    assert 'package "foo"' in out and '└── channel "alpha"' in out
    assert "multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0" in out
    assert 'invalid skipRange ">v0.1.0"' in out
    assert "catalog.yaml:11: $.entries[0].skipRange" in out  # refined to the entry's own line


def test_several_dirs_in_one_report(run_line: Run, tmp_path: Path) -> None:
    a = catalog(tmp_path / "a", {"c.yaml": VALID})
    b = catalog(tmp_path / "b", {"c.yaml": VALID.replace("version: 0.2.0", "version: v0.2.0")})
    result = run_line(["catalog", "validate", a, b, "--format", "json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [f["rule"] for f in report["findings"]] == ["RK-FBC-025"]
    assert report["findings"][0]["location"]["file"].startswith(str(b))


def test_each_folder_is_loaded_with_the_previous_one_let_go(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several big catalogs in one run: the peak is the largest one's, not two of them held at once."""
    import weakref

    from releasekit.io import fbc_load

    class Checked(list[object]):  # the findings of a check, weakly referable
        pass

    real = fbc_load.load_and_check
    previous: list[weakref.ref[Checked]] = []
    held: list[bool] = []

    def load_and_check(*args: object, **kwargs: object) -> tuple[object, Checked]:
        held.extend(ref() is not None for ref in previous)
        loaded, checked = real(*args, **kwargs)  # type: ignore[arg-type]
        result = Checked(checked)
        previous[:] = [weakref.ref(result)]
        return loaded, result

    monkeypatch.setattr(fbc_load, "load_and_check", load_and_check)
    dirs = [catalog(tmp_path / name, {"c.yaml": VALID}) for name in ("a", "b", "c")]
    assert run_line(["catalog", "validate", *dirs]).exit_code == 0
    assert held == [False, False]


def test_json_report_matches_contract(run_line: Run, tmp_path: Path) -> None:
    root = catalog(
        tmp_path, {"foo/catalog.yaml": VALID.replace("defaultChannel: alpha", "defaultChannel: ''")}
    )
    out = tmp_path / "report.json"
    result = run_line(["catalog", "validate", root, "--format", "json", "--output", out])
    assert result.exit_code == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(report, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert report["schema"] == "releasekit/report/v1" and report["passed"] is False
    assert report["summary"]["errors"] == 1
    (finding,) = report["findings"]
    assert finding["rule"] == "RK-FBC-040" and finding["severity"] == "error"
    assert finding["message"] == "default channel must be set"
    assert finding["location"] == {
        "file": str(root / "foo" / "catalog.yaml"),
        "line": 4,
        "path": "$.defaultChannel",
    }
    assert finding["hint"]


def test_missing_dir_and_bad_usage_exit_2(run_line: Run, tmp_path: Path) -> None:
    assert_one_line_exit_2(run_line(["catalog", "validate", tmp_path / "nope"]), "nope")
    assert run_line(["catalog", "validate"]).exit_code == 2
    assert run_line(["catalog", "validate", tmp_path, "--format", "xml"]).exit_code == 2


def test_a_file_argument_is_refused(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"c.yaml": VALID})
    assert_one_line_exit_2(run_line(["catalog", "validate", root / "c.yaml"]), "not a directory")


# ------------------------------------------------------------------------------ content -> findings


def test_duplicate_keys_and_invalid_utf8_are_findings_and_other_files_still_checked(
    run_line: Run, tmp_path: Path
) -> None:
    root = catalog(
        tmp_path,
        {
            "a-dupe.yaml": "schema: olm.package\nname: bar\nName: baz\n",
            "b-dupe.json": '{"schema": "olm.package",\n "name": "x", "name": "y"}\n',
            "c-latin1.yaml": b"schema: olm.package\nname: caf\xe9\n",
            "foo/catalog.yaml": VALID.replace("version: 0.2.0", "version: v0.2.0"),
        },
    )
    result = run_line(["catalog", "validate", root, "--format", "json"])
    assert result.exit_code == 1, result.output
    findings = json.loads(result.stdout)["findings"]
    where = {(Path(f["location"]["file"]).name, f["rule"]): f["location"]["line"] for f in findings}
    assert where[("a-dupe.yaml", "RK-FBC-003")] == 1
    assert ("b-dupe.json", "RK-FBC-003") in where
    assert where[("c-latin1.yaml", "RK-FBC-006")] == 2
    assert ("catalog.yaml", "RK-FBC-025") in where  # the good folder was still validated


# ------------------------------------------------------------------------------ safety -> exit 2


def test_yaml_alias_bomb_is_refused(run_line: Run, tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    bomb = "schema: olm.package\nname: bomb\n" + "\n".join(lines) + "\n"
    root = catalog(tmp_path, {"bomb.yaml": bomb})
    assert_one_line_exit_2(run_line(["catalog", "validate", root]), "bomb.yaml", "alias")


def test_file_over_the_default_limit_is_refused(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"small.yaml": VALID})
    big = root / "big.json"
    with big.open("wb") as handle:  # 100 MB, sparse: the limit is checked from stat, never by reading
        handle.truncate(100 * 1000 * 1000)
    assert big.stat().st_size > DEFAULT_MAX_FILE_BYTES
    assert_one_line_exit_2(run_line(["catalog", "validate", root]), "big.json", "--max-file-size")


def test_max_file_size_flag_moves_the_limit(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"c.yaml": VALID})
    size = (root / "c.yaml").stat().st_size
    assert_one_line_exit_2(run_line(["catalog", "validate", root, "--max-file-size", size - 1]), "c.yaml")
    assert run_line(["catalog", "validate", root, "--max-file-size", size]).exit_code == 0
    assert run_line(["catalog", "validate", root, "--max-file-size", "0"]).exit_code == 2


def test_symlink_leaving_the_catalog_is_refused(run_line: Run, tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(VALID, encoding="utf-8")
    root = catalog(tmp_path, {"c.yaml": VALID})
    (root / "link.yaml").symlink_to(outside)
    assert_one_line_exit_2(run_line(["catalog", "validate", root]), "link.yaml", "outside")


def test_symlink_inside_the_catalog_is_followed(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"real/c.yaml": VALID})
    (root / "alias.yaml").symlink_to(root / "real" / "c.yaml")
    result = run_line(["catalog", "validate", root, "--format", "json"])
    assert result.exit_code == 1  # the same package twice: opm's "duplicate package"
    assert "RK-FBC-011" in {f["rule"] for f in json.loads(result.stdout)["findings"]}


def test_dangling_symlink_is_refused(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"c.yaml": VALID})
    (root / "gone.yaml").symlink_to(root / "missing.yaml")
    assert_one_line_exit_2(run_line(["catalog", "validate", root]), "gone.yaml", "dangling")


def test_directory_where_a_file_is_expected_is_refused(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"c.yaml": VALID, "sub/d.yaml": VALID})
    (root / "folder-link.yaml").symlink_to(root / "sub", target_is_directory=True)
    assert_one_line_exit_2(run_line(["catalog", "validate", root]), "folder-link.yaml", "directory")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_being_opened(run_line: Run, tmp_path: Path) -> None:
    root = catalog(tmp_path, {"c.yaml": VALID})
    fifo = root / "pipe.yaml"
    os.mkfifo(fifo)
    box: dict[str, Result] = {}
    worker = threading.Thread(
        target=lambda: box.setdefault("r", run_line(["catalog", "validate", root])), daemon=True
    )
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive():  # it opened the FIFO and is waiting for a writer: unblock it, then fail
        with fifo.open("w"):
            pass
        worker.join(timeout=5)
        pytest.fail("catalog validate blocked on a FIFO")
    assert_one_line_exit_2(box["r"], "pipe.yaml", "FIFO")


def test_konflux_format_reports_unreadable_input_and_exits_2(run_line: Run, tmp_path: Path) -> None:
    result = run_line(["catalog", "validate", tmp_path / "nope", "--format", "konflux"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["result"] == "ERROR"


def test_graph_flag_adds_the_upgrade_graph_rules(run_line: Callable[..., Result], tmp_path: Path) -> None:
    """By default the verdict is opm's; --graph adds what opm misses (here an edge to a lower version)."""
    catalog = tmp_path / "c"
    catalog.mkdir()
    blobs = [
        {"schema": "olm.package", "name": "p", "defaultChannel": "stable"},
        {
            "schema": "olm.channel",
            "name": "stable",
            "package": "p",
            "entries": [{"name": "p.v1.0.0", "replaces": "p.v2.0.0"}, {"name": "p.v2.0.0"}],
        },
    ]
    for version in ("1.0.0", "2.0.0"):
        blobs.append(
            {
                "schema": "olm.bundle",
                "name": f"p.v{version}",
                "package": "p",
                "image": f"quay.io/p/b:{version}",
                "properties": [{"type": "olm.package", "value": {"packageName": "p", "version": version}}],
            }
        )
    (catalog / "catalog.json").write_text("\n".join(json.dumps(b) for b in blobs))
    plain = run_line(["catalog", "validate", str(catalog), "--format", "json"])
    assert plain.exit_code == 0, plain.stdout
    graph = run_line(["catalog", "validate", str(catalog), "--graph", "--format", "json"])
    assert graph.exit_code == 1
    rules = {f["rule"] for f in json.loads(graph.stdout)["findings"]}
    assert "RK-GRAPH-001" in rules
