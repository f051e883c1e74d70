"""One release's operator facts, as recorded by ``releasekit operator import`` (``streams/operator/<version>.yaml``).

Pure model. The documents are kept as plain data (the CSV without prose, the other manifests, the
bundle annotations and Dockerfile LABELs); :mod:`releasekit.plan.operator_bundle` turns them into a bundle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["OperatorRecord"]


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorRecord:
    """The operator facts of release ``version`` read at ``commit``.

    Attributes:
        version: the operator release.
        commit: the operator repository commit the facts were read at.
        file: the record file as shown in findings.
        csv_file: the CSV's file name in ``bundle/manifests/``.
        csv: the ClusterServiceVersion without prose (treat as read-only).
        manifests: every other manifest, ``(file name, object)``.
        annotations: ``metadata/annotations.yaml``.
        labels: the ``bundle.Dockerfile`` LABELs but the prose ones, in order (None: the commit had no Dockerfile).
        csv_version: the CSV's own ``spec.version`` when it is not :attr:`version` (a record imported with
            ``--as-version``: the bundle is the CSV re-aimed at the release, as a carried record is).
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
