"""Read ``streams/openshift/lifecycle.yaml``: the OpenShift versions, the EUS ones and the cluster upgrades.

Adapter module (reads one file). The file is checked against ``releasekit/schemas/lifecycle.schema.json``
(a wrong key or type is RK-STREAM-001, naming file and line, as for stream files) and read into an
:class:`~releasekit.model.lifecycle.OpenShiftLifecycle`; its consistency (edges between listed versions,
upwards, the right kind) is :mod:`releasekit.rules.lifecycle`'s. The folder is not a stream: the stream
loader reads only the top-level ``streams/*.yaml``.
"""

from __future__ import annotations

from pathlib import Path

from releasekit.errors import InputError
from releasekit.io.inputs import read_input_text
from releasekit.io.streams import schema_findings
from releasekit.io.yamlio import YamlContentError, load_yaml_documents
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.lifecycle import EdgeKind, OpenShiftLifecycle, UpgradeEdge
from releasekit.model.stream import OpenShiftVersion

__all__ = ["LIFECYCLE_FILE", "LIFECYCLE_SCHEMA", "load_lifecycle", "require_lifecycle"]

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
    explicit = tuple(
        UpgradeEdge(
            source=OpenShiftVersion.parse(item["from"]),
            target=OpenShiftVersion.parse(item["to"]),
            kind=EdgeKind(item["kind"]),
            line=doc.line_of(f"$.upgrades[{index}]"),
        )
        for index, item in enumerate(data.get("upgrades", []))
    )
    lifecycle = OpenShiftLifecycle.build(
        (OpenShiftVersion.parse(v) for v in data["versions"]),
        (OpenShiftVersion.parse(v) for v in data.get("eus", [])),
        explicit,
        derive=bool(data.get("derive", True)),
        file=display,
    )
    listed = set(lifecycle.versions)
    stray = [
        (path_, text_)
        for path_, text_ in (
            *((f"$.eus[{i}]", v) for i, v in enumerate(data.get("eus", []))),
            *((f"$.upgrades[{i}]", e["from"]) for i, e in enumerate(data.get("upgrades", []))),
            *((f"$.upgrades[{i}]", e["to"]) for i, e in enumerate(data.get("upgrades", []))),
        )
        if OpenShiftVersion.parse(text_) not in listed
    ]
    findings = [
        Finding(
            rule="RK-STREAM-050",
            severity=Severity.ERROR,
            message=f"{text_} is not one of the lifecycle's versions",
            location=Location(file=display, line=doc.line_of(path_), path=path_),
            hint=f"add {text_} to versions, or fix the entry",
        )
        for path_, text_ in stray
    ]
    return lifecycle, tuple(findings)


def require_lifecycle(streams_dir: Path, *, display_root: str | None = None) -> OpenShiftLifecycle | None:
    """:func:`load_lifecycle` for commands that only use it: an error finding is an InputError (exit 2)."""
    lifecycle, findings = load_lifecycle(streams_dir, display_root=display_root)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        raise InputError(f"{first.location}: {first.message}")
    return lifecycle
