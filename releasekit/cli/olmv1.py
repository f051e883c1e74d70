"""``releasekit olmv1``: install a release with OLM v1 (ClusterExtension)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import (
    EXIT_ERRORS,
    format_option,
    output_option,
    streams_dir_option,
    templates_dir_option,
    write_output,
)

__all__ = ["manifests_command"]


@click.command(name="manifests")
@click.option("--version", "version", required=True, metavar="X.Y.Z", help="The operator release.")
@click.option(
    "--stream", "stream", default=None, metavar="S", help="Its stream [default: the one that has it]."
)
@click.option(
    "--namespace",
    "namespace",
    default=None,
    metavar="N",
    help="Install namespace [default: the CSV's suggested namespace, else the package].",
)
@click.option(
    "--channel",
    "channel",
    default=None,
    metavar="C",
    help="Follow this channel instead of pinning --version in the ClusterExtension.",
)
@click.option(
    "--bundle",
    "bundle",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The bundle folder [default: bundles/<stream>/<version>, as `bundle build` writes it; without "
    "one, the bundle is planned in memory from the release's recorded facts].",
)
@templates_dir_option
@streams_dir_option("The streams folder.", folder=False)
@click.option(
    "--allow-broad-rbac",
    "allow_broad_rbac",
    is_flag=True,
    default=False,
    help="Write the manifests although the bundle grants '*' on '*', escalate, bind, impersonate or every "
    "non-resource URL (the installer then holds it too: cluster-admin in effect).",
)
@format_option("yaml", "json", text=None)
@output_option
def manifests_command(output: Path | None, **options: Any) -> None:
    """Namespace, least-privilege installer ServiceAccount (ClusterRole, Role, bindings) and ClusterExtension.

    The installer's rules are derived from the bundle: its CRDs by name, each bundled kind, the controller's
    Deployment and ServiceAccount, Roles and ClusterRoles with their bindings, every rule of the CSV's
    permissions and clusterPermissions (so it can grant them), and clusterextensions/finalizers.
    A bundle granting '*' on '*', escalate, bind, impersonate or every non-resource URL is refused
    (exit 1) unless --allow-broad-rbac is given; so is an install into default, kube-* or openshift.
    """
    from releasekit.jobs.olmv1_manifests import ManifestsRequest, run_manifests
    from releasekit.model.report import Report
    from releasekit.report import get_reporter

    result = run_manifests(ManifestsRequest(**options))
    if result.findings:
        report = Report(command="olmv1 manifests", findings=result.findings)
        click.echo(get_reporter("text").render(report), err=True, nl=False)
    if result.text is None:
        click.echo("olmv1 manifests: nothing written: the bundle is refused (see the errors above)", err=True)
        click.get_current_context().exit(EXIT_ERRORS)
    write_output(result.text, output)
