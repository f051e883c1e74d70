"""Registry+v1 bundles as the validators see them: manifests with file and line, metadata, options.

Pure core: no I/O, no click, no git. :mod:`releasekit.io.bundle_load` builds these values;
:mod:`releasekit.rules.bundle` judges them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from releasekit.model.finding import Finding, Location, nearest_line

__all__ = [
    "ANNOTATION_CHANNELS",
    "ANNOTATION_DEFAULT_CHANNEL",
    "ANNOTATION_MANIFESTS",
    "ANNOTATION_MEDIATYPE",
    "ANNOTATION_METADATA",
    "ANNOTATION_OPENSHIFT_VERSIONS",
    "ANNOTATION_PACKAGE",
    "Bundle",
    "BundleLayout",
    "Dockerfile",
    "DockerfileLabel",
    "Manifest",
    "StrayEntry",
    "StreamPolicy",
    "RBAC_FIELDS",
    "ValidationOptions",
    "policy_rules_problem",
]

ANNOTATION_MEDIATYPE = "operators.operatorframework.io.bundle.mediatype.v1"
ANNOTATION_MANIFESTS = "operators.operatorframework.io.bundle.manifests.v1"
ANNOTATION_METADATA = "operators.operatorframework.io.bundle.metadata.v1"
ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1"
ANNOTATION_CHANNELS = "operators.operatorframework.io.bundle.channels.v1"
ANNOTATION_DEFAULT_CHANNEL = "operators.operatorframework.io.bundle.channel.default.v1"
ANNOTATION_OPENSHIFT_VERSIONS = "com.redhat.openshift.versions"


class BundleLayout(enum.StrEnum):
    """How the validated input was laid out on disk (the cases file's ``input_kind``)."""

    BUNDLE_ROOT = "bundle-root"
    MANIFESTS_DIR = "manifests-dir"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True, slots=True, kw_only=True)
class Manifest:
    """One YAML/JSON document from one file, with the line of each JSON path in it."""

    file: str
    data: Mapping[str, Any]
    line: int = 1
    lines: Mapping[str, int] = field(default_factory=dict)

    def line_of(self, path: str) -> int:
        """Line of ``path``, or of its nearest recorded ancestor, or of the document."""
        line = nearest_line(self.lines, path)
        return self.line if line is None else line

    def loc(self, path: str = "$") -> Location:
        """A finding location pointing at ``path`` in this manifest."""
        return Location(file=self.file, line=self.line_of(path), path=path)

    @property
    def kind(self) -> str:
        """``kind`` as a string ('' when missing or not a string)."""
        return _text(self.data.get("kind"))

    @property
    def api_version(self) -> str:
        """``apiVersion`` as a string ('' when missing or not a string)."""
        return _text(self.data.get("apiVersion"))

    @property
    def group(self) -> str:
        """API group of ``apiVersion`` ('' for the core group)."""
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def metadata(self) -> Mapping[str, Any]:
        """``metadata`` as a mapping (empty when missing or malformed)."""
        return _mapping(self.data.get("metadata"))

    @property
    def name(self) -> str:
        """``metadata.name`` as a string ('' when missing)."""
        return _text(self.metadata.get("name"))

    @property
    def annotations(self) -> Mapping[str, Any]:
        """``metadata.annotations`` as a mapping (empty when missing)."""
        return _mapping(self.metadata.get("annotations"))

    @property
    def spec(self) -> Mapping[str, Any]:
        """``spec`` as a mapping (empty when missing)."""
        return _mapping(self.data.get("spec"))


@dataclass(frozen=True, slots=True, kw_only=True)
class StrayEntry:
    """Something in the manifests folder that a flat registry+v1 folder may not hold."""

    path: str
    is_dir: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class DockerfileLabel:
    """One ``LABEL key=value`` pair of a bundle Dockerfile, with its line."""

    key: str
    value: str
    line: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Dockerfile:
    """A bundle Dockerfile reduced to its labels."""

    file: str
    labels: tuple[DockerfileLabel, ...] = ()

    def label(self, key: str) -> DockerfileLabel | None:
        """The first label called ``key``, if any."""
        return next((item for item in self.labels if item.key == key), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Bundle:
    """Everything loaded from one bundle (or one manifests folder).

    Attributes:
        objects: every manifest but the CSV and the CRDs; ``extra_csvs``: CSVs beyond the first (an error).
        annotations / dependencies / properties: the ``metadata/`` file holding that key, if found.
        metadata_files: every file looked at in ``metadata/`` (for the "no annotations file" message).
        stray_entries: sub-folders and hidden files inside the manifests folder.
        size / compressed_size: sums of the raw / gzip+base64 sizes of the bundle's files, in bytes.
        load_findings: problems found while loading (unparsable YAML and the like).
    """

    root: str
    layout: BundleLayout
    csv: Manifest | None = None
    crds: tuple[Manifest, ...] = ()
    objects: tuple[Manifest, ...] = ()
    extra_csvs: tuple[Manifest, ...] = ()
    annotations: Manifest | None = None
    dependencies: Manifest | None = None
    dockerfile: Dockerfile | None = None
    properties: Manifest | None = None
    has_manifests_dir: bool = True
    has_metadata_dir: bool = True
    metadata_files: tuple[str, ...] = ()
    stray_entries: tuple[StrayEntry, ...] = ()
    size: int = 0
    compressed_size: int = 0
    load_findings: tuple[Finding, ...] = ()

    @property
    def all_manifests(self) -> tuple[Manifest, ...]:
        """CSV, CRDs and other objects, in that order."""
        head = (self.csv,) if self.csv is not None else ()
        return head + self.extra_csvs + self.crds + self.objects

    @property
    def annotation_values(self) -> Mapping[str, Any]:
        """The ``annotations`` map of the metadata file (empty when there is none)."""
        return _mapping(self.annotations.data.get("annotations")) if self.annotations is not None else {}

    def annotation(self, key: str) -> str | None:
        """One metadata annotation as a string, or None when absent."""
        value = self.annotation_values.get(key)
        return None if value is None else str(value)

    @property
    def package(self) -> str:
        """The package named in metadata (``''`` when unknown)."""
        return self.annotation(ANNOTATION_PACKAGE) or ""

    @property
    def channels(self) -> tuple[str, ...]:
        """Channels named in metadata: ``channels.v1`` plus the default channel, trimmed, deduplicated."""
        listed = (self.annotation(ANNOTATION_CHANNELS) or "").split(",")
        names = (item.strip() for item in (*listed, self.annotation(ANNOTATION_DEFAULT_CHANNEL) or ""))
        return tuple(dict.fromkeys(name for name in names if name))

    @property
    def csv_name(self) -> str:
        """``metadata.name`` of the CSV ('' without a CSV)."""
        return self.csv.name if self.csv is not None else ""

    @property
    def subject(self) -> tuple[str, ...]:
        """The subject findings about this bundle carry."""
        return (f'bundle "{self.csv_name or self.root}"',)


DEFAULT_ALLOWED_REGISTRIES: tuple[str, ...] = (
    "registry.redhat.io/",
    "registry.access.redhat.com/",
    "quay.io/redhat-user-workloads/",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamPolicy:
    """The releasekit stream a bundle belongs to, as far as the bundle rules need it.

    Only bundles of one of our streams get stream policy; another operator's bundle gets operator-sdk's
    rules alone. ``alpha_kinds`` empty: the stream excludes alpha APIs. ``released``: the version is
    published history, so policy warns instead of failing.
    """

    stream: str
    alpha_kinds: tuple[str, ...] = ()
    released: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationOptions:
    """What to check and with which parameters (the ``--optional-values`` of operator-sdk and ours).

    Attributes:
        index_dockerfile: the ``index-path`` Dockerfile for the community validator; None: not given.
        custom_categories: replaces the standard OperatorHub categories; None: the standard ones.
        release_checks: judge the bundle as a released version (image pinning, ``allowed_registries``).
        stream: the releasekit stream of the bundle; None: another operator's bundle (no policy).
        openshift_catalogs: OpenShift catalogs (``v4.18``) the release appears in; empty: unknown.
    """

    validators: tuple[str, ...] = ("loader", "registry-format", "csv", "crd", "bundle")
    k8s_version: str | None = None
    index_dockerfile: Dockerfile | None = None
    custom_categories: tuple[str, ...] | None = None
    release_checks: bool = False
    allowed_registries: tuple[str, ...] = DEFAULT_ALLOWED_REGISTRIES
    stream: StreamPolicy | None = None
    openshift_catalogs: tuple[str, ...] = ()


RBAC_FIELDS: Final = ("apiGroups", "resources", "resourceNames", "nonResourceURLs", "verbs")
"""The fields of an rbac/v1 PolicyRule, each a list of strings (in Kubernetes' order)."""


def policy_rules_problem(rules: object, path: str) -> tuple[str, str] | None:
    """(JSON path, what is wrong) for the first part of ``rules`` the API server cannot decode, or None."""
    if rules is None:
        return None
    if not isinstance(rules, list):
        return path, "rules is not a list"
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            return f"{path}[{index}]", "a rule is not a mapping"
        for field_name in RBAC_FIELDS:
            value = rule.get(field_name)
            if value is None:
                continue
            if not isinstance(value, list):
                return f"{path}[{index}].{field_name}", f"{field_name} is not a list of strings"
            if not all(isinstance(v, str) for v in value):
                return f"{path}[{index}].{field_name}", f"{field_name} holds a value that is not a string"
    return None
