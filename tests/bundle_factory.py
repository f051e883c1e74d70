"""Write small synthetic registry+v1 bundles into a temporary folder (another operator's, not Kueue's).

The default bundle passes operator-sdk's default validators: one CSV owning one CRD, metadata with a
``stable`` channel. Tests change one thing at a time through the keyword arguments.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

PACKAGE = "widget-operator"

_CSV: dict[str, Any] = {
    "apiVersion": "operators.coreos.com/v1alpha1",
    "kind": "ClusterServiceVersion",
    "metadata": {
        "name": "widget-operator.v0.3.0",
        "annotations": {
            "alm-examples": '[{"apiVersion": "example.com/v1alpha1", "kind": "Widget", "metadata": {"name": "w"}}]',
        },
    },
    "spec": {
        "displayName": "Widget Operator",
        "version": "0.3.0",
        "minKubeVersion": "1.28.0",
        "installModes": [{"type": "AllNamespaces", "supported": True}],
        "install": {
            "strategy": "deployment",
            "spec": {
                "deployments": [
                    {
                        "name": "widget-operator",
                        "spec": {
                            "selector": {"matchLabels": {"app": "widget"}},
                            "template": {
                                "metadata": {"labels": {"app": "widget"}},
                                "spec": {
                                    "containers": [
                                        {"name": "manager", "image": "quay.io/example/widget:v0.3.0"}
                                    ]
                                },
                            },
                        },
                    }
                ]
            },
        },
        "customresourcedefinitions": {
            "owned": [
                {"name": "widgets.example.com", "version": "v1alpha1", "kind": "Widget", "displayName": "W"}
            ]
        },
    },
}

_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [
            {
                "name": "v1alpha1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            }
        ],
    },
}


def csv_data() -> dict[str, Any]:
    """A fresh copy of the default CSV."""
    return copy.deepcopy(_CSV)


def crd_data() -> dict[str, Any]:
    """A fresh copy of the default CRD (``widgets.example.com``, one version ``v1alpha1``)."""
    return copy.deepcopy(_CRD)


def annotations(package: str = PACKAGE, channels: str = "stable") -> dict[str, str]:
    """The ``annotations`` map of metadata/annotations.yaml."""
    return {
        "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
        "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
        "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
        "operators.operatorframework.io.bundle.package.v1": package,
        "operators.operatorframework.io.bundle.channels.v1": channels,
        "operators.operatorframework.io.bundle.channel.default.v1": channels.split(",")[0],
    }


def write_bundle(
    root: Path,
    *,
    manifests: dict[str, Any] | None = None,
    metadata: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write a bundle root: ``manifests`` (file name -> object, or str/bytes written as is), metadata.

    ``metadata=None`` writes the default annotations; ``{}`` writes no metadata folder at all.
    ``extra`` adds files (relative path -> content) after the manifests, e.g. ``manifests/.hidden``.
    """
    files = {"widget.clusterserviceversion.yaml": csv_data(), "widgets.crd.yaml": crd_data()}
    files.update(manifests or {})
    (root / "manifests").mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        _write(root / "manifests" / name, content)
    if metadata != {}:
        (root / "metadata").mkdir(exist_ok=True)
        _write(root / "metadata" / "annotations.yaml", {"annotations": metadata or annotations()})
    for rel, content in (extra or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        _write(root / rel, content)
    return root


def _write(path: Path, content: Any) -> None:
    if content is None:
        return
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(content, sort_keys=False), encoding="utf-8")
