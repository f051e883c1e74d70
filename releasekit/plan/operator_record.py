"""A release's operator facts, as ``releasekit operator import`` records them in ``streams/operator/<version>.yaml``.

Pure core: text and parsed documents in, the record document (and its deterministic YAML text) out.
The record (rendered by :func:`releasekit.io.operator_records.render_record`) keeps every fact of the operator repository's bundle sources and leaves out the prose list,
which ``bundle-templates/`` supplies:

- the CSV (``csv``) without ``spec.description``, ``displayName``, ``icon``, ``keywords``, ``links``,
  ``maintainers``, ``provider``, the annotations ``description`` and ``alm-examples``, and with only
  ``name``, ``version``, ``kind`` of each owned CRD;
- every other manifest (``manifests``: the operator's own CRD, the ClusterRoles ...) as data, with the
  ``description`` texts inside CRD schemas left out;
- ``metadata/annotations.yaml`` (``annotations``) and the ``bundle.Dockerfile`` LABELs of its last stage
  (``dockerfileLabels``) but the prose labels.

From 1.2.0 on the repository keeps ``:latest`` placeholders in the CSV and ``bundle.Dockerfile`` replaces
them from ``related_images.json`` with ``sed`` at image build time; :func:`substitute_related_images` does
the same, so the record holds the images as published.
"""

from __future__ import annotations

import copy
import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from releasekit.model import jsontext

__all__ = [
    "CSV_PROSE_ANNOTATIONS",
    "CSV_PROSE_SPEC",
    "DOCKERFILE_PROSE_LABELS",
    "RECORD_SCHEMA",
    "dockerfile_labels",
    "make_record",
    "strip_crd_descriptions",
    "strip_csv_prose",
    "substitute_related_images",
]

RECORD_SCHEMA = "releasekit/operator-record/v1"
CSV_PROSE_SPEC = ("description", "displayName", "icon", "keywords", "links", "maintainers", "provider")
CSV_PROSE_ANNOTATIONS = ("description", "alm-examples")
OWNED_CRD_FACTS = ("name", "version", "kind")
DOCKERFILE_PROSE_LABELS = ("io.k8s.description", "description", "summary", "io.k8s.display-name")

_ARG = re.compile(r"^\s*ARG\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)\s*$")
_SUBST = re.compile(
    r"""(?P<var>[A-Za-z_][A-Za-z0-9_]*)=\$\(jq -r '\.\[\] \| select\(\.name == "(?P<name>[^"]+)"\) \| \.image' """
    r"""[^)]*\)\s*&&\s*sed -i "s\|\$\{(?P<orig>[A-Za-z_][A-Za-z0-9_]*)\}\.\*\|\$\{(?P=var)\}\|g\""""
)


def substitute_related_images(
    csv_text: str, dockerfile: str | None, related_images: str | None
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The CSV text as the image build leaves it, and the (placeholder, image) pairs applied.

    Follows the ``RUN X=$(jq -r '.[] | select(.name == "N") | .image' FILE) && sed -i "s|${ORIG}.*|${X}|g"``
    lines of ``bundle.Dockerfile``: every occurrence of the ``ARG ORIG=`` value, and the rest of its line, becomes
    the image named ``N`` in ``related_images.json``. Without such lines (or without the JSON file) nothing
    changes.

    Raises:
        ValueError: ``related_images.json`` is not a JSON list of ``{name, image}``, or lacks a name the
            Dockerfile selects.
    """
    if not dockerfile or related_images is None:
        return csv_text, ()
    args = {m.group(1): m.group(2) for m in map(_ARG.match, dockerfile.splitlines()) if m}
    steps = [m for m in _SUBST.finditer(dockerfile)]
    if not steps:
        return csv_text, ()
    try:
        items = jsontext.loads(related_images)
        images = {str(i["name"]): str(i["image"]) for i in items}
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"related_images.json is not a list of {{name, image}}: {exc}") from None
    applied: list[tuple[str, str]] = []
    for step in steps:
        original = args.get(step.group("orig"))
        if original is None:
            raise ValueError(f"bundle.Dockerfile uses ${{{step.group('orig')}}} without an ARG default")
        if step.group("name") not in images:
            raise ValueError(f"related_images.json has no image named {step.group('name')!r}")
        image = images[step.group("name")]
        csv_text = re.sub(re.escape(original) + ".*", lambda _m, i=image: i, csv_text)  # type: ignore[misc]
        applied.append((original, image))
    return csv_text, tuple(applied)


def dockerfile_labels(text: str) -> list[tuple[str, str]]:
    """The LABEL key/value pairs of the Dockerfile's last stage, in file order (continuation lines joined).

    Raises:
        ValueError: a LABEL line that cannot be split into ``key=value`` pairs.
    """
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    if pending:
        logical.append(pending)
    labels: list[tuple[str, str]] = []
    for line in logical:
        stripped = line.strip()
        word = stripped.split(None, 1)[0].upper() if stripped else ""
        if word == "FROM":
            labels = []
        elif word == "LABEL":
            try:
                parts = shlex.split(stripped.split(None, 1)[1] if " " in stripped else "")
            except ValueError as exc:
                raise ValueError(f"cannot read {stripped!r}: {exc}") from None
            for part in parts:
                key, sep, value = part.partition("=")
                if not sep or not key:
                    raise ValueError(f"cannot read {stripped!r}: {part!r} is not key=value")
                labels.append((key, value))
    return labels


def _strip_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "description" and isinstance(value, str):
            continue
        if key in ("properties", "patternProperties", "definitions") and isinstance(value, dict):
            out[key] = {name: _strip_schema(sub) for name, sub in value.items()}
        else:
            out[key] = _strip_schema(value)
    return out


def strip_crd_descriptions(crd: Mapping[str, Any]) -> dict[str, Any]:
    """A CRD without the ``description`` texts of its schemas (a property named ``description`` stays)."""
    out = copy.deepcopy(dict(crd))
    for version in (out.get("spec") or {}).get("versions") or []:
        if isinstance(version, dict) and isinstance(version.get("schema"), dict):
            version["schema"] = _strip_schema(version["schema"])
    spec = out.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("validation"), dict):
        spec["validation"] = _strip_schema(spec["validation"])
    return out


def strip_csv_prose(csv: Mapping[str, Any]) -> dict[str, Any]:
    """The CSV without the prose list (see the module docstring)."""
    out = copy.deepcopy(dict(csv))
    annotations = (out.get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict):
        for key in CSV_PROSE_ANNOTATIONS:
            annotations.pop(key, None)
    spec = out.get("spec")
    if isinstance(spec, dict):
        for key in CSV_PROSE_SPEC:
            spec.pop(key, None)
        crds = spec.get("customresourcedefinitions")
        if isinstance(crds, dict) and isinstance(crds.get("owned"), list):
            crds["owned"] = [
                {k: c[k] for k in OWNED_CRD_FACTS if k in c} if isinstance(c, dict) else c
                for c in crds["owned"]
            ]
    return out


def make_record(
    *,
    version: str,
    commit: str,
    csv_file: str,
    csv: Mapping[str, Any],
    manifests: Iterable[tuple[str, Mapping[str, Any]]],
    annotations: Mapping[str, Any],
    labels: Iterable[tuple[str, str]] | None,
    substituted: Iterable[tuple[str, str]],
) -> dict[str, Any]:
    """The record document (``releasekit/schemas/operator-record.schema.json``)."""
    others = []
    for file, obj in manifests:
        data = strip_crd_descriptions(obj) if obj.get("kind") == "CustomResourceDefinition" else dict(obj)
        others.append({"file": file, "object": data})
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "version": version,
        "source": {
            "commit": commit,
            "relatedImagesSubstituted": [{"placeholder": p, "image": i} for p, i in substituted],
        },
        "csvFile": csv_file,
        "csv": strip_csv_prose(csv),
        "manifests": others,
        "annotations": dict(annotations),
    }
    if labels is not None:
        record["dockerfileLabels"] = [
            {"name": k, "value": v} for k, v in labels if k not in DOCKERFILE_PROSE_LABELS
        ]
    return record
