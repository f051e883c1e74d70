"""``releasekit-acknowledgements.yaml``: the repository's acknowledged findings, read with their lines.

Adapter module: the file is read as every streams file is (:func:`releasekit.io.streams.read_document`,
``acknowledgements.schema.json``); the matching is :func:`releasekit.model.acknowledgement.acknowledge`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from releasekit.io.streams import read_document
from releasekit.model.acknowledgement import ACKNOWLEDGEMENTS_FILE, RULE_ACK_SCHEMA, Acknowledgement
from releasekit.model.finding import Finding, Location

__all__ = ["load_acknowledgements"]


def load_acknowledgements(repo_root: Path) -> tuple[tuple[Acknowledgement, ...], list[Finding]]:
    """The entries of ``repo_root/releasekit-acknowledgements.yaml`` (none without it) and the file's findings.

    A file that breaks its schema acknowledges nothing (RK-POLICY-022 at the offending line), so a
    mistake there shows every finding it meant to accept.

    Raises:
        InputError, SafetyLimitError: the file cannot be read or is not YAML.
    """
    path = repo_root / ACKNOWLEDGEMENTS_FILE
    if not path.exists() and not path.is_symlink():
        return (), []
    findings: list[Finding] = []
    doc = read_document(path, ACKNOWLEDGEMENTS_FILE, "acknowledgements.schema.json", findings, repo_root)
    if doc is None:
        hint = "see README.md (Acknowledged history)"
        return (), [replace(f, rule=RULE_ACK_SCHEMA, hint=hint) for f in findings]
    entries = []
    for index, entry in enumerate(doc.data["acknowledged"]):
        where = f"$.acknowledged[{index}]"
        entries.append(
            Acknowledgement(
                rule=entry["rule"],
                subject=tuple(entry["subject"]),
                facts=tuple(sorted((str(k), str(v)) for k, v in (entry.get("facts") or {}).items())),
                reason=" ".join(str(entry["reason"]).split()),
                location=Location(file=ACKNOWLEDGEMENTS_FILE, line=doc.line_of(where), path=where),
            )
        )
    return tuple(entries), []
