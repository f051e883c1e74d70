"""One release's operator facts, as ``releasekit operator import`` records them (``streams/operator/``).

Pure model; :mod:`releasekit.plan.operator_bundle` turns it into a bundle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["OperatorRecord"]


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorRecord:
    """The operator facts of release ``version`` read at ``commit``.

    ``csv`` is without prose (treat as read-only); ``labels`` is None when the commit had no Dockerfile;
    ``csv_version`` is the CSV's own version when it is not ``version`` (``--as-version``: the CSV is
    re-aimed at the release, as a carried record is).
    """

    version: str
    commit: str
    file: str
    csv_file: str
    csv: Mapping[str, Any]
    manifests: tuple[tuple[str, Mapping[str, Any]], ...]
    annotations: Mapping[str, str]
    labels: tuple[tuple[str, str], ...] | None
    csv_version: str | None = None

    def images(self) -> frozenset[str]:
        """Every image the CSV names (``spec.relatedImages`` and the deployments' containers)."""
        spec = self.csv.get("spec") or {}
        out = {str(i.get("image")) for i in spec.get("relatedImages") or [] if isinstance(i, Mapping)}
        for dep in ((spec.get("install") or {}).get("spec") or {}).get("deployments") or []:
            pod = (((dep or {}).get("spec") or {}).get("template") or {}).get("spec") or {}
            for key in ("initContainers", "containers"):
                for container in pod.get(key) or []:
                    if isinstance(container, Mapping) and container.get("image"):
                        out.add(str(container["image"]))
                    for env in (container or {}).get("env") or []:
                        if isinstance(env, Mapping) and str(env.get("name", "")).startswith("RELATED_IMAGE_"):
                            out.add(str(env.get("value")))
        return frozenset(out)
