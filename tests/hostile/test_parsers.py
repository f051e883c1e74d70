"""One input policy for every reader (issue 14, defect 4 and the parser, file-type and path defects).

Commands run in a child process: before the fix several of these inputs killed the interpreter (exit 139,
the YAML library's stack) or hung it (a FIFO), which must not take the test run down.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import usual_catalog
from tests.hostile.conftest import Ran, assert_refused, run_child, run_here

DEEP_BLOCK = "- " * 12_000 + "x\n"  # 24 KB; yaml-rs overflowed its stack on it
DEEP_FLOW_JSON = '{"schema": "olm.package", "name": "a", "v": ' + "[" * 1000 + "]" * 1000 + "}\n"


def _catalog(root: Path, extra: str = "", name: str = "extra.yaml") -> Path:
    folder = root / "cat"
    folder.mkdir(exist_ok=True)
    (folder / "catalog.json").write_text("".join(json.dumps(o) + "\n" for o in usual_catalog()))
    if extra:
        (folder / name).write_text(extra)
    return folder


def _findings(ran: Ran) -> list[dict[str, object]]:
    return list(json.loads(ran.stdout)["findings"])


@pytest.mark.parametrize(
    "command",
    [["catalog", "validate", "cat"], ["catalog", "render", "cat"], ["catalog", "graph", "cat"]],
    ids=["validate", "render", "graph"],
)
def test_a_12000_deep_yaml_file_is_refused_not_a_crash(tmp_path: Path, command: list[str]) -> None:
    _catalog(tmp_path, DEEP_BLOCK)
    assert_refused(run_child(command, tmp_path), "extra.yaml:1", "nested deeper than 256 levels")


@pytest.mark.parametrize(
    "manifest",
    [DEEP_BLOCK, "".join(" " * i + "a:\n" for i in range(400)) + " " * 400 + "b\n", "[" * 2000 + "]" * 2000],
    ids=["yaml-block-sequence", "yaml-block-mapping", "flow"],
)
@pytest.mark.parametrize(
    "command", [["catalog", "validate", "cat"], ["catalog", "render", "cat"]], ids=["validate", "render"]
)
def test_a_deep_manifest_inside_an_olm_bundle_object_is_refused_not_a_crash(
    tmp_path: Path, manifest: str, command: list[str]
) -> None:
    """The base64 manifest of an ``olm.bundle.object`` is bounded too before a parser sees it: yaml-rs
    crashed (exit 139) on the block sequence, and read the 400-deep mapping past the limit."""
    import base64

    objects = usual_catalog(
        {"type": "olm.bundle.object", "value": {"data": base64.b64encode(manifest.encode()).decode()}}
    )
    folder = tmp_path / "cat"
    folder.mkdir()
    (folder / "catalog.json").write_text("".join(json.dumps(o) + "\n" for o in objects))
    line = next(n for n, o in enumerate(objects, 1) if o["schema"] == "olm.bundle")
    assert_refused(
        run_child(command, tmp_path), f"catalog.json:{line}:", "olm.bundle.object", "nested deeper than 256"
    )


def test_deep_json_in_alm_examples_is_a_finding_not_the_last_guard(tmp_path: Path) -> None:
    """JSON text inside an annotation is a second document: read within the same limit, its refusal names
    the CSV file (before, the json module's RecursionError reached the CLI's last guard: exit 2 with no
    file named)."""
    from tests.bundle_factory import csv_data, write_bundle

    csv = csv_data()
    csv["metadata"]["annotations"]["alm-examples"] = "[" * 5000 + "]" * 5000
    write_bundle(tmp_path / "b", manifests={"widget.clusterserviceversion.yaml": csv})
    ran = run_here(["bundle", "validate", "b", "--format", "json"], tmp_path)
    assert ran.code == 1, ran.stderr
    [finding] = [f for f in _findings(ran) if f["rule"] == "RK-BUNDLE-022"]
    assert "nested deeper than 256 levels" in str(finding["message"])
    location = finding["location"]
    assert isinstance(location, dict)
    assert str(location["file"]).endswith("widget.clusterserviceversion.yaml")


def test_a_12000_deep_template_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(DEEP_BLOCK)
    assert_refused(run_child(["catalog", "template", "t.yaml"], tmp_path), "t.yaml:1", "nested deeper")


def test_json_nested_1000_deep_is_refused(tmp_path: Path) -> None:
    _catalog(tmp_path, DEEP_FLOW_JSON, "deep.json")
    assert_refused(run_here(["catalog", "validate", "cat"], tmp_path), "deep.json:1", "nested deeper")


def test_check_refuses_a_deep_file_in_the_working_tree(repo: Path) -> None:
    shutil.rmtree(repo / ".git")
    repository = git.Repo.init(repo)
    repository.git.add(".")
    repository.git.commit(
        "-qm", "base", env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", **_committer()}
    )
    (repo / "catalog" / "v4.18" / "configs" / "kueue-operator" / "deep.yaml").write_text(DEEP_BLOCK)
    assert_refused(run_child(["check", "--base", "HEAD"], repo), "deep.yaml:1", "nested deeper")


def _committer() -> dict[str, str]:
    return {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def test_a_stream_file_nested_900_deep_is_refused(repo: Path) -> None:
    (repo / "streams" / "deep.yaml").write_text("a: " + "[" * 900 + "]" * 900 + "\n")
    assert_refused(run_here(["streams", "validate"], repo), "deep.yaml:1", "nested deeper")


def test_an_integer_over_python_digit_limit_in_a_stream_is_one_line(repo: Path) -> None:
    (repo / "streams" / "big.yaml").write_text("a: " + "9" * 5000 + "\n")
    assert_refused(run_here(["streams", "validate"], repo), "big.yaml:1", "too long")


def test_an_integer_over_python_digit_limit_in_catalog_json_is_opms_finding(tmp_path: Path) -> None:
    _catalog(tmp_path, '{"schema": "olm.package", "name": "b", "n": ' + "9" * 5000 + "}\n", "big.json")
    ran = run_here(["catalog", "validate", "cat", "--format", "json"], tmp_path)
    assert ran.code == 1, ran.stderr
    assert [(f["rule"], f["location"]["file"]) for f in _findings(ran)] == [("RK-FBC-001", "cat/big.json")]


@pytest.mark.parametrize(
    ("value", "wording"),
    [
        ("NaN", "invalid character 'N'"),
        ("Infinity", "invalid character 'I'"),
        ("-Infinity", "invalid character"),
        ("1e999999", "cannot unmarshal number 1e999999"),
    ],
)
def test_nan_infinity_and_overflow_in_catalog_json_get_opms_verdict(
    tmp_path: Path, value: str, wording: str
) -> None:
    """NaN, Infinity and 1e999999 passed in catalog JSON; Go's encoding/json (opm) rejects them."""
    _catalog(tmp_path, '{"schema": "olm.package", "name": "b", "n": ' + value + "}\n", "odd.json")
    ran = run_here(["catalog", "validate", "cat", "--format", "json"], tmp_path)
    assert ran.code == 1, ran.stderr
    [finding] = _findings(ran)
    assert finding["rule"] == "RK-FBC-001" and wording in str(finding["message"])


@pytest.mark.parametrize("spelling", [".nan", ".inf", "-.Inf"])
def test_nan_and_infinity_in_catalog_yaml_get_opms_verdict(tmp_path: Path, spelling: str) -> None:
    _catalog(tmp_path, f"schema: olm.package\nname: b\nn: {spelling}\n")
    ran = run_here(["catalog", "validate", "cat", "--format", "json"], tmp_path)
    [finding] = _findings(ran)
    assert finding["rule"] == "RK-FBC-001" and "unsupported value" in str(finding["message"])


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x7f", "\ufffe"], ids=["nul", "soh", "del", "fffe"])
def test_a_forbidden_character_in_a_yaml_catalog_is_opms_error_not_a_silent_cut(
    tmp_path: Path, char: str
) -> None:
    """A NUL byte silently truncated a YAML catalog document (yaml-rs stops there); opm rejects it."""
    _catalog(tmp_path, f"schema: olm.package\nname: b\n---\nschema: olm.package\nname: c{char}d\n")
    ran = run_here(["catalog", "validate", "cat", "--format", "json"], tmp_path)
    assert ran.code == 1, ran.stderr
    [finding] = _findings(ran)
    assert finding["rule"] == "RK-FBC-001"
    assert finding["location"] == {"file": "cat/extra.yaml", "line": 5}
    assert "control characters are not allowed" in str(finding["message"])


_NEST = """
import os, sys
os.chdir(sys.argv[1])
for _ in range(1500):  # one level at a time: the whole path is longer than PATH_MAX
    os.mkdir("d")
    os.chdir("d")
"""

_UNNEST = """
import os, sys
os.chdir(sys.argv[1])
depth = 0
while os.path.isdir("d"):
    os.chdir("d")
    depth += 1
for _ in range(depth):  # from the bottom: shutil.rmtree (and pytest's clean-up) recurse once per level
    os.chdir("..")
    os.rmdir("d")
"""


def test_1500_nested_folders_are_refused(tmp_path: Path) -> None:
    folder = _catalog(tmp_path)
    subprocess.run([sys.executable, "-c", _NEST, str(folder)], check=True)
    try:
        assert_refused(run_child(["catalog", "validate", "cat"], tmp_path), "nested deeper than 64")
    finally:
        subprocess.run([sys.executable, "-c", _UNNEST, str(folder)], check=True)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_a_link_to_dev_zero_in_streams_is_refused_without_reading(repo: Path, kind: str) -> None:
    target = repo / "streams" / "odd.yaml"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    assert_refused(run_child(["streams", "validate"], repo, timeout=60), "odd.yaml")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_a_link_to_dev_zero_in_bundles_is_refused(tmp_path: Path, kind: str) -> None:
    (tmp_path / "t.yaml").write_text("schema: olm.template.basic\nentries: []\n")
    (tmp_path / "bundles").mkdir()
    odd = tmp_path / "bundles" / "odd.json"
    if kind == "fifo":
        os.mkfifo(odd)
    else:
        odd.symlink_to("/dev/zero")
    ran = run_child(["catalog", "template", "t.yaml", "--bundles", "bundles"], tmp_path, timeout=60)
    assert_refused(ran, "odd.json")


def test_check_refuses_a_file_over_the_size_limit_in_the_working_tree(tmp_path: Path) -> None:
    """``check`` skipped the 64 MiB limit (a 1 GB file aborted the YAML library)."""
    from releasekit.errors import SafetyLimitError
    from releasekit.io.gitrev import snapshot_worktree

    big = tmp_path / "catalog" / "v4.18" / "configs" / "p" / "catalog.yaml"
    big.parent.mkdir(parents=True)
    with big.open("wb") as handle:  # sparse: costs no disk
        handle.truncate(65 * 1024 * 1024)
    with pytest.raises(SafetyLimitError, match="limit"):
        snapshot_worktree(tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        ["catalog", "render", "cat"],
        ["catalog", "validate", "cat"],
        ["catalog", "template", "t.yaml", "--bundles", "bundles"],
        ["bundle", "validate", "bundle"],
    ],
    ids=["render", "validate", "template-bundles", "bundle-validate"],
)
def test_symlinks_out_of_the_input_are_refused(tmp_path: Path, command: list[str]) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("schema: olm.package\nname: secret\n")
    _catalog(tmp_path)
    (tmp_path / "cat" / "leak.yaml").symlink_to(secret)
    (tmp_path / "t.yaml").write_text("schema: olm.template.basic\nentries: []\n")
    (tmp_path / "bundles").mkdir()
    (tmp_path / "bundles" / "leak.yaml").symlink_to(secret)
    for sub in ("manifests", "metadata"):
        (tmp_path / "bundle" / sub).mkdir(parents=True)
    (tmp_path / "bundle" / "metadata" / "annotations.yaml").symlink_to(secret)
    assert_refused(
        run_here(command, tmp_path), "leak.yaml" if "bundle" not in command else "annotations.yaml"
    )


def test_streams_validate_refuses_a_symlink_out_of_streams(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "x.yaml"
    outside.write_text((repo / "streams" / "stable.yaml").read_text())
    (repo / "streams" / "leak.yaml").symlink_to(outside)
    assert_refused(run_here(["streams", "validate"], repo), "leak.yaml", "outside")


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)
)


def test_an_alias_bomb_in_a_stream_file_is_refused(repo: Path) -> None:
    """Alias bombs in stream YAML took 5-8 s and 600 MB before being refused (the catalog path: 0.2 s)."""
    (repo / "streams" / "bomb.yaml").write_text(ALIAS_BOMB)
    assert_refused(run_here(["streams", "validate"], repo), "bomb.yaml", "alias")


def test_an_alias_bomb_in_a_bundle_manifest_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bundle" / "manifests").mkdir(parents=True)
    (tmp_path / "bundle" / "metadata").mkdir()
    (tmp_path / "bundle" / "manifests" / "bomb.yaml").write_text(ALIAS_BOMB)
    assert_refused(run_here(["bundle", "validate", "bundle"], tmp_path), "bomb.yaml", "alias")


@pytest.mark.parametrize("line", ["../../x", "0.11/../../x", "x", "0.11.2", "/etc"])
def test_upstream_import_line_is_only_x_y(repo: Path, line: str) -> None:
    """``upstream import --line ../../x`` wrote outside streams/."""
    source = repo / "kueue"
    source.mkdir()
    kueue = git.Repo.init(source)
    (source / "README").write_text("k\n")
    kueue.git.add(".")
    kueue.git.commit("-qm", "k", env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", **_committer()})
    before = sorted(p.relative_to(repo) for p in repo.rglob("*") if "kueue" not in p.parts)
    ran = run_here(["upstream", "import", "--repo", "kueue", "--ref", "HEAD", "--line", line], repo)
    assert_refused(ran, "--line", "X.Y")
    assert sorted(p.relative_to(repo) for p in repo.rglob("*") if "kueue" not in p.parts) == before


def test_rendering_an_integer_past_python_digit_limit_is_one_line(tmp_path: Path) -> None:
    """yaml-rs reads a 5,000-digit integer; writing it as opm would (a float64) ended in a traceback."""
    _catalog(
        tmp_path,
        "schema: olm.bundle\nname: a.v1\npackage: a\nimage: x\nproperties:\n- type: x.y\n  value: "
        + "9" * 5000
        + "\n",
    )
    assert_refused(run_here(["catalog", "render", "cat"], tmp_path), "does not fit a float64")


def test_a_refusal_with_format_json_is_also_a_report(repo: Path) -> None:
    (repo / "streams" / "deep.yaml").write_text("a: " + "[" * 900 + "]" * 900 + "\n")
    ran = run_here(["streams", "validate", "--format", "json"], repo)
    assert_refused(ran, "deep.yaml:1")
    [finding] = json.loads(ran.stdout)["findings"]
    assert finding["rule"] == "RK-FBC-054"
    assert finding["location"] == {"file": "streams/deep.yaml", "line": 1}


@given(
    st.lists(
        st.sampled_from(
            [
                b"a",
                b"\n",
                b"\xc2\x80",
                b"\xc2\x85",
                b"\xc2\xa0",
                b"\xc2\x9f",
                b"\xef\xbf\xbe",
                b"\xef\xbf\xbf",
                b"\xef\xbf\xbd",
                b"\xc2",
                b"\xef\xbf",
                "é".encode(),
            ]
        ),
        max_size=12,
    )
)
def test_forbidden_utf8_search_finds_what_the_pattern_finds(pieces: list[bytes]) -> None:
    """The literal search gives the reference pattern's first match, on any mix of near misses."""
    from releasekit.io.inputs import _UTF8_FORBIDDEN, _utf8_forbidden

    data = b"".join(pieces)
    found = _UTF8_FORBIDDEN.search(data)
    assert _utf8_forbidden(data) == (found.start() if found else -1)


@pytest.mark.parametrize("near_misses", [0, 63, 64, 65, 300])
@pytest.mark.parametrize(
    ("near", "hit"),
    [(b"\xc2\xa0", b"\xc2\x81"), (b"\xef\xbf\xbd", b"\xef\xbf\xbe"), (b"\xef\xbf\xbd", b"\xef\xbf\xbf")],
)
def test_forbidden_utf8_search_past_many_near_misses(near_misses: int, near: bytes, hit: bytes) -> None:
    """Past 64 candidates the literal search hands over to a plain search, which still finds the character."""
    from releasekit.io.inputs import _UTF8_FORBIDDEN, _utf8_forbidden

    for data in (near * near_misses + b"a" + hit + near, near * near_misses):
        found = _UTF8_FORBIDDEN.search(data)
        assert _utf8_forbidden(data) == (found.start() if found else -1)


@pytest.mark.parametrize(
    "padding", [b"x" * 100_000 + b"\n", b"a: b\n" * 30_000], ids=["long lines", "short lines"]
)
@settings(max_examples=60, deadline=None)
@given(
    body=st.lists(st.sampled_from([b" ", b"-", b"?", b":", b"\t", b"a", b"\n", b"- ", b"  "]), max_size=40)
)
def test_long_indentation_is_found_as_the_reference_pattern_finds_it(
    padding: bytes, body: list[bytes]
) -> None:
    from releasekit.io.inputs import _long_indent

    for data in (b"".join(body) + b"\n" + padding, padding + b"".join(body) + padding):
        expected = re.search(rb"(?:\A|\n)[ \t?:-]{6}", data) is not None
        assert _long_indent(data, 6) == expected
