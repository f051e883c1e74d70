"""``releasekit streams map``: the Kueue <-> operator version table per stream (Markdown: the support matrix)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from releasekit.cli._common import format_option, output_option, streams_dir_option, write_output
from releasekit.cli.streams_common import kueue_text, openshift_range, release_rows, table
from releasekit.cli.streams_show import load_or_fail
from releasekit.model.stream import ReleaseStatus, Stream

__all__ = ["command", "render_json", "render_markdown", "render_text"]

MAP_SCHEMA = "releasekit/streams-map/v1"


def _rows(stream: Stream, *, released_only: bool = False) -> list[tuple[str, str, str, str, str]]:
    return [
        (
            str(r.version),
            stream.channel_of(r),
            kueue_text(r),
            openshift_range(r.catalogs, stream.openshift),
            r.status.value,
        )
        for r in release_rows(stream, newest_first=True)
        if not released_only or r.status is ReleaseStatus.RELEASED
    ]


def render_text(streams: tuple[Stream, ...]) -> str:
    """One aligned table per stream, newest release first."""
    out: list[str] = []
    for stream in streams:
        out.append(f"{stream.name} ({stream.package})")
        out += [*table([("OPERATOR", "CHANNEL", "KUEUE", "OPENSHIFT", "STATUS"), *_rows(stream)]), ""]
    return "\n".join(out)


def render_markdown(streams: tuple[Stream, ...], *, released_only: bool = False) -> str:
    """The support matrix people paste into release notes (``released_only``: released versions only)."""
    from releasekit.jobs.release_notes import markdown_text as md  # every cell escaped: | and newlines too

    out: list[str] = []
    for stream in sorted(
        streams, key=lambda s: (s.name != "stable", s.name)
    ):  # stable first: most look for it
        out += [
            f"### {md(stream.package)} ({md(stream.name)})",
            "",
            "| Operator | Channel | Kueue | OpenShift | Status |",
            "|---|---|---|---|---|",
        ]
        out += [f"| {' | '.join(md(c) for c in row)} |" for row in _rows(stream, released_only=released_only)]
        out.append("")
    return "\n".join(out)


def render_json(streams: tuple[Stream, ...]) -> str:
    """The table as JSON (``releasekit/streams-map/v1``)."""
    doc = {
        "schema": MAP_SCHEMA,
        "streams": [
            {
                "name": s.name,
                "package": s.package,
                "releases": [
                    {
                        "operator": str(r.version),
                        "channel": s.channel_of(r),
                        "kueueLine": r.upstream.line,
                        "kueuePin": r.upstream.describe or r.upstream.tag,
                        "inventory": r.upstream.inventory,
                        "openshift": [str(v) for v in r.catalogs],
                        "status": r.status.value,
                    }
                    for r in release_rows(s, newest_first=True)
                ],
            }
            for s in streams
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


_RENDER = {"text": render_text, "json": render_json, "markdown": render_markdown}


@click.command(name="map")
@streams_dir_option()
@format_option(
    *sorted(_RENDER), default="text", text="Output format (markdown: the support matrix for release notes)."
)
@output_option
@click.option(
    "--released-only",
    is_flag=True,
    help="Markdown: list released versions only (no candidates, deprecated or withdrawn ones).",
)
def command(streams_dir: Path, fmt: str, output: Path | None, released_only: bool) -> None:
    """Show the Kueue <-> operator version table of every stream."""
    streams, _ = load_or_fail(streams_dir)
    if released_only and fmt != "markdown":
        raise click.UsageError("--released-only goes with --format markdown")
    text = render_markdown(streams, released_only=True) if released_only else _RENDER[fmt](streams)
    write_output(text, output)
