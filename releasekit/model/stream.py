"""Release streams and releases: the product's own release definitions (``streams/*.yaml``).

Pure core: no I/O, no click, no git, no jinja2. Every value keeps an :class:`Origin` for file:line.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import semver

from releasekit.model.fbc import RelatedImage
from releasekit.model.finding import Location, nearest_line
from releasekit.model.inventory import Crd, GateStage, Inventory

__all__ = [
    "ApiMaturityPolicy",
    "ChannelPolicy",
    "ConditionalGate",
    "CrdPlacement",
    "CrossMinor",
    "CsvMetadataFacts",
    "DEFAULT_NEWEST_MINOR",
    "FeatureGatePolicy",
    "GateSetting",
    "Gvk",
    "OPENSHIFT_NUMBER_DIGITS",
    "OlmV1Readiness",
    "OpenShiftVersion",
    "Origin",
    "RecordedRelease",
    "RelatedImage",
    "Release",
    "ReleaseImages",
    "ReleaseStatus",
    "Stream",
    "UpgradePolicy",
    "Upstream",
    "WireObject",
    "image_has_digest",
    "openshift_order",
    "openshift_versions_label_form",
    "operand_crds",
    "published_bundles",
]

DEFAULT_NEWEST_MINOR = "newest-minor"
"""``channels.default`` value meaning: the channel of the newest released (or deprecated) minor."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Origin:
    """Where a value was loaded from: file, the JSON path of the object and the lines below it.

    ``lines`` keys are JSON paths relative to ``path`` (``""``, ``".bundle"``). Never part of equality.
    """

    file: str = ""
    path: str = ""
    lines: tuple[tuple[str, int], ...] = ()

    def at(self, sub: str = "") -> Location:
        """Location of ``sub`` (relative JSON path) or of its nearest recorded ancestor."""
        return Location(file=self.file, line=nearest_line(dict(self.lines), sub), path=self.path + sub)


def _origin_field() -> Any:
    return field(default_factory=Origin, compare=False, repr=False)


OPENSHIFT_NUMBER_DIGITS = 9
"""The most digits a number of an OpenShift version may have (``v4.18``: 1 and 2); a longer one is refused
before it is converted (Python's int() refuses more than 4,300 digits with a traceback)."""

_OPENSHIFT_VERSION = re.compile(r"v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\Z")  # ASCII digits, no trailing newline


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message: escaped (repr) and cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class OpenShiftVersion:
    """An OpenShift version as catalogs name it: ``v4.18``. Ordered as clusters upgrade."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> OpenShiftVersion:
        """Parse ``vX.Y``; raises ValueError for anything else."""
        match = _OPENSHIFT_VERSION.match(text)
        if not match:
            raise ValueError(f"{_shown(text)} is not an OpenShift version of the form vX.Y (e.g. v4.18)")
        if max(len(match[1]), len(match[2])) > OPENSHIFT_NUMBER_DIGITS:  # checked before int()
            raise ValueError(
                f"{_shown(text)} is not an OpenShift version: its numbers have at most "
                f"{OPENSHIFT_NUMBER_DIGITS} digits (this one {max(len(match[1]), len(match[2]))})"
            )
        return cls(major=int(match[1]), minor=int(match[2]))

    def __str__(self) -> str:
        return f"v{self.major}.{self.minor}"


def openshift_order(label: str) -> tuple[int, int, str]:
    """Sort key of an OpenShift version label: ``vX.Y`` in cluster-upgrade order, anything else after, by name."""
    try:
        version = OpenShiftVersion.parse(label)
    except ValueError:
        return (1 << 30, 0, label)
    return (version.major, version.minor, "")


# ASCII digits, at most OPENSHIFT_NUMBER_DIGITS of them (int() below never sees a huge number), no trailing newline
_LABEL_SINGLE = re.compile(r"=?v[0-9]{1,9}\.[0-9]{1,9}\Z")
_LABEL_RANGE = re.compile(r"v([0-9]{1,9})\.([0-9]{1,9})-v([0-9]{1,9})\.([0-9]{1,9})\Z")


def openshift_versions_label_form(value: str) -> str | None:
    """Which documented form a ``com.redhat.openshift.versions`` value has, or None.

    ``vX.Y`` (this and later), ``=vX.Y`` (exactly this), ``vA.B-vC.D`` (a range, low to high).
    """
    if _LABEL_SINGLE.match(value):
        return "exact" if value.startswith("=") else "minimum"
    match = _LABEL_RANGE.match(value)
    if match and (int(match[1]), int(match[2])) <= (int(match[3]), int(match[4])):  # low to high
        return "range"
    return None


_DIGEST_RE = re.compile(r"@sha256:[0-9a-f]{64}$")


def image_has_digest(image: str) -> bool:
    """True when ``image`` is pinned by a sha256 digest."""
    return bool(_DIGEST_RE.search(image))


class CrdPlacement(enum.StrEnum):
    """Where operand CRDs go.

    ``bundle``: owned by the CSV and shipped in the bundle. ``operator-assets``: in the operator image,
    applied at runtime (the real operator); the bundle then owns only ``kueues.kueue.openshift.io``.
    """

    BUNDLE = "bundle"
    OPERATOR_ASSETS = "operator-assets"


class OlmV1Readiness(enum.StrEnum):
    """How a stream judges OLM v1 readiness (RK-OLMV1): warnings, or errors."""

    RECOMMENDED = "recommended"
    REQUIRED = "required"


class CrossMinor(enum.StrEnum):
    """Upgrade edges across operator minors: none (each channel an island) or replace the previous minor's head."""

    NONE = "none"
    REPLACE_PREVIOUS_MINOR = "replace-previous-minor"


class ReleaseStatus(enum.StrEnum):
    """Lifecycle of a release. Only ``candidate`` may use development images and stay out of committed catalogs."""

    RELEASED = "released"
    CANDIDATE = "candidate"
    DEPRECATED = "deprecated"
    WITHDRAWN = "withdrawn"

    @property
    def is_published(self) -> bool:
        """True for releases that went out (released, deprecated, withdrawn)."""
        return self is not ReleaseStatus.CANDIDATE


@dataclass(frozen=True, slots=True, kw_only=True)
class ChannelPolicy:
    """Channel naming: a pattern with ``{major}`` / ``{minor}`` placeholders, and the default-channel rule."""

    pattern: str
    default: str = DEFAULT_NEWEST_MINOR
    origin: Origin = _origin_field()

    def channel_for(self, version: semver.Version) -> str:
        """The channel a release of ``version`` belongs to (``stable-v1.4`` for 1.4.1)."""
        return self.pattern.format(major=version.major, minor=version.minor, patch=version.patch)


@dataclass(frozen=True, slots=True, kw_only=True)
class Gvk:
    """Group, version and kind of an API (an ``olm.gvk`` property)."""

    group: str
    version: str
    kind: str

    def __str__(self) -> str:
        return f"{self.group}/{self.version} {self.kind}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ApiMaturityPolicy:
    """Which alpha APIs a stream may ship.

    A CRD with any alpha version is alpha; ``alpha_apis`` lists the kinds shipped anyway (empty: none).
    """

    alpha_apis: tuple[str, ...] = ()
    origin: Origin = _origin_field()

    def allows(self, crd: Crd) -> bool:
        """True when ``crd`` may ship under this policy."""
        return not crd.is_alpha or crd.kind in self.alpha_apis


@dataclass(frozen=True, slots=True, kw_only=True)
class GateSetting:
    """An explicit feature-gate value the operator sets (``HierarchicalCohorts: false``)."""

    gate: str
    enabled: bool
    reason: str = ""
    origin: Origin = _origin_field()


@dataclass(frozen=True, slots=True, kw_only=True)
class ConditionalGate:
    """An alpha gate the operator switches on only when a user opts in through ``config_field``."""

    gate: str
    config_field: str
    reason: str
    origin: Origin = _origin_field()


@dataclass(frozen=True, slots=True, kw_only=True)
class FeatureGatePolicy:
    """Stream-wide gate policy: stages explicit settings may switch on, and settings for every release.

    An alpha gate outside ``allowed_stages`` switches on only through a release's ``opt_in_gates``.
    """

    allowed_stages: tuple[GateStage, ...] = (GateStage.BETA, GateStage.GA)
    settings: tuple[GateSetting, ...] = ()
    origin: Origin = _origin_field()


@dataclass(frozen=True, slots=True, kw_only=True)
class UpgradePolicy:
    """How releases upgrade to one another.

    Inside a minor the newest z-stream skips the earlier ones. Across minors: ``none`` or
    ``replace-previous-minor`` (the head of minor N replaces the head of N-1). No edge crosses a major, a
    stream or an owned API group change (:meth:`may_cross`). ``skip_range``: an ``olm.skipRange`` template.
    """

    cross_minor: CrossMinor = CrossMinor.NONE
    skip_range: str | None = None
    origin: Origin = _origin_field()

    def may_cross(self, older: Release, newer: Release) -> bool:
        """True when an upgrade edge from ``older`` to ``newer`` (same stream) is allowed at all."""
        if older.version.major != newer.version.major:
            return False
        if older.owned_api is not None and newer.owned_api is not None:
            return older.owned_api.group == newer.owned_api.group
        return True

    def skip_range_for(self, version: semver.Version) -> str | None:
        """The ``olm.skipRange`` for ``version``, or None."""
        if self.skip_range is None:
            return None
        return self.skip_range.format(
            version=str(version), major=version.major, minor=version.minor, patch=version.patch
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Upstream:
    """The upstream Kueue a release ships, as precisely as it is known."""

    line: str
    inventory: str
    describe: str | None = None
    tag: str | None = None
    commit: str | None = None
    origin: Origin = _origin_field()


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseImages:
    """The images a release runs: operator and operand always, must-gather where it existed."""

    operator: str
    operand: str
    must_gather: str | None = None
    origin: Origin = _origin_field()

    def items(self) -> tuple[tuple[str, str], ...]:
        """``(field, image)`` pairs for the images that exist, as YAML spells the fields."""
        pairs = [("operator", self.operator), ("operand", self.operand)]
        if self.must_gather is not None:
            pairs.append(("mustGather", self.must_gather))
        return tuple(pairs)


WireObject = tuple[tuple[str, Any], ...]
"""A recorded JSON object of scalars (an install mode, a CRD or API service reference): its ``(key, value)``
pairs in the order opm writes them, hashable as a frozen value must be; ``dict()`` gives the object back."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CsvMetadataFacts:
    """The facts of a published ``olm.csv.metadata`` property, without prose and branding.

    Prose (``description``, ``displayName``, ``icon``, ``keywords``, ``links``, ``maintainers``,
    ``provider``, the ``description``/``alm-examples`` annotations, owned CRDs' descriptions) is
    ``bundle-templates/``'s; ``createdAt`` is :attr:`Release.created_at`.
    """

    annotations: tuple[tuple[str, str], ...]
    labels: tuple[tuple[str, str], ...] = ()
    has_labels: bool = False
    install_modes: tuple[WireObject, ...] = ()
    owned_crds: tuple[WireObject, ...] = ()
    required_crds: tuple[WireObject, ...] = ()
    api_services_owned: tuple[WireObject, ...] = ()
    api_services_required: tuple[WireObject, ...] = ()
    maturity: str | None = None
    min_kube_version: str | None = None

    def annotation(self, key: str) -> str | None:
        """The value of annotation ``key``, or None."""
        return dict(self.annotations).get(key)

    def to_wire(self, *, created_at: str | None) -> dict[str, Any]:
        """The fact part of ``olm.csv.metadata`` as opm writes it (keys sorted; prose keys absent)."""
        annotations = dict(self.annotations)
        if created_at is not None:
            annotations["createdAt"] = created_at
        services = {"owned": self.api_services_owned, "required": self.api_services_required}
        crds = {"owned": self.owned_crds, "required": self.required_crds}
        wire: dict[str, Any] = {
            "annotations": dict(sorted(annotations.items())),
            "apiServiceDefinitions": {k: [dict(a) for a in refs] for k, refs in services.items() if refs},
            "crdDescriptions": {k: [dict(c) for c in refs] for k, refs in crds.items() if refs},
            "installModes": [dict(m) for m in self.install_modes],
        }
        if self.has_labels:
            wire["labels"] = dict(self.labels)
        if self.maturity is not None:
            wire["maturity"] = self.maturity
        if self.min_kube_version is not None:
            wire["minKubeVersion"] = self.min_kube_version
        return wire


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedRelease:
    """What the catalogs need to rebuild a release made before releasekit, exactly as published."""

    package: str
    version: str
    gvks: tuple[Gvk, ...]
    related_images: tuple[RelatedImage, ...]
    csv_metadata: CsvMetadataFacts
    source: str = ""
    origin: Origin = _origin_field()


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """One operator release of a stream: the facts ``streams/`` records for it.

    Attributes:
        catalogs: the OpenShift catalogs it appears in (or, for a candidate, will), sorted.
        openshift_versions_label: the published ``com.redhat.openshift.versions`` value, where known.
        owned_api_override: the owned API where it differs from the stream's; read :attr:`owned_api`.
        stream_owned_api: the stream's owned API, filled in by the stream.
        opt_in_gates: alpha gates switched on only when a user opts in (per-release allow-list).
        declares_gates: False without a ``featureGates`` key: the release then keeps its minor's gates
            (:meth:`Stream.gates_source`); ``featureGates: {}`` declares none.
        recorded: the published catalog facts of a release made before releasekit.
    """

    version: semver.Version
    status: ReleaseStatus
    upstream: Upstream
    catalogs: tuple[OpenShiftVersion, ...]
    bundle_image: str
    images: ReleaseImages
    created_at: str | None = None
    openshift_versions_label: str | None = None
    deprecation_message: str | None = None
    owned_api_override: Gvk | None = None
    stream_owned_api: Gvk | None = None
    gate_settings: tuple[GateSetting, ...] = ()
    opt_in_gates: tuple[ConditionalGate, ...] = ()
    declares_gates: bool = True
    recorded: RecordedRelease | None = None
    origin: Origin = _origin_field()

    @property
    def owned_api(self) -> Gvk | None:
        """The API the bundle's CSV owns (the release's override, else the stream's)."""
        return self.owned_api_override or self.stream_owned_api

    @property
    def sets_gates(self) -> bool:
        """True when the release has gates of its own (a ``featureGates`` key, or any setting or opt-in)."""
        return self.declares_gates or bool(self.gate_settings or self.opt_in_gates)

    def csv_name(self, package: str) -> str:
        """The CSV / bundle name, ``<package>.v<version>``."""
        return f"{package}.v{self.version}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Stream:
    """One release stream: an OLM package, its policies and its releases (in file order).

    ``name`` is the file stem; ``openshift`` is in cluster-upgrade order; ``development_registries`` are
    the registry prefixes a candidate may also use (tags allowed there).
    """

    name: str
    package: str
    channels: ChannelPolicy
    openshift: tuple[OpenShiftVersion, ...]
    crd_placement: CrdPlacement
    owned_api: Gvk
    api_maturity: ApiMaturityPolicy
    feature_gates: FeatureGatePolicy
    upgrades: UpgradePolicy
    released_registries: tuple[str, ...]
    development_registries: tuple[str, ...] = ()
    releases: tuple[Release, ...] = ()
    description: str = ""
    origin: Origin = _origin_field()
    block_cluster_upgrades: bool = False
    """``blockClusterUpgrades``: each release's CSV and catalog blob carry ``olm.maxOpenShiftVersion``."""
    olmv1: OlmV1Readiness = field(default_factory=lambda: OlmV1Readiness.RECOMMENDED)
    """``olmv1``: OLM v1 readiness findings are warnings (recommended) or errors (required)."""

    def channel_of(self, release: Release) -> str:
        """The channel ``release`` belongs to."""
        return self.channels.channel_for(release.version)

    @property
    def channel_names(self) -> tuple[str, ...]:
        """Channels of the published releases, ordered by their newest release's version."""
        newest: dict[str, semver.Version] = {}
        for release in sorted((r for r in self.releases if r.status.is_published), key=lambda r: r.version):
            newest[self.channel_of(release)] = release.version  # oldest first: the last one is the newest
        return tuple(sorted(newest, key=newest.__getitem__))

    @property
    def default_channel(self) -> str | None:
        """The default channel the policy gives (None when no release is published yet)."""
        if self.channels.default != DEFAULT_NEWEST_MINOR:
            return self.channels.default
        live = [r for r in self.releases if r.status in (ReleaseStatus.RELEASED, ReleaseStatus.DEPRECATED)]
        if not live:
            return None
        return self.channel_of(max(live, key=lambda r: r.version))

    def release(self, version: str | semver.Version) -> Release | None:
        """The release with ``version``, or None."""
        wanted = semver.Version.parse(version) if isinstance(version, str) else version
        return next((r for r in self.releases if r.version == wanted), None)

    def gates_source(self, release: Release) -> Release | None:
        """The release whose ``featureGates`` are in force for ``release``.

        Itself when it has gates; else the newest earlier release of its minor with gates; else None.
        """
        if release.sets_gates:
            return release
        minor = (release.version.major, release.version.minor)
        earlier = [
            r
            for r in self.releases
            if r.sets_gates and (r.version.major, r.version.minor) == minor and r.version < release.version
        ]
        return max(earlier, key=lambda r: r.version) if earlier else None

    def release_gate_settings(self, release: Release) -> tuple[GateSetting, ...]:
        """The release's own gate settings in force (its own, or inherited within its minor)."""
        source = self.gates_source(release)
        return source.gate_settings if source is not None else ()

    def release_opt_in_gates(self, release: Release) -> tuple[ConditionalGate, ...]:
        """The release's opt-in allow-list in force (its own, or inherited within its minor)."""
        source = self.gates_source(release)
        return source.opt_in_gates if source is not None else ()

    def effective_gate_settings(self, release: Release) -> tuple[GateSetting, ...]:
        """Stream settings overlaid with the release's settings in force (release wins), sorted by gate."""
        merged = {s.gate: s for s in self.feature_gates.settings}
        merged.update({s.gate: s for s in self.release_gate_settings(release)})
        return tuple(merged[name] for name in sorted(merged))


def operand_crds(stream: Stream, inventory: Inventory) -> tuple[Crd, ...]:
    """The upstream CRDs ``stream`` ships for a release built on ``inventory``, sorted by name."""
    return tuple(c for c in inventory.crds if stream.api_maturity.allows(c))


def published_bundles(streams: Iterable[Stream]) -> frozenset[tuple[str, str, str]]:
    """``(openshift, package, bundle name)`` of every published release in every catalog it lists."""
    return frozenset(
        (str(openshift), stream.package, release.csv_name(stream.package))
        for stream in streams
        for release in stream.releases
        if release.status.is_published
        for openshift in release.catalogs
    )
