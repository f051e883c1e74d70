"""Remembered renderings (releasekit.io.result_cache): same inputs, same value; anything else, no harm."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from releasekit.io.result_cache import MISS, ResultCache, canonical, digest
from releasekit.io.templates import TemplateSet
from tests.conftest import REPO_ROOT

TEMPLATE = "t.yaml.j2"
KEY = digest(b"a key")


def _folder(tmp_path: Path, body: str = "name: {{ name | to_json }}\nitems: {{ items | to_json }}\n") -> Path:
    root = tmp_path / "templates"
    root.mkdir()
    (root / TEMPLATE).write_text(body)
    return root


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.msgpack"))


def test_a_remembered_rendering_is_the_rendering_and_needs_no_jinja(tmp_path: Path) -> None:
    root, cache = _folder(tmp_path), ResultCache(tmp_path / "cache")
    first = TemplateSet(root, cache).render_yaml(TEMPLATE, {"name": "a", "items": [1, 2.5, None, True]})
    assert len(_entries(tmp_path / "cache")) == 1
    again = TemplateSet(root, cache)
    assert again.render_yaml(TEMPLATE, {"name": "a", "items": [1, 2.5, None, True]}) == first
    assert again._jinja is None  # read back: nothing was rendered
    assert first == {"name": "a", "items": [1, 2.5, None, True]}


def test_the_real_csv_renders_the_same_remembered_or_not(tmp_path: Path) -> None:
    from releasekit.io.streams import load_streams
    from releasekit.jobs.catalog_build import render_csv

    loaded = load_streams(REPO_ROOT / "streams")
    stream = loaded.streams[0]
    templates = REPO_ROOT / "bundle-templates"
    plain = [
        render_csv(TemplateSet(templates, ResultCache(None)), stream, r, loaded) for r in stream.releases
    ]
    cache = ResultCache(tmp_path / "cache")
    stored = [render_csv(TemplateSet(templates, cache), stream, r, loaded) for r in stream.releases]
    remembered = TemplateSet(templates, cache)
    again = [render_csv(remembered, stream, r, loaded) for r in stream.releases]
    assert plain == stored == again
    assert remembered._jinja is None
    assert repr(plain) == repr(again)  # key order and types too


def test_a_changed_template_file_or_value_is_rendered_again(tmp_path: Path) -> None:
    root, cache = _folder(tmp_path), ResultCache(tmp_path / "cache")
    values = {"name": "a", "items": []}
    assert TemplateSet(root, cache).render_yaml(TEMPLATE, values)["name"] == "a"
    (root / "other.txt").write_text("any file of the folder counts (an include may read it)")
    (root / TEMPLATE).write_text("name: {{ (name ~ '-changed') | to_json }}\n")
    assert TemplateSet(root, cache).render_yaml(TEMPLATE, values) == {"name": "a-changed"}
    assert TemplateSet(root, cache).render_yaml(TEMPLATE, {"name": "b", "items": []}) == {"name": "b-changed"}


def test_a_tuple_and_a_list_are_different_values(tmp_path: Path) -> None:
    root = _folder(tmp_path, "shown: {{ (items ~ '') | to_json }}\n")
    cache = ResultCache(tmp_path / "cache")
    assert TemplateSet(root, cache).render_yaml(TEMPLATE, {"items": [1]}) == {"shown": "[1]"}
    assert TemplateSet(root, cache).render_yaml(TEMPLATE, {"items": (1,)}) == {"shown": "(1,)"}


def test_a_corrupt_or_foreign_entry_is_a_miss(tmp_path: Path) -> None:
    root, cache_dir = _folder(tmp_path), tmp_path / "cache"
    cache = ResultCache(cache_dir)
    values = {"name": "a", "items": [1]}
    good = TemplateSet(root, cache).render_yaml(TEMPLATE, values)
    (entry,) = _entries(cache_dir)
    entry.write_bytes(b"\xc1 not msgpack")
    assert TemplateSet(root, cache).render_yaml(TEMPLATE, values) == good
    entry.unlink()
    entry.symlink_to("/dev/zero")  # never followed
    assert TemplateSet(root, cache).render_yaml(TEMPLATE, values) == good


def test_a_value_that_does_not_read_back_exactly_is_not_stored(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    cache.put("render_yaml", KEY, {"big": 2**70})  # over MessagePack's 64 bits
    cache.put("render_yaml", digest(b"other"), {"t": (1, 2)})  # would come back a list
    assert _entries(tmp_path / "cache") == []
    cache.put("render_yaml", KEY, {"k": [1, 1.5, "x", None, False, {"n": {}}]})
    assert cache.get("render_yaml", KEY) == {"k": [1, 1.5, "x", None, False, {"n": {}}]}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_folder_others_may_write_is_not_used(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    cache = ResultCache(shared)
    assert not cache.enabled
    cache.put("render_yaml", KEY, {"a": 1})
    assert cache.get("render_yaml", KEY) is MISS
    assert list(shared.iterdir()) == []


def test_remembering_can_be_turned_off_and_never_fails_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELEASEKIT_NO_CACHE", "1")
    assert not ResultCache.default().enabled
    monkeypatch.delenv("RELEASEKIT_NO_CACHE")
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setenv("RELEASEKIT_CACHE_DIR", str(blocked / "results"))
    root = _folder(tmp_path)
    assert TemplateSet(root).render_yaml(TEMPLATE, {"name": "a", "items": []}) == {"name": "a", "items": []}


def test_a_templates_folder_with_a_link_is_never_remembered(tmp_path: Path) -> None:
    root, cache_dir = _folder(tmp_path), tmp_path / "cache"
    (root / "link").symlink_to(tmp_path)
    TemplateSet(root, ResultCache(cache_dir)).render_yaml(TEMPLATE, {"name": "a", "items": []})
    assert _entries(cache_dir) == []


def test_the_build_writes_the_same_catalog_remembered_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from releasekit.jobs.catalog_build import build_catalogs

    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("RELEASEKIT_CACHE_DIR", str(cache_dir))
    streams, templates = REPO_ROOT / "streams", REPO_ROOT / "bundle-templates"
    cold = build_catalogs(streams, templates).files
    assert _entries(cache_dir)
    warm = build_catalogs(streams, templates).files
    shutil.rmtree(cache_dir)
    monkeypatch.setenv("RELEASEKIT_NO_CACHE", "1")
    plain = build_catalogs(streams, templates).files
    assert not cache_dir.exists()
    assert cold == warm == plain


_plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(a=_plain, b=_plain)
def test_canonical_bytes_are_equal_exactly_for_the_same_typed_value(a: Any, b: Any) -> None:
    same = repr(a) == repr(b) and _types(a) == _types(b)
    assert (canonical(a) == canonical(b)) is same


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return [(type(k), _types(v)) for k, v in value.items()]
    if isinstance(value, list | tuple):
        return (type(value), [_types(v) for v in value])
    return type(value)


def test_canonical_refuses_what_is_not_plain_data() -> None:
    assert canonical({"a": object()}) is None
    assert canonical({"a": {1, 2}}) is None
    assert canonical({"a": 1}) != canonical({"a": 1.0}) != canonical({"a": True})
    assert canonical({"a": 1, "b": 2}) != canonical({"b": 2, "a": 1})


def test_remembered_yaml_documents_have_the_same_values_and_lines(tmp_path: Path) -> None:
    from releasekit.io.yamlio import load_remembered_documents, load_yaml_documents

    cache = ResultCache(tmp_path / "cache")
    for path in sorted((REPO_ROOT / "streams").rglob("*.yaml")):
        text = path.read_text()
        fresh = load_yaml_documents(text, source=str(path))
        stored = load_remembered_documents(text, source=str(path), cache=cache)
        again = load_remembered_documents(text, source=str(path), cache=cache)
        assert fresh == stored == again
        assert repr(fresh) == repr(again)
    assert len(_entries(tmp_path / "cache")) == len(list((REPO_ROOT / "streams").rglob("*.yaml")))


def test_a_yaml_error_is_never_remembered(tmp_path: Path) -> None:
    from releasekit.io.yamlio import YamlContentError, load_remembered_documents

    cache = ResultCache(tmp_path / "cache")
    for _ in range(2):
        with pytest.raises(YamlContentError):
            load_remembered_documents("a: 1\na: 2\n", source="f.yaml", cache=cache)
    assert _entries(tmp_path / "cache") == []
