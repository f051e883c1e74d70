"""``releasekit release notes VERSION``: one release's notes from the loaded streams (Kueue, APIs, gates, images).

Every value the Markdown embeds is escaped (:func:`markdown_text`, :func:`markdown_code`).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import semver

from releasekit.errors import UsageError
from releasekit.model.inventory import Crd, FeatureGate, Inventory, Maturity
from releasekit.model.stream import ConditionalGate, GateSetting, Release, ReleaseStatus, Stream
from releasekit.model.version import RangeError, VersionError, parse_range, parse_version
from releasekit.plan.channels import csv_edges

__all__ = [
    "build_notes",
    "inventory_for",
    "kueue_text",
    "markdown_code",
    "markdown_text",
    "render_json",
    "render_markdown",
    "visible",
]

NOTES_SCHEMA = "releasekit/release-notes/v1"


def inventory_for(release: Release, inventories: Mapping[str, Inventory]) -> Inventory | None:
    """The Kueue inventory ``release`` ships (the one place that knows how releases name inventories)."""
    return inventories.get(release.upstream.inventory)


@dataclass(frozen=True, slots=True, kw_only=True)
class ApiChanges:
    """CRD changes between two Kueue inventories (names sorted)."""

    crds_added: tuple[str, ...] = ()
    crds_removed: tuple[str, ...] = ()
    versions_added: tuple[str, ...] = ()  # ``<crd> <version>``
    versions_removed: tuple[str, ...] = ()
    storage_changes: tuple[str, ...] = ()  # ``<crd>: v1beta1 → v1beta2``
    alpha_kept_out: tuple[str, ...] = ()  # ``<crd> <version>`` (stable: never shipped)
    alpha_shipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class GateChanges:
    """Feature-gate changes between two Kueue inventories (pairs: before, now), and operator settings."""

    added: tuple[FeatureGate, ...] = ()
    removed: tuple[FeatureGate, ...] = ()
    promoted: tuple[tuple[FeatureGate, FeatureGate], ...] = ()
    flipped: tuple[tuple[FeatureGate, FeatureGate], ...] = ()
    settings: tuple[GateSetting, ...] = ()
    opt_in: tuple[ConditionalGate, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ReleaseNotes:
    """Everything the notes say about one release."""

    stream: str
    package: str
    version: str
    status: str
    channel: str
    kueue: str
    previous_version: str | None
    previous_kueue: str | None
    apis: ApiChanges
    gates: GateChanges
    images: tuple[tuple[str, str], ...]
    catalogs: tuple[str, ...]
    upgrades_from: tuple[str, ...]
    deprecations: tuple[str, ...]
    missing: tuple[str, ...] = field(default=())  # inventories the notes could not read


def kueue_text(release: Release) -> str:
    """``0.18 (v0.18.4-40-ge4ce3bcc)``: the Kueue line and, where known, the pin."""
    pin = release.upstream.describe or release.upstream.tag or release.upstream.commit
    return f"{release.upstream.line} ({pin})" if pin else release.upstream.line


def _on(value: bool) -> str:
    return "on" if value else "off"


def _api_changes(stream: Stream, old: Inventory | None, new: Inventory | None) -> ApiChanges:
    if new is None:
        return ApiChanges()
    before: dict[str, Crd] = {c.name: c for c in old.crds} if old is not None else {}
    after: dict[str, Crd] = {c.name: c for c in new.crds}
    common = sorted(set(before) & set(after))
    names = {n: ({v.name for v in before[n].versions}, {v.name for v in after[n].versions}) for n in common}
    versions_added = [f"{n} {v}" for n, (b, a) in names.items() for v in sorted(a - b)]
    versions_removed = [f"{n} {v}" for n, (b, a) in names.items() for v in sorted(b - a)]
    moved = [n for n in common if before[n].storage_version != after[n].storage_version]
    storage = [f"{n}: {before[n].storage_version} → {after[n].storage_version}" for n in moved]
    alpha = [(crd, v.name) for crd in new.crds for v in crd.versions if v.maturity is Maturity.ALPHA]
    shipped = [f"{crd.name} {v}" for crd, v in alpha if stream.api_maturity.allows(crd)]
    kept_out = [f"{crd.name} {v}" for crd, v in alpha if not stream.api_maturity.allows(crd)]
    return ApiChanges(
        crds_added=tuple(sorted(set(after) - set(before))) if old is not None else (),
        crds_removed=tuple(sorted(set(before) - set(after))),
        versions_added=tuple(versions_added),
        versions_removed=tuple(versions_removed),
        storage_changes=tuple(storage),
        alpha_kept_out=tuple(kept_out),
        alpha_shipped=tuple(shipped),
    )


def _gate_text(gate: FeatureGate) -> str:
    return f"{gate.name} ({gate.stage.value}, {_on(gate.default)} by default)"


def _gate_changes(
    stream: Stream, release: Release, old: Inventory | None, new: Inventory | None
) -> GateChanges:
    settings = stream.effective_gate_settings(release)  # in force: a patch release keeps its minor's
    opt_in = stream.release_opt_in_gates(release)
    if new is None or old is None:
        return GateChanges(settings=settings, opt_in=opt_in)
    before = {g.name: g for g in old.gates}
    after = {g.name: g for g in new.gates}
    common = sorted(set(before) & set(after))
    return GateChanges(
        added=tuple(after[n] for n in sorted(set(after) - set(before))),
        removed=tuple(before[n] for n in sorted(set(before) - set(after))),
        promoted=tuple((before[n], after[n]) for n in common if before[n].stage != after[n].stage),
        flipped=tuple((before[n], after[n]) for n in common if before[n].default != after[n].default),
        settings=settings,
        opt_in=opt_in,
    )


def gate_lines(gates: GateChanges) -> tuple[list[str], list[str]]:
    """The gate changes and the operator's settings as list lines."""
    changes = (
        [f"added: {_gate_text(g)}" for g in gates.added]
        + [f"removed: {_gate_text(g)}" for g in gates.removed]
        + [f"promoted: {b.name}: {b.stage.value} → {a.stage.value}" for b, a in gates.promoted]
        + [
            f"default flipped: {b.name}: {_on(b.default)} → {_on(a.default)} by default"
            for b, a in gates.flipped
        ]
    )
    settings = [
        f"{s.gate}: {_on(s.enabled)}" + (f" ({s.reason})" if s.reason else "") for s in gates.settings
    ]
    settings += [f"opt-in: {g.gate} when {g.config_field} is used ({g.reason})" for g in gates.opt_in]
    return changes, settings


def _gate_json(g: FeatureGate) -> dict[str, Any]:
    return {"name": g.name, "stage": g.stage.value, "default": g.default, "lockToDefault": g.lock_to_default}


def _upgrades_from(stream: Stream, release: Release) -> tuple[str, ...]:
    """The published versions whose users can upgrade straight into ``release`` (as of its release)."""
    entry = csv_edges(stream, release)
    names = {entry.replaces, *entry.skips} - {""}
    window = None
    with contextlib.suppress(RangeError):
        window = parse_range(entry.skip_range) if entry.skip_range else None
    out = []
    for other in sorted(stream.releases, key=lambda r: r.version):
        if other.version >= release.version or not other.status.is_published:
            continue
        try:
            in_window = window is not None and window.contains(parse_version(str(other.version)))
        except VersionError:  # a number past uint64: in no range opm reads
            in_window = False
        if other.csv_name(stream.package) in names or in_window:
            out.append(str(other.version))
    return tuple(out)


def _deprecations(stream: Stream, release: Release, new: Inventory | None) -> tuple[str, ...]:
    out: list[str] = []
    if release.deprecation_message:
        out.append(f"{release.version} ({release.status.value}): {release.deprecation_message}")
    for other in sorted(stream.releases, key=lambda r: r.version):
        if other is release or other.version > release.version:
            continue
        if other.status in (ReleaseStatus.DEPRECATED, ReleaseStatus.WITHDRAWN):
            out.append(
                f"{other.version} ({other.status.value}): {other.deprecation_message or ''}".rstrip(": ")
            )
    if new is not None:
        out += [f"Kueue gate {g.name} is Deprecated" for g in new.gates if g.stage.value == "Deprecated"]
    return tuple(out)


def _find(streams: Sequence[Stream], version: str, stream_name: str | None) -> tuple[Stream, Release]:
    try:
        wanted = semver.Version.parse(version.removeprefix("v"))
    except ValueError:
        raise UsageError(f"VERSION {version!r} is not a semantic version (e.g. 1.4.0)") from None
    candidates = [s for s in streams if stream_name is None or s.name == stream_name]
    if stream_name is not None and not candidates:
        names = ", ".join(repr(s.name) for s in streams) or "none"
        raise UsageError(f"--stream {stream_name!r}: no such stream (streams: {names})")
    found = [(s, r) for s in candidates for r in s.releases if r.version == wanted]
    if not found:
        where = f"stream {stream_name!r}" if stream_name else "any stream"
        raise UsageError(f"release {wanted} is not in {where}; `releasekit streams map` lists the releases")
    if len(found) > 1:
        raise UsageError(f"release {wanted} is in several streams; pass --stream")
    return found[0]


def build_notes(
    streams: Sequence[Stream],
    inventories: Mapping[str, Inventory],
    version: str,
    stream_name: str | None = None,
) -> ReleaseNotes:
    """The notes of ``version`` (pure); UsageError for a version not found in exactly one stream."""
    stream, release = _find(streams, version, stream_name)
    earlier = [r for r in stream.releases if r.version < release.version and r.status.is_published]
    previous = max(earlier, key=lambda r: r.version) if earlier else None
    new_inv = inventory_for(release, inventories)
    old_inv = inventory_for(previous, inventories) if previous is not None else None
    pairs = ((release, new_inv), (previous, old_inv))
    missing = tuple(sorted({r.upstream.inventory for r, inv in pairs if r is not None and inv is None}))
    return ReleaseNotes(
        stream=stream.name,
        package=stream.package,
        version=str(release.version),
        status=release.status.value,
        channel=stream.channel_of(release),
        kueue=kueue_text(release),
        previous_version=str(previous.version) if previous is not None else None,
        previous_kueue=kueue_text(previous) if previous is not None else None,
        apis=_api_changes(stream, old_inv, new_inv),
        gates=_gate_changes(stream, release, old_inv, new_inv),
        images=(("bundle", release.bundle_image), *release.images.items()),
        catalogs=tuple(str(c) for c in release.catalogs),
        upgrades_from=_upgrades_from(stream, release),
        deprecations=_deprecations(stream, release, new_inv),
        missing=missing,
    )


_MARKDOWN_ESCAPES = {c: "\\" + c for c in "\\`*_[]|~#"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_MARKDOWN_SPECIAL = re.compile("[" + re.escape("".join(_MARKDOWN_ESCAPES)) + "]")
_BACKTICKS = re.compile("`+")
_ORDERED_MARKER = re.compile(r"[0-9]{1,9}(?=[.)]( |$))")


def visible(text: str) -> str:
    """``text`` on one line: every character ``str.isprintable`` refuses is written as its Python escape."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def markdown_text(text: str) -> str:
    """``text`` as Markdown inline text that renders as itself: no emphasis, link, code, HTML or autolink."""
    return _MARKDOWN_SPECIAL.sub(lambda m: _MARKDOWN_ESCAPES[m.group()], visible(text))


def markdown_code(text: str) -> str:
    """``text`` as one Markdown code span (fenced by one backtick more than the longest run inside)."""
    shown = visible(text)
    if not shown:
        return "` `"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(shown)), default=0) + 1)
    pad = " " if shown.strip(" ") and (shown[0] in "` " or shown[-1] in "` ") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def _item(line: str) -> str:
    """A list item's (escaped) text that cannot open a block of its own (``- -``, ``- 1. x``, ``- +``)."""
    if line[:1] in ("-", "+", "="):
        return "\\" + line
    if line[:1] == " ":  # four would make indented code
        return "&#32;" + line[1:]
    marker = _ORDERED_MARKER.match(line)
    return f"{line[: marker.end()]}\\{line[marker.end() :]}" if marker else line


def _section(title: str, items: Sequence[str], empty: str, *, escaped: bool = False) -> list[str]:
    """A list section; ``items`` are escaped here unless ``escaped`` says they already are."""
    out = [f"### {title}", ""]
    out += [f"- {_item(item if escaped else markdown_text(item))}" for item in items] if items else [empty]
    return [*out, ""]


def render_markdown(notes: ReleaseNotes) -> str:
    """The notes as Markdown (a release page or a pull-request description); every value escaped."""
    a, g = notes.apis, notes.gates
    md = markdown_text
    out = [
        f"## {md(notes.package)} {md(notes.version)}",
        "",
        f"Stream **{md(notes.stream)}**, channel {markdown_code(notes.channel)}, status {md(notes.status)}.",
        "",
        "### Kueue",
        "",
        f"- this release: Kueue {md(notes.kueue)}",
        f"- previous release ({md(notes.previous_version)}): Kueue {md(notes.previous_kueue or '')}"
        if notes.previous_version
        else "- previous release: none (the first of its stream)",
        "",
    ]
    if notes.missing:
        out += [
            f"_No recorded inventory for {', '.join(md(m) for m in notes.missing)}: "
            "API and gate changes are incomplete._",
            "",
        ]
    api_lines = (
        [f"CRD added: {n}" for n in a.crds_added]
        + [f"CRD removed: {n}" for n in a.crds_removed]
        + [f"version added: {n}" for n in a.versions_added]
        + [f"version removed: {n}" for n in a.versions_removed]
        + [f"storage version: {n}" for n in a.storage_changes]
    )
    out += _section("API changes", api_lines, "No CRD or version changes since the previous release.")
    if a.alpha_kept_out:
        out += _section("Alpha API versions kept out of this stream", a.alpha_kept_out, "")
    if a.alpha_shipped:
        out += _section("Alpha API versions shipped", a.alpha_shipped, "")
    changes, settings = gate_lines(g)
    out += _section("Feature gates", changes, "No feature-gate changes in Kueue since the previous release.")
    out += _section("Operator gate settings", settings, "None.")
    images = [f"{md(name)}: {markdown_code(image)}" for name, image in notes.images]
    out += _section("Images", images, "None.", escaped=True)
    out += _section("OpenShift catalogs", [", ".join(notes.catalogs)] if notes.catalogs else [], "None.")
    out += _section("Upgrades into this release", notes.upgrades_from, "None (a new install only).")
    out += _section("Deprecations", notes.deprecations, "None.")
    return "\n".join(out).rstrip("\n") + "\n"


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def render_json(notes: ReleaseNotes) -> str:
    """The notes as JSON (``releasekit/release-notes/v1``)."""
    a, g = notes.apis, notes.gates
    doc: dict[str, Any] = {
        "schema": NOTES_SCHEMA,
        "stream": notes.stream,
        "package": notes.package,
        "version": notes.version,
        "status": notes.status,
        "channel": notes.channel,
        "kueue": notes.kueue,
        "previous": {"version": notes.previous_version, "kueue": notes.previous_kueue}
        if notes.previous_version
        else None,
        "apis": {_camel(f.name): list(getattr(a, f.name)) for f in fields(a)},
        "featureGates": {
            "added": [_gate_json(x) for x in g.added],
            "removed": [_gate_json(x) for x in g.removed],
            "promoted": [{"name": b.name, "from": b.stage.value, "to": a.stage.value} for b, a in g.promoted],
            "flipped": [{"name": b.name, "from": b.default, "to": a.default} for b, a in g.flipped],
            "settings": [{"gate": x.gate, "enabled": x.enabled, "reason": x.reason} for x in g.settings],
            "optIn": [{"gate": x.gate, "configField": x.config_field, "reason": x.reason} for x in g.opt_in],
        },
        "images": [{"name": n, "image": i} for n, i in notes.images],
        "catalogs": list(notes.catalogs),
        "upgradesFrom": list(notes.upgrades_from),
        "deprecations": list(notes.deprecations),
        "missingInventories": list(notes.missing),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
