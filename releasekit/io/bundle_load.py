"""Load registry+v1 bundles from disk into :mod:`releasekit.model.bundle` values.

Adapter module. Two layouts: a *bundle root* (``manifests/``, ``metadata/``, ``bundle.Dockerfile``), what
``bundle validate`` and ``bundle build`` read, and a *manifests folder* (operator-registry's
``ValidateBundleContent`` input). Each file yields its first YAML document. Unparsable YAML is a finding
with file and line (RK-BUNDLE-001/002); what operator-sdk's loader refuses is a finding of its own rules
(RK-BUNDLE-120 to 124, in its words), so the caller decides what a refusal means; a path that cannot be
read raises :class:`~releasekit.errors.InputError` (exit 2).
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import os
import shlex
from pathlib import Path
from typing import Any

import yaml

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.inputs import read_input, walk_files
from releasekit.io.yamlio import SafeLoader, YamlContentError, iter_yaml_documents, json_path
from releasekit.model import bundle_ids as ids
from releasekit.model import jsontext
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
from releasekit.model.go_decode import GO_JSON_WRAP, go_json_type, typed_decode_problem

__all__ = [
    "load_bundle",
    "load_bundle_root",
    "load_categories_file",
    "load_dockerfile",
    "load_manifests_dir",
]

_CSV, _CRD = "ClusterServiceVersion", "CustomResourceDefinition"

_Loaded = tuple[Manifest | None, list[Finding], bytes]
"""One file: its manifest (if any), the findings of loading it, its bytes."""


def _display(base: str, rel: str) -> str:
    return f"{base.rstrip('/')}/{rel}" if rel else base


def _error(
    rule: str, message: str, location: Location, hint: str, severity: Severity = Severity.ERROR
) -> Finding:
    return Finding(rule=rule, severity=severity, message=message, location=location, hint=hint)


def _repeated_keys(text: str) -> list[tuple[str, int]]:
    """(JSON path, line) of every repeated mapping key in the first document of ``text``."""
    loader = SafeLoader(text)
    try:
        pending: list[tuple[yaml.Node, str]] = [(loader.get_node(), "$")] if loader.check_node() else []
    finally:
        loader.dispose()
    repeats: list[tuple[str, int]] = []
    seen: set[int] = set()
    while pending:
        node, path = pending.pop()
        if id(node) in seen or isinstance(node, yaml.ScalarNode):
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            pending.extend((child, f"{path}[{i}]") for i, child in enumerate(node.value))
            continue
        keys: set[str] = set()
        for key, value in node.value:
            child = json_path(path, key.value)
            if key.value in keys:
                repeats.append((child, key.start_mark.line + 1))
            keys.add(key.value)
            pending.append((value, child))
    return sorted(repeats, key=lambda repeat: repeat[1])


def _parse(data: bytes, shown: str) -> tuple[Manifest | None, list[Finding]]:
    """First YAML document of ``data`` as a Manifest, or findings saying why not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"unable to decode object: file is not valid UTF-8 ({exc.reason} at byte {exc.start})"
        where = Location(file=shown, line=data.count(b"\n", 0, exc.start) + 1)
        return None, [_error(ids.YAML_INVALID, message, where, "save the manifest as UTF-8")]
    notes: list[Finding] = []
    try:
        try:
            doc = next(iter_yaml_documents(text, source=shown), None)
        except YamlContentError as exc:
            if not exc.message.startswith("duplicate key"):
                raise
            # operator-sdk accepts a repeated key silently (the last value wins): a note, not a verdict
            doc = next(iter_yaml_documents(text, source=shown, last_key_wins=True), None)
            hint = "delete the earlier occurrence so the file says one thing"
            notes = [
                _error(
                    ids.YAML_DUPLICATE_KEY,
                    f"duplicate key {path} (the last value wins, as operator-sdk and OLM read it)",
                    Location(file=shown, line=line, path=path),
                    hint,
                    Severity.INFO,
                )
                for path, line in _repeated_keys(text)
            ]
    except YamlContentError as exc:
        message, where = f"unable to decode object: {exc.message}", Location(file=shown, line=exc.line or 1)
        return None, [_error(ids.YAML_INVALID, message, where, "fix the YAML syntax at this line")]
    if doc is None or doc.data is None:
        return None, notes
    if not isinstance(doc.data, dict):
        message = f"unable to decode object: expected a mapping, found {type(doc.data).__name__}"
        hint = "a manifest must be one Kubernetes object (a mapping with apiVersion, kind, metadata)"
        return None, [
            _error(ids.OBJECT_UNDECODABLE, message, Location(file=shown, line=doc.line, path="$"), hint)
        ]
    return Manifest(file=shown, data=doc.data, line=doc.line, lines=doc.lines), notes


def _load_file(path: Path, shown: str) -> _Loaded:
    """One file read under the input policy (:mod:`releasekit.io.inputs`) and parsed."""
    data = read_input(path, display=shown, what="the bundle")
    return (*_parse(data, shown), data)


def _sorted_entries(directory: Path, shown: str) -> list[Path]:
    try:
        return sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise InputError(f"{shown}: cannot list folder: {exc.strerror or exc}") from None


def _require_dir(path: Path, shown: str) -> None:
    if not path.is_dir():
        raise InputError(f"{shown}: not a folder" if path.exists() else f"{shown}: no such file or folder")


def _refusals(manifest: Manifest | None, data: bytes, shown: str) -> list[Finding]:
    """What the api loader refuses in one manifests-folder file beyond YAML syntax."""
    if not data:
        hint = "an empty file is no manifest; delete it or give it one Kubernetes object"
        return [
            _error(ids.LOADER_UNDECODABLE, "unable to decode object: EOF", Location(file=shown, line=1), hint)
        ]
    if manifest is None:
        return []
    if not manifest.kind:
        document = json.dumps(
            manifest.data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        )
        message = f"unable to decode object: {GO_JSON_WRAP}Object 'Kind' is missing in '{document}'"
        return [
            _error(
                ids.LOADER_UNDECODABLE, message, manifest.loc("$"), "every manifest needs apiVersion and kind"
            )
        ]
    problem = typed_decode_problem(manifest) if manifest.kind in (_CSV, _CRD) else None
    if problem is None:
        return []
    path, detail, hint = problem
    what = "CSV" if manifest.kind == _CSV else "CRD"
    message = f"unable to parse {what} {shown.rpartition('/')[2]}: {GO_JSON_WRAP}{detail}"
    return [_error(ids.LOADER_CSV_UNPARSABLE, message, manifest.loc(path), hint)]


# ------------------------------------------------------------------ layouts


def _read_manifest_dir(directory: Path, shown: str) -> tuple[list[_Loaded], list[StrayEntry]]:
    files: list[_Loaded] = []
    strays: list[StrayEntry] = []
    for entry in _sorted_entries(directory, shown):
        entry_shown = _display(shown, entry.name)
        if entry.is_dir() or entry.name.startswith("."):
            strays.append(StrayEntry(path=entry_shown, is_dir=entry.is_dir()))
            continue
        manifest, findings, data = _load_file(entry, entry_shown)
        if manifest is None and not findings and data:
            # a document that is only comments or null: Go decodes it to an empty object, kind ""
            manifest = Manifest(file=entry_shown, data={})
        else:
            findings = findings + _refusals(manifest, data, entry_shown)
        files.append((manifest, findings, data))
    return files, strays


def _bundle_from(
    files: list[_Loaded],
    root: str,
    layout: BundleLayout,
    *,
    strays: list[StrayEntry],
    findings: list[Finding] | None = None,
    **extra: Any,
) -> Bundle:
    """The bundle of the loaded ``files``; ``findings`` come after the files' own."""
    manifests = [manifest for manifest, _, _ in files if manifest is not None]
    csvs = [m for m in manifests if m.kind == _CSV]
    return Bundle(
        root=root,
        layout=layout,
        csv=csvs[0] if csvs else None,
        extra_csvs=tuple(csvs[1:]),
        crds=tuple(m for m in manifests if m.kind == _CRD),
        objects=tuple(m for m in manifests if m.kind not in (_CSV, _CRD)),
        stray_entries=tuple(strays),
        size=sum(len(data) for _, _, data in files),
        compressed_size=sum(
            len(base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)))
            for _, _, data in files
            if data
        ),
        load_findings=tuple(f for _, found, _ in files for f in found) + tuple(findings or ()),
        **extra,
    )


def load_manifests_dir(path: Path, *, shown: str | None = None) -> Bundle:
    """Load a folder holding only manifests (operator-registry ``ValidateBundleContent`` input)."""
    shown = shown if shown is not None else str(path)
    _require_dir(path, shown)
    files, strays = _read_manifest_dir(path, shown)
    return _bundle_from(files, shown, BundleLayout.MANIFESTS_DIR, strays=strays)


def _first_with(manifests: list[Manifest], key: str, kind: type) -> Manifest | None:
    """operator-registry's rule: the first metadata file with a non-empty top-level ``key`` of ``kind``."""
    return next((m for m in manifests if isinstance(m.data.get(key), kind) and m.data[key]), None)


def load_bundle_root(path: Path, *, shown: str | None = None) -> Bundle:
    """Load a registry+v1 bundle root: ``manifests/``, ``metadata/`` and an optional ``bundle.Dockerfile``."""
    shown = shown if shown is not None else str(path)
    _require_dir(path, shown)
    manifests_dir, metadata_dir = path / "manifests", path / "metadata"
    has_manifests, has_metadata = manifests_dir.is_dir(), metadata_dir.is_dir()
    files, strays = (
        _read_manifest_dir(manifests_dir, _display(shown, "manifests")) if has_manifests else ([], [])
    )
    metadata_shown = _display(shown, "metadata")
    entries = _sorted_entries(metadata_dir, metadata_shown) if has_metadata else []
    metadata_files = {entry: _display(metadata_shown, entry.name) for entry in entries if entry.is_file()}
    loaded = [_load_file(entry, entry_shown) for entry, entry_shown in metadata_files.items()]
    metadata = [manifest for manifest, _, _ in loaded if manifest is not None]
    dockerfile = path / "bundle.Dockerfile"
    return _bundle_from(
        files,
        shown,
        BundleLayout.BUNDLE_ROOT,
        strays=strays,
        annotations=_first_with(metadata, "annotations", dict),
        dependencies=_first_with(metadata, "dependencies", list),
        properties=_first_with(metadata, "properties", list),
        dockerfile=load_dockerfile(dockerfile, shown=_display(shown, dockerfile.name))
        if dockerfile.is_file()
        else None,
        has_manifests_dir=has_manifests,
        has_metadata_dir=has_metadata,
        metadata_files=tuple(metadata_files.values()),
        findings=[f for _, found, _ in loaded for f in found],
    )


def load_bundle(path: Path, *, shown: str | None = None) -> Bundle:
    """Load the bundle root ``path`` as ``bundle validate`` reads it.

    Beyond :func:`load_bundle_root`, the folder-level refusals (RK-BUNDLE-120, 121, 124): operator-sdk
    looks for metadata before it loads manifests.
    """
    bundle = load_bundle_root(path, shown=shown)
    return dataclasses.replace(bundle, load_findings=bundle.load_findings + _folder_refusals(bundle, path))


def _annotations_anywhere(path: Path) -> bool:
    """operator-sdk's fallback: any file under ``path`` whose first document has a non-empty ``annotations`` map."""
    for file in walk_files(path, what="the bundle"):
        try:
            manifest, _, _ = _load_file(file, file.name)
        except (InputError, SafetyLimitError):
            continue
        value = manifest.data.get("annotations") if manifest is not None else None
        if isinstance(value, dict) and value:
            return True
    return False


def _folder_refusals(bundle: Bundle, path: Path) -> tuple[Finding, ...]:
    """What operator-sdk refuses before its loader runs (RK-BUNDLE-120, 124, 121, in its order)."""
    if bundle.annotations is None and not _annotations_anywhere(path):
        if any(f.rule in (ids.YAML_INVALID, ids.OBJECT_UNDECODABLE) for f in bundle.load_findings):
            return ()  # the metadata file is there but broken: that finding says why
        hint = "add metadata/annotations.yaml with the operators.operatorframework.io.bundle.* annotations"
        message = f"metadata not found in {bundle.root}"
        return (_error(ids.LOADER_METADATA_NOT_FOUND, message, Location(file=bundle.root), hint),)
    annotations = bundle.annotations
    if annotations is not None and annotations.file == _display(bundle.root, "metadata/annotations.yaml"):
        for key, item in bundle.annotation_values.items():
            if not isinstance(item, str):
                message = (
                    f"error unmarshalling potential bundle metadata {annotations.file}: {GO_JSON_WRAP}"
                    f"json: cannot unmarshal {go_json_type(item)} into Go struct field "
                    "AnnotationMetadata.annotations of type string"
                )
                where = annotations.loc(f"$.annotations[{key!r}]")
                return (
                    _error(
                        ids.LOADER_METADATA_UNPARSABLE, message, where, f'quote the value: {key}: "{item}"'
                    ),
                )
    value = bundle.annotation(ANNOTATION_MANIFESTS)
    relative = os.path.normpath(value.strip() if isinstance(value, str) and value.strip() else "manifests/")
    directory = _display(bundle.root, relative)
    folder = path / relative  # manifests/, or another folder the annotation names (RK-BUNDLE-016 notes that)
    if folder.is_dir() and any(not e.is_dir() for e in _sorted_entries(folder, directory)):
        return ()
    hint = "put the CSV, CRDs and other manifests in the bundle's manifests/ folder"
    message = f"The directory {directory} contains no yaml files"
    return (_error(ids.LOADER_NO_MANIFEST_FILES, message, Location(file=directory), hint),)


# ------------------------------------------------------------------ other bundle files


def load_dockerfile(path: Path, *, shown: str | None = None) -> Dockerfile:
    """Read a bundle Dockerfile's LABELs."""
    shown = shown if shown is not None else str(path)
    text = read_input(path, display=shown, what="the bundle").decode("utf-8", errors="replace")
    labels: list[DockerfileLabel] = []
    numbered = enumerate(text.splitlines(), start=1)
    for start, raw in numbered:
        joined: list[str] = []
        while raw.rstrip().endswith("\\"):  # a continuation: the next line belongs to this one
            joined.append(raw.rstrip()[:-1] + " ")
            raw = next(numbered, (0, ""))[1]
        body = ("".join(joined) + raw).strip()
        if not body.upper().startswith("LABEL "):
            continue
        try:
            tokens = shlex.split(body[6:])
        except ValueError:
            tokens = body[6:].split()
        for token in tokens:
            key, sep, value = token.partition("=")
            labels.append(DockerfileLabel(key=key, value=value if sep else "", line=start))
    return Dockerfile(file=shown, labels=tuple(labels))


def load_categories_file(path: Path) -> tuple[str, ...]:
    """Read an ``OPERATOR_BUNDLE_CATEGORIES`` file: ``{"categories": [...]}``."""
    try:
        categories = jsontext.loads(read_input(path, what="the bundle").decode("utf-8"))["categories"]
        if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
            raise TypeError("categories must be a list of strings")
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: could not extract custom categories from categories file: {exc}") from None
    return tuple(categories)
