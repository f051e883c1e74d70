"""``releasekit bundle``: generate registry+v1 bundles (``build``), validate one as operator-sdk does."""

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
    templates_dir_option,
)
from releasekit.errors import ReleasekitError

__all__ = ["build_command", "parse_optional_checks", "validate_command"]


@click.command(name="build")
@click.option("--stream", "stream", default=None, metavar="S", help="Only releases of this stream.")
@click.option("--version", "version", default=None, metavar="V", help="Only this release.")
@click.option("--all", "every", is_flag=True, default=False, help="Every release of the chosen streams.")
@click.option(
    "--upstream",
    "upstream",
    default=None,
    metavar="PATH_OR_URL",
    help="The Kueue repository: a local clone or a URL (cloned once into the cache), read only for streams "
    "that bundle Kueue's CRDs (crdPlacement: bundle). Default: the public Kueue repository.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("bundles"),
    show_default=True,
    help="Output folder; each bundle goes to OUT/<stream>/<version>/.",
)
@click.option(
    "--check", is_flag=True, default=False, help="Compare with OUT instead of writing; drift exits 1."
)
@click.option(
    "--allow-unpinned",
    is_flag=True,
    default=False,
    help="Build from a transcribed inventory (no CRD hashes to check); the manifest records pinned: false.",
)
@streams_dir_option()
@templates_dir_option
@format_options
def build_command(
    streams_dir: Path,
    templates_dir: Path,
    out: Path,
    upstream: str | None,
    fmt: str,
    output: Path | None,
    **options: Any,
) -> int:
    """Generate registry+v1 bundles (default: the candidate releases) and validate them."""
    from releasekit.jobs.bundle_build import DEFAULT_UPSTREAM, build_bundles
    from releasekit.model.report import Report

    try:
        build = build_bundles(
            streams_dir,
            templates_dir,
            out,
            upstream=upstream or DEFAULT_UPSTREAM,
            progress=lambda line: click.echo(line, err=True),
            **options,
        )
    except ReleasekitError as exc:
        raise Stopped(str(exc)) from None
    if not build.bundles:
        click.echo("no release selected (no candidate releases; use --version V or --all)", err=True)
    report = Report(
        command="bundle build --check" if options["check"] else "bundle build",
        findings=build.findings,
        checked=build.checked,
    )
    return emit_report(report, fmt, output)


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
def validate_command(
    bundle_dir: Path,
    optional_checks: str | None,
    openshift_catalogs: str | None,
    fmt: str,
    output: Path | None,
    **options: Any,
) -> int:
    """Validate the registry+v1 bundle root DIR (manifests/, metadata/, bundle.Dockerfile)."""
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
        raise Stopped(str(exc)) from None
    if result.refusal is None:
        return emit_report(result.report, fmt, output)
    if fmt == "json":
        emit_report(result.report, fmt, output)
    raise Stopped(result.refusal)
