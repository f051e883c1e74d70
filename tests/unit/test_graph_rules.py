"""Every ``RK-GRAPH-NNN`` rule of :mod:`releasekit.rules.graph`, one small catalog each, plus the real history.

Each case starts from a sound package (one channel per minor, every bundle reaching the default head),
changes one thing, and asserts that exactly that rule fires; the sound baseline proves the rule is what
catches it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from releasekit.jobs.catalog_build import CatalogBuild, build_catalogs
from releasekit.model.fbc import Bundle, Channel, ChannelEntry, DeclarativeConfig, Package, Property
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.graph import EdgeKind, Stranding
from releasekit.model.stream import CrossMinor
from releasekit.rules.fbc import validate_config
from releasekit.rules.graph import (
    DEFAULT_POLICY,
    RULES,
    GraphPolicy,
    analyze_config,
    analyze_package,
    check_graph,
    check_openshift_upgrades,
    find_strandings,
    published_pairs,
    published_severity,
)
from tests.conftest import REPO_ROOT

LOC = Location(file="catalog.json", line=1)


def e(name: str, replaces: str = "", skips: tuple[str, ...] = (), skip_range: str = "") -> ChannelEntry:
    return ChannelEntry(
        name=f"p.v{name}",
        replaces=replaces and f"p.v{replaces}",
        skips=tuple(f"p.v{s}" for s in skips),
        skip_range=skip_range,
    )


def b(version: str, group: str = "example.com") -> Bundle:
    return Bundle(
        name=f"p.v{version}",
        package="p",
        image=f"quay.io/example/p-bundle:v{version}",
        properties=(
            Property(type="olm.gvk", value={"group": group, "kind": "K", "version": "v1"}),
            Property(type="olm.package", value={"packageName": "p", "version": version}),
        ),
        location=Location(file="catalog.json", line=100),
    )


def config(
    channels: Mapping[str, Sequence[ChannelEntry]],
    default: str,
    groups: Mapping[str, str] | None = None,
    located: bool = True,
) -> DeclarativeConfig:
    names = sorted({entry.name.removeprefix("p.v") for entries in channels.values() for entry in entries})
    bundles = tuple(b(v, (groups or {}).get(v, "example.com")) for v in names)
    return DeclarativeConfig(
        packages=(Package(name="p", default_channel=default, location=LOC if located else Location()),),
        channels=tuple(
            Channel(name=n, package="p", entries=tuple(es), location=LOC if located else Location())
            for n, es in channels.items()
        ),
        bundles=bundles if located else tuple(replace(x, location=Location()) for x in bundles),
    )


# A sound package: 1.0 → 1.1 → 1.2 (replace-previous-minor style), a skipRange on 1.2.1.
SOUND = {
    "stable-v1.0": [e("1.0.0"), e("1.0.1", skips=("1.0.0",))],
    "stable-v1.1": [e("1.1.0", replaces="1.0.1", skips=("1.0.0",))],
    "stable-v1.2": [e("1.2.0"), e("1.2.1", replaces="1.1.0", skips=("1.0.0", "1.0.1", "1.2.0"))],
}


def non_info(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is not Severity.INFO]


def test_sound_package_has_no_finding_and_every_bundle_reaches_the_head() -> None:
    cfg = config(SOUND, "stable-v1.2")
    assert validate_config(cfg) == ()
    assert check_graph(cfg) == ()
    graph = analyze_package(cfg, "p")
    assert graph is not None and graph.default_head == "p.v1.2.1"
    assert [(r.version, r.reachable, r.path) for r in graph.reachability] == [
        ("1.0.0", True, ("p.v1.0.0", "p.v1.2.1")),
        ("1.0.1", True, ("p.v1.0.1", "p.v1.2.1")),  # 1.2.1 skips it: the shortest path
        ("1.1.0", True, ("p.v1.1.0", "p.v1.2.1")),
        ("1.2.0", True, ("p.v1.2.0", "p.v1.2.1")),
        ("1.2.1", True, ("p.v1.2.1",)),
    ]


def _islands() -> dict[str, list[ChannelEntry]]:
    return {
        "stable-v1.0": [e("1.0.0"), e("1.0.1", skips=("1.0.0",))],
        "stable-v1.1": [e("1.1.0")],
    }


CASES: list[
    tuple[str, Mapping[str, Sequence[ChannelEntry]], str, GraphPolicy, Mapping[str, str], str, Severity, str]
] = [
    # (id, channels, default, policy, groups, rule, severity, message part)
    (
        "error/edge-to-lower-version",
        {**SOUND, "stable-v1.1": [e("1.1.0", replaces="1.0.1", skips=("1.0.0", "1.2.0"))]},
        "stable-v1.2",
        DEFAULT_POLICY,
        {},
        "RK-GRAPH-001",
        Severity.ERROR,
        'bundle "p.v1.1.0" (1.1.0) skips "p.v1.2.0" (1.2.0): an upgrade edge to a lower version',
    ),
    (
        "error/skip-range-covers-a-higher-version",
        {**SOUND, "stable-v1.1": [e("1.1.0", replaces="1.0.1", skips=("1.0.0",), skip_range="<1.2.1")]},
        "stable-v1.2",
        DEFAULT_POLICY,
        {},
        "RK-GRAPH-001",
        Severity.ERROR,
        'bundle "p.v1.1.0" (1.1.0) skipRange covers "p.v1.2.0" (1.2.0): an upgrade edge to a lower version',
    ),
    (
        "warning/replaces-names-nothing",
        {**SOUND, "stable-v1.0": [e("1.0.0", replaces="0.9.0"), e("1.0.1", skips=("1.0.0",))]},
        "stable-v1.2",
        DEFAULT_POLICY,
        {},
        "RK-GRAPH-002",
        Severity.WARNING,
        'bundle "p.v1.0.0" replaces "p.v0.9.0", which is no bundle of package "p": the replaces chain of '
        'channel "stable-v1.0" ends in nothing',
    ),
    (
        "error/edge-across-api-group-change",
        SOUND,
        "stable-v1.2",
        DEFAULT_POLICY,
        {"1.0.0": "old.example.com"},
        "RK-GRAPH-003",
        Severity.ERROR,
        'skips "p.v1.0.0" across a change of the owned API group (old.example.com -> example.com)',
    ),
    (
        "error/edge-across-streams",
        SOUND,
        "stable-v1.2",
        GraphPolicy(
            stream_of={"p.v1.0.0": "tp", **{f"p.v{v}": "ga" for v in ("1.0.1", "1.1.0", "1.2.0", "1.2.1")}}
        ),
        {},
        "RK-GRAPH-004",
        Severity.ERROR,
        '(stream "ga") skips "p.v1.0.0" (stream "tp"): an edge across streams',
    ),
    (
        "info/declared-island",
        _islands(),
        "stable-v1.1",
        GraphPolicy(islands_declared=True),
        {},
        "RK-GRAPH-005",
        Severity.INFO,
        'bundle "p.v1.0.1" cannot reach "p.v1.1.0", the head of default channel "stable-v1.1": channel '
        '"stable-v1.0" is an island, as the policy declares (cross-minor: none)',
    ),
    (
        "warning/undeclared-island",
        _islands(),
        "stable-v1.1",
        DEFAULT_POLICY,
        {},
        "RK-GRAPH-006",
        Severity.WARNING,
        'bundle "p.v1.0.1" cannot reach "p.v1.1.0", the head of default channel "stable-v1.1": channel '
        '"stable-v1.0" has no edge into the rest of the package',
    ),
    (
        "info/major-boundary",
        {"stable-v0.9": [e("0.9.0")], "stable-v1.0": [e("1.0.0")]},
        "stable-v1.0",
        DEFAULT_POLICY,
        {},
        "RK-GRAPH-007",
        Severity.INFO,
        "it is of major version 0 and nothing upgrades across a major (to 1)",
    ),
    (
        "info/stream-boundary",
        _islands(),
        "stable-v1.1",
        GraphPolicy(stream_of={"p.v1.0.0": "tp", "p.v1.0.1": "tp", "p.v1.1.0": "ga"}),
        {},
        "RK-GRAPH-008",
        Severity.INFO,
        "it belongs to another stream than the head",
    ),
    (
        "info/api-group-break",
        {"stable-v0.1": [e("0.1.0")], "stable-v0.2": [e("0.2.0")]},
        "stable-v0.2",
        DEFAULT_POLICY,
        {"0.1.0": "old.example.com"},
        "RK-GRAPH-009",
        Severity.INFO,
        "it owns API group old.example.com and the head owns example.com; no edge may cross that change",
    ),
]


@pytest.mark.parametrize(
    ("channels", "default", "policy", "groups", "rule", "severity", "message"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_rule(
    channels: Mapping[str, Sequence[ChannelEntry]],
    default: str,
    policy: GraphPolicy,
    groups: Mapping[str, str],
    rule: str,
    severity: Severity,
    message: str,
) -> None:
    findings = check_graph(config(channels, default, groups), policy)
    fired = [f for f in findings if f.rule == rule]
    assert fired, findings
    assert any(message in f.message for f in fired), [f.message for f in fired]
    assert all(f.severity is severity for f in fired)
    assert {f.rule for f in findings} == {rule}, findings
    for f in fired:
        assert f.hint == RULES[rule].hint
        assert f.subject[0] == 'package "p"' and f.subject[-1].startswith('bundle "p.v')
        assert f.location.file == "catalog.json"


def test_edge_findings_point_at_the_edge() -> None:
    channels = {**SOUND, "stable-v1.1": [e("1.1.0", replaces="1.0.1", skips=("1.0.0", "1.2.0"))]}
    (finding,) = check_graph(config(channels, "stable-v1.2"))
    assert finding.location == Location(file="catalog.json", line=1, path="$.entries[0].skips[1]")
    assert finding.subject == ('package "p"', 'channel "stable-v1.1"', 'bundle "p.v1.1.0"')


def test_generated_configs_point_at_the_catalog_file_given() -> None:
    findings = check_graph(
        config(_islands(), "stable-v1.1", located=False), file="catalog/v4.18/configs/p/catalog.json"
    )
    assert {(f.location.file, f.location.line, f.location.path) for f in findings} == {
        ("catalog/v4.18/configs/p/catalog.json", None, "$.entries[0]"),
        ("catalog/v4.18/configs/p/catalog.json", None, "$.entries[1]"),
    }


def test_a_bundle_in_the_island_whose_upgrades_end_early_says_where() -> None:
    findings = check_graph(config(_islands(), "stable-v1.1"), GraphPolicy(islands_declared=True))
    first = next(f for f in findings if f.subject[-1] == 'bundle "p.v1.0.0"')
    assert '(its upgrades end at "p.v1.0.1")' in first.message


def test_skip_range_is_an_edge_that_reaches_the_head() -> None:
    channels = {**_islands(), "stable-v1.1": [e("1.1.0", skip_range=">=1.0.0 <1.1.0")]}
    cfg = config(channels, "stable-v1.1")
    assert validate_config(cfg) == ()
    assert check_graph(cfg) == ()
    graph = analyze_package(cfg, "p")
    assert graph is not None
    assert [(x.source, x.kind) for x in graph.edges if x.target == "p.v1.1.0"] == [
        ("p.v1.0.0", EdgeKind.SKIP_RANGE),
        ("p.v1.0.1", EdgeKind.SKIP_RANGE),
    ]
    assert all(r.reachable for r in graph.reachability)


def test_no_single_default_head_leaves_reachability_to_opm() -> None:
    channels = {"stable-v1.0": [e("1.0.0"), e("1.0.1")]}
    cfg = config(channels, "stable-v1.0")
    assert check_graph(cfg) == ()
    (graph,) = analyze_config(cfg)
    assert graph.default_head is None and not any(r.reachable for r in graph.reachability)


def test_policy_from_stream() -> None:
    build = _build(None)
    stream = next(s for s in build.loaded.streams if s.name == "stable")
    policy = GraphPolicy.from_stream(stream)
    assert policy.islands_declared
    assert (
        policy.api_group_of is not None
        and policy.api_group_of["kueue-operator.v0.1.0"] == "operator.openshift.io"
    )
    assert policy.api_group_of["kueue-operator.v1.4.1"] == "kueue.openshift.io"


def test_every_rule_is_documented() -> None:
    from releasekit.jobs.rule_docs import all_rule_docs

    assert sorted(RULES) == [f"RK-GRAPH-{n:03d}" for n in range(1, 11)]
    docs = all_rule_docs()
    for rule in RULES.values():
        assert (docs[rule.id].title, docs[rule.id].severity) == (rule.title, rule.severity)


# ------------------------------------------------------------------------------ across OpenShift


def _two(
    old: Mapping[str, Sequence[ChannelEntry]], new: Mapping[str, Sequence[ChannelEntry]]
) -> list[tuple[str, DeclarativeConfig]]:
    return [("v4.18", config(old, max(old))), ("v4.19", config(new, max(new)))]


def test_dropped_bundle_without_edge_is_stranded() -> None:
    catalogs = _two(_islands(), {"stable-v1.1": [e("1.1.0")]})
    assert find_strandings(catalogs) == (
        Stranding(
            package="p", bundle="p.v1.0.0", version="1.0.0", openshift_from="v4.18", openshift_to="v4.19"
        ),
        Stranding(
            package="p", bundle="p.v1.0.1", version="1.0.1", openshift_from="v4.18", openshift_to="v4.19"
        ),
    )
    finding = check_openshift_upgrades(catalogs)[0]
    assert finding.rule == "RK-GRAPH-010" and finding.severity is Severity.WARNING
    assert finding.message == (
        'bundle "p.v1.0.0" is in the v4.18 catalog but not in v4.19, and no bundle there upgrades from it: '
        "a cluster upgraded from v4.18 to v4.19 strands it"
    )
    assert "keep the bundle in the v4.19 catalog" in finding.hint and "1.0.0" in finding.hint


@pytest.mark.parametrize(
    "new",
    [
        {"stable-v1.1": [e("1.1.0", replaces="1.0.1", skips=("1.0.0",))]},
        {"stable-v1.1": [e("1.1.0", skip_range="<1.1.0")]},
        {**_islands(), "stable-v1.1": [e("1.1.0")]},
    ],
    ids=["edges", "skip-range", "kept"],
)
def test_an_edge_or_the_bundle_itself_on_the_next_version_is_enough(
    new: Mapping[str, Sequence[ChannelEntry]],
) -> None:
    assert find_strandings(_two(_islands(), new)) == ()


def test_severity_callback_makes_new_strandings_errors() -> None:
    catalogs = _two(_islands(), {"stable-v1.1": [e("1.1.0")]})
    known = published_pairs(catalogs)
    assert {f.severity for f in check_openshift_upgrades(catalogs, severity=published_severity(known))} == {
        Severity.WARNING
    }
    # v4.19 published with 1.0.1 and now without it: a removal is new
    was = known | {("p.v1.0.1", "v4.19")}
    levels = {
        f.subject[-1]: f.severity
        for f in check_openshift_upgrades(catalogs, severity=published_severity(was))
    }
    assert levels == {'bundle "p.v1.0.0"': Severity.WARNING, 'bundle "p.v1.0.1"': Severity.ERROR}
    # a brand-new catalog that drops bundles is new as well
    only_old = frozenset(p for p in known if p[1] == "v4.18")
    assert {
        f.severity for f in check_openshift_upgrades(catalogs, severity=published_severity(only_old))
    } == {Severity.ERROR}


def test_location_falls_back_to_the_catalog_file() -> None:
    catalogs = [
        ("v4.18", config(_islands(), "stable-v1.1", located=False)),
        ("v4.19", config({"stable-v1.1": [e("1.1.0")]}, "stable-v1.1", located=False)),
    ]
    findings = check_openshift_upgrades(catalogs, files={"v4.18": "catalog/v4.18/configs/p/catalog.json"})
    assert {f.location.file for f in findings} == {"catalog/v4.18/configs/p/catalog.json"}


# ------------------------------------------------------------------------------------ real history

_BUILDS: dict[CrossMinor | None, CatalogBuild] = {}


def _build(cross_minor: CrossMinor | None) -> CatalogBuild:
    if cross_minor not in _BUILDS:
        _BUILDS[cross_minor] = build_catalogs(
            REPO_ROOT / "streams", REPO_ROOT / "bundle-templates", cross_minor=cross_minor
        )
    return _BUILDS[cross_minor]


def _kueue(build: CatalogBuild) -> list[tuple[str, DeclarativeConfig]]:
    return [(str(f.openshift), dict(f.packages)["kueue-operator"]) for f in build.fragments]


def test_real_history_strandings_across_openshift_versions() -> None:
    findings = check_openshift_upgrades(_kueue(_build(None)))
    assert {f.severity for f in findings} == {Severity.WARNING}
    got = sorted((s.openshift_from, s.openshift_to, s.version) for s in find_strandings(_kueue(_build(None))))
    assert got == [
        ("v4.19", "v4.20", "0.1.0"),
        ("v4.19", "v4.20", "0.2.0"),
        ("v4.19", "v4.20", "0.2.1"),
        ("v4.19", "v4.20", "1.0.0"),
        ("v4.19", "v4.20", "1.0.1"),
        # the issue names the two cases above and below; these three follow from the same rule, since
        # the later catalogs neither keep the bundle nor carry an edge from it:
        ("v4.20", "v4.21", "1.1.0"),
        ("v4.21", "v4.22", "1.2.0"),
        ("v4.21", "v4.22", "1.3.0"),
        ("v4.22", "v4.23", "1.3.1"),
        ("v4.22", "v4.23", "1.4.0"),
    ]
    # everything is already published: the repository's own build stays clean
    published = published_pairs(_kueue(_build(None)))
    assert not [
        f
        for f in check_openshift_upgrades(_kueue(_build(None)), severity=published_severity(published))
        if f.severity is Severity.ERROR
    ]


@pytest.mark.parametrize("cross_minor", [CrossMinor.NONE, CrossMinor.REPLACE_PREVIOUS_MINOR])
def test_real_history_builds_clean_under_its_policy(cross_minor: CrossMinor) -> None:
    build = _build(cross_minor)
    stream = next(s for s in build.loaded.streams if s.name == "stable")
    policy = replace(GraphPolicy.from_stream(stream), islands_declared=cross_minor is CrossMinor.NONE)
    for openshift, cfg in _kueue(build):
        findings = check_graph(cfg, policy)
        assert non_info(findings) == [], (openshift, findings)
        graph = analyze_package(cfg, "kueue-operator", policy)
        assert graph is not None
        unreachable = {r.version: r.reason for r in graph.reachability if not r.reachable}
        if cross_minor is CrossMinor.REPLACE_PREVIOUS_MINOR:
            assert set(unreachable.values()) <= {"RK-GRAPH-007"}, unreachable  # only 0.x: another major
        else:
            assert set(unreachable.values()) <= {"RK-GRAPH-005", "RK-GRAPH-007"}, unreachable
    v418 = analyze_package(_kueue(build)[0][1], "kueue-operator", policy)
    assert v418 is not None
    reasons = {r.version: r.reason for r in v418.reachability}
    assert reasons["0.1.0"] == reasons["0.2.1"] == "RK-GRAPH-007"
    assert reasons["1.4.0"] is None and reasons["1.4.1"] is None
    if cross_minor is CrossMinor.NONE:
        assert reasons["1.3.1"] == "RK-GRAPH-005"


def test_the_edge_opm_gets_wrong_is_reported() -> None:
    """opm's semver template writes 0.2.1 replaces 0.1.0 across the API-group change (v4.18, v4.19)."""
    build = _build(CrossMinor.REPLACE_PREVIOUS_MINOR)
    stream = next(s for s in build.loaded.streams if s.name == "stable")
    cfg = _kueue(build)[0][1]
    channels = tuple(
        replace(c, entries=(c.entry_list[0], replace(c.entry_list[1], replaces="kueue-operator.v0.1.0")))
        if c.name == "stable-v0.2"
        else c
        for c in cfg.channels
    )
    findings = check_graph(replace(cfg, channels=channels), GraphPolicy.from_stream(stream))
    (bad,) = [f for f in findings if f.severity is Severity.ERROR]
    assert bad.rule == "RK-GRAPH-003"
    assert 'replaces "kueue-operator.v0.1.0" across a change of the owned API group' in bad.message


def test_gvk_properties_give_the_api_group_without_a_policy() -> None:
    cfg = _kueue(_build(None))[0][1]
    graph = analyze_package(cfg, "kueue-operator")
    assert graph is not None
    groups = {n.name: n.api_groups for n in graph.nodes}
    assert groups["kueue-operator.v0.1.0"] == ("operator.openshift.io",)
    assert groups["kueue-operator.v0.2.0"] == ("kueue.openshift.io",)


def test_reachability_of_catalog_loaded_from_disk_uses_bundle_locations(tmp_path: Path) -> None:
    from releasekit.io.fbc_load import load_catalog

    build = _build(None)
    for rel, data in build.files.items():
        if rel.parts[0] == "v4.18":
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_bytes(data)
    loaded = load_catalog(tmp_path / "v4.18" / "configs")
    findings = check_graph(loaded.config, GraphPolicy(islands_declared=True))
    assert findings and all(f.location.file.endswith("catalog.json") and f.location.line for f in findings)
    assert all(f.location.path == "$.name" for f in findings)
