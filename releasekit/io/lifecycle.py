"""Read ``streams/openshift/lifecycle.yaml``: the OpenShift versions, the EUS ones and the cluster upgrades.

Adapter module. The file is read and checked against ``lifecycle.schema.json`` as every streams file is
(:func:`releasekit.io.streams.read_document`); its consistency is :mod:`releasekit.rules.lifecycle`'s.
"""

from __future__ import annotations

from pathlib import Path

from releasekit.io.streams import read_document
from releasekit.model.finding import Finding, Location, make_finding
from releasekit.model.lifecycle import EdgeKind, OpenShiftLifecycle, UpgradeEdge
from releasekit.model.stream import OpenShiftVersion
from releasekit.model.stream_ids import RULE_OPENSHIFT

__all__ = ["LIFECYCLE_FILE", "load_lifecycle", "read_lifecycle"]

LIFECYCLE_FILE = "openshift/lifecycle.yaml"
"""Where the lifecycle lives, relative to ``streams/``."""


def load_lifecycle(
    streams_dir: Path, *, display_root: str | None = None
) -> tuple[OpenShiftLifecycle | None, tuple[Finding, ...]]:
    """The lifecycle under ``streams_dir`` (None when the file is absent or not valid) and the findings.

    Raises:
        InputError: the file exists but cannot be read or is not YAML.
    """
    root = str(streams_dir) if display_root is None else display_root
    display = f"{root.rstrip('/')}/{LIFECYCLE_FILE}" if root not in ("", ".") else LIFECYCLE_FILE
    path = streams_dir / LIFECYCLE_FILE
    return read_lifecycle(path, display) if path.is_file() else (None, ())


def read_lifecycle(path: Path, display: str) -> tuple[OpenShiftLifecycle | None, tuple[Finding, ...]]:
    """Read one lifecycle file (see :func:`load_lifecycle`).

    A version the schema lets through but the parser refuses (thousands of digits) is RK-STREAM-012.
    """
    findings: list[Finding] = []
    doc = read_document(path, display, "lifecycle.schema.json", findings)
    if doc is None:
        return None, tuple(findings)
    data, upgrades = doc.data, doc.data.get("upgrades", [])
    named = [  # (JSON path, text) of every version the file names
        *((f"$.versions[{i}]", v) for i, v in enumerate(data["versions"])),
        *((f"$.eus[{i}]", v) for i, v in enumerate(data.get("eus", []))),
        *((f"$.upgrades[{i}]", e[end]) for end in ("from", "to") for i, e in enumerate(upgrades)),
    ]
    parsed: dict[str, OpenShiftVersion] = {}
    for where, text in named:
        try:
            parsed[text] = parsed.get(text) or OpenShiftVersion.parse(text)
        except ValueError as exc:
            at = Location(file=display, line=doc.line_of(where), path=where)
            hint = "write OpenShift versions as vX.Y, e.g. v4.18 or v5.0"
            findings.append(make_finding(RULE_OPENSHIFT, str(exc), at, hint, ()))
    if findings:
        return None, tuple(findings)
    explicit = tuple(
        UpgradeEdge(
            source=parsed[item["from"]],
            target=parsed[item["to"]],
            kind=EdgeKind(item["kind"]),
            line=doc.line_of(f"$.upgrades[{index}]"),
        )
        for index, item in enumerate(upgrades)
    )
    lifecycle = OpenShiftLifecycle.build(
        (parsed[v] for v in data["versions"]),
        (parsed[v] for v in data.get("eus", [])),
        explicit,
        derive=bool(data.get("derive", True)),
        file=display,
    )
    return lifecycle, tuple(
        make_finding(
            "RK-STREAM-050",
            f"{text} is not one of the lifecycle's versions",
            Location(file=display, line=doc.line_of(where), path=where),
            f"add {text} to versions, or fix the entry",
            (),
        )
        for where, text in named
        if not where.startswith("$.versions[") and parsed[text] not in lifecycle.versions
    )
