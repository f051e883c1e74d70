"""Load ``streams/``: stream files, recorded release facts and upstream inventories, with locations.

Adapter module (reads files). Every file is parsed with :mod:`releasekit.io.yamlio` (line per JSON
path, duplicate keys refused) and validated against the JSON Schema shipped in
``releasekit/schemas/``; schema violations become findings that name file and line. Valid documents
become model values (:mod:`releasekit.model.stream`, :mod:`releasekit.model.inventory`).

Layout read (see ``streams/README.md``)::

    <root>/<stream>.yaml                          one file per stream (stable, experimental)
    <root>/recorded/<package>.v<version>.yaml     recorded facts of releases made before releasekit
    <root>/upstream/kueue-<line>.yaml             upstream Kueue inventories

Raises :class:`releasekit.errors.InputError` only for input that cannot be read at all (a missing
folder, unreadable bytes, text that is not YAML); everything else is a finding.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import semver

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.inputs import inside, read_input_text
from releasekit.io.yamlio import LocatedDocument, YamlContentError, json_path, load_yaml_documents
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.inventory import (
    Crd,
    CrdVersion,
    FeatureGate,
    GateStage,
    Inventory,
    InventorySource,
    Maturity,
)
from releasekit.model.stream import (
    ApiMaturityPolicy,
    ApiServiceRef,
    ChannelPolicy,
    ConditionalGate,
    CrdPlacement,
    CrossMinor,
    CsvMetadataFacts,
    FeatureGatePolicy,
    GateSetting,
    Gvk,
    InstallMode,
    OlmV1Readiness,
    OpenShiftVersion,
    Origin,
    OwnedCrdRef,
    RecordedRelease,
    RelatedImage,
    Release,
    ReleaseImages,
    ReleaseStatus,
    Stream,
    UpgradePolicy,
    Upstream,
)
from releasekit.model.stream_ids import (
    RULE_DUPLICATE_KEY,
    RULE_EMPTY,
    RULE_FILE,
    RULE_OPENSHIFT,
    RULE_RECORDED,
    RULE_SCHEMA,
    RULE_SEMVER,
)

if TYPE_CHECKING:
    import jsonschema

__all__ = [
    "LoadedStreams",
    "feature_gates",
    "load_inventory",
    "load_streams",
    "schema_findings",
]

STREAM_SCHEMA = "stream.schema.json"
RECORDED_SCHEMA = "stream-recorded.schema.json"
INVENTORY_SCHEMA = "inventory.schema.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedStreams:
    """What :func:`load_streams` read.

    Attributes:
        streams: the streams that could be built, sorted by name.
        inventories: inventories by name (``kueue-0.11``).
        findings: load-time findings (YAML content, schema, semver, recorded files).
        files: every file read, as displayed in findings, sorted.
    """

    streams: tuple[Stream, ...]
    inventories: Mapping[str, Inventory]
    findings: tuple[Finding, ...]
    files: tuple[str, ...]


# --------------------------------------------------------------------------------------- utilities


@cache
def _schema(name: str) -> dict[str, Any]:
    text = resources.files("releasekit.schemas").joinpath(name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    """One Draft 2020-12 validator per shipped schema (no format checker: the schemas use no ``format``)."""
    from jsonschema import Draft202012Validator  # imported on the first validation only

    validator: jsonschema.protocols.Validator = Draft202012Validator(_schema(name))
    return validator


def _display(root_display: str, rel: str) -> str:
    return f"{root_display.rstrip('/')}/{rel}" if root_display not in ("", ".") else rel


def _read_document(
    path: Path, display: str, findings: list[Finding], root: Path | None = None
) -> LocatedDocument | None:
    """Parse one YAML file; syntax errors raise InputError (exit 2), duplicate keys become findings.

    The file is read under the input policy (:mod:`releasekit.io.inputs`): a regular file, no symlink
    leaving ``root`` (the streams folder; default the file's folder), the size and nesting limits.
    """
    text = read_input_text(path, root=root, display=display, what="the streams folder")
    try:
        docs = load_yaml_documents(text, source=display)
    except YamlContentError as exc:
        if "duplicate key" in exc.message:
            findings.append(
                Finding(
                    rule=RULE_DUPLICATE_KEY,
                    severity=Severity.ERROR,
                    message=exc.message,
                    location=Location(file=display, line=exc.line),
                    hint="remove or rename one of the two keys",
                )
            )
            return None
        where = f"{display}:{exc.line}" if exc.line else display
        raise InputError(f"{where}: {exc.message}") from None
    if len(docs) != 1 or not isinstance(docs[0].data, dict):
        findings.append(
            Finding(
                rule=RULE_SCHEMA,
                severity=Severity.ERROR,
                message="expected exactly one YAML document holding a mapping",
                location=Location(file=display, line=docs[0].line if docs else 1),
                hint="see streams/README.md for the format",
            )
        )
        return None
    return docs[0]


def _describe_error(error: jsonschema.ValidationError) -> tuple[str, str, str]:
    """(relative JSON path suffix, message, hint) for one schema error."""
    validator = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    if validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(schema.get("properties", {}))
        unknown = sorted(k for k in error.instance if k not in allowed)
        key = unknown[0] if unknown else ""
        return (
            json_path("", key),
            f"unknown key {key!r}",
            f"allowed keys here: {', '.join(allowed)}",
        )
    if validator == "required":
        missing = str(error.message).split("'")[1] if "'" in str(error.message) else str(error.message)
        return "", f"missing required key {missing!r}", "add it (see streams/README.md)"
    if validator == "type":
        expected = error.validator_value
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return "", f"expected {expected_text}, got {_json_type(error.instance)} {error.instance!r}", ""
    if validator == "enum":
        values: list[Any] = list(error.schema.get("enum", [])) if isinstance(error.schema, dict) else []
        choices = ", ".join(str(v) for v in values)
        return "", f"{error.instance!r} is not one of: {choices}", f"use one of: {choices}"
    if validator == "const":
        return "", f"{error.instance!r} must be {error.validator_value!r}", ""
    if validator == "pattern":
        return "", f"{error.instance!r} does not match {error.validator_value!r}", ""
    if validator == "not":
        return (
            "",
            "holds a key that is not recorded (description, alm-examples or createdAt)",
            ("prose lives in bundle-templates/; createdAt is the release's own field"),
        )
    return "", str(error.message), ""


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def schema_findings(doc: LocatedDocument, schema_name: str, display: str) -> list[Finding]:
    """Validate ``doc`` against a shipped schema; one finding per violation, at the offending line."""
    validator = _validator(schema_name)
    out: list[Finding] = []
    for error in sorted(validator.iter_errors(doc.data), key=lambda e: [str(p) for p in e.absolute_path]):
        base = "$"
        for part in error.absolute_path:
            base = json_path(base, part)
        suffix, message, hint = _describe_error(error)
        path = base + suffix
        out.append(
            Finding(
                rule=RULE_SCHEMA,
                severity=Severity.ERROR,
                message=message,
                location=Location(file=display, line=doc.line_of(path), path=path),
                hint=hint or "see streams/README.md for the format",
            )
        )
    return out


def _origin(doc: LocatedDocument, display: str, path: str) -> Origin:
    lines = tuple(doc.lines_under(path))
    if not any(sub == "" for sub, _ in lines):
        lines = (("", doc.line_of(path)), *lines)
    return Origin(file=display, path=path, lines=lines)


# ------------------------------------------------------------------------------------- inventories


def feature_gates(items: Iterable[Mapping[str, Any]]) -> tuple[FeatureGate, ...]:
    """Feature gates from their recorded form (``name``, ``stage``, ``default``, ``lockToDefault``), by name."""
    gates = (
        FeatureGate(
            name=g["name"],
            stage=GateStage(g["stage"]),
            default=g["default"],
            lock_to_default=g["lockToDefault"],
        )
        for g in items
    )
    return tuple(sorted(gates, key=lambda g: g.name))


def load_inventory(
    path: Path, display: str, root: Path | None = None
) -> tuple[Inventory | None, list[Finding]]:
    """Load one ``streams/upstream/kueue-<line>.yaml``; (None, findings) when it is not valid."""
    findings: list[Finding] = []
    doc = _read_document(path, display, findings, root)
    if doc is None:
        return None, findings
    findings.extend(schema_findings(doc, INVENTORY_SCHEMA, display))
    if findings:
        return None, findings
    data = doc.data
    crds = tuple(
        sorted(
            (
                Crd(
                    group=c["group"],
                    kind=c["kind"],
                    plural=c["plural"],
                    scope=c["scope"],
                    file=c["file"],
                    sha256=c.get("sha256"),
                    versions=tuple(
                        CrdVersion(
                            name=v["name"],
                            served=v["served"],
                            storage=v["storage"],
                            maturity=Maturity(v["maturity"]),
                        )
                        for v in c["versions"]
                    ),
                )
                for c in data["crds"]
            ),
            key=lambda c: c.name,
        )
    )
    gates = feature_gates(data["gates"])
    inventory = Inventory(
        line=data["line"],
        source=InventorySource(data["source"]),
        ref=data["ref"],
        commit=data["commit"],
        tag=data.get("tag"),
        describe=data.get("describe"),
        features_file=data.get("featuresFile", ""),
        crds=crds,
        gates=gates,
        file=display,
    )
    expected = f"{inventory.name}.yaml"
    if path.name != expected:
        findings.append(
            Finding(
                rule=RULE_FILE,
                severity=Severity.ERROR,
                message=f"inventory {inventory.name!r} (Kueue {inventory.pin or inventory.line}) is in {path.name!r}",
                location=Location(file=display, line=doc.line_of("$.line")),
                hint=f"rename it to {expected!r} (releases refer to it as {inventory.name!r})",
            )
        )
    return inventory, findings


# ------------------------------------------------------------------------------------ streams


def _openshift_versions(
    values: list[str], origin: Origin, key: str, findings: list[Finding], subject: tuple[str, ...]
) -> tuple[OpenShiftVersion, ...]:
    out = []
    for index, text in enumerate(values):
        try:
            out.append(OpenShiftVersion.parse(str(text)))
        except ValueError as exc:
            findings.append(
                Finding(
                    rule=RULE_OPENSHIFT,
                    severity=Severity.ERROR,
                    message=str(exc),
                    location=origin.at(f".{key}[{index}]"),
                    hint="write OpenShift versions as vX.Y without leading zeros, e.g. v4.18 or v5.0",
                    subject=subject,
                )
            )
    return tuple(out)


def _gvk(data: Mapping[str, Any]) -> Gvk:
    return Gvk(group=data["group"], version=data["version"], kind=data["kind"])


def _gate_settings(
    doc: LocatedDocument, display: str, base: str, items: Iterable[Any]
) -> tuple[GateSetting, ...]:
    return tuple(
        GateSetting(
            gate=s["gate"],
            enabled=s["enabled"],
            reason=s.get("reason", ""),
            origin=_origin(doc, display, f"{base}[{i}]"),
        )
        for i, s in enumerate(items)
    )


def _load_recorded(
    root: Path, root_display: str, rel: str, findings: list[Finding], files: list[str]
) -> RecordedRelease | None:
    display = _display(root_display, rel)
    path = root / rel
    if not inside(os.path.realpath(path), os.path.realpath(root)):
        raise SafetyLimitError(f"{display}: recorded file leaves {root_display}; name a file inside it")
    if not path.is_file():
        return None
    files.append(display)
    doc = _read_document(path, display, findings, root)
    if doc is None:
        return None
    errors = schema_findings(doc, RECORDED_SCHEMA, display)
    findings.extend(errors)
    if errors:
        return None
    data = doc.data
    meta = data["csvMetadata"]
    crd_desc = meta.get("crdDescriptions", {})
    api_desc = meta.get("apiServiceDefinitions", {})
    facts = CsvMetadataFacts(
        annotations=tuple(sorted(meta["annotations"].items())),
        labels=tuple(sorted(meta.get("labels", {}).items())),
        has_labels="labels" in meta,
        install_modes=tuple(
            InstallMode(type=m["type"], supported=m["supported"]) for m in meta.get("installModes", [])
        ),
        owned_crds=tuple(
            OwnedCrdRef(name=c["name"], version=c["version"], kind=c["kind"])
            for c in crd_desc.get("owned", [])
        ),
        required_crds=tuple(
            OwnedCrdRef(name=c["name"], version=c["version"], kind=c["kind"])
            for c in crd_desc.get("required", [])
        ),
        api_services_owned=tuple(ApiServiceRef(**a) for a in api_desc.get("owned", [])),
        api_services_required=tuple(ApiServiceRef(**a) for a in api_desc.get("required", [])),
        maturity=meta.get("maturity"),
        min_kube_version=meta.get("minKubeVersion"),
    )
    return RecordedRelease(
        package=data["package"],
        version=str(data["version"]),
        gvks=tuple(_gvk(g) for g in data["gvks"]),
        related_images=tuple(RelatedImage(name=r["name"], image=r["image"]) for r in data["relatedImages"]),
        csv_metadata=facts,
        source=data.get("source", ""),
        origin=_origin(doc, display, "$"),
    )


def _build_release(
    doc: LocatedDocument,
    display: str,
    index: int,
    data: Mapping[str, Any],
    stream_api: Gvk,
    ctx: tuple[Path, str, list[Finding], list[str]],
) -> Release | None:
    root, root_display, findings, files = ctx
    base = f"$.releases[{index}]"
    origin = _origin(doc, display, base)
    raw_version = str(data["version"])
    try:
        version = semver.Version.parse(raw_version)
    except ValueError:
        findings.append(
            Finding(
                rule=RULE_SEMVER,
                severity=Severity.ERROR,
                message=f"version {raw_version!r} is not strict semver (MAJOR.MINOR.PATCH)",
                location=origin.at(".version"),
                hint="write the version as MAJOR.MINOR.PATCH, e.g. 1.4.1, quoted if YAML reads it as a number",
            )
        )
        return None
    up = data["upstream"]
    gates = data.get("featureGates", {})
    recorded: RecordedRelease | None = None
    if "recorded" in data:
        recorded = _load_recorded(root, root_display, data["recorded"], findings, files)
        if recorded is None and not (root / data["recorded"]).is_file():
            findings.append(
                Finding(
                    rule=RULE_RECORDED,
                    severity=Severity.ERROR,
                    message=f"recorded facts file {data['recorded']!r} does not exist",
                    location=origin.at(".recorded"),
                    hint="extract it with tools/extract_recorded.py or drop the key",
                    subject=(str(version),),
                )
            )
    return Release(
        version=version,
        status=ReleaseStatus(data["status"]),
        deprecation_message=data.get("deprecationMessage"),
        upstream=Upstream(
            line=up["line"],
            inventory=up["inventory"],
            describe=up.get("describe"),
            tag=up.get("tag"),
            commit=up.get("commit"),
            origin=_origin(doc, display, f"{base}.upstream"),
        ),
        catalogs=_openshift_versions(data["catalogs"], origin, "catalogs", findings, (str(version),)),
        bundle_image=data["bundle"],
        images=ReleaseImages(
            operator=data["images"]["operator"],
            operand=data["images"]["operand"],
            must_gather=data["images"].get("mustGather"),
            origin=_origin(doc, display, f"{base}.images"),
        ),
        created_at=data.get("createdAt"),
        openshift_versions_label=data.get("openshiftVersionsLabel"),
        owned_api_override=_gvk(data["ownedApi"]) if "ownedApi" in data else None,
        stream_owned_api=stream_api,
        gate_settings=_gate_settings(
            doc, display, f"{base}.featureGates.settings", gates.get("settings", [])
        ),
        opt_in_gates=tuple(
            ConditionalGate(
                gate=g["gate"],
                config_field=g["configField"],
                reason=g["reason"],
                origin=_origin(doc, display, f"{base}.featureGates.optIn[{i}]"),
            )
            for i, g in enumerate(gates.get("optIn", []))
        ),
        declares_gates="featureGates" in data,
        recorded=recorded,
        origin=origin,
    )


def _build_stream(
    name: str, doc: LocatedDocument, display: str, ctx: tuple[Path, str, list[Finding], list[str]]
) -> Stream:
    data = doc.data
    owned = _gvk(data["ownedApi"])
    releases = []
    for index, item in enumerate(data["releases"]):
        release = _build_release(doc, display, index, item, owned, ctx)
        if release is not None:
            releases.append(release)
    gates = data.get("featureGates", {})
    upgrades = data.get("upgrades", {})
    registries = data["registries"]
    return Stream(
        name=name,
        package=data["package"],
        description=data.get("description", ""),
        channels=ChannelPolicy(
            pattern=data["channels"]["pattern"],
            default=data["channels"].get("default", "newest-minor"),
            origin=_origin(doc, display, "$.channels"),
        ),
        openshift=_openshift_versions(data["openshift"], _origin(doc, display, "$"), "openshift", ctx[2], ()),
        crd_placement=CrdPlacement(data["crdPlacement"]),
        owned_api=owned,
        api_maturity=ApiMaturityPolicy(
            alpha_apis=tuple(data.get("apiMaturity", {}).get("alphaApis", [])),
            origin=_origin(doc, display, "$.apiMaturity"),
        ),
        feature_gates=FeatureGatePolicy(
            allowed_stages=tuple(GateStage(s) for s in gates.get("allowedStages", ["Beta", "GA"])),
            settings=_gate_settings(doc, display, "$.featureGates.settings", gates.get("settings", [])),
            origin=_origin(doc, display, "$.featureGates"),
        ),
        upgrades=UpgradePolicy(
            cross_minor=CrossMinor(upgrades.get("crossMinor", "none")),
            skip_range=upgrades.get("skipRange"),
            origin=_origin(doc, display, "$.upgrades"),
        ),
        released_registries=tuple(registries["released"]),
        development_registries=tuple(registries.get("development", [])),
        releases=tuple(releases),
        origin=_origin(doc, display, "$"),
        block_cluster_upgrades=bool(data.get("blockClusterUpgrades", False)),
        olmv1=OlmV1Readiness(data.get("olmv1", "recommended")),
    )


def load_streams(root: Path, *, display_root: str | None = None) -> LoadedStreams:
    """Read every stream, recorded-facts file and inventory under ``root`` (the ``streams/`` folder).

    Args:
        root: the folder to read.
        display_root: how findings name the folder (default: ``root`` as given).

    Raises:
        InputError: ``root`` is not a folder, or a file cannot be read or is not YAML.
    """
    if not root.is_dir():
        raise InputError(f"{root}: not a streams folder (expected <stream>.yaml files and upstream/)")
    root_display = str(root) if display_root is None else display_root
    findings: list[Finding] = []
    files: list[str] = []

    inventories: dict[str, Inventory] = {}
    upstream = root / "upstream"
    for path in sorted(upstream.glob("*.yaml")) if upstream.is_dir() else []:
        display = _display(root_display, f"upstream/{path.name}")
        files.append(display)
        inventory, inv_findings = load_inventory(path, display, root)
        findings.extend(inv_findings)
        if inventory is not None:
            inventories.setdefault(inventory.name, inventory)

    streams: list[Stream] = []
    ctx = (root, root_display, findings, files)
    stream_files = sorted(root.glob("*.yaml"))
    if not stream_files:
        findings.append(
            Finding(
                rule=RULE_EMPTY,
                severity=Severity.ERROR,
                message=f"no stream file in {root_display} (expected <stream>.yaml, such as stable.yaml)",
                location=Location(file=root_display),
                hint="point --streams-dir at the repository's streams/ folder, or add a stream file "
                "(streams/README.md documents its keys)",
            )
        )
    for path in stream_files:
        display = _display(root_display, path.name)
        files.append(display)
        doc = _read_document(path, display, findings, root)
        if doc is None:
            continue
        errors = schema_findings(doc, STREAM_SCHEMA, display)
        findings.extend(errors)
        if errors:
            continue
        streams.append(_build_stream(path.stem, doc, display, ctx))
    return LoadedStreams(
        streams=tuple(sorted(streams, key=lambda s: s.name)),
        inventories=dict(sorted(inventories.items())),
        findings=tuple(findings),
        files=tuple(sorted(set(files))),
    )
