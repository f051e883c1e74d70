"""``releasekit olmv1 manifests``: what a cluster admin applies to install a release with OLM v1.

Use case: find the release (``--version``, in ``--stream`` or the one stream that has it), read its bundle
(``--bundle DIR``, else the one ``bundle build`` wrote to ``bundles/<stream>/<version>``), derive the
Namespace, the least-privilege installer ServiceAccount with its ClusterRole/Role and bindings, and the
ClusterExtension (:mod:`releasekit.plan.olmv1`), and render them as YAML documents or a JSON ``List``.
Nothing is written here; the bundle's CRDs appear only by name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from releasekit.errors import InputError, UsageError
from releasekit.model.bundle import Bundle
from releasekit.model.finding import Severity
from releasekit.model.stream import Stream
from releasekit.plan.olmv1 import InstallRequest, installer_manifests

__all__ = ["ManifestsRequest", "render_manifests", "run_manifests"]

SUGGESTED_NAMESPACE = "operatorframework.io/suggested-namespace"


@dataclass(frozen=True, slots=True, kw_only=True)
class ManifestsRequest:
    """The release, where to read it, and how to render."""

    version: str
    stream: str | None = None
    namespace: str | None = None
    channel: str | None = None
    bundle: Path | None = None
    streams_dir: Path = Path("streams")
    bundles_dir: Path = Path("bundles")
    fmt: str = "yaml"


def _stream(request: ManifestsRequest) -> Stream | None:
    """The stream of the release, or None when there is no streams folder and a bundle is given."""
    if not request.streams_dir.is_dir():
        if request.bundle is None or request.stream is not None:
            raise InputError(f"{request.streams_dir}: not a streams folder")
        return None
    from releasekit.io.streams import load_streams

    streams = load_streams(request.streams_dir).streams
    if request.stream is not None:
        stream = next((s for s in streams if s.name == request.stream), None)
        if stream is None:
            names = ", ".join(s.name for s in streams)
            raise UsageError(f"--stream {request.stream}: no such stream (there are: {names})")
        if not any(str(r.version) == request.version for r in stream.releases) and request.bundle is None:
            raise UsageError(f"--version {request.version}: no such release in stream {stream.name}")
        return stream
    having = [s for s in streams if any(str(r.version) == request.version for r in s.releases)]
    if len(having) > 1:
        raise UsageError(
            f"--version {request.version} is in several streams ({', '.join(s.name for s in having)}); "
            "choose one with --stream"
        )
    if not having:
        if request.bundle is not None:
            return None
        raise UsageError(f"--version {request.version}: no stream has this release")
    return having[0]


def _bundle(request: ManifestsRequest, stream: Stream | None) -> Bundle:
    from releasekit.io.bundle_load import load_bundle

    if request.bundle is not None:
        path = request.bundle
    elif stream is not None:
        path = request.bundles_dir / stream.name / request.version
        if not path.is_dir():
            raise InputError(
                f"{path}: no bundle (run `releasekit bundle build --stream {stream.name} --version "
                f"{request.version}`, or pass --bundle DIR)"
            )
    else:  # pragma: no cover - _stream returns a stream unless --bundle is given
        raise UsageError("--bundle DIR is needed")
    bundle = load_bundle(path)
    errors = [f for f in bundle.load_findings if f.severity is Severity.ERROR]
    if errors:
        raise InputError(f"{errors[0].location}: {errors[0].message}")
    if bundle.csv is None:
        raise InputError(f"{path}: no ClusterServiceVersion in this bundle")
    version = bundle.csv.spec.get("version")
    if str(version) != request.version:
        raise UsageError(f"--version {request.version}, but the bundle in {path} is version {version}")
    return bundle


def build_manifests(request: ManifestsRequest) -> list[dict[str, Any]]:
    """The objects to apply (see :func:`releasekit.plan.olmv1.installer_manifests`)."""
    stream = _stream(request)
    bundle = _bundle(request, stream)
    package = stream.package if stream is not None else bundle.package
    if not package:
        raise InputError(f"{bundle.root}: the bundle names no package; pass --stream")
    assert bundle.csv is not None
    suggested = bundle.csv.annotations.get(SUGGESTED_NAMESPACE)
    namespace = request.namespace or (suggested if isinstance(suggested, str) and suggested else package)
    install = InstallRequest(
        package=package,
        namespace=namespace,
        version=None if request.channel else request.version,
        channel=request.channel,
    )
    return installer_manifests(bundle, install)


def render_manifests(objects: list[dict[str, Any]], fmt: str) -> str:
    """YAML documents (``---`` between them) or a JSON ``v1/List``; deterministic, newline at the end."""
    if fmt == "json":
        document = {"apiVersion": "v1", "kind": "List", "items": objects}
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return "".join(
        "---\n" + yaml.safe_dump(o, sort_keys=False, default_flow_style=False, width=1000) for o in objects
    )


def run_manifests(request: ManifestsRequest) -> str:
    """The rendered manifests.

    Raises:
        InputError: streams or bundle that cannot be read (exit 2).
        UsageError: an unknown stream or release, or a bundle of another version (exit 2).
    """
    return render_manifests(build_manifests(request), request.fmt)
