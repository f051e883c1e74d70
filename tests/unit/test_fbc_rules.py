"""Every ``RK-FBC-0NN`` rule of :mod:`releasekit.rules.fbc`, one small catalog each.

Each case starts from a valid catalog, breaks one thing, and asserts that exactly that rule fires with
opm's wording; the valid baseline proves the rule is what catches it (without the rule the case fails).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from releasekit.model.fbc import (
    MISSING,
    Bundle,
    Channel,
    ChannelEntry,
    DeclarativeConfig,
    Deprecation,
    DeprecationEntry,
    Package,
    Property,
    RelatedImage,
)
from releasekit.model.finding import Location, Severity
from releasekit.rules.fbc import RULES, dns1123_label_errors, image_pull_spec_error, validate_config

LOC = Location(file="catalog.yaml", line=1)
IMAGE = "quay.io/example/foo-bundle:v0.1.0"


def entry(name: str, replaces: str = "", skips: tuple[str, ...] = (), skip_range: str = "") -> ChannelEntry:
    return ChannelEntry(name=name, replaces=replaces, skips=skips, skip_range=skip_range)


def package(name: str = "foo", default: str = "alpha") -> Package:
    return Package(name=name, default_channel=default, location=LOC)


def channel(
    name: str = "alpha", pkg: str = "foo", entries: tuple[ChannelEntry, ...] | None = None
) -> Channel:
    return Channel(
        name=name, package=pkg, entries=(entry("foo.v0.1.0"),) if entries is None else entries, location=LOC
    )


def bundle(
    name: str = "foo.v0.1.0",
    pkg: str = "foo",
    version: str = "0.1.0",
    image: str = IMAGE,
    release: str | None = None,
    extra: tuple[Property, ...] = (),
    package_props: tuple[Property, ...] | None = None,
    related: tuple[RelatedImage, ...] | None = None,
) -> Bundle:
    value: dict[str, Any] = {"packageName": pkg, "version": version}
    if release is not None:
        value["release"] = release
    props = (Property(type="olm.package", value=value),) if package_props is None else package_props
    return Bundle(
        name=name, package=pkg, image=image, properties=props + extra, related_images=related, location=LOC
    )


def config(**parts: Any) -> DeclarativeConfig:
    base: dict[str, Any] = {"packages": (package(),), "channels": (channel(),), "bundles": (bundle(),)}
    base.update(parts)
    return DeclarativeConfig(**base)


def chain(*specs: tuple[str, str, tuple[str, ...]]) -> DeclarativeConfig:
    """A channel from (name, replaces, skips) specs, one bundle per distinct name (version from index)."""
    entries = tuple(entry(n, r, s) for n, r, s in specs)
    names = list(dict.fromkeys(n for n, _, _ in specs))
    bundles = tuple(bundle(name=n, version=f"0.{i}.0") for i, n in enumerate(names))
    return config(channels=(channel(entries=entries),), bundles=bundles)


def deprecations(*entries: DeprecationEntry, pkg: str = "foo") -> tuple[Deprecation, ...]:
    return (Deprecation(package=pkg, entries=entries, location=LOC),)


DEP_OK = DeprecationEntry(schema="olm.bundle", name="foo.v0.1.0", message="gone")

CASES: list[tuple[str, str, Callable[[], DeclarativeConfig], str]] = [
    (
        "RK-FBC-010",
        "package-no-name",
        lambda: config(packages=(package(), package(name=""))),
        "config contains package with no name",
    ),
    (
        "RK-FBC-011",
        "duplicate-package",
        lambda: config(packages=(package(), package())),
        'duplicate package "foo"',
    ),
    (
        "RK-FBC-012",
        "package-name-not-dns1123",
        lambda: config(
            packages=(package(), package(name="Foo_Bar", default="")),
        ),
        'invalid package name "Foo_Bar": [a lowercase RFC 1123 label must consist of',
    ),
    (
        "RK-FBC-013",
        "channel-unknown-package",
        lambda: config(channels=(channel(), channel(pkg="bar"))),
        'unknown package "bar" for channel "alpha"',
    ),
    (
        "RK-FBC-014",
        "channel-no-name",
        lambda: config(channels=(channel(), channel(name=""))),
        'package "foo" contains channel with no name',
    ),
    (
        "RK-FBC-015",
        "duplicate-channel",
        lambda: config(channels=(channel(), channel())),
        'package "foo" has duplicate channel "alpha"',
    ),
    (
        "RK-FBC-016",
        "duplicate-entry",
        lambda: config(channels=(channel(entries=(entry("foo.v0.1.0"),) * 2),)),
        'invalid package "foo", channel "alpha": duplicate entry "foo.v0.1.0"',
    ),
    (
        "RK-FBC-017",
        "bundle-no-package",
        lambda: config(bundles=(bundle(), bundle(name="x", pkg=""))),
        'package name must be set for bundle "x"',
    ),
    (
        "RK-FBC-018",
        "bundle-unknown-package",
        lambda: config(bundles=(bundle(), bundle(name="x", pkg="bar"))),
        'unknown package "bar" for bundle "x"',
    ),
    (
        "RK-FBC-019",
        "duplicate-bundle",
        lambda: config(bundles=(bundle(), bundle())),
        'package "foo" has duplicate bundle "foo.v0.1.0"',
    ),
    (
        "RK-FBC-020",
        "property-without-value",
        lambda: config(bundles=(bundle(extra=(Property(type="olm.foo", value=MISSING),)),)),
        'parse properties for bundle "foo.v0.1.0": parse property[1] of type "olm.foo": unexpected end of JSON input',
    ),
    (
        "RK-FBC-021",
        "no-package-property",
        lambda: config(bundles=(bundle(package_props=()),)),
        'package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 0',
    ),
    (
        "RK-FBC-022",
        "package-property-mismatch",
        lambda: config(
            bundles=(
                bundle(
                    package_props=(
                        Property(type="olm.package", value={"packageName": "bar", "version": "0.1.0"}),
                    )
                ),
            )
        ),
        'package "foo" does not match "olm.package" property "bar"',
    ),
    (
        "RK-FBC-023",
        "bad-image-digest",
        lambda: config(bundles=(bundle(image="quay.io/x/foo@md5:" + "ab" * 16),)),
        'package "foo" bundle "foo.v0.1.0" image: invalid image pull spec "quay.io/x/foo@md5:',
    ),
    (
        "RK-FBC-024",
        "bad-related-image",
        lambda: config(
            bundles=(
                bundle(
                    related=(RelatedImage(name="a", image=""), RelatedImage(name="b", image="quay.io/X/y:1"))
                ),
            )
        ),
        'package "foo" bundle "foo.v0.1.0" relatedImages[1].image: invalid image pull spec "quay.io/X/y:1"',
    ),
    (
        "RK-FBC-025",
        "version-not-semver",
        lambda: config(bundles=(bundle(version="0.1.0.1"),)),
        'error parsing bundle "foo.v0.1.0" version "0.1.0.1": Invalid character(s) found in patch number "0.1"',
    ),
    (
        "RK-FBC-026",
        "bad-release",
        lambda: config(bundles=(bundle(release="!!!"),)),
        'error parsing bundle "foo.v0.1.0" release version "!!!": invalid release "!!!": segment 0:',
    ),
    (
        "RK-FBC-027",
        "bundle-in-no-channel",
        lambda: config(bundles=(bundle(), bundle(name="foo.v0.2.0", version="0.2.0"))),
        'package "foo", bundle "foo.v0.2.0" not found in any channel entries',
    ),
    (
        "RK-FBC-028",
        "entry-without-bundle",
        lambda: config(channels=(channel(entries=(entry("foo.v0.2.0", "foo.v0.1.0"), entry("foo.v0.1.0"))),)),
        'no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.2.0]',
    ),
    (
        "RK-FBC-030",
        "deprecation-no-package",
        lambda: config(deprecations=deprecations(DEP_OK, pkg="")),
        "package name must be set for deprecation item 0",
    ),
    (
        "RK-FBC-031",
        "deprecation-unknown-package",
        lambda: config(deprecations=deprecations(DEP_OK, pkg="nyarl")),
        'cannot apply deprecations to an unknown package "nyarl"',
    ),
    (
        "RK-FBC-032",
        "two-deprecations",
        lambda: config(deprecations=deprecations(DEP_OK) * 2),
        'expected a maximum of one deprecation per package: "foo"',
    ),
    (
        "RK-FBC-033",
        "deprecation-no-schema",
        lambda: config(deprecations=deprecations(DeprecationEntry(message="m"))),
        'schema must be set for deprecation entry [0] for package "foo"',
    ),
    (
        "RK-FBC-034",
        "deprecation-duplicate",
        lambda: config(deprecations=deprecations(DEP_OK, DEP_OK)),
        'duplicate deprecation entry declcfg.PackageScopedReference{Schema:"olm.bundle", Name:"foo.v0.1.0"} for package "foo"',
    ),
    (
        "RK-FBC-035",
        "deprecation-unknown-bundle",
        lambda: config(
            deprecations=deprecations(DeprecationEntry(schema="olm.bundle", name="foo.v2.0.0", message="m"))
        ),
        'cannot deprecate bundle "foo.v2.0.0" for package "foo": bundle not found',
    ),
    (
        "RK-FBC-036",
        "deprecation-unknown-channel",
        lambda: config(
            deprecations=deprecations(DeprecationEntry(schema="olm.channel", name="beta", message="m"))
        ),
        'cannot deprecate channel "beta" for package "foo": channel not found',
    ),
    (
        "RK-FBC-037",
        "deprecation-package-with-name",
        lambda: config(
            deprecations=deprecations(DeprecationEntry(schema="olm.package", name="foo", message="m"))
        ),
        'package name must be empty for deprecated package "foo" (specified "foo")',
    ),
    (
        "RK-FBC-038",
        "deprecation-bad-schema",
        lambda: config(
            deprecations=deprecations(DeprecationEntry(schema="badschema", name="x", message="m"))
        ),
        'cannot deprecate object declcfg.PackageScopedReference{Schema:"badschema", Name:"x"} referenced by entry 0 '
        'for package "foo": object schema unknown',
    ),
    (
        "RK-FBC-039",
        "deprecation-no-message",
        lambda: config(deprecations=deprecations(DeprecationEntry(schema="olm.channel", name="alpha"))),
        "invalid deprecation: message must be set",
    ),
    (
        "RK-FBC-040",
        "default-channel-unset",
        lambda: config(packages=(package(default=""),)),
        "default channel must be set",
    ),
    (
        "RK-FBC-041",
        "empty-channel",
        lambda: config(channels=(channel(), channel(name="beta", entries=()))),
        "channel must contain at least one bundle",
    ),
    (
        "RK-FBC-042",
        "package-without-channels",
        lambda: config(
            packages=(package(), package(name="bar", default="")),
        ),
        "package must contain at least one channel",
    ),
    (
        "RK-FBC-043",
        "no-head",
        lambda: chain(("a", "", ("b",)), ("b", "", ("a",))),
        "no channel head found in graph",
    ),
    (
        "RK-FBC-044",
        "multiple-heads",
        lambda: chain(("a", "", ()), ("b", "", ())),
        "multiple channel heads found in graph: a, b",
    ),
    (
        "RK-FBC-045",
        "replaces-cycle",
        lambda: chain(("d", "c", ()), ("c", "b", ()), ("b", "a", ()), ("a", "c", ())),
        "detected cycle in replaces chain of upgrade graph: c -> b -> a -> c",
    ),
    (
        "RK-FBC-046",
        "stranded-bundle",
        lambda: chain(("c", "b", ("b",)), ("b", "a", ()), ("a", "", ())),
        "channel contains one or more stranded bundles: a",
    ),
    (
        "RK-FBC-047",
        "duplicate-versions",
        lambda: config(
            channels=(channel(entries=(entry("b", "a"), entry("a"))),),
            bundles=(bundle(name="a"), bundle(name="b")),
        ),
        "duplicate versions found in bundles: [{0.1.0: [a, b]}]",
    ),
    (
        "RK-FBC-048",
        "entry-without-name",
        lambda: config(
            channels=(channel(entries=(entry("foo.v0.1.0", skips=("",)[:0]), entry(""))),),
            bundles=(bundle(), bundle(name="", version="0.0.1")),
        ),
        "name must be set",
    ),
    (
        "RK-FBC-049",
        "name-not-normalized",
        lambda: config(bundles=(bundle(release="1"),)),
        'name "foo.v0.1.0" does not match normalized name "foo-v0.1.0-1"',
    ),
    (
        "RK-FBC-050",
        "empty-skip",
        lambda: config(channels=(channel(entries=(entry("foo.v0.1.0", skips=("",)),)),)),
        "skip[0] is empty",
    ),
    (
        "RK-FBC-051",
        "bad-skiprange",
        lambda: config(channels=(channel(entries=(entry("foo.v0.1.0", skip_range=">v0.1.0"),)),)),
        'invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"',
    ),
    (
        "RK-FBC-052",
        "no-image-no-objects",
        lambda: config(bundles=(bundle(image=""),)),
        "bundle image must be set",
    ),
    (
        "RK-FBC-053",
        "build-metadata-with-release",
        lambda: config(
            channels=(channel(entries=(entry("foo-v0.1.0-b-1"),)),),
            bundles=(bundle(name="foo-v0.1.0-b-1", version="0.1.0+b", release="1"),),
        ),
        "cannot use build metadata in version with a release version",
    ),
]


def test_baseline_is_valid() -> None:
    assert validate_config(config()) == ()


@pytest.mark.parametrize(
    ("rule", "build", "message"), [pytest.param(r, b, m, id=f"error/{slug}") for r, slug, b, m in CASES]
)
def test_rule_fires(rule: str, build: Callable[[], DeclarativeConfig], message: str) -> None:
    findings = validate_config(build())
    mine = [f for f in findings if f.rule == rule]
    assert mine, f"{rule} did not fire; got {[(f.rule, f.message) for f in findings]}"
    assert any(message in f.message for f in mine), [f.message for f in mine]
    for f in mine:
        assert f.severity is Severity.ERROR
        assert f.hint and not re.search(r"\{[a-z_]+(![rs])?\}", f.hint)
        assert f.location.file == "catalog.yaml"
        assert f.subject and f.subject[0].startswith(("package ", "bundle "))


def test_every_rule_has_a_case() -> None:
    assert {r for r, *_ in CASES} == set(RULES)


def test_rule_ids_are_stable_and_documented() -> None:
    from releasekit.jobs.rule_docs import all_rule_docs

    docs = all_rule_docs()
    for rule_id in RULES:
        assert rule_id.startswith("RK-FBC-0") and int(rule_id[-3:]) >= 10
        assert docs[rule_id].title == RULES[rule_id].title


def test_all_findings_reported_not_just_the_first() -> None:
    cfg = config(
        packages=(package(), package()),
        channels=(channel(entries=(entry("foo.v0.1.0", skip_range="~1"), entry("foo.v0.1.0"))),),
        bundles=(bundle(version="v1"), bundle(name="foo.v0.2.0", image="")),
    )
    rules = {f.rule for f in validate_config(cfg)}
    assert {"RK-FBC-011", "RK-FBC-016", "RK-FBC-025", "RK-FBC-027", "RK-FBC-051", "RK-FBC-052"} <= rules


def test_an_invalid_bundle_image_listed_again_in_related_images_is_reported_in_both_places() -> None:
    bad, good = "quay.io/X/y:1", "quay.io/x/y:1"
    cfg = config(
        bundles=(
            bundle(
                image=bad,
                related=(RelatedImage(name="a", image=good), RelatedImage(name="b", image=bad)),
            ),
        )
    )
    found = [
        (f.rule, f.location.path) for f in validate_config(cfg) if f.rule in {"RK-FBC-023", "RK-FBC-024"}
    ]
    assert found == [("RK-FBC-023", "$.image"), ("RK-FBC-024", "$.relatedImages[1].image")]
    cfg = config(bundles=(bundle(image=good, related=(RelatedImage(name="b", image=bad),)),))
    assert [f.rule for f in validate_config(cfg) if f.rule.startswith("RK-FBC-02")] == ["RK-FBC-024"]


def test_an_image_listed_by_many_bundles_is_parsed_once_and_reported_for_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bundles of one operator repeat their related images: each distinct image is parsed once per package."""
    import releasekit.rules.fbc as rules_fbc

    bad = "quay.io/X/proxy:v1"
    seen: list[str] = []

    def counted(ref: str) -> str | None:
        seen.append(ref)
        return image_pull_spec_error(ref)

    monkeypatch.setattr(rules_fbc, "image_pull_spec_error", counted)
    names = [f"foo.v0.{n}.0" for n in range(6)]
    cfg = config(
        channels=(channel(entries=tuple(entry(name) for name in names)),),
        bundles=tuple(
            bundle(name=name, version=name[5:], related=(RelatedImage(name="proxy", image=bad),))
            for name in names
        ),
    )
    found = [f for f in validate_config(cfg) if f.rule == "RK-FBC-024"]
    assert len(found) == len(names)
    assert sorted(seen) == sorted({IMAGE, bad})


def test_missing_bundle_reported_for_every_channel() -> None:
    """opm's phase A sees only the last channel blob; releasekit names the gap in each channel."""
    cfg = config(
        channels=(
            channel(entries=(entry("foo.v0.2.0", "foo.v0.1.0"), entry("foo.v0.1.0"))),
            channel(name="beta", entries=(entry("foo.v0.3.0", "foo.v0.1.0"), entry("foo.v0.1.0"))),
        )
    )
    missing = [f for f in validate_config(cfg) if f.rule == "RK-FBC-028"]
    assert sorted(f.subject[1] for f in missing) == ['channel "alpha"', 'channel "beta"']
    assert {f.location.path for f in missing} == {"$.entries[0]"}


def test_paths_point_inside_objects() -> None:
    cfg = config(channels=(channel(entries=(entry("foo.v0.1.0", skips=("x", ""), skip_range="bad1"),)),))
    paths = {f.rule: f.location.path for f in validate_config(cfg)}
    assert paths["RK-FBC-050"] == "$.entries[0].skips[1]"
    assert paths["RK-FBC-051"] == "$.entries[0].skipRange"


def test_default_channel_without_blob_is_reported_under_that_channel() -> None:
    findings = validate_config(config(packages=(package(default="beta"),)))
    assert [(f.rule, f.subject) for f in findings] == [("RK-FBC-041", ('package "foo"', 'channel "beta"'))]


def test_bundle_objects_count_as_image() -> None:
    b = replace(bundle(image=""), objects=({"kind": "ClusterServiceVersion"},))
    assert validate_config(config(bundles=(b,))) == ()


def test_release_with_normalized_name_is_valid() -> None:
    cfg = config(
        channels=(channel(entries=(entry("foo-v0.1.0-alpha.1"),)),),
        bundles=(bundle(name="foo-v0.1.0-alpha.1", release="alpha.1"),),
    )
    assert validate_config(cfg) == ()


@pytest.mark.parametrize(
    ("ref", "error"),
    [
        ("quay.io/operator-framework/foo-bundle:v0.1.0", None),
        ("quay.io/foo/bar:v1@sha256:" + "a" * 64, None),
        ("busybox", None),
        ("localhost:5000/foo/bar@sha512:" + "0" * 128, None),
        ("[::1]:5000/foo:1", None),
        ("quay.io/foo/bar@md5:" + "ab" * 16, "unsupported digest algorithm"),
        ("quay.io/foo/bar@ssha256:" + "a" * 64, "unsupported digest algorithm"),
        ("quay.io/foo/bar@sha256:" + "a" * 40, "invalid checksum digest length"),
        ("quay.io/foo/bar@sha256:" + "A" * 64, "invalid checksum digest format"),
        ("quay.io/foo/bar@sha256:abc", "invalid reference format"),
        ("quay.io/Foo/bar:1", "invalid reference format: repository name must be lowercase"),
        ("quay.io/foo/bar:-bad", "invalid reference format"),
        ("a" * 64, "invalid repository name (" + "a" * 64 + "), cannot specify 64-byte hexadecimal strings"),
    ],
    ids=lambda v: v[:40] if isinstance(v, str) else str(v),
)
def test_image_pull_spec(ref: str, error: str | None) -> None:
    assert image_pull_spec_error(ref) == error


@pytest.mark.parametrize(
    ("name", "errors"),
    [
        ("kueue-operator", []),
        ("foo.bar", ["must not contain dots"]),
        ("a" * 64, ["must be no more than 63 characters"]),
        (
            "-foo",
            [
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ],
        ),
    ],
)
def test_dns1123_label(name: str, errors: list[str]) -> None:
    assert dns1123_label_errors(name) == errors
