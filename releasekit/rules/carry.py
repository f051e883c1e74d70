"""Published blobs carried into the new catalogs: they must agree with the release, and stay as published.

Pure rules over :class:`releasekit.model.fbc.PublishedBlob` (what the committed catalog holds) and
the bundle releasekit would generate from ``streams/`` for the same release:

a hand edit of a published bundle is drift (RK-DIFF-010: the build would put the committed blob back), and
a carried blob must agree with the release's recorded facts (RK-DIFF-011). The CSV prose (descriptions,
icons, keywords, ...) is the published text and is never compared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from releasekit.model.fbc import PROP_GVK, PROP_PACKAGE, Bundle, PublishedBlob, PublishedKey
from releasekit.model.finding import Finding, Findings, Location, Severity, make_finding

__all__ = [
    "RULES",
    "RULE_CARRIED_EDITED",
    "RULE_CARRIED_FACTS",
    "RULE_NOTHING_COMPARED",
    "check_carried_edits",
    "check_carried_facts",
    "nothing_compared",
]

RULE_CARRIED_EDITED = "RK-DIFF-010"
RULE_CARRIED_FACTS = "RK-DIFF-011"
RULE_NOTHING_COMPARED = "RK-DIFF-017"

RULES: Final[dict[str, str]] = {
    RULE_CARRIED_EDITED: "a published bundle blob was edited in the working tree",
    RULE_CARRIED_FACTS: "a published bundle blob contradicts its release's facts in streams/",
    RULE_NOTHING_COMPARED: "no committed catalog to compare with (not a git repository, or no commit yet): a note",
}


def _property(type_: str, text: Callable[[Mapping[str, Any]], str]) -> Callable[[Bundle], frozenset[str]]:
    """The texts of a bundle's properties of ``type_`` (as ``text`` spells each value)."""
    return lambda b: frozenset(
        text(p.value) for p in b.properties if p.type == type_ and isinstance(p.value, Mapping)
    )


_FACTS: tuple[tuple[str, Callable[[Bundle], frozenset[str]]], ...] = (
    ("image", lambda b: frozenset({b.image})),
    ("relatedImages", lambda b: frozenset(r.image for r in b.related_images or ())),
    ("olm.package", _property(PROP_PACKAGE, lambda v: f"{v.get('packageName', '')} {v.get('version', '')}")),
    (
        "olm.gvk",
        _property(PROP_GVK, lambda v: f"{v.get('group', '')}/{v.get('version', '')} {v.get('kind', '')}"),
    ),
)


def _listed(values: frozenset[str]) -> str:
    return ", ".join(sorted(values)) or "nothing"


def check_carried_facts(
    pairs: Iterable[tuple[PublishedKey, PublishedBlob, Bundle, Location]],
) -> tuple[Finding, ...]:
    """RK-DIFF-011 for each fact where a carried blob and the generated bundle disagree.

    ``pairs`` gives, per carried blob, the bundle generated from ``streams/`` for the same release and where
    that release is defined. Set-valued facts name only what differs.
    """
    out = Findings()
    for key, blob, generated, release_at in pairs:
        for fact, read in _FACTS:
            published, recorded = read(blob.bundle), read(generated)
            if published == recorded:
                continue
            out.add(
                RULE_CARRIED_FACTS,
                f'published bundle "{key[2]}" ({blob.revision}) has {fact} '
                f"{_listed(published - recorded)} where the release at {release_at} gives "
                f"{_listed(recorded - published)}",
                blob.location,
                f"a published bundle is carried as it is: correct the release at {release_at} "
                "to what was published",
                (key[0], key[1], f'bundle "{key[2]}"'),
            )
    return tuple(out)


def check_carried_edits(
    carried: Mapping[PublishedKey, PublishedBlob],
    working: Mapping[PublishedKey, PublishedBlob],
    working_files: Iterable[str],
) -> tuple[Finding, ...]:
    """RK-DIFF-010 for each carried blob whose working-tree copy differs from the committed one.

    ``working_files`` are the catalog files that exist in the working tree: a blob missing from an existing
    file was removed by hand; a file that is gone altogether is simply written again.
    """
    present = set(working_files)
    out = Findings()
    for key, blob in sorted(carried.items()):
        if blob.location.file not in present:
            continue
        now = working.get(key)
        if now is not None and now.text == blob.text:
            continue
        where = now.location if now is not None else Location(file=blob.location.file)
        change = "was removed from" if now is None else "differs in"
        out.add(
            RULE_CARRIED_EDITED,
            f'published bundle "{key[2]}" {change} the working tree of {blob.location.file}; '
            f"{blob.revision} has it at line {blob.location.line}",
            where,
            "published bundles are immutable: restore the file with `git checkout -- "
            f"{blob.location.file}` (a new release ships as a new bundle); after "
            "`releasekit catalog adopt`, commit the import before building",
            (key[0], key[1], f'bundle "{key[2]}"'),
        )
    return tuple(out)


def nothing_compared(display: str) -> Finding:
    """RK-DIFF-017: the catalog tree has no committed version, so nothing published was compared or carried."""
    return make_finding(
        RULE_NOTHING_COMPARED,
        f"{display} is in no git repository with a commit: nothing published was compared, and every "
        "bundle blob is generated from streams/",
        Location(file=display),
        "commit the catalogs (git init; git add; git commit) so later builds carry what was published",
        (),
        Severity.INFO,
    )
