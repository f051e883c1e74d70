"""Turn a registry+v1 bundle (manifests + metadata, already parsed) into an ``olm.bundle``, as opm does.

Pure core: the caller reads the files. Follows operator-registry's ``render.go``: one
``olm.bundle.object`` per manifest, or one ``olm.csv.metadata`` when the bundle image is known;
properties sorted by type, then value JSON.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from releasekit.model.fbc import PROP_BUNDLE_OBJECT, PROP_CSV_METADATA, Bundle, Property, RelatedImage
from releasekit.model.operator import csv_images
from releasekit.plan.migrate import build_csv_metadata

__all__ = ["BundleRenderError", "PACKAGE_ANNOTATION", "render_bundle_manifests"]

PACKAGE_ANNOTATION = "operators.operatorframework.io.bundle.package.v1"


_GO_ESCAPES = str.maketrans({c: f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"})
"""What Go's ``json.Marshal`` escapes in strings beyond JSON's own escapes."""


class BundleRenderError(ValueError):
    """A bundle directory that opm could not render (no CSV, no package annotation, bad version)."""


def _normalise_numbers(value: Any) -> Any:
    """Integral floats become ints, as Go's unstructured decoding keeps them (int64)."""
    if isinstance(value, float) and value.is_integer() and math.isfinite(value) and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _normalise_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise_numbers(v) for v in value]
    return value


def go_marshal_compact(value: Any) -> str:
    """``json.Marshal`` of a decoded object: sorted keys, compact, HTML characters escaped."""
    text = json.dumps(_normalise_numbers(value), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return text.translate(_GO_ESCAPES)


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _gvk(group: str, kind: str, version: str) -> dict[str, str]:
    return {"group": group, "kind": kind, "version": version}


def _crd_group(name: str) -> str:
    return name.split(".", 1)[1] if "." in name else ""


def _api_gvks(csv: Mapping[str, Any], section: str) -> set[tuple[str, str, str]]:
    apis = _get(csv, "spec", "apiservicedefinitions", section) or []
    return {
        (a.get("group") or "", a.get("kind") or "", a.get("version") or "")
        for a in apis
        if isinstance(a, Mapping)
    }


def _provided_gvks(objects: Sequence[Any], csv: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    out: set[tuple[str, str, str]] = set()
    for obj in objects:
        if not isinstance(obj, Mapping) or obj.get("kind") != "CustomResourceDefinition":
            continue
        group = _get(obj, "spec", "group") or ""
        kind = _get(obj, "spec", "names", "kind") or ""
        versions = _get(obj, "spec", "versions") or []
        for ver in versions:
            if isinstance(ver, Mapping):
                out.add((group, kind, ver.get("name") or ""))
        single = _get(obj, "spec", "version")
        if isinstance(single, str) and single:
            out.add((group, kind, single))
    return out | _api_gvks(csv, "owned")


def _required_gvks(csv: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    out: set[tuple[str, str, str]] = set()
    for crd in _get(csv, "spec", "customresourcedefinitions", "required") or []:
        if isinstance(crd, Mapping):
            out.add((_crd_group(crd.get("name") or ""), crd.get("kind") or "", crd.get("version") or ""))
    return out | _api_gvks(csv, "required")


def _related_images(csv: Mapping[str, Any], image: str) -> tuple[RelatedImage, ...]:
    related = [
        RelatedImage(name=item.get("name") or "", image=item.get("image") or "")
        for item in _get(csv, "spec", "relatedImages") or []
        if isinstance(item, Mapping)
    ]
    seen = {r.image for r in related}
    if image and image not in seen:
        related.append(RelatedImage(image=image))
    for ref in csv_images(csv):  # opm adds the operator images (the deployments' containers)
        if ref.source == "container" and ref.image not in seen:
            related.append(RelatedImage(image=ref.image))
            seen.add(ref.image)
    return tuple(related)


def render_bundle_manifests(
    objects: Sequence[Any],
    annotations: Mapping[str, Any],
    *,
    dependencies: Sequence[Any] = (),
    properties: Sequence[Any] = (),
    image: str = "",
) -> Bundle:
    """The ``olm.bundle`` opm renders from these manifests and metadata.

    Raises:
        BundleRenderError: no CSV among the manifests, or no package annotation.
    """
    csv = next(
        (o for o in objects if isinstance(o, Mapping) and o.get("kind") == "ClusterServiceVersion"), None
    )
    if csv is None:
        raise BundleRenderError("no ClusterServiceVersion found in manifests")
    package = annotations.get(PACKAGE_ANNOTATION)
    if not isinstance(package, str) or not package:
        raise BundleRenderError(f"annotation {PACKAGE_ANNOTATION} is missing in metadata/annotations.yaml")
    name = _get(csv, "metadata", "name") or ""
    version = _get(csv, "spec", "version") or ""

    provided = _provided_gvks(objects, csv)
    required = _required_gvks(csv)
    package_prop: dict[str, Any] | None = None
    others: list[Property] = []
    package_required: list[Property] = []
    for item, is_dependency in [(p, False) for p in properties] + [(d, True) for d in dependencies]:
        if not isinstance(item, Mapping):
            continue
        type_, value = item.get("type") or "", item.get("value")
        if type_ == "olm.gvk" and isinstance(value, Mapping):
            gvk = (value.get("group") or "", value.get("kind") or "", value.get("version") or "")
            (required if is_dependency else provided).add(gvk)
        elif type_ == "olm.package" and isinstance(value, Mapping):
            name_and_version = {"packageName": value.get("packageName") or ""}
            if is_dependency:
                name_and_version["versionRange"] = value.get("version") or ""
                package_required.append(Property(type="olm.package.required", value=name_and_version))
            else:
                package_prop = {**name_and_version, "version": value.get("version") or ""}
        else:
            others.append(Property(type=type_, value=value))

    if image:
        props = [Property(type=PROP_CSV_METADATA, value=build_csv_metadata(csv))]
    else:
        encoded = (base64.b64encode(go_marshal_compact(o).encode()).decode() for o in objects)
        props = [Property(type=PROP_BUNDLE_OBJECT, value={"data": data}) for data in encoded]
    props.append(
        Property(type="olm.package", value=package_prop or {"packageName": package, "version": str(version)})
    )
    props.extend(Property(type="olm.gvk", value=_gvk(*g)) for g in provided)
    props.extend(Property(type="olm.gvk.required", value=_gvk(*g)) for g in required)
    props.extend(package_required)
    props.extend(others)
    props.sort(key=lambda p: (p.type, go_marshal_compact(p.value)))

    decoded = tuple(_normalise_numbers(o) for o in objects) if not image else ()
    return Bundle(
        name=name,
        package=package,
        image=image,
        properties=tuple(props),
        related_images=_related_images(csv, image) or None,
        objects=decoded,
        csv=csv,
    )
