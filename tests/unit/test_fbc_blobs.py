"""The exact text of each blob of a JSON stream, and a writer that puts it back as it stands."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from releasekit.io.fbc_blobs import json_stream_blobs, published_blobs
from releasekit.io.fbc_load import LoadLimits, decode_metas, load_catalog_text
from releasekit.io.fbc_write import render_json
from releasekit.model.layout import DEFAULT_LAYOUT, KUEUE_FBC_LAYOUT
from tests.conftest import usual_catalog

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


def _stream(blobs: list[dict[str, object]], indent: int | None) -> str:
    return "".join(json.dumps(b, indent=indent, ensure_ascii=False) + "\n" for b in blobs)


@given(descriptions=st.lists(_TEXT, min_size=1, max_size=4), indent=st.sampled_from([None, 2, 4]))
def test_each_blob_text_is_the_exact_slice(descriptions: list[str], indent: int | None) -> None:
    blobs: list[dict[str, object]] = [
        {"schema": "olm.bundle", "package": "foo", "name": f"foo.v0.{i}.0", "description": d}
        for i, d in enumerate(descriptions)
    ]
    text = _stream(blobs, indent)
    raws = json_stream_blobs(text)
    assert raws is not None
    assert [json.loads(r.text) for r in raws] == blobs
    assert [r.name for r in raws] == [b["name"] for b in blobs]
    for raw in raws:
        assert text.split("\n")[raw.line - 1].startswith("{")
        assert raw.text in text


def test_yaml_and_broken_streams_have_no_blobs() -> None:
    assert json_stream_blobs("---\nschema: olm.package\n") is None
    assert json_stream_blobs('{"schema": "olm.package"} [1]') is None
    assert json_stream_blobs('{"schema": ') is None
    assert json_stream_blobs("  \n") == []


def test_a_carried_blob_is_written_as_it_stands() -> None:
    """Key order, spacing and escapes opm would write otherwise are kept for a carried blob."""
    package, channel, bundle = usual_catalog({"type": "olm.csv.metadata", "value": {"z": 1, "a": "<&>"}})
    carried_text = json.dumps(bundle, indent=1, ensure_ascii=True)
    data = (_stream([package, channel], 4) + carried_text + "\n").encode()
    metas, findings = load_catalog_text(data, "catalog.json", LoadLimits())
    config, _ = decode_metas(metas)
    assert not findings
    plain = render_json(config)
    assert carried_text not in plain  # opm's encoding differs: the test would pass without verbatim
    kept = render_json(config, {("foo", "foo.v0.1.0"): carried_text})
    assert carried_text in kept
    assert kept.replace(carried_text, "") == plain.replace(
        plain[plain.index('{\n    "schema": "olm.bundle"') :].rstrip("\n"), ""
    )


def test_published_blobs_follow_the_layout() -> None:
    text = _stream(usual_catalog(), 4).encode()
    files = {
        DEFAULT_LAYOUT.catalog_file("v4.18", "foo"): lambda: text,
        KUEUE_FBC_LAYOUT.catalog_file("v4.19", "foo"): lambda: text,
    }
    mine = published_blobs(files, DEFAULT_LAYOUT, display_root="catalog")
    theirs = published_blobs(files, KUEUE_FBC_LAYOUT, display_root=".")
    assert list(mine) == [("v4.18", "foo", "foo.v0.1.0")]
    assert list(theirs) == [("v4.19", "foo", "foo.v0.1.0")]
    assert str(mine[("v4.18", "foo", "foo.v0.1.0")].location) == "catalog/v4.18/configs/foo/catalog.json:16"
    assert theirs[("v4.19", "foo", "foo.v0.1.0")].location.file == "v4.19/catalog/foo/catalog.json"
