"""``releasekit olmv1 manifests``: what a cluster admin applies to install a release with OLM v1.

The bundle's RBAC and the install namespace are judged first (RK-OLMV1-005 … 010); nothing is written.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from releasekit.errors import InputError, UsageError
from releasekit.io.atomic import write_tree_atomic
from releasekit.io.bundle_load import load_bundle
from releasekit.io.streams import load_streams
from releasekit.io.yamlio import dump_yaml_block
from releasekit.jobs.bundle_build import render_release_bundle
from releasekit.model.bundle import Bundle
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.stream import CrdPlacement, Stream
from releasekit.plan.olmv1 import InstallRequest, UnreadableRule, installer_manifests
from releasekit.rules.olmv1 import (
    BROAD_RBAC_RULES,
    check_install_namespace,
    check_install_safety,
    namespace_name_problem,
)

__all__ = ["ManifestsRequest", "run_manifests"]

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
    templates_dir: Path = Path("bundle-templates")
    bundles_dir: Path = Path("bundles")
    fmt: str = "yaml"
    allow_broad_rbac: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ManifestsResult:
    """The rendered manifests, or None when an error finding refuses the bundle; the findings either way."""

    text: str | None
    findings: tuple[Finding, ...] = ()


def _stream(request: ManifestsRequest) -> Stream | None:
    """The stream of the release, or None when there is no streams folder and a bundle is given."""
    if not request.streams_dir.is_dir():
        if request.bundle is None or request.stream is not None:
            raise InputError(f"{request.streams_dir}: not a streams folder")
        return None
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
    if not having and request.bundle is None:
        raise UsageError(f"--version {request.version}: no stream has this release")
    return having[0] if having else None


def _planned_bundle(request: ManifestsRequest, stream: Stream) -> Bundle:
    """The release's bundle planned in memory from its recorded facts, as ``bundle build`` would write it."""
    release = stream.release(request.version)
    assert release is not None  # _stream checked the version
    if stream.crd_placement is not CrdPlacement.OPERATOR_ASSETS:
        raise InputError(
            f"{request.bundles_dir / stream.name / request.version}: no bundle, and stream {stream.name} "
            f"bundles Kueue's CRDs, read from git (run `releasekit bundle build --stream {stream.name} "
            f"--version {request.version}`, or pass --bundle DIR)"
        )
    built = render_release_bundle(request.streams_dir, request.templates_dir, stream, release)
    with tempfile.TemporaryDirectory(prefix="releasekit-olmv1-") as tmp:
        root = Path(tmp) / "bundle"
        write_tree_atomic(root, built.files, marker=False, lock=False)
        return _loaded_bundle(root, request, shown=f"{built.display} (planned)")


def _loaded_bundle(path: Path, request: ManifestsRequest, *, shown: str | None = None) -> Bundle:
    bundle = load_bundle(path, shown=shown)
    errors = [f for f in bundle.load_findings if f.severity is Severity.ERROR]
    if errors:
        raise InputError(f"{errors[0].location}: {errors[0].message}")
    if bundle.csv is None:
        raise InputError(f"{path}: no ClusterServiceVersion in this bundle")
    version = bundle.csv.spec.get("version")
    if str(version) != request.version:
        raise UsageError(f"--version {request.version}, but the bundle in {path} is version {version}")
    return bundle


def _namespace(request: ManifestsRequest, bundle: Bundle, package: str) -> tuple[str, list[Finding]]:
    """The install namespace and what RK-OLMV1-008/009 say about it (errors: ``olmv1 manifests`` installs there)."""
    assert bundle.csv is not None
    if request.namespace is not None:
        problem = namespace_name_problem(request.namespace)
        if problem is not None:
            raise UsageError(f"--namespace {request.namespace!r}: not a namespace name: {problem}")
        where, what, shown = Location(file="--namespace"), "the install namespace", None
        namespace = request.namespace
    else:
        suggested = bundle.csv.annotations.get(SUGGESTED_NAMESPACE)
        if isinstance(suggested, str) and suggested:
            where = bundle.csv.loc(f"$.metadata.annotations['{SUGGESTED_NAMESPACE}']")
            what, namespace, shown = "the suggested namespace", suggested, bundle
        else:
            where = (
                bundle.annotations.loc("$") if bundle.annotations is not None else Location(file=bundle.root)
            )
            what, namespace, shown = "the package name (the default namespace)", package, bundle
    return namespace, check_install_namespace(namespace, where, what, shown, Severity.ERROR, Severity.ERROR)


def _judge(bundle: Bundle, request: ManifestsRequest) -> list[Finding]:
    """The bundle's RBAC findings: errors that refuse it, warnings for what ``--allow-broad-rbac`` accepts."""
    accepted = BROAD_RBAC_RULES if request.allow_broad_rbac else ()
    return [
        dataclasses.replace(item, severity=Severity.WARNING) if item.rule in accepted else item
        for item in check_install_safety(bundle, Severity.ERROR)
        if item.rule not in ("RK-OLMV1-008", "RK-OLMV1-009")  # judged on the namespace used (_namespace)
    ]


def run_manifests(request: ManifestsRequest) -> ManifestsResult:
    """The manifests to apply (:func:`releasekit.plan.olmv1.installer_manifests`) and the findings.

    ``text`` is None when an error finding refuses the bundle.
    """
    stream = _stream(request)
    if request.bundle is not None:  # the release's bundle: --bundle DIR, what bundle build wrote, or planned
        bundle = _loaded_bundle(request.bundle, request)
    else:
        assert stream is not None  # _stream returns a stream unless --bundle is given
        path = request.bundles_dir / stream.name / request.version
        bundle = _loaded_bundle(path, request) if path.is_dir() else _planned_bundle(request, stream)
    package = stream.package if stream is not None else bundle.package
    if not package:
        raise InputError(f"{bundle.root}: the bundle names no package; pass --stream")
    namespace, findings = _namespace(request, bundle, package)
    findings = _judge(bundle, request) + findings
    if any(f.severity is Severity.ERROR for f in findings):
        return ManifestsResult(text=None, findings=tuple(findings))
    version = None if request.channel else request.version
    install = InstallRequest(package=package, namespace=namespace, version=version, channel=request.channel)
    try:
        objects = installer_manifests(bundle, install)
    except UnreadableRule as exc:  # pragma: no cover - the loader and RK-OLMV1-010 refuse these first
        raise InputError(f"{bundle.root}: {exc}") from None
    if request.fmt == "json":
        document = {"apiVersion": "v1", "kind": "List", "items": objects}
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    else:  # YAML documents, ``---`` before each
        text = "".join("---\n" + dump_yaml_block(o) for o in objects)
    return ManifestsResult(text=text, findings=tuple(findings))
