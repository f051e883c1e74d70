"""``releasekit streams``: show the streams, map Kueue <-> operator versions, validate them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import (
    EXIT_ERRORS,
    emit_report,
    format_option,
    format_options,
    output_option,
    streams_dir_option,
    write_output,
)
from releasekit.jobs.release_notes import kueue_text, markdown_text
from releasekit.model.inventory import Inventory
from releasekit.model.stream import OpenShiftVersion, Release, ReleaseStatus, Stream

__all__ = [
    "load_or_fail",
    "map_command",
    "map_json",
    "map_markdown",
    "map_text",
    "openshift_range",
    "release_rows",
    "show_command",
    "show_json",
    "show_text",
    "table",
    "validate_command",
]


def openshift_range(versions: Sequence[OpenShiftVersion], order: Sequence[OpenShiftVersion]) -> str:
    """``v4.18–v4.22, v5.0``: runs that are contiguous in the stream's ``order`` become ranges."""
    if not versions:
        return "-"
    index = {v: i for i, v in enumerate(order)}
    runs: list[list[OpenShiftVersion]] = []
    for version in versions:
        if runs and version in index and runs[-1][-1] in index and index[version] == index[runs[-1][-1]] + 1:
            runs[-1].append(version)
        else:
            runs.append([version])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def table(rows: Sequence[Sequence[str]]) -> list[str]:
    """``rows`` as columns aligned by two spaces, each line indented by two."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def release_rows(stream: Stream, *, newest_first: bool = False) -> list[Release]:
    """The stream's releases in semver order."""
    return sorted(stream.releases, key=lambda r: r.version, reverse=newest_first)


SHOW_SCHEMA = "releasekit/streams-show/v1"


def _gvk(gvk: Any) -> dict[str, str] | None:
    return None if gvk is None else {"group": gvk.group, "version": gvk.version, "kind": gvk.kind}


def _release_json(stream: Stream, release: Release) -> dict[str, Any]:
    up = release.upstream
    out: dict[str, Any] = {
        "version": str(release.version),
        "status": release.status.value,
        "channel": stream.channel_of(release),
        "upstream": {
            k: getattr(up, k)
            for k in ("line", "describe", "tag", "commit", "inventory")
            if getattr(up, k) is not None
        },
        "catalogs": [str(v) for v in release.catalogs],
        "bundle": release.bundle_image,
        "images": dict(release.images.items()),
        "ownedApi": _gvk(release.owned_api),
        "createdAt": release.created_at,
        "openshiftVersionsLabel": release.openshift_versions_label,
        "gateSettings": {s.gate: s.enabled for s in stream.effective_gate_settings(release)},
        "optInGates": [
            {"gate": g.gate, "configField": g.config_field} for g in stream.release_opt_in_gates(release)
        ],
        "recorded": release.recorded is not None,
    }
    if release.deprecation_message:
        out["deprecationMessage"] = release.deprecation_message
    return out


def show_json(streams: tuple[Stream, ...]) -> str:
    """Every stream as JSON (``releasekit/streams-show/v1``)."""
    doc = {
        "schema": SHOW_SCHEMA,
        "streams": [
            {
                "name": s.name,
                "package": s.package,
                "description": s.description,
                "channels": {
                    "pattern": s.channels.pattern,
                    "default": s.channels.default,
                    "defaultChannel": s.default_channel,
                    "names": list(s.channel_names),
                },
                "openshift": [str(v) for v in s.openshift],
                "crdPlacement": s.crd_placement.value,
                "ownedApi": _gvk(s.owned_api),
                "alphaApis": list(s.api_maturity.alpha_apis),
                "featureGates": {
                    "allowedStages": [st.value for st in s.feature_gates.allowed_stages],
                    "settings": {g.gate: g.enabled for g in s.feature_gates.settings},
                },
                "upgrades": {"crossMinor": s.upgrades.cross_minor.value, "skipRange": s.upgrades.skip_range},
                "registries": {
                    "released": list(s.released_registries),
                    "development": list(s.development_registries),
                },
                "releases": [_release_json(s, r) for r in release_rows(s)],
            }
            for s in streams
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def show_text(streams: tuple[Stream, ...]) -> str:
    """Every stream, its policies and a release table, for people."""
    out: list[str] = []
    for stream in streams:
        gates = ", ".join(f"{s.gate}={'on' if s.enabled else 'off'}" for s in stream.feature_gates.settings)
        out += [
            f"stream {stream.name}: package {stream.package}",
            f"  {stream.description}" if stream.description else "",
            f"  channels:     {stream.channels.pattern} (default: {stream.default_channel or '-'})",
            f"  OpenShift:    {openshift_range(stream.openshift, stream.openshift)}",
            f"  operand CRDs: {stream.crd_placement.value}; alpha APIs: "
            f"{', '.join(stream.api_maturity.alpha_apis) or 'none'}",
            f"  owned API:    {stream.owned_api}",
            f"  gates:        may switch on {', '.join(s.value for s in stream.feature_gates.allowed_stages)}"
            + (f"; set {gates}" if gates else ""),
            f"  upgrades:     within a minor the newest skips the rest; across minors: "
            f"{stream.upgrades.cross_minor.value}"
            + (f"; skipRange {stream.upgrades.skip_range}" if stream.upgrades.skip_range else ""),
            f"  registries:   {', '.join(stream.released_registries)}"
            + (
                f" (candidates also {', '.join(stream.development_registries)})"
                if stream.development_registries
                else ""
            ),
        ]
        out = [line for line in out if line]
        rows = [
            (str(r.version), r.status.value, stream.channel_of(r), kueue_text(r), r.upstream.inventory)
            + (openshift_range(r.catalogs, stream.openshift),)
            for r in release_rows(stream)
        ]
        out += [*table([("VERSION", "STATUS", "CHANNEL", "KUEUE", "INVENTORY", "OPENSHIFT"), *rows]), ""]
    return "\n".join(out)


def load_or_fail(
    streams_dir: Path, command: str = "streams"
) -> tuple[tuple[Stream, ...], Mapping[str, Inventory]]:
    """The streams and inventories; on error findings print them to stderr and exit 1 (unreadable: exit 2)."""
    from releasekit.jobs.streams_validate import read_streams
    from releasekit.report.text import TextReporter

    loaded, report = read_streams(streams_dir, display_root=str(streams_dir))
    if report is not None:
        click.echo(TextReporter().render(replace(report, command=command)), err=True, nl=False)
        raise click.exceptions.Exit(EXIT_ERRORS)
    return loaded.streams, loaded.inventories


@click.command(name="show")
@streams_dir_option()
@format_option("text", "json")
def show_command(streams_dir: Path, fmt: str) -> None:
    """Show the streams: policies, releases, statuses and OpenShift ranges."""
    streams, _ = load_or_fail(streams_dir)
    write_output(show_json(streams) if fmt == "json" else show_text(streams), None)


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


def map_text(streams: tuple[Stream, ...]) -> str:
    """One aligned table per stream, newest release first."""
    out: list[str] = []
    for stream in streams:
        out.append(f"{stream.name} ({stream.package})")
        out += [*table([("OPERATOR", "CHANNEL", "KUEUE", "OPENSHIFT", "STATUS"), *_rows(stream)]), ""]
    return "\n".join(out)


def map_markdown(streams: tuple[Stream, ...], *, released_only: bool = False) -> str:
    """The support matrix people paste into release notes (``released_only``: released versions only)."""
    md = markdown_text  # every cell escaped: | and newlines too
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


def map_json(streams: tuple[Stream, ...]) -> str:
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


_RENDER = {"text": map_text, "json": map_json, "markdown": map_markdown}


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
def map_command(streams_dir: Path, fmt: str, output: Path | None, released_only: bool) -> None:
    """Show the Kueue <-> operator version table of every stream."""
    streams, _ = load_or_fail(streams_dir)
    if released_only and fmt != "markdown":
        raise click.UsageError("--released-only goes with --format markdown")
    text = map_markdown(streams, released_only=True) if released_only else _RENDER[fmt](streams)
    write_output(text, output)


@click.command(name="validate")
@streams_dir_option()
@format_options
def validate_command(streams_dir: Path, fmt: str, output: Path | None) -> int:
    """Check streams/: schemas, versions, images, OpenShift versions, inventories and gate policies."""
    from releasekit.jobs.streams_validate import validate_streams

    _, report = validate_streams(streams_dir, display_root=str(streams_dir))
    return emit_report(report, fmt, output)
