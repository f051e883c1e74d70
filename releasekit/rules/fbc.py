"""``opm validate``, rule for rule, reporting every finding instead of the first.

Pure core: takes a loaded :class:`~releasekit.model.fbc.DeclarativeConfig` and returns findings; no I/O.

opm's ``declcfg.ConvertToModel`` has two phases -- fail-fast structural checks (phase A) and
``model.Validate`` (phase B, an error tree). Both are implemented here, but every check runs on every
object it applies to, so one run lists everything opm would make you fix one ``opm validate`` at a time.
Each message CONTAINS opm's own wording for the check (the leaf line of opm's error tree), so people who
know opm recognise it; the :class:`~releasekit.model.finding.Finding` adds a location (file, line and a
JSON path such as ``$.entries[2]`` inside the object), a ``subject`` (package → channel → bundle) and a
hint saying how to fix it.

Where opm has a quirk, releasekit reports the plain problem: a channel entry without an ``olm.bundle``
blob is reported for every channel that has one (opm's phase A sees only the last channel blob of a
package and reports the others indirectly, as ``must be exactly one property with type "olm.package"``
/ ``bundle image must be set`` under the phantom bundle).

Rule ids (stable, never renumbered; ``RK-FBC-001`` … ``RK-FBC-009`` are the loader's, see
:mod:`releasekit.io.fbc_load`) and their titles and hints are :data:`RULES`; all are errors, as opm rejects
the catalog for each.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from releasekit.model.fbc import (
    JSON_KINDS,
    MISSING,
    PROP_PACKAGE,
    PROPERTY_SHAPES,
    Bundle,
    Channel,
    ChannelEntry,
    DeclarativeConfig,
    Deprecation,
    Package,
    json_kind,
)
from releasekit.model.finding import Finding, Location, Severity, make_finding
from releasekit.model.version import (
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

__all__ = [
    "GraphProblem",
    "RULES",
    "RuleInfo",
    "channel_heads",
    "check_channel_graph",
    "dns1123_label_errors",
    "entry_index",
    "image_pull_spec_error",
    "validate_config",
]


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What a rule checks and the generic fix (``hint`` may hold ``{placeholders}``)."""

    id: str
    title: str
    hint: str
    severity: Severity = Severity.ERROR


_PULL_SPEC_HINT: Final = (
    "use a pull spec like registry.example.com/ns/repo@sha256:<64 hex> (lower-case repository; digest "
    "algorithms sha256, sha384 or sha512)"
)

RULES: Final[Mapping[str, RuleInfo]] = {
    rid: RuleInfo(rid, title, hint)
    for rid, (title, hint) in {
        "RK-FBC-010": ("package with no name", "give the olm.package blob a name"),
        "RK-FBC-011": (
            "duplicate package",
            "keep one olm.package blob per package and merge the other into it",
        ),
        "RK-FBC-012": (
            "package name is not a DNS-1123 label",
            "rename the package to lower-case letters, digits and '-' (at most 63, starting and ending "
            "alphanumeric), e.g. {suggestion!r}",
        ),
        "RK-FBC-013": (
            "channel of an unknown package",
            "add an olm.package blob named {package!r} or fix the channel's package field",
        ),
        "RK-FBC-014": ("channel with no name", "give the olm.channel blob a name"),
        "RK-FBC-015": ("duplicate channel", "merge the entries into one olm.channel blob named {channel!r}"),
        "RK-FBC-016": ("duplicate channel entry", "list bundle {bundle!r} once in channel {channel!r}"),
        "RK-FBC-017": ("bundle without package", "set the bundle's package field"),
        "RK-FBC-018": (
            "bundle of an unknown package",
            "add an olm.package blob named {package!r} or fix the bundle's package field",
        ),
        "RK-FBC-019": (
            "duplicate bundle",
            "keep one olm.bundle blob named {bundle!r} in package {package!r}",
        ),
        "RK-FBC-020": (
            "property cannot be parsed",
            "give the property a value of the shape its type requires (olm.package: {{packageName, "
            "version}}; olm.gvk: {{group, kind, version}}; any type: a value)",
        ),
        "RK-FBC-021": (
            "not exactly one olm.package property",
            "give the bundle exactly one olm.package property {{packageName, version}}",
        ),
        "RK-FBC-022": (
            "olm.package property names another package",
            "set the olm.package property's packageName to {package!r}",
        ),
        "RK-FBC-023": ("invalid bundle image pull spec", _PULL_SPEC_HINT),
        "RK-FBC-024": ("invalid related image pull spec", _PULL_SPEC_HINT),
        "RK-FBC-025": (
            "version is not strict semver",
            "write the version as MAJOR.MINOR.PATCH[-prerelease][+build], without 'v' and leading zeros",
        ),
        "RK-FBC-026": (
            "invalid release",
            "write the release as dot-separated identifiers of [0-9A-Za-z-] (no leading zeros in numbers, "
            "at most 20 characters), or leave it out",
        ),
        "RK-FBC-027": (
            "bundle in no channel",
            "add {bundle!r} to a channel's entries, or remove the bundle blob",
        ),
        "RK-FBC-028": (
            "channel entry without bundle",
            "add an olm.bundle blob for each listed entry, or remove the entries from channel {channel!r}",
        ),
        "RK-FBC-030": ("deprecation without package", "set the olm.deprecations blob's package field"),
        "RK-FBC-031": (
            "deprecation of an unknown package",
            "fix the package field, or add an olm.package blob named {package!r}",
        ),
        "RK-FBC-032": (
            "more than one deprecation blob",
            "merge the entries into one olm.deprecations blob for package {package!r}",
        ),
        "RK-FBC-033": (
            "deprecation entry without schema",
            "set reference.schema to olm.bundle, olm.channel or olm.package",
        ),
        "RK-FBC-034": ("duplicate deprecation entry", "list each deprecated object once"),
        "RK-FBC-035": (
            "deprecated bundle not found",
            "name a bundle that is in one of the package's channels, or drop the entry",
        ),
        "RK-FBC-036": (
            "deprecated channel not found",
            "name one of the package's channels, or drop the entry",
        ),
        "RK-FBC-037": ("package deprecation with a name", "remove reference.name from the olm.package entry"),
        "RK-FBC-038": (
            "deprecation reference of unknown schema",
            "use reference.schema olm.bundle, olm.channel or olm.package",
        ),
        "RK-FBC-039": ("deprecation without message", "write a message telling users what to do instead"),
        "RK-FBC-040": ("no default channel", "set defaultChannel to one of the package's channels"),
        "RK-FBC-041": (
            "channel without bundles",
            "add entries to channel {channel!r}, or point defaultChannel at a channel that has some",
        ),
        "RK-FBC-042": ("package without channels", "add an olm.channel blob for the package"),
        "RK-FBC-043": (
            "no channel head",
            "exactly one entry must be neither replaced nor skipped by another; break the cycle of "
            "replaces/skips in channel {channel!r}",
        ),
        "RK-FBC-044": (
            "several channel heads",
            "link the heads: the newest should replace (or skip) the others, so only one is not replaced "
            "or skipped",
        ),
        "RK-FBC-045": ("replaces cycle", "remove one replaces edge of the cycle"),
        "RK-FBC-046": (
            "stranded bundles",
            "put each listed bundle on the head's replaces chain or in some entry's skips (a skipRange "
            "does not count); do not skip the bundle the head replaces",
        ),
        "RK-FBC-047": (
            "duplicate versions",
            "give each bundle of the package its own version (or a distinct release)",
        ),
        "RK-FBC-048": ("channel entry without name", "give every channel entry a bundle name"),
        "RK-FBC-049": ("bundle name not normalized", "rename the bundle to {normalized!r}"),
        "RK-FBC-050": ("empty skips item", "remove the empty string from skips"),
        "RK-FBC-051": (
            "invalid skipRange",
            "write a range like '>=1.0.0 <1.2.0' (full versions, comparators = != > >= < <=, no 'v')",
        ),
        "RK-FBC-052": (
            "bundle image must be set",
            "set the bundle's image, or add its manifests as olm.bundle.object properties",
        ),
        "RK-FBC-053": (
            "build metadata with a release",
            "drop the +build metadata from the version, or drop the release",
        ),
    }.items()
}


# ------------------------------------------------------------------------------------ small helpers


_q = go_quote


# A subject is kept as (kind, raw name) pairs and quoted only when a finding is made: most objects have
# no finding, and quoting every name up front was most of the validation time on large catalogs.
_SubjectPart = tuple[str, str]


class _HintArgs(dict[str, str]):
    """Hint arguments; a placeholder nobody filled stays readable instead of failing."""

    def __missing__(self, key: str) -> str:
        return key


class _Collector(list[Finding]):
    """Accumulates findings; one place that builds them from the rule table."""

    def add(
        self,
        rule: str,
        message: str,
        location: Location,
        path: str = "",
        subject: Sequence[_SubjectPart] = (),
        **hint_args: str,
    ) -> None:
        """Add a finding of ``rule``; hint placeholders {package}, {channel}, {bundle} name the subject."""
        info = RULES[rule]
        self.append(
            make_finding(
                rule,
                message,
                Location(file=location.file, line=location.line, path=path or location.path),
                info.hint.format_map(_HintArgs(dict(subject), **hint_args)),
                tuple(f"{kind} {go_quote(name)}" for kind, name in subject),
                info.severity,
            )
        )


# --------------------------------------------------------------------------------------- DNS-1123

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def dns1123_label_errors(value: str) -> list[str]:
    """Kubernetes ``IsDNS1123Label``: the list of problems (empty when ``value`` is a valid label)."""
    errors: list[str] = []
    if len(value.encode("utf-8", "surrogatepass")) > 63:
        errors.append("must be no more than 63 characters")
    if not _DNS1123_LABEL.match(value):
        if _DNS1123_SUBDOMAIN.match(value):
            errors.append("must not contain dots")
        else:
            errors.append(_DNS1123_LABEL_MSG)
    return errors


def _dns_suggestion(value: str) -> str:
    text = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")
    return text[:63].strip("-") or "my-operator"


# ------------------------------------------------------------------------------- image references
# distribution/reference (go.podman.io/image/v5/docker/reference) as ParseNormalizedNamed applies it.

_ALNUM = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]*)"
# Possessive alphanumeric runs: Go matches this grammar in linear time (RE2); with plain `+` and an
# optional separator Python backtracks exponentially on a reference that does not match.
_PATH_COMPONENT = _ALNUM + r"+(?:" + _SEPARATOR + _ALNUM + r"+)*+"
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_HOST = r"(?:" + _DOMAIN_NAME + r"|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN = _HOST + r"(?::[0-9]+)?"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
_NAME = r"(?:" + _DOMAIN + r"/)?" + _REMOTE_NAME
_REFERENCE = re.compile(r"(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?\Z", re.ASCII)
_IDENTIFIER = re.compile(r"[a-f0-9]{64}\Z")
_DIGEST_GRAMMAR = re.compile(r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+\Z")
_DIGEST_SIZES = {"sha256": 32, "sha384": 48, "sha512": 64}
_NAME_TOTAL_LENGTH_MAX = 255
# _REMOTE_NAME's language, written so that a failing match cannot backtrack exponentially (an empty
# ``[-]*`` separator between two alphanumeric runs adds nothing to the language).
_PLAIN_PATH_COMPONENT = _ALNUM + r"(?:(?:[._]|__|-+)" + _ALNUM + r")*"
_PLAIN_REMOTE_NAME = _PLAIN_PATH_COMPONENT + r"(?:/" + _PLAIN_PATH_COMPONENT + r")*"
# A strict subset of valid pull specs, the usual ``registry.domain[:port]/repo[:tag][@sha256:<64 hex>]``,
# built from the same pieces: a match is a valid reference, so image_pull_spec_error can answer at once.
# The registry has a dot, so it is never docker.io's default.
_PLAIN_PULL_SPEC = re.compile(
    _DOMAIN_COMPONENT
    + r"(?:\."
    + _DOMAIN_COMPONENT
    + r")+(?::[0-9]+)?/"
    + _PLAIN_REMOTE_NAME
    + r"(?::"
    + _TAG
    + r")?(?:@sha256:[a-f0-9]{64})?\Z",
    re.ASCII,
)
_PLAIN_PULL_SPEC_MAX = 200  # below the 255-character name limit, even with docker.io/library/ added


def _split_docker_domain(name: str) -> tuple[str, str]:
    i = name.find("/")
    if i == -1 or (not any(c in name[:i] for c in ".:") and name[:i] != "localhost"):
        domain, remainder = "docker.io", name
    else:
        domain, remainder = name[:i], name[i + 1 :]
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remainder:
        remainder = "library/" + remainder
    return domain, remainder


def _digest_error(digest: str) -> str | None:
    i = digest.find(":")
    if i <= 0 or i + 1 == len(digest):
        return "invalid checksum digest format"
    algorithm, encoded = digest[:i], digest[i + 1 :]
    size = _DIGEST_SIZES.get(algorithm)
    if size is None:
        if not _DIGEST_GRAMMAR.match(digest):
            return "invalid checksum digest format"
        return "unsupported digest algorithm"
    if len(encoded) != size * 2:
        return "invalid checksum digest length"
    if not re.fullmatch(r"[a-f0-9]+", encoded):
        return "invalid checksum digest format"
    return None


def image_pull_spec_error(ref: str) -> str | None:
    """Why ``ref`` is not a valid image pull spec (``ParseNormalizedNamed``), or ``None`` when it is.

    The texts are the Go library's (``invalid reference format: repository name must be lowercase``).
    """
    if len(ref) <= _PLAIN_PULL_SPEC_MAX and _PLAIN_PULL_SPEC.match(ref):
        return None
    if _IDENTIFIER.match(ref):
        return f"invalid repository name ({ref}), cannot specify 64-byte hexadecimal strings"
    domain, remainder = _split_docker_domain(ref)
    tag_sep = remainder.find(":")
    remote = remainder[:tag_sep] if tag_sep > -1 else remainder
    if remote.lower() != remote:
        return "invalid reference format: repository name must be lowercase"
    full = domain + "/" + remainder
    match = _REFERENCE.match(full)
    if match is None:
        if not full:
            return "repository name must have at least one component"
        if _REFERENCE.match(full.lower()):
            return "invalid reference format: repository name must be lowercase"
        return "invalid reference format"
    if len(match.group(1)) > _NAME_TOTAL_LENGTH_MAX:
        return f"repository name must not be more than {_NAME_TOTAL_LENGTH_MAX} characters"
    if match.group(3):
        return _digest_error(match.group(3))
    return None


# -------------------------------------------------------------------------------------- properties


def _lookup(obj: Mapping[str, Any], name: str) -> Any:
    if name in obj:
        return obj[name]
    folded = name.casefold()
    return next((v for k, v in obj.items() if isinstance(k, str) and k.casefold() == folded), None)


def _property_error(type_: str, value: Any) -> str | None:
    """Go ``property.Parse``'s complaint about one property value, or ``None``."""
    if value is MISSING:
        return "unexpected end of JSON input"
    shape = PROPERTY_SHAPES.get(type_)
    if shape is None or value is None:
        return None
    struct, fields = shape
    if not isinstance(value, dict):
        return f"json: cannot unmarshal {json_kind(value)} into Go value of type property.{struct}"
    exact = value.keys() <= fields.keys()  # then a field it lacks needs no case-folded search
    for name, (kind, gotype) in fields.items():
        item = value.get(name) if exact else _lookup(value, name)
        if item is None or JSON_KINDS.get(type(item)) == kind:  # absent, null, or of the kind wanted
            continue
        wrong = _field_error(item, kind, gotype)
        if wrong is not None:
            found, wanted = wrong
            return f"json: cannot unmarshal {found} into Go struct field {struct}.{name} of type {wanted}"
    return None


_CONTAINERS = {"map": dict, "strings": list}


def _field_error(item: Any, kind: str, gotype: str) -> tuple[str, str] | None:
    """The JSON kind Go cannot unmarshal and the Go type it wanted, or ``None`` when ``item`` fits.

    ``item`` is a present (not None) field of JSON kind ``kind``; a ``map``'s values and the items of
    ``strings`` must each be null or a string.
    """
    container = _CONTAINERS.get(kind)
    if container is None:
        found = json_kind(item)
        return None if found == kind else (found, gotype)
    if not isinstance(item, container):
        return json_kind(item), gotype
    members = item.values() if kind == "map" else item
    bad = next((sub for sub in members if sub is not None and not isinstance(sub, str)), None)
    return None if bad is None else (json_kind(bad), "string")


# ------------------------------------------------------------------------------------------ graph


@dataclass(frozen=True, slots=True)
class GraphProblem:
    """What is wrong with one channel's upgrade graph (at most one, as opm reports).

    ``rule`` is RK-FBC-043 (no head), 044 (several heads), 045 (cycle) or 046 (stranded); ``message`` opm's
    exact text; ``names`` the heads, the cycle path or the stranded bundles.
    """

    rule: str
    message: str
    names: tuple[str, ...]


def channel_heads(entries: Iterable[ChannelEntry]) -> tuple[str, ...]:
    """Names with no incoming ``replaces``/``skips`` edge from the channel's entries, sorted.

    The first entry of a repeated name wins, as opm's model keeps one bundle per name.
    """
    unique = _unique_entries(entries)
    incoming: set[str] = set()
    for entry in unique.values():
        if entry.replaces:
            incoming.add(entry.replaces)
        incoming.update(entry.skips)
    return tuple(sorted(name for name in unique if name not in incoming))


def _unique_entries(entries: Iterable[ChannelEntry]) -> dict[str, ChannelEntry]:
    unique: dict[str, ChannelEntry] = {}
    for entry in entries:
        unique.setdefault(entry.name, entry)
    return unique


def check_channel_graph(entries: Iterable[ChannelEntry]) -> GraphProblem | None:
    """Opm's ``validateReplacesChain`` for one channel (FBC spec §3.3), or ``None`` when it is sound.

    Exactly one head (``skipRange`` makes no edge); walking ``replaces`` from it revisits no name (the walk
    stops at a name absent from the channel or skipped by some entry); every entry is on that walk or
    skipped, else it is stranded. An empty channel has no graph problem (it is RK-FBC-041).
    """
    unique = _unique_entries(entries)
    if not unique:
        return None
    heads = channel_heads(unique.values())
    if not heads:
        return GraphProblem("RK-FBC-043", "no channel head found in graph", ())
    if len(heads) > 1:
        return GraphProblem("RK-FBC-044", f"multiple channel heads found in graph: {', '.join(heads)}", heads)
    skipped = {skip for entry in unique.values() for skip in entry.skips}
    path: list[str] = [heads[0]]
    on_chain: set[str] = {heads[0]}
    cur: ChannelEntry | None = unique[heads[0]]
    while cur is not None:
        nxt = cur.replaces
        if nxt in on_chain:
            cycle = path[path.index(nxt) :] + [nxt]
            return GraphProblem(
                "RK-FBC-045",
                f"detected cycle in replaces chain of upgrade graph: {' -> '.join(cycle)}",
                tuple(cycle),
            )
        on_chain.add(nxt)
        path.append(nxt)
        if nxt in skipped:
            break  # the edge is known to be skipped: opm stops following replaces here
        cur = unique.get(nxt)
    stranded = sorted(set(unique) - on_chain - skipped)
    if stranded:
        return GraphProblem(
            "RK-FBC-046",
            f"channel contains one or more stranded bundles: {', '.join(stranded)}",
            tuple(stranded),
        )
    return None


# ------------------------------------------------------------------------------------ validation


@dataclass
class _BundleFacts:
    """What phase A learned about one bundle blob, for the later checks."""

    bundle: Bundle
    version: Version | None = None
    release: Release | None = None
    release_ok: bool = True
    package_prop_index: int | None = None

    @property
    def version_path(self) -> str:
        """JSON path of the version in the ``olm.package`` property ("" when there is none)."""
        index = self.package_prop_index
        return f"$.properties[{index}].value.version" if index is not None else ""


@dataclass
class _PackageState:
    package: Package
    channels: dict[str, Channel]
    bundles: dict[str, _BundleFacts]
    images: dict[str, str | None]  # why each image is no pull spec: bundles repeat their related images

    @functools.cached_property
    def entry_names(self) -> frozenset[str]:
        """Every entry name of the package's channels (computed once, after the channels are read)."""
        return frozenset(e.name for ch in self.channels.values() for e in ch.entry_list)


def entry_index(channel: Channel, name: str) -> int:
    """Index of the first entry named ``name`` in ``channel`` (0 when absent)."""
    return next((i for i, e in enumerate(channel.entry_list) if e.name == name), 0)


def validate_config(config: DeclarativeConfig) -> tuple[Finding, ...]:
    """Run every ``opm validate`` check (both phases) over ``config`` and return all findings.

    The verdict agrees with opm: no error finding exactly when opm passes.
    """
    out = _Collector()
    packages = _check_packages(config.packages, out)
    _check_channels(config.channels, packages, out)
    _check_bundles(config.bundles, packages, out)
    _check_missing_bundles(packages, out)
    _check_deprecations(config.deprecations, packages, out)
    for state in packages.values():
        _check_package_model(state, out)
    return tuple(out)


def _check_packages(packages: Sequence[Package], out: _Collector) -> dict[str, _PackageState]:
    states: dict[str, _PackageState] = {}
    for pkg in packages:
        if pkg.name == "":
            out.add(
                "RK-FBC-010",
                "config contains package with no name",
                pkg.location,
                "$.name",
                (("package", ""),),
            )
            continue
        subject = (("package", pkg.name),)
        if pkg.name in states:
            first = states[pkg.name].package.location
            where = f" (first defined at {first})" if first.file else ""
            out.add("RK-FBC-011", f"duplicate package {_q(pkg.name)}{where}", pkg.location, "$.name", subject)
            continue
        errors = dns1123_label_errors(pkg.name)
        if errors:
            out.add(
                "RK-FBC-012",
                f"invalid package name {_q(pkg.name)}: [{' '.join(errors)}]",
                pkg.location,
                "$.name",
                subject,
                suggestion=_dns_suggestion(pkg.name),
            )
        states[pkg.name] = _PackageState(pkg, {}, {}, {})
    return states


def _check_channels(channels: Sequence[Channel], packages: dict[str, _PackageState], out: _Collector) -> None:
    for ch in channels:
        state = packages.get(ch.package)
        subject = (("package", ch.package), ("channel", ch.name))
        if state is None:
            out.add(
                "RK-FBC-013",
                f"unknown package {_q(ch.package)} for channel {_q(ch.name)}",
                ch.location,
                "$.package",
                subject,
            )
            continue
        if ch.name == "":
            out.add(
                "RK-FBC-014",
                f"package {_q(ch.package)} contains channel with no name",
                ch.location,
                "$.name",
                (("package", ch.package),),
            )
            continue
        if ch.name in state.channels:
            out.add(
                "RK-FBC-015",
                f"package {_q(ch.package)} has duplicate channel {_q(ch.name)}",
                ch.location,
                "$.name",
                subject,
            )
            continue
        seen: set[str] = set()
        for i, entry in enumerate(ch.entry_list):
            if entry.name in seen:
                out.add(
                    "RK-FBC-016",
                    f"invalid package {_q(ch.package)}, channel {_q(ch.name)}: duplicate entry {_q(entry.name)}",
                    ch.location,
                    f"$.entries[{i}]",
                    (*subject, ("bundle", entry.name)),
                )
            seen.add(entry.name)
        state.channels[ch.name] = ch


def _check_bundles(bundles: Sequence[Bundle], packages: dict[str, _PackageState], out: _Collector) -> None:
    for b in bundles:
        if b.package == "":
            out.add(
                "RK-FBC-017",
                f"package name must be set for bundle {_q(b.name)}",
                b.location,
                "$.package",
                (("bundle", b.name),),
            )
            continue
        state = packages.get(b.package)
        subject = (("package", b.package), ("bundle", b.name))
        if state is None:
            out.add(
                "RK-FBC-018",
                f"unknown package {_q(b.package)} for bundle {_q(b.name)}",
                b.location,
                "$.package",
                subject,
            )
            continue
        if b.name in state.bundles:
            out.add(
                "RK-FBC-019",
                f"package {_q(b.package)} has duplicate bundle {_q(b.name)}",
                b.location,
                "$.name",
                subject,
            )
            continue
        facts = _BundleFacts(b)
        state.bundles[b.name] = facts
        _check_bundle_blob(b, facts, state, subject, out)


def _check_bundle_blob(
    b: Bundle, facts: _BundleFacts, state: _PackageState, subject: tuple[_SubjectPart, ...], out: _Collector
) -> None:
    """Opm's checks of one bundle blob: its properties, images, ``olm.package`` and channel membership."""
    package_props, package_props_ok = _check_properties(b, subject, out)
    if package_props_ok and len(package_props) != 1:
        out.add(
            "RK-FBC-021",
            f"package {_q(b.package)} bundle {_q(b.name)} must have exactly 1 {_q(PROP_PACKAGE)} property, "
            f"found {len(package_props)}",
            b.location,
            f"$.properties[{package_props[1][0]}]" if len(package_props) > 1 else "$.properties",
            subject,
        )
    _check_images(b, state.images, subject, out)
    if len(package_props) == 1 and package_props_ok:
        _check_package_property(b, facts, package_props[0], subject, out)
    if b.name not in state.entry_names:
        out.add(
            "RK-FBC-027",
            f"package {_q(b.package)}, bundle {_q(b.name)} not found in any channel entries",
            b.location,
            "$.name",
            subject,
        )


def _check_properties(
    b: Bundle, subject: tuple[_SubjectPart, ...], out: _Collector
) -> tuple[list[tuple[int, Any]], bool]:
    """Report each property value of the wrong shape (RK-FBC-020).

    Returns the ``olm.package`` properties as (index, value), and whether all of them parsed (a broken one
    stops opm before it counts them).
    """
    package_props: list[tuple[int, Any]] = []
    package_props_ok = True
    for i, prop in enumerate(b.properties):
        error = _property_error(prop.type, prop.value)
        if error is not None:
            out.add(
                "RK-FBC-020",
                f"parse properties for bundle {_q(b.name)}: parse property[{i}] of type {_q(prop.type)}: {error}",
                b.location,
                f"$.properties[{i}]",
                subject,
            )
            package_props_ok = package_props_ok and prop.type != PROP_PACKAGE
        elif prop.type == PROP_PACKAGE:
            package_props.append((i, prop.value))
    return package_props, package_props_ok


def _check_images(
    b: Bundle, reasons: dict[str, str | None], subject: tuple[_SubjectPart, ...], out: _Collector
) -> None:
    """The bundle image and every related image are valid pull specs (RK-FBC-023, RK-FBC-024).

    ``reasons`` holds what :func:`image_pull_spec_error` said of each image of the package already seen.
    """
    for index, image in enumerate([b.image, *(related.image for related in b.related_images or ())]):
        if not image:
            continue
        if image not in reasons:
            reasons[image] = image_pull_spec_error(image)
        if reasons[image] is not None:
            field = f"relatedImages[{index - 1}].image" if index else "image"
            out.add(
                "RK-FBC-024" if index else "RK-FBC-023",
                f"package {_q(b.package)} bundle {_q(b.name)} {field}: invalid image pull spec {_q(image)}: "
                f"{reasons[image]}",
                b.location,
                f"$.{field}",
                subject,
            )


def _check_package_property(
    b: Bundle,
    facts: _BundleFacts,
    package_prop: tuple[int, Any],
    subject: tuple[_SubjectPart, ...],
    out: _Collector,
) -> None:
    """The one ``olm.package`` property names the bundle's package and a version and release that parse."""
    index, value = package_prop
    facts.package_prop_index = index
    value = value if isinstance(value, dict) else {}
    name = _lookup(value, "packageName") or ""
    if b.package != name:
        out.add(
            "RK-FBC-022",
            f"package {_q(b.package)} does not match {_q(PROP_PACKAGE)} property {_q(name)}",
            b.location,
            f"$.properties[{index}].value.packageName",
            subject,
        )
    raw_version = _lookup(value, "version") or ""
    try:
        facts.version = parse_version(raw_version)
    except VersionError as exc:
        out.add(
            "RK-FBC-025",
            f"error parsing bundle {_q(b.name)} version {_q(raw_version)}: {exc}",
            b.location,
            f"$.properties[{index}].value.version",
            subject,
        )
    raw_release = _lookup(value, "release") or ""
    try:
        facts.release = parse_release(raw_release)
    except VersionError as exc:
        facts.release_ok = False
        out.add(
            "RK-FBC-026",
            f"error parsing bundle {_q(b.name)} release version {_q(raw_release)}: {exc}",
            b.location,
            f"$.properties[{index}].value.release",
            subject,
        )


def _check_missing_bundles(packages: dict[str, _PackageState], out: _Collector) -> None:
    for name, state in packages.items():
        for ch in state.channels.values():
            missing = sorted({e.name for e in ch.entry_list} - set(state.bundles))
            if not missing:
                continue
            first = entry_index(ch, missing[0])
            out.add(
                "RK-FBC-028",
                f"no olm.bundle blobs found in package {_q(name)} for olm.channel entries [{' '.join(missing)}]",
                ch.location,
                f"$.entries[{first}]",
                (("package", name), ("channel", ch.name)),
            )


def _ref_text(schema: str, name: str) -> str:
    return f"declcfg.PackageScopedReference{{Schema:{_q(schema)}, Name:{_q(name)}}}"


def _check_deprecations(
    deprecations: Sequence[Deprecation], packages: dict[str, _PackageState], out: _Collector
) -> None:
    """Opm's checks of the ``olm.deprecations`` blobs: one per known package, then each of its entries."""
    seen_packages: set[str] = set()
    for i, dep in enumerate(deprecations):
        if dep.package == "":
            out.add(
                "RK-FBC-030",
                f"package name must be set for deprecation item {i}",
                dep.location,
                "$.package",
                (("package", ""),),
            )
            continue
        state = packages.get(dep.package)
        psubject = (("package", dep.package),)
        if state is None:
            out.add(
                "RK-FBC-031",
                f"cannot apply deprecations to an unknown package {_q(dep.package)}",
                dep.location,
                "$.package",
                psubject,
            )
            continue
        if dep.package in seen_packages:
            out.add(
                "RK-FBC-032",
                f"expected a maximum of one deprecation per package: {_q(dep.package)}",
                dep.location,
                "$.package",
                psubject,
            )
            continue
        seen_packages.add(dep.package)
        _check_deprecation_entries(dep, state, out)


def _check_deprecation_entries(dep: Deprecation, state: _PackageState, out: _Collector) -> None:
    """Each entry of one package's deprecation: a schema, no repeat, a reference that exists, a message."""
    psubject = (("package", dep.package),)
    entry_names = state.entry_names
    refs: set[tuple[str, str]] = set()
    for j, entry in enumerate(dep.entries):
        path = f"$.entries[{j}]"
        kind = {"olm.bundle": "bundle", "olm.channel": "channel"}.get(entry.schema)
        subject = (*psubject, (kind, entry.name)) if kind else psubject
        if entry.schema == "":
            out.add(
                "RK-FBC-033",
                f"schema must be set for deprecation entry [{j}] for package {_q(dep.package)}",
                dep.location,
                f"{path}.reference",
                psubject,
            )
        else:
            key = (entry.schema, entry.name)
            if key in refs:
                out.add(
                    "RK-FBC-034",
                    f"duplicate deprecation entry {_ref_text(*key)} for package {_q(dep.package)}",
                    dep.location,
                    f"{path}.reference",
                    subject,
                )
            refs.add(key)
            problem = _deprecation_reference_problem(entry.schema, entry.name, j, dep, state, entry_names)
            if problem is not None:
                rule, message, field = problem
                out.add(rule, message, dep.location, f"{path}.reference.{field}", subject)
        if entry.message == "":
            out.add(
                "RK-FBC-039",
                "invalid deprecation: message must be set",
                dep.location,
                f"{path}.message",
                subject,
            )


def _deprecation_reference_problem(
    schema: str, name: str, j: int, dep: Deprecation, state: _PackageState, entry_names: frozenset[str]
) -> tuple[str, str, str] | None:
    """(rule, opm's message, field of the reference) when entry ``j`` names nothing it may deprecate."""
    package = _q(dep.package)
    if schema == "olm.bundle" and name not in entry_names:
        message = f"cannot deprecate bundle {_q(name)} for package {package}: bundle not found"
        return "RK-FBC-035", message, "name"
    if schema == "olm.channel" and name not in state.channels and name != state.package.default_channel:
        message = f"cannot deprecate channel {_q(name)} for package {package}: channel not found"
        return "RK-FBC-036", message, "name"
    if schema == "olm.package" and name != "":
        message = f"package name must be empty for deprecated package {package} (specified {_q(name)})"
        return "RK-FBC-037", message, "name"
    if schema in ("olm.bundle", "olm.channel", "olm.package"):
        return None
    return (
        "RK-FBC-038",
        f"cannot deprecate object {_ref_text(schema, name)} referenced by entry {j} for package "
        f"{package}: object schema unknown",
        "schema",
    )


def _check_package_model(state: _PackageState, out: _Collector) -> None:
    pkg = state.package
    psubject = (("package", pkg.name),)
    if pkg.default_channel == "":
        out.add("RK-FBC-040", "default channel must be set", pkg.location, "$.defaultChannel", psubject)
        if not state.channels:
            out.add(
                "RK-FBC-042", "package must contain at least one channel", pkg.location, "$.name", psubject
            )
    elif pkg.default_channel not in state.channels:
        out.add(
            "RK-FBC-041",
            f"channel must contain at least one bundle (default channel {_q(pkg.default_channel)} has no "
            "olm.channel blob)",
            pkg.location,
            "$.defaultChannel",
            (*psubject, ("channel", pkg.default_channel)),
        )
    for ch in state.channels.values():
        _check_channel_model(pkg, ch, out)
    for facts in state.bundles.values():
        _check_bundle_model(pkg, facts, out)
    _check_duplicate_versions(state, out)


def _check_channel_model(pkg: Package, ch: Channel, out: _Collector) -> None:
    csubject = (("package", pkg.name), ("channel", ch.name))
    entries = ch.entry_list
    if not entries:
        out.add(
            "RK-FBC-041",
            "channel must contain at least one bundle",
            ch.location,
            "$.entries",
            csubject,
        )
        return
    problem = check_channel_graph(entries)
    if problem is not None:
        known = problem.names and problem.names[0] in {e.name for e in entries}
        path = f"$.entries[{entry_index(ch, problem.names[0])}]" if known else ""
        out.add(problem.rule, problem.message, ch.location, path, csubject)
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        if entry.name in seen:
            continue  # RK-FBC-016; the model keeps the first
        seen.add(entry.name)
        bsubject = (*csubject, ("bundle", entry.name))
        if entry.name == "":
            out.add("RK-FBC-048", "name must be set", ch.location, f"$.entries[{i}]", bsubject)
        for j, skip in enumerate(entry.skips):
            if skip == "":
                out.add(
                    "RK-FBC-050", f"skip[{j}] is empty", ch.location, f"$.entries[{i}].skips[{j}]", bsubject
                )
        if entry.skip_range:
            reason = _skip_range_error(entry.skip_range)
            if reason is not None:
                out.add(
                    "RK-FBC-051",
                    f"invalid skipRange {_q(entry.skip_range)}: {reason}",
                    ch.location,
                    f"$.entries[{i}].skipRange",
                    bsubject,
                )


@functools.lru_cache(maxsize=4096)
def _skip_range_error(text: str) -> str | None:
    """Why ``text`` is not a range blang parses, or ``None`` (memoized: channels repeat their skipRanges)."""
    try:
        parse_range(text)
    except RangeError as exc:
        return str(exc)
    return None


def _check_bundle_model(pkg: Package, facts: _BundleFacts, out: _Collector) -> None:
    b = facts.bundle
    subject = (("package", pkg.name), ("bundle", b.name))
    if facts.version is not None and facts.release is not None and facts.release.segments:
        normalized = f"{pkg.name}-v{VersionRelease(facts.version, facts.release).kubernetes_safe_string()}"
        if b.name != normalized:
            out.add(
                "RK-FBC-049",
                f"name {_q(b.name)} does not match normalized name {_q(normalized)}",
                b.location,
                "$.name",
                subject,
                normalized=normalized,
            )
        if facts.version.build:
            out.add(
                "RK-FBC-053",
                "cannot use build metadata in version with a release version",
                b.location,
                facts.version_path,
                subject,
            )
    if b.image == "" and not b.objects:
        out.add("RK-FBC-052", "bundle image must be set", b.location, "$.image", subject)


def _check_duplicate_versions(state: _PackageState, out: _Collector) -> None:
    in_channels = state.entry_names
    by_version: dict[str, list[_BundleFacts]] = {}
    for name, facts in state.bundles.items():
        if facts.version is None or not facts.release_ok or name not in in_channels:
            continue
        # str(VersionRelease(...)) is the version's own text when there is no release (the usual case)
        key = (
            str(facts.version) if facts.release is None else str(VersionRelease(facts.version, facts.release))
        )
        by_version.setdefault(key, []).append(facts)
    dups = {k: v for k, v in by_version.items() if len(v) > 1}
    if not dups:
        return
    groups = " ".join(
        f"{{{key}: [{', '.join(sorted(f.bundle.name for f in dups[key]))}]}}" for key in sorted(dups)
    )
    first = sorted(dups[min(dups)], key=lambda f: f.bundle.name)[1]
    out.add(
        "RK-FBC-047",
        f"duplicate versions found in bundles: [{groups}]",
        first.bundle.location,
        first.version_path,
        (("package", state.package.name),),
    )
