"""``releasekit catalog adopt DIR``: import an existing catalog repository into catalog/ (once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import emit_report, format_options, streams_dir_option

__all__ = ["command"]


@click.command(name="adopt")
@click.argument("source", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--layout",
    type=click.Choice(["kueue-fbc", "releasekit"]),
    default="kueue-fbc",
    show_default=True,
    help="How DIR is laid out: kueue-fbc's v<X.Y>/catalog/<package>/catalog.json, or releasekit's own.",
)
@click.option(
    "--catalog-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to import [default: catalog, or what releasekit.yaml configures].",
)
@streams_dir_option()
@format_options
def command(fmt: str, output: Path | None, **options: Any) -> int:
    """Import the published package catalogs of DIR into catalog/, byte for byte.

    A one-time start from what is published: commit the result, then `releasekit build` carries every
    published bundle blob as it stands and plans only channels, edges and deprecations around it.
    What the streams do not know (packages, OpenShift versions, bundles) is reported as an error and
    then nothing is written.
    """
    from releasekit.jobs.catalog_adopt import AdoptRequest, adopt

    result = adopt(AdoptRequest(**options))
    return emit_report(result.report, fmt, output, result.unchanged)
