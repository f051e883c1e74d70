"""``releasekit bundle validate``: judge one bundle as operator-sdk does, plus releasekit's own rules.

A folder operator-sdk's loader refuses is not a loadable bundle (exit 2, one line).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from releasekit.errors import InputError, ReleasekitError
from releasekit.io.bundle_load import load_bundle, load_categories_file
from releasekit.io.streams import load_streams
from releasekit.model import bundle_ids
from releasekit.model.bundle import Bundle, StreamPolicy, ValidationOptions
from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report
from releasekit.rules.bundle import DEFAULT_VALIDATORS, OPTIONAL_CHECKS, rules_run, validate_bundle

__all__ = ["BundleValidateRequest", "optional_checks", "run"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleValidateRequest:
    """What ``bundle validate`` was asked (``stream``: judge it as that stream's, whatever its package)."""

    path: Path
    optional: tuple[str, ...] = ()
    k8s_version: str | None = None
    release_checks: bool = False
    openshift_catalogs: tuple[str, ...] = ()
    streams_dir: Path | None = None
    stream: str | None = None
    categories_file: Path | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleValidateResult:
    """The report, and ``refusal``: one line when the folder is not a loadable bundle (exit 2)."""

    report: Report
    refusal: str | None = None


def optional_checks() -> tuple[str, ...]:
    """The names ``--optional-checks`` accepts."""
    return tuple(OPTIONAL_CHECKS)


def resolve_stream(bundle: Bundle, streams_dir: Path | None, name: str | None) -> StreamPolicy | None:
    """The stream policy for ``bundle``: stream ``name``, else the stream whose package is the bundle's."""
    if name is None and (streams_dir is None or not streams_dir.is_dir()):
        return None
    if streams_dir is None:
        raise InputError(f"--stream {name}: no streams folder given")
    try:
        loaded = load_streams(streams_dir)
    except ReleasekitError:
        if name is not None:
            raise
        return None  # looking for the bundle's stream in a folder that cannot be read: judge it as any bundle
    if name is not None:
        stream = next((s for s in loaded.streams if s.name == name), None)
        if stream is None:
            known = ", ".join(s.name for s in loaded.streams) or "none"
            raise InputError(f"--stream {name}: no such stream in {streams_dir} (streams: {known})")
    else:
        stream = next((s for s in loaded.streams if s.package and s.package == bundle.package), None)
        if stream is None:
            return None
    version = bundle.csv.spec.get("version") if bundle.csv is not None else None
    version = version.strip().removeprefix("v") if isinstance(version, str) else ""
    released = any(str(r.version) == version and r.status.is_published for r in stream.releases)
    return StreamPolicy(stream=stream.name, alpha_kinds=stream.api_maturity.alpha_apis, released=released)


def _refusal_line(root: str, refused: tuple[Finding, ...]) -> str:
    """One line; the refusal operator-sdk meets first: metadata, then the manifests folder, then the loader."""
    order = {
        bundle_ids.LOADER_METADATA_NOT_FOUND: 0,
        bundle_ids.LOADER_METADATA_UNPARSABLE: 0,
        bundle_ids.LOADER_NO_MANIFEST_FILES: 1,
    }
    first = min(refused, key=lambda f: order.get(f.rule, 2))
    more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
    wrapped = (  # api's loader wraps what it meets reading the CSV's folder
        first.rule not in order
        and not first.message.startswith("unable to find a csv")
        and "/metadata/" not in first.location.file
    )
    text = f"error loading objs in directory: {first.message}" if wrapped else first.message
    text = " ".join(text.split())  # a parser's message may span lines; the contract is one
    return f"{root}: not a loadable bundle, operator-sdk refuses it: {text}{more}"


def run(request: BundleValidateRequest) -> BundleValidateResult:
    """Validate ``request.path``; unreadable input raises :class:`~releasekit.errors.ReleasekitError`."""
    bundle = load_bundle(request.path)
    wanted = {"categories", "operatorhub"} & set(request.optional)
    categories = load_categories_file(request.categories_file) if request.categories_file and wanted else None
    # every error of the loader's rules (RK-BUNDLE-001 ... 006, 120 ... 124) refuses the bundle
    loaded = validate_bundle(bundle, ValidationOptions(validators=("loader",)))
    refused = tuple(f for f in loaded if f.severity is Severity.ERROR)
    if refused:
        rules = tuple(sorted({f.rule for f in refused}))
        report = Report(command="bundle validate", findings=refused, checked=(bundle.root,), rules=rules)
        return BundleValidateResult(report=report, refusal=_refusal_line(bundle.root, refused))
    options = ValidationOptions(
        validators=DEFAULT_VALIDATORS + request.optional,
        k8s_version=request.k8s_version,
        index_dockerfile=bundle.dockerfile,
        custom_categories=categories,
        release_checks=request.release_checks,
        openshift_catalogs=request.openshift_catalogs,
        stream=resolve_stream(bundle, request.streams_dir, request.stream),
    )
    findings = validate_bundle(bundle, options)
    checked = tuple(m.file for m in bundle.all_manifests)
    rules = tuple(sorted({*rules_run(options.validators), *(f.rule for f in findings)}))
    report = Report(command="bundle validate", findings=findings, checked=checked, rules=rules)
    return BundleValidateResult(report=report)
