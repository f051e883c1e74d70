"""The jsonschema-free validity check answers exactly as jsonschema's Draft 2020-12 validator.

Every shipped ``streams/`` file, and a deterministic sample of mutations of each (a key dropped, a value
replaced by one of every JSON type, an unknown key added), is judged by both; the verdicts must agree.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from releasekit.io._schema_subset import Undecided, compile_schema
from releasekit.io.yamlio import load_yaml_documents
from tests.conftest import REPO_ROOT

SCHEMAS = REPO_ROOT / "releasekit" / "schemas"
STREAMS = REPO_ROOT / "streams"
CASES = {
    "stream.schema.json": sorted(STREAMS.glob("*.yaml")),
    "stream-recorded.schema.json": sorted((STREAMS / "recorded").glob("*.yaml"))[:3],
    "inventory.schema.json": sorted((STREAMS / "upstream").glob("*.yaml"))[:2],
    "lifecycle.schema.json": [STREAMS / "openshift" / "lifecycle.yaml"],
    "operator-record.schema.json": sorted((STREAMS / "operator").glob("*.yaml"))[-1:],
}
VALUES: tuple[Any, ...] = (None, True, False, 0, 1, 1.0, 1.5, "", "x", "v4.18", "1.2.3")
VALUES += ([], ["x"], {}, {"x": "y"})
MUTATIONS_PER_FILE = 250


def _schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return schema


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _mutations(doc: Any, rng: random.Random) -> Iterator[Any]:
    paths = list(_paths(doc))
    for _ in range(MUTATIONS_PER_FILE):
        path = rng.choice(paths)
        mutated = copy.deepcopy(doc)
        parent = mutated
        for part in path[:-1]:
            parent = parent[part]
        action = rng.randrange(3)
        if action == 0:
            del parent[path[-1]]
        elif action == 1:
            parent[path[-1]] = copy.deepcopy(rng.choice(VALUES))
        elif isinstance(parent[path[-1]], dict):
            parent[path[-1]]["unknownKey"] = "x"
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(VALUES))
        yield mutated


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_shipped_schema_has_a_fast_check(name: str) -> None:
    assert compile_schema(_schema(name)) is not None


@pytest.mark.parametrize(
    ("name", "path"),
    [(name, path) for name, paths in sorted(CASES.items()) for path in paths],
    ids=[f"{name}/{path.name}" for name, paths in sorted(CASES.items()) for path in paths],
)
def test_verdicts_agree_on_files_and_mutations(name: str, path: Path) -> None:
    schema = _schema(name)
    check = compile_schema(schema)
    assert check is not None
    validator = jsonschema.Draft202012Validator(schema)
    doc = load_yaml_documents(path.read_text(encoding="utf-8"))[0].data
    assert check(doc) is True
    assert validator.is_valid(doc)
    rng = random.Random(f"{name}/{path.name}")
    verdicts = set()
    for mutated in _mutations(doc, rng):
        verdict = validator.is_valid(mutated)
        assert check(mutated) is verdict, json.dumps(mutated)[:500]
        verdicts.add(verdict)
    assert verdicts == {True, False}


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"type": "integer"}, 1.0),
        ({"type": "integer"}, 1.5),
        ({"type": "integer"}, True),
        ({"type": "number"}, False),
        ({"type": ["string", "null"]}, None),
        ({"enum": ["1"]}, 1),
        ({"const": "a"}, ["a"]),
        ({"minLength": 2}, 5),
        ({"minItems": 1}, []),
        ({"pattern": "^a"}, "ba"),
        ({"pattern": "b"}, "ab"),
        ({"items": False}, []),
        ({"items": False}, [1]),
        ({"additionalProperties": False, "properties": {"a": True}}, {"a": 1, 1: 2}),
        ({"additionalProperties": {"type": "string"}}, {"a": "b"}),
        ({"not": {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}, {"b": 1}),
        ({"not": {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}, {"c": 1}),
        ({"required": ["a"]}, "not an object"),
        (False, None),
        (True, None),
        ({"uniqueItems": True}, ["a", "b"]),
        ({"uniqueItems": True}, ["a", "a"]),
        ({"uniqueItems": True}, []),
        ({"uniqueItems": True}, "not an array"),
        ({"not": {"uniqueItems": True}}, ["a", "a"]),
        ({"uniqueItems": False}, [1, 1]),
    ],
)
def test_verdicts_agree_on_edge_cases(schema: Any, instance: Any) -> None:
    check = compile_schema(schema)
    assert check is not None
    assert check(instance) is jsonschema.Draft202012Validator(schema).is_valid(instance)


@pytest.mark.parametrize("instance", [[1, 1.0], [True, 1], [[1], [True], [1]], [{"a": 1}, {"a": 1}]])
def test_unique_items_of_other_kinds_are_left_to_jsonschema(instance: list[Any]) -> None:
    """jsonschema's uniq has quirks for mixed lists; the subset does not guess, inside ``not`` either."""
    for schema in ({"uniqueItems": True}, {"not": {"uniqueItems": True}}):
        check = compile_schema(schema)
        assert check is not None
        with pytest.raises(Undecided):
            check(instance)


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/x"},
        {"minimum": 1},
        {"patternProperties": {"^a": True}, "additionalProperties": False},
        {"enum": [1, 2]},
        {"const": 1},
        {"type": "any"},
        {"anyOf": []},
        {"items": {"format": "date"}},
    ],
)
def test_schemas_outside_the_subset_are_refused(schema: Any) -> None:
    assert compile_schema(schema) is None
