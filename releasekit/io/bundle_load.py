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
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import shlex
from pathlib import Path
from typing import Any

import yaml

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io import yamlio
from releasekit.io.yamlio import YamlContentError, iter_yaml_documents
from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import (
    Bundle,
    BundleLayout,
    Dockerfile,
    DockerfileLabel,
    Manifest,
    StrayEntry,
)
from releasekit.model.finding import Finding, Location, Severity

__all__ = [
    "MAX_FILE_BYTES",
    "load_bundle",
    "load_bundle_root",
    "load_categories_file",
    "load_dockerfile",
    "load_flat_bundle",
    "load_manifests_dir",
    "load_single_file",
]

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Largest manifest file read; a bundle must fit a 1 MiB ConfigMap compressed, so this is generous."""


def _display(base: str, rel: str) -> str:
    return f"{base.rstrip('/')}/{rel}" if rel else base


def _read_bytes(path: Path, shown: str) -> bytes:
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    if not path.is_file():
        raise InputError(f"{shown}: not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise SafetyLimitError(f"{shown}: {info.st_size:,} bytes is over the {MAX_FILE_BYTES:,}-byte limit")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{shown}: cannot read: {exc.strerror or exc}") from None


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
        doc = next(iter(iter_yaml_documents(text)), None)
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
        collector.add(*_load_file(entry, entry_shown))
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
        return load_bundle_root(path, shown=shown)
    return load_flat_bundle(path, shown=shown)


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
    try:
        value = json.loads(data)
        categories = value["categories"]
        if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
            raise TypeError("categories must be a list of strings")
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: could not extract custom categories from categories file: {exc}") from None
    return tuple(categories)
