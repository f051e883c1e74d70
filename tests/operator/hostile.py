"""Hostile operator repositories, built object by object with git's plumbing.

``git mktree -z`` takes any entry name (a newline, bytes that are not UTF-8) and any mode (a symlink, a
submodule), so a test can commit exactly the tree an attacker would push; nothing comes from
``../shared``. :func:`minimal_sources` is the smallest tree ``releasekit operator import`` accepts.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CSV", "Gitlink", "Link", "Tree", "commit_tree", "make_repo", "minimal_sources"]

CSV = b"""apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: kueue-operator.v1.0.0
  annotations:
    capabilities: Basic Install
spec:
  version: 1.0.0
  install:
    strategy: deployment
    spec:
      deployments: []
"""

ANNOTATIONS = b"""annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.package.v1: kueue-operator
"""

ROLE = b"""apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kueue-metrics-reader
rules: []
"""

_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
}


@dataclass(frozen=True)
class Link:
    """A symbolic link entry (mode 120000) pointing at ``target``."""

    target: bytes


@dataclass(frozen=True)
class Gitlink:
    """A submodule entry (mode 160000) naming commit ``sha`` (which need not exist)."""

    sha: str = "1" * 40


Tree = dict[bytes, "bytes | Link | Gitlink | Tree"]


def _git(root: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args],
        input=data,
        capture_output=True,
        check=True,
        env={**os.environ, **_ENV},
    )
    return done.stdout.decode().strip()


def _write_tree(root: Path, tree: Tree) -> str:
    lines = []
    for name, entry in sorted(tree.items()):
        if isinstance(entry, dict):
            mode, kind, sha = "040000", "tree", _write_tree(root, entry)
        elif isinstance(entry, Link):
            mode, kind, sha = "120000", "blob", _git(root, "hash-object", "-w", "--stdin", data=entry.target)
        elif isinstance(entry, Gitlink):
            mode, kind, sha = "160000", "commit", entry.sha
        else:
            mode, kind, sha = "100644", "blob", _git(root, "hash-object", "-w", "--stdin", data=entry)
        lines.append(f"{mode} {kind} {sha}\t".encode() + name + b"\0")
    return _git(root, "mktree", "-z", "--missing", data=b"".join(lines))


def make_repo(root: Path) -> Path:
    """An empty repository at ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    return root


def commit_tree(root: Path, tree: Tree, *, ref: str = "refs/heads/main") -> str:
    """Commit ``tree`` (nested dicts of entry name -> content) on ``ref``; return the commit id."""
    sha = _write_tree(root, tree)
    commit = _git(root, "commit-tree", sha, "-m", "hostile", data=b"")
    _git(root, "update-ref", ref, commit)
    return commit


def minimal_sources(*, manifests: Tree | None = None, **root: bytes | Link | Gitlink | Tree) -> Tree:
    """The smallest bundle sources ``operator import`` takes for version 1.0.0, with entries replaced.

    ``manifests`` replaces the files of ``bundle/manifests/``; keyword arguments add or replace top-level
    entries (``bundle=...`` replaces the whole folder; use ``**{"bundle.Dockerfile": ...}``).
    """
    files: Tree = {b"kueue-operator.clusterserviceversion.yaml": CSV, b"metrics-reader.yaml": ROLE}
    tree: Tree = {
        b"bundle": {
            b"manifests": files if manifests is None else manifests,
            b"metadata": {b"annotations.yaml": ANNOTATIONS},
        }
    }
    tree.update({name.encode(): entry for name, entry in root.items()})
    return tree
