"""Extract the recorded facts of published releases from kueue-fbc catalogs (a one-off, run by hand).

Usage::

    python tools/extract_recorded.py PATH/TO/kueue-fbc streams/

For every bundle in ``PATH/TO/kueue-fbc/v*/catalog/<package>/catalog.json`` it checks that every
catalog carries the same bundle object, then writes ``streams/recorded/<package>.v<version>.yaml``
with the facts a catalog needs to rebuild it exactly (``olm.gvk`` properties, ``relatedImages`` as
published, and the ``olm.csv.metadata`` facts without prose and branding), and prints, per release,
the values ``streams/<stream>.yaml`` records (bundle image, images, createdAt, catalogs).
The prose keys are left out on purpose: ``bundle-templates/`` writes them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

PROSE_KEYS = {"description", "displayName", "icon", "keywords", "links", "maintainers", "provider"}
PROSE_ANNOTATIONS = {"description", "alm-examples"}
HEADER = (
    "# Recorded from the published kueue-fbc catalogs by tools/extract_recorded.py.\n"
    "# Facts only (prose and branding live in bundle-templates/); do not edit by hand.\n"
)


def _objects(text: str) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = decoder.raw_decode(text, i)
        out.append(obj)


def _facts(bundle: dict[str, Any]) -> dict[str, Any]:
    props = bundle["properties"]
    metadata = next(p["value"] for p in props if p["type"] == "olm.csv.metadata")
    facts: dict[str, Any] = {}
    for key, value in sorted(metadata.items()):
        if key in PROSE_KEYS:
            continue
        if key == "annotations":
            value = {k: v for k, v in value.items() if k not in PROSE_ANNOTATIONS and k != "createdAt"}
        if key == "crdDescriptions":
            value = {
                kind: [{k: c[k] for k in ("name", "version", "kind")} for c in entries]
                for kind, entries in value.items()
            }
        facts[key] = value
    unknown = {p["type"] for p in props} - {"olm.gvk", "olm.package", "olm.csv.metadata"}
    if unknown:
        raise SystemExit(f"{bundle['name']}: unexpected property types {sorted(unknown)}")
    return {
        "gvks": [p["value"] for p in props if p["type"] == "olm.gvk"],
        "relatedImages": [{"name": r["name"], "image": r["image"]} for r in bundle["relatedImages"]],
        "csvMetadata": facts,
    }


def main(argv: list[str]) -> int:
    root, out = Path(argv[0]), Path(argv[1])
    seen: dict[str, dict[str, Any]] = {}
    catalogs: dict[str, list[str]] = {}
    for ocp_dir in sorted(root.glob("v*"), key=lambda p: tuple(int(x) for x in p.name[1:].split("."))):
        for catalog in sorted(ocp_dir.glob("catalog/*/catalog.json")):
            for obj in _objects(catalog.read_text(encoding="utf-8")):
                if obj["schema"] != "olm.bundle":
                    continue
                name = obj["name"]
                if name in seen and json.dumps(seen[name], sort_keys=True) != json.dumps(obj, sort_keys=True):
                    raise SystemExit(f"{name} differs between catalogs ({ocp_dir.name})")
                seen[name] = obj
                catalogs.setdefault(name, []).append(ocp_dir.name)
    (out / "recorded").mkdir(parents=True, exist_ok=True)
    for name, bundle in seen.items():
        package = bundle["package"]
        version = next(p["value"]["version"] for p in bundle["properties"] if p["type"] == "olm.package")
        doc = {
            "schema": "releasekit/recorded-release/v1",
            "package": package,
            "version": version,
            "source": f"openshift/kueue-fbc catalogs {', '.join(catalogs[name])}",
            **_facts(bundle),
        }
        text = HEADER + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=100000)
        (out / "recorded" / f"{package}.v{version}.yaml").write_text(text, encoding="utf-8")
        metadata = next(p["value"] for p in bundle["properties"] if p["type"] == "olm.csv.metadata")
        images = {r["name"]: r["image"] for r in bundle["relatedImages"] if r["name"]}
        operator = [
            r["image"] for r in bundle["relatedImages"] if not r["name"] and r["image"] != bundle["image"]
        ]
        print(
            yaml.safe_dump(
                [
                    {
                        "version": version,
                        "catalogs": catalogs[name],
                        "bundle": bundle["image"],
                        "images": {
                            "operator": operator[0] if operator else None,
                            "operand": images.get("operand-image"),
                            "mustGather": images.get("must-gather"),
                        },
                        "createdAt": metadata["annotations"]["createdAt"],
                    }
                ],
                sort_keys=False,
                width=100000,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
