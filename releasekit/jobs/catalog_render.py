"""``releasekit catalog render DIR...``: what ``opm render`` writes for FBC and bundle directories."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from releasekit.errors import InputError, ReleasekitError
from releasekit.io.bundle_source import BundleFiles
from releasekit.model.fbc import Bundle, DeclarativeConfig
from releasekit.model.finding import Severity

__all__ = ["load_reference", "render_bundle_files", "render_references"]


def render_bundle_files(files: BundleFiles, image: str) -> Bundle:
    """The ``olm.bundle`` opm renders from a bundle directory (the renderer the adapters are given)."""
    from releasekit.plan.bundle_render import BundleRenderError, render_bundle_manifests

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
    from releasekit.io.bundle_source import is_bundle_dir, read_bundle_dir
    from releasekit.io.fbc_load import load_catalog

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
    errors = [f for f in result.findings if f.severity == Severity.ERROR]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more load errors)" if len(errors) > 1 else ""
        raise InputError(f'render reference "{ref}": {first.location}: {first.message}{more}')
    return result.config


def render_references(refs: Sequence[Path], migrate_level: str | None, output_format: str) -> str:
    """The text ``opm render REFS -o FORMAT [--migrate-level LEVEL]`` prints."""
    from releasekit.io.fbc_write import WriteError, render
    from releasekit.plan.migrate import MigrationError, migrate, prepare_for_render, stages_for_level

    try:
        stages_for_level(migrate_level)
    except MigrationError as exc:
        raise InputError(str(exc)) from None
    combined = DeclarativeConfig()
    for ref in refs:
        config = migrate(prepare_for_render(load_reference(ref)), migrate_level)
        combined = combined.merged(config)
    try:
        return render(combined, output_format)
    except WriteError as exc:
        raise InputError(str(exc)) from None
