"""A committed file's history: the commits that changed it and its bytes at each, oldest first.

Adapter module over git plumbing (``git log``, ``git cat-file --batch``), for the rare question "when did
this published blob change?": it runs only for a finding that needs the answer, never on the way of a
clean build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from releasekit.io.gitrev import _git, _git_top

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
    log = _git(top, "log", f"--max-count={MAX_VERSIONS}", "--format=%H%x00%s", "--", str(rel))
    if not log:
        return None
    commits = [line.split("\0", 1) for line in log.decode("utf-8", "replace").splitlines() if "\0" in line]
    commits.reverse()
    specs = "".join(f"{sha}:{rel}\n" for sha, _ in commits).encode("utf-8", "surrogateescape")
    out = _git(top, "cat-file", "--batch", stdin=specs)
    if out is None:
        return None
    versions: list[FileVersion] = []
    pos = 0
    for sha, subject in commits:
        end = out.find(b"\n", pos)
        if end < 0:
            return None
        header = out[pos:end].split(b" ")
        if header[-1] == b"missing":
            versions.append(FileVersion(sha, subject, None))
            pos = end + 1
            continue
        size = int(header[2])
        versions.append(FileVersion(sha, subject, out[end + 1 : end + 1 + size]))
        pos = end + 1 + size + 1
    return versions
