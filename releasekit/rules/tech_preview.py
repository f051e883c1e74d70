"""Tech Preview blocks cluster upgrades: ``olm.maxOpenShiftVersion`` on each release that must carry it.

Pure core: takes the loaded streams and either the catalogs or one release's CSV annotations, and
returns findings that point at the line in ``streams/`` to change.

A stream that is not stable (:func:`releasekit.rules.policy.is_stable`) is *experimental* (Tech Preview): its
releases must block cluster upgrades past the newest OpenShift minor they are listed for
(:mod:`releasekit.model.tech_preview`), so the stream sets ``blockClusterUpgrades: true``.

Rule ids (stable, never renumbered), titles and severities: :data:`RULES` (the CSV's, RK-BUNDLE-110 …
112, are in :data:`releasekit.rules.bundle.RULES`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from releasekit.model import jsontext
from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Finding, Findings, Location, Severity, make_finding
from releasekit.model.ruledoc import RuleFacts
from releasekit.model.stream import Release, Stream
from releasekit.model.tech_preview import (
    ANNOTATION_OLM_PROPERTIES,
    PROP_MAX_OPENSHIFT,
    max_openshift_value,
    parse_max_openshift,
)
from releasekit.rules.policy import is_stable

__all__ = [
    "CATALOG_RULES",
    "CSV_RULES",
    "RULES",
    "STREAM_RULES",
    "check_catalog_blocking",
    "check_csv_blocking",
    "check_stream_blocking",
    "csv_max_openshift",
]

RULES: Final[dict[str, RuleFacts]] = {
    "RK-POLICY-010": RuleFacts("an experimental release's catalog entry has no `olm.maxOpenShiftVersion`"),
    "RK-POLICY-011": RuleFacts(
        "its value is below an OpenShift catalog the release is listed in (it could never be installed there "
        "without blocking the cluster), or is not `X.Y`"
    ),
    "RK-POLICY-012": RuleFacts(
        "a stable release's catalog entry carries `olm.maxOpenShiftVersion`", Severity.WARNING
    ),
    "RK-STREAM-053": RuleFacts(
        "an experimental stream with releases does not set `blockClusterUpgrades: true`"
    ),
}

CATALOG_RULES: Final = ("RK-POLICY-010", "RK-POLICY-011", "RK-POLICY-012")
CSV_RULES: Final = ("RK-BUNDLE-110", "RK-BUNDLE-111", "RK-BUNDLE-112")
STREAM_RULES: Final = ("RK-STREAM-053",)


def check_stream_blocking(streams: Iterable[Stream]) -> tuple[Finding, ...]:
    """RK-STREAM-053: an experimental (not stable) stream with releases that does not block upgrades."""
    return tuple(
        make_finding(
            "RK-STREAM-053",
            f"experimental (Tech Preview) stream {stream.name!r} does not block cluster upgrades: "
            f"its releases would carry no {PROP_MAX_OPENSHIFT}",
            stream.origin.at(""),
            "set blockClusterUpgrades: true (each release then blocks upgrades past its newest catalog)",
            (f"stream {stream.name!r}",),
        )
        for stream in streams
        if not is_stable(stream) and stream.releases and not stream.block_cluster_upgrades
    )


def _judge(
    stream: Stream,
    release: Release,
    values: Sequence[object],
    rules: Sequence[str],
    shown: str,
    where: tuple[Location, Location],
    subject: tuple[str, ...],
) -> Findings:
    """The findings for one release and the values found in ``shown`` (``where``: for 010/012, for 011)."""
    name = release.csv_name(stream.package)
    out = Findings()
    if is_stable(stream):
        if values:
            out.add(
                rules[2],
                f"stable release {name} carries {PROP_MAX_OPENSHIFT} {values[0]!r} in {shown}: a cluster "
                "with it installed cannot be upgraded past that OpenShift minor",
                where[0],
                "drop blockClusterUpgrades from the stable stream (only Tech Preview blocks upgrades)",
                subject,
                Severity.WARNING,
            )
        return out
    if not values:
        out.add(
            rules[0],
            f"experimental (Tech Preview) release {name} has no {PROP_MAX_OPENSHIFT} in {shown}: "
            "nothing stops a cluster running it from upgrading to an OpenShift it was never built for",
            where[0],
            f"set blockClusterUpgrades: true in stream {stream.name!r} (releasekit then writes "
            f"{PROP_MAX_OPENSHIFT} {max_openshift_value(release) if release.catalogs else 'X.Y'})",
            subject,
        )
    for value in values:
        parsed = parse_max_openshift(value)
        below = [
            str(c)
            for c in release.catalogs
            if parsed is not None and (c.major, c.minor) > (parsed.major, parsed.minor)
        ]
        if parsed is None or below:
            why = (
                "is not an OpenShift minor X.Y"
                if parsed is None
                else f"is below the catalogs the release is listed in ({', '.join(below)}): it could never be "
                "installed there without blocking the cluster"
            )
            out.add(
                rules[1],
                f"{PROP_MAX_OPENSHIFT} {value!r} of release {name} in {shown} {why}",
                where[1],
                f"use {max_openshift_value(release)}, the newest OpenShift minor among the release's catalogs",
                subject,
            )
    return out


def check_catalog_blocking(
    streams: Iterable[Stream], catalogs: Iterable[tuple[str, DeclarativeConfig]]
) -> tuple[Finding, ...]:
    """RK-POLICY-010…012: one finding per release (and value), over every catalog it is in."""
    by_package = {s.package: s for s in streams}
    seen: dict[tuple[str, str], list[object]] = {}
    where: dict[tuple[str, str], list[str]] = {}
    for openshift, config in catalogs:
        for bundle in config.bundles:
            if bundle.package not in by_package:
                continue
            key = (bundle.package, bundle.name)
            values = seen.setdefault(key, [])
            for prop in bundle.properties_of(PROP_MAX_OPENSHIFT):
                if prop.value not in values:
                    values.append(prop.value)
            where.setdefault(key, []).append(openshift)
    findings: list[Finding] = []
    for (package, name), values in sorted(seen.items()):
        stream = by_package[package]
        release = next((r for r in stream.releases if r.csv_name(package) == name), None)
        if release is None:
            continue
        shown = f"the {', '.join(where[(package, name)])} catalog entries"
        places = (stream.origin.at(""), release.origin.at(".catalogs"))
        subject = (f"stream {stream.name!r}", f'bundle "{name}"')
        findings += _judge(stream, release, values, CATALOG_RULES, shown, places, subject)
    return tuple(findings)


def csv_max_openshift(annotations: Mapping[str, object]) -> list[object]:
    """The ``olm.maxOpenShiftVersion`` values in a CSV's ``olm.properties`` annotation (none when absent)."""
    text = annotations.get(ANNOTATION_OLM_PROPERTIES)
    try:
        items = jsontext.loads(text) if isinstance(text, str) else []
    except ValueError:
        items = []
    items = items if isinstance(items, list) else []
    return [i.get("value") for i in items if isinstance(i, dict) and i.get("type") == PROP_MAX_OPENSHIFT]


def check_csv_blocking(
    stream: Stream, release: Release, annotations: Mapping[str, object], location: Location
) -> tuple[Finding, ...]:
    """RK-BUNDLE-110…112 for one release's CSV (``location``: its ``olm.properties`` or annotations)."""
    subject = (f'bundle "{release.csv_name(stream.package)}"',)
    values = csv_max_openshift(annotations)
    return tuple(_judge(stream, release, values, CSV_RULES, "its CSV", (location, location), subject))
