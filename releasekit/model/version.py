"""Semantic versions, release suffixes and version ranges exactly as opm reads them.

Pure core, no third-party imports. Reproduces blang/semver's ``Parse`` and ``ParseRange`` and opm's
``model.NewRelease``, error texts included, so releasekit rejects exactly what opm rejects, in its words.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = [
    "RELEASE_MAX_LENGTH",
    "Comparison",
    "PrereleaseId",
    "Range",
    "RangeError",
    "Release",
    "Version",
    "VersionError",
    "VersionRelease",
    "go_quote",
    "parse_prerelease_identifier",
    "parse_range",
    "parse_release",
    "parse_version",
]

RELEASE_MAX_LENGTH = 20
"""Longest release string opm accepts (bytes), from the CSV CRD constraint."""

_UINT64_MAX = 2**64 - 1
_INT64_MAX = 2**63 - 1
_UINT64_DIGITS = len(str(_UINT64_MAX))  # 20: a number with more significant digits is out of range
_INT64_DIGITS = len(str(_INT64_MAX))  # 19

PrereleaseId = int | str
"""One pre-release identifier: an ``int`` when numeric, else the alphanumeric string."""


class VersionError(ValueError):
    """A string that blang/semver rejects; ``str()`` is blang's message (e.g. ``Version string empty``)."""


class RangeError(ValueError):
    """A range that blang ``ParseRange`` rejects; ``str()`` is blang's message."""


# Go's backslash escapes: each character and the letter written after the backslash
_GO_ESCAPES = {char: "\\" + name for char, name in zip('"\\\n\t\r\a\b\f\v', '"\\ntrabfv', strict=True)}


def go_quote(text: str) -> str:
    """Quote ``text`` as Go's ``%q`` / ``strconv.Quote`` does (printable Unicode kept as is)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'  # the common case: nothing to escape
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")  # Go never holds lone surrogates; invalid UTF-8 prints as U+FFFD
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


_DIGITS = re.compile(r"[0-9]*")  # blang's containsOnly: true for ""
_ALPHANUM = re.compile(r"[0-9A-Za-z-]*")


def _has_leading_zeroes(text: str) -> bool:
    return len(text) > 1 and text[0] == "0"


def _parse_uint(text: str) -> int:
    """Go ``strconv.ParseUint(text, 10, 64)`` for a string already known to hold only ASCII digits."""
    if not text:
        raise VersionError(f"strconv.ParseUint: parsing {go_quote(text)}: invalid syntax")
    digits = text.lstrip("0") or "0"
    if len(digits) > _UINT64_DIGITS or int(digits) > _UINT64_MAX:  # length first: int() refuses 4,300 digits
        raise VersionError(f"strconv.ParseUint: parsing {go_quote(text)}: value out of range")
    return int(digits)


def parse_prerelease_identifier(text: str) -> PrereleaseId:
    """Parse one pre-release identifier as blang ``NewPRVersion`` does.

    Raises:
        VersionError: empty, a leading zero in a numeric identifier, or a character outside ``[0-9A-Za-z-]``.
    """
    if not text:
        raise VersionError("Prerelease is empty")
    if _DIGITS.fullmatch(text):
        if _has_leading_zeroes(text):
            raise VersionError(f"Numeric PreRelease version must not contain leading zeroes {go_quote(text)}")
        return _parse_uint(text)
    if _ALPHANUM.fullmatch(text):
        return text
    raise VersionError(f"Invalid character(s) found in prerelease {go_quote(text)}")


def _ids_key(ids: Iterable[PrereleaseId]) -> tuple[tuple[int, int, str], ...]:
    """Sort key of identifiers: numbers numerically, before strings, strings bytewise (ASCII); longer wins ties."""
    return tuple((0, i, "") if isinstance(i, int) else (1, 0, i) for i in ids)


def _cmp(a: tuple[object, ...], b: tuple[object, ...]) -> int:
    return (a > b) - (a < b)


def _pre_text(pre: Iterable[PrereleaseId]) -> str:
    return ".".join(str(p) for p in pre)


@dataclass(frozen=True, slots=True)
class Version:
    """A strict semantic version (blang/semver v4 ``Version``).

    ``<``/``>``/``compare`` follow semver precedence (build metadata ignored); ``==`` is field equality
    (``1.0.0+a != 1.0.0+b`` although neither precedes the other).
    """

    major: int
    minor: int
    patch: int
    pre: tuple[PrereleaseId, ...] = ()
    build: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Version:
        """Same as :func:`parse_version`."""
        return parse_version(text)

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + _pre_text(self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def key(self) -> tuple[int, int, int, bool, tuple[tuple[int, int, str], ...]]:
        """Sort key by semver precedence: a version without pre-release after one with it; no build."""
        return (self.major, self.minor, self.patch, not self.pre, _ids_key(self.pre))

    def compare(self, other: Version) -> int:
        """-1, 0 or 1 by semver precedence (blang ``Compare``; build metadata ignored)."""
        return _cmp(self.key(), other.key())

    def __lt__(self, other: Version) -> bool:
        return self.compare(other) < 0

    def __le__(self, other: Version) -> bool:
        return self.compare(other) <= 0

    def __gt__(self, other: Version) -> bool:
        return self.compare(other) > 0

    def __ge__(self, other: Version) -> bool:
        return self.compare(other) >= 0


# MAJOR.MINOR.PATCH without leading zeros, pre-release or build, each number below 2**64 (19 digits at
# most): what parse_version accepts without any of its checks firing.
_PLAIN_VERSION = re.compile(r"(0|[1-9][0-9]{0,18})\.(0|[1-9][0-9]{0,18})\.(0|[1-9][0-9]{0,18})\Z")


def parse_version(text: str) -> Version:
    """Parse ``text`` as blang ``semver.Parse`` does (what opm requires of ``olm.package`` versions).

    Raises:
        VersionError: with blang's exact message, e.g. ``No Major.Minor.Patch elements found``.
    """
    plain = _PLAIN_VERSION.match(text)
    if plain is not None:  # the common case, MAJOR.MINOR.PATCH alone: nothing to report
        return Version(int(plain[1]), int(plain[2]), int(plain[3]))
    if not text:
        raise VersionError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise VersionError("No Major.Minor.Patch elements found")
    patch_text, plus, build_text = parts[2].partition("+")  # splitting raises nothing, so blang's order holds
    patch_text, dash, pre_text = patch_text.partition("-")
    build_parts = build_text.split(".") if plus else []
    numbers: list[int] = []
    for label, part in (("major", parts[0]), ("minor", parts[1]), ("patch", patch_text)):
        if not _DIGITS.fullmatch(part):
            raise VersionError(f"Invalid character(s) found in {label} number {go_quote(part)}")
        if _has_leading_zeroes(part):
            raise VersionError(
                f"{label.capitalize()} number must not contain leading zeroes {go_quote(part)}"
            )
        numbers.append(_parse_uint(part))
    pre = tuple(parse_prerelease_identifier(p) for p in pre_text.split(".")) if dash else ()
    for item in build_parts:
        if not item:
            raise VersionError("Build meta data is empty")
        if not _ALPHANUM.fullmatch(item):
            raise VersionError(f"Invalid character(s) found in build meta data {go_quote(item)}")
    return Version(numbers[0], numbers[1], numbers[2], pre, tuple(build_parts))


@dataclass(frozen=True, slots=True)
class Release:
    """opm's optional release suffix of a bundle version (``model.Release``): pre-release identifiers."""

    segments: tuple[PrereleaseId, ...]

    def __str__(self) -> str:
        return _pre_text(self.segments)

    def compare(self, other: Release | None) -> int:
        """Compare with another release; ``None`` (no release) sorts before any release."""
        return _cmp(_ids_key(self.segments), _ids_key(other.segments if other else ()))


def parse_release(text: str) -> Release | None:
    """Parse a release string as opm ``model.NewRelease`` does; ``""`` means no release (``None``).

    Raises:
        VersionError: longer than 20 characters, or a bad segment (one line per segment, blang's text).
    """
    if text == "":
        return None
    if len(text.encode("utf-8", "surrogatepass")) > RELEASE_MAX_LENGTH:
        raise VersionError(
            f"invalid release {go_quote(text)}: exceeds maximum length of {RELEASE_MAX_LENGTH} characters"
        )
    segments: list[PrereleaseId] = []
    errors: list[str] = []
    for index, segment in enumerate(text.split(".")):
        try:
            segments.append(parse_prerelease_identifier(segment))
        except VersionError as exc:
            errors.append(f"segment {index}: {exc}")
    if errors:
        raise VersionError(f"invalid release {go_quote(text)}: " + "\n".join(errors))
    return Release(tuple(segments))


@dataclass(frozen=True, slots=True)
class VersionRelease:
    """A bundle's version plus optional release, ordered as opm's ``VersionRelease.Compare``."""

    version: Version
    release: Release | None = None

    def compare(self, other: VersionRelease) -> int:
        """Version precedence first, then no release < any release, then release identifiers."""
        mine = (self.version.key(), _ids_key(self.release.segments if self.release else ()))
        return _cmp(mine, (other.version.key(), _ids_key(other.release.segments if other.release else ())))

    def kubernetes_safe_string(self) -> str:
        """``<version>[-<release>]`` with ``+`` replaced by ``-`` (opm's normalized-name suffix)."""
        return str(self).replace("+", "-")  # a release has no "+"

    def __str__(self) -> str:
        if self.release is not None and self.release.segments:
            return f"{self.version}-{self.release}"
        return str(self.version)


_COMPARATORS: dict[str, Callable[[int, int], bool]] = {  # applied to (version.compare(bound), 0)
    **dict.fromkeys(("", "=", "=="), operator.eq),
    **dict.fromkeys(("!", "!="), operator.ne),
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}


@dataclass(frozen=True, slots=True)
class Comparison:
    """One ``<op><version>`` term of a range (``op`` as written: ``""``, ``=``, ``==``, ``!``, ``!=``, ...)."""

    op: str
    version: Version

    def matches(self, version: Version) -> bool:
        """True when ``version`` satisfies this term."""
        return _COMPARATORS[self.op](version.compare(self.version), 0)


@dataclass(frozen=True, slots=True)
class Range:
    """A parsed blang range: OR of AND-groups of comparisons (after ``x`` wildcard expansion)."""

    text: str
    alternatives: tuple[tuple[Comparison, ...], ...] = field(default=())

    def contains(self, version: Version) -> bool:
        """True when ``version`` is in the range (an empty ``||`` group matches nothing)."""
        return any(group and all(term.matches(version) for term in group) for group in self.alternatives)


def _split_and_trim(text: str) -> list[str]:
    """Blang's ``splitAndTrim`` on UTF-8 bytes; note it silently drops one-byte words (``-`` in ``a - b``)."""
    data = text.encode("utf-8", "surrogatepass")
    result: list[bytes] = []
    last = 0
    last_char = 0
    exclude = b"><="
    for i, byte in enumerate(data):
        if byte == 0x20 and last_char not in exclude:
            if last < i - 1:
                result.append(data[last:i])
            last = i + 1
        elif byte != 0x20:
            last_char = byte
    if last < len(data) - 1:
        result.append(data[last:])
    return [part.replace(b" ", b"").decode("utf-8", "surrogatepass") for part in result]


def _split_or_parts(parts: list[str]) -> list[list[str]]:
    groups: list[list[str]] = []
    last = 0
    for i, part in enumerate(parts):
        if part == "||":
            if i == 0:
                raise RangeError("First element in range is '||'")
            groups.append(parts[last:i])
            last = i + 1
    if last == len(parts):
        raise RangeError("Last element in range is '||'")
    groups.append(parts[last:])
    return groups


def _split_comparator_version(text: str) -> tuple[str, str]:
    for i, ch in enumerate(text):
        if unicodedata.category(ch) == "Nd":  # Go's unicode.IsDigit
            return text[:i].strip(), text[i:]
    raise RangeError(f"Could not get version from string: {go_quote(text)}")


def _go_atoi(text: str) -> int | None:
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not _DIGITS.fullmatch(body):
        return None
    if len(body) > _INT64_DIGITS and len(body.lstrip("0")) > _INT64_DIGITS:
        return None  # out of int64's range (checked before int(), which refuses over 4,300 digits)
    value = int(text)
    return value if -(2**63) <= value <= _INT64_MAX else None


def _increment(text: str, index: int) -> str:
    """Blang's ``incrementMajorVersion``/``incrementMinorVersion`` on part ``index`` of ``text``."""
    parts = text.split(".")
    value = _go_atoi(parts[index]) if index < len(parts) else None
    if value is None:
        return ""
    value = value + 1 if value < _INT64_MAX else -(2**63)  # Go int wraps
    parts[index] = str(value)
    return ".".join(parts)


def _flat_wildcard(text: str) -> str:
    flat = text.replace(".x.x", ".x", 1).replace(".x", ".0", 1)
    return flat + ".0" if len(flat.split(".")) == 2 else flat


# comparator -> (a comparison added before, the comparison it becomes, whether its version is incremented)
_WILDCARD_OPS = {
    ">": ("", ">=", True),
    ">=": ("", ">=", False),
    "<": ("", "<", False),
    "<=": ("", "<", True),
    **dict.fromkeys(("", "=", "=="), (">=", "<", True)),
    **dict.fromkeys(("!=", "!"), ("<", ">=", True)),
}


def _expand_wildcards(groups: list[list[str]]) -> list[list[str]]:
    expanded: list[list[str]] = []
    for group in groups:
        new_parts: list[str] = []
        for part in group:
            if "x" in part:
                op, version = _split_comparator_version(part)
                pieces = version.split(".")
                wildcard = {2: "minor", 3: "patch"}.get(len(pieces)) if pieces[-1] == "x" else None
                flat = _flat_wildcard(version)
                before, result_op, increment = _WILDCARD_OPS.get(op, ("", "", False))
                if before:
                    new_parts.append(before + flat)
                if not increment:
                    result_version = flat
                else:
                    result_version = _increment(flat, 1 if wildcard == "patch" else 0) if wildcard else ""
                part = result_op + result_version
            new_parts.append(part)
        expanded.append(new_parts)
    return expanded


def parse_range(text: str) -> Range:
    """Parse a version range exactly as blang ``semver.ParseRange`` (what opm applies to skipRange).

    Raises:
        RangeError: with blang's text, e.g. ``Could not get version from string: "x"``.
    """
    parts = _split_and_trim(text)
    groups = _expand_wildcards(_split_or_parts(parts))
    alternatives: list[tuple[Comparison, ...]] = []
    for group in groups:
        terms: list[Comparison] = []
        for part in group:
            op, version_text = _split_comparator_version(part)
            if op not in _COMPARATORS:
                detail = f"Could not parse comparator {go_quote(op)} in {go_quote(op + version_text)}"
                raise RangeError(f"Could not parse Range {go_quote(part)}: {detail}")
            try:
                version = parse_version(version_text)
            except VersionError as exc:
                detail = f"Could not parse version {go_quote(version_text)} in {go_quote(op + version_text)}: {exc}"
                raise RangeError(f"Could not parse Range {go_quote(part)}: {detail}") from None
            terms.append(Comparison(op, version))
        alternatives.append(tuple(terms))
    return Range(text, tuple(alternatives))
