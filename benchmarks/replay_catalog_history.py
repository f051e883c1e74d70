"""Replay ``releasekit check`` over a catalog repository's history, and score it against an independent diff.

Run by hand, never in the test suite::

    .venv/bin/python benchmarks/replay_catalog_history.py REPO [--rev HEAD] [--limit N] [--slow 2.0]

For every commit of ``REPO``'s first-parent history (the root commit skipped) that touches a catalog
file, runs ``python -m releasekit check --repo REPO --base <parent> --head <commit> --format json`` as its
own process and prints one row: the short commit, the exit code, the wall seconds, the error and warning
counts and the findings by rule (``RK-DIFF-003:2E`` = two errors of RK-DIFF-003), then the totals. An exit
other than 0 or 1, or a traceback on stderr, is a releasekit bug and is listed with its last stderr line.
The error findings (and RK-DIFF-023/005 warnings) follow, one line each with the rule's subject.

Independently of releasekit's loader, the script then reads the catalog files at parent and commit with
``git ls-tree``/``git cat-file``, parses JSON streams (``json.JSONDecoder.raw_decode``) and YAML
documents (PyYAML, which releasekit requires but does not load catalogs with), and keys each top-level
``olm.bundle`` object by (folder of its file, bundle name), its value the canonical JSON of the object.
Ground truth per commit:

- *removed*: a key present at the parent and absent at the commit (the folder may or may not remain);
- *rewritten*: a key at both whose canonical blob differs.

An event is *caught* when the commit's check has a finding of RK-DIFF-003 or RK-DIFF-020 (removals),
RK-DIFF-023 or RK-DIFF-005 (rewrites) whose subject or message names the bundle. The events, whether each
was caught (and whether the catalog was named too), and the recall are printed last.
RK-DIFF-020 lists at most five of a dropped catalog's bundles by name ("and N more"), so a dropped
catalog of more than five bundles counts its other bundles as missed.

A *catalog file* is a ``.json``, ``.yaml`` or ``.yml`` file holding at least one top-level object whose
``schema`` is ``olm.package``, ``olm.channel``, ``olm.bundle`` or ``olm.deprecations`` (at the parent or
at the commit); templates (``olm.template.basic``) are not catalogs.

Only public tools: Python's standard library, git, PyYAML, and releasekit's installed CLI.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

CATALOG_SCHEMAS = frozenset({"olm.package", "olm.channel", "olm.bundle", "olm.deprecations"})
CATALOG_SUFFIXES = (".json", ".yaml", ".yml")
REMOVAL_RULES = frozenset({"RK-DIFF-003", "RK-DIFF-020"})
REWRITE_RULES = frozenset({"RK-DIFF-023", "RK-DIFF-005"})

Key = tuple[str, str]  # (folder of the file, bundle name)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


# ----------------------------------------------------------------------------------- independent diff


def parse_objects(path: str, data: bytes) -> list[Any] | None:
    """The top-level objects of a JSON stream or a YAML stream; None when the file does not parse."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if path.endswith(".json"):
        decoder = json.JSONDecoder()
        out: list[Any] = []
        i, n = 0, len(text)
        while True:
            while i < n and text[i] in " \t\r\n":
                i += 1
            if i >= n:
                return out
            try:
                obj, i = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                return None
            out.extend(obj if isinstance(obj, list) else [obj])
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return [d for d in yaml.load_all(text, Loader=loader) if d is not None]  # noqa: S506 (a safe loader)
    except yaml.YAMLError:
        return None


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class BlobReader:
    """Blob contents parsed once per blob id (``git cat-file --batch``)."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.parsed: dict[tuple[str, str], list[Any] | None] = {}
        self.proc = subprocess.Popen(
            ["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, sha: str) -> bytes:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the newline after the contents
        return data

    def objects(self, path: str, sha: str) -> list[Any] | None:
        suffix = PurePosixPath(path).suffix
        key = (suffix, sha)
        if key not in self.parsed:
            self.parsed[key] = parse_objects(path, self.read(sha))
        return self.parsed[key]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def tree_files(repo: Path, commit: str) -> dict[str, str]:
    """path -> blob id of every regular file at ``commit``."""
    out: dict[str, str] = {}
    for entry in git(repo, "ls-tree", "-r", "-z", commit).split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):
            out[path.decode("utf-8", "surrogateescape")] = sha.decode()
    return out


def is_catalog(objects: list[Any] | None) -> bool:
    return bool(objects) and any(
        isinstance(o, dict) and o.get("schema") in CATALOG_SCHEMAS for o in objects or ()
    )


def folder_bundles(blobs: BlobReader, files: dict[str, str], folders: set[str]) -> dict[Key, list[str]]:
    """(folder, bundle name) -> canonical blobs of the bundles in the catalog files directly in ``folders``."""
    out: dict[Key, list[str]] = {}
    for path, sha in files.items():
        folder = str(PurePosixPath(path).parent)
        if folder not in folders or not path.endswith(CATALOG_SUFFIXES):
            continue
        for obj in blobs.objects(path, sha) or ():
            if (
                isinstance(obj, dict)
                and obj.get("schema") == "olm.bundle"
                and isinstance(obj.get("name"), str)
            ):
                out.setdefault((folder, obj["name"]), []).append(canonical(obj))
    return out


@dataclass
class Event:
    commit: str
    kind: str  # "removed" or "rewritten"
    folder: str
    bundle: str
    note: str = ""
    caught_by: list[str] = field(default_factory=list)
    catalog_named: bool = False


def catalog_changes(blobs: BlobReader, parent: dict[str, str], head: dict[str, str]) -> list[str]:
    """The catalog files whose blob differs between ``parent`` and ``head`` (added and deleted included).

    A file that does not parse counts when a file beside it is a catalog file (a broken catalog file).
    """
    changed = []
    for path in sorted(set(parent) | set(head)):
        if not path.endswith(CATALOG_SUFFIXES) or parent.get(path) == head.get(path):
            continue
        sides = [blobs.objects(path, t[path]) for t in (parent, head) if path in t]
        if any(is_catalog(o) for o in sides) or (
            any(o is None for o in sides) and _beside_catalog(blobs, path, parent, head)
        ):
            changed.append(path)
    return changed


def _beside_catalog(blobs: BlobReader, path: str, parent: dict[str, str], head: dict[str, str]) -> bool:
    folder = PurePosixPath(path).parent
    return any(
        p != path
        and PurePosixPath(p).parent == folder
        and p.endswith(CATALOG_SUFFIXES)
        and is_catalog(blobs.objects(p, sha))
        for tree in (parent, head)
        for p, sha in tree.items()
    )


def ground_truth(
    commit: str, blobs: BlobReader, parent: dict[str, str], head: dict[str, str], changed: list[str]
) -> list[Event]:
    folders = {str(PurePosixPath(p).parent) for p in changed}
    before = folder_bundles(blobs, parent, folders)
    after = folder_bundles(blobs, head, folders)
    head_names: dict[str, set[str]] = {}
    if any(k not in after for k in before):  # where a removed bundle still is, for the note
        for folder, name in folder_bundles(blobs, head, {str(PurePosixPath(p).parent) for p in head}):
            head_names.setdefault(name, set()).add(folder)
    events: list[Event] = []
    for key in sorted(before):
        folder, name = key
        if key not in after:
            gone = "folder gone" if not any(str(PurePosixPath(p).parent) == folder for p in head) else ""
            still = sorted(head_names.get(name, ()))
            note = "; ".join(x for x in (gone, f"still in {', '.join(still)}" if still else "") if x)
            events.append(Event(commit, "removed", folder, name, note))
        elif sorted(before[key]) != sorted(after[key]):
            events.append(Event(commit, "rewritten", folder, name))
    return events


# ----------------------------------------------------------------------------------- releasekit check


@dataclass
class Run:
    commit: str
    subject: str
    code: int
    seconds: float
    findings: list[dict[str, Any]]
    stderr: str

    @property
    def bug(self) -> bool:
        return self.code not in (0, 1) or "Traceback" in self.stderr or "(stdout is not JSON)" in self.stderr


def run_check(repo: Path, python: str, parent: str, commit: str, subject: str) -> Run:
    cmd = [python, "-m", "releasekit", "check", "--repo", str(repo), "--base", parent, "--head", commit]
    start = time.perf_counter()
    proc = subprocess.run([*cmd, "--format", "json"], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    findings: list[dict[str, Any]] = []
    if proc.returncode in (0, 1):
        try:
            findings = json.loads(proc.stdout)["findings"]
        except (json.JSONDecodeError, KeyError, TypeError):
            proc.stderr += "\n(stdout is not JSON)"
    return Run(commit, subject, proc.returncode, seconds, findings, proc.stderr)


def by_rule(findings: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    return Counter((f.get("rule", "?"), str(f.get("severity", "?"))[:1].upper()) for f in findings)


def names(finding: dict[str, Any], text: str) -> bool:
    return any(text == str(s) or text in str(s) for s in finding.get("subject") or ()) or text in str(
        finding.get("message", "")
    )


def score(event: Event, run: Run | None) -> None:
    if run is None:
        return
    rules = REMOVAL_RULES if event.kind == "removed" else REWRITE_RULES
    parts = [p for p in PurePosixPath(event.folder).parts if p not in (".",)]
    for f in run.findings:
        if f.get("rule") in rules and names(f, event.bundle):
            event.caught_by.append(f["rule"])
            file = str((f.get("location") or {}).get("file") or "")
            if file.startswith(event.folder + "/") or any(names(f, p) for p in parts if p.startswith("v")):
                event.catalog_named = True
    event.caught_by = sorted(set(event.caught_by))


# ----------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "repo", type=Path, help="a git repository of file-based catalogs (a clone with a work tree)"
    )
    ap.add_argument("--rev", default="HEAD", help="the tip whose first-parent history is replayed")
    ap.add_argument("--python", default=sys.executable, help="the interpreter that has releasekit installed")
    ap.add_argument("--limit", type=int, default=0, help="only the newest N catalog commits (0: all)")
    ap.add_argument("--slow", type=float, default=2.0, help="mark checks slower than this many seconds")
    args = ap.parse_args(argv)
    repo = args.repo.resolve()

    history = git(repo, "rev-list", "--first-parent", "--parents", "--reverse", args.rev).decode().split("\n")
    blobs = BlobReader(repo)
    runs: list[Run] = []
    events: list[Event] = []
    trees: dict[str, dict[str, str]] = {}
    candidates: list[tuple[str, str, list[str]]] = []
    for line in history:
        ids = line.split()
        if len(ids) < 2:
            continue  # the root commit (or the trailing empty line)
        commit, parent = ids[0], ids[1]
        head_files = tree_files(repo, commit)
        parent_files = trees.get(parent) or tree_files(repo, parent)
        trees = {commit: head_files}
        changed = catalog_changes(blobs, parent_files, head_files)
        if changed:
            candidates.append((commit, parent, changed))
            events.extend(ground_truth(commit, blobs, parent_files, head_files, changed))
    blobs.close()
    if args.limit:
        candidates = candidates[-args.limit :]
        kept = {c for c, _, _ in candidates}
        events = [e for e in events if e.commit in kept]

    print(
        f"{'commit':<10} {'exit':>4} {'seconds':>7} {'err':>4} {'warn':>4}  findings by rule (E error, W warning)"
    )
    for commit, parent, _changed in candidates:
        subject = git(repo, "log", "-1", "--format=%s", commit).decode().strip()
        run = run_check(repo, args.python, parent, commit, subject)
        runs.append(run)
        counts = by_rule(run.findings)
        errors = sum(n for (_, s), n in counts.items() if s == "E")
        warnings = sum(n for (_, s), n in counts.items() if s == "W")
        rules = " ".join(f"{r}:{n}{s}" for (r, s), n in sorted(counts.items()) if s in ("E", "W"))
        flag = " BUG" if run.bug else (" SLOW" if run.seconds > args.slow else "")
        print(f"{commit[:10]:<10} {run.code:>4} {run.seconds:>7.2f} {errors:>4} {warnings:>4}  {rules}{flag}")

    total = Counter[tuple[str, str]]()
    for run in runs:
        total.update(by_rule(run.findings))
    times = [r.seconds for r in runs]
    codes = Counter(r.code for r in runs)
    print()
    print(f"commits checked: {len(runs)}   exit codes: {dict(sorted(codes.items()))}")
    if times:
        print(
            f"seconds: total {sum(times):.1f}, median {statistics.median(times):.2f}, "
            f"max {max(times):.2f}, over {args.slow:g} s: {sum(t > args.slow for t in times)}"
        )
    print(
        "findings by rule: " + (", ".join(f"{r} {s}: {n}" for (r, s), n in sorted(total.items())) or "none")
    )
    print(f"commits with errors: {sum(any(f.get('severity') == 'error' for f in r.findings) for r in runs)}")
    bugs = [r for r in runs if r.bug]
    for r in bugs:
        last = (r.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        print(f"BUG {r.commit[:10]} exit {r.code}: {last}")

    print()
    print("flagged (errors, and RK-DIFF-023/005 warnings): commit rule [subject]")
    for r in runs:
        for f in r.findings:
            if f.get("severity") == "error" or f.get("rule") in REWRITE_RULES:
                subject = (
                    " / ".join(str(s) for s in f.get("subject") or ()) or str(f.get("message", ""))[:100]
                )
                print(f"  {r.commit[:10]} {f.get('rule')} {f.get('severity')} [{subject}]")

    by_commit = {r.commit: r for r in runs}
    for event in events:
        score(event, by_commit.get(event.commit))
    print()
    print(
        f"ground truth: {len(events)} events (removed: {sum(e.kind == 'removed' for e in events)}, "
        f"rewritten: {sum(e.kind == 'rewritten' for e in events)})"
    )
    for e in events:
        status = f"caught by {'/'.join(e.caught_by)}" if e.caught_by else "MISSED"
        catalog = "" if not e.caught_by else (", catalog named" if e.catalog_named else ", catalog NOT named")
        note = f"  ({e.note})" if e.note else ""
        print(f"  {e.commit[:10]} {e.kind:<9} {e.folder}  {e.bundle}: {status}{catalog}{note}")
    caught = sum(bool(e.caught_by) for e in events)
    if events:
        print(f"recall: {caught}/{len(events)} = {caught / len(events):.1%}")
    else:
        print("recall: no ground-truth events")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
