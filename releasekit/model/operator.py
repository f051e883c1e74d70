"""One release's operator facts, as ``releasekit operator import`` records them (``streams/operator/``).

Pure model; :mod:`releasekit.plan.operator_bundle` turns it into a bundle. :func:`csv_images` is the one
walk over the images a CSV names, for records, ``catalog render`` and the bundle rules alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["CsvImage", "OperatorRecord", "csv_images", "pod_specs"]


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _items(value: object) -> Sequence[Any]:
    return value if isinstance(value, list) else ()


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


class CsvImage(NamedTuple):
    """One image a CSV names: where (JSON path), what names it, and ``source``.

    ``source`` is ``related`` (``spec.relatedImages``), ``annotation`` (``containerImage``), ``container``
    or ``env`` (a container's ``RELATED_IMAGE_*`` variable).
    """

    image: str
    path: str
    what: str
    source: str


def pod_specs(csv: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(JSON path, pod spec) of every deployment the CSV installs."""
    install = _mapping(_mapping(_mapping(csv.get("spec")).get("install")).get("spec"))
    return [
        (
            f"$.spec.install.spec.deployments[{i}].spec.template.spec",
            _mapping(_mapping(_mapping(_mapping(deployment).get("spec")).get("template")).get("spec")),
        )
        for i, deployment in enumerate(_items(install.get("deployments")))
    ]


def csv_images(csv: Mapping[str, Any]) -> Iterator[CsvImage]:
    """Every non-empty image reference of a CSV: relatedImages, containerImage, then each pod's containers."""
    for index, item in enumerate(_items(_mapping(csv.get("spec")).get("relatedImages"))):
        image = _text(_mapping(item).get("image"))
        if image:
            yield CsvImage(
                image, f"$.spec.relatedImages[{index}].image", f"relatedImages[{index}]", "related"
            )
    image = _text(_mapping(_mapping(csv.get("metadata")).get("annotations")).get("containerImage"))
    if image:
        yield CsvImage(
            image, "$.metadata.annotations.containerImage", "annotation containerImage", "annotation"
        )
    for pod_path, pod in pod_specs(csv):
        for field in ("initContainers", "containers"):
            for c_index, item in enumerate(_items(pod.get(field))):
                container, path = _mapping(item), f"{pod_path}.{field}[{c_index}]"
                name, image = _text(container.get("name")), _text(container.get("image"))
                if image:
                    yield CsvImage(image, f"{path}.image", f'container "{name}"', "container")
                for e_index, env in enumerate(_items(container.get("env"))):
                    variable, value = _text(_mapping(env).get("name")), _text(_mapping(env).get("value"))
                    if variable.startswith("RELATED_IMAGE_") and value:
                        what = f'env {variable} of container "{name}"'
                        yield CsvImage(value, f"{path}.env[{e_index}].value", what, "env")


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
        """Every image the CSV's ``spec`` names: relatedImages, containers and their RELATED_IMAGE_* env."""
        return frozenset(ref.image for ref in csv_images(self.csv) if ref.source != "annotation")
