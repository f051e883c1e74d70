"""Load ``streams/``: stream files, recorded release facts and upstream inventories, with locations.

Adapter module. Every YAML file of the repository's own data (streams, records, inventories, the
lifecycle, ``releasekit.yaml``, the acknowledgements) is read by :func:`read_document`: one document
holding a mapping, parsed with :mod:`releasekit.io.yamlio` (a line per JSON path, duplicate keys are
RK-STREAM-002) and validated against its JSON Schema in ``releasekit/schemas/`` (RK-STREAM-001 at the
offending line). Valid documents become model values. Layout (see ``streams/README.md``)::

    <root>/<stream>.yaml                          one file per stream (stable, experimental)
    <root>/recorded/<package>.v<version>.yaml     recorded facts of releases made before releasekit
    <root>/upstream/kueue-<line>.yaml             upstream Kueue inventories

Raises :class:`releasekit.errors.InputError` only for input that cannot be read at all (a missing
folder, unreadable bytes, text that is not YAML); everything else is a finding.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import semver

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.inputs import inside, read_input_text
from releasekit.io.yamlio import LocatedDocument, YamlContentError, json_path, load_yaml_documents
from releasekit.model import inventory as mi
from releasekit.model import stream as ms
from releasekit.model import stream_ids as ids
from releasekit.model.finding import Finding, Location, make_finding

__all__ = [
    "LoadedStreams",
    "feature_gates",
    "load_inventory",
    "load_streams",
    "parse_document",
    "read_document",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedStreams:
    """What :func:`load_streams` read: buildable streams by name, inventories by name, findings, files read."""

    streams: tuple[ms.Stream, ...]
    inventories: Mapping[str, mi.Inventory]
    findings: tuple[Finding, ...]
    files: tuple[str, ...]


# ----------------------------------------------------------------------------------- documents


_SCHEMAS = Path(__file__).parent.parent / "schemas"
"""The shipped JSON Schemas (package data, read as plain files: no importlib.resources machinery)."""


@cache
def _validator(name: str) -> Any:
    """One Draft 2020-12 validator per shipped schema, made once (the schemas use no ``format``)."""
    text = (_SCHEMAS / name).read_text(encoding="utf-8")
    return jsonschema.Draft202012Validator(json.loads(text))


def parse_document(text: str, display: str, schema: str, findings: list[Finding]) -> LocatedDocument | None:
    """``text`` as one YAML document holding a mapping valid against ``schema``, else None and findings.

    Raises:
        InputError: the text is not YAML (a duplicate key is a finding, RK-STREAM-002).
    """
    try:
        docs = load_yaml_documents(text, source=display)
    except YamlContentError as exc:
        if "duplicate key" not in exc.message:
            shown = f"{display}:{exc.line}" if exc.line else display
            raise InputError(f"{shown}: {exc.message}") from None
        hint = "remove or rename one of the two keys"
        findings.append(
            make_finding(ids.RULE_DUPLICATE_KEY, exc.message, Location(file=display, line=exc.line), hint, ())
        )
        return None
    if len(docs) != 1 or not isinstance(docs[0].data, dict):
        where = Location(file=display, line=docs[0].line if docs else 1)
        message = "expected exactly one YAML document holding a mapping"
        findings.append(
            make_finding(ids.RULE_SCHEMA, message, where, "see streams/README.md for the format", ())
        )
        return None
    errors = _validator(schema).iter_errors(docs[0].data)
    before = len(findings)
    for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        base = "$"
        for part in error.absolute_path:
            base = json_path(base, part)
        suffix, message, hint = _describe_error(error)
        where = Location(file=display, line=docs[0].line_of(base + suffix), path=base + suffix)
        hint = hint or "see streams/README.md for the format"
        findings.append(make_finding(ids.RULE_SCHEMA, message, where, hint, ()))
    return None if len(findings) > before else docs[0]


def read_document(
    path: Path, display: str, schema: str, findings: list[Finding], root: Path | None = None
) -> LocatedDocument | None:
    """:func:`parse_document` of a file read under the input policy (no symbolic link leaving ``root``)."""
    text = read_input_text(path, root=root, display=display, what="the streams folder")
    return parse_document(text, display, schema, findings)


def _describe_error(error: jsonschema.ValidationError) -> tuple[str, str, str]:
    """(relative JSON path suffix, message, hint) for one schema error."""
    kind, value, instance = error.validator, error.validator_value, error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}
    if kind == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(schema.get("properties", {}))
        key = next((k for k in sorted(instance) if k not in allowed), "")
        return json_path("", key), f"unknown key {key!r}", f"allowed keys here: {', '.join(allowed)}"
    if kind == "required":
        text = str(error.message)
        missing = text.split("'")[1] if "'" in text else text
        return "", f"missing required key {missing!r}", "add it (see streams/README.md)"
    if kind == "type":
        expected = " or ".join(value) if isinstance(value, list) else str(value)
        return "", f"expected {expected}, got {_json_type(instance)} {instance!r}", ""
    if kind == "enum":
        choices = ", ".join(str(v) for v in schema.get("enum", []))
        return "", f"{instance!r} is not one of: {choices}", f"use one of: {choices}"
    if kind == "const":
        return "", f"{instance!r} must be {value!r}", ""
    if kind == "pattern":
        return "", f"{instance!r} does not match {value!r}", ""
    if kind == "not":
        return (
            "",
            "holds a key that is not recorded (description, alm-examples or createdAt)",
            "prose lives in bundle-templates/; createdAt is the release's own field",
        )
    return "", str(error.message), ""


def _json_type(value: object) -> str:
    kinds = ((bool, "boolean"), (int | float, "number"), (str, "string"), (list, "array"), (dict, "object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "null")


# ------------------------------------------------------------------------------------- inventories


def feature_gates(items: Iterable[Mapping[str, Any]]) -> tuple[mi.FeatureGate, ...]:
    """Feature gates from their recorded form (``name``, ``stage``, ``default``, ``lockToDefault``), by name."""
    gates = (
        mi.FeatureGate(
            name=g["name"],
            stage=mi.GateStage(g["stage"]),
            default=g["default"],
            lock_to_default=g["lockToDefault"],
        )
        for g in items
    )
    return tuple(sorted(gates, key=lambda g: g.name))


def _crd(c: Mapping[str, Any]) -> mi.Crd:
    versions = tuple(
        mi.CrdVersion(
            name=v["name"], served=v["served"], storage=v["storage"], maturity=mi.Maturity(v["maturity"])
        )
        for v in c["versions"]
    )
    return mi.Crd(
        group=c["group"],
        kind=c["kind"],
        plural=c["plural"],
        scope=c["scope"],
        file=c["file"],
        sha256=c.get("sha256"),
        versions=versions,
    )


def load_inventory(
    path: Path, display: str, root: Path | None = None
) -> tuple[mi.Inventory | None, list[Finding]]:
    """Load one ``streams/upstream/kueue-<line>.yaml``; (None, findings) when it is not valid."""
    findings: list[Finding] = []
    doc = read_document(path, display, "inventory.schema.json", findings, root)
    if doc is None:
        return None, findings
    data = doc.data
    inventory = mi.Inventory(
        line=data["line"],
        source=mi.InventorySource(data["source"]),
        ref=data["ref"],
        commit=data["commit"],
        tag=data.get("tag"),
        describe=data.get("describe"),
        features_file=data.get("featuresFile", ""),
        crds=tuple(sorted((_crd(c) for c in data["crds"]), key=lambda c: c.name)),
        gates=feature_gates(data["gates"]),
        file=display,
    )
    expected = f"{inventory.name}.yaml"
    if path.name != expected:
        findings.append(
            make_finding(
                ids.RULE_FILE,
                f"inventory {inventory.name!r} (Kueue {inventory.pin or inventory.line}) is in {path.name!r}",
                Location(file=display, line=doc.line_of("$.line")),
                f"rename it to {expected!r} (releases refer to it as {inventory.name!r})",
                (),
            )
        )
    return inventory, findings


# ------------------------------------------------------------------------------------ streams


@dataclass(slots=True)
class _Reader:
    """One ``load_streams`` call: the folder, how findings name it, and what was found and read."""

    root: Path
    shown: str
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def display(self, rel: str) -> str:
        return f"{self.shown.rstrip('/')}/{rel}" if self.shown not in ("", ".") else rel

    def recorded(self, rel: str) -> ms.RecordedRelease | None:
        """The recorded facts file ``rel`` names (None when it is absent or not valid)."""
        display, path = self.display(rel), self.root / rel
        if not inside(os.path.realpath(path), os.path.realpath(self.root)):
            raise SafetyLimitError(f"{display}: recorded file leaves {self.shown}; name a file inside it")
        if not path.is_file():
            return None
        self.files.append(display)
        doc = read_document(path, display, "stream-recorded.schema.json", self.findings, self.root)
        if doc is None:
            return None
        data, at = doc.data, functools.partial(_origin, doc, display)
        meta = data["csvMetadata"]
        crds, apis = meta.get("crdDescriptions", {}), meta.get("apiServiceDefinitions", {})

        def refs(key: str) -> tuple[ms.WireObject, ...]:
            return _wire(crds.get(key, []), ("name", "version", "kind"))

        facts = ms.CsvMetadataFacts(
            annotations=tuple(sorted(meta["annotations"].items())),
            labels=tuple(sorted(meta.get("labels", {}).items())),
            has_labels="labels" in meta,
            install_modes=_wire(meta.get("installModes", []), ("type", "supported")),
            owned_crds=refs("owned"),
            required_crds=refs("required"),
            api_services_owned=_wire(apis.get("owned", []), _API_SERVICE_KEYS),
            api_services_required=_wire(apis.get("required", []), _API_SERVICE_KEYS),
            maturity=meta.get("maturity"),
            min_kube_version=meta.get("minKubeVersion"),
        )
        return ms.RecordedRelease(
            package=data["package"],
            version=str(data["version"]),
            gvks=tuple(_gvk(g) for g in data["gvks"]),
            related_images=tuple(
                ms.RelatedImage(name=r["name"], image=r["image"]) for r in data["relatedImages"]
            ),
            csv_metadata=facts,
            source=data.get("source", ""),
            origin=at("$"),
        )

    def openshift(
        self, values: list[str], origin: ms.Origin, key: str, subject: tuple[str, ...]
    ) -> tuple[ms.OpenShiftVersion, ...]:
        out = []
        for index, text in enumerate(values):
            try:
                out.append(ms.OpenShiftVersion.parse(str(text)))
            except ValueError as exc:
                self.findings.append(
                    make_finding(
                        ids.RULE_OPENSHIFT,
                        str(exc),
                        origin.at(f".{key}[{index}]"),
                        "write OpenShift versions as vX.Y without leading zeros, e.g. v4.18 or v5.0",
                        subject,
                    )
                )
        return tuple(out)

    def release(self, at: _At, index: int, data: Mapping[str, Any], stream_api: ms.Gvk) -> ms.Release | None:
        base = f"$.releases[{index}]"
        origin = at(base)
        try:
            version = semver.Version.parse(str(data["version"]))
        except ValueError:
            self.findings.append(
                make_finding(
                    ids.RULE_SEMVER,
                    f"version {str(data['version'])!r} is not strict semver (MAJOR.MINOR.PATCH)",
                    origin.at(".version"),
                    "write the version as MAJOR.MINOR.PATCH, e.g. 1.4.1, quoted if YAML reads it as a number",
                    (),
                )
            )
            return None
        up, gates, images = data["upstream"], data.get("featureGates", {}), data["images"]
        recorded = self.recorded(data["recorded"]) if "recorded" in data else None
        if "recorded" in data and recorded is None and not (self.root / data["recorded"]).is_file():
            self.findings.append(
                make_finding(
                    ids.RULE_RECORDED,
                    f"recorded facts file {data['recorded']!r} does not exist",
                    origin.at(".recorded"),
                    "extract it with tools/extract_recorded.py or drop the key",
                    (str(version),),
                )
            )
        return ms.Release(
            version=version,
            status=ms.ReleaseStatus(data["status"]),
            deprecation_message=data.get("deprecationMessage"),
            upstream=ms.Upstream(
                line=up["line"],
                inventory=up["inventory"],
                describe=up.get("describe"),
                tag=up.get("tag"),
                commit=up.get("commit"),
                origin=at(f"{base}.upstream"),
            ),
            catalogs=self.openshift(data["catalogs"], origin, "catalogs", (str(version),)),
            bundle_image=data["bundle"],
            images=ms.ReleaseImages(
                operator=images["operator"],
                operand=images["operand"],
                must_gather=images.get("mustGather"),
                origin=at(f"{base}.images"),
            ),
            created_at=data.get("createdAt"),
            openshift_versions_label=data.get("openshiftVersionsLabel"),
            owned_api_override=_gvk(data["ownedApi"]) if "ownedApi" in data else None,
            stream_owned_api=stream_api,
            gate_settings=_settings(at, f"{base}.featureGates.settings", gates.get("settings", [])),
            opt_in_gates=tuple(
                ms.ConditionalGate(
                    gate=g["gate"],
                    config_field=g["configField"],
                    reason=g["reason"],
                    origin=at(f"{base}.featureGates.optIn[{i}]"),
                )
                for i, g in enumerate(gates.get("optIn", []))
            ),
            declares_gates="featureGates" in data,
            recorded=recorded,
            origin=origin,
        )

    def stream(self, name: str, doc: LocatedDocument, display: str) -> ms.Stream:
        data, at = doc.data, functools.partial(_origin, doc, display)
        owned = _gvk(data["ownedApi"])
        releases = [self.release(at, i, item, owned) for i, item in enumerate(data["releases"])]
        gates, upgrades, registries = (
            data.get("featureGates", {}),
            data.get("upgrades", {}),
            data["registries"],
        )
        return ms.Stream(
            name=name,
            package=data["package"],
            description=data.get("description", ""),
            channels=ms.ChannelPolicy(
                pattern=data["channels"]["pattern"],
                default=data["channels"].get("default", "newest-minor"),
                origin=at("$.channels"),
            ),
            openshift=self.openshift(data["openshift"], at("$"), "openshift", ()),
            crd_placement=ms.CrdPlacement(data["crdPlacement"]),
            owned_api=owned,
            api_maturity=ms.ApiMaturityPolicy(
                alpha_apis=tuple(data.get("apiMaturity", {}).get("alphaApis", [])), origin=at("$.apiMaturity")
            ),
            feature_gates=ms.FeatureGatePolicy(
                allowed_stages=tuple(mi.GateStage(s) for s in gates.get("allowedStages", ["Beta", "GA"])),
                settings=_settings(at, "$.featureGates.settings", gates.get("settings", [])),
                origin=at("$.featureGates"),
            ),
            upgrades=ms.UpgradePolicy(
                cross_minor=ms.CrossMinor(upgrades.get("crossMinor", "none")),
                skip_range=upgrades.get("skipRange"),
                origin=at("$.upgrades"),
            ),
            released_registries=tuple(registries["released"]),
            development_registries=tuple(registries.get("development", [])),
            releases=tuple(r for r in releases if r is not None),
            origin=at("$"),
            block_cluster_upgrades=bool(data.get("blockClusterUpgrades", False)),
            olmv1=ms.OlmV1Readiness(data.get("olmv1", "recommended")),
        )


_At = Callable[[str], ms.Origin]
"""Origins in one document: ``at("$.releases[0]")`` is the file, the path and the lines below it."""


def _origin(doc: LocatedDocument, display: str, path: str) -> ms.Origin:
    lines = tuple(doc.lines_under(path))
    if not any(sub == "" for sub, _ in lines):
        lines = (("", doc.line_of(path)), *lines)
    return ms.Origin(file=display, path=path, lines=lines)


def _settings(at: _At, base: str, items: Iterable[Any]) -> tuple[ms.GateSetting, ...]:
    return tuple(
        ms.GateSetting(
            gate=s["gate"], enabled=s["enabled"], reason=s.get("reason", ""), origin=at(f"{base}[{i}]")
        )
        for i, s in enumerate(items)
    )


_API_SERVICE_KEYS = ("group", "version", "kind", "name")


def _wire(items: Iterable[Mapping[str, Any]], keys: tuple[str, ...]) -> tuple[ms.WireObject, ...]:
    """Recorded objects as their ``keys`` (all of them, the schema requires each) in the order opm writes."""
    return tuple(tuple((key, item[key]) for key in keys) for item in items)


def _gvk(data: Mapping[str, Any]) -> ms.Gvk:
    return ms.Gvk(group=data["group"], version=data["version"], kind=data["kind"])


def load_streams(root: Path, *, display_root: str | None = None) -> LoadedStreams:
    """Read every stream, recorded-facts file and inventory under ``root`` (the ``streams/`` folder).

    ``display_root``: how findings name the folder (default: ``root`` as given).

    Raises:
        InputError: ``root`` is not a folder, or a file cannot be read or is not YAML.
    """
    if not root.is_dir():
        raise InputError(f"{root}: not a streams folder (expected <stream>.yaml files and upstream/)")
    reader = _Reader(root, str(root) if display_root is None else display_root)
    inventories: dict[str, mi.Inventory] = {}
    for path in sorted((root / "upstream").glob("*.yaml")):
        display = reader.display(f"upstream/{path.name}")
        reader.files.append(display)
        inventory, found = load_inventory(path, display, root)
        reader.findings.extend(found)
        if inventory is not None:
            inventories.setdefault(inventory.name, inventory)
    streams: list[ms.Stream] = []
    stream_files = sorted(root.glob("*.yaml"))
    if not stream_files:
        reader.findings.append(
            make_finding(
                ids.RULE_EMPTY,
                f"no stream file in {reader.shown} (expected <stream>.yaml, such as stable.yaml)",
                Location(file=reader.shown),
                "point --streams-dir at the repository's streams/ folder, or add a stream file "
                "(streams/README.md documents its keys)",
                (),
            )
        )
    for path in stream_files:
        display = reader.display(path.name)
        reader.files.append(display)
        doc = read_document(path, display, "stream.schema.json", reader.findings, root)
        if doc is not None:
            streams.append(reader.stream(path.stem, doc, display))
    return LoadedStreams(
        streams=tuple(sorted(streams, key=lambda s: s.name)),
        inventories=dict(sorted(inventories.items())),
        findings=tuple(reader.findings),
        files=tuple(sorted(set(reader.files))),
    )
