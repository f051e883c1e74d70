"""Write an inventory from the transcribed facts of one Kueue tag (a one-off, run by hand).

Usage::

    python tools/transcribe_inventory.py PATH/TO/kueue/<tag> streams/

Reads ``crds.facts.yaml`` and ``kube_features.facts.yaml`` of that tag and writes
``streams/upstream/kueue-<line>.yaml`` with ``source: transcribed``, the tag and commit, and no CRD
hashes (the facts carry none). ``releasekit upstream import`` against a real clone replaces it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from releasekit.io.streams import feature_gates
from releasekit.io.upstream import write_inventory
from releasekit.model.inventory import (
    Crd,
    CrdVersion,
    Inventory,
    InventorySource,
    version_maturity,
)


def transcribe(facts_dir: Path) -> Inventory:
    """Build the inventory the facts of one tag describe."""
    crds_facts = yaml.safe_load((facts_dir / "crds.facts.yaml").read_text(encoding="utf-8"))
    gate_facts = yaml.safe_load((facts_dir / "kube_features.facts.yaml").read_text(encoding="utf-8"))
    source = gate_facts["source"]
    if crds_facts["source"]["commit"] != source["commit"]:
        raise SystemExit(f"{facts_dir}: CRD and gate facts describe different commits")
    crds = tuple(
        sorted(
            (
                Crd(
                    group=c["group"],
                    kind=c["kind"],
                    plural=c["plural"],
                    scope=c["scope"],
                    file=c["file"],
                    versions=tuple(
                        CrdVersion(
                            name=v,
                            served=v in c["served"],
                            storage=v == c["storage"],
                            maturity=version_maturity(v),
                        )
                        for v in c["versions"]
                    ),
                )
                for c in crds_facts["crds"]
            ),
            key=lambda c: c.name,
        )
    )
    gates = feature_gates(gate_facts["gates"])
    return Inventory(
        line=str(gate_facts["releaseLine"]),
        source=InventorySource.TRANSCRIBED,
        ref=source["tag"],
        tag=source["tag"],
        commit=source["commit"],
        features_file=source["path"],
        crds=crds,
        gates=gates,
    )


def main(argv: list[str]) -> int:
    inventory = transcribe(Path(argv[0]))
    print(write_inventory(Path(argv[1]), inventory))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
