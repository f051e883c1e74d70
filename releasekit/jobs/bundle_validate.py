"""``releasekit bundle validate DIR``: operator-sdk's bundle validation plus releasekit's own bundle rules.

Job: loads the bundle with :mod:`releasekit.io.bundle_load`, judges it with
:func:`releasekit.rules.bundle.validate_bundle` under the options the command line gave, and returns
the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from releasekit.model.report import Report

__all__ = ["optional_checks", "validate_bundle_dir"]


def optional_checks() -> tuple[str, ...]:
    """The names ``--optional-checks`` accepts."""
    from releasekit.rules.bundle import OPTIONAL_CHECKS

    return tuple(OPTIONAL_CHECKS)


def validate_bundle_dir(
    bundle_dir: Path,
    *,
    optional: Sequence[str] = (),
    k8s_version: str | None = None,
    release_checks: bool = False,
    openshift_catalogs: Sequence[str] = (),
    categories_file: Path | None = None,
) -> Report:
    """Load the registry+v1 bundle in ``bundle_dir`` and run the default and ``optional`` validators.

    ``categories_file`` (``OPERATOR_BUNDLE_CATEGORIES``) is read only when a categories check runs.

    Raises:
        ReleasekitError: the bundle or the categories file cannot be read.
    """
    from releasekit.io.bundle_load import load_bundle, load_categories_file
    from releasekit.model.bundle import ValidationOptions
    from releasekit.rules.bundle import DEFAULT_VALIDATORS, validate_bundle

    bundle = load_bundle(bundle_dir)
    categories = None
    if categories_file is not None and ("categories" in optional or "operatorhub" in optional):
        categories = load_categories_file(categories_file)
    options = ValidationOptions(
        validators=DEFAULT_VALIDATORS + tuple(optional),
        k8s_version=k8s_version,
        index_dockerfile=bundle.dockerfile,
        custom_categories=categories,
        release_checks=release_checks,
        openshift_catalogs=tuple(openshift_catalogs),
    )
    findings = validate_bundle(bundle, options)
    return Report(
        command="bundle validate",
        findings=findings,
        checked=tuple(m.file for m in bundle.all_manifests),
        rules=tuple(sorted({f.rule for f in findings})),
    )
