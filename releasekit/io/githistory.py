"""A committed file's history: the commits that changed it and its bytes at each, oldest first.

Adapter module over git plumbing, for the rare question "when did this published blob change?": it runs
only for a finding that needs the answer, never on the way of a clean build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.io.gitrev import _git_top, _Objects, _run

__all__ = ["FileVersion", "file_history"]

MAX_VERSIONS = 200
"""How many of a file's newest versions are read (a catalog file changes with each release)."""


@dataclass(frozen=True, slots=True)
class FileVersion:
    """The file as one commit left it."""

    commit: str
    subject: str
    data: bytes | None  # None: the commit removed the file


def file_history(path: Path) -> list[FileVersion] | None:
    """Every commit (at most :data:`MAX_VERSIONS`, the newest) that changed ``path``, oldest first.

    None when ``path`` is in no git work tree or git cannot answer (no commit yet, a shallow clone that
    lacks the objects): the caller then says nothing about history rather than guess.
    """
    start = Path(os.path.realpath(path.absolute()))
    top = _git_top(start.parent)
    if top is None:
        return None
    rel = PurePosixPath(start.relative_to(top).as_posix())
    log = _run(top, "log", f"--max-count={MAX_VERSIONS}", "--format=%H%x00%s", "--", str(rel))
    if log.returncode != 0:
        return None
    commits = [
        line.split("\0", 1) for line in log.stdout.decode("utf-8", "replace").splitlines() if "\0" in line
    ]
    objects = _Objects(top)
    return [FileVersion(sha, subject, objects.read(f"{sha}:{rel}")) for sha, subject in reversed(commits)]
