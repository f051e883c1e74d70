"""``releasekit bundle validate DIR``: operator-sdk's bundle validation plus releasekit's own bundle rules."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import (
    Stopped,
    emit_report,
    format_options,
    streams_dir_option,
    write_konflux_error,
)
from releasekit.errors import ReleasekitError

__all__ = ["command", "parse_optional_checks"]


def parse_optional_checks(text: str | None, k8s_version: str | None) -> tuple[str, ...]:
    """Validate ``--optional-checks`` (comma separated); ``--k8s-version`` alone adds alpha-deprecated-apis."""
    from releasekit.jobs.bundle_validate import optional_checks

    known = optional_checks()
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    unknown = sorted({name for name in names if name not in known})
    if unknown:
        raise click.BadParameter(
            f"unknown check(s) {', '.join(repr(n) for n in unknown)}; choose from {', '.join(known)}",
            param_hint="'--optional-checks'",
        )
    if k8s_version and "alpha-deprecated-apis" not in names:
        names.append("alpha-deprecated-apis")
    return tuple(dict.fromkeys(names))


@click.command(name="validate")
@click.argument("bundle_dir", metavar="DIR", type=click.Path(path_type=Path))
@click.option(
    "--optional-checks",
    "optional_checks",
    default=None,
    metavar="NAMES",
    help="Comma-separated optional validators: alpha-deprecated-apis, capabilities, categories, community, "
    "good-practices, object, olmv1, operatorgroup, operatorhub, operatorhubv2.",
)
@click.option(
    "--k8s-version",
    "k8s_version",
    default=None,
    metavar="X.Y",
    help="Kubernetes version to judge removed APIs against (turns on alpha-deprecated-apis).",
)
@click.option(
    "--release-checks",
    is_flag=True,
    default=False,
    help="Judge the bundle as a released version: images pinned by digest, from allowed registries.",
)
@click.option(
    "--openshift-catalogs",
    "openshift_catalogs",
    default=None,
    metavar="VERSIONS",
    help="Comma-separated OpenShift catalogs the release appears in (v4.18,v4.19); "
    "warn when com.redhat.openshift.versions disagrees.",
)
@click.option(
    "--stream",
    "stream",
    default=None,
    metavar="S",
    help="Judge the bundle as a bundle of stream S (default: the stream whose package is the bundle's, if any).",
)
@streams_dir_option()
@format_options
def command(
    bundle_dir: Path,
    optional_checks: str | None,
    openshift_catalogs: str | None,
    fmt: str,
    output: Path | None,
    **options: Any,
) -> int:
    """Validate the registry+v1 bundle in DIR (a bundle root, or one manifest file)."""
    from releasekit.jobs.bundle_validate import BundleValidateRequest, run

    categories_file = os.environ.get("OPERATOR_BUNDLE_CATEGORIES")
    request = BundleValidateRequest(
        path=bundle_dir,
        optional=parse_optional_checks(optional_checks, options["k8s_version"]),
        openshift_catalogs=tuple(c.strip() for c in (openshift_catalogs or "").split(",") if c.strip()),
        categories_file=Path(categories_file) if categories_file else None,
        **options,
    )
    try:
        result = run(request)
    except ReleasekitError as exc:
        if fmt == "konflux":
            write_konflux_error(str(exc), output)
        raise Stopped(str(exc)) from None
    if result.refusal is None:
        return emit_report(result.report, fmt, output)
    if fmt == "json":
        emit_report(result.report, fmt, output)
    if fmt == "konflux":
        write_konflux_error(result.refusal, output)
    raise Stopped(result.refusal)
