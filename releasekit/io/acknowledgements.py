"""``releasekit-acknowledgements.yaml``: the repository's acknowledged findings, read with their lines.

Adapter module: reads the file at a repository root under the input policy (as every streams file is
read) and checks it against ``releasekit/schemas/acknowledgements.schema.json``. The matching itself is
the pure :func:`releasekit.model.acknowledgement.acknowledge`. No file means no acknowledgements.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from releasekit.io.streams import _read_document, schema_findings
from releasekit.model.acknowledgement import ACKNOWLEDGEMENTS_FILE, RULE_ACK_SCHEMA, Acknowledgement
from releasekit.model.finding import Finding, Location

__all__ = ["load_acknowledgements"]

SCHEMA = "acknowledgements.schema.json"
_HINT = "see README.md (Acknowledged history)"


def load_acknowledgements(repo_root: Path) -> tuple[tuple[Acknowledgement, ...], list[Finding]]:
    """The entries of ``repo_root/releasekit-acknowledgements.yaml`` and the file's own findings.

    A file that breaks its schema acknowledges nothing (RK-POLICY-022 at the offending line), so a
    mistake there shows every finding it meant to accept.

    Raises:
        InputError, SafetyLimitError: the file cannot be read or is not YAML.
    """
    path = repo_root / ACKNOWLEDGEMENTS_FILE
    if not path.exists() and not path.is_symlink():
        return (), []
    display = ACKNOWLEDGEMENTS_FILE
    findings: list[Finding] = []
    doc = _read_document(path, display, findings, root=repo_root)
    if doc is None:
        return (), [replace(f, rule=RULE_ACK_SCHEMA, hint=_HINT) for f in findings]
    problems = schema_findings(doc, SCHEMA, display)
    if problems:
        return (), [replace(f, rule=RULE_ACK_SCHEMA, hint=_HINT) for f in problems]
    entries = []
    for index, entry in enumerate(doc.data["acknowledged"]):
        where = f"$.acknowledged[{index}]"
        entries.append(
            Acknowledgement(
                rule=entry["rule"],
                subject=tuple(entry["subject"]),
                facts=tuple(sorted((str(k), str(v)) for k, v in (entry.get("facts") or {}).items())),
                reason=" ".join(str(entry["reason"]).split()),
                location=Location(file=display, line=doc.line_of(where), path=where),
            )
        )
    return tuple(entries), findings
