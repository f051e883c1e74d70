"""The FBC loader's behaviour that its speed-ups must keep (opm's loading rules, semantics note §1).

Each test pins what ``load_catalog``/``load_catalog_text`` return for one rule: objects, lines, rule ids
and messages. How the loader reads (json or yaml-rs, PyYAML where it must) must not change any of it.
"""

from __future__ import annotations

import base64
import gc
import json
import os
from pathlib import Path

import pytest

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.fbc_load import LoadLimits, decode_metas, load_catalog, load_catalog_text
from releasekit.model.fbc import Meta
from releasekit.model.finding import Finding


def _load(data: bytes | str) -> tuple[list[Meta], list[Finding]]:
    raw = data.encode() if isinstance(data, str) else data
    return load_catalog_text(raw, "f.yaml")


def _lines(metas: list[Meta]) -> list[tuple[str, int | None]]:
    return [(m.schema, m.location.line) for m in metas]


def _rules(findings: list[Finding]) -> list[tuple[str, int | None]]:
    return [(f.rule, f.location.line) for f in findings]


def _write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# ------------------------------------------------------------------------------------------------ JSON


def test_json_stream_concatenated_and_newline_separated_objects_keep_their_lines() -> None:
    metas, findings = _load('{"schema":"a","name":"x"}{"schema":"b"}\n\n{"schema":"c"}\n')
    assert findings == []
    assert _lines(metas) == [("a", 1), ("b", 1), ("c", 3)]
    assert metas[0].name == "x"


def test_json_pretty_printed_stream_lines_after_leading_blank_lines() -> None:
    blobs = [{"schema": "olm.package", "name": f"p{i}", "description": "}\n{"} for i in range(3)]
    text = "\n\n" + "\n".join(json.dumps(b, indent=4) for b in blobs) + "\n"
    metas, findings = _load(text)
    assert findings == []
    assert [m.name for m in metas] == ["p0", "p1", "p2"]
    assert _lines(metas) == [("olm.package", 3), ("olm.package", 8), ("olm.package", 13)]
    assert metas[1].data["description"] == "}\n{"


def test_json_compact_stream_with_one_object_per_line() -> None:
    text = "".join(json.dumps({"schema": "x", "name": f"n{i}", "v": [i, {"k": i}]}) + "\n" for i in range(50))
    metas, findings = _load(text)
    assert findings == []
    assert [m.location.line for m in metas] == list(range(1, 51))
    assert metas[49].data == {"schema": "x", "name": "n49", "v": [49, {"k": 49}]}


def test_json_syntax_error_stops_the_file_after_earlier_objects() -> None:
    metas, findings = _load('{"schema":"a"}\n{"schema":"b" oops}\n{"schema":"c"}\n')
    assert _lines(metas) == [("a", 1)]
    assert _rules(findings) == [("RK-FBC-001", 2)]
    assert findings[0].message == "invalid JSON: Expecting ',' delimiter at offset 29"


def test_json_duplicate_key_nested_is_a_finding_on_the_object_line() -> None:
    metas, findings = _load('  \n{"schema":"a",\n"name":"x"}\n{"schema":"b",\n "n": {"k":1,"k":2}}\n')
    assert _lines(metas) == [("a", 2)]
    assert _rules(findings) == [("RK-FBC-003", 4)]
    assert findings[0].message == "duplicate key 'k' in JSON object"


def test_json_duplicate_key_hidden_by_an_escaped_colon_is_still_found() -> None:
    # "k\u003a" and "k:" are the same key once decoded; the colon count must not be fooled.
    metas, findings = _load('{"schema":"x","k\\u003a":1,"k:":2}\n{"schema":"y"}\n')
    assert metas == []
    assert _rules(findings) == [("RK-FBC-003", 1)]


def test_json_escaped_colons_without_duplicates_load() -> None:
    metas, findings = _load('{"schema":"x","v":"a\\u003ab","w":"c:d","x\\u003A":"e"}')
    assert findings == []
    assert metas[0].data == {"schema": "x", "v": "a:b", "w": "c:d", "x:": "e"}


def test_json_case_folded_top_level_duplicates() -> None:
    metas, findings = _load('{"schema":"a","Schema":"b"}')
    assert metas == []
    assert [f.message for f in findings] == ['duplicate keys for key "schema": [Schema schema]']


def test_json_huge_integers_stay_exact_integers() -> None:
    text = '{"schema":"x","v":123456789012345678901234567890}\n{"schema":"y","w":-99999999999999999999}\n'
    metas, findings = _load(text)
    assert findings == []
    assert metas[0].data["v"] == 123456789012345678901234567890
    assert type(metas[1].data["w"]) is int
    assert _lines(metas) == [("x", 1), ("y", 2)]


def test_json_digest_digit_runs_do_not_change_values() -> None:
    image = "quay.io/x@sha256:" + "1234567890" * 6 + "abcd"
    text = "".join(json.dumps({"schema": "x", "image": image, "n": i}) + "\n" for i in range(3))
    metas, findings = _load(text)
    assert findings == []
    assert [m.data["image"] for m in metas] == [image] * 3


def test_json_lone_surrogates_read_as_the_json_module_reads_them() -> None:
    metas, findings = _load('{"schema":"x","s":"\\ud800"}\n{"schema":"y"}\n')
    assert findings == []
    assert metas[0].data["s"] == "\ud800"
    assert _lines(metas) == [("x", 1), ("y", 2)]


def test_json_nan_is_refused_as_go_refuses_it() -> None:
    """Go's encoding/json (opm) has no NaN: the stream stops there with opm's wording (issue 14)."""
    metas, findings = _load('{"schema":"y"}\n{"schema":"x","v":NaN}\n')
    assert _lines(metas) == [("y", 1)]
    assert _rules(findings) == [("RK-FBC-001", 2)]
    assert "invalid character 'N' looking for beginning of value" in findings[0].message


def test_json_top_level_array_goes_the_yaml_route_and_is_not_an_object() -> None:
    metas, findings = _load("[1,2]")
    assert metas == []
    assert _rules(findings) == [("RK-FBC-002", 1)]
    assert findings[0].message == "json: cannot unmarshal array into Go value of type map[string]interface {}"


def test_json_object_without_schema() -> None:
    metas, findings = _load('{"name":"x"}')
    assert metas == []
    assert [f.message for f in findings] == ['object \'{"name":"x"}\' is missing root schema field']
    assert findings[0].rule == "RK-FBC-005"


def test_json_name_not_a_string() -> None:
    _, findings = _load('{"schema":"olm.package","name":{}}')
    assert _rules(findings) == [("RK-FBC-004", 1)]
    assert (
        findings[0].message == 'expected value for key "name" to be a string, got map[string]interface {}{}'
    )


# ------------------------------------------------------------------------------------------------ YAML


def test_yaml_documents_and_their_first_content_lines() -> None:
    metas, findings = _load("schema: a\n---\n# c\nschema: b\n--- # comment\n\nschema: c\n")
    assert findings == []
    assert _lines(metas) == [("a", 1), ("b", 4), ("c", 7)]


def test_yaml_content_on_the_marker_line_belongs_to_the_document() -> None:
    metas, findings = _load("--- {schema: a}\n")
    assert (findings, _lines(metas)) == ([], [("a", 1)])
    metas, findings = _load("--- {schema: a}\nname: x\n")
    assert metas == []
    assert _rules(findings) == [("RK-FBC-001", 2)]


def test_yaml_dashes_that_are_not_separators() -> None:
    metas, findings = _load("schema: a\nname: |\n  ----\n  ---x\n")
    assert findings == []
    assert metas[0].data["name"] == "----\n---x\n"


def test_yaml_trailing_separator_with_comment_adds_no_document() -> None:
    metas, findings = _load("schema: a\n--- # trailing\n")
    assert (findings, _lines(metas)) == ([], [("a", 1)])


def test_yaml_crlf_separators() -> None:
    metas, findings = _load("schema: a\r\n---\r\nschema: b\r\n")
    assert findings == []
    assert _lines(metas) == [("a", 1), ("b", 3)]


@pytest.mark.parametrize("text", ["  \n\n", "# only a comment\n", "---\n---\n", " "])
def test_blank_or_comment_only_file_is_an_object_without_schema(text: str) -> None:
    metas, findings = _load(text)
    assert metas == []
    assert _rules(findings) == [("RK-FBC-005", 1)]
    assert findings[0].message == "object '' is missing root schema field"


def test_zero_byte_file_yields_nothing() -> None:
    assert _load(b"") == ([], [])


@pytest.mark.parametrize("text", ['\ufeff{"schema":"a"}', "\ufeffschema: a\n"])
def test_byte_order_mark_is_skipped(text: str) -> None:
    metas, findings = _load(text)
    assert (findings, _lines(metas)) == ([], [("a", 1)])


def test_yaml_duplicate_keys_exact_and_case_folded() -> None:
    metas, findings = _load("schema: a\nname: x\nname: y\n")
    assert metas == []
    assert findings[0].rule == "RK-FBC-003"
    assert findings[0].message == "invalid YAML: duplicate mapping key: 'name'"
    metas, findings = _load("schema: a\nSchema: b\n")
    assert [f.message for f in findings] == ['duplicate keys for key "schema": [Schema schema]']


def test_yaml_sequence_document_is_not_an_object() -> None:
    _, findings = _load("- a\n- b\n")
    assert _rules(findings) == [("RK-FBC-002", 1)]


def test_yaml_alias_bomb_is_refused() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    with pytest.raises(SafetyLimitError):
        load_catalog_text(("schema: x\n" + bomb).encode(), "bomb.yaml", LoadLimits(max_alias_events=10_000))


def test_invalid_utf8_is_a_finding_on_its_line() -> None:
    metas, findings = _load(b"schema: a\nname: \xff\n")
    assert metas == []
    assert _rules(findings) == [("RK-FBC-006", 2)]
    assert findings[0].message == "invalid UTF-8: byte 0xff at offset 16"


# --------------------------------------------------------------------------------------- typed blobs


def test_icon_base64_with_newlines_is_accepted_and_bad_base64_is_a_finding() -> None:
    base = "schema: olm.package\nname: p\nicon:\n  mediatype: image/png\n  base64data: "
    metas, _ = _load(base + '"YWJj\\nZA=="\n')
    config, findings = decode_metas(metas)
    assert findings == ()
    assert config.packages[0].icon is not None
    assert config.packages[0].icon.base64data == "YWJj\nZA=="
    metas, _ = _load(base + '"YW!j"\n')
    config, findings = decode_metas(metas)
    assert config.packages == ()
    assert [(f.rule, f.message) for f in findings] == [
        ("RK-FBC-007", "parse package: illegal base64 data in icon.base64data: Only base64 data is allowed")
    ]


def _bundle(data: object) -> str:
    return json.dumps(
        {
            "schema": "olm.bundle",
            "name": "b",
            "package": "p",
            "image": "i",
            "properties": [{"type": "olm.bundle.object", "value": data}],
        }
    )


def test_bundle_objects_are_decoded_from_json_and_yaml_with_newlines_in_base64() -> None:
    csv = json.dumps({"kind": "ClusterServiceVersion", "metadata": {"name": "x"}, "n": 10**30})
    crd = "kind: CustomResourceDefinition\nmetadata:\n  name: y\n"
    wrapped = base64.encodebytes(csv.encode()).decode()  # lines of 76 characters
    text = json.dumps(
        {
            "schema": "olm.bundle",
            "name": "b",
            "package": "p",
            "image": "i",
            "properties": [
                {"type": "olm.bundle.object", "value": {"data": _b64(crd)}},
                {"type": "olm.bundle.object", "value": {"data": wrapped}},
            ],
        }
    )
    metas, findings = load_catalog_text(text.encode(), "f.json")
    assert findings == []
    config, decode_findings = decode_metas(metas)
    assert decode_findings == ()
    (bundle,) = config.bundles
    assert [o["kind"] for o in bundle.objects] == ["CustomResourceDefinition", "ClusterServiceVersion"]
    assert bundle.csv is bundle.objects[1]
    assert bundle.csv["n"] == 10**30 and type(bundle.csv["n"]) is int


def test_bundle_object_json_duplicate_keys_keep_the_last_value_in_first_position() -> None:
    metas, _ = _load(_bundle({"data": _b64('{"kind":"A","x":1,"kind":"ClusterServiceVersion"}')}))
    config, findings = decode_metas(metas)
    assert findings == ()
    assert list(config.bundles[0].objects[0].items()) == [("kind", "ClusterServiceVersion"), ("x", 1)]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"data": "!!!"}, "convert bundle object property at index 0 to JSON: Only base64 data is allowed"),
        (
            {"data": _b64('{"a": 1,')},
            "convert bundle object property at index 0 to JSON: "
            "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)",
        ),
        (
            3,
            "parse property at index 0 as bundle object: "
            "json: cannot unmarshal number into Go value of type property.BundleObject",
        ),
    ],
)
def test_bundle_object_decode_errors(value: object, message: str) -> None:
    metas, findings = _load(_bundle(value))
    assert findings == []
    config, decode_findings = decode_metas(metas)
    assert config.bundles == ()
    assert [(f.rule, f.message) for f in decode_findings] == [
        ("RK-FBC-008", f'read bundle objects: package "p", bundle "b": {message}')
    ]


def test_channel_entry_field_of_the_wrong_type() -> None:
    metas, _ = _load('{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a","skips":[1]}]}')
    _, findings = decode_metas(metas)
    assert [f.message for f in findings] == [
        "parse channel: json: cannot unmarshal number into Go struct field Channel.entries.skips of type string"
    ]


def test_case_insensitive_typed_fields() -> None:
    text = (
        '{"Schema":"olm.channel","NAME":"c","Package":"p","Entries":[{"Name":"a","Replaces":"z",'
        '"SKIPS":["y"],"skiprange":"<1.0.0"}]}'
    )
    metas, findings = _load(text)
    assert findings == []
    config, _ = decode_metas(metas)
    (entry,) = config.channels[0].entry_list
    assert (entry.name, entry.replaces, entry.skips, entry.skip_range) == ("a", "z", ("y",), "<1.0.0")


# --------------------------------------------------------------------------------------- directories


def test_indexignore_at_several_levels_with_negation(tmp_path: Path) -> None:
    blob = '{"schema":"x","name":"%s"}'
    _write(tmp_path, ".indexignore", "*.md\nskip/\n")
    _write(tmp_path, "a.json", blob % "a")
    _write(tmp_path, "README.md", "not a catalog")
    _write(tmp_path, "skip/b.json", blob % "b")
    _write(tmp_path, "pkg/.indexignore", "*\n!*.json\n!*.yaml\n*.clusterserviceversion.yaml\n")
    _write(tmp_path, "pkg/c.json", blob % "c")
    _write(tmp_path, "pkg/notes.txt", "ignored")
    _write(tmp_path, "pkg/x.clusterserviceversion.yaml", "kind: ClusterServiceVersion\n")
    _write(tmp_path, "pkg/sub/d.yaml", "schema: x\nname: d\n")
    _write(tmp_path, "pkg/sub/e.txt", "ignored too")
    _write(tmp_path, "z.txt", "schema: x\nname: z\n")
    result = load_catalog(tmp_path)
    assert result.findings == ()
    # "*" in pkg/ also excludes the folder pkg/sub (gitignore: "!*.yaml" does not re-include a folder)
    assert [m.name for m in result.config.others] == ["a", "c", "z"]
    assert [Path(f).relative_to(tmp_path).as_posix() for f in result.files] == [
        "a.json",
        "pkg/c.json",
        "z.txt",
    ]


def test_an_indexignore_is_read_under_the_input_policy(tmp_path: Path) -> None:
    """A linked ``.indexignore`` may not leave the catalog; bytes that are not UTF-8 are read as opm reads them."""
    outside = _write(tmp_path, "secret", "*.json\n")
    catalog = tmp_path / "catalog"
    _write(catalog, "a.json", '{"schema":"x","name":"a"}')
    (catalog / ".indexignore").symlink_to(outside)
    with pytest.raises(SafetyLimitError, match="indexignore"):
        load_catalog(catalog)
    (catalog / ".indexignore").unlink()
    _write(catalog, ".indexignore", b"\xff\nb.json\n")
    _write(catalog, "b.json", "not read")
    assert [m.name for m in load_catalog(catalog).config.others] == ["a"]


def test_files_load_in_lexical_order_and_findings_do_not_stop_other_files(tmp_path: Path) -> None:
    _write(tmp_path, "b/catalog.yaml", "schema: x\nname: b\n---\nschema: x\nname: b2\n")
    _write(tmp_path, "a/catalog.json", '{"schema":"x","name":"a"}\n{"schema":"x" bad}\n')
    _write(tmp_path, "c.yaml", b"name: \xfe\n")
    _write(tmp_path, "d.yaml", b"")
    result = load_catalog(tmp_path)
    assert [(m.name, m.location.line) for m in result.config.others] == [("a", 1), ("b", 1), ("b2", 4)]
    assert [(Path(f.location.file).name, f.rule, f.location.line) for f in result.findings] == [
        ("catalog.json", "RK-FBC-001", 2),
        ("c.yaml", "RK-FBC-006", 1),
    ]
    assert len(result.files) == 4


def test_garbage_collector_state_is_restored(tmp_path: Path) -> None:
    _write(tmp_path, "a.yaml", "schema: x\n")
    assert gc.isenabled()
    load_catalog(tmp_path)
    assert gc.isenabled()
    gc.disable()
    try:
        load_catalog(tmp_path)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_loaded_objects_reach_the_oldest_generation_without_a_collector_pass(tmp_path: Path) -> None:
    """The collector's first pass after loading would otherwise walk every object a big catalog made."""
    _write(tmp_path, "a.yaml", "schema: x\nname: a\nlist: [1, 2]\n")
    data = load_catalog(tmp_path).config.others[0].data
    assert gc.get_count()[0] < 10  # no pass was needed to empty the youngest generation
    assert any(obj is data for obj in gc.get_objects(generation=2))
    assert not any(obj is data for obj in gc.get_objects(generation=0))


def test_symlink_leaving_the_catalog_is_refused(tmp_path: Path) -> None:
    outside = _write(tmp_path, "outside.yaml", "schema: x\n")
    root = tmp_path / "cat"
    root.mkdir()
    (root / "link.yaml").symlink_to(outside)
    with pytest.raises(SafetyLimitError, match="outside the catalog"):
        load_catalog(root)


def test_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    with pytest.raises(InputError, match="not a regular file"):
        load_catalog(tmp_path)


def test_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "big.yaml", "schema: x\n" + "# pad\n" * 100)
    with pytest.raises(SafetyLimitError, match="limit"):
        load_catalog(tmp_path, LoadLimits(max_file_bytes=100))


def test_each_yaml_document_is_parsed_once_by_the_reader_chosen_from_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 25: one decision per document, before parsing; no yaml-rs parse then PyYAML re-read."""
    import yaml_rs

    from releasekit.io import yamlio

    parsed: list[tuple[str, str]] = []
    real_rs, real_py = yaml_rs.loads, yamlio._pyyaml

    def rs(text: str, **kwargs: object) -> object:
        parsed.append(("yaml-rs", text.split("\n", 1)[0]))
        return real_rs(text, **kwargs)  # type: ignore[arg-type]

    def py(chunk: str, *args: object, **kwargs: object) -> object:
        parsed.append(("pyyaml", chunk.split("\n", 1)[0]))
        return real_py(chunk, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml_rs, "loads", rs)
    monkeypatch.setattr(yamlio, "_pyyaml", py)
    metas, findings = _load(
        "schema: a\nname: plain\n---\n"
        "schema: b\nname: yes\n---\n"  # YAML 1.1 reads a bool: PyYAML
        "schema: c\nd: |\n  [link]: https://example.com\n---\n"  # Markdown in a block scalar: yaml-rs
        "schema: d\nv: 0777\n"  # YAML 1.1 octal: PyYAML
    )
    assert parsed == [
        ("yaml-rs", "schema: a"),
        ("pyyaml", "schema: b"),
        ("yaml-rs", "schema: c"),
        ("pyyaml", "schema: d"),
    ]
    assert [m.data for m in metas] == [
        {"schema": "a", "name": "plain"},
        {"schema": "c", "d": "[link]: https://example.com\n"},
        {"schema": "d", "v": 511},
    ]
    assert [f.rule for f in findings] == ["RK-FBC-004"]  # name: true is not a string


def test_a_collection_key_yaml_rs_reads_is_refused_as_yaml_1_1_refuses_it() -> None:
    metas, findings = _load(
        "schema: a\n[x, y]: b\n---\nschema: c\nk:\n  {a: 1}: d\n---\nschema: e\n? [f]\n: g\n"
    )
    assert metas == []
    assert _rules(findings) == [("RK-FBC-001", 2), ("RK-FBC-001", 6), ("RK-FBC-001", 9)]
    assert {f.message for f in findings} == {"invalid YAML: mapping keys must be scalars"}


def test_markdown_brackets_in_a_block_scalar_keep_the_document_on_yaml_rs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A "[" inside text ("| [25.05](url) |") starts no flow collection: no PyYAML for it (issue 25)."""
    from releasekit.io import yamlio

    def refuse(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("sent to PyYAML")

    monkeypatch.setattr(yamlio, "_pyyaml", refuse)
    metas, findings = _load("schema: a\nd: |\n  | Slurm | [25.05](https://x.example/) |\n")
    assert findings == []
    assert metas[0].data["d"] == "| Slurm | [25.05](https://x.example/) |\n"
