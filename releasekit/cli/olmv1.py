"""``releasekit olmv1``: install a release with OLM v1 (ClusterExtension).

Thin click layer over :mod:`releasekit.jobs.olmv1_manifests`. Exit codes: 0 written; 2 streams or a
bundle that cannot be read, an unknown stream or release, or bad usage (one line, never a traceback).
"""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["group"]


@click.group(name="olmv1")
def group() -> None:
    """Install releases with OLM v1 (ClusterExtension) instead of a Subscription."""


@group.command(name="manifests")
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
    help="The bundle folder [default: bundles/<stream>/<version>, as `bundle build` writes it].",
)
@click.option(
    "--streams-dir",
    "streams_dir",
    type=click.Path(path_type=Path),
    default=Path("streams"),
    show_default=True,
    help="The streams folder.",
)
@click.option("--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True)
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write to this file instead of standard output.",
)
def manifests(
    version: str,
    stream: str | None,
    namespace: str | None,
    channel: str | None,
    bundle: Path | None,
    streams_dir: Path,
    fmt: str,
    output: Path | None,
) -> None:
    """Namespace, least-privilege installer ServiceAccount (ClusterRole, Role, bindings) and ClusterExtension.

    The installer's rules are derived from the bundle: its CRDs by name, each bundled kind, the controller's
    Deployment and ServiceAccount, Roles and ClusterRoles with their bindings, every rule of the CSV's
    permissions and clusterPermissions (so it can grant them), and clusterextensions/finalizers.
    """
    from releasekit.cli._common import write_output
    from releasekit.jobs.olmv1_manifests import ManifestsRequest, run_manifests

    request = ManifestsRequest(
        version=version,
        stream=stream,
        namespace=namespace,
        channel=channel,
        bundle=bundle,
        streams_dir=streams_dir,
        fmt=fmt,
    )
    write_output(run_manifests(request), output)
