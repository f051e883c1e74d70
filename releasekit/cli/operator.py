"""``releasekit operator import``: record one release's operator facts from the operator repository."""

from __future__ import annotations

from pathlib import Path

import click

from releasekit.cli._common import streams_dir_option

__all__ = ["import_command"]


@click.command(name="import")
@click.option(
    "--repo",
    "repo",
    required=True,
    help="A local kueue-operator clone, or a file://, https://, ssh:// or git@host:path URL (cloned once into the cache).",
)
@click.option("--ref", "ref", required=True, help="The tag or commit of the release.")
@click.option("--version", "version", required=True, help="The operator release the ref is (X.Y.Z).")
@streams_dir_option(
    "Write streams/operator/<version>.yaml under this folder.", folder=False
)  # checked by the job
@click.option(
    "--as-version",
    "as_version",
    is_flag=True,
    help="Record the CSV at REF as --version although its spec.version is another (recorded as csvVersion; "
    "the bundle re-aims it at the release).",
)
def import_command(repo: str, ref: str, version: str, streams_dir: Path, as_version: bool) -> None:
    """Read the bundle sources at REF (no work tree) and write the release's operator record."""
    from releasekit.jobs.operator_import import import_operator

    done = import_operator(repo, ref, version, streams_dir, as_version=as_version)
    click.echo(
        f"wrote {done.path}: operator {version} at {ref} ({done.commit[:12]}), {done.manifests} manifests, "
        f"{done.substituted} images substituted from related_images.json"
    )
