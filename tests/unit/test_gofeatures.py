"""The Go gate parser: generated files for every facts tag, and hand-written messy ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from releasekit.io.gofeatures import (
    GoFeaturesError,
    parse_kube_features,
    parse_versioned_feature_list,
)
from releasekit.model.inventory import FeatureGate, GateStage

TAGS = [
    "v0.10.6",
    "v0.11.9",
    "v0.12.10",
    "v0.13.10",
    "v0.14.8",
    "v0.15.8",
    "v0.16.9",
    "v0.17.8",
    "v0.18.6",
    "v0.19.2",
]


def _bool(value: bool) -> str:
    return "true" if value else "false"


def render_go(facts: dict[str, Any]) -> str:
    """A tidy ``kube_features.go`` for a facts file: flat for <= 0.10, versioned after."""
    gates = facts["gates"]
    flat = str(facts["source"]["fileFormat"]).startswith("flat")
    out = ["package features", "", "const ("]
    out += [f'\t{g["name"]} featuregate.Feature = "{g["name"]}"' for g in gates]
    out += [")", ""]
    if flat:
        out.append("var defaultFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{")
        for g in gates:
            lock = ", LockToDefault: true" if g["lockToDefault"] else ""
            out.append(
                f"\t{g['name']}: {{Default: {_bool(g['default'])}, PreRelease: featuregate.{g['stage']}{lock}}},"
            )
    else:
        out.append("var defaultVersionedFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{")
        for g in gates:
            out.append(f"\t{g['name']}: {{")
            for h in g["history"]:
                lock = ", LockToDefault: true" if h["lockToDefault"] else ""
                out.append(
                    f'\t\t{{Version: version.MustParse("{h["version"]}"), Default: {_bool(h["default"])}, '
                    f"PreRelease: featuregate.{h['stage']}{lock}}},"
                )
            out.append("\t},")
    out += ["}", ""]
    return "\n".join(out)


def expected_gates(facts: dict[str, Any]) -> tuple[FeatureGate, ...]:
    """The gates a facts file states, sorted by name."""
    return tuple(
        sorted(
            (
                FeatureGate(
                    name=g["name"],
                    stage=GateStage(g["stage"]),
                    default=g["default"],
                    lock_to_default=g["lockToDefault"],
                )
                for g in facts["gates"]
            ),
            key=lambda g: g.name,
        )
    )


@pytest.mark.parametrize("tag", TAGS)
def test_generated_go_round_trips_the_facts(shared: Callable[..., Path], tag: str) -> None:
    facts = yaml.safe_load(shared("kueue", tag, "kube_features.facts.yaml").read_text(encoding="utf-8"))
    assert parse_kube_features(render_go(facts)) == expected_gates(facts)


def test_upstream_versioned_feature_list_matches_the_facts(shared: Callable[..., Path]) -> None:
    facts = yaml.safe_load(shared("kueue", "v0.19.2", "kube_features.facts.yaml").read_text(encoding="utf-8"))
    text = shared("kueue", "v0.19.2", "versioned_feature_list.upstream.yaml").read_text(encoding="utf-8")
    assert parse_versioned_feature_list(text) == expected_gates(facts)


MESSY_FLAT = """
package features

import (
	"k8s.io/component-base/featuregate"
)

const (
	// owner: @someone
	// kep: https://example.invalid/kep/1234
	//
	// Enables partial admission.
	PartialAdmission featuregate.Feature = "PartialAdmission"

	/* a block comment with a fake entry:
		Fake featuregate.Feature = "Fake"
	*/
	QueueVisibility featuregate.Feature = "QueueVisibility" // trailing comment
)

const LockedOne featuregate.Feature = "LockedOne"

var defaultFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{
	// comment before an entry, with braces { and } and a colon: here
	PartialAdmission: {Default: true, PreRelease: featuregate.Beta},

	QueueVisibility: {
		PreRelease: featuregate.Deprecated, // "Deprecated" in a comment
		Default:    false,
	},
	LockedOne: featuregate.FeatureSpec{LockToDefault: true, Default: true, PreRelease: featuregate.GA},
}

// A second block, registered separately.
var moreGates = map[featuregate.Feature]featuregate.FeatureSpec{
	"QuotedGate": {Default: false, PreRelease: featuregate.Alpha, LockToDefault: false},
}
"""

MESSY_VERSIONED = """
package features

const (
	TopologyAwareScheduling featuregate.Feature = "TopologyAwareScheduling"
	HierarchicalCohorts     featuregate.Feature = "HierarchicalCohorts"
	LendingLimit featuregate.Feature = "LendingLimit"
)

var defaultVersionedFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	TopologyAwareScheduling: {
		{Version: version.MustParse("0.9"), Default: false, PreRelease: featuregate.Alpha},
		// promoted
		{
			Version:    version.MustParse("0.14"),
			Default:    true,
			PreRelease: featuregate.Beta,
		},
	},
	HierarchicalCohorts: {{Version: version.MustParse("0.11"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("0.16"), LockToDefault: true, Default: true, PreRelease: featuregate.GA}},
}

// Gates split over a second map in another block.
var extraVersionedGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	features.LendingLimit: {
		{Version: version.MustParse("0.6"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("0.16"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}, // locked
	},
}
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            MESSY_FLAT,
            (
                FeatureGate(name="LockedOne", stage=GateStage.GA, default=True, lock_to_default=True),
                FeatureGate(name="PartialAdmission", stage=GateStage.BETA, default=True),
                FeatureGate(name="QueueVisibility", stage=GateStage.DEPRECATED, default=False),
                FeatureGate(name="QuotedGate", stage=GateStage.ALPHA, default=False),
            ),
            id="flat/comments-split-lines-typed-literal-two-blocks",
        ),
        pytest.param(
            MESSY_VERSIONED,
            (
                FeatureGate(
                    name="HierarchicalCohorts", stage=GateStage.GA, default=True, lock_to_default=True
                ),
                FeatureGate(name="LendingLimit", stage=GateStage.GA, default=True, lock_to_default=True),
                FeatureGate(name="TopologyAwareScheduling", stage=GateStage.BETA, default=True),
            ),
            id="versioned/last-entry-applies-lock-either-position-two-blocks",
        ),
    ],
)
def test_messy_go_files(text: str, expected: tuple[FeatureGate, ...]) -> None:
    assert parse_kube_features(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("package features\n", "no map", id="error/no-map"),
        pytest.param(
            "var a = map[featuregate.Feature]featuregate.FeatureSpec{\n  A: {Default: true, PreRelease: featuregate.Beta},\n}\n"
            "var b = map[featuregate.Feature]featuregate.FeatureSpec{\n  A: {Default: true, PreRelease: featuregate.Beta},\n}\n",
            "declared twice",
            id="error/duplicate-gate",
        ),
        pytest.param(
            "var a = map[featuregate.Feature]featuregate.FeatureSpec{\n  A: {Default: maybe, PreRelease: featuregate.Beta},\n}\n",
            "Default must be true or false",
            id="error/bad-bool",
        ),
        pytest.param(
            "var a = map[featuregate.Feature]featuregate.FeatureSpec{\n  A: {Default: true, PreRelease: featuregate.Gamma},\n}\n",
            "unknown PreRelease",
            id="error/bad-stage",
        ),
        pytest.param(
            "var a = map[featuregate.Feature]featuregate.FeatureSpec{\n  A: {Default: true,\n",
            "unclosed",
            id="error/unclosed",
        ),
    ],
)
def test_bad_go_files_name_the_line(text: str, message: str) -> None:
    with pytest.raises(GoFeaturesError, match=message) as info:
        parse_kube_features(text, source="x.go")
    assert str(info.value).startswith("x.go")


def test_bad_feature_list() -> None:
    with pytest.raises(GoFeaturesError, match="expected a list"):
        parse_versioned_feature_list("a: 1\n")
    with pytest.raises(GoFeaturesError, match="missing or bad field"):
        parse_versioned_feature_list("- name: A\n  versionedSpecs: []\n")
