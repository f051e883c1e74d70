"""Templates kept honest: a committed catalog compared, semantically, with what its ``opm`` template renders.

Pure core: the caller (:mod:`releasekit.jobs.fbc_templates`) renders the template offline and hands over
each rendering opm could have written (a semver template has two: older opm linked each channel alone).
The catalog matches when it equals one of them in packages (name, default channel: description and icon
are presentation, often filled in by a script), channels, entries and their edges, and bundle blobs;
otherwise the first difference of the closest rendering is reported, at the catalog's file and line.

RK-DIFF-027 (:data:`RULES`) is an error, or a warning where the base already had such a finding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from releasekit.model.fbc import Bundle, DeclarativeConfig
from releasekit.model.finding import Finding, Location
from releasekit.model.finding import make_finding as _f
from releasekit.rules.diff import bundle_field_changes

__all__ = ["RULES", "RULE_TEMPLATE_DRIFT", "check_template", "differences", "template_finding"]

RULE_TEMPLATE_DRIFT = "RK-DIFF-027"
RULES: Final[dict[str, str]] = {
    RULE_TEMPLATE_DRIFT: "a catalog is not what its opm template renders, or the template cannot be rendered",
}

Difference = tuple[str, Location]


def _edges(replaces: str, skips: Sequence[str], skip_range: str) -> str:
    parts = [f"replaces {replaces}"] if replaces else []
    parts += [f"skips {', '.join(sorted(skips))}"] if skips else []
    parts += [f"skipRange {skip_range!r}"] if skip_range else []
    return "; ".join(parts) or "no edges"


def differences(rendered: DeclarativeConfig, committed: DeclarativeConfig) -> list[Difference]:
    """Every difference of ``committed`` from ``rendered`` (bundles, channels, packages: the rendering's)."""
    names = {p.name for p in rendered.packages} | {b.package for b in rendered.bundles}
    places = [*(p.location for p in committed.packages), *(c.location for c in committed.channels)]
    fallback = next((where for where in places if where.file), Location())
    out: list[Difference] = []

    def compare(what: str, want: Mapping[str, Any], have: Mapping[str, Any]) -> None:
        """``have`` maps each name to (the compared value, its location)."""
        for name in sorted(want.keys() - have.keys()):
            out.append((f"{what} {name} is in the template's rendering, not in the catalog", fallback))
        for name in sorted(have.keys() - want.keys()):
            out.append((f"{what} {name} is in the catalog, not in the template's rendering", have[name][1]))
        for name in sorted(want.keys() & have.keys()):
            if want[name] != have[name][0]:
                out.append((f"{what} {name}: {_say(want[name], have[name][0])}", have[name][1]))

    def bundles(config: DeclarativeConfig) -> dict[str, Any]:
        return {b.name: (b, b.location) for b in config.bundles if b.package in names}

    def channels(config: DeclarativeConfig) -> dict[str, Any]:
        return {
            f"{c.package}/{c.name}": (
                {e.name: (e.replaces, frozenset(e.skips), e.skip_range) for e in c.entry_list},
                c.location,
            )
            for c in config.channels
            if c.package in names
        }

    def packages(config: DeclarativeConfig) -> dict[str, Any]:
        return {p.name: (p.default_channel, p.location) for p in config.packages if p.name in names}

    for view in (bundles, channels, packages):
        what = view.__name__[:-1]
        compare(what, {k: v for k, (v, _) in view(rendered).items()}, view(committed))
    return out


def _say(want: Any, have: Any) -> str:
    """How a bundle's blob, a channel's entries or a package's default channel differ."""
    if isinstance(want, Bundle):
        return f"its blob differs from the resolved one ({', '.join(bundle_field_changes(want, have)[:4])})"
    if not isinstance(want, Mapping):
        return f"defaultChannel is {have!r} in the catalog, {want!r} rendered"
    for name in sorted(want.keys() | have.keys()):
        if name not in have:
            return f"entry {name} is in the template's rendering, not in the catalog"
        if name not in want:
            return f"entry {name} is in the catalog, not in the template's rendering"
        if want[name] != have[name]:
            return f"entry {name} has {_edges(*have[name])} in the catalog, {_edges(*want[name])} rendered"
    return "differs"


def template_finding(message: str, where: Location, hint: str, label: str) -> Finding:
    """The RK-DIFF-027 finding of one catalog root (its subject: the catalog's label)."""
    return _f(RULE_TEMPLATE_DRIFT, message, where, hint, (label, "template"))


def check_template(
    renderings: Sequence[DeclarativeConfig],
    committed: DeclarativeConfig,
    *,
    label: str,
    template: str,
    hint: str,
) -> tuple[Finding, ...]:
    """RK-DIFF-027 when ``committed`` matches none of ``renderings``: the closest one's first difference."""
    found = [differences(r, committed) for r in renderings]
    if not found or not all(found):
        return ()
    first, where = min(found, key=len)[0]
    message = f"the {label} catalog is not what {template} renders: {first}"
    return (template_finding(message, where, hint, label),)
