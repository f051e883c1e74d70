r"""Record an upstream Kueue release from git: its CRDs and feature gates, as an inventory.

Adapter module (git through gitpython) for ``releasekit upstream import --repo R --ref T``: a URL is cloned
once (bare) into the cache and fetched only when a ref is missing; blobs are read at the ref without a
work tree; the inventory is written atomically and deterministically.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

import git

from releasekit.errors import InputError, UpstreamError, UsageError, printable
from releasekit.io.atomic import write_text_atomic
from releasekit.io.gitcmd import check_argument, check_revision, git_reason
from releasekit.io.gitrev import list_revision, open_repo, resolve_commit
from releasekit.io.gofeatures import parse_kube_features, parse_versioned_feature_list
from releasekit.io.inputs import contained
from releasekit.io.yamlio import YamlContentError, load_yaml_documents
from releasekit.model.inventory import (
    Crd,
    CrdVersion,
    Inventory,
    InventorySource,
    line_of_version,
    version_maturity,
)

__all__ = [
    "CRD_DIRS",
    "FEATURES_GO",
    "FEATURE_LIST",
    "FETCH_REFSPECS",
    "cache_root",
    "check_line",
    "check_ref",
    "check_repository",
    "inventory_path",
    "open_repository",
    "read_crd_files",
    "read_inventory",
    "render_inventory",
    "resolve_ref",
    "write_inventory",
]

CRD_DIRS = ("config/components/crd/bases", "config/components/crd/alpha/bases")
FEATURES_GO = "pkg/features/kube_features.go"
FEATURE_LIST = "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"
FETCH_REFSPECS = ("+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
"""What a cached bare clone fetches (``git clone --bare`` records no refspec at all)."""

_BAD_REF_CHARS = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
_URL_SCHEMES = ("file://", "https://", "ssh://")
_URLS = "give a local path or a file://, https://, ssh:// or git@host:path URL"
_LINE = re.compile(r"[0-9]{1,4}\.[0-9]{1,4}")


def check_ref(ref: str) -> str:
    r"""``ref`` if it is safe to hand to git (see :func:`~releasekit.io.gitcmd.check_revision`) and a plain name.

    A plain name has no ``@{``, whitespace or ``~^:?*[\``, and does not end in ``.``, ``/`` or ``.lock``.

    Raises:
        UsageError: naming what is wrong.
    """
    check_revision(ref, "--ref")
    if "@{" in ref or _BAD_REF_CHARS.search(ref) or ref.endswith((".", "/", ".lock")):
        raise UsageError(f"--ref: refusing {ref!r}: not a valid tag, branch or commit name")
    return ref


def check_line(line: str | None) -> None:
    """Refuse a ``--line`` that is not ``X.Y`` (file names are made from it) with a UsageError."""
    if line is not None and not _LINE.fullmatch(line):
        raise UsageError(f"--line {line!r}: expected a Kueue line as X.Y (such as 0.11)")


def check_repository(spec: str) -> str:
    """``spec`` when it is a local path or a ``file://``, ``https://``, ``ssh://`` or ``git@host:path`` URL.

    Raises:
        UsageError: anything else (git's ``ext::`` and other transport helpers run commands).
    """
    shown = printable(check_argument(spec, "--repo"))
    if spec.lower().startswith(_URL_SCHEMES):
        return spec
    if "::" in spec:
        helper = spec.split("::", 1)[0]
        raise UsageError(
            f"--repo: refusing {shown!r}: git's {helper}:: transport is not allowed (ext:: runs commands); {_URLS}"
        )
    if "://" in spec:
        scheme = spec.split("://", 1)[0]
        raise UsageError(f"--repo: refusing {shown!r}: the {scheme}:// transport is not allowed; {_URLS}")
    return spec


def cache_root() -> Path:
    """Where URL clones are kept: ``$XDG_CACHE_HOME/releasekit/upstream`` (default ``~/.cache``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "releasekit" / "upstream"


def _make_cache(folder: Path) -> None:
    """Make the clone cache folder, or raise InputError saying why it cannot be used."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return
    except OSError as exc:
        problem = f"it cannot be made ({exc.strerror or exc})"
    for place in (folder, *folder.parents):
        if place.is_symlink() and not place.exists():
            problem = f"{place} is a dangling symbolic link"
            break
        if place.exists() and not place.is_dir():
            problem = f"{place} is not a folder"
            break
    raise InputError(
        f"{folder}: the clone cache folder cannot be used: {problem}; remove that, set XDG_CACHE_HOME "
        "elsewhere, or pass --repo a local clone"
    )


def open_repository(spec: str, *, cache: Path | None = None) -> Any:
    """Open the Kueue repository ``spec``: a local path, or a URL cloned once (bare) into the cache.

    Raises:
        InputError: a local path that is not a git repository; a cache folder that cannot be used.
        UpstreamError: a URL that cannot be cloned, or a cached clone that is not a repository.
    """
    check_repository(spec)  # before git sees it
    if "://" not in spec and not re.match(r"^[\w.-]+@[\w.-]+:", spec):
        return open_repo(Path(spec))
    root = cache or cache_root()
    _make_cache(root)
    name = re.sub(r"[^A-Za-z0-9._-]", "_", spec.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git"))
    target = root / f"{hashlib.sha256(spec.encode()).hexdigest()[:16]}-{name}.git"
    os.environ.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait for credentials
    try:
        if target.exists():
            return git.Repo(target)
        repo = git.Repo.clone_from(spec, target, bare=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise UpstreamError(
            f"the cached clone {target} of {spec} is not a git repository; delete it and run again, "
            "or pass a local clone instead of the URL"
        ) from None
    except git.GitCommandError as exc:
        raise UpstreamError(
            f"cannot clone {spec}: {git_reason(exc)}; check the URL and your network, "
            "or clone it yourself and pass the local folder instead"
        ) from None
    with repo.config_writer() as cfg:  # for a plain ``git fetch`` in the cache (resolve_ref names them)
        cfg.set_value('remote "origin"', "fetch", FETCH_REFSPECS[0])
        cfg.add_value('remote "origin"', "fetch", FETCH_REFSPECS[1])
    return repo


def _lookup(repo: Any, ref: str) -> Any:
    try:
        return resolve_commit(repo, ref, "--ref")
    except (UsageError, git.BadName, ValueError, git.GitCommandError):
        return None


def resolve_ref(repo: Any, ref: str) -> Any:
    """The commit ``ref`` names; a cached clone fetches branches and tags it lacks first.

    Raises:
        UpstreamError: the ref is not there (after a fetch), or the fetch failed (with git's reason).
        InputError: git refuses the repository (another user's).
    """
    commit = _lookup(repo, ref)
    if commit is None and repo.bare and repo.remotes:
        remote = repo.remotes[0]
        try:
            repo.git.fetch("--prune", "--end-of-options", remote.name, *FETCH_REFSPECS)
        except git.GitCommandError as exc:
            raise UpstreamError(
                f"ref {ref!r} is not in the cached clone {repo.git_dir} and fetching "
                f"{next(iter(remote.urls), remote.name)} failed: {git_reason(exc)}; pass --repo (or "
                f"--upstream) a local clone that has {ref}"
            ) from None
        commit = _lookup(repo, ref)
    if commit is None:
        raise UpstreamError(f"ref {ref!r} not found in {repo.git_dir}; check the tag or commit")
    return commit


def read_crd_files(tree: Any, ref: str) -> tuple[tuple[str, bytes, tuple[Crd, ...]], ...]:
    """Every YAML file right inside :data:`CRD_DIRS` of ``tree`` (a commit or tree; no kustomization): path, bytes, CRDs.

    Raises:
        UpstreamError: no CRD folder at all, or a file that is not YAML.
    """
    listed = list_revision(tree, rev=ref, paths=CRD_DIRS)
    if not listed.files and not listed.special:
        raise UpstreamError(f"{ref}: no {CRD_DIRS[0]}/ folder; is this a Kueue repository?")
    files: list[tuple[str, bytes, tuple[Crd, ...]]] = []
    for folder in CRD_DIRS:
        for path in sorted(p for p in listed.files if str(p.parent) == folder):
            if not path.name.endswith((".yaml", ".yml")) or path.name.startswith("kustomization"):
                continue
            data = listed.files[path].read()
            try:
                docs = load_yaml_documents(data.decode("utf-8"), track_paths=False)
            except (YamlContentError, UnicodeDecodeError) as exc:
                raise UpstreamError(f"{ref}:{path}: cannot read CRD: {exc}") from None
            sha = hashlib.sha256(data).hexdigest()
            crds = tuple(_crd(d.data, str(path), sha) for d in docs if _is_crd(d.data))
            files.append((str(path), data, crds))
    return tuple(files)


def _is_crd(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == "CustomResourceDefinition"


def _crd(data: dict[str, Any], path: str, sha: str) -> Crd:
    spec = data.get("spec") or {}
    names = spec.get("names") or {}
    try:
        versions = tuple(
            CrdVersion(
                name=str(v["name"]),
                served=bool(v.get("served", False)),
                storage=bool(v.get("storage", False)),
                maturity=version_maturity(str(v["name"])),
            )
            for v in spec["versions"]
        )
        group, kind, plural, scope = (
            str(spec["group"]),
            str(names["kind"]),
            str(names["plural"]),
            str(spec["scope"]),
        )
    except (KeyError, TypeError) as exc:
        raise UpstreamError(f"{path}: CRD without {exc}") from None
    return Crd(group=group, kind=kind, plural=plural, scope=scope, versions=versions, file=path, sha256=sha)


def read_inventory(repo: Any, ref: str, *, line: str | None = None) -> Inventory:
    """Read the CRDs and gates of ``ref`` from git blobs (no work tree) into an exact inventory.

    Raises:
        UsageError: an unsafe ref (see :func:`check_ref`) or line.
        UpstreamError: a missing ref or path, or content that cannot be read.
    """
    check_ref(ref)
    commit = resolve_ref(repo, ref)
    parsers = {FEATURE_LIST: parse_versioned_feature_list, FEATURES_GO: parse_kube_features}  # first found
    found = list_revision(commit, rev=ref, paths=tuple(parsers)).files
    features_file = next((p for p in parsers if PurePosixPath(p) in found), None)
    if features_file is None:
        raise UpstreamError(f"{ref}: neither {FEATURE_LIST} nor {FEATURES_GO} exists")
    text = found[PurePosixPath(features_file)].read().decode("utf-8", "replace")
    gates = parsers[features_file](text, source=f"{ref}:{features_file}")
    tags = sorted(t.name for t in repo.tags if t.commit.hexsha == commit.hexsha)
    tag = ref if ref in tags else (tags[0] if tags else None)
    try:
        describe: str | None = repo.git.describe("--tags", commit.hexsha)
    except git.GitCommandError:
        describe = None
    check_line(line)
    resolved_line = line or line_of_version(tag or "") or line_of_version(describe or "")
    if resolved_line is None:
        raise UpstreamError(f"cannot tell the Kueue line of {ref!r} (no tag or describe); pass --line X.Y")
    crds = (c for _, _, found in read_crd_files(commit.tree, ref) for c in found)
    return Inventory(
        line=resolved_line,
        source=InventorySource.EXACT,
        ref=ref,
        commit=commit.hexsha,
        tag=tag,
        describe=describe,
        features_file=features_file,
        crds=tuple(sorted(crds, key=lambda c: c.name)),
        gates=gates,
    )


_PLAIN = re.compile(r"^[A-Za-z_/][A-Za-z0-9_./-]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _YAML_WORDS:
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_inventory(inventory: Inventory) -> str:
    """The inventory as deterministic YAML (the format of ``inventory.schema.json``)."""
    header = (
        "# Generated by `releasekit upstream import`; do not edit."
        if inventory.source is InventorySource.EXACT
        else f"# Transcribed from the facts of Kueue {inventory.tag or inventory.ref}; "
        "`releasekit upstream import` replaces it with an exact inventory."
    )
    out = [header, "schema: releasekit/kueue-inventory/v1", f'line: "{inventory.line}"']
    out += [f"source: {inventory.source.value}", f"ref: {_scalar(inventory.ref)}"]
    out += [f"tag: {_scalar(inventory.tag)}"] if inventory.tag else []
    out += [f"describe: {_scalar(inventory.describe)}"] if inventory.describe else []
    out.append(f"commit: {inventory.commit}")
    out += [f"featuresFile: {_scalar(inventory.features_file)}"] if inventory.features_file else []
    out.append("crds:" if inventory.crds else "crds: []")
    for crd in inventory.crds:
        out.append(f"  - file: {_scalar(crd.file)}")
        out += [f"    {key}: {_scalar(getattr(crd, key))}" for key in ("group", "kind", "plural", "scope")]
        out.append("    versions:")
        out += [
            f"      - {{name: {_scalar(v.name)}, served: {_scalar(v.served)}, "
            f"storage: {_scalar(v.storage)}, maturity: {v.maturity.value}}}"
            for v in crd.versions
        ]
        out += [f"    sha256: {crd.sha256}"] if crd.sha256 else []
    out.append("gates:" if inventory.gates else "gates: []")
    out += [
        f"  - {{name: {_scalar(g.name)}, stage: {g.stage.value}, default: {_scalar(g.default)}, "
        f"lockToDefault: {_scalar(g.lock_to_default)}}}"
        for g in inventory.gates
    ]
    return "\n".join(out) + "\n"


def inventory_path(streams_dir: Path, inventory: Inventory) -> Path:
    """``<streams_dir>/upstream/kueue-<line>.yaml`` (refused should the line lead anywhere else)."""
    folder = streams_dir / "upstream"
    return contained(folder / f"{inventory.name}.yaml", folder, "the inventory named after the line")


def write_inventory(streams_dir: Path, inventory: Inventory) -> Path:
    """Write the inventory atomically; return its path."""
    path = inventory_path(streams_dir, inventory)
    write_text_atomic(path, render_inventory(inventory))
    return path
