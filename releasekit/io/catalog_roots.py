"""Find the catalog roots of a file-based catalog repository at one revision, and load them.

Adapter module (reads a :class:`~releasekit.io.gitrev.RepoTree`: a git revision or the working tree).
A *catalog root*, the folder a catalog image serves as ``/configs``, is, in this order:

1. each of ``releasekit.yaml``'s ``catalogRepository.roots`` (then nothing is guessed, nothing else read);
2. the folder a Containerfile (``Containerfile*``, ``Dockerfile*``, ``*.Dockerfile``) copies to ``/configs``,
   resolved beside the Containerfile, else from the repository root;
3. the folders of the FBC objects (:func:`releasekit.model.catalog_root.object_roots`).

Every ``.json``/``.yaml``/``.yml`` file outside hidden folders is parsed once per blob (:class:`ParseCache`,
shared by both revisions). Templates (``olm.semver``, ``olm.template.basic``, ``olm.template.substitutes``,
or only ``olm.bundle`` images), Tekton files and Containerfiles are never content; inside a root every
other file is, as opm parses it, but what ``.indexignore`` files (gitignore syntax) exclude. A root's
OpenShift version: ``roots[].openshift``, else ``versionPattern`` on its path, else guessed from the path
(:func:`releasekit.model.catalog_root.guess_openshift`), else the registry base image tag its
Containerfile starts FROM. A link, submodule or special file inside a root, or a possible catalog file
refused by a safety limit, is refused (exit 2): a catalog nobody read never passes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from releasekit.errors import InputError, ReleasekitError, SafetyLimitError, printable
from releasekit.io.config import CONFIG_FILE, RULE_CONFIG
from releasekit.io.fbc_load import LoadLimits, decode_metas, indexignore_spec, indexignored, load_catalog_text
from releasekit.io.gitrev import RepoTree
from releasekit.io.streams import parse_document
from releasekit.model.catalog_root import (
    CatalogRoot,
    RootSource,
    guess_openshift,
    object_roots,
    parse_containerfile,
)
from releasekit.model.fbc import DeclarativeConfig, Meta
from releasekit.model.finding import Finding

__all__ = [
    "CONFIG_FILE",
    "FoundRoots",
    "ParseCache",
    "RepoConfig",
    "find_catalog_roots",
    "load_root",
    "read_repo_config",
]

FBC_SCHEMAS = frozenset({"olm.package", "olm.channel", "olm.bundle", "olm.deprecations"})
TEMPLATE_SCHEMAS = frozenset({"olm.semver", "olm.template.basic", "olm.template.substitutes"})
CANDIDATE_SUFFIXES = (".json", ".yaml", ".yml")
NEVER_CONTENT_FOLDERS = frozenset({".git", ".github", ".gitlab", ".tekton"})
_CONTAINERFILE = re.compile(
    r"^(?:(?:Containerfile|Dockerfile)(?:\.[^/]*)?|[^/]*\.(?:Containerfile|Dockerfile))$", re.I
)
_MAX_CONTAINERFILE_BYTES = 1024 * 1024
_TEKTON = re.compile(rb"(?m)^apiVersion:[ \t]*[\"']?tekton\.dev/")


# ------------------------------------------------------------------------------------ configuration


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoConfig:
    """``releasekit.yaml``'s ``catalogRepository``: roots listed (path, OpenShift version) and a version pattern."""

    roots: tuple[tuple[str, str | None], ...] = ()
    version_pattern: str | None = None
    findings: tuple[Finding, ...] = ()

    def version_of(self, path: str) -> str | None:
        """The OpenShift version ``versionPattern`` reads from ``path`` (its deepest component that matches)."""
        if not self.version_pattern:  # the schema allows one ``*`` at most: it cannot backtrack far
            return None
        tokens = re.split(r"(\{major\}|\{minor\}|\*)", self.version_pattern)
        pattern = re.compile("".join(_PATTERN_TOKENS.get(t, re.escape(t)) for t in tokens))
        matches = (pattern.fullmatch(part) for part in reversed(path.split("/")) if len(part) <= 255)
        match = next((m for m in matches if m), None)
        return f"v{int(match['major'])}.{int(match['minor'])}" if match else None


_PATTERN_TOKENS = {"{major}": r"(?P<major>[0-9]{1,9})", "{minor}": r"(?P<minor>[0-9]{1,9})", "*": r"[^/]*"}


def read_repo_config(tree: RepoTree) -> RepoConfig:
    """``catalogRepository`` of ``releasekit.yaml`` at the tree's root (empty without the file or the key).

    A file that does not follow its schema gives RK-STREAM-040 findings and is not used.

    Raises:
        InputError: the file is not UTF-8 or not YAML; SafetyLimitError: it is over a limit.
    """
    ref = tree.files.get(PurePosixPath(CONFIG_FILE))
    if ref is None:
        return RepoConfig()
    try:
        text = ref.read().decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{CONFIG_FILE}: not UTF-8 text") from None
    problems: list[Finding] = []
    doc = parse_document(text, CONFIG_FILE, "releasekit.schema.json", problems)
    if doc is None:
        hint = "see README.md (releasekit.yaml)"
        return RepoConfig(findings=tuple(replace(f, rule=RULE_CONFIG, hint=hint) for f in problems))
    section = doc.data.get("catalogRepository") or {}
    roots = tuple(
        (str(item["path"]).rstrip("/") or ".", item.get("openshift")) for item in section.get("roots") or ()
    )
    return RepoConfig(roots=roots, version_pattern=section.get("versionPattern"))


# ----------------------------------------------------------------------------------------- parsing


@dataclass(slots=True)
class _Parsed:
    metas: list[Meta]
    findings: list[Finding]
    refused: ReleasekitError | None = None  # a safety limit or an unreadable blob: raised if it is content
    content: bool = True  # False: a template or a Tekton file, never catalog content


@dataclass(slots=True)
class ParseCache:
    """Parsed files by (path, blob id): each distinct file is parsed once for both revisions."""

    limits: LoadLimits = field(default_factory=LoadLimits)
    parsed: dict[tuple[PurePosixPath, str], _Parsed] = field(default_factory=dict)

    def get(self, tree: RepoTree, path: PurePosixPath) -> _Parsed:
        """The file's blobs and load findings (a refusal is kept, not raised: see :func:`load_root`)."""
        ref = tree.files[path]
        key = (path, ref.sha)
        found = self.parsed.get(key)
        if found is None:
            try:
                data = ref.read()
                metas, findings = load_catalog_text(data, str(path), self.limits)
                if not metas and _TEKTON.search(data[:65536]):
                    found = _Parsed([], [], content=False)
                else:
                    found = _Parsed(metas, findings, content=not _is_template(metas))
            except (SafetyLimitError, InputError) as exc:
                found = _Parsed([], [], refused=exc)
            self.parsed[key] = found
        return found


def _is_template(metas: list[Meta]) -> bool:
    """A catalog template (semver, basic, substitutes), or a legacy basic template (bundles only by image)."""
    if any(m.schema in TEMPLATE_SCHEMAS for m in metas):
        return True
    bundles = [m for m in metas if m.schema == "olm.bundle"]
    return bool(bundles) and all({k.lower() for k in m.data} <= {"schema", "image"} for m in bundles)


def _fbc_packages(parsed: _Parsed) -> tuple[set[str], set[str]]:
    """(packages declared by an olm.package blob, packages of the file's other FBC objects)."""
    if parsed.refused is not None or not parsed.content:
        return set(), set()
    declared = {m.name for m in parsed.metas if m.schema == "olm.package" and m.name}
    other = (
        m for m in parsed.metas if m.schema in FBC_SCHEMAS and not (m.schema == "olm.package" and m.name)
    )
    used = {m.package for m in other if m.package}
    return declared, used


def _hidden(path: PurePosixPath) -> bool:
    return any(part.startswith(".") for part in path.parts[:-1])


def _candidate(path: PurePosixPath) -> bool:
    return path.suffix.lower() in CANDIDATE_SUFFIXES and not _hidden(path) and path.name != CONFIG_FILE


def _never_content(path: PurePosixPath) -> bool:
    return bool(_CONTAINERFILE.match(path.name)) or any(p in NEVER_CONTENT_FOLDERS for p in path.parts[:-1])


# ------------------------------------------------------------------------------------------- roots


@dataclass(frozen=True, slots=True, kw_only=True)
class FoundRoots:
    """The catalog roots of one revision and, per root path, the files opm would parse there."""

    tree: RepoTree
    roots: tuple[CatalogRoot, ...]
    content: Mapping[str, tuple[PurePosixPath, ...]]


def _within(roots: set[PurePosixPath], path: PurePosixPath) -> bool:
    """True when ``path`` or a folder above it is in ``roots`` (depth steps, not one per root)."""
    return path in roots or not roots.isdisjoint(path.parents)


def _overlaps(root: PurePosixPath, roots: Iterable[PurePosixPath]) -> bool:
    """True when ``root`` is inside one of ``roots`` or holds one."""
    return any(_within({root}, other) or _within({other}, root) for other in roots)


def _below(
    paths: Iterable[PurePosixPath], roots: Iterable[PurePosixPath]
) -> dict[PurePosixPath, list[PurePosixPath]]:
    """The paths below each root, sorted (a path below nested roots is below each)."""
    out: dict[PurePosixPath, list[PurePosixPath]] = {root: [] for root in roots}
    for path in sorted(paths):
        for folder in path.parents:
            if folder in out:
                out[folder].append(path)
    return out


def _containerfile_roots(
    tree: RepoTree, folders: set[PurePosixPath]
) -> dict[PurePosixPath, tuple[str, str | None]]:
    """Folders Containerfiles copy to ``/configs`` -> (the Containerfile, the OpenShift tag it starts FROM)."""
    out: dict[PurePosixPath, tuple[str, str | None]] = {}
    for path in sorted(tree.files):
        if not _CONTAINERFILE.match(path.name) or _hidden(path):
            continue
        size = tree.sizes.get(path)
        if size is None or size > _MAX_CONTAINERFILE_BYTES:
            continue
        try:
            text = tree.files[path].read().decode("utf-8", "replace")
        except ReleasekitError:
            continue
        sources, tag = parse_containerfile(text)
        for source in sources:
            for base in (path.parent, PurePosixPath(".")):
                resolved = _resolve(base, source)
                if resolved is not None and (resolved in folders or str(resolved) == "."):
                    out.setdefault(resolved, (str(path), tag))
                    break
    return out


def _resolve(base: PurePosixPath, source: str) -> PurePosixPath | None:
    if source.startswith("/") or ".." in PurePosixPath(source).parts or any(c in source for c in "*?["):
        return None
    return PurePosixPath(posixpath.normpath(posixpath.join(base, source)))


def _content(
    tree: RepoTree,
    root: PurePosixPath,
    cache: ParseCache,
    below: list[PurePosixPath],
    special: list[PurePosixPath],
) -> tuple[PurePosixPath, ...]:
    """The files opm parses under ``root`` (templates, Tekton files and Containerfiles left out).

    Raises:
        SafetyLimitError: a symbolic link, submodule or special file inside the root.
    """
    for path in special:
        if not _never_content(path):
            raise SafetyLimitError(
                f"{tree.label}:{printable(str(path))}: is {tree.special[path]} inside catalog root "
                f"{printable(str(root))}; refusing it (a catalog root holds regular files only)"
            )
    specs = {
        path.parent.relative_to(root): indexignore_spec(tree.files[path].read())
        for path in below
        if path.name == ".indexignore"
    }
    out = []
    for path in below:
        if _never_content(path) or indexignored(path.relative_to(root), specs):
            continue
        if cache.get(tree, path).content:
            out.append(path)
    return tuple(out)


_Found = dict[PurePosixPath, tuple[RootSource, str, str | None]]


def _fbc_facts(
    tree: RepoTree, cache: ParseCache, config: RepoConfig
) -> tuple[dict[PurePosixPath, tuple[set[str], set[str]]], set[PurePosixPath]]:
    """Per candidate file, the packages it declares and uses; and the candidate files that do not parse.

    Raises:
        SafetyLimitError, InputError: a file that may be a catalog and is over a limit or unreadable.
    """
    facts: dict[PurePosixPath, tuple[set[str], set[str]]] = {}
    broken: set[PurePosixPath] = set()
    listed = {PurePosixPath(path_text) for path_text, _ in config.roots}
    for path in sorted(tree.files):
        if not _candidate(path) or (listed and not _within(listed, path)):
            continue
        parsed = cache.get(tree, path)
        if parsed.refused is not None:
            raise parsed.refused  # it may be a catalog: never pass it unread
        declared, used = _fbc_packages(parsed)
        if declared or used:
            facts[path] = (declared, used)
        elif parsed.findings and not parsed.metas:
            broken.add(path)
    return facts, broken


def _found_roots(
    tree: RepoTree,
    config: RepoConfig,
    facts: Mapping[PurePosixPath, tuple[set[str], set[str]]],
    broken: set[PurePosixPath],
    carried: Sequence[CatalogRoot],
) -> _Found:
    """The roots: the configured ones, else found.

    Found: where a Containerfile copies to /configs, then by the objects, then the base's roots that hold
    only broken files now.
    """
    found: _Found = {}
    if config.roots:
        folders = {f for path in tree.files for f in path.parents}
        for path_text, _openshift in config.roots:
            root = PurePosixPath(path_text)
            if root in folders or str(root) == ".":
                found[root] = (RootSource.CONFIG, "releasekit.yaml", None)
        return found
    fbc_folders = {f for path in facts for f in (*path.parents, PurePosixPath("."))}
    for root, (containerfile, tag) in _containerfile_roots(tree, fbc_folders).items():
        found[root] = (RootSource.CONTAINERFILE, containerfile, tag)
    chosen = set(found)
    for root in object_roots({p: f for p, f in facts.items() if not _within(chosen, p)}):
        if not _overlaps(root, found):
            found[root] = (RootSource.OBJECTS, "", None)
    for old in carried:
        root = PurePosixPath(old.path)
        if not _overlaps(root, found) and any(_within({root}, p) for p in broken):
            found[root] = (RootSource.CARRIED, old.detail, old.openshift)
    return found


def find_catalog_roots(
    tree: RepoTree,
    *,
    cache: ParseCache,
    config: RepoConfig | None = None,
    carried: Sequence[CatalogRoot] = (),
) -> FoundRoots:
    """The catalog roots of ``tree`` (see the module docstring) and each root's content.

    ``carried``: roots of the base revision; one whose folder the head still has with catalog files in
    it that hold no FBC object (say, a catalog that no longer parses) stays a root, so a broken catalog
    is reported as broken, not as dropped.

    Raises:
        SafetyLimitError: a link or special file inside a root, or a root's file over a limit.
        InputError: a root's file git cannot read.
    """
    config = config or RepoConfig()
    facts, broken = _fbc_facts(tree, cache, config)
    found = _found_roots(tree, config, facts, broken, carried)
    roots: list[CatalogRoot] = []
    content: dict[str, tuple[PurePosixPath, ...]] = {}
    files, special = _below(tree.files, found), _below(tree.special, found)
    configured = dict(config.roots)
    for root, (source, detail, tag) in sorted(found.items()):
        held = _content(tree, root, cache, files[root], special[root])
        packages = {p for path in held if path in facts for p in facts[path][0] | facts[path][1]}
        if source is RootSource.CARRIED:
            packages |= {p for old in carried if old.path == str(root) for p in old.packages}
        if not packages:
            continue
        key = str(root)
        openshift = (
            configured.get(key)
            or config.version_of(key)
            or (tag if source is RootSource.CARRIED else None)
            or guess_openshift(key)
            or tag
        )
        roots.append(
            CatalogRoot(
                path=key, packages=tuple(sorted(packages)), openshift=openshift, source=source, detail=detail
            )
        )
        content[key] = held
    return FoundRoots(tree=tree, roots=tuple(roots), content=content)


def load_root(
    found: FoundRoots, root: CatalogRoot, cache: ParseCache
) -> tuple[DeclarativeConfig, tuple[Finding, ...], tuple[str, ...]]:
    """The catalog at ``root`` (every content file, as opm loads it), its load findings and the files read.

    Raises:
        SafetyLimitError, InputError: a content file refused by a limit or unreadable.
    """
    metas: list[Meta] = []
    findings: list[Finding] = []
    shown: list[str] = []
    for path in found.content.get(root.path, ()):
        parsed = cache.get(found.tree, path)
        if parsed.refused is not None:
            raise parsed.refused
        metas.extend(parsed.metas)
        findings.extend(parsed.findings)
        shown.append(str(path))
    config, decode_findings = decode_metas(metas)
    return config, (*findings, *decode_findings), tuple(shown)
