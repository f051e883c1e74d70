"""``releasekit release notes VERSION`` and ``streams map --released-only``, on this repository's streams/."""

from __future__ import annotations

import json
import re
import shutil
import string
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import Result
from hypothesis import given
from hypothesis import strategies as st

from releasekit.io.streams import load_streams
from releasekit.jobs.release_notes import (
    build_notes,
    inventory_for,
    markdown_code,
    markdown_text,
    render_json,
    render_markdown,
    visible,
)
from releasekit.model.inventory import (
    Crd,
    CrdVersion,
    FeatureGate,
    GateStage,
    Inventory,
    InventorySource,
    Maturity,
)
from releasekit.model.stream import Release, ReleaseStatus
from tests.conftest import REPO_ROOT

STREAMS = REPO_ROOT / "streams"


def _pin(release: Release) -> str:
    """How the notes name a release's Kueue: its line and, where known, its pin (from streams/, not copied)."""
    pin = release.upstream.describe or release.upstream.tag or release.upstream.commit
    return f"{release.upstream.line} ({pin})" if pin else release.upstream.line


def test_notes_of_1_4_0(run_line: Callable[..., Result]) -> None:
    loaded = load_streams(STREAMS)
    (stable,) = [s for s in loaded.streams if s.name == "stable"]
    this = next(r for r in stable.releases if str(r.version) == "1.4.0")
    before = max((r for r in stable.releases if r.version < this.version), key=lambda r: r.version)
    result = run_line(["release", "notes", "1.4.0", "--streams-dir", STREAMS])
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert text.startswith(f"## {stable.package} 1.4.0\n")
    assert f"- this release: Kueue {_pin(this)}\n" in text
    assert f"- previous release ({before.version}): Kueue {_pin(before)}\n" in text
    assert f"- operator: `{this.images.operator}`" in text and "@sha256:" in this.images.operator
    assert f"- bundle: `{this.bundle_image}`" in text
    assert f"- {', '.join(str(c) for c in this.catalogs)}\n" in text
    for gate in this.opt_in_gates:
        assert f"- opt-in: {gate.gate} when {markdown_text(gate.config_field)} is used" in text
    # gates between the two inventories, read from streams/upstream
    old = inventory_for(before, loaded.inventories)
    new = inventory_for(this, loaded.inventories)
    assert old is not None and new is not None
    added = sorted({g.name for g in new.gates} - {g.name for g in old.gates})
    removed = sorted({g.name for g in old.gates} - {g.name for g in new.gates})
    assert all(f"- added: {name} (" in text for name in added)
    assert all(f"- removed: {name} (" in text for name in removed)
    data = json.loads(
        run_line(["release", "notes", "1.4.0", "--streams-dir", STREAMS, "--format", "json"]).stdout
    )
    assert data["schema"] == "releasekit/release-notes/v1"
    assert data["previous"] == {"version": str(before.version), "kueue": _pin(before)}
    assert [g["name"] for g in data["featureGates"]["added"]] == added
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


# ---------------------------------------------------------------------------- hostile input (issue 23)


def _streams_copy(tmp_path: Path, edit: Callable[[str], str]) -> Path:
    """A copy of this repository's streams/ whose stable.yaml ``edit`` rewrites."""
    streams = tmp_path / "streams"
    shutil.copytree(STREAMS, streams)
    stable = streams / "stable.yaml"
    text = stable.read_text()
    edited = edit(text)
    assert edited != text
    stable.write_text(edited)
    return streams


_RELEASE_1_4_0 = "  - version: 1.4.0\n    status: released\n"


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (lambda t: t.replace(_RELEASE_1_4_0, _RELEASE_1_4_0 + "    bogus: 1\n", 1), "RK-STREAM-001"),
        (
            lambda t: t.replace(
                "    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v5.0]\n",
                "    catalogs: [v4.18, v4.019, v4.20, v4.21, v4.22, v5.0]\n",
                1,
            ),
            "RK-STREAM-012",
        ),
        (lambda t: t.replace("  - version: 1.4.1\n", "  - version: 1.4.01\n", 1), "RK-STREAM-003"),
    ],
    ids=["unknown-key", "openshift-version", "another-release"],
)
def test_notes_refuse_streams_with_loading_errors(
    run_line: Callable[..., Result], tmp_path: Path, edit: Callable[[str], str], rule: str
) -> None:
    """As `streams show` and `streams map`: the loading findings on stderr, exit 1, no notes."""
    streams = _streams_copy(tmp_path, edit)
    for fmt in ("markdown", "json"):
        result = run_line(["release", "notes", "1.4.0", "--streams-dir", streams, "--format", fmt])
        assert result.exit_code == 1, result.stdout + result.stderr
        assert result.stdout == ""
        assert f"error {rule}: {streams}/stable.yaml:" in result.stderr
        assert "release notes: failed" in result.stderr


_PUNCT = frozenset(string.punctuation)
_SPECIAL = frozenset("\\`*_[]|~#<>\n\r")


def _decode_text(markdown: str) -> str:
    """What Markdown inline text renders as, for the escapes markdown_text writes; fails on any
    character that would be markup there (an unescaped ``[``, ``<``, backtick, ``|``, newline, ...)."""
    out: list[str] = []
    i = 0
    while i < len(markdown):
        ch = markdown[i]
        if ch == "\\" and i + 1 < len(markdown) and markdown[i + 1] in _PUNCT:
            out.append(markdown[i + 1])
            i += 2
            continue
        if ch == "&":
            entity = next(e for e in ("&lt;", "&gt;", "&amp;") if markdown.startswith(e, i))
            out.append({"&lt;": "<", "&gt;": ">", "&amp;": "&"}[entity])
            i += len(entity)
            continue
        assert ch not in _SPECIAL, (markdown, i)
        out.append(ch)
        i += 1
    return "".join(out)


def _decode_code(markdown: str) -> str:
    """The content of one CommonMark code span (and that it is exactly one, closed where it ends)."""
    n = len(markdown) - len(markdown.lstrip("`"))
    fence = "`" * n
    assert n and markdown.endswith(fence) and len(markdown) > 2 * n and markdown[-n - 1] != "`"
    inner = markdown[n:-n]
    assert all(len(run) != n for run in re.findall("`+", inner)), markdown  # nothing closes it early
    assert "\n" not in inner and "\r" not in inner
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
        inner = inner[1:-1]
    return inner


@given(st.text())
def test_markdown_text_renders_as_the_visible_text(value: str) -> None:
    shown = visible(value)
    assert shown.isprintable()
    assert _decode_text(markdown_text(value)) == shown


@given(st.text(min_size=1))
def test_markdown_code_is_one_span_holding_the_visible_text(value: str) -> None:
    assert _decode_code(markdown_code(value)) == visible(value)


HOSTILE = "x|y\n## h1 <script>alert(1)</script> [a](javascript:alert(1)) <!-- c --> `tick` ``two`` \x1b[31m\u2028*b*"


def test_hostile_values_do_not_break_out_of_the_notes() -> None:
    """Description, images, version texts and gate names holding Markdown, HTML and control characters."""
    from releasekit.model.stream import ConditionalGate, GateSetting

    loaded = load_streams(STREAMS)
    (stable,) = [s for s in loaded.streams if s.name == "stable"]
    plain = render_markdown(build_notes(loaded.streams, loaded.inventories, "1.4.0"))

    def hostile(release: Release) -> Release:
        if str(release.version) != "1.4.0":
            return release
        return replace(
            release,
            upstream=replace(release.upstream, describe="v0.18.0" + HOSTILE, tag=None),
            images=replace(release.images, operator="`" + HOSTILE + "`"),
            deprecation_message=HOSTILE,
            gate_settings=(GateSetting(gate="G" + HOSTILE, enabled=True, reason=HOSTILE),),
            opt_in_gates=(ConditionalGate(gate=HOSTILE, config_field=HOSTILE, reason=HOSTILE),),
        )

    streams = tuple(
        replace(s, releases=tuple(hostile(r) for r in s.releases), name="st|able<b>")
        if s.name == "stable"
        else s
        for s in loaded.streams
    )
    notes = build_notes(streams, loaded.inventories, "1.4.0", "st|able<b>")
    text = render_markdown(notes)
    lines = text.splitlines()
    assert [line for line in lines if line.startswith("#")] == [
        line.replace("stable", "st|able<b>") for line in plain.splitlines() if line.startswith("#")
    ]
    assert "\x1b" not in text and "\u2028" not in text and "\r" not in text
    assert not any("<" in line for line in lines if not line.startswith("- operator: "))  # HTML only in code
    assert len(lines) == len(plain.splitlines()) + 1  # one more operator setting line, one line each
    for line in lines:
        if line.startswith("- operator: "):
            assert _decode_code(line.removeprefix("- operator: ")) == visible("`" + HOSTILE + "`")
        elif line and not line.startswith(("#", "Stream **", "- bundle: ", "- operand: ", "- mustGather: ")):
            _decode_text(line.removeprefix("- "))  # no markup in any value
    assert "Stream **st\\|able&lt;b&gt;**" in text
    assert f"- this release: Kueue 0.18 ({markdown_text('v0.18.0' + HOSTILE)})\n" in text
    assert stable.name == "stable"
    data = json.loads(render_json(notes))  # JSON needs no escaping beyond its own
    assert data["deprecations"][0].endswith(HOSTILE) and data["images"][1]["image"] == "`" + HOSTILE + "`"


def test_stream_names_in_messages_are_escaped(run_line: Callable[..., Result], tmp_path: Path) -> None:
    streams = tmp_path / "streams"
    shutil.copytree(STREAMS, streams)
    (streams / "stable.yaml").rename(streams / "st\x1b[2Jable.yaml")
    result = run_line(["release", "notes", "1.4.0", "--streams-dir", streams, "--stream", "x"])
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "'st\\x1b[2Jable'" in result.stderr


def test_a_version_past_uint64_is_in_no_skip_range() -> None:
    """semver (Python) reads any number; blang's parser (what opm and the skipRange use) stops at uint64."""
    import semver

    loaded = load_streams(STREAMS)
    (stable,) = [s for s in loaded.streams if s.name == "stable"]
    huge = semver.Version(1, 3, 10**25)
    releases = tuple(replace(r, version=huge) if str(r.version) == "1.3.0" else r for r in stable.releases)
    policy = replace(stable.upgrades, skip_range=">=1.0.0 <{version}")
    streams = tuple(
        replace(s, releases=releases, upgrades=policy) if s.name == "stable" else s for s in loaded.streams
    )
    notes = build_notes(streams, loaded.inventories, "1.4.0")
    assert "1.3.1" in notes.upgrades_from and str(huge) not in notes.upgrades_from


def test_map_markdown_cells_hold_hostile_values(run_line: Callable[..., Result], tmp_path: Path) -> None:
    """`streams map --format markdown` (the table pasted into release notes): one row per release still."""
    pin = "      describe: v0.19.0-devel-19-g982b8b02\n"
    streams = _streams_copy(
        tmp_path, lambda t: t.replace(pin, '      describe: "v0.19.0|x\\n## <b>[a](javascript:x)"\n', 1)
    )
    plain = run_line(["streams", "map", "--streams-dir", STREAMS, "--format", "markdown"])
    result = run_line(["streams", "map", "--streams-dir", streams, "--format", "markdown"])
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout.splitlines()) == len(plain.stdout.splitlines())
    (row,) = [line for line in result.stdout.splitlines() if "javascript" in line]
    assert row.count(" | ") == 4 and "<" not in row and "\\[a\\]" in row
    assert "v0.19.0\\|x\\\\n\\#\\# &lt;b&gt;" in row
