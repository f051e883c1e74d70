"""The OpenShift lifecycle (streams/openshift/lifecycle.yaml), RK-GRAPH-010 along its edges, and the matrix."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from releasekit.io.lifecycle import load_lifecycle
from releasekit.io.streams import load_streams
from releasekit.jobs.catalog_build import build_catalogs
from releasekit.jobs.catalog_matrix import load_tree_configs
from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.lifecycle import EdgeKind, OpenShiftLifecycle, default_edges
from releasekit.model.stream import OpenShiftVersion
from releasekit.rules.graph import find_strandings
from releasekit.rules.lifecycle import check_lifecycle
from releasekit.rules.upgrade_matrix import MatrixRow, MatrixUpgrade, upgrade_matrix
from tests.conftest import REPO_ROOT

V = OpenShiftVersion.parse


def _repo_matrix() -> tuple:
    configs = load_tree_configs(REPO_ROOT / "catalog")
    lifecycle, findings = load_lifecycle(REPO_ROOT / "streams")
    assert lifecycle is not None and findings == ()
    return upgrade_matrix(configs, lifecycle.edges_among(configs))


# ------------------------------------------------------------------------------------------ lifecycle


def test_repository_lifecycle_edges() -> None:
    lifecycle, findings = load_lifecycle(REPO_ROOT / "streams")
    assert findings == () and lifecycle is not None
    assert lifecycle.eus == (V("v4.18"), V("v4.20"), V("v4.22"))
    got = [(str(e.source), str(e.target), e.kind.value) for e in lifecycle.edges]
    assert got == [
        ("v4.18", "v4.19", "minor"),
        ("v4.18", "v4.20", "eus"),
        ("v4.19", "v4.20", "minor"),
        ("v4.20", "v4.21", "minor"),
        ("v4.20", "v4.22", "eus"),
        ("v4.21", "v4.22", "minor"),
        ("v4.22", "v4.23", "minor"),
        ("v4.22", "v5.0", "major"),  # written explicitly, never derived
        ("v4.23", "v5.0", "major"),
    ]
    assert "ASSUMPTION" in (REPO_ROOT / "streams" / "openshift" / "lifecycle.yaml").read_text()
    assert check_lifecycle(lifecycle, load_streams(REPO_ROOT / "streams").streams) == ()


def test_stream_loader_ignores_the_openshift_folder() -> None:
    assert [s.name for s in load_streams(REPO_ROOT / "streams").streams] == ["experimental", "stable"]


@given(
    st.sets(st.tuples(st.integers(4, 5), st.integers(0, 30)), min_size=1, max_size=12),
    st.data(),
)
def test_default_edges_go_one_minor_or_eus_to_next_eus(
    versions: set[tuple[int, int]], data: st.DataObject
) -> None:
    all_versions = sorted(OpenShiftVersion(major=a, minor=b) for a, b in versions)
    eus = data.draw(st.sets(st.sampled_from(all_versions)))
    edges = default_edges(all_versions, eus)
    for edge in edges:
        assert edge.source.major == edge.target.major and edge.target > edge.source
        if edge.kind is EdgeKind.MINOR:
            assert edge.target.minor == edge.source.minor + 1
        else:
            assert edge.kind is EdgeKind.EUS and edge.source in eus and edge.target in eus
            assert not any(edge.source < v < edge.target for v in eus)
    minors = {(e.source, e.target) for e in edges if e.kind is EdgeKind.MINOR}
    for older, newer in zip(all_versions, all_versions[1:], strict=False):
        if older.major == newer.major and newer.minor == older.minor + 1:
            assert (older, newer) in minors


def _streams_with(tmp_path: Path, lifecycle: str) -> Path:
    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    (streams / "openshift" / "lifecycle.yaml").write_text(textwrap.dedent(lifecycle))
    return streams


def test_lifecycle_schema_error_names_file_and_line(tmp_path: Path) -> None:
    streams = _streams_with(
        tmp_path,
        """\
        schema: releasekit/openshift-lifecycle/v1
        versions: [v4.18, v4.19]
        upgrade: []
        """,
    )
    lifecycle, findings = load_lifecycle(streams, display_root="streams")
    assert lifecycle is None
    assert [(f.rule, f.location.file, f.location.line) for f in findings] == [
        ("RK-STREAM-001", "streams/openshift/lifecycle.yaml", 3)
    ]


def test_lifecycle_cross_checks(tmp_path: Path) -> None:
    streams = _streams_with(
        tmp_path,
        """\
        schema: releasekit/openshift-lifecycle/v1
        versions: [v4.18, v4.19, v4.20, v5.0]
        eus: [v4.18, v4.24]
        upgrades:
          - {from: v4.20, to: v4.19, kind: minor}
          - {from: v4.19, to: v4.20, kind: major}
          - {from: v4.20, to: v5.0, kind: eus}
        """,
    )
    lifecycle, findings = load_lifecycle(streams, display_root="streams")
    assert [(f.rule, f.location.line) for f in findings] == [("RK-STREAM-050", 3)]
    assert lifecycle is not None
    more = check_lifecycle(lifecycle, load_streams(streams).streams)
    # the streams check (streams validate, build, check) reports all of them
    from releasekit.jobs.streams_validate import validate_streams

    _, report = validate_streams(streams, display_root="streams")
    assert sorted({f.rule for f in report.findings if f.rule.startswith("RK-STREAM-05")}) == [
        "RK-STREAM-050",
        "RK-STREAM-051",
        "RK-STREAM-052",
    ]
    lines = sorted(f.location.line or 0 for f in more if f.rule == "RK-STREAM-051")
    assert lines == [5, 6, 7]
    missing = sorted(
        f.message.split(" ships to ")[1].split(",")[0] for f in more if f.rule == "RK-STREAM-052"
    )
    assert missing == ["v4.21", "v4.22", "v4.23"]
    assert all(f.location.file.endswith("stable.yaml") for f in more if f.rule == "RK-STREAM-052")


# ----------------------------------------------------------------------------- the repository's matrix


def test_matrix_names_the_ten_minor_strandings_and_the_eus_ones() -> None:
    matrix = _repo_matrix()
    stranded = sorted((u.kind, u.source, u.target, r.version) for u in matrix for r in u.rows if r.stranded)
    minor = [s[1:] for s in stranded if s[0] == "minor"]
    assert minor == [
        ("v4.19", "v4.20", "0.1.0"),
        ("v4.19", "v4.20", "0.2.0"),
        ("v4.19", "v4.20", "0.2.1"),
        ("v4.19", "v4.20", "1.0.0"),
        ("v4.19", "v4.20", "1.0.1"),
        ("v4.20", "v4.21", "1.1.0"),
        ("v4.21", "v4.22", "1.2.0"),
        ("v4.21", "v4.22", "1.3.0"),
        ("v4.22", "v4.23", "1.3.1"),
        ("v4.22", "v4.23", "1.4.0"),
    ]
    eus = [s[1:] for s in stranded if s[0] == "eus"]
    assert eus == [
        ("v4.18", "v4.20", "0.1.0"),
        ("v4.18", "v4.20", "0.2.0"),
        ("v4.18", "v4.20", "0.2.1"),
        ("v4.18", "v4.20", "1.0.0"),
        ("v4.18", "v4.20", "1.0.1"),
        ("v4.20", "v4.22", "1.1.0"),
        ("v4.20", "v4.22", "1.2.0"),
        ("v4.20", "v4.22", "1.3.0"),
    ]
    assert not [s for s in stranded if s[0] == "major"]
    # the matrix and RK-GRAPH-010 agree, edge by edge
    configs = load_tree_configs(REPO_ROOT / "catalog")
    pairs = sorted({(u.source, u.target) for u in matrix})
    strandings = find_strandings(sorted(configs.items(), key=lambda kv: V(kv[0])), pairs)
    assert sorted((s.openshift_from, s.openshift_to, s.version) for s in strandings) == sorted(
        s[1:] for s in stranded
    )


def test_matrix_rows_say_head_and_path() -> None:
    matrix = _repo_matrix()
    row = next(
        r for u in matrix if (u.source, u.target) == ("v4.22", "v5.0") for r in u.rows if r.version == "1.4.0"
    )
    assert (row.reaches, row.path) == ("1.4.1", ("1.4.0", "1.4.1"))
    island = next(
        r
        for u in matrix
        if (u.source, u.target) == ("v4.18", "v4.19")
        for r in u.rows
        if r.version == "1.0.0"
    )
    assert (island.reaches, island.path) == ("1.0.1", ("1.0.0", "1.0.1"))  # its channel's head (islands)


# ------------------------------------------------------------------------- small streams: EUS vs minor


_RELEASE = """\
  - version: {version}
    status: released
    upstream: {{line: "0.11", inventory: kueue-0.11}}
    catalogs: [{catalogs}]
    bundle: registry.redhat.io/kueue/b@sha256:{digest}
    images:
      operator: registry.redhat.io/kueue/o@sha256:{digest}
      operand: registry.redhat.io/kueue/p@sha256:{digest}
    createdAt: "2026-01-01T00:00:00Z"
"""


def _mini(
    tmp_path: Path, releases: list[tuple[str, str]], *, block: bool = False
) -> dict[str, DeclarativeConfig]:
    streams = tmp_path / "streams"
    streams.mkdir()
    shutil.copytree(REPO_ROOT / "streams" / "upstream", streams / "upstream")
    text = textwrap.dedent(
        """\
        schema: releasekit/stream/v1
        package: mini
        channels: {pattern: "stable-v{major}.{minor}", default: newest-minor}
        openshift: [v4.18, v4.19, v4.20]
        crdPlacement: operator-assets
        ownedApi: {group: kueue.openshift.io, version: v1, kind: Kueue}
        upgrades: {crossMinor: replace-previous-minor}
        registries: {released: [registry.redhat.io/kueue/]}
        releases:
        """
    )
    text = text.replace("releases:\n", f"blockClusterUpgrades: {str(block).lower()}\nreleases:\n")
    for i, (version, catalogs) in enumerate(releases):
        text += _RELEASE.format(version=version, catalogs=catalogs, digest=f"{i:064x}")
    (streams / "stable.yaml").write_text(text)
    built = build_catalogs(streams, REPO_ROOT / "bundle-templates")
    return {str(f.openshift): dict(f.packages)["mini"] for f in built.fragments}


_EDGES = OpenShiftLifecycle.build([V("v4.18"), V("v4.19"), V("v4.20")], [V("v4.18"), V("v4.20")]).edges


def _row(matrix: tuple[MatrixUpgrade, ...], source: str, target: str, version: str) -> MatrixRow:
    upgrade = next(u for u in matrix if (u.source, u.target) == (source, target))
    return next(r for r in upgrade.rows if r.version == version)


def test_an_eus_jump_strands_what_minor_by_minor_does_not(tmp_path: Path) -> None:
    """1.0.0 leaves v4.20; on v4.19 the operator upgrades to 1.1.0, which v4.20 has."""
    configs = _mini(tmp_path, [("1.0.0", "v4.18, v4.19"), ("1.1.0", "v4.19, v4.20")])
    matrix = upgrade_matrix(configs, _EDGES)
    assert _row(matrix, "v4.18", "v4.19", "1.0.0").reaches == "1.1.0"
    assert _row(matrix, "v4.19", "v4.20", "1.1.0").reaches == "1.1.0"
    eus = _row(matrix, "v4.18", "v4.20", "1.0.0")
    assert eus.stranded and eus.why.startswith("not in the v4.20 catalog")
    assert [(r.version, r.stranded) for r in next(u for u in matrix if u.kind == "eus").rows] == [
        ("1.0.0", True)
    ]


def test_minor_by_minor_strands_what_an_eus_jump_does_not(tmp_path: Path) -> None:
    """1.0.0 skips v4.19 (its catalogs are v4.18 and v4.20): the EUS jump keeps it, v4.19 strands it."""
    configs = _mini(tmp_path, [("1.0.0", "v4.18, v4.20"), ("1.1.0", "v4.19, v4.20")])
    matrix = upgrade_matrix(configs, _EDGES)
    assert _row(matrix, "v4.18", "v4.20", "1.0.0").reaches == "1.1.0"
    minor = _row(matrix, "v4.18", "v4.19", "1.0.0")
    assert minor.stranded and minor.why.startswith("not in the v4.19 catalog")


@pytest.mark.parametrize("block", [True, False])
def test_a_bundle_that_blocks_the_cluster_upgrade_is_not_stranded(tmp_path: Path, block: bool) -> None:
    configs = _mini(tmp_path, [("1.0.0", "v4.18, v4.19")], block=block)
    catalogs = [*sorted(configs.items()), ("v4.20", DeclarativeConfig())]
    stranded = [s.version for s in find_strandings(catalogs, [("v4.19", "v4.20"), ("v4.18", "v4.20")])]
    assert stranded == ([] if block else ["1.0.0", "1.0.0"])
    matrix = upgrade_matrix(dict(catalogs), _EDGES)
    rows = [(u.source, u.target, r.blocked, r.stranded) for u in matrix for r in u.rows]
    assert (("v4.19", "v4.20", True, False) in rows) is block


# ---------------------------------------------------------------- absurd numbers (issue 23), never a traceback


def test_version_parsers_bound_the_digits_before_int() -> None:
    """Python's int() refuses more than 4,300 digits with a bare ValueError; the parsers refuse first."""
    from releasekit.model.stream import openshift_versions_label_form
    from releasekit.model.version import RangeError, VersionError, parse_range, parse_version

    huge = "7" * 5001
    for text in (f"v4.{huge}", f"v{huge}.18"):
        with pytest.raises(ValueError, match="at most 9 digits") as caught:
            V(text)
        assert len(str(caught.value)) < 200  # the message names the text, cut short
    assert V("v4.999999999") == OpenShiftVersion(major=4, minor=999_999_999)
    for text in ("v4.18\n", "v\u0664.\u0661\u0668", " v4.18"):  # a trailing newline, Arabic-Indic digits
        with pytest.raises(ValueError, match="not an OpenShift version of the form"):
            V(text)
    # blang semver (uint64) and Go's strconv: out of range, in Go's words
    for text in (f"1.2.{huge}", f"1.{huge}.0", f"1.2.3-{huge}", f"1.2.{'0' * 5000}"):
        with pytest.raises(VersionError):
            parse_version(text)
    with pytest.raises(VersionError, match="value out of range"):
        parse_version(f"1.2.{huge}")
    assert parse_version("1.2.18446744073709551615").patch == 2**64 - 1
    with pytest.raises(VersionError, match="value out of range"):
        parse_version("1.2.18446744073709551616")
    for text in (f">=1.2.{huge}", f"1.{huge}.x", f">1.{huge}.x", f"<={huge}.x"):
        with pytest.raises(RangeError):
            parse_range(text)
    assert openshift_versions_label_form(f"v4.18-v4.{huge}") is None
    assert openshift_versions_label_form(f"v4.{huge}") is None
    assert openshift_versions_label_form("v4.18\n") is None
    from releasekit.model.inventory import line_of_version

    assert line_of_version(f"v0.{huge}.0") is None and line_of_version("v\u0660.\u0661\u0669.0") is None
    assert line_of_version("v0.19.0-devel-19-g982b8b02") == "0.19"


def test_a_5001_digit_kueue_pin_in_a_stream_is_no_traceback(tmp_path: Path) -> None:
    from releasekit.jobs.streams_validate import validate_streams

    streams = tmp_path / "streams"
    shutil.copytree(REPO_ROOT / "streams", streams)
    stable = streams / "stable.yaml"
    text = stable.read_text()
    pin = "      describe: v0.19.0-devel-19-g982b8b02\n"
    assert pin in text
    stable.write_text(text.replace(pin, f"      describe: v0.{'1' * 5001}.0\n", 1))
    _, report = validate_streams(streams, display_root="streams")  # the describe's line was int()-ed
    assert any(f.rule == "RK-STREAM-030" for f in report.findings)


def test_build_and_check_report_a_5001_digit_lifecycle_version_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from releasekit.cli import cli
    from tests.cli.test_build_published import init_repo

    root = init_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    lifecycle = root / "streams" / "openshift" / "lifecycle.yaml"
    text = lifecycle.read_text()
    lifecycle.write_text(text.replace("versions: [v4.18,", f"versions: [v4.18, v4.{'3' * 5001},", 1))
    line = text[: text.index("versions: [v4.18,")].count("\n") + 1
    for args in (["build", "--check"], ["check", "--base", "HEAD"]):
        result = CliRunner().invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
        assert result.exit_code == 1, result.output
        found = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "RK-STREAM-012"]
        assert [(f["location"]["file"], f["location"]["line"]) for f in found] == [
            ("streams/openshift/lifecycle.yaml", line)
        ]
        assert "at most 9 digits" in found[0]["message"]


def test_a_lifecycle_version_with_a_trailing_newline_is_a_schema_finding(tmp_path: Path) -> None:
    streams = _streams_with(
        tmp_path,
        """\
        schema: releasekit/openshift-lifecycle/v1
        versions: [v4.18, "v4.19\\n"]
        """,
    )
    lifecycle, findings = load_lifecycle(streams, display_root="streams")
    assert lifecycle is None
    assert [(f.rule, f.location.line, f.location.path) for f in findings] == [
        ("RK-STREAM-001", 2, "$.versions[1]")
    ]
    assert "'v4.19\\n'" in findings[0].message  # the newline is shown escaped


def test_a_duplicate_key_in_the_lifecycle_is_a_finding_as_in_every_streams_file(tmp_path: Path) -> None:
    (tmp_path / "openshift").mkdir()
    (tmp_path / "openshift" / "lifecycle.yaml").write_text("versions: [v4.18]\nversions: [v4.19]\n")
    lifecycle, findings = load_lifecycle(tmp_path, display_root="streams")
    assert lifecycle is None
    assert [(f.rule, f.location.file, f.location.line) for f in findings] == [
        ("RK-STREAM-002", "streams/openshift/lifecycle.yaml", 2)
    ]
