"""Write a deterministic synthetic file-based catalog for benchmarks (run by hand, never in tests).

300 packages x 30 bundles, about 30 MB of JSON: one compact object per line (``--pretty`` indents them by
four spaces as ``opm render -o json`` does, which doubles the size). Each package has an ``olm.package`` blob with an icon, two
channels (``stable`` with every bundle, ``fast`` with the newest ten) whose entries use ``replaces``,
``skips`` and ``skipRange``, and bundles carrying ``olm.package``, ``olm.gvk``, ``olm.gvk.required``,
``olm.package.required``, ``olm.maxOpenShiftVersion`` and a realistic ``olm.csv.metadata`` property, plus
relatedImages. The catalog is valid for ``opm validate``. Same arguments, same bytes.

Usage: ``python benchmarks/gen_synthetic.py [OUT_DIR] [--packages N] [--bundles N] [--pretty]``
(default ``benchmarks/data/synthetic``; ``benchmarks/data/`` is git-ignored).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import shutil
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).resolve().parent / "data" / "synthetic"

_WORDS = [
    "operator",
    "cluster",
    "storage",
    "network",
    "database",
    "cache",
    "stream",
    "message",
    "queue",
    "metrics",
    "monitor",
    "backup",
    "restore",
    "secret",
    "policy",
    "gateway",
    "mesh",
    "proxy",
    "ingress",
    "scheduler",
    "batch",
    "workload",
    "tenant",
    "quota",
    "audit",
    "replica",
    "shard",
    "index",
    "search",
    "vector",
    "model",
    "inference",
    "pipeline",
    "registry",
    "image",
    "build",
    "deploy",
]


def _digest(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _paragraphs(rng: random.Random, count: int) -> str:
    return "\n\n".join(" ".join(_sentence(rng, rng.randint(6, 12)) for _ in range(4)) for _ in range(count))


def _csv_metadata(rng: random.Random, package: str, version: str, kinds: list[str]) -> dict[str, Any]:
    group = f"{package.replace('-', '')}.example.com"
    examples = [
        {
            "apiVersion": f"{group}/v1",
            "kind": kind,
            "metadata": {"name": f"{kind.lower()}-sample"},
            "spec": {"replicas": rng.randint(1, 5), "size": rng.choice(["small", "medium", "large"])},
        }
        for kind in kinds
    ]
    return {
        "annotations": {
            "alm-examples": json.dumps(examples),
            "capabilities": rng.choice(["Basic Install", "Seamless Upgrades", "Full Lifecycle"]),
            "categories": "Database, Storage",
            "containerImage": f"quay.io/example/{package}@sha256:{_digest(package, version, 'op')}",
            "createdAt": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00Z",
            "operators.openshift.io/valid-subscription": '["OpenShift Container Platform"]',
            "repository": f"https://github.com/example/{package}",
            "support": "Example Inc.",
        },
        "apiServiceDefinitions": {},
        "crdDescriptions": {
            "owned": [
                {
                    "description": _sentence(rng, 8),
                    "displayName": kind,
                    "kind": kind,
                    "name": f"{kind.lower()}s.{group}",
                    "resources": [{"kind": "Deployment", "name": "", "version": "v1"}],
                    "specDescriptors": [
                        {
                            "description": _sentence(rng, 6),
                            "displayName": "Replicas",
                            "path": "replicas",
                            "x-descriptors": ["urn:alm:descriptor:com.tectonic.ui:podCount"],
                        },
                    ],
                    "version": "v1",
                }
                for kind in kinds
            ]
        },
        "description": _paragraphs(rng, 1),
        "displayName": package.replace("-", " ").title(),
        "installModes": [
            {"supported": True, "type": "OwnNamespace"},
            {"supported": True, "type": "SingleNamespace"},
            {"supported": True, "type": "AllNamespaces"},
        ],
        "keywords": rng.sample(_WORDS, 4),
        "labels": {
            "operatorframework.io/arch.amd64": "supported",
            "operatorframework.io/os.linux": "supported",
        },
        "links": [{"name": "Documentation", "url": f"https://docs.example.com/{package}"}],
        "maintainers": [{"email": "team@example.com", "name": "Example Team"}],
        "maturity": rng.choice(["alpha", "beta", "stable"]),
        "minKubeVersion": "1.25.0",
        "provider": {"name": "Example Inc.", "url": "https://example.com"},
    }


def _package_blobs(rng: random.Random, index: int, bundles: int) -> list[dict[str, Any]]:
    package = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-operator-{index:03d}"
    versions = []
    major, minor, patch = 1, 0, 0
    for _ in range(bundles):
        versions.append(f"{major}.{minor}.{patch}")
        if rng.random() < 0.3:
            minor, patch = minor + 1, 0
        else:
            patch += 1
    names = [f"{package}.v{v}" for v in versions]
    kinds = [f"{rng.choice(_WORDS).title()}{rng.choice(_WORDS).title()}" for _ in range(rng.randint(1, 2))]
    kinds = list(dict.fromkeys(kinds))
    group = f"{package.replace('-', '')}.example.com"

    icon = base64.b64encode(rng.randbytes(600)).decode()
    blobs: list[dict[str, Any]] = [
        {
            "schema": "olm.package",
            "name": package,
            "defaultChannel": "stable",
            "icon": {"base64data": icon, "mediatype": "image/png"},
            "description": _paragraphs(rng, 2),
        }
    ]

    def entries(chosen: list[int]) -> list[dict[str, Any]]:
        # z-stream style: an entry may replace the one before its predecessor and skip the predecessor
        # (never twice in a row: skipping a bundle that another entry replaces would strand the tail).
        out: list[dict[str, Any]] = []
        skipped_last = False
        for pos, i in enumerate(chosen):
            entry: dict[str, Any] = {"name": names[i]}
            if pos > 1 and not skipped_last and rng.random() < 0.3:
                entry["replaces"] = names[chosen[pos - 2]]
                entry["skips"] = [names[chosen[pos - 1]]]
                skipped_last = True
            else:
                if pos > 0:
                    entry["replaces"] = names[chosen[pos - 1]]
                skipped_last = False
            if pos > 0 and rng.random() < 0.4:
                entry["skipRange"] = f">={versions[chosen[0]]} <{versions[i]}"
            out.append(entry)
        return out

    blobs.append(
        {
            "schema": "olm.channel",
            "name": "fast",
            "package": package,
            "entries": entries(list(range(max(0, bundles - 10), bundles))),
        }
    )
    blobs.append(
        {
            "schema": "olm.channel",
            "name": "stable",
            "package": package,
            "entries": entries(list(range(bundles))),
        }
    )
    for name, version in zip(names, versions, strict=True):
        image = f"quay.io/example/{package}-bundle@sha256:{_digest(name, 'bundle')}"
        operator = f"quay.io/example/{package}@sha256:{_digest(name, 'operator')}"
        properties: list[dict[str, Any]] = [
            {"type": "olm.gvk", "value": {"group": group, "kind": kind, "version": "v1"}} for kind in kinds
        ]
        properties.append(
            {
                "type": "olm.gvk.required",
                "value": {"group": "monitoring.coreos.com", "kind": "ServiceMonitor", "version": "v1"},
            }
        )
        properties.append({"type": "olm.maxOpenShiftVersion", "value": "4.22"})
        properties.append({"type": "olm.package", "value": {"packageName": package, "version": version}})
        properties.append(
            {
                "type": "olm.package.required",
                "value": {"packageName": "cert-manager", "versionRange": ">=1.10.0"},
            }
        )
        properties.append({"type": "olm.csv.metadata", "value": _csv_metadata(rng, package, version, kinds)})
        blobs.append(
            {
                "schema": "olm.bundle",
                "name": name,
                "package": package,
                "image": image,
                "properties": properties,
                "relatedImages": [
                    {"name": "", "image": image},
                    {"name": "manager", "image": operator},
                ],
            }
        )
    return blobs


def _clear(out: Path) -> None:
    """Remove a previous output (folders holding only ``catalog.json``); refuse to touch anything else."""
    out.mkdir(parents=True, exist_ok=True)
    for child in sorted(out.iterdir()):
        if (
            child.is_dir()
            and not child.is_symlink()
            and [p.name for p in child.iterdir()] == ["catalog.json"]
        ):
            shutil.rmtree(child)
        else:
            raise SystemExit(
                f"{out} holds {child.name}, which this generator did not write; pick an empty folder"
            )


def generate(
    out: Path, packages: int = 300, bundles: int = 30, seed: int = 20260101, pretty: bool = False
) -> int:
    """Write the catalog under ``out`` (replacing it); return the bytes written."""
    _clear(out)
    rng = random.Random(seed)
    total = 0
    for index in range(packages):
        blobs = _package_blobs(rng, index, bundles)
        folder = out / blobs[0]["name"]
        folder.mkdir()
        if pretty:
            text = "\n".join(json.dumps(blob, indent=4, ensure_ascii=False) for blob in blobs) + "\n"
        else:
            text = "".join(
                json.dumps(blob, ensure_ascii=False, separators=(",", ":")) + "\n" for blob in blobs
            )
        data = text.encode()
        (folder / "catalog.json").write_bytes(data)
        total += len(data)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--packages", type=int, default=300)
    parser.add_argument("--bundles", type=int, default=30)
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument(
        "--pretty", action="store_true", help="indent like opm render -o json (about 2x larger)"
    )
    args = parser.parse_args()
    total = generate(args.out, args.packages, args.bundles, args.seed, args.pretty)
    print(f"wrote {args.packages} packages x {args.bundles} bundles, {total / 1e6:.1f} MB, to {args.out}")


if __name__ == "__main__":
    main()
