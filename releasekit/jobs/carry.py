"""Published bundles carried byte for byte: read them from git, choose them, and judge them."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from releasekit.io.fbc_blobs import published_blobs
from releasekit.io.gitrev import FileRef, file_history, is_shallow
from releasekit.io.inputs import read_input
from releasekit.model.fbc import Bundle, PublishedBlob, PublishedKey
from releasekit.model.finding import Finding, Location
from releasekit.model.layout import CatalogLayout
from releasekit.model.stream import Stream
from releasekit.plan.carry import carried_blobs
from releasekit.rules.carry import (
    RULE_CARRIED_FACTS,
    check_carried_edits,
    check_carried_facts,
)

__all__ = ["carried_at", "carried_at_head", "carry_findings", "history_hints", "working_findings"]


def _shown(display: str) -> str:
    return display.rstrip("/") or "."


def carried_at(
    files: Mapping[PurePosixPath, Callable[[], bytes]],
    streams: Sequence[Stream],
    layout: CatalogLayout,
    *,
    display: str,
    revision: str,
) -> dict[PublishedKey, PublishedBlob]:
    """The blobs a build carries from the committed tree ``files`` (paths relative to the layout's root)."""
    published = published_blobs(files, layout, display_root=_shown(display), revision=revision)
    return carried_blobs(streams, published)


def carried_at_head(
    committed: tuple[Mapping[PurePosixPath, FileRef], str] | None,
    streams: Sequence[Stream],
    layout: CatalogLayout,
    *,
    display: str,
    committed_bytes: dict[PurePosixPath, bytes] | None = None,
) -> dict[PublishedKey, PublishedBlob]:
    """The blobs a build carries from the catalog tree as committed at HEAD."""
    if committed is None:
        return {}
    files, label = committed
    readers: dict[PurePosixPath, Callable[[], bytes]] = {rel: ref.read for rel, ref in files.items()}
    carried = carried_at(readers, streams, layout, display=display, revision=label)
    if committed_bytes is not None:  # the package catalogs just decoded (FileRef keeps what it read)
        catalogs = [
            rel for rel in files if rel.name == "catalog.json" and layout.catalog_key(rel) is not None
        ]
        committed_bytes.update({rel: files[rel].read() for rel in catalogs})
    return carried


def carry_findings(
    carried: Mapping[PublishedKey, PublishedBlob],
    regenerated: Mapping[PublishedKey, Bundle],
    streams: Sequence[Stream],
) -> list[Finding]:
    """RK-DIFF-011 for carried blobs that contradict their release's facts."""
    defined: dict[tuple[str, str], Location] = {
        (s.package, r.csv_name(s.package)): r.origin.at("") for s in streams for r in s.releases
    }
    pairs = [
        (key, blob, bundle, defined.get((key[1], key[2]), Location()))
        for key, blob in sorted(carried.items())
        if (bundle := regenerated.get(key)) is not None
    ]
    return list(check_carried_facts(pairs))


def working_findings(
    catalog_dir: Path,
    carried: Mapping[PublishedKey, PublishedBlob],
    layout: CatalogLayout,
    *,
    display: str,
    committed_bytes: Mapping[PurePosixPath, bytes] | None = None,
) -> list[Finding]:
    """RK-DIFF-010 for carried blobs edited (or removed) in the working tree of ``catalog_dir``."""
    if not carried or not catalog_dir.is_dir():
        return []
    shown = _shown(display)
    changed: dict[PurePosixPath, Callable[[], bytes]] = {}
    unchanged: set[str] = set()
    names: list[str] = []
    for path in sorted(catalog_dir.glob(f"*/{layout.fbc_dir}/*/catalog.json")):  # not a whole repository
        rel = PurePosixPath(path.relative_to(catalog_dir).as_posix())
        links = any(catalog_dir.joinpath(*rel.parts[: i + 1]).is_symlink() for i in range(len(rel.parts)))
        if layout.catalog_key(rel) is None or links:  # the glob follows links
            continue  # a link is never followed: what lies behind it is not the repository's catalog
        name = f"{shown}/{rel}" if shown != "." else str(rel)
        names.append(name)
        data = read_input(path, root=catalog_dir, display=name, links=False, what="the catalog tree")
        if committed_bytes is not None and committed_bytes.get(rel) == data:
            unchanged.add(name)  # still the committed file: its blobs are the carried ones, byte for byte
        else:
            changed[rel] = functools.partial(bytes, data)
    working = published_blobs(changed, layout, display_root=shown, revision="working tree")
    working.update({key: blob for key, blob in carried.items() if blob.location.file in unchanged})
    return list(check_carried_edits(carried, working, names))


def history_hints(
    findings: Sequence[Finding],
    carried: Mapping[PublishedKey, PublishedBlob],
    catalog_dir: Path,
    layout: CatalogLayout,
    *,
    display: str,
) -> list[Finding]:
    """RK-DIFF-011 hints that point the right way when the committed blob was changed after publishing."""
    shown = _shown(display)
    hint_for = functools.cache(  # git history is read once per blob, and only for such findings
        lambda key: _changed_after_publishing(carried[key], key, catalog_dir, layout, shown)
    )
    out: list[Finding] = []
    for finding in findings:
        key = _carried_key(finding)
        hint = hint_for(key) if finding.rule == RULE_CARRIED_FACTS and key in carried else None
        out.append(replace(finding, hint=hint) if hint else finding)
    return out


def _carried_key(finding: Finding) -> PublishedKey | None:
    subject = finding.subject
    if len(subject) != 3 or not subject[2].startswith('bundle "'):
        return None
    return (subject[0], subject[1], subject[2][len('bundle "') : -1])


def _changed_after_publishing(
    blob: PublishedBlob, key: PublishedKey, catalog_dir: Path, layout: CatalogLayout, shown: str
) -> str | None:
    """The hint for a blob committed at HEAD that differs from the one first published, else None."""
    name = blob.location.file
    rel = PurePosixPath(name[len(shown) + 1 :] if shown != "." and name.startswith(shown + "/") else name)
    history = file_history(catalog_dir.joinpath(*rel.parts))
    shallow = is_shallow(catalog_dir)
    deepen = (
        "this clone is shallow, so releasekit cannot tell whether the committed blob is the one first "
        "published: run `git fetch --unshallow` and build again; if it is, "
    )
    first: tuple[str, str] | None = None  # (commit, text) of the first version that held the bundle
    for version in history or ():
        if version.data is None:
            continue
        commit = version.commit
        blobs = published_blobs(
            {rel: functools.partial(bytes, version.data)}, layout, display_root=shown, revision=commit
        )
        now = blobs.get(key)
        if now is None:
            continue
        if first is None:
            first = (commit, now.text)
        elif now.text != first[1]:
            if blob.text == first[1]:
                return None  # changed, then put back: HEAD holds what was published
            changer, subject = commit[:12], version.subject
            return (
                f"the committed blob is not the one first published: commit {first[0][:12]} published it "
                f"and commit {changer} ({subject}) changed it; undo that change in a commit (`git revert "
                f"{changer}`, or `git checkout {changer}^ -- {name}` and commit), then build again; correct "
                "streams/ only if what was first published is wrong"
            )
    return deepen + f"correct the release to what was published ({name})" if shallow else None
