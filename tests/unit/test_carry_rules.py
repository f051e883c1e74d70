"""RK-DIFF-010 and RK-DIFF-011 on hand-made blobs: what counts as an edit, and which facts must agree."""

from __future__ import annotations

import pytest

from releasekit.model.fbc import (
    PROP_CSV_METADATA,
    PROP_GVK,
    PROP_PACKAGE,
    Bundle,
    Property,
    PublishedBlob,
    RelatedImage,
)
from releasekit.model.finding import Location
from releasekit.rules.carry import check_carried_edits, check_carried_facts

KEY = ("v4.18", "foo", "foo.v1.0.0")
FILE = "catalog/v4.18/configs/foo/catalog.json"
RELEASE_AT = Location(file="streams/stable.yaml", line=7)


def _bundle(
    *,
    image: str = "registry.redhat.io/foo@sha256:" + "a" * 64,
    version: str = "1.0.0",
    gvk: str = "v1",
    related: tuple[str, ...] = ("registry.redhat.io/op@sha256:" + "b" * 64,),
    prose: str = "ours",
) -> Bundle:
    return Bundle(
        name=KEY[2],
        package="foo",
        image=image,
        properties=(
            Property(type=PROP_GVK, value={"group": "foo.io", "kind": "Foo", "version": gvk}),
            Property(type=PROP_PACKAGE, value={"packageName": "foo", "version": version}),
            Property(type=PROP_CSV_METADATA, value={"description": prose}),
        ),
        related_images=tuple(RelatedImage(image=r) for r in related),
    )


def _blob(text: str = "{}", bundle: Bundle | None = None, line: int = 3) -> PublishedBlob:
    return PublishedBlob(bundle=bundle or _bundle(), text=text, location=Location(file=FILE, line=line))


def test_the_prose_is_never_compared() -> None:
    assert check_carried_facts([(KEY, _blob(bundle=_bundle(prose="theirs")), _bundle(), RELEASE_AT)]) == ()


@pytest.mark.parametrize(
    ("change", "fact"),
    [
        ({"image": "registry.redhat.io/foo@sha256:" + "c" * 64}, "image"),
        ({"version": "1.0.1"}, "olm.package"),
        ({"gvk": "v2"}, "olm.gvk"),
        ({"related": ()}, "relatedImages"),
    ],
)
def test_each_fact_must_agree(change: dict[str, object], fact: str) -> None:
    published = _blob(bundle=_bundle(**change))  # type: ignore[arg-type]
    (finding,) = check_carried_facts([(KEY, published, _bundle(), RELEASE_AT)])
    assert finding.rule == "RK-DIFF-011"
    assert f"has {fact} " in finding.message
    assert finding.location == Location(file=FILE, line=3)
    assert "streams/stable.yaml:7" in finding.message and "streams/stable.yaml:7" in finding.hint


def test_edits_removals_and_missing_files() -> None:
    carried = {KEY: _blob('{"a": 1}')}
    assert check_carried_edits(carried, {KEY: _blob('{"a": 1}', line=9)}, [FILE]) == ()
    assert check_carried_edits(carried, {}, []) == ()  # the file is gone: it is simply written again
    (edited,) = check_carried_edits(carried, {KEY: _blob('{"a": 2}', line=9)}, [FILE])
    assert edited.rule == "RK-DIFF-010" and edited.location.line == 9 and "differs in" in edited.message
    (removed,) = check_carried_edits(carried, {}, [FILE])
    assert "was removed from" in removed.message and removed.location == Location(file=FILE)
