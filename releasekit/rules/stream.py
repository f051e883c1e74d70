"""Cross-checks of release streams against each other and against upstream inventories.

Pure core: takes loaded streams and inventories and returns findings; ``releasekit streams validate``,
``build`` and ``check`` run :func:`check_streams`.

Rule ids are stable (``RK-STREAM-NNN``, never renumbered); :data:`RULES` describes each one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime

from releasekit.model import stream_ids as ids
from releasekit.model.finding import Finding, Findings, Severity
from releasekit.model.finding import Location as _Location
from releasekit.model.finding import make_finding as _f
from releasekit.model.inventory import GateStage, Inventory, InventorySource, inventory_name, line_of_version
from releasekit.model.stream import (
    DEFAULT_NEWEST_MINOR,
    Release,
    ReleaseStatus,
    Stream,
    image_has_digest,
    openshift_versions_label_form,
)
from releasekit.model.stream_ids import RULE_INVENTORY_CHANGED

__all__ = ["RULES", "RULE_INVENTORY_CHANGED", "check_inventory_changes", "check_streams"]

RULES: dict[str, str] = {
    ids.RULE_SCHEMA: "a streams/ file does not match its JSON Schema (unknown key, wrong type, missing key)",
    ids.RULE_DUPLICATE_KEY: "a YAML mapping repeats a key",
    ids.RULE_SEMVER: "a release version is not strict semver",
    ids.RULE_DUPLICATE_VERSION: "a stream lists the same version twice",
    ids.RULE_ORDER: "release versions do not increase in file order",
    ids.RULE_CROSS_STREAM: "a version belongs to more than one stream",
    ids.RULE_PACKAGE: "two streams share an OLM package",
    ids.RULE_INVENTORY: "a release's upstream inventory does not exist",
    ids.RULE_INVENTORY_LINE: "the inventory's Kueue line matches neither the release's line nor its pin",
    ids.RULE_DIGEST: "a published release's image is not pinned by digest",
    ids.RULE_REGISTRY: "an image is outside the stream's allowed registries",
    ids.RULE_OPENSHIFT: "an OpenShift version is malformed or out of cluster-upgrade order",
    ids.RULE_CATALOG: "a release appears in a catalog its stream does not ship to",
    ids.RULE_GATE_UNKNOWN: "a gate policy names a gate that does not exist in that release's Kueue",
    ids.RULE_GATE_STAGE: "a gate setting switches on a gate whose stage the stream does not allow",
    ids.RULE_GATE_LOCKED: "a gate setting changes a LockToDefault gate",
    ids.RULE_GATE_DEPRECATED: "a gate setting sets a Deprecated gate",
    ids.RULE_GATE_OPT_IN: "an opt-in allow-list entry names a gate that is not Alpha in that Kueue",
    ids.RULE_API: "the API-maturity policy names an API that is missing or not alpha in that Kueue",
    ids.RULE_LABEL: "a com.redhat.openshift.versions value is outside the documented forms",
    ids.RULE_CREATED_AT: "createdAt is missing or not a full timestamp",
    ids.RULE_RECORDED: "recorded facts disagree with the release (package, version, images, owned API)",
    ids.RULE_DEPRECATION: "a deprecation message is missing or given for a live release",
    ids.RULE_CHANNEL: "the channel policy yields no valid channel",
    ids.RULE_FILE: "an inventory file is not named after its Kueue line",
    ids.RULE_WITHDRAWN_HEAD: "a withdrawn release is the newest of its minor in a catalog (it would stay the head)",
    ids.RULE_API_IN_MINOR: "the owned API group or kind changes inside one minor (the channel would get two heads)",
    ids.RULE_EMPTY: "the streams folder holds no stream file, so there is nothing to build or check",
    ids.RULE_INVENTORY_PIN: "a pinned release names the exact inventory of another Kueue pin",
    RULE_INVENTORY_CHANGED: "a change rewrites or removes an inventory a published release uses (check)",
    ids.RULE_GATES_INHERITED: "a release without featureGates keeps its minor's previous gates (a note)",
}

_TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
_CHANNEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


def check_streams(streams: tuple[Stream, ...], inventories: Mapping[str, Inventory]) -> tuple[Finding, ...]:
    """Every cross-check of the streams (the schema has been checked at load time)."""
    out: list[Finding] = []
    for stream in streams:
        out += _check_stream(stream)
        for release in stream.releases:
            out += _check_release(stream, release, inventories)
    out += _check_across(streams)
    for stream in streams:
        out += _check_minors(stream)
    return tuple(out)


def _check_minors(stream: Stream) -> list[Finding]:
    """Per minor: a withdrawn release must not be the newest one, and the owned API must not change.

    A withdrawn release keeps its bundle and channel entry (opm refuses a deprecation of a bundle the
    package lacks, Konflux refuses removing a published one); it leaves the upgrade path only when a newer
    release of its minor skips it. The newest release of a minor is the channel head, and no edge may join
    two owned APIs, so an owned-API change inside a minor would give the channel two heads.
    """
    out = Findings()
    subject = (stream.package,)
    published = [r for r in stream.releases if r.status.is_published]
    for openshift in stream.openshift:
        by_minor: dict[tuple[int, int], list[Release]] = {}
        for release in sorted(published, key=lambda r: r.version):
            if openshift in release.catalogs:
                by_minor.setdefault((release.version.major, release.version.minor), []).append(release)
        for members in by_minor.values():
            newest = members[-1]
            if newest.status is ReleaseStatus.WITHDRAWN:
                out.add(
                    ids.RULE_WITHDRAWN_HEAD,
                    f"release {newest.version} is withdrawn but is the newest {newest.version.major}."
                    f"{newest.version.minor} release in catalog {openshift}, so it would stay the channel head",
                    newest.origin.at(".status"),
                    "release a fix of the same minor in the same change (its channel entry skips the "
                    "withdrawn one), or keep the release as deprecated",
                    (*subject, str(newest.version)),
                )
    for release in (r for r in published if r.owned_api is not None):
        for older in published:
            if (
                (older.version.major, older.version.minor) == (release.version.major, release.version.minor)
                and older.version < release.version
                and older.owned_api not in (None, release.owned_api)
            ):
                out.add(
                    ids.RULE_API_IN_MINOR,
                    f"release {release.version} owns {release.owned_api} but {older.version} of the same minor "
                    f"owns {older.owned_api}; no upgrade edge may join them, so the channel would get two heads",
                    release.origin.at(".ownedApi"),
                    "change the owned API only with a new minor (or major) version",
                    (*subject, str(release.version)),
                )
                break
    return sorted(set(out), key=lambda f: (f.location.line or 0, f.message))


# ------------------------------------------------------------------------------------------ stream


def _check_stream(stream: Stream) -> list[Finding]:
    out = Findings()
    subject = (stream.package,)
    where = stream.origin
    for index in range(1, len(stream.openshift)):
        if stream.openshift[index] <= stream.openshift[index - 1]:
            out.add(
                ids.RULE_OPENSHIFT,
                f"OpenShift version {stream.openshift[index]} follows "
                f"{stream.openshift[index - 1]}; the list must be in cluster-upgrade order",
                where.at(f".openshift[{index}]"),
                "sort the list oldest first and list each version once",
                subject,
            )
    probe = stream.channels.pattern.format(major=1, minor=2, patch=3)
    if not _CHANNEL_RE.match(probe):
        out.add(
            ids.RULE_CHANNEL,
            f"channel pattern {stream.channels.pattern!r} gives {probe!r}, not a valid channel name",
            stream.channels.origin.at(".pattern"),
            "use lower-case letters, digits, '-' and '.', with {major}/{minor} placeholders",
            subject,
        )
    default = stream.channels.default
    if default != DEFAULT_NEWEST_MINOR and stream.channel_names and default not in stream.channel_names:
        out.add(
            ids.RULE_CHANNEL,
            f"default channel {default!r} is not a channel of any published release",
            stream.channels.origin.at(".default"),
            f"use {DEFAULT_NEWEST_MINOR!r} or one of: {', '.join(sorted(stream.channel_names))}",
            subject,
        )
    seen: dict[str, int] = {}
    previous: Release | None = None
    for index, release in enumerate(stream.releases):
        version = str(release.version)
        if version in seen:
            out.add(
                ids.RULE_DUPLICATE_VERSION,
                f"version {version!r} is listed twice in stream {stream.name!r}",
                release.origin.at(".version"),
                "each release appears once; remove or renumber the duplicate",
                (*subject, version),
            )
        elif previous is not None and release.version <= previous.version:
            out.add(
                ids.RULE_ORDER,
                f"version {version!r} follows {str(previous.version)!r}; versions must increase",
                release.origin.at(".version"),
                "list releases oldest first",
                (*subject, version),
            )
        seen.setdefault(version, index)
        previous = release if previous is None or release.version > previous.version else previous
    return out


def _check_across(streams: tuple[Stream, ...]) -> list[Finding]:
    """A package and a version belong to one stream: report every occurrence, naming the others."""
    out = Findings()
    packages: dict[str, list[str]] = {}
    versions: dict[str, list[str]] = {}
    for stream in streams:
        packages.setdefault(stream.package, []).append(stream.name)
        for version in {str(r.version) for r in stream.releases}:
            versions.setdefault(version, []).append(stream.name)
    for stream in streams:
        others = [name for name in packages[stream.package] if name != stream.name]
        if others:
            out.add(
                ids.RULE_PACKAGE,
                f"package {stream.package!r} is also the package of stream {', '.join(map(repr, others))}",
                stream.origin.at(".package"),
                "give every stream its own OLM package, so no upgrade edge can join them",
                (stream.package,),
            )
        for release in stream.releases:
            version = str(release.version)
            others = [name for name in versions[version] if name != stream.name]
            if others:
                out.add(
                    ids.RULE_CROSS_STREAM,
                    f"version {version!r} is also a release of stream {', '.join(map(repr, others))}",
                    release.origin.at(".version"),
                    "a version belongs to one stream; pick another version",
                    (stream.package, version),
                )
    return out


# ----------------------------------------------------------------------------------------- release


def _check_release(stream: Stream, release: Release, inventories: Mapping[str, Inventory]) -> list[Finding]:
    subject = (stream.package, str(release.version))
    out = Findings()
    _check_images(stream, release, subject, out)
    _check_catalogs(stream, release, subject, out)
    _check_dates_and_labels(release, subject, out)
    _check_recorded(stream, release, subject, out)
    inventory = inventories.get(release.upstream.inventory)
    if inventory is None:
        known = ", ".join(sorted(inventories)) or "none"
        out.add(
            ids.RULE_INVENTORY,
            f"inventory {release.upstream.inventory!r} (Kueue line {release.upstream.line}) does not exist",
            release.upstream.origin.at(".inventory"),
            f"run `releasekit upstream import --repo KUEUE --ref "
            f"{release.upstream.describe or release.upstream.tag or 'TAG'}` or add "
            f"streams/upstream/{release.upstream.inventory}.yaml; known: {known}",
            subject,
        )
        return out
    up = release.upstream
    lines = {up.line} | {line_of_version(pin) or up.line for pin in (up.describe, up.tag) if pin}
    if inventory.line not in lines:
        out.add(
            ids.RULE_INVENTORY_LINE,
            f"inventory {inventory.name!r} describes Kueue {inventory.line}, but the release ships "
            f"Kueue {' / '.join(sorted(lines))}",
            release.upstream.origin.at(".inventory"),
            f"refer to {_wanted_inventory(release)} or correct the upstream pin",
            subject,
        )
    _check_pin(release, inventory, subject, out)
    out += _check_gates(stream, release, inventory, subject)
    _check_apis(stream, inventory, subject, out)
    return out


def _check_pin(release: Release, inventory: Inventory, subject: tuple[str, ...], out: Findings) -> None:
    """RK-STREAM-030: a release with a pin names the exact inventory of that pin, not another pin's."""
    up = release.upstream
    pins = {p for p in (up.describe, up.tag) if p}
    if inventory.source is not InventorySource.EXACT or not pins:
        return
    same = inventory.ref in pins or (inventory.describe or "") in pins
    if same or (up.commit and inventory.commit.startswith(up.commit)):
        return
    out.add(
        ids.RULE_INVENTORY_PIN,
        f"release {release.version} pins Kueue {' / '.join(sorted(pins))}, but inventory {inventory.name!r} "
        f"describes {inventory.pin} ({inventory.commit[:12]})",
        up.origin.at(".inventory"),
        f"refer to {_wanted_inventory(release)} (`releasekit upstream import --repo KUEUE --ref "
        f"{up.describe or up.tag}` writes it)",
        subject,
    )


def _wanted_inventory(release: Release) -> str:
    """The inventory a release should name: its pin's (``kueue-v0.12.9``), else its line's (``kueue-0.11``)."""
    pin = release.upstream.describe or release.upstream.tag
    return inventory_name(pin) if pin else inventory_name(release.upstream.line)


def _check_images(stream: Stream, release: Release, subject: tuple[str, ...], out: Findings) -> None:
    images = [("bundle", release.bundle_image, release.origin.at(".bundle"))]
    images += [(name, image, release.images.origin.at(f".{name}")) for name, image in release.images.items()]
    candidate = release.status is ReleaseStatus.CANDIDATE
    for name, image, where in images:
        released_ok = any(image.startswith(prefix) for prefix in stream.released_registries)
        dev_ok = any(image.startswith(prefix) for prefix in stream.development_registries)
        if candidate and dev_ok:
            continue  # a candidate may use development references, tags included
        if not image_has_digest(image):
            out.add(
                ids.RULE_DIGEST,
                f"{name} image {image!r} is not pinned by digest",
                where,
                "use the @sha256:<digest> the release pipeline published"
                if not candidate
                else "pin it by digest or use a development registry: "
                + ", ".join(stream.development_registries),
                subject,
            )
        if not released_ok:
            allowed = stream.released_registries + (stream.development_registries if candidate else ())
            out.add(
                ids.RULE_REGISTRY,
                f"{name} image {image!r} is not in an allowed registry",
                where,
                f"allowed for {release.status.value} releases: {', '.join(allowed)}",
                subject,
            )


def _check_catalogs(stream: Stream, release: Release, subject: tuple[str, ...], out: Findings) -> None:
    for index, catalog in enumerate(release.catalogs):
        if catalog not in stream.openshift:
            out.add(
                ids.RULE_CATALOG,
                f"catalog {catalog} is not an OpenShift version of stream {stream.name!r}",
                release.origin.at(f".catalogs[{index}]"),
                f"use one of: {', '.join(str(v) for v in stream.openshift)}, or add it to the stream",
                subject,
            )
        if index and catalog <= release.catalogs[index - 1]:
            out.add(
                ids.RULE_OPENSHIFT,
                f"catalog {catalog} follows {release.catalogs[index - 1]}; list catalogs in upgrade order",
                release.origin.at(f".catalogs[{index}]"),
                "sort the catalogs oldest first and list each once",
                subject,
            )


def _check_dates_and_labels(release: Release, subject: tuple[str, ...], out: Findings) -> None:
    published = release.status.is_published
    if release.created_at is None:
        if published:
            out.add(
                ids.RULE_CREATED_AT,
                "a published release needs createdAt",
                release.origin.at(""),
                "copy the CSV createdAt annotation, e.g. 2025-05-01T20:58:29Z",
                subject,
            )
    elif not _valid_timestamp(release.created_at):
        out.add(
            ids.RULE_CREATED_AT,
            f"createdAt {release.created_at!r} is not a full timestamp",
            release.origin.at(".createdAt"),
            "write it as published: YYYY-MM-DDTHH:MM:SSZ",
            subject,
        )
    label = release.openshift_versions_label
    if label is not None and openshift_versions_label_form(label) is None:
        past = release.status is not ReleaseStatus.CANDIDATE
        out.add(
            ids.RULE_LABEL,
            f"com.redhat.openshift.versions {label!r} is not a documented form",
            release.origin.at(".openshiftVersionsLabel"),
            "documented forms: vX.Y, =vX.Y, vA.B-vC.D"
            + (" (recorded as published; new releases must use one)" if past else ""),
            subject,
            Severity.WARNING if past else Severity.ERROR,
        )
    deprecated = release.status in (ReleaseStatus.DEPRECATED, ReleaseStatus.WITHDRAWN)
    if deprecated and not release.deprecation_message:
        out.add(
            ids.RULE_DEPRECATION,
            f"a {release.status.value} release needs a deprecationMessage",
            release.origin.at(".status"),
            "say why and what to install instead",
            subject,
        )
    if not deprecated and release.deprecation_message:
        out.add(
            ids.RULE_DEPRECATION,
            f"deprecationMessage given for a {release.status.value} release",
            release.origin.at(".deprecationMessage"),
            "set status to deprecated or withdrawn, or drop the message",
            subject,
        )


def _valid_timestamp(text: str) -> bool:
    if not _TIMESTAMP_RE.match(text):
        return False
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _check_recorded(stream: Stream, release: Release, subject: tuple[str, ...], out: Findings) -> None:
    recorded = release.recorded
    if recorded is None:
        return
    where = recorded.origin.at("")
    if recorded.package != stream.package or recorded.version != str(release.version):
        out.add(
            ids.RULE_RECORDED,
            f"recorded facts are for {recorded.package} {recorded.version}, "
            f"not {stream.package} {release.version}",
            where,
            "point `recorded` at the file of this release",
            subject,
        )
    published = {r.image for r in recorded.related_images}
    wanted = [("bundle", release.bundle_image), *release.images.items()]
    for name, image in wanted:
        if image not in published:
            out.add(
                ids.RULE_RECORDED,
                f"{name} image {image!r} is not among the recorded relatedImages",
                release.origin.at(".bundle" if name == "bundle" else f".images.{name}"),
                f"the published bundle lists: {', '.join(sorted(published))}",
                subject,
            )
    owned = release.owned_api
    if owned is not None and recorded.gvks and owned not in recorded.gvks:
        out.add(
            ids.RULE_RECORDED,
            f"owned API {owned} is not among the recorded olm.gvk properties "
            f"({', '.join(str(g) for g in recorded.gvks)})",
            release.origin.at(".ownedApi"),
            "set the release's ownedApi to what the bundle published",
            subject,
        )


# ------------------------------------------------------------------------------------------- gates


def _unknown_gate(
    release: Release, name: str, known: str, where: _Location, inventory: Inventory, subject: tuple[str, ...]
) -> Finding:
    """RK-STREAM-014: Kueue refuses to start on a gate name it does not define.

    An error for a candidate; a warning for published history (0.1.0's operator forced the misspelled
    ``HierarchialCohorts``).
    """
    published = release.status is not ReleaseStatus.CANDIDATE
    close = sorted(g.name for g in inventory.gates if name.lower()[:6] in g.name.lower())[:5]
    return _f(
        ids.RULE_GATE_UNKNOWN,
        f"gate {name!r} does not exist in Kueue {known}"
        + (" (published history: the operator set it all the same)" if published else ""),
        where,
        f"check the gate name against streams/upstream/{inventory.name}.yaml"
        + (f"; similar: {', '.join(close)}" if close else ""),
        subject,
        Severity.WARNING if published else Severity.ERROR,
    )


def _check_gates(
    stream: Stream, release: Release, inventory: Inventory, subject: tuple[str, ...]
) -> list[Finding]:
    out = Findings()
    known = f"{inventory.name} ({inventory.ref})"
    for setting in stream.effective_gate_settings(release):
        where = setting.origin.at(".gate")
        gate = inventory.gate(setting.gate)
        if gate is None:
            out.append(_unknown_gate(release, setting.gate, known, where, inventory, subject))
            continue
        if gate.lock_to_default and setting.enabled != gate.default:
            out.add(
                ids.RULE_GATE_LOCKED,
                f"gate {gate.name!r} is locked to {str(gate.default).lower()} in Kueue {known}; "
                f"setting it to {str(setting.enabled).lower()} stops Kueue at start",
                where,
                "drop the setting",
                subject,
            )
        if gate.stage is GateStage.DEPRECATED:
            out.add(
                ids.RULE_GATE_DEPRECATED,
                f"gate {gate.name!r} is Deprecated in Kueue {known}",
                where,
                "plan to drop the setting; Kueue removes deprecated gates",
                subject,
                Severity.WARNING,
            )
        stage_allowed = gate.stage in stream.feature_gates.allowed_stages
        if setting.enabled and not stage_allowed and gate.stage is not GateStage.DEPRECATED:
            allowed = ", ".join(s.value for s in stream.feature_gates.allowed_stages)
            out.add(
                ids.RULE_GATE_STAGE,
                f"gate {gate.name!r} is {gate.stage.value} in Kueue {known}; stream {stream.name!r} "
                f"switches on only {allowed} gates",
                where,
                "drop the setting, or list the gate in the release's featureGates.optIn "
                "with the config field that triggers it",
                subject,
            )
    source = stream.gates_source(release)
    if source is not None and source is not release:
        out.append(_inherited_gates(stream, release, source, subject))
    for entry in stream.release_opt_in_gates(release):
        where = entry.origin.at(".gate")
        gate = inventory.gate(entry.gate)
        if gate is None:
            out.append(_unknown_gate(release, entry.gate, known, where, inventory, subject))
        elif gate.stage is not GateStage.ALPHA:
            out.add(
                ids.RULE_GATE_OPT_IN,
                f"opt-in gate {gate.name!r} is {gate.stage.value} (default "
                f"{str(gate.default).lower()}) in Kueue {known}, not Alpha",
                where,
                "the allow-list is for alpha gates; drop the entry if the inventory is right",
                subject,
                Severity.INFO,
            )
    return [replace(f, message=f"release {release.version}: {f.message}") for f in out]


def _inherited_gates(stream: Stream, release: Release, source: Release, subject: tuple[str, ...]) -> Finding:
    """RK-STREAM-032: say which release's gates a release without ``featureGates`` keeps, and what they are."""
    settings = [f"{s.gate}={str(s.enabled).lower()}" for s in stream.release_gate_settings(release)]
    opt_in = [g.gate for g in stream.release_opt_in_gates(release)]
    held = [f"settings {', '.join(settings)}"] if settings else []
    held += [f"opt-in {', '.join(opt_in)}"] if opt_in else []
    return _f(
        ids.RULE_GATES_INHERITED,
        f"no featureGates: it keeps those of {source.version} ({'; '.join(held) or 'none'})",
        release.origin.at(".version"),
        "nothing to do if that is meant; write `featureGates: {}` for none, or the release's own",
        subject,
        Severity.INFO,
    )


def _check_apis(stream: Stream, inventory: Inventory, subject: tuple[str, ...], out: Findings) -> None:
    origin = stream.api_maturity.origin
    for index, kind in enumerate(stream.api_maturity.alpha_apis):
        crd = inventory.crd(kind)
        where = origin.at(f".alphaApis[{index}]")
        if crd is None:
            out.add(
                ids.RULE_API,
                f"API {kind!r} does not exist in Kueue {inventory.name} ({inventory.ref})",
                where,
                f"known kinds: {', '.join(sorted(c.kind for c in inventory.crds))}",
                subject,
            )
        elif not crd.is_alpha:
            out.add(
                ids.RULE_API,
                f"API {kind!r} is {crd.maturity.value} in Kueue {inventory.name}; listing it as alpha has no effect",
                where,
                "drop it from apiMaturity.alphaApis",
                subject,
                Severity.INFO,
            )


def check_inventory_changes(
    base_streams: tuple[Stream, ...] | list[Stream],
    base_inventories: Mapping[str, Inventory],
    head_inventories: Mapping[str, Inventory],
) -> list[Finding]:
    """RK-STREAM-031 (``check``): an inventory a published release of the base names keeps its facts.

    Its facts are what shipped; a new Kueue pin gets an inventory of its own.
    """
    out = Findings()
    users: dict[str, list[str]] = {}
    for stream in base_streams:
        for release in stream.releases:
            if release.status is not ReleaseStatus.CANDIDATE:
                users.setdefault(release.upstream.inventory, []).append(f"{stream.name} {release.version}")
    for name in sorted(users):
        before = base_inventories.get(name)
        if before is None:
            continue
        after = head_inventories.get(name)
        if after is not None and replace(after, file=before.file) == before:
            continue
        what = "removes" if after is None else "changes"
        out.add(
            RULE_INVENTORY_CHANGED,
            f"the change {what} inventory {name!r}, which published release(s) {', '.join(users[name])} use",
            _Location(file=(after or before).file or f"streams/upstream/{name}.yaml", line=1),
            "revert it: a published release's Kueue facts are what shipped; import a new pin with "
            "`releasekit upstream import` for a new release",
            ("inventory", name),
        )
    return out
