"""Properties of the pure record making of ``operator import`` (hypothesis).

- LABEL values split as ``shlex.split`` (POSIX) splits them, refusing what it refuses: the hand tokenizer
  that replaced it (shlex is quadratic on a long line) changes nothing else;
- the record is made from any CSV and manifest shapes without an exception: a field of another type is
  kept for the schema check to name, never a traceback.
"""

from __future__ import annotations

import contextlib
import shlex
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from releasekit.plan.operator_record import dockerfile_labels, make_record, substitute_related_images

WORDS = st.text(alphabet=st.sampled_from(list("ab= \t\"'\\#$")), max_size=30)
KEYS = "spec metadata annotations versions schema description owned customresourcedefinitions validation"
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS.split()), inner, max_size=4)
    ),
    max_leaves=20,
)


def _shlex_labels(args: str) -> list[tuple[str, str]] | None:
    try:
        parts = shlex.split(args)
    except ValueError:
        return None
    pairs = [part.partition("=") for part in parts]
    if any(not sep or not key for key, sep, _ in pairs):
        return None
    return [(key, value) for key, _, value in pairs]


@settings(max_examples=400, deadline=None)
@given(WORDS)
def test_labels_split_as_shlex_does(args: str) -> None:
    text = args.strip() + " z=z"  # not ending with a backslash (a continuation line)
    try:
        got: list[tuple[str, str]] | None = dockerfile_labels(f"LABEL {text}\n")
    except ValueError:
        got = None
    assert got == _shlex_labels(text)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["metadata", "spec", "kind"]), JSON), st.lists(JSON, max_size=3))
def test_any_shape_makes_a_record(csv: dict[str, Any], manifests: list[Any]) -> None:
    crds = [m if isinstance(m, dict) else {"spec": m} for m in manifests]
    others = [(f"m{i}.yaml", {**m, "kind": "CustomResourceDefinition"}) for i, m in enumerate(crds)]
    record = make_record(
        version="1.0.0",
        commit="0" * 40,
        csv_file="c.clusterserviceversion.yaml",
        csv=csv,
        manifests=others,
        annotations={},
        labels=[],
        substituted=[],
    )
    assert record["csvFile"] == "c.clusterserviceversion.yaml"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.text(max_size=120), st.text(max_size=40))
def test_the_substitution_refuses_only_with_value_error(csv: str, dockerfile: str, related: str) -> None:
    with contextlib.suppress(ValueError):
        substitute_related_images(csv, dockerfile, related, max_chars=1000)
