"""``check --published OCP=FILE|REV``: which bundles each OpenShift catalog has released.

``FILE`` is a rendered index (``opm render``, read in pieces); ``REV`` a revision whose catalog says it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

from releasekit.errors import InputError, SafetyLimitError, UsageError, printable
from releasekit.io.catalog_roots import ParseCache, find_catalog_roots, load_root, read_repo_config
from releasekit.io.fbc_load import LoadLimits, load_catalog_files
from releasekit.io.gitrev import list_revision, open_repo, resolve_commit
from releasekit.io.inputs import iter_input
from releasekit.model.catalog_root import RootPairing
from releasekit.model.finding import Finding, Severity
from releasekit.rules.diff import RULE_BUNDLE_REMOVED
from releasekit.rules.fbc_repo import RULE_BLOB_CHANGED, RULE_CATALOG_DROPPED

__all__ = ["Published", "mark_published", "parse_published", "published_loader"]

Published = Mapping[str, frozenset[tuple[str, str]]]
"""OpenShift version (``v4.18``) → the ``(package, bundle name)`` pairs released there."""

_OCP = re.compile(r"v?([1-9][0-9]?)\.([0-9]{1,3})")
_BORDERS = {  # where one object ends and the next begins: a newline is never inside a JSON string
    "json": re.compile(rb"\}[ \t\r]*\n[ \t\r\n]*\{"),
    "yaml": re.compile(rb"\n(?=---[ \t\r\n])"),
}
_CHUNK = 1 << 23


def parse_published(specs: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """``(OpenShift version, FILE or REV)`` of each ``--published`` value.

    Raises:
        UsageError: a value that is not ``OCP=FILE|REV`` (as ``v4.18=index.json``).
    """
    out = []
    for spec in specs:
        ocp, sep, source = spec.partition("=")
        match = _OCP.fullmatch(ocp.strip())
        if not sep or not source or match is None:
            raise UsageError(
                f"--published {printable(spec)!r}: expected OCP=FILE|REV, as v4.18=index.json or v4.18=origin/main"
            )
        out.append((f"v{int(match[1])}.{int(match[2])}", source))
    return tuple(out)


def published_loader(
    repo: Path, specs: tuple[tuple[str, str], ...], limits: LoadLimits
) -> Callable[[set[str]], Published] | None:
    """What loads, for the given packages, the bundles ``specs`` say were released (None without specs).

    A source that exists as a path is a rendered index file; anything else is a revision of ``repo``.
    """
    if not specs:
        return None

    def load(packages: set[str]) -> Published:
        out: dict[str, set[tuple[str, str]]] = {}
        for ocp, source in specs:
            found = (
                _from_file(source, packages, limits)
                if os.path.lexists(source)
                else _from_revision(repo, ocp, source, packages, limits)
            )
            out.setdefault(ocp, set()).update(found)
        return {ocp: frozenset(pairs) for ocp, pairs in out.items()}

    return load


def _pieces(chunks: Iterable[bytes], limit: int, shown: str) -> Iterator[tuple[int, bytes]]:
    """``(first line, bytes)`` of each piece of a JSON or YAML stream, cut only between objects."""
    border: re.Pattern[bytes] | None = None
    tail, line = b"", 1
    for chunk in chunks:
        buffer = tail + chunk
        if border is None:
            lead = buffer.lstrip(b" \t\r\n\xef\xbb\xbf")
            if not lead:
                tail = buffer
                continue
            border = _BORDERS["json" if lead.startswith(b"{") else "yaml"]
        start = 0
        for match in border.finditer(buffer, max(0, len(tail) - 64)):
            cut = match.start() + 1
            yield line, buffer[start:cut]
            line += buffer.count(b"\n", start, cut)
            start = cut
        tail = buffer[start:]
        if len(tail) > limit:
            raise SafetyLimitError(f"{shown}:{line}: one object over the {limit:,}-byte limit; refusing it")
    if tail.strip():
        yield line, tail


def _from_file(path: str, packages: set[str], limits: LoadLimits) -> set[tuple[str, str]]:
    """The released bundles of ``packages`` in a rendered index, read in pieces (only theirs decoded)."""
    shown = printable(path)
    needles = [p.encode() for p in packages]
    found: set[tuple[str, str]] = set()
    catalog_seen = False
    # any file the user names (a link may point anywhere); no size limit: it is read in pieces
    chunks = iter_input(path, root="/", display=shown, max_bytes=None, what="--published", chunk=_CHUNK)
    for line, piece in _pieces(chunks, limits.max_file_bytes, shown):
        catalog_seen = catalog_seen or b"olm.package" in piece
        if not any(n in piece for n in needles):
            continue
        loaded = load_catalog_files({shown: piece}, limits)
        bad = next((f for f in loaded.findings if f.severity is Severity.ERROR), None)
        if bad is not None:
            raise InputError(f"{shown}:{line + (bad.location.line or 1) - 1}: {bad.message}")
        found.update((b.package, b.name) for b in loaded.config.bundles if b.package in packages)
    if not catalog_seen:
        raise InputError(f"{shown}: no olm.package in it: not a rendered index (opm render INDEX -o json)")
    return found


def _from_revision(
    repo: Path, ocp: str, source: str, packages: set[str], limits: LoadLimits
) -> set[tuple[str, str]]:
    """The bundles of ``packages`` in the ``ocp`` catalog roots of revision ``source``."""
    try:
        commit = resolve_commit(open_repo(repo), source)
    except UsageError:
        raise UsageError(
            f"--published {ocp}={printable(source)}: no such file, and no revision git resolves to a commit"
        ) from None
    tree = list_revision(commit, rev=source, max_file_bytes=limits.max_file_bytes)
    cache = ParseCache(limits=limits)
    found = find_catalog_roots(tree, cache=cache, config=read_repo_config(tree))
    return {
        (b.package, b.name)
        for root in found.roots
        if root.openshift == ocp
        for b in load_root(found, root, cache)[0].bundles
        if b.package in packages
    }


_BY_BUNDLE = (RULE_BLOB_CHANGED, RULE_BUNDLE_REMOVED)


def mark_published(findings: Iterable[Finding], pairing: RootPairing, published: Published) -> list[Finding]:
    """RK-DIFF-023 an error for a released bundle; RK-DIFF-003 (and 020 for a package) a note if never released.

    Only in the catalogs of an OpenShift version ``published`` names; elsewhere the base is published.
    """
    openshift = {p.label: p.openshift for p in pairing.pairs}
    out = []
    for f in findings:
        ocp = openshift.get(f.subject[0]) if f.rule in (*_BY_BUNDLE, RULE_CATALOG_DROPPED) else None
        released = published.get(ocp or "")
        if released is not None and f.rule == RULE_CATALOG_DROPPED and f.severity is Severity.ERROR:
            if not any(package == f.subject[1] for package, _ in released):  # a package, not a whole catalog
                message = f.message.replace(" published bundles", " bundles", 1)
                f = replace(
                    f,
                    severity=Severity.INFO,
                    message=f"{message} (never released in {ocp}: --published)",
                    hint="a package never released may go",
                )
            out.append(f)
            continue
        if released is None or len(f.subject) != 3:
            out.append(f)
            continue
        name = f"bundle {f.subject[2]}"
        if f.subject[1:] in released and f.rule == RULE_BLOB_CHANGED:
            f = replace(
                f,
                severity=Severity.ERROR,
                message=f.message.replace(f"published {name}", f"released {name}", 1)
                + f" (released in {ocp}: --published)",
            )
        elif f.subject[1:] not in released:
            never = f"{name} (never released in {ocp}: --published)"
            f = replace(f, message=f.message.replace(f"published {name}", never, 1))
            if f.rule == RULE_BUNDLE_REMOVED:
                f = replace(f, severity=Severity.INFO, hint="a bundle never released may go")
        out.append(f)
    return out
