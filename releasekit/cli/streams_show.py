"""``releasekit streams show``: the streams, their policies, releases, statuses and OpenShift ranges."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from releasekit.cli._common import EXIT_ERRORS, format_option, streams_dir_option, write_output
from releasekit.cli.streams_common import kueue_text, openshift_range, release_rows, table
from releasekit.model.inventory import Inventory
from releasekit.model.stream import Release, Stream

__all__ = ["command", "load_or_fail", "render_json", "render_text"]

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
            k: v
            for k, v in (
                ("line", up.line),
                ("describe", up.describe),
                ("tag", up.tag),
                ("commit", up.commit),
                ("inventory", up.inventory),
            )
            if v is not None
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


def render_json(streams: tuple[Stream, ...]) -> str:
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


def render_text(streams: tuple[Stream, ...]) -> str:
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
def command(streams_dir: Path, fmt: str) -> None:
    """Show the streams: policies, releases, statuses and OpenShift ranges."""
    streams, _ = load_or_fail(streams_dir)
    write_output(render_json(streams) if fmt == "json" else render_text(streams), None)
