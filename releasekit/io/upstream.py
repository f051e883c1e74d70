r"""Record an upstream Kueue release from git: its CRDs and feature gates, as an inventory.

Adapter module (git through gitpython, files). ``releasekit upstream import --repo R --ref T``:

1. :func:`check_ref` refuses refs that could be read as options or ranges (a leading ``-``, ``..``,
   whitespace, control characters, ``~^:?*[\``) *before* git sees them;
2. :func:`open_repository` opens a local clone, or clones a URL once (bare) into
   ``$XDG_CACHE_HOME/releasekit/upstream/`` with fetch refspecs for branches and tags, and
   :func:`resolve_ref` fetches there only when a ref is missing (a failed clone or fetch says git's
   reason and what to pass instead);
3. :func:`read_inventory` reads blobs at the ref, without a work tree (``commit.tree / path``): the
   CRDs under ``config/components/crd/bases/`` (and ``config/components/crd/alpha/bases/`` where it
   exists) and the gates from ``versioned_feature_list.yaml`` where the release has one, else from
   ``pkg/features/kube_features.go`` (:mod:`releasekit.io.gofeatures`);
4. :func:`write_inventory` writes ``streams/upstream/kueue-<line>.yaml`` atomically
   (:func:`render_inventory` gives the deterministic text).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from releasekit.errors import InputError, UpstreamError, UsageError, printable
from releasekit.io.atomic import write_text_atomic
from releasekit.io.gitcmd import git_reason, resolve_revision
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
    "cache_root",
    "check_ref",
    "check_line",
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

_BAD_REF_CHARS = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def check_ref(ref: str) -> str:
    r"""Return ``ref`` if it is safe to hand to git; raise UsageError otherwise.

    Refused: empty refs, a leading ``-`` (git would read an option), ``..`` (a range), ``@{``,
    whitespace, control characters and ``~^:?*[\``.
    """
    if not ref:
        raise UsageError("--ref must not be empty")
    if ref.startswith("-"):
        raise UsageError(f"refusing ref {ref!r}: it starts with '-' and git would read it as an option")
    if ".." in ref:
        raise UsageError(f"refusing ref {ref!r}: '..' makes it a range, give one tag or commit")
    if "@{" in ref or _BAD_REF_CHARS.search(ref) or ref.endswith((".", "/", ".lock")):
        raise UsageError(f"refusing ref {ref!r}: not a valid tag, branch or commit name")
    return ref


def cache_root() -> Path:
    """Where URL clones are kept: ``$XDG_CACHE_HOME/releasekit/upstream`` (default ``~/.cache``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "releasekit" / "upstream"


def _is_url(spec: str) -> bool:
    return "://" in spec or bool(re.match(r"^[\w.-]+@[\w.-]+:", spec))


_URL_SCHEMES = ("file://", "https://", "ssh://")


def check_repository(spec: str) -> str:
    """Return ``spec`` when it is a local path or a URL git fetches without running a command.

    The URLs allowed are ``file://``, ``https://``, ``ssh://`` and ``git@host:path``; anything else
    raises UsageError (git's ``ext::`` and other transport helpers run commands).
    """
    if not spec:
        raise UsageError("--repo must not be empty")
    shown = printable(spec)
    if spec.startswith("-"):
        raise UsageError(f"--repo: refusing {shown!r}: it starts with '-' and git would read it as an option")
    if shown != spec:
        raise UsageError(f"--repo: refusing {shown!r}: it contains control characters")
    if spec.lower().startswith(_URL_SCHEMES):
        return spec
    if "::" in spec:
        helper = spec.split("::", 1)[0]
        raise UsageError(
            f"--repo: refusing {shown!r}: git's {helper}:: transport is not allowed (ext:: runs commands); "
            "give a local path or a file://, https://, ssh:// or git@host:path URL"
        )
    if "://" in spec:
        scheme = spec.split("://", 1)[0]
        raise UsageError(
            f"--repo: refusing {shown!r}: the {scheme}:// transport is not allowed; give a local path "
            "or a file://, https://, ssh:// or git@host:path URL"
        )
    return spec


def _cache_folder(cache: Path | None) -> None:
    """Make sure the clone cache is a folder (or can be made), before git is asked to clone into it.

    Raises:
        InputError: the cache folder (or one above it) is a file, a dangling link, or cannot be made.
    """
    folder = cache or cache_root()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        for place in (folder, *folder.parents):
            if place.is_symlink() and not place.exists():
                problem = f"{place} is a dangling symbolic link"
                break
            if place.exists() and not place.is_dir():
                problem = f"{place} is not a folder"
                break
        else:
            problem = f"it cannot be made ({exc.strerror or exc})"
        raise InputError(
            f"{folder}: the clone cache folder cannot be used: {problem}; remove that, set XDG_CACHE_HOME "
            "elsewhere, or pass --repo a local clone"
        ) from None


def open_repository(spec: str, *, cache: Path | None = None) -> Any:
    """Open the Kueue repository ``spec``: a local path, or a URL cloned once into the cache.

    Raises:
        InputError: a local path that is not a git repository.
        UpstreamError: a URL that cannot be cloned.
    """
    import git

    check_repository(spec)  # git's ext:: and other helpers run commands: refused before git sees them
    if not _is_url(spec):
        path = Path(spec)
        if not path.exists():
            raise InputError(f"{spec}: no such repository folder")
        try:
            return git.Repo(path)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise InputError(f"{spec}: not a git repository") from None
    root = cache or cache_root()
    _cache_folder(root)
    name = re.sub(r"[^A-Za-z0-9._-]", "_", spec.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git"))
    target = root / f"{hashlib.sha256(spec.encode()).hexdigest()[:16]}-{name}.git"
    os.environ.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait for credentials
    if target.exists():
        try:
            repo = git.Repo(target)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise UpstreamError(
                f"the cached clone {target} of {spec} is not a git repository; delete it and run again, "
                "or pass a local clone instead of the URL"
            ) from None
        _set_fetch_refspecs(repo)
        return repo
    _cache_folder(root)
    try:
        repo = git.Repo.clone_from(spec, target, bare=True)
    except git.GitCommandError as exc:
        raise UpstreamError(
            f"cannot clone {spec}: {git_reason(exc)}; check the URL and your network, "
            "or clone it yourself and pass the local folder instead"
        ) from None
    _set_fetch_refspecs(repo)
    return repo


FETCH_REFSPECS = ("+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
"""What a cached bare clone fetches (``git clone --bare`` records no refspec at all)."""


def _set_fetch_refspecs(repo: Any) -> None:
    """Give the cached clone's ``origin`` the refspecs a later fetch needs (older caches lack them)."""
    import git

    try:
        current = repo.git.config("--get-all", "remote.origin.fetch").split("\n")
    except git.GitCommandError:
        current = []
    missing = [spec for spec in FETCH_REFSPECS if spec not in current]
    if missing and repo.remotes:
        try:
            with repo.config_writer() as cfg:
                cfg.set_value('remote "origin"', "fetch", FETCH_REFSPECS[0])
                for spec in FETCH_REFSPECS[1:]:
                    cfg.add_value('remote "origin"', "fetch", spec)
        except OSError:  # a read-only cache still answers the refs it has; a fetch there says why it fails
            return


def _lookup(repo: Any, ref: str) -> Any:
    import git

    try:
        return repo.commit(resolve_revision(repo, ref, "--ref"))
    except UsageError:
        return None
    except (git.BadName, ValueError, git.GitCommandError):  # pragma: no cover - resolved ids are commits
        return None


def resolve_ref(repo: Any, ref: str) -> Any:
    """The commit ``ref`` names; a cached clone fetches branches and tags it lacks first.

    Raises:
        UpstreamError: the ref is not there (after a fetch), or the fetch failed (with git's reason).
        InputError: git refuses the repository (another user's).
    """
    import git

    commit = _lookup(repo, ref)
    if commit is None and repo.bare and repo.remotes:
        url = next(iter(repo.remotes[0].urls), repo.remotes[0].name)
        try:
            repo.git.fetch("--prune", "--end-of-options", repo.remotes[0].name, *FETCH_REFSPECS)
        except git.GitCommandError as exc:
            raise UpstreamError(
                f"ref {ref!r} is not in the cached clone {repo.git_dir} and fetching {url} failed: "
                f"{git_reason(exc)}; pass --repo (or --upstream) a local clone that has {ref}"
            ) from None
        commit = _lookup(repo, ref)
    if commit is None:
        raise UpstreamError(f"ref {ref!r} not found in {repo.git_dir}; check the tag or commit")
    return commit


def _blob_text(tree: Any, path: str) -> tuple[str, bytes] | None:
    try:
        blob = tree / path
    except KeyError:
        return None
    data: bytes = blob.data_stream.read()
    return data.decode("utf-8"), data


def read_crd_files(tree: Any, ref: str) -> tuple[tuple[str, bytes, tuple[Crd, ...]], ...]:
    """Every YAML file under :data:`CRD_DIRS` of ``tree``: its path, its bytes and the CRDs it holds.

    Reads git blobs only (no work tree); kustomization files are skipped.

    Raises:
        UpstreamError: no CRD folder at all, or a file that is not YAML.
    """
    files: list[tuple[str, bytes, tuple[Crd, ...]]] = []
    found_dir = False
    for folder in CRD_DIRS:
        try:
            sub = tree / folder
        except KeyError:
            continue
        found_dir = True
        for blob in sorted(sub.blobs, key=lambda b: b.path):
            if not blob.name.endswith((".yaml", ".yml")) or blob.name.startswith("kustomization"):
                continue
            data: bytes = blob.data_stream.read()
            try:
                docs = load_yaml_documents(data.decode("utf-8"), track_paths=False)
            except (YamlContentError, UnicodeDecodeError) as exc:
                raise UpstreamError(f"{ref}:{blob.path}: cannot read CRD: {exc}") from None
            sha = hashlib.sha256(data).hexdigest()
            crds = tuple(c for c in (_crd(d.data, blob.path, sha) for d in docs) if c is not None)
            files.append((str(blob.path), data, crds))
    if not found_dir:
        raise UpstreamError(f"{ref}: no {CRD_DIRS[0]}/ folder; is this a Kueue repository?")
    return tuple(files)


def _read_crds(tree: Any, ref: str) -> tuple[Crd, ...]:
    return tuple(sorted((c for _, _, crds in read_crd_files(tree, ref) for c in crds), key=lambda c: c.name))


def _crd(data: Any, path: str, sha: str) -> Crd | None:
    if not isinstance(data, dict) or data.get("kind") != "CustomResourceDefinition":
        return None
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
        return Crd(
            group=str(spec["group"]),
            kind=str(names["kind"]),
            plural=str(names["plural"]),
            scope=str(spec["scope"]),
            versions=versions,
            file=path,
            sha256=sha,
        )
    except (KeyError, TypeError) as exc:
        raise UpstreamError(f"{path}: CRD without {exc}") from None


_LINE = re.compile(r"[0-9]{1,4}\.[0-9]{1,4}")


def check_line(line: str | None) -> None:
    """Refuse a ``--line`` that is not ``X.Y`` (file names are made from it).

    Raises:
        UsageError: the line is not two dot-separated numbers.
    """
    if line is not None and not _LINE.fullmatch(line):
        raise UsageError(f"--line {line!r}: expected a Kueue line as X.Y (such as 0.11)")


def read_inventory(repo: Any, ref: str, *, line: str | None = None) -> Inventory:
    """Read the CRDs and gates of ``ref`` from git blobs (no work tree) into an exact inventory.

    Raises:
        UsageError: an unsafe ref (see :func:`check_ref`).
        UpstreamError: a missing ref or path, or content that cannot be read.
    """
    import git

    check_ref(ref)
    commit = resolve_ref(repo, ref)
    tree = commit.tree
    listed = _blob_text(tree, FEATURE_LIST)
    if listed is not None:
        gates = parse_versioned_feature_list(listed[0], source=f"{ref}:{FEATURE_LIST}")
        features_file = FEATURE_LIST
    else:
        go = _blob_text(tree, FEATURES_GO)
        if go is None:
            raise UpstreamError(f"{ref}: neither {FEATURE_LIST} nor {FEATURES_GO} exists")
        _, gates = parse_kube_features(go[0], source=f"{ref}:{FEATURES_GO}")
        features_file = FEATURES_GO
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
    return Inventory(
        line=resolved_line,
        source=InventorySource.EXACT,
        ref=ref,
        commit=commit.hexsha,
        tag=tag,
        describe=describe,
        features_file=features_file,
        crds=_read_crds(tree, ref),
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


def render_inventory(inventory: Inventory, *, header: str | None = None) -> str:
    """The inventory as deterministic YAML (the format of ``inventory.schema.json``)."""
    if header is None:
        header = (
            "# Generated by `releasekit upstream import`; do not edit.\n"
            if inventory.source is InventorySource.EXACT
            else f"# Transcribed from the facts of Kueue {inventory.tag or inventory.ref}; "
            "`releasekit upstream import` replaces it with an exact inventory.\n"
        )
    out = [header.rstrip("\n"), "schema: releasekit/kueue-inventory/v1", f'line: "{inventory.line}"']
    out.append(f"source: {inventory.source.value}")
    out.append(f"ref: {_scalar(inventory.ref)}")
    if inventory.tag:
        out.append(f"tag: {_scalar(inventory.tag)}")
    if inventory.describe:
        out.append(f"describe: {_scalar(inventory.describe)}")
    out.append(f"commit: {inventory.commit}")
    if inventory.features_file:
        out.append(f"featuresFile: {_scalar(inventory.features_file)}")
    out.append("crds:" if inventory.crds else "crds: []")
    for crd in inventory.crds:
        out.append(f"  - file: {_scalar(crd.file)}")
        for key in ("group", "kind", "plural", "scope"):
            out.append(f"    {key}: {_scalar(getattr(crd, key))}")
        out.append("    versions:")
        for v in crd.versions:
            out.append(
                f"      - {{name: {_scalar(v.name)}, served: {_scalar(v.served)}, "
                f"storage: {_scalar(v.storage)}, maturity: {v.maturity.value}}}"
            )
        if crd.sha256:
            out.append(f"    sha256: {crd.sha256}")
    out.append("gates:" if inventory.gates else "gates: []")
    for gate in inventory.gates:
        out.append(
            f"  - {{name: {_scalar(gate.name)}, stage: {gate.stage.value}, default: {_scalar(gate.default)}, "
            f"lockToDefault: {_scalar(gate.lock_to_default)}}}"
        )
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
