"""Versions, releases and ranges as blang/semver v4 and opm read them (examples and properties)."""

from __future__ import annotations

import functools

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from releasekit.model.version import (
    Range,
    RangeError,
    Release,
    Version,
    VersionError,
    VersionRelease,
    go_quote,
    parse_range,
    parse_release,
    parse_version,
)

# ------------------------------------------------------------------------------------------ examples


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Version string empty"),
        ("1.0", "No Major.Minor.Patch elements found"),
        ("0.1.0.1", 'Invalid character(s) found in patch number "0.1"'),
        ("v1.0.0", 'Invalid character(s) found in major number "v1"'),
        ("1.x.0", 'Invalid character(s) found in minor number "x"'),
        ("01.0.0", 'Major number must not contain leading zeroes "01"'),
        ("1.00.1", 'Minor number must not contain leading zeroes "00"'),
        ("1.0.00", 'Patch number must not contain leading zeroes "00"'),
        ("1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.0.0-", "Prerelease is empty"),
        ("1.0.0-a..b", "Prerelease is empty"),
        ("1.0.0-a_b", 'Invalid character(s) found in prerelease "a_b"'),
        ("1.0.0+", "Build meta data is empty"),
        ("1.0.0+a_b", 'Invalid character(s) found in build meta data "a_b"'),
        ("1..0", 'strconv.ParseUint: parsing "": invalid syntax'),
        ("99999999999999999999.0.0", 'strconv.ParseUint: parsing "99999999999999999999": value out of range'),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_parse_errors_are_blangs(text: str, message: str) -> None:
    with pytest.raises(VersionError) as err:
        parse_version(text)
    assert str(err.value) == message


@pytest.mark.parametrize("text", ["0.0.0", "1.2.3", "1.2.3-alpha.1", "1.2.3-0.3.7+build.5", "10.20.30+a-b.c"])
def test_valid_versions_round_trip(text: str) -> None:
    assert str(parse_version(text)) == text


def test_semver_spec_precedence_example() -> None:
    chain = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "2.0.0",
        "2.1.0",
        "2.1.1",
    ]
    versions = [parse_version(v) for v in chain]
    assert all(a < b for a, b in zip(versions, versions[1:], strict=False))
    assert parse_version("1.0.0+a").compare(parse_version("1.0.0+b")) == 0
    assert parse_version("1.0.0+a") != parse_version("1.0.0+b")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (">v0.1.0", 'Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"'),
        (
            ">1.00.1",
            'Could not parse Range ">1.00.1": Could not parse version "1.00.1" in ">1.00.1": '
            'Minor number must not contain leading zeroes "00"',
        ),
        (
            ">1.2",
            'Could not parse Range ">1.2": Could not parse version "1.2" in ">1.2": No Major.Minor.Patch elements found',
        ),
        ("~1.0.0", 'Could not parse Range "~1.0.0": Could not parse comparator "~" in "~1.0.0"'),
        ("^1.0.0", 'Could not parse Range "^1.0.0": Could not parse comparator "^" in "^1.0.0"'),
        ("|| 1.0.0", "First element in range is '||'"),
        ("1.0.0 ||", "Last element in range is '||'"),
        ("   ", "Last element in range is '||'"),
        ("", "Last element in range is '||'"),
        ("abc", 'Could not get version from string: "abc"'),
    ],
)
def test_range_errors_are_blangs(text: str, message: str) -> None:
    with pytest.raises(RangeError) as err:
        parse_range(text)
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("text", "inside", "outside"),
    [
        # blang has no npm-style prerelease exclusion: 2.0.0-rc.1 < 2.0.0 is in range
        (">=1.0.0 <2.0.0", ["1.0.0", "1.9.9", "2.0.0-rc.1"], ["0.9.9", "2.0.0", "1.0.0-rc.1"]),
        (">= 1.0.0 < 2.0.0", ["1.5.0"], ["2.0.0"]),
        ("<1.0.0 || >=3.0.0", ["0.1.0", "3.1.0"], ["1.0.0", "2.9.0"]),
        ("1.x", ["1.0.0", "1.9.0"], ["2.0.0", "0.9.0"]),
        (">=1.2.x", ["1.2.0", "5.0.0"], ["1.1.9"]),
        ("<=1.2.x", ["1.2.99"], ["1.3.0"]),
        (">1.x", ["2.0.0"], ["1.9.9"]),
        ("!=1.0.0", ["1.0.1"], ["1.0.0"]),
        ("!1.0.0", ["1.0.1"], ["1.0.0"]),
        ("==1.0.0", ["1.0.0+build"], ["1.0.1"]),
        (">=4.5.0-0 <4.6.0", ["4.5.0-0", "4.5.3"], ["4.6.0", "4.4.0"]),
    ],
)
def test_range_membership(text: str, inside: list[str], outside: list[str]) -> None:
    r = parse_range(text)
    assert all(r.contains(parse_version(v)) for v in inside)
    assert not any(r.contains(parse_version(v)) for v in outside)


def test_spaced_hyphen_form_parses_like_opm() -> None:
    """blang drops one-character words, so ``1.0.0 - 2.0.0`` is ``=1.0.0 =2.0.0`` (matches nothing)."""
    r = parse_range("1.0.0 - 2.0.0")
    assert isinstance(r, Range)
    assert not r.contains(parse_version("1.5.0"))
    assert not r.contains(parse_version("1.0.0"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("!!!", 'invalid release "!!!": segment 0: Invalid character(s) found in prerelease "!!!"'),
        (
            "a.01",
            'invalid release "a.01": segment 1: Numeric PreRelease version must not contain leading zeroes "01"',
        ),
        ("a" * 21, f'invalid release "{"a" * 21}": exceeds maximum length of 20 characters'),
        (
            "a..!",
            'invalid release "a..!": segment 1: Prerelease is empty\nsegment 2: Invalid character(s) found in prerelease "!"',
        ),
    ],
)
def test_release_errors(text: str, message: str) -> None:
    with pytest.raises(VersionError) as err:
        parse_release(text)
    assert str(err.value) == message


def test_release_ordering_and_normalized_name() -> None:
    assert parse_release("") is None
    v = parse_version("1.0.0")
    plain, r1, r2 = (
        VersionRelease(v),
        VersionRelease(v, parse_release("1")),
        VersionRelease(v, parse_release("2")),
    )
    assert plain.compare(r1) == -1 and r1.compare(r2) == -1 and r2.compare(plain) == 1
    assert VersionRelease(parse_version("1.0.0+b"), Release((1,))).kubernetes_safe_string() == "1.0.0-b-1"


def test_go_quote() -> None:
    assert go_quote('a"b\\c\n') == '"a\\"b\\\\c\\n"'
    assert go_quote("é") == '"é"'


# -------------------------------------------------------------------------------------- properties

_num = st.integers(min_value=0, max_value=2**64 - 1)
_alnum_id = st.from_regex(r"\A[0-9A-Za-z-]*[A-Za-z-][0-9A-Za-z-]*\Z", fullmatch=True).filter(
    lambda s: len(s) < 12
)
_pre_id = st.one_of(st.integers(min_value=0, max_value=1000), _alnum_id)
_build_id = st.from_regex(r"\A[0-9A-Za-z-]{1,8}\Z", fullmatch=True)
versions = st.builds(
    Version,
    _num,
    _num,
    _num,
    st.lists(_pre_id, max_size=3).map(tuple),
    st.lists(_build_id, max_size=2).map(tuple),
)
small_versions = st.builds(
    Version,
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
    st.lists(st.sampled_from([0, 1, "alpha", "beta"]), max_size=2).map(tuple),
)


def _semver_key(v: Version) -> tuple[object, ...]:
    """Independent statement of semver §11 precedence, as a sort key."""
    pre = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in v.pre)
    return (v.major, v.minor, v.patch, 1 if not v.pre else 0, pre)


@given(versions)
def test_parse_str_round_trip(v: Version) -> None:
    assert parse_version(str(v)) == v


@given(versions, versions)
def test_compare_matches_semver_precedence(a: Version, b: Version) -> None:
    ka, kb = _semver_key(a), _semver_key(b)
    expected = (ka > kb) - (ka < kb)
    assert a.compare(b) == expected
    assert b.compare(a) == -expected
    assert (a < b) == (expected < 0) and (a >= b) == (expected >= 0)


@given(versions, versions, versions)
def test_compare_is_transitive(a: Version, b: Version, c: Version) -> None:
    if a <= b and b <= c:
        assert a <= c


@given(st.lists(versions, max_size=8))
def test_sorting_is_total(items: list[Version]) -> None:
    ordered = sorted(items, key=functools.cmp_to_key(Version.compare))
    assert all(x.compare(y) <= 0 for x, y in zip(ordered, ordered[1:], strict=False))


@given(st.integers(0, 5), st.integers(0, 5), small_versions)
def test_wildcard_expansion_is_equivalent(major: int, minor: int, v: Version) -> None:
    assert parse_range(f"{major}.x").contains(v) == parse_range(f">={major}.0.0 <{major + 1}.0.0").contains(v)
    assert parse_range(f"{major}.{minor}.x").contains(v) == parse_range(
        f">={major}.{minor}.0 <{major}.{minor + 1}.0"
    ).contains(v)
    assert parse_range(f"<={major}.x").contains(v) == parse_range(f"<{major + 1}.0.0").contains(v)
    assert parse_range(f">{major}.{minor}.x").contains(v) == parse_range(f">={major}.{minor + 1}.0").contains(
        v
    )


_ops = st.sampled_from(["", "=", "==", "!=", ">", ">=", "<", "<="])


@given(_ops, small_versions, _ops, small_versions, small_versions)
def test_and_or_semantics(op1: str, v1: Version, op2: str, v2: Version, probe: Version) -> None:
    assume(not v1.build and not v2.build)
    a, b = parse_range(f"{op1}{v1}"), parse_range(f"{op2}{v2}")
    assert parse_range(f"{op1}{v1} {op2}{v2}").contains(probe) == (a.contains(probe) and b.contains(probe))
    assert parse_range(f"{op1}{v1} || {op2}{v2}").contains(probe) == (a.contains(probe) or b.contains(probe))
