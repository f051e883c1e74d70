"""Atomic writes: content goes to a temporary sibling first and is renamed into place.

A failed run therefore never leaves a half-written file or folder: :func:`write_tree_atomic` builds
the whole folder beside the target and swaps it in with two renames.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from releasekit.errors import SafetyLimitError

__all__ = ["write_bytes_atomic", "write_text_atomic", "write_tree_atomic"]


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).chmod(0o644)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def _safe_relative(rel: PurePosixPath) -> PurePosixPath:
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise SafetyLimitError(f"refusing to write {str(rel)!r}: paths must stay inside the output folder")
    return rel


def write_tree_atomic(target: Path, files: Mapping[PurePosixPath, bytes]) -> None:
    """Replace folder ``target`` with exactly ``files`` (relative POSIX paths -> bytes).

    The new tree is written to a temporary folder beside ``target`` and swapped in; the old tree is
    removed only after the swap, so an interrupted run leaves either the old or the new tree.
    """
    target = target.absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new.", dir=target.parent))
    try:
        for rel, data in sorted(files.items()):
            dest = staging / _safe_relative(rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        staging.chmod(0o755)
        old: Path | None = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            old.rmdir()
            target.rename(old)
        staging.rename(target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
