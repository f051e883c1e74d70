"""Property: for random histories spread over three OpenShift catalogs, the matrix agrees with RK-GRAPH-010.

Each release goes to a random non-empty subset of v4.18, v4.19, v4.20; the planner writes each catalog.
For every lifecycle edge (v4.18 → v4.19, v4.18 → v4.20 EUS, v4.19 → v4.20) the matrix's stranded rows are
exactly :func:`~releasekit.rules.graph.find_strandings`'s, every other row's path is a real upgrade path
in the target catalog that ends at the head it names, and no version is missing or repeated.
"""

from __future__ import annotations

from dataclasses import replace

import semver
from hypothesis import given, settings
from hypothesis import strategies as st

from releasekit.model.lifecycle import OpenShiftLifecycle
from releasekit.model.stream import CrossMinor, OpenShiftVersion
from releasekit.plan.catalog import plan_package
from releasekit.rules.graph import analyze_package, find_strandings
from releasekit.rules.upgrade_matrix import upgrade_matrix
from tests.unit.test_graph_hypothesis import csv, make_stream

OCPS = tuple(OpenShiftVersion(major=4, minor=m) for m in (18, 19, 20))
EDGES = OpenShiftLifecycle.build(OCPS, (OCPS[0], OCPS[2])).edges

releases = st.dictionaries(
    st.tuples(st.integers(1, 2), st.integers(0, 2), st.integers(0, 1)),
    st.sets(st.sampled_from(OCPS), min_size=1),
    min_size=1,
    max_size=7,
)


@settings(max_examples=60, deadline=None)
@given(history=releases, cross_minor=st.sampled_from([CrossMinor.NONE, CrossMinor.REPLACE_PREVIOUS_MINOR]))
def test_matrix_agrees_with_the_stranding_rule(
    history: dict[tuple[int, int, int], set[OpenShiftVersion]], cross_minor: CrossMinor
) -> None:
    versions = sorted(history)
    stream = make_stream(versions, cross_minor, None)
    stream = replace(
        stream,
        openshift=OCPS,
        releases=tuple(
            replace(r, catalogs=tuple(sorted(history[(r.version.major, r.version.minor, r.version.patch)])))
            for r in stream.releases
        ),
    )
    manifests = {str(r.version): csv(r) for r in stream.releases}
    configs = {}
    for ocp in OCPS:
        config = plan_package(stream, ocp, manifests)
        if config is not None:
            configs[str(ocp)] = config
    matrix = upgrade_matrix(configs, EDGES)
    pairs = [(str(e.source), str(e.target)) for e in EDGES]
    ordered = [(str(o), configs[str(o)]) for o in OCPS if str(o) in configs]
    expected = {(s.openshift_from, s.openshift_to, s.version) for s in find_strandings(ordered, pairs)}
    got = {(u.source, u.target, r.version) for u in matrix for r in u.rows if r.stranded}
    assert got == expected
    for upgrade in matrix:
        source = configs[upgrade.source]
        installable = sorted(str(semver.Version.parse(b.name.split(".v", 1)[1])) for b in source.bundles)
        assert sorted(r.version for r in upgrade.rows) == installable
        graph = analyze_package(configs[upgrade.target], "kueue-operator")
        assert graph is not None
        edges = {(e.source, e.target) for e in graph.edges}
        for row in upgrade.rows:
            if row.stranded:
                continue
            names = [f"kueue-operator.v{v}" for v in row.path]
            assert row.path[0] == row.version and row.path[-1] == row.reaches
            assert all((a, b) in edges for a, b in zip(names[1:], names[2:], strict=False))
            if len(names) > 1 and graph.node(names[0]) is not None:
                assert (names[0], names[1]) in edges
