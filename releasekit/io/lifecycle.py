"""Read ``streams/openshift/lifecycle.yaml``: the OpenShift versions, the EUS ones and the cluster upgrades.

Adapter module (reads one file). The file is checked against ``releasekit/schemas/lifecycle.schema.json``
(a wrong key or type is RK-STREAM-001, naming file and line, as for stream files) and read into an
:class:`~releasekit.model.lifecycle.OpenShiftLifecycle`; its consistency (edges between listed versions,
upwards, the right kind) is :mod:`releasekit.rules.lifecycle`'s. The folder is not a stream: the stream
loader reads only the top-level ``streams/*.yaml``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from releasekit.errors import InputError
from releasekit.io.inputs import read_input_text
from releasekit.io.streams import schema_findings
from releasekit.io.yamlio import LocatedDocument, YamlContentError, load_yaml_documents
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.lifecycle import EdgeKind, OpenShiftLifecycle, UpgradeEdge
from releasekit.model.stream import OpenShiftVersion
from releasekit.model.stream_ids import RULE_OPENSHIFT

__all__ = ["LIFECYCLE_FILE", "LIFECYCLE_SCHEMA", "load_lifecycle", "read_lifecycle"]

LIFECYCLE_FILE = "openshift/lifecycle.yaml"
"""Where the lifecycle lives, relative to ``streams/``."""

LIFECYCLE_SCHEMA = "lifecycle.schema.json"


def load_lifecycle(
    streams_dir: Path, *, display_root: str | None = None
) -> tuple[OpenShiftLifecycle | None, tuple[Finding, ...]]:
    """The lifecycle under ``streams_dir`` (None when the file is absent or not valid) and the findings.

    Raises:
        InputError: the file exists but cannot be read or is not YAML.
    """
    path = streams_dir / LIFECYCLE_FILE
    root = str(streams_dir) if display_root is None else display_root
    display = f"{root.rstrip('/')}/{LIFECYCLE_FILE}" if root not in ("", ".") else LIFECYCLE_FILE
    if not path.is_file():
        return None, ()
    return read_lifecycle(path, display)


def read_lifecycle(path: Path, display: str) -> tuple[OpenShiftLifecycle | None, tuple[Finding, ...]]:
    """Read one lifecycle file (see :func:`load_lifecycle`)."""
    text = read_input_text(path, display=display, what="the streams folder")  # the input policy
    try:
        docs = load_yaml_documents(text, source=display)
    except YamlContentError as exc:
        where = f"{display}:{exc.line}" if exc.line else display
        raise InputError(f"{where}: {exc.message}") from None
    if len(docs) != 1 or not isinstance(docs[0].data, dict):
        finding = Finding(
            rule="RK-STREAM-001",
            severity=Severity.ERROR,
            message="expected exactly one YAML document holding a mapping",
            location=Location(file=display, line=docs[0].line if docs else 1),
            hint="see streams/README.md for the format",
        )
        return None, (finding,)
    doc = docs[0]
    errors = schema_findings(doc, LIFECYCLE_SCHEMA, display)
    if errors:
        return None, tuple(errors)
    data = doc.data
    named = _named_versions(data)
    parsed, bad = _parse_versions(named, doc, display)
    if bad:
        return None, bad
    explicit = tuple(
        UpgradeEdge(
            source=parsed[item["from"]],
            target=parsed[item["to"]],
            kind=EdgeKind(item["kind"]),
            line=doc.line_of(f"$.upgrades[{index}]"),
        )
        for index, item in enumerate(data.get("upgrades", []))
    )
    lifecycle = OpenShiftLifecycle.build(
        (parsed[v] for v in data["versions"]),
        (parsed[v] for v in data.get("eus", [])),
        explicit,
        derive=bool(data.get("derive", True)),
        file=display,
    )
    listed = set(lifecycle.versions)
    findings = [
        Finding(
            rule="RK-STREAM-050",
            severity=Severity.ERROR,
            message=f"{text_} is not one of the lifecycle's versions",
            location=Location(file=display, line=doc.line_of(path_), path=path_),
            hint=f"add {text_} to versions, or fix the entry",
        )
        for path_, text_ in named
        if not path_.startswith("$.versions[") and parsed[text_] not in listed
    ]
    return lifecycle, tuple(findings)


def _named_versions(data: dict[str, Any]) -> list[tuple[str, str]]:
    """``(JSON path, text)`` of every version the file names: versions, eus, then each upgrade's ends."""
    upgrades = data.get("upgrades", [])
    return [
        *((f"$.versions[{i}]", v) for i, v in enumerate(data["versions"])),
        *((f"$.eus[{i}]", v) for i, v in enumerate(data.get("eus", []))),
        *((f"$.upgrades[{i}]", e["from"]) for i, e in enumerate(upgrades)),
        *((f"$.upgrades[{i}]", e["to"]) for i, e in enumerate(upgrades)),
    ]


def _parse_versions(
    named: list[tuple[str, str]], doc: LocatedDocument, display: str
) -> tuple[dict[str, OpenShiftVersion], tuple[Finding, ...]]:
    """Each named text parsed once.

    A text the schema lets through but the parser refuses (a number of thousands of digits) is an
    RK-STREAM-012 finding at its line, never a traceback.
    """
    parsed: dict[str, OpenShiftVersion] = {}
    bad: list[Finding] = []
    for path_, text_ in named:
        if text_ in parsed:
            continue
        try:
            parsed[text_] = OpenShiftVersion.parse(text_)
        except ValueError as exc:
            bad.append(
                Finding(
                    rule=RULE_OPENSHIFT,
                    severity=Severity.ERROR,
                    message=str(exc),
                    location=Location(file=display, line=doc.line_of(path_), path=path_),
                    hint="write OpenShift versions as vX.Y, e.g. v4.18 or v5.0",
                )
            )
    return parsed, tuple(bad)
