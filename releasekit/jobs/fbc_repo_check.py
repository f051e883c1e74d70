"""``releasekit check --base REF`` in a file-based catalog repository that has no ``streams/``.

Both revisions' catalog roots are found and paired (a moved folder is a move); the roots a change touches
are judged by opm's rules and compared with the base, where everything is published unless ``--published``
says what is (:mod:`releasekit.jobs.published`). The base's own findings are the baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from releasekit.io.catalog_roots import (
    FoundRoots,
    ParseCache,
    find_catalog_roots,
    load_root,
    read_repo_config,
)
from releasekit.io.fbc_load import LOAD_RULES, LoadLimits
from releasekit.io.gitrev import (
    RepoTree,
    branch_point,
    list_revision,
    list_worktree,
    open_repo,
    resolve_commit,
)
from releasekit.jobs.check import CheckRequest, CheckResult
from releasekit.jobs.fbc_templates import check_templates
from releasekit.jobs.judge import package_catalog, package_config, package_strandings
from releasekit.jobs.published import Published, mark_published, parse_published, published_loader
from releasekit.model.catalog_root import CatalogRoot, RootPairing, pair_roots
from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Finding
from releasekit.model.report import CatalogChangeNote, FailOn, Report, match_baseline
from releasekit.rules import diff as diff_rules
from releasekit.rules import fbc_repo as repo_rules
from releasekit.rules import fbc_template as template_rules
from releasekit.rules import graph as graph_rules
from releasekit.rules.diff import PackageCatalog
from releasekit.rules.fbc import RULES as FBC_RULES
from releasekit.rules.fbc import validate_config

__all__ = ["check_trees", "run_repo_check"]

Key = tuple[str, str]


def run_repo_check(request: CheckRequest, *, limits: LoadLimits | None = None) -> CheckResult:
    """Compare the head (a revision, or the working tree) with the branch point of ``request.base``.

    Raises:
        UsageError: a ref that is unsafe or names no commit.
        InputError, SafetyLimitError: input that cannot be read or a safety limit (exit 2, one line).
    """
    limits = limits or LoadLimits()
    repo = open_repo(request.repo)
    base_commit = resolve_commit(repo, request.base, "--base")
    head_commit = resolve_commit(repo, request.head, "--head") if request.head is not None else None
    base_commit = branch_point(repo, base_commit, head_commit)
    size = limits.max_file_bytes
    base = list_revision(base_commit, rev=request.base, label=f"base {request.base}", max_file_bytes=size)
    if head_commit is None:
        head = list_worktree(request.repo, max_file_bytes=size)
    else:
        head = list_revision(
            head_commit, rev=request.head or "", label=f"head {request.head}", max_file_bytes=size
        )
    published = published_loader(request.repo, parse_published(request.published), limits)
    return check_trees(
        base, head, limits=limits, command=request.command, fail_on=request.fail_on, published=published
    )


def _signature(found: FoundRoots, root: CatalogRoot) -> tuple[tuple[str, str], ...]:
    """The root's content as (path below the root, blob id): equal when nothing opm reads changed."""
    prefix = len(root.path) + 1 if root.path != "." else 0
    return tuple((str(p)[prefix:], found.tree.files[p].sha) for p in found.content.get(root.path, ()))


class _Loaded:
    """Each root of one revision loaded once: its catalog, its load and opm findings, its files."""

    def __init__(self, found: FoundRoots, cache: ParseCache) -> None:
        self.found = found
        self.cache = cache
        self.roots: dict[str, tuple[DeclarativeConfig, tuple[Finding, ...], tuple[str, ...]]] = {}

    def root(self, root: CatalogRoot) -> tuple[DeclarativeConfig, tuple[Finding, ...], tuple[str, ...]]:
        loaded = self.roots.get(root.path)
        if loaded is None:
            config, load_findings, files = load_root(self.found, root, self.cache)
            loaded = (config, (*load_findings, *validate_config(config)), files)
            self.roots[root.path] = loaded
        return loaded

    def package(self, root: CatalogRoot, label: str, package: str) -> PackageCatalog:
        return package_catalog(label, package, package_config(self.root(root)[0], package), root.path)


def check_trees(
    base: RepoTree,
    head: RepoTree,
    *,
    limits: LoadLimits | None = None,
    command: str = "check",
    fail_on: FailOn = FailOn.ERROR,
    published: Callable[[set[str]], Published] | None = None,
) -> CheckResult:
    """The check of ``head`` against ``base`` (see the module docstring); nothing is printed."""
    cache = ParseCache(limits=limits or LoadLimits())
    config = read_repo_config(head)
    base_found = find_catalog_roots(base, cache=cache, config=config)
    head_found = find_catalog_roots(head, cache=cache, config=config, carried=base_found.roots)
    # a catalog broken at base and repaired at head is the same root at both (parsing is cached)
    base_found = find_catalog_roots(base, cache=cache, config=config, carried=head_found.roots)
    pairing = pair_roots(base_found.roots, head_found.roots)
    old, new = _Loaded(base_found, cache), _Loaded(head_found, cache)

    touched = [
        pair
        for pair in pairing.pairs
        if pair.base is None
        or pair.head is None
        or _signature(base_found, pair.base) != _signature(head_found, pair.head)
    ]
    packages = {pair.package for pair in touched}
    findings: list[Finding] = list(config.findings)
    baseline: list[Finding] = []
    checked: list[str] = []

    # the touched roots at head (and at base, for the baseline): load problems and opm's rules
    for root in sorted(
        {p.head.path: p.head for p in touched if p.head is not None}.values(), key=lambda r: r.path
    ):
        _config, root_findings, files = new.root(root)
        findings.extend(root_findings)
        checked.extend(files)
    for root in sorted(
        {p.base.path: p.base for p in touched if p.base is not None}.values(), key=lambda r: r.path
    ):
        baseline.extend(old.root(root)[1])

    base_cats: dict[Key, PackageCatalog] = {}
    head_cats: dict[Key, PackageCatalog] = {}
    for pair in pairing.pairs:
        if pair.package not in packages:
            continue
        if pair.base is not None:
            base_cats[(pair.label, pair.package)] = old.package(pair.base, pair.label, pair.package)
        if pair.head is not None:
            head_cats[(pair.label, pair.package)] = new.package(pair.head, pair.label, pair.package)

    # the comparison with the base: everything in the base is published
    kept = {k: c for k, c in base_cats.items() if k in head_cats}  # a dropped catalog is RK-DIFF-020's alone
    changes = diff_rules.summarize_changes(base_cats, head_cats)
    findings.extend(diff_rules.check_changes(changes))
    findings.extend(repo_rules.with_deprecation_hint(diff_rules.check_pruning(kept, head_cats)))
    findings.extend(diff_rules.check_stranded(kept, head_cats))
    findings.extend(repo_rules.check_repo_diff(pairing, base_cats, head_cats))
    upgrades, known = _openshift_upgrades(pairing, base_cats, head_cats)
    findings.extend(upgrades)
    baseline.extend(known)
    drift, known_drift = check_templates(pairing.pairs, touched, old, new)  # RK-DIFF-027
    findings.extend(drift)
    baseline.extend(known_drift)
    if published is not None:  # --published: what each OpenShift catalog released, for its packages
        findings = mark_published(findings, pairing, published(packages))

    report = Report(
        command=command,
        findings=tuple(dict.fromkeys(findings)),
        checked=tuple(sorted(set(checked))),
        rules=tuple(
            sorted(
                {
                    *LOAD_RULES,
                    *FBC_RULES,
                    diff_rules.RULE_CHANGES,
                    diff_rules.RULE_BUNDLE_REMOVED,
                    diff_rules.RULE_CHANNEL_REMOVED,
                    diff_rules.RULE_STRANDED,
                    *repo_rules.RULES,
                    *template_rules.RULES,
                    "RK-GRAPH-010",
                }
            )
        ),
        changes=tuple(
            CatalogChangeNote(openshift=c.openshift, package=c.package, lines=c.lines()) for c in changes
        ),
    )
    states, fixed = match_baseline(report.findings, baseline)
    report = replace(report, baseline=states, fixed=fixed, fail_on=fail_on)
    keys = tuple(sorted((p.label, p.package) for p in touched))
    return CheckResult(report=report, touched=keys, packages=packages)


def _openshift_upgrades(
    pairing: RootPairing, base: Mapping[Key, PackageCatalog], head: Mapping[Key, PackageCatalog]
) -> tuple[list[Finding], list[Finding]]:
    """RK-GRAPH-010 at head (new strandings errors) and the base's own, per package, each version to the next.

    Only catalogs whose label is their OpenShift version take part.
    """
    versioned = {
        (p.label, p.package) for p in pairing.pairs if p.openshift is not None and p.label == p.openshift
    }
    before = [c for k, c in base.items() if k in versioned]
    after = [c for k, c in head.items() if k in versioned]
    severity = graph_rules.published_severity(
        graph_rules.published_pairs((c.openshift, c.config) for c in before)
    )
    return package_strandings(after, severity), package_strandings(before, severity)
