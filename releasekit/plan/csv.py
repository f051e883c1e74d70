"""What goes into a release's ClusterServiceVersion: the facts the CSV template receives.

Pure core. :func:`csv_context` is the contract with ``bundle-templates/``: keys ``csv`` (name, version,
edges, ``created_at``, fact annotations, labels, install modes, owned/required CRDs, API services,
maturity, ``min_kube_version``, related images), ``images``, ``env`` (``RELATED_IMAGE_*``), ``stream``,
``owned_api``, ``release`` and ``openshift_versions``. Prose and branding are the templates' own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from releasekit.model.inventory import Crd
from releasekit.model.stream import CrdPlacement, Release, Stream, operand_crds
from releasekit.model.tech_preview import (
    ANNOTATION_OLM_PROPERTIES,
    olm_properties_annotation,
    written_max_openshift,
)
from releasekit.plan.channels import csv_edges

__all__ = [
    "with_prose",
    "OPERATOR_CRD",
    "csv_context",
    "openshift_versions_value",
    "operand_crds",
]

OPERATOR_CRD = "kueues.kueue.openshift.io"
"""The operator's own CRD, always owned by the CSV."""


def openshift_versions_value(stream: Stream, release: Release) -> str:
    """``com.redhat.openshift.versions``: the published value for a past release, else ``vMIN-vMAX``."""
    if release.openshift_versions_label:
        return release.openshift_versions_label
    catalogs = [str(c) for c in stream.openshift if c in release.catalogs] or [
        str(c) for c in release.catalogs
    ]
    if not catalogs:
        return ""
    return catalogs[0] if len(catalogs) == 1 else f"{catalogs[0]}-{catalogs[-1]}"


def _owned(stream: Stream, release: Release, crds: Iterable[Crd]) -> list[dict[str, str]]:
    if release.recorded is not None:
        return [dict(c) for c in release.recorded.csv_metadata.owned_crds]
    api = release.owned_api
    name = f"kueues.{api.group}" if api else OPERATOR_CRD  # 0.1.0 owned kueues.operator.openshift.io
    owned = [{"name": name, "version": api.version if api else "v1", "kind": api.kind if api else "Kueue"}]
    if stream.crd_placement is CrdPlacement.BUNDLE:
        for crd in crds:
            owned.append(
                {"name": crd.name, "version": crd.storage_version or crd.versions[-1].name, "kind": crd.kind}
            )
    return owned


def csv_context(
    stream: Stream,
    release: Release,
    *,
    crds: Iterable[Crd] = (),
    defaults: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every fact the CSV template needs for ``release`` (see the module docstring for the keys).

    ``crds`` are the operand CRDs the stream ships; ``defaults`` the CSV facts a new release starts from
    (``bundle-templates/csv-facts.yaml``). A release made before releasekit uses its recorded facts instead.
    """
    defaults = dict(defaults or {})
    defaults.update(dict(dict(defaults.pop("streams", None) or {}).get(stream.name) or {}))
    edges = csv_edges(stream, release)
    recorded = release.recorded.csv_metadata if release.recorded is not None else None
    if recorded is not None:
        annotations = dict(recorded.annotations)
        labels = dict(recorded.labels)
        install_modes = [dict(m) for m in recorded.install_modes]
        required = [dict(c) for c in recorded.required_crds]
        sections = {"owned": recorded.api_services_owned, "required": recorded.api_services_required}
        api_services: dict[str, Any] = {
            key: [dict(a) for a in apis] for key, apis in sections.items() if apis
        }
        maturity, min_kube = recorded.maturity, recorded.min_kube_version
    else:
        annotations = {str(k): str(v) for k, v in dict(defaults.get("annotations", {})).items()}
        labels = {str(k): str(v) for k, v in dict(defaults.get("labels", {})).items()}
        install_modes = [dict(m) for m in defaults.get("installModes", [])]
        required, api_services = [], {}
        maturity, min_kube = defaults.get("maturity"), defaults.get("minKubeVersion")
    if release.created_at:
        annotations["createdAt"] = release.created_at
    if edges.skip_range:
        annotations["olm.skipRange"] = edges.skip_range
    max_openshift = written_max_openshift(stream, release)
    if max_openshift is not None:
        annotations[ANNOTATION_OLM_PROPERTIES] = olm_properties_annotation(max_openshift)
    related = [{"name": "operand-image", "image": release.images.operand}]
    env = [{"name": "RELATED_IMAGE_OPERAND_IMAGE", "value": release.images.operand}]
    if release.images.must_gather:
        related.append({"name": "must-gather", "image": release.images.must_gather})
        env.append({"name": "RELATED_IMAGE_MUST_GATHER", "value": release.images.must_gather})
    api = release.owned_api
    return {
        "csv": {
            "name": release.csv_name(stream.package),
            "version": str(release.version),
            "replaces": edges.replaces or None,
            "skips": list(edges.skips),
            "skip_range": edges.skip_range or None,
            "created_at": release.created_at,
            "annotations": dict(sorted(annotations.items())),
            "labels": dict(sorted(labels.items())),
            "install_modes": install_modes,
            "owned_crds": _owned(stream, release, crds),
            "required_crds": required,
            "api_services": api_services,
            "maturity": maturity,
            "min_kube_version": min_kube,
            "related_images": related,
        },
        "images": {
            "operator": release.images.operator,
            "operand": release.images.operand,
            "must_gather": release.images.must_gather,
        },
        "env": env,
        "stream": {"name": stream.name, "package": stream.package},
        "owned_api": {"group": api.group, "version": api.version, "kind": api.kind} if api else None,
        "release": {"version": str(release.version), "status": release.status.value},
        "openshift_versions": openshift_versions_value(stream, release),
    }


def with_prose(context: Mapping[str, Any], prose_doc: Mapping[str, Any]) -> dict[str, Any]:
    """Add this project's prose (``bundle-templates/prose.yaml``) to a :func:`csv_context`.

    Adds ``prose`` (the stream's entry over ``default``) and ``description``, and the prose annotations
    (``description``, ``alm-examples``) and owned CRDs' display names and descriptions to the facts.
    """
    stream_name = str(context["stream"]["name"])
    prose = {**dict(prose_doc.get("default") or {}), **dict(prose_doc.get(stream_name) or {})}
    description = str(prose.get("description", ""))
    if prose.get("descriptionPrefix"):
        description = f"{prose['descriptionPrefix']}\n\n{description}"
    annotations = dict(context["csv"]["annotations"])
    if prose.get("shortDescription"):
        annotations["description"] = str(prose["shortDescription"])
    examples = dict(prose.get("examples") or {})
    texts = dict(prose.get("ownedCrdText") or {})
    alm, owned = [], []
    for crd in context["csv"]["owned_crds"]:
        kind, name, version = crd["kind"], crd["name"], crd["version"]
        if examples.get(kind) is not None:
            group = str(name).split(".", 1)[1]
            alm.append({"apiVersion": f"{group}/{version}", "kind": kind, **dict(examples[kind])})
        text = dict(texts.get(kind) or {})
        owned.append(
            {
                "name": name,
                "version": version,
                "kind": kind,
                "displayName": str(text.get("displayName", kind)),
                "description": str(text.get("description", f"{kind} ({name})")),
            }
        )
    if alm:
        annotations["alm-examples"] = json.dumps(alm, indent=2)
    return {
        **context,
        "prose": prose,
        "description": description,
        "annotations": dict(sorted(annotations.items())),
        "owned_crds": owned,
    }
