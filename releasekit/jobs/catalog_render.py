"""``releasekit catalog render DIR...``: what ``opm render`` writes for FBC and bundle directories."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from releasekit.errors import InputError, ReleasekitError
from releasekit.io.bundle_source import BundleFiles, is_bundle_dir, read_bundle_dir
from releasekit.io.fbc_load import load_catalog
from releasekit.io.fbc_write import WriteError, render
from releasekit.model.fbc import Bundle, DeclarativeConfig
from releasekit.model.finding import Finding, Severity
from releasekit.plan.bundle_render import BundleRenderError, render_bundle_manifests
from releasekit.plan.migrate import MigrationError, migrate, prepare_for_render, stages_for_level

__all__ = ["refuse_load_errors", "render_bundle_files", "render_references"]


def refuse_load_errors(
    findings: Sequence[Finding], more: str = "more load errors", *, prefix: str = "", suffix: str = ""
) -> None:
    """Raise InputError naming the first error finding on one line, with how many ``more`` there are."""
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        more = f" (and {len(errors) - 1} {more})" if len(errors) > 1 else ""
        raise InputError(f"{prefix}{errors[0].location}: {errors[0].message}{more}{suffix}")


def render_bundle_files(files: BundleFiles, image: str) -> Bundle:
    """The ``olm.bundle`` opm renders from a bundle directory (the renderer the adapters are given)."""
    try:
        return render_bundle_manifests(
            files.objects,
            files.annotations,
            dependencies=files.dependencies,
            properties=files.properties,
            image=image,
        )
    except BundleRenderError as exc:
        raise InputError(f"{files.path}: cannot render bundle: {exc}") from None


def load_reference(ref: Path) -> DeclarativeConfig:
    """Load one render argument as opm does (bundle directory or FBC directory)."""
    if not ref.exists() and not ref.is_symlink():
        raise InputError(f'render reference "{ref}": no such file or directory')
    if not ref.is_dir():
        raise InputError(f'render reference "{ref}": ref "{ref}" is not a directory: not allowed')
    try:
        if is_bundle_dir(ref):
            return DeclarativeConfig(bundles=(render_bundle_files(read_bundle_dir(ref), ""),))
        result = load_catalog(ref)
    except ReleasekitError as exc:
        raise InputError(f'render reference "{ref}": {exc}') from None
    refuse_load_errors(result.findings, prefix=f'render reference "{ref}": ')
    return result.config


def render_references(refs: Sequence[Path], migrate_level: str | None, output_format: str) -> str:
    """The text ``opm render REFS -o FORMAT [--migrate-level LEVEL]`` prints."""
    try:
        stages_for_level(migrate_level)
    except MigrationError as exc:
        raise InputError(str(exc)) from None
    combined = DeclarativeConfig()
    for ref in refs:
        combined = combined.merged(migrate(prepare_for_render(load_reference(ref)), migrate_level))
    try:
        return render(combined, output_format)
    except WriteError as exc:
        raise InputError(str(exc)) from None
