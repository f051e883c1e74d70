"""Load registry+v1 bundles (and single manifests) from disk into :mod:`releasekit.model.bundle` values.

Adapter module: reads files, never judges beyond what loading needs. Layouts, as the upstream tools
read them (see ``docs/olm-bundle-validation.md`` §1):

- *bundle root*: ``manifests/`` + ``metadata/``; the annotations file is the first file in
  ``metadata/`` with a non-empty top-level ``annotations`` map, the dependencies file the first with a
  non-empty ``dependencies`` list (operator-registry's rule); ``bundle.Dockerfile`` beside them is read
  for its LABELs.
- *flat bundle* (api ``manifests.GetBundleFromDir``): walk the tree, the folder holding the CSV is the
  manifests folder, an ``annotations*`` file anywhere supplies package and channels.
- *manifests folder*: only the manifests.
- *single file*: one CSV, CRD or other object validated alone.

Each file yields one object: only its first YAML document is read, as the api loader does.
Unparsable YAML becomes a finding with file and line (``RK-BUNDLE-001``/``002``); a path that cannot be
read at all raises :class:`~releasekit.errors.InputError` (exit 2).

What operator-sdk's loader refuses is reported as findings of the loader's own rules (its wording in the
message), so that a caller decides what a refusal means: ``bundle validate`` on a folder the user named
exits 2 (not a loadable bundle), ``bundle build`` reports them as errors of what it generated.

The loader's own refusals are RK-BUNDLE-120 (no metadata anywhere in the folder), 121 (no file in the
manifests folder), 122 (an empty manifest or one without ``kind``), 123 (a CSV or CRD Go cannot decode:
``spec.version`` not semver, labels, annotations or flags of the wrong type) and 124 (``annotations.yaml``
not a map of strings); their ids live in :mod:`releasekit.model.bundle_ids`, their meanings in the rule
table of :mod:`releasekit.rules.bundle`. Only :func:`load_bundle` (what ``bundle validate`` reads) adds
the folder-level ones (120, 121, 124), as operator-sdk looks for metadata before it loads manifests.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import yaml

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io import yamlio
from releasekit.io.inputs import MAX_WALK_DEPTH, check_nesting, read_input
from releasekit.io.yamlio import YamlContentError, iter_yaml_documents
from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import (
    ANNOTATION_MANIFESTS,
    Bundle,
    BundleLayout,
    Dockerfile,
    DockerfileLabel,
    Manifest,
    StrayEntry,
)
from releasekit.model.finding import Finding, Location, Severity

__all__ = [
    "LOADER_CSV_UNPARSABLE",
    "LOADER_METADATA_NOT_FOUND",
    "LOADER_METADATA_UNPARSABLE",
    "LOADER_NO_MANIFEST_FILES",
    "LOADER_RULES",
    "LOADER_UNDECODABLE",
    "MAX_FILE_BYTES",
    "load_bundle",
    "load_bundle_root",
    "load_categories_file",
    "load_dockerfile",
    "load_flat_bundle",
    "load_manifests_dir",
    "load_single_file",
]

LOADER_METADATA_NOT_FOUND: Final = ids.LOADER_METADATA_NOT_FOUND
LOADER_NO_MANIFEST_FILES: Final = ids.LOADER_NO_MANIFEST_FILES
LOADER_UNDECODABLE: Final = ids.LOADER_UNDECODABLE
LOADER_CSV_UNPARSABLE: Final = ids.LOADER_CSV_UNPARSABLE
LOADER_METADATA_UNPARSABLE: Final = ids.LOADER_METADATA_UNPARSABLE
LOADER_RULES: Final = frozenset(
    {
        LOADER_METADATA_NOT_FOUND,
        LOADER_NO_MANIFEST_FILES,
        LOADER_UNDECODABLE,
        LOADER_CSV_UNPARSABLE,
        LOADER_METADATA_UNPARSABLE,
    }
)
"""The rules this module reports itself, all of them refusals of operator-sdk's loader."""

_GO_JSON_WRAP = "error unmarshaling JSON: while decoding JSON: "
"""How ``sigs.k8s.io/yaml`` wraps a decoding error the api loader reports."""

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Largest manifest file read; a bundle must fit a 1 MiB ConfigMap compressed, so this is generous."""


def _display(base: str, rel: str) -> str:
    return f"{base.rstrip('/')}/{rel}" if rel else base


def _read_bytes(path: Path, shown: str) -> bytes:
    """A manifest's bytes under the input policy (:mod:`releasekit.io.inputs`).

    The manifest must be a regular file, with no symlink leaving its folder, of at most
    :data:`MAX_FILE_BYTES`.
    """
    return read_input(path, display=shown, max_bytes=MAX_FILE_BYTES, what="the bundle")


def _compressed_size(data: bytes) -> int:
    return len(base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)))


class _LenientBuilder(yamlio._Builder):
    """yamlio's builder, except a repeated key keeps the last value (as operator-sdk's YAML reader does)."""

    def __init__(self) -> None:
        super().__init__(yamlio.DEFAULT_MAX_NODES, True)
        self.duplicates: list[tuple[str, int]] = []

    def _mapping(self, node: yaml.MappingNode, path: str) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in yamlio._flatten_merge(node):
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlContentError("mapping keys must be scalars", key_node.start_mark.line + 1)
            key = self._scalar(key_node)
            if not isinstance(key, str | int | float | bool) and key is not None:
                key = str(key)
            child = yamlio.json_path(path, key)
            if key in result:
                self.duplicates.append((child, key_node.start_mark.line + 1))
                self.lines[child] = key_node.start_mark.line + 1
            else:
                self.lines.setdefault(child, key_node.start_mark.line + 1)
            result[key] = self.build(value_node, child)
        return result


def _parse_lenient(text: str) -> tuple[yamlio.LocatedDocument | None, list[tuple[str, int]]]:
    """First document of ``text`` with repeated keys allowed (last wins); returns the repeats too."""
    loader = yaml.CSafeLoader(text) if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader(text)
    try:
        node = loader.get_node() if loader.check_node() else None
    finally:
        loader.dispose()
    if node is None:
        return None, []
    builder = _LenientBuilder()
    data = builder.build(node, "$")
    return yamlio.LocatedDocument(
        data=data, line=node.start_mark.line + 1, lines=builder.lines
    ), builder.duplicates


def _parse(data: bytes, shown: str) -> tuple[Manifest | None, list[Finding]]:
    """First YAML document of ``data`` as a Manifest, or findings saying why not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            Finding(
                rule=ids.YAML_INVALID,
                severity=Severity.ERROR,
                message=f"unable to decode object: file is not valid UTF-8 ({exc.reason} at byte {exc.start})",
                location=Location(file=shown, line=data[: exc.start].count(b"\n") + 1),
                hint="save the manifest as UTF-8",
            )
        ]
    findings: list[Finding] = []
    try:
        doc = next(iter(iter_yaml_documents(text, source=shown)), None)
    except YamlContentError as exc:
        if exc.message.startswith("duplicate key"):
            doc, repeats = _parse_lenient(text)
            findings = [
                Finding(
                    rule=ids.YAML_DUPLICATE_KEY,
                    severity=Severity.INFO,  # operator-sdk accepts it silently; a note, not a verdict
                    message=f"duplicate key {path} (the last value wins, as operator-sdk and OLM read it)",
                    location=Location(file=shown, line=line, path=path),
                    hint="delete the earlier occurrence so the file says one thing",
                )
                for path, line in repeats
            ]
            if doc is not None and isinstance(doc.data, dict):
                return Manifest(
                    file=shown, data=doc.data, line=doc.line, lines=doc.lines, size=len(data)
                ), findings
        return None, [
            Finding(
                rule=ids.YAML_INVALID,
                severity=Severity.ERROR,
                message=f"unable to decode object: {exc.message}",
                location=Location(file=shown, line=exc.line or 1),
                hint="fix the YAML syntax at this line",
            )
        ]
    if doc is None or doc.data is None:
        return None, []
    if not isinstance(doc.data, dict):
        return None, [
            Finding(
                rule=ids.OBJECT_UNDECODABLE,
                severity=Severity.ERROR,
                message=f"unable to decode object: expected a mapping, found {type(doc.data).__name__}",
                location=Location(file=shown, line=doc.line, path="$"),
                hint="a manifest must be one Kubernetes object (a mapping with apiVersion, kind, metadata)",
            )
        ]
    return Manifest(file=shown, data=doc.data, line=doc.line, lines=doc.lines, size=len(data)), []


def _load_file(path: Path, shown: str) -> tuple[Manifest | None, list[Finding], bytes]:
    data = _read_bytes(path, shown)
    manifest, findings = _parse(data, shown)
    return manifest, findings, data


def _sorted_entries(directory: Path, shown: str) -> list[Path]:
    try:
        return sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise InputError(f"{shown}: cannot list folder: {exc.strerror or exc}") from None


def _require_dir(path: Path, shown: str) -> None:
    if not path.exists():
        raise InputError(f"{shown}: no such file or folder")
    if not path.is_dir():
        raise InputError(f"{shown}: not a folder")


_NUMBERS = "0123456789"
_ALPHANUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-"


def _number_error(part: str, what: str) -> str | None:
    if any(ch not in _NUMBERS for ch in part):
        return f'Invalid character(s) found in {what} number "{part}"'
    if len(part) > 1 and part.startswith("0"):
        return f'{what.capitalize()} number must not contain leading zeroes "{part}"'
    if not part:
        return 'strconv.ParseUint: parsing "": invalid syntax'
    return None


def semver_tolerant_error(text: str) -> str | None:
    """Why blang ``semver.ParseTolerant`` (the CSV's ``spec.version`` type) refuses ``text``, in its words."""
    parts = _tolerant_parts(text)
    if len(parts) < 3:
        if any(ch in parts[-1] for ch in "+-"):
            return "Short version cannot contain PreRelease/Build meta data"
        parts += ["0"] * (3 - len(parts))
    major, minor, patch = parts
    return _number_error(major, "major") or _number_error(minor, "minor") or _patch_error(patch)


def _tolerant_parts(text: str) -> list[str]:
    """The dot-separated parts ParseTolerant goes on with: no spaces, no ``v``, leading zeroes dropped."""
    parts = text.strip().removeprefix("v").split(".", 2)
    for index, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _NUMBERS:
                part = "0" + part
            parts[index] = part
    return parts


def _patch_error(patch: str) -> str | None:
    """What is wrong with the last part: the patch number, then its prerelease, then its build meta data."""
    patch, has_build, build = patch.partition("+")
    patch, has_pre, pre = patch.partition("-")
    problem = _number_error(patch, "patch")
    if problem is None and has_pre:
        problem = _prerelease_error(pre)
    if problem is None and has_build:
        problem = _build_error(build)
    return problem


def _prerelease_error(pre: str) -> str | None:
    for item in pre.split("."):
        if not item:
            return "Prerelease is empty"
        if any(ch not in _ALPHANUM for ch in item):
            return f'Invalid character(s) found in prerelease "{item}"'
        if all(ch in _NUMBERS for ch in item) and len(item) > 1 and item.startswith("0"):
            return f'Numeric PreRelease version must not contain leading zeroes "{item}"'
    return None


def _build_error(build: str) -> str | None:
    for item in build.split("."):
        if not item:
            return "Build meta data is empty"
        if any(ch not in _ALPHANUM for ch in item):
            return f'Invalid character(s) found in build meta data "{item}"'
    return None


def _go_json_type(value: object) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "value"


def _refusals(manifest: Manifest | None, data: bytes, shown: str) -> list[Finding]:
    """What the api loader refuses in one manifests-folder file beyond YAML syntax."""
    name = shown.rpartition("/")[2]
    if not data:
        return [
            Finding(
                rule=LOADER_UNDECODABLE,
                severity=Severity.ERROR,
                message="unable to decode object: EOF",
                location=Location(file=shown, line=1),
                hint="an empty file is no manifest; delete it or give it one Kubernetes object",
            )
        ]
    if manifest is None:
        return []
    if not manifest.kind:
        document = json.dumps(
            manifest.data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        )
        return [
            Finding(
                rule=LOADER_UNDECODABLE,
                severity=Severity.ERROR,
                message=f"unable to decode object: {_GO_JSON_WRAP}Object 'Kind' is missing in '{document}'",
                location=manifest.loc("$"),
                hint="every manifest needs apiVersion and kind",
            )
        ]
    if manifest.kind not in ("ClusterServiceVersion", "CustomResourceDefinition"):
        return []
    problem = _typed_decode_problem(manifest)
    if problem is None:
        return []
    path, detail, hint = problem
    what = "CSV" if manifest.kind == "ClusterServiceVersion" else "CRD"
    return [
        Finding(
            rule=LOADER_CSV_UNPARSABLE,
            severity=Severity.ERROR,
            message=f"unable to parse {what} {name}: {_GO_JSON_WRAP}{detail}",
            location=manifest.loc(path),
            hint=hint,
        )
    ]


_Desc = Any
"""A Go type as the typed decode sees it: ``"string"``, ``"bool"``, ``"semver"``, ``("named", type)``,
``("map", type)`` (string values), ``("slice", element, type)`` or ``("struct", name, fields, type)``."""


def _struct(name: str, fields: dict[str, _Desc], package: str) -> _Desc:
    return ("struct", name, fields, f"{package}.{name}")


def _slice(element: _Desc) -> _Desc:
    name = element[3] if isinstance(element, tuple) and element[0] == "struct" else str(element)
    return ("slice", element, f"[]{name}")


_STRING_MAP: _Desc = ("map", "map[string]string")
_STRINGS: _Desc = ("slice", "string", "[]string")
_OBJECT_META = _struct(
    "ObjectMeta",
    {
        "name": "string",
        "namespace": "string",
        "generateName": "string",
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
    },
    "v1",
)
_APP_LINK = _struct("AppLink", {"name": "string", "url": "string"}, "v1alpha1")
_POLICY_RULE = _struct(
    "PolicyRule",
    {
        "verbs": _STRINGS,
        "apiGroups": _STRINGS,
        "resources": _STRINGS,
        "resourceNames": _STRINGS,
        "nonResourceURLs": _STRINGS,
    },
    "v1",
)
"""rbac/v1 PolicyRule: every field a list of strings (a string ``resourceNames`` would widen the rule if dropped)."""
_PERMISSIONS = _slice(
    _struct(
        "StrategyDeploymentPermissions",
        {"serviceAccountName": "string", "rules": _slice(_POLICY_RULE)},
        "v1alpha1",
    )
)
_POD_SPEC = _struct(
    "PodSpec",
    {
        "serviceAccountName": "string",
        "containers": _slice(
            _struct(
                "Container",
                {"name": "string", "env": _slice(_struct("EnvVar", {"name": "string"}, "v1"))},
                "v1",
            )
        ),
    },
    "v1",
)
_INSTALL_STRATEGY = _struct(
    "NamedInstallStrategy",
    {
        "strategy": "string",
        "spec": _struct(
            "StrategyDetailsDeployment",
            {
                "deployments": _slice(
                    _struct(
                        "StrategyDeploymentSpec",
                        {
                            "name": "string",
                            "spec": _struct(
                                "DeploymentSpec",
                                {
                                    "template": _struct(
                                        "PodTemplateSpec", {"metadata": _OBJECT_META, "spec": _POD_SPEC}, "v1"
                                    )
                                },
                                "v1",
                            ),
                            "label": _STRING_MAP,
                        },
                        "v1alpha1",
                    )
                ),
                "permissions": _PERMISSIONS,
                "clusterPermissions": _PERMISSIONS,
            },
            "v1alpha1",
        ),
    },
    "v1alpha1",
)
"""The install strategy as far as releasekit reads it: deployments, their pod's service account and containers,
and the RBAC rules (what ``olmv1 manifests`` copies into the installer's roles)."""
_CSV_TYPE = _struct(
    "ClusterServiceVersion",
    {
        "metadata": _OBJECT_META,
        "spec": _struct(
            "ClusterServiceVersionSpec",
            {
                "version": "semver",
                "displayName": "string",
                "description": "string",
                "maturity": "string",
                "minKubeVersion": "string",
                "replaces": "string",
                "skips": _STRINGS,
                "keywords": _STRINGS,
                "labels": _STRING_MAP,
                "annotations": _STRING_MAP,
                "provider": _APP_LINK,
                "links": _slice(_APP_LINK),
                "maintainers": _slice(
                    _struct("Maintainer", {"name": "string", "email": "string"}, "v1alpha1")
                ),
                "installModes": _slice(
                    _struct(
                        "InstallMode",
                        {"type": ("named", "v1alpha1.InstallModeType"), "supported": "bool"},
                        "v1alpha1",
                    )
                ),
                "relatedImages": _slice(
                    _struct("RelatedImage", {"name": "string", "image": "string"}, "v1alpha1")
                ),
                "install": _INSTALL_STRATEGY,
            },
            "v1alpha1",
        ),
    },
    "v1alpha1",
)


def _crd_type(package: str) -> _Desc:
    names = _struct(
        "CustomResourceDefinitionNames",
        {
            "plural": "string",
            "singular": "string",
            "kind": "string",
            "listKind": "string",
            "shortNames": _STRINGS,
            "categories": _STRINGS,
        },
        package,
    )
    version = _struct(
        "CustomResourceDefinitionVersion",
        {"name": "string", "served": "bool", "storage": "bool", "deprecated": "bool"},
        package,
    )
    spec = _struct(
        "CustomResourceDefinitionSpec",
        {
            "group": "string",
            "version": "string",
            "scope": ("named", f"{package}.ResourceScope"),
            "names": names,
            "versions": _slice(version),
            "preserveUnknownFields": "bool",
        },
        package,
    )
    return _struct("CustomResourceDefinition", {"metadata": _OBJECT_META, "spec": spec}, package)


_GO_TYPE_OK = {"string": str, "bool": bool}
_GO_CONTAINERS = {"map": dict, "slice": list, "struct": dict}


def _decode_errors(
    value: Any, desc: _Desc, field: str, struct: str, path: str
) -> Iterator[tuple[bool, str, str]]:
    """(aborts, JSON path, Go's error) in the order encoding/json meets them (keys sorted, as YAML->JSON sorts)."""
    if value is None:
        return
    if desc == "semver":
        yield from _semver_decode_errors(value, path)
    elif isinstance(desc, str) or desc[0] == "named":
        yield from _scalar_decode_errors(value, desc, field, struct, path)
    elif not isinstance(value, _GO_CONTAINERS[desc[0]]):
        yield False, path, _unmarshal_error(value, struct, field, desc[-1])
    elif desc[0] == "map":
        yield from _string_map_decode_errors(value, field, struct, path)
    elif desc[0] == "slice":
        for index, item in enumerate(value):
            yield from _decode_errors(item, desc[1], field, struct, f"{path}[{index}]")
    else:
        yield from _struct_decode_errors(value, desc, field, path)


def _unmarshal_error(value: Any, struct: str, field: str, go_type: str) -> str:
    return f"json: cannot unmarshal {_go_json_type(value)} into Go struct field {struct}.{field} of type {go_type}"


def _semver_decode_errors(value: Any, path: str) -> Iterator[tuple[bool, str, str]]:
    """A version that is not semver stops the whole decode (the one error that aborts)."""
    problem = (
        semver_tolerant_error(value)
        if isinstance(value, str)
        else f"json: cannot unmarshal {_go_json_type(value)} into Go value of type string"
    )
    if problem is not None:
        yield True, path, problem


def _scalar_decode_errors(
    value: Any, desc: _Desc, field: str, struct: str, path: str
) -> Iterator[tuple[bool, str, str]]:
    """A string, a bool or a named string type: a bool is no string and a string no bool."""
    go_type, python_type = (desc, _GO_TYPE_OK[desc]) if isinstance(desc, str) else (desc[1], str)
    if not isinstance(value, python_type) or (python_type is not bool and isinstance(value, bool)):
        yield False, path, _unmarshal_error(value, struct, field, go_type)


def _string_map_decode_errors(
    value: dict[Any, Any], field: str, struct: str, path: str
) -> Iterator[tuple[bool, str, str]]:
    for key in sorted(value, key=str):
        if value[key] is not None and not isinstance(value[key], str):
            yield False, f"{path}[{key!r}]", _unmarshal_error(value[key], struct, field, "string")


def _struct_decode_errors(
    value: dict[Any, Any], desc: _Desc, field: str, path: str
) -> Iterator[tuple[bool, str, str]]:
    """The fields releasekit reads, by sorted key; errors name the innermost struct and the dotted field."""
    for key in sorted(value, key=str):
        if key in desc[2]:
            child = f"{field}.{key}" if field else str(key)
            yield from _decode_errors(value[key], desc[2][key], child, desc[1], f"{path}.{key}")


def _typed_decode_problem(manifest: Manifest) -> tuple[str, str, str] | None:
    """The error decoding the CSV or CRD into its Go type gives: (JSON path, Go's error, hint), or None.

    A ported subset of the Go types: the fields real bundles get wrong (the CSV version, which must be
    semver; an unquoted ``true`` among labels or annotations; ``supported: "true"``; CRD version flags)
    and every field of the install strategy releasekit reads (a ``resourceNames: one-secret`` string, a
    deployment ``spec`` that is a list): what Go cannot decode is refused, never dropped or widened.
    encoding/json keeps the first type mismatch and goes on, but a version that is not semver stops it.
    """
    if manifest.kind == "ClusterServiceVersion":
        desc = _CSV_TYPE
    else:
        desc = _crd_type("v1beta1" if manifest.api_version.endswith("/v1beta1") else "v1")
    errors = list(_decode_errors(dict(manifest.data), desc, "", desc[1], "$"))
    if not errors:
        return None
    aborts, path, detail = next((e for e in errors if e[0]), errors[0])
    if path == "$.spec.version":
        return path, detail, 'write spec.version as a semantic version in quotes, such as "1.2.3"'
    if "of type []string" in detail and not path.endswith("]"):
        return (
            path,
            detail,
            "write the field as a list of strings (resourceNames: [one-secret]), not one value",
        )
    return path, detail, "give the field the type Kubernetes expects (quote strings, write booleans unquoted)"


class _Collector:
    """Sorts loaded manifests into CSV / CRDs / objects and adds up sizes."""

    def __init__(self) -> None:
        self.csvs: list[Manifest] = []
        self.crds: list[Manifest] = []
        self.objects: list[Manifest] = []
        self.findings: list[Finding] = []
        self.size = 0
        self.compressed = 0

    def add(self, manifest: Manifest | None, findings: list[Finding], data: bytes) -> None:
        self.findings.extend(findings)
        self.size += len(data)
        self.compressed += _compressed_size(data) if data else 0
        if manifest is None:
            return
        if manifest.kind == "ClusterServiceVersion":
            self.csvs.append(manifest)
        elif manifest.kind == "CustomResourceDefinition":
            self.crds.append(manifest)
        else:
            self.objects.append(manifest)


def _read_manifest_dir(directory: Path, shown: str) -> tuple[_Collector, list[StrayEntry]]:
    collector = _Collector()
    strays: list[StrayEntry] = []
    for entry in _sorted_entries(directory, shown):
        entry_shown = _display(shown, entry.name)
        if entry.is_dir():
            strays.append(StrayEntry(path=entry_shown, is_dir=True))
            continue
        if entry.name.startswith("."):
            strays.append(StrayEntry(path=entry_shown, is_dir=False))
            continue
        manifest, findings, data = _load_file(entry, entry_shown)
        if manifest is None and not findings and data:
            # a document that is only comments or null: Go decodes it to an empty object, kind ""
            manifest = Manifest(file=entry_shown, data={}, size=len(data))
        else:
            findings = findings + _refusals(manifest, data, entry_shown)
        collector.add(manifest, findings, data)
    return collector, strays


def _bundle_from(
    collector: _Collector, strays: list[StrayEntry], root: str, layout: BundleLayout, **extra: object
) -> Bundle:
    csvs = collector.csvs
    return Bundle(
        root=root,
        layout=layout,
        csv=csvs[0] if csvs else None,
        extra_csvs=tuple(csvs[1:]),
        crds=tuple(collector.crds),
        objects=tuple(collector.objects),
        stray_entries=tuple(strays),
        size=collector.size,
        compressed_size=collector.compressed,
        load_findings=tuple(collector.findings),
        **extra,  # type: ignore[arg-type]
    )


def load_manifests_dir(path: Path, *, shown: str | None = None) -> Bundle:
    """Load a folder holding only manifests (operator-registry ``ValidateBundleContent`` input)."""
    shown = shown if shown is not None else str(path)
    _require_dir(path, shown)
    collector, strays = _read_manifest_dir(path, shown)
    return _bundle_from(collector, strays, shown, BundleLayout.MANIFESTS_DIR)


def _read_metadata(
    directory: Path, shown: str
) -> tuple[Manifest | None, Manifest | None, list[str], list[Finding], Manifest | None]:
    annotations: Manifest | None = None
    dependencies: Manifest | None = None
    properties: Manifest | None = None
    files: list[str] = []
    findings: list[Finding] = []
    for entry in _sorted_entries(directory, shown):
        if not entry.is_file():
            continue
        entry_shown = _display(shown, entry.name)
        files.append(entry_shown)
        manifest, problems, _ = _load_file(entry, entry_shown)
        findings.extend(problems)
        if manifest is None:
            continue
        if (
            annotations is None
            and isinstance(manifest.data.get("annotations"), dict)
            and manifest.data["annotations"]
        ):
            annotations = manifest
        deps = manifest.data.get("dependencies")
        if dependencies is None and isinstance(deps, list) and deps:
            dependencies = manifest
        props = manifest.data.get("properties")
        if properties is None and isinstance(props, list) and props:
            properties = manifest
    return annotations, dependencies, files, findings, properties


def load_bundle_root(path: Path, *, shown: str | None = None) -> Bundle:
    """Load a registry+v1 bundle root: ``manifests/``, ``metadata/`` and an optional ``bundle.Dockerfile``."""
    shown = shown if shown is not None else str(path)
    _require_dir(path, shown)
    manifests_dir, metadata_dir = path / "manifests", path / "metadata"
    has_manifests, has_metadata = manifests_dir.is_dir(), metadata_dir.is_dir()
    if has_manifests:
        collector, strays = _read_manifest_dir(manifests_dir, _display(shown, "manifests"))
    else:
        collector, strays = _Collector(), []
    annotations = dependencies = properties = None
    metadata_files: list[str] = []
    if has_metadata:
        annotations, dependencies, metadata_files, problems, properties = _read_metadata(
            metadata_dir, _display(shown, "metadata")
        )
        collector.findings.extend(problems)
    dockerfile_path = path / "bundle.Dockerfile"
    dockerfile = (
        load_dockerfile(dockerfile_path, shown=_display(shown, "bundle.Dockerfile"))
        if dockerfile_path.is_file()
        else None
    )
    return _bundle_from(
        collector,
        strays,
        shown,
        BundleLayout.BUNDLE_ROOT,
        annotations=annotations,
        dependencies=dependencies,
        dockerfile=dockerfile,
        properties=properties,
        has_manifests_dir=has_manifests,
        has_metadata_dir=has_metadata,
        metadata_files=tuple(metadata_files),
    )


def load_flat_bundle(path: Path, *, shown: str | None = None) -> Bundle:
    """Load a folder the way api's ``manifests.GetBundleFromDir`` does (see the module docstring)."""
    shown = shown if shown is not None else str(path)
    _require_dir(path, shown)
    csv_dir: Path | None = None
    annotations: Manifest | None = None
    extra: list[Finding] = []
    for current, dirnames, filenames in os.walk(path):
        dirnames.sort()
        here = Path(current)
        if len(here.relative_to(path).parts) > MAX_WALK_DEPTH:
            raise SafetyLimitError(
                f"{here}: folders nested deeper than {MAX_WALK_DEPTH} levels; refusing them"
            )
        rel = here.relative_to(path).as_posix()
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            file_path = here / name
            entry_shown = _display(shown, f"{rel}/{name}" if rel != "." else name)
            if name.startswith("annotations") and annotations is None:
                manifest, problems, _ = _load_file(file_path, entry_shown)
                extra.extend(problems)
                if manifest is not None and isinstance(manifest.data.get("annotations"), dict):
                    annotations = manifest
                continue
            if csv_dir is None and name.endswith((".yaml", ".yml", ".json")):
                manifest, _problems, _ = _load_file(file_path, entry_shown)
                if manifest is not None and manifest.kind == "ClusterServiceVersion":
                    csv_dir = here
    target = csv_dir or path
    rel_dir = target.relative_to(path).as_posix()
    dir_shown = _display(shown, rel_dir) if rel_dir != "." else shown
    collector, strays = _read_manifest_dir(target, dir_shown)
    collector.findings.extend(extra)
    return _bundle_from(collector, strays, shown, BundleLayout.FLAT, annotations=annotations)


def load_single_file(path: Path, *, shown: str | None = None) -> Bundle:
    """Load one manifest (CSV, CRD, OperatorGroup or any object) to validate it alone."""
    shown = shown if shown is not None else str(path)
    collector = _Collector()
    collector.add(*_load_file(path, shown))
    return _bundle_from(collector, [], shown, BundleLayout.FILE)


def load_bundle(path: Path, *, shown: str | None = None) -> Bundle:
    """Load whatever ``path`` is: a file, a bundle root (has manifests/ or metadata/), or a flat folder."""
    shown = shown if shown is not None else str(path)
    if not path.exists():
        raise InputError(f"{shown}: no such file or folder")
    if path.is_file():
        return load_single_file(path, shown=shown)
    if (path / "manifests").is_dir() or (path / "metadata").is_dir():
        bundle = load_bundle_root(path, shown=shown)
    else:
        bundle = load_flat_bundle(path, shown=shown)
    return dataclasses.replace(bundle, load_findings=bundle.load_findings + _folder_refusals(bundle, path))


def _has_files(directory: Path) -> bool:
    try:
        return any(not entry.is_dir() for entry in directory.iterdir())
    except OSError:
        return False


def _annotations_anywhere(path: Path) -> bool:
    """operator-sdk's fallback: any file under ``path`` whose first document has a non-empty ``annotations`` map."""
    for current, dirs, files in os.walk(path):
        if len(Path(current).relative_to(path).parts) >= MAX_WALK_DEPTH:
            dirs[:] = []  # the input policy's folder depth
        for name in sorted(files):
            try:
                manifest, _, _ = _load_file(Path(current) / name, name)
            except (InputError, SafetyLimitError):
                continue
            value = manifest.data.get("annotations") if manifest is not None else None
            if isinstance(value, dict) and value:
                return True
    return False


def _folder_refusals(bundle: Bundle, path: Path) -> tuple[Finding, ...]:
    """What operator-sdk refuses before its loader runs: no metadata (RK-BUNDLE-120), no manifest files (121).

    operator-sdk looks for ``metadata/annotations.yaml``, else any file with an ``annotations`` map; then
    reads the manifests from the folder ``operators.operatorframework.io.bundle.manifests.v1`` names
    (``manifests/``), which must hold at least one file.
    """
    if bundle.annotations is None and not _annotations_anywhere(path):
        if any(f.rule in (ids.YAML_INVALID, ids.OBJECT_UNDECODABLE) for f in bundle.load_findings):
            return ()  # the metadata file is there but broken: that finding says why
        return (
            Finding(
                rule=LOADER_METADATA_NOT_FOUND,
                severity=Severity.ERROR,
                message=f"metadata not found in {bundle.root}",
                location=Location(file=bundle.root),
                hint="add metadata/annotations.yaml with the operators.operatorframework.io.bundle.* annotations",
            ),
        )
    annotations = bundle.annotations
    if annotations is not None and annotations.file == _display(bundle.root, "metadata/annotations.yaml"):
        for key, item in bundle.annotation_values.items():
            if not isinstance(item, str):
                return (
                    Finding(
                        rule=LOADER_METADATA_UNPARSABLE,
                        severity=Severity.ERROR,
                        message=f"error unmarshalling potential bundle metadata {annotations.file}: {_GO_JSON_WRAP}"
                        f"json: cannot unmarshal {_go_json_type(item)} into Go struct field "
                        "AnnotationMetadata.annotations of type string",
                        location=annotations.loc(f"$.annotations[{key!r}]"),
                        hint=f'quote the value: {key}: "{item}"',
                    ),
                )
    value = bundle.annotation(ANNOTATION_MANIFESTS)
    relative = os.path.normpath(value.strip() if isinstance(value, str) and value.strip() else "manifests/")
    if bundle.layout is BundleLayout.FLAT and relative == ".":
        return ()
    if (
        bundle.layout is BundleLayout.BUNDLE_ROOT
        and relative == "manifests"
        and _has_files(path / "manifests")
    ):
        return ()
    directory = _display(bundle.root, relative)
    if bundle.layout is BundleLayout.BUNDLE_ROOT and relative != "manifests" and _has_files(path / relative):
        return ()  # another folder named by the annotation: RK-BUNDLE-016 notes the difference
    return (
        Finding(
            rule=LOADER_NO_MANIFEST_FILES,
            severity=Severity.ERROR,
            message=f"The directory {directory} contains no yaml files",
            location=Location(file=directory),
            hint="put the CSV, CRDs and other manifests in the bundle's manifests/ folder",
        ),
    )


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Join backslash continuations; return (first line number, joined text)."""
    out: list[tuple[int, str]] = []
    buffer = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not buffer:
            start = number
        stripped = raw.rstrip()
        if stripped.endswith("\\"):
            buffer += stripped[:-1] + " "
            continue
        buffer += raw
        out.append((start, buffer))
        buffer = ""
    if buffer:
        out.append((start, buffer))
    return out


def load_dockerfile(path: Path, *, shown: str | None = None) -> Dockerfile:
    """Read a bundle Dockerfile's LABELs; a path that does not exist gives ``exists=False``."""
    shown = shown if shown is not None else str(path)
    if not path.exists():
        return Dockerfile(file=shown, exists=False)
    text = _read_bytes(path, shown).decode("utf-8", errors="replace")
    labels: list[DockerfileLabel] = []
    for number, line in _logical_lines(text):
        stripped = line.strip()
        if not stripped.upper().startswith("LABEL "):
            continue
        body = stripped[6:].strip()
        try:
            tokens = shlex.split(body)
        except ValueError:
            tokens = body.split()
        for token in tokens:
            key, sep, value = token.partition("=")
            labels.append(DockerfileLabel(key=key, value=value if sep else "", line=number, text=line))
    return Dockerfile(file=shown, labels=tuple(labels))


def load_categories_file(path: Path) -> tuple[str, ...]:
    """Read an ``OPERATOR_BUNDLE_CATEGORIES`` file: ``{"categories": [...]}``."""
    data = _read_bytes(path, str(path))
    check_nesting(data, str(path), yaml=False)
    try:
        value = json.loads(data)
        categories = value["categories"]
        if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
            raise TypeError("categories must be a list of strings")
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: could not extract custom categories from categories file: {exc}") from None
    return tuple(categories)
