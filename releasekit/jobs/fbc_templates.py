"""RK-DIFF-027 in ``check --base`` of a catalog repository: each root's opm template still renders its catalog.

A root's template is ``catalog-template.json|yaml|yml`` in its folder, or in its parent when no other root
is there (openshift/kueue-fbc). Drift the base already had is a warning, new drift an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Protocol

from releasekit.io.bundle_source import config_from_entries
from releasekit.io.catalog_roots import FoundRoots
from releasekit.io.fbc_load import load_catalog_text
from releasekit.model.catalog_root import CatalogRoot, RootPair
from releasekit.model.fbc import Bundle, DeclarativeConfig
from releasekit.model.finding import Finding, Location, Severity
from releasekit.plan.template_basic import (
    TemplateRenderError,
    basic_entries,
    detect_template_type,
    render_basic,
)
from releasekit.plan.template_semver import parse_semver, render_semver
from releasekit.rules.fbc_template import check_template, template_finding

__all__ = ["check_templates", "template_path"]

TEMPLATE_NAMES = ("catalog-template.json", "catalog-template.yaml", "catalog-template.yml")
_FBC_SCHEMAS = frozenset({"olm.package", "olm.channel", "olm.bundle", "olm.deprecations"})


class Revision(Protocol):
    """One revision's roots, each loaded once (the check's own loader)."""

    found: FoundRoots

    def root(self, root: CatalogRoot) -> tuple[DeclarativeConfig, tuple[Finding, ...], tuple[str, ...]]:
        """The root's catalog, its findings and its files."""
        ...


def _within(path: str, folder: PurePosixPath) -> bool:
    return str(folder) == "." or path == str(folder) or path.startswith(f"{folder}/")


def template_path(found: FoundRoots, root: CatalogRoot) -> PurePosixPath | None:
    """The template of ``root``: in its folder, else in its parent when no other root is there."""
    folders = [PurePosixPath(root.path)]
    parent = folders[0].parent
    if root.path != "." and not any(r.path != root.path and _within(r.path, parent) for r in found.roots):
        folders.append(parent)
    return next((f / n for f in folders for n in TEMPLATE_NAMES if f / n in found.tree.files), None)


def check_templates(
    pairs: Iterable[RootPair], touched: Iterable[RootPair], base: Revision, head: Revision
) -> tuple[list[Finding], list[Finding]]:
    """RK-DIFF-027 at head for each root whose catalog or template changed, and the base's own (baseline)."""
    found: list[Finding] = []
    known: list[Finding] = []
    changed = set(touched)
    by_root: dict[str, list[RootPair]] = {}
    for pair in pairs:
        if pair.head is not None:
            by_root.setdefault(pair.head.path, []).append(pair)
    for group in by_root.values():  # a root holding several packages is judged once
        pair = next((p for p in group if p.base is not None), group[0])
        path = template_path(head.found, pair.head) if pair.head is not None else None
        old = template_path(base.found, pair.base) if pair.base is not None else None
        if path is None or pair.head is None:
            continue
        sha = head.found.tree.files[path].sha
        if changed.intersection(group) or old is None or base.found.tree.files[old].sha != sha:
            now = _judge(head, pair.head, path, pair.label)
            before = _judge(base, pair.base, old, pair.label) if old is not None and pair.base else []
            if before:
                now = [replace(f, severity=Severity.WARNING) for f in now]
                known.extend(replace(f, severity=Severity.WARNING) for f in before)
            found.extend(now)
    return found, known


class _Unresolved(TemplateRenderError):
    def __init__(self, image: str) -> None:
        super().__init__(image)
        self.image = image


def _resolver(rev: Revision, root: CatalogRoot, own: DeclarativeConfig) -> Callable[[str], Sequence[Bundle]]:
    """Each image to a blob with that image (in its own root, one of the same digest), else the other roots'."""
    index = {key: b for b in reversed(own.bundles) for key in (b.image, b.image.partition("@")[2]) if key}
    others = (rev.root(r)[0] for r in rev.found.roots if r.path != root.path)

    def resolve(image: str) -> Sequence[Bundle]:
        while (found := index.get(image) or index.get(image.partition("@")[2] or image)) is None:
            config = next(others, None)
            if config is None:
                raise _Unresolved(image)
            for bundle in config.bundles:
                index.setdefault(bundle.image, bundle)
        return [found]

    return resolve


def _judge(rev: Revision, root: CatalogRoot, path: PurePosixPath, label: str) -> list[Finding]:
    """The template of one root rendered and compared with its catalog."""
    file = str(path)
    data = rev.found.tree.files[path].read()
    metas, problems = load_catalog_text(data, file)
    fix = f"fix {file}: opm alpha render-template fails on it too"
    if problems or not metas:
        where = problems[0].location if problems else Location(file=file)
        what = problems[0].message if problems else "no document"
        return [template_finding(f"template {file} cannot be read: {what}", where, fix, label)]
    first = metas[0]
    committed = rev.root(root)[0]
    catalog = next((b.location.file for b in committed.bundles if b.location.file), root.path)
    kind = "basic" if first.schema in _FBC_SCHEMAS else ""
    output = "json" if catalog.endswith(".json") else "yaml"

    def regenerate() -> str:
        return (
            f"regenerate the catalog: opm alpha render-template {kind} {file} -o {output} > {catalog} "
            "(or the repository's script); an edit meant for the catalog belongs in the template"
        )

    try:
        kind = kind or detect_template_type(first.data)
        resolve = _resolver(rev, root, committed)
        if kind == "semver":
            template = parse_semver(first.data)
            renderings = [render_semver(template, resolve), render_semver(template, resolve, legacy=True)]
        elif kind == "basic":
            entries = [m.data for m in metas] if first.schema in _FBC_SCHEMAS else basic_entries(first.data)
            config, errors = config_from_entries(entries, file)
            if errors:
                raise TemplateRenderError(errors[0])
            renderings = [render_basic(config, resolve)]
        else:
            return []  # substitutes templates: not rendered by releasekit
    except _Unresolved as exc:
        at = data.find(exc.image.encode())
        where = Location(file=file, line=data.count(b"\n", 0, at) + 1 if at >= 0 else first.location.line)
        message = (
            f"bundle image {exc.image} of template {file} is in no catalog: the template entry was added or "
            f"changed, the {label} catalog not regenerated"
        )
        return [template_finding(message, where, regenerate(), label)]
    except (ValueError, TypeError) as exc:  # TemplateRenderError, or content no renderer expects
        message = f"template {file} cannot be rendered: {exc}"
        return [template_finding(message, first.location, fix, label)]
    return list(check_template(renderings, committed, label=label, template=file, hint=regenerate()))
