"""Git revisions resolved safely, and git's own reason when it refuses.

Adapter module (the ``git`` command through gitpython). A revision may be anything git understands
(``HEAD~1``, ``main^``, ``@{upstream}``, a short id): :func:`resolve_revision` refuses only what could
change what git *does* (a leading ``-``, control characters, a ``..`` range), then asks ``git rev-parse
--verify --end-of-options REV^{commit}``. A refusal carries git's ``fatal:`` line and the fix (fetch the
revision; trust exactly a folder another user owns).
"""

from __future__ import annotations

import re
from typing import Any

from releasekit.errors import InputError, UsageError, printable

__all__ = ["check_argument", "check_revision", "git_reason", "refused_repository", "resolve_revision"]


def check_argument(value: str, option: str) -> str:
    """``value``, refused (UsageError) when empty, when git would read it as an option, or with controls."""
    shown = printable(value)
    if not value.strip():
        raise UsageError(f"{option} must not be empty")
    if value.startswith("-"):
        raise UsageError(
            f"{option}: refusing {shown!r}: it starts with '-' and git would read it as an option"
        )
    if shown != value:
        raise UsageError(f"{option}: refusing {shown!r}: it contains control characters")
    return value


def check_revision(rev: str, option: str = "--base") -> str:
    """``rev`` when it is safe to hand to git as one revision (everything but the refusals is git's to judge).

    Raises:
        UsageError: as :func:`check_argument`, or ``..`` (a range).
    """
    if ".." in check_argument(rev, option):
        raise UsageError(f"{option}: refusing {rev!r}: '..' makes it a range, give one branch, tag or commit")
    return rev


def git_reason(exc: object) -> str:
    """Git's own explanation from a failed command: its ``fatal:``/``error:`` lines, joined."""
    stderr = getattr(exc, "stderr", "") or ""
    if isinstance(stderr, bytes):
        stderr = stderr.decode("utf-8", "replace")
    text = str(stderr)
    wrapped = re.match(r"^\s*stderr: '(.*)'\s*$", text, re.DOTALL)  # gitpython quotes git's stderr
    if wrapped:
        text = wrapped.group(1)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    picked = [ln for ln in lines if ln.startswith(("fatal:", "error:"))] or lines
    text = "; ".join(ln.removeprefix("fatal: ").removeprefix("error: ").rstrip(".") for ln in picked)
    if text:
        return text
    fallback = str(exc).strip().splitlines()
    return fallback[0] if fallback else ""


def refused_repository(folder: str, failed: object) -> InputError:
    """Git's refusal of the repository at ``folder``, and the fix (trust just that folder, if not ours)."""
    reason, shown = printable(git_reason(failed)), printable(folder)
    fix = (
        f"if you trust it, run `git config --global --add safe.directory {shown}` "
        "(the releasekit image and Tekton Task do this for their workspace only)"
        if "dubious ownership" in reason
        else "repair or re-clone it"
    )
    return InputError(f"{shown}: git refuses the repository: {reason}; {fix}")


def _fetch_hint(rev: str, option: str) -> str:
    """How to make ``rev`` resolvable, also in a shallow one-branch clone (where only FETCH_HEAD is made)."""
    remote, _, branch = rev.partition("/") if rev.startswith("origin/") else ("origin", "", rev)
    name = branch or rev
    return (
        f"fetch it first: `git fetch --depth 1 {remote} {name}`, then pass `{option} FETCH_HEAD` "
        f"(in a full clone `git fetch {remote} {name}` and `{option} {remote}/{name}` work too); or pass a "
        "branch, tag or commit id that exists here"
    )


def resolve_revision(repo: Any, rev: str, option: str = "--base") -> str:
    """The full commit id ``rev`` names in ``repo``.

    Raises:
        UsageError: an unsafe revision, or one that names no commit (with git's reason and the fix).
        InputError: git refuses the repository itself (another user's: with the safe.directory fix).
    """
    import git

    check_revision(rev, option)
    folder = str(repo.working_tree_dir or repo.git_dir)
    try:
        out: str = repo.git.rev_parse("--verify", "--end-of-options", f"{rev}^{{commit}}")
    except git.GitCommandError as exc:
        reason = git_reason(exc)
        if "dubious ownership" in reason:
            raise refused_repository(folder, exc) from None
        if "Needed a single revision" in reason or not reason:
            reason = "unknown revision"
        raise UsageError(
            f"{option}: {rev!r} names no commit in {folder} (git: {reason}); {_fetch_hint(rev, option)}"
        ) from None
    return out.strip()
