"""Pull-request rules for any file-based catalog repository: what :mod:`releasekit.rules.diff` lacks there.

Pure core: the caller (:mod:`releasekit.jobs.fbc_repo_check`) finds the catalog roots of the base and
the head, pairs them (:func:`releasekit.model.catalog_root.pair_roots`) and hands over each package's
catalog at both revisions, keyed ``(label, package)`` as :class:`~releasekit.rules.diff.PackageCatalog`
values (``openshift`` holds the pair's label). In such a repository there is no ``streams/``: everything
in the base is treated as published. :mod:`releasekit.rules.diff` still reports the summary (RK-DIFF-002),
removed bundles and channels (RK-DIFF-003/004) and users stranded in a catalog (RK-DIFF-007).

Rule ids (``RK-DIFF-NNN``, stable, never renumbered), titles and severities: :data:`RULES`. RK-DIFF-020 is a
warning where a whole OpenShift catalog was dropped (versions leave support), RK-DIFF-023 an error where
``check --published`` shows the bundle released.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, Final

from releasekit.model.catalog_root import RootPairing
from releasekit.model.fbc import Bundle, DeclarativeConfig
from releasekit.model.finding import Finding, Findings, Location, Severity
from releasekit.model.ruledoc import RuleFacts
from releasekit.model.stream import image_has_digest
from releasekit.model.version import Range, RangeError, parse_range
from releasekit.rules.diff import (
    RULE_BUNDLE_REMOVED,
    RULE_CHANNEL_REMOVED,
    PackageCatalog,
    changed_bundles,
    in_catalog_order,
)
from releasekit.rules.graph import analyze_package, bundle_version

__all__ = [
    "DEPRECATE_HINT",
    "RULES",
    "RULE_BLOB_CHANGED",
    "RULE_CATALOG_ADDED",
    "RULE_CATALOG_DROPPED",
    "RULE_HEAD_CHANGED",
    "RULE_NOT_PINNED",
    "RULE_ROOT_MOVED",
    "RULE_SKIPRANGE_NARROWED",
    "check_blob_changes",
    "check_heads",
    "check_new_images",
    "check_repo_diff",
    "check_roots",
    "check_skip_ranges",
    "with_deprecation_hint",
]

RULE_CATALOG_DROPPED = "RK-DIFF-020"
RULE_CATALOG_ADDED = "RK-DIFF-021"
RULE_ROOT_MOVED = "RK-DIFF-022"
RULE_BLOB_CHANGED = "RK-DIFF-023"
RULE_HEAD_CHANGED = "RK-DIFF-024"
RULE_SKIPRANGE_NARROWED = "RK-DIFF-025"
RULE_NOT_PINNED = "RK-DIFF-026"

RULES: Final[dict[str, RuleFacts]] = {
    RULE_CATALOG_DROPPED: RuleFacts("a published package catalog or OpenShift catalog was dropped"),
    RULE_CATALOG_ADDED: RuleFacts("a package catalog or OpenShift catalog was added", Severity.INFO),
    RULE_ROOT_MOVED: RuleFacts("a catalog root moved to another folder", Severity.INFO),
    RULE_BLOB_CHANGED: RuleFacts("a published bundle's blob changed", Severity.WARNING),
    RULE_HEAD_CHANGED: RuleFacts("a channel's head changed", Severity.INFO),
    RULE_SKIPRANGE_NARROWED: RuleFacts("a skipRange no longer covers versions it covered", Severity.WARNING),
    RULE_NOT_PINNED: RuleFacts("a new bundle's image is not pinned by digest"),
}

DEPRECATE_HINT: Final = (
    "published bundles and channels stay in every catalog they were in (Konflux "
    "fbc-target-index-pruning-check); to retire one, keep it and deprecate it with an olm.deprecations "
    "entry (schema olm.bundle or olm.channel, with a message)"
)

Key = tuple[str, str]


def with_deprecation_hint(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """RK-DIFF-003/004 with the fix a catalog repository has: deprecate with ``olm.deprecations``."""
    return tuple(
        replace(f, hint=DEPRECATE_HINT) if f.rule in (RULE_BUNDLE_REMOVED, RULE_CHANNEL_REMOVED) else f
        for f in findings
    )


# ------------------------------------------------------------------------------------------- roots


def check_roots(
    pairing: RootPairing, base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-020 (dropped), 021 (added), 022 (moved), per package catalog of ``pairing``."""
    out = Findings()
    for pair in pairing.pairs:
        key = (pair.label, pair.package)
        old, new = base.get(key), head.get(key)
        if pair.head is None and pair.base is not None:
            bundles = sorted(b.name for b in old.config.bundles) if old is not None else []
            whole = pair.openshift in pairing.openshift_dropped
            what = (
                f"the {pair.openshift} catalog ({pair.base.path}/) was dropped"
                if whole
                else f"package {pair.package} left the {pair.label} catalog ({pair.base.path}/)"
            )
            held = f"; it held {len(bundles)} published bundles: {', '.join(bundles[:5])}" if bundles else ""
            more = f" and {len(bundles) - 5} more" if len(bundles) > 5 else ""
            hint = (
                f"expected when {pair.openshift} left support; otherwise clusters on it lose every upgrade "
                f"of {pair.package}: keep the catalog"
                if whole  # versions leave support: a warning
                else f"clusters on that OpenShift version lose every upgrade of {pair.package}; keep the "
                "catalog and deprecate what should go with olm.deprecations"
            )
            out.add(
                RULE_CATALOG_DROPPED,
                f"{what}{held}{more}",
                Location(file=old.file if old is not None else pair.base.path),
                hint,
                key,
                Severity.WARNING if whole else Severity.ERROR,
            )
        elif pair.head is not None:
            at = Location(file=new.file if new is not None else pair.head.path)
            if pair.base is None:
                out.add(
                    RULE_CATALOG_ADDED,
                    f"new {pair.openshift} catalog {pair.head.path}/ with package {pair.package}"
                    if pair.openshift in pairing.openshift_added
                    else f"package {pair.package} added to the {pair.label} catalog ({pair.head.path}/)",
                    at,
                    "check that users of the previous OpenShift version can upgrade into it",
                    key,
                    Severity.INFO,
                )
            elif pair.moved:
                out.add(
                    RULE_ROOT_MOVED,
                    f"the {pair.label} catalog of {pair.package} moved from {pair.base.path}/ to "
                    f"{pair.head.path}/",
                    at,
                    "point the catalog image's build (Containerfile, Tekton path-context) at the new folder",
                    key,
                    Severity.INFO,
                )
    return tuple(out)


# ------------------------------------------------------------------------------------------- blobs


def _blob_digest(bundle: Bundle) -> str:
    wire: dict[str, Any] = {
        "schema": "olm.bundle",
        "name": bundle.name,
        "package": bundle.package,
        "image": bundle.image,
        "properties": [{"type": p.type, "value": p.value} for p in bundle.properties],
        "relatedImages": [{"name": r.name, "image": r.image} for r in bundle.related_images or ()],
    }
    text = json.dumps(wire, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _image_digest(image: str) -> str:
    return image.rsplit("@", 1)[1] if "@" in image else image


def check_blob_changes(
    base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-023: a bundle at base and head whose blob differs; names the two digests and the fields."""
    out = Findings()
    for key, previous, bundle, shown in changed_bundles(base, head):
        if previous.image != bundle.image:
            digests = f"image {_image_digest(previous.image)} → {_image_digest(bundle.image)}"
        else:
            digests = f"blob {_blob_digest(previous)} → {_blob_digest(bundle)}"
        out.add(
            RULE_BLOB_CHANGED,
            f"published bundle {bundle.name} changed in the {key[0]} catalog: {digests} ({shown})",
            Location(file=bundle.location.file or head[key].file, line=bundle.location.line),
            "a published bundle is immutable: revert the change (a re-render with another opm or "
            "--migrate-level may cause it), or release the change as a new version",
            (key[0], key[1], bundle.name),
            Severity.WARNING,
        )
    return tuple(out)


# ------------------------------------------------------------------------------------------- heads


def _heads(config: DeclarativeConfig | None, package: str) -> dict[str, tuple[str, ...]]:
    graph = analyze_package(config, package) if config is not None else None
    return {c.name: c.heads for c in graph.channels} if graph is not None else {}


def check_heads(
    base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-024: per channel kept or added, a head that differs from the base's (a note)."""
    out = Findings()
    for key in in_catalog_order(head):
        before = _heads(base[key].config, key[1]) if key in base else {}
        after = _heads(head[key].config, key[1])
        for channel, heads in sorted(after.items()):
            old = before.get(channel)
            if old == heads or (old is None and key not in base):
                continue
            shown = ", ".join(heads) or "(none)"
            message = (
                f"{key[0]} {key[1]}: new channel {channel} has head {shown}"
                if old is None
                else f"{key[0]} {key[1]}: head of channel {channel} moved: {', '.join(old) or '(none)'} → {shown}"
            )
            cat = head[key]
            out.add(
                RULE_HEAD_CHANGED,
                message,
                Location(file=cat.file),
                "check that every bundle of the channel still upgrades to the new head",
                (key[0], key[1], channel),
                Severity.INFO,
            )
    return tuple(out)


# ------------------------------------------------------------------------------------- skipRanges


def _range(text: str) -> Range | None:
    try:
        return parse_range(text) if text else None
    except RangeError:
        return None


def check_skip_ranges(
    base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-025: an entry (same channel, same name) whose skipRange lost versions of the base's bundles."""
    out = Findings()
    for key in in_catalog_order(set(base) & set(head)):
        versions = {b.name: v for b in base[key].config.bundles if (v := bundle_version(b)) is not None}
        old_entries = {
            (c.name, e.name): e.skip_range
            for c in base[key].config.channels
            for e in c.entry_list
            if e.skip_range
        }
        for channel in head[key].config.channels:
            for entry in channel.entry_list:
                before = old_entries.get((channel.name, entry.name))
                if not before or before == entry.skip_range:
                    continue
                old_range, new_range = _range(before), _range(entry.skip_range)
                if old_range is None or (entry.skip_range and new_range is None):
                    continue  # an unparseable range is opm's finding
                lost = sorted(
                    name
                    for name, version in versions.items()
                    if name != entry.name
                    and old_range.contains(version)
                    and (new_range is None or not new_range.contains(version))
                )
                if not lost:
                    continue
                out.add(
                    RULE_SKIPRANGE_NARROWED,
                    f"{key[0]} {key[1]}: skipRange of {entry.name} in channel {channel.name} narrowed from "
                    f"{before!r} to {entry.skip_range!r}: it no longer covers {', '.join(lost)}",
                    Location(file=channel.location.file or head[key].file, line=channel.location.line),
                    "users on those versions lose this upgrade; keep the range, or give them another edge",
                    (key[0], key[1], channel.name, entry.name),
                    Severity.WARNING,
                )
    return tuple(out)


# ------------------------------------------------------------------------------------------ images


def check_new_images(
    base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[Finding, ...]:
    """RK-DIFF-026: a bundle new at head (in its catalog) whose image or a related image has no digest."""
    out = Findings()
    for key in in_catalog_order(head):
        had = {b.name for b in base[key].config.bundles} if key in base else set()
        for bundle in head[key].config.bundles:
            if bundle.name in had:
                continue
            images = [bundle.image, *(r.image for r in bundle.related_images or ())]
            loose = [image for image in images if image and not image_has_digest(image)]
            if not loose:
                continue
            out.add(
                RULE_NOT_PINNED,
                f"new bundle {bundle.name} in the {key[0]} catalog references images not pinned by "
                f"digest: {', '.join(sorted(set(loose)))}",
                Location(file=bundle.location.file or head[key].file, line=bundle.location.line),
                "reference every image as <repository>@sha256:<digest> (a tag can move under released users)",
                (key[0], key[1], bundle.name),
            )
    return tuple(out)


def check_repo_diff(
    pairing: RootPairing, base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[Finding, ...]:
    """Every rule of this module over the paired package catalogs."""
    return (
        check_roots(pairing, base, head)
        + check_blob_changes(base, head)
        + check_heads(base, head)
        + check_skip_ranges(base, head)
        + check_new_images(base, head)
    )
