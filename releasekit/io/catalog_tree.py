"""Read a committed catalog tree (``catalog/v<X.Y>/{Containerfile,configs/<package>/catalog.json}``).

Adapter module: finds each fragment's Containerfile and FBC root, loads the FBC with
:func:`releasekit.io.fbc_load.load_catalog`, and describes the fragment for the Konflux rules. The
Kueue FBC repository's own layout (``v<X.Y>/catalog/<package>/catalog.json`` beside
``Containerfile.catalog``) is read too, so published catalogs can be checked as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from releasekit.errors import InputError
from releasekit.io.fbc_load import LOAD_RULES, LoadLimits, LoadResult, load_catalog
from releasekit.model.fbc import DeclarativeConfig
from releasekit.model.finding import Finding, Severity
from releasekit.rules.konflux import RULE_IDS as KONFLUX_RULES
from releasekit.rules.konflux import FragmentFacts

if TYPE_CHECKING:
    from releasekit.rules.graph import GraphPolicy, Stranding

__all__ = ["CONTAINERFILES", "FBC_ROOTS", "Fragment", "find_fragments", "read_fragment", "validate_tree"]

FBC_ROOTS = ("configs", "catalog")
CONTAINERFILES = ("Containerfile", "Containerfile.catalog", "Dockerfile")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fragment:
    """One fragment on disk: its folder, where its FBC root is, what loading found, and its facts."""

    folder: Path
    root: Path | None
    loaded: LoadResult | None
    facts: FragmentFacts


def find_fragments(tree: Path) -> list[Path]:
    """Fragment folders under ``tree``: every sub-folder that has an FBC root or a Containerfile.

    Raises:
        InputError: ``tree`` is not a readable folder.
    """
    if not tree.is_dir():
        raise InputError(f"{tree}: catalog tree not found (expected a folder of v<X.Y> fragments)")
    found = []
    for child in sorted(tree.iterdir()):
        if not child.is_dir() or child.name.startswith("."):
            continue
        if any((child / r).is_dir() for r in FBC_ROOTS) or any((child / c).is_file() for c in CONTAINERFILES):
            found.append(child)
    return found


def read_fragment(folder: Path, limits: LoadLimits | None = None) -> Fragment:
    """Load one fragment folder."""
    limits = limits or LoadLimits()
    root = next((folder / r for r in FBC_ROOTS if (folder / r).is_dir()), None)
    containerfile = next((folder / c for c in CONTAINERFILES if (folder / c).is_file()), None)
    text = None
    if containerfile is not None:
        try:
            text = containerfile.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{containerfile}: cannot read: {exc}") from None
    loaded = load_catalog(root, limits) if root is not None else None
    package_files: list[tuple[str, str, str]] = []
    if root is not None:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.name != ".indexignore":
                rel = path.relative_to(root)
                package = rel.parts[0] if len(rel.parts) == 2 else ""
                package_files.append((package, path.name, str(path)))
    facts = FragmentFacts(
        folder=folder.name,
        folder_path=str(folder),
        containerfile=text,
        containerfile_path=str(containerfile) if containerfile else "",
        package_files=tuple(package_files),
        config=loaded.config
        if loaded is not None
        else FragmentFacts(folder="", folder_path="", containerfile=None).config,
    )
    return Fragment(folder=folder, root=root, loaded=loaded, facts=facts)


def _package_config(config: DeclarativeConfig, package: str) -> DeclarativeConfig:
    return DeclarativeConfig(
        packages=tuple(p for p in config.packages if p.name == package),
        channels=tuple(c for c in config.channels if c.package == package),
        bundles=tuple(b for b in config.bundles if b.package == package),
        deprecations=tuple(d for d in config.deprecations if d.package == package),
    )


def validate_tree(
    tree: Path,
    limits: LoadLimits | None = None,
    *,
    policies: Mapping[str, GraphPolicy] | None = None,
    upgrade_order: Sequence[str] = (),
    stranding_severity: Severity | Callable[[Stranding], Severity] = Severity.WARNING,
    upgrade_edges: Sequence[tuple[str, str]] | None = None,
) -> tuple[list[Finding], list[str], tuple[str, ...]]:
    """Load and check every fragment of a catalog tree: opm's rules, Konflux's layout, the upgrade graph.

    ``policies`` gives each package's graph policy (from its stream; others get the default policy,
    where an island channel is a warning). ``upgrade_order`` lists OpenShift versions in cluster-upgrade
    order: consecutive fragments are checked for users an OpenShift upgrade strands, at
    ``stranding_severity`` (warnings for what is already published; ``check`` makes new ones errors);
    ``upgrade_edges`` (the OpenShift lifecycle's ``(from, to)`` pairs) replaces consecutive order.
    Returns the findings (lines refined inside objects), the files read, and the rule ids that ran.
    """
    from releasekit.io.fbc_locate import refine_locations
    from releasekit.rules.fbc import RULES as FBC_RULES
    from releasekit.rules.fbc import validate_config
    from releasekit.rules.graph import DEFAULT_POLICY, check_graph, check_openshift_upgrades
    from releasekit.rules.graph import RULES as GRAPH_RULES
    from releasekit.rules.konflux import check_fragment

    findings: list[Finding] = []
    checked: list[str] = []
    configs: dict[str, DeclarativeConfig] = {}
    files: dict[str, str] = {}
    for folder in find_fragments(tree):
        fragment = read_fragment(folder, limits)
        if fragment.loaded is not None:
            config = fragment.loaded.config
            findings.extend(fragment.loaded.findings)
            findings.extend(validate_config(config))
            checked.extend(fragment.loaded.files)
            for package in sorted({p.name for p in config.packages}):
                policy = (policies or {}).get(package, DEFAULT_POLICY)
                shown = str(fragment.root / package) if fragment.root else str(folder)
                findings.extend(check_graph(_package_config(config, package), policy, file=shown))
            configs[folder.name] = config
            files[folder.name] = str(fragment.root)
        findings.extend(check_fragment(fragment.facts))
    ordered = [(v, configs[v]) for v in upgrade_order if v in configs]
    if len(ordered) > 1:
        findings.extend(
            check_openshift_upgrades(ordered, severity=stranding_severity, files=files, edges=upgrade_edges)
        )
    rules = (
        *LOAD_RULES,
        *sorted(FBC_RULES),
        *KONFLUX_RULES,
        *sorted(GRAPH_RULES),
    )
    return list(refine_locations(findings)), checked, tuple(rules)
