"""The ``olm.semver`` catalog template, as current opm's ``alpha/template/semver`` renders it.

Pure core. Input (field names case-insensitive, unknown fields rejected)::

    schema: olm.semver
    generateMajorChannels: bool        # default false
    generateMinorChannels: bool        # default false; both false -> minor channels
    defaultChannelTypePreference: "" | minor | major
    candidate|fast|stable: {bundles: [{image: <bundle image>}]}

Each distinct image is rendered once through the injected ``resolve(image)`` and must give exactly one
bundle. Channels ``<phase>-v<major>`` / ``<phase>-v<major>.<minor>`` list their bundles by ascending
semver; only the highest entry of each Y-stream gets edges: ``replaces`` the highest entry of the previous
Y-stream of the same major (same phase and kind), ``skips`` every other earlier entry of that major. The
default channel is the "high-water mark" (stable > fast > candidate, then the version that created the
channel, then the preferred kind, then minor > major). Since opm 1.65 the package description and icon
come from the CSV of the default channel's last entry. Error texts are opm's. ``legacy=True`` links as
older opm did: each channel alone, so no edge leaves a minor channel, and a ``replaces`` is also a skip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import semver

from releasekit.model.fbc import (
    PROP_PACKAGE,
    Bundle,
    Channel,
    ChannelEntry,
    DeclarativeConfig,
    Icon,
    Package,
)
from releasekit.model.go_decode import go_json_type
from releasekit.plan.template_basic import Resolver, TemplateRenderError

__all__ = ["SEMVER_SCHEMA", "SemverTemplate", "parse_semver", "render_semver"]

SEMVER_SCHEMA = "olm.semver"
_PHASES = ("candidate", "fast", "stable")  # ascending stability
_PHASE_RANK = {"candidate": 0, "fast": 1, "stable": 2}
_KIND_RANK = {"minor": 2, "major": 1, "": 0}


@dataclass(frozen=True, slots=True, kw_only=True)
class SemverTemplate:
    """A parsed semver template (defaults applied, preference checked)."""

    generate_major: bool = False
    generate_minor: bool = True
    preference: str = "minor"
    phases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The images listed under each phase (candidate, fast, stable)."""


def _read_error(detail: str) -> TemplateRenderError:
    return TemplateRenderError(f"render: unable to read file: {detail}")


def _strict(obj: Any, struct: str, fields: Mapping[str, str]) -> dict[str, Any]:
    """Decode ``obj`` as a Go struct: case-insensitive names, unknown fields and wrong types rejected."""
    if obj is None:
        return {}
    if not isinstance(obj, Mapping):
        raise _read_error(
            f"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {go_json_type(obj)} "
            f"into Go value of type {struct}"
        )
    out: dict[str, Any] = {}
    lowered = {name.lower(): name for name in fields}
    for key, value in obj.items():
        name = key if key in fields else lowered.get(str(key).lower())
        if name is None:
            raise _read_error(f'error unmarshaling JSON: while decoding JSON: json: unknown field "{key}"')
        want = fields[name]
        if value is not None and go_json_type(value) != want:
            raise _read_error(
                f"error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {go_json_type(value)} "
                f"into Go struct field {struct.split('.')[-1]}.{name} of type {_GO_TYPES[want]}"
            )
        out[name] = value
    return out


_GO_TYPES = {"string": "string", "bool": "bool", "object": "struct", "array": "slice"}


def _phase_images(value: Any) -> tuple[str, ...]:
    channel = _strict(value, "semver.channelBundles", {"bundles": "array"})
    entries = (
        _strict(item, "semver.bundleEntry", {"image": "string"}) for item in channel.get("bundles") or ()
    )
    return tuple(entry.get("image") or "" for entry in entries)


def parse_semver(doc: Any) -> SemverTemplate:
    """Read a semver template document as opm's ``readFile`` does.

    Raises:
        TemplateRenderError: unknown field, wrong schema, or a preference that does not fit.
    """
    data = _strict(
        doc,
        "semver.SemverTemplateData",
        {
            "schema": "string",
            "generateMajorChannels": "bool",
            "generateMinorChannels": "bool",
            "defaultChannelTypePreference": "string",
            "candidate": "object",
            "fast": "object",
            "stable": "object",
        },
    )
    if data.get("schema") != SEMVER_SCHEMA:
        raise _read_error(f'readFile: input file has unknown schema, should be "{SEMVER_SCHEMA}"')
    major = bool(data.get("generateMajorChannels"))
    minor = bool(data.get("generateMinorChannels"))
    if not major and not minor:
        minor = True
    pref = data.get("defaultChannelTypePreference") or ""
    if pref == "":
        pref = "minor" if minor else "major"
    elif pref in ("minor", "major"):
        if not (minor if pref == "minor" else major):
            raise _read_error(
                f"schema attribute mismatch: DefaultChannelTypePreference set to '{pref}' doesn't make sense "
                f"if not generating {pref}-version channels"
            )
    else:
        raise _read_error(
            f"unknown DefaultChannelTypePreference: \"{pref}\"\nValid values are 'major' or 'minor'"
        )
    return SemverTemplate(
        generate_major=major,
        generate_minor=minor,
        preference=pref,
        phases={phase: _phase_images(data.get(phase)) for phase in _PHASES},
    )


def _package_property(bundle: Bundle) -> tuple[str, str]:
    props = [p for p in bundle.properties if p.type == PROP_PACKAGE]
    if len(props) != 1:
        raise TemplateRenderError(
            f'bundle "{bundle.name}" has multiple "olm.package" properties, expected exactly 1'
        )
    value = props[0].value if isinstance(props[0].value, Mapping) else {}
    return str(value.get("packageName") or ""), str(value.get("version") or "")


@dataclass(frozen=True, slots=True)
class _Tuple:
    arch: str
    kind: str
    parent: str
    name: str
    version: semver.Version
    index: int


def _versions_for_phase(
    images: Sequence[str], bundles_by_image: Mapping[str, Bundle], state: dict[str, str]
) -> dict[str, semver.Version]:
    entries: dict[str, semver.Version] = {}
    for image in images:
        bundle = bundles_by_image.get(image)
        if bundle is None:
            raise TemplateRenderError(
                f'supplied bundle image name "{image}" not found in rendered bundle images'
            )
        package, version_text = _package_property(bundle)
        try:
            version = semver.Version.parse(version_text)
        except (ValueError, TypeError) as exc:
            raise TemplateRenderError(
                f'bundle "{bundle.name}" has invalid version "{version_text}": {exc}'
            ) from None
        if state.get("pkg"):
            if package != state["pkg"]:
                raise TemplateRenderError(
                    f'bundle "{package}" does not belong to this package: "{state["pkg"]}"'
                )
        else:
            state["pkg"] = package
        if bundle.name in entries:
            raise TemplateRenderError(f'duplicate bundle name "{bundle.name}"')
        entries[bundle.name] = version
    seen: dict[str, int] = {}
    errors: list[str] = []
    for version in entries.values():
        stripped = str(version.replace(build=None))
        if stripped in seen:
            errors.append(f'bundle version "{version}" cannot be compared to "{stripped}"')
        seen[stripped] = seen.get(stripped, 0) + 1
    if errors:
        aggregate = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        raise TemplateRenderError(
            f"encountered bundle versions which differ only by build metadata, which cannot be ordered: {aggregate}"
        )
    return entries


def _hwc_key(arch: str, kind: str, version: semver.Version, pref: str) -> tuple[Any, ...]:
    """Orders channels as opm's high-water mark: stability, then version, then the preferred kind."""
    return (_PHASE_RANK[arch], version, kind == pref, _KIND_RANK[kind])


def _generate_channels(
    template: SemverTemplate,
    package: str,
    versions: Mapping[str, Mapping[str, semver.Version]],
    legacy: bool = False,
) -> tuple[list[Channel], str]:
    channels: dict[str, list[ChannelEntry]] = {}
    tuples: list[_Tuple] = []
    hwc_key, hwc = _hwc_key("candidate", "", semver.Version(0, 0, 0), template.preference), ""
    for arch in _PHASES:
        bundles = versions.get(arch) or {}
        for name in sorted(bundles, key=bundles.__getitem__):
            version = bundles[name]
            keys: list[tuple[str, str]] = []
            if template.generate_major:
                keys.append(("major", f"{arch}-v{version.major}"))
            if template.generate_minor:
                keys.append(("minor", f"{arch}-v{version.major}.{version.minor}"))
            for kind, channel_name in keys:
                if channel_name not in channels:
                    channels[channel_name] = []
                    key = _hwc_key(arch, kind, version, template.preference)
                    if key > hwc_key:
                        hwc_key, hwc = key, channel_name
                channels[channel_name].append(ChannelEntry(name=name))
                tuples.append(
                    _Tuple(arch, kind, channel_name, name, version, len(channels[channel_name]) - 1)
                )
    if legacy:
        _link_each(channels, {t.name: t.version for t in tuples})
    else:
        _link(channels, tuples)
    out = [Channel(name=name, package=package, entries=tuple(channels[name])) for name in sorted(channels)]
    return out, hwc


def _set_edges(channels: dict[str, list[ChannelEntry]], t: _Tuple, replaces: str, skips: set[str]) -> None:
    entry = channels[t.parent][t.index]
    rest = tuple(sorted(skips - {replaces}))
    channels[t.parent][t.index] = ChannelEntry(
        name=entry.name, replaces=replaces, skips=rest if rest else entry.skips, skip_range=entry.skip_range
    )


def _link(channels: dict[str, list[ChannelEntry]], entries: list[_Tuple]) -> None:
    entries.sort(key=lambda t: (_PHASE_RANK[t.arch], _KIND_RANK[t.kind], t.version))
    prev_zmax = ""
    cur_skips: set[str] = set()
    for index in range(1, len(entries)):
        prev, cur = entries[index - 1], entries[index]
        arch_change = cur.arch != prev.arch
        kind_change = cur.kind != prev.kind
        x_change = prev.version.major != cur.version.major
        y_change = prev.version.minor != cur.version.minor
        if arch_change or kind_change or x_change or y_change:
            _set_edges(channels, prev, prev_zmax, cur_skips)
        if arch_change or kind_change or x_change:
            cur_skips = set()
            prev_zmax = ""
        else:
            if y_change:
                prev_zmax = prev.name
            cur_skips.add(prev.name)
    if len(entries) > 1:
        last, penultimate = entries[-1], entries[-2]
        if (
            last.arch == penultimate.arch
            and last.kind == penultimate.kind
            and last.version.major == penultimate.version.major
        ):
            _set_edges(channels, last, prev_zmax, cur_skips)


def _link_each(channels: dict[str, list[ChannelEntry]], version: Mapping[str, semver.Version]) -> None:
    """Older opm: per channel, a Y-stream's last entry replaces (and skips) the one before, skips its own."""
    for entries in channels.values():
        ys = [(version[e.name].major, version[e.name].minor) for e in entries]
        start, last = 0, ""
        while start < len(entries):
            end = start + 1
            while end < len(entries) and ys[end] == ys[start]:
                end += 1
            skips = ([last] if last else []) + [e.name for e in entries[start : end - 1]]
            entries[end - 1] = ChannelEntry(name=entries[end - 1].name, replaces=last, skips=tuple(skips))
            last, start = entries[end - 1].name, end


def _csv_description_icon(bundle: Bundle | None) -> tuple[str, Icon | None]:
    csv = bundle.csv if bundle is not None else None
    spec = csv.get("spec") if isinstance(csv, Mapping) else None
    if not isinstance(spec, Mapping):
        return "", None
    description = spec.get("description")
    icon: Icon | None = None
    icons = spec.get("icon")
    if isinstance(icons, list) and icons and isinstance(icons[0], Mapping):
        first = icons[0]
        icon = Icon(
            base64data=str(first.get("base64data") or ""), mediatype=str(first.get("mediatype") or "")
        )
    return (description if isinstance(description, str) else ""), icon


def render_semver(template: SemverTemplate, resolve: Resolver, *, legacy: bool = False) -> DeclarativeConfig:
    """Render the template: bundles, generated channels and the package (``legacy``: older opm's edges).

    Raises:
        TemplateRenderError: with opm's text (wrapped as opm wraps it).
    """
    images = dict.fromkeys(image for phase in _PHASES for image in template.phases.get(phase, ()))
    bundles: list[Bundle] = []
    by_image: dict[str, Bundle] = {}
    for image in images:
        rendered = list(resolve(image))
        if len(rendered) != 1:
            raise TemplateRenderError(
                f'bundle reference "{image}" resulted in {len(rendered)} bundles, expected 1'
            )
        bundles.append(rendered[0])
        by_image.setdefault(rendered[0].image or image, rendered[0])
        by_image.setdefault(image, rendered[0])
    if not bundles:
        raise TemplateRenderError("render: no bundles specified or no bundles could be rendered")
    state: dict[str, str] = {}
    versions: dict[str, dict[str, semver.Version]] = {}
    try:
        for phase in _PHASES:
            versions[phase] = _versions_for_phase(template.phases.get(phase, ()), by_image, state)
    except TemplateRenderError as exc:
        raise TemplateRenderError(f"render: unable to post-process bundle info: {exc}") from None
    package_name = state.get("pkg", "")
    channels, default_channel = _generate_channels(template, package_name, versions, legacy)
    last = next((c.entry_list[-1].name for c in channels if c.name == default_channel and c.entry_list), None)
    head = next((b for b in bundles if b.name == last), None)
    description, icon = _csv_description_icon(head)
    package = Package(name=package_name, default_channel=default_channel, description=description, icon=icon)
    return DeclarativeConfig(packages=(package,), channels=tuple(channels), bundles=tuple(bundles))
