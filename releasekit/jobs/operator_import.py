"""``releasekit operator import``: record one release's operator facts from the operator repository.

The record is checked as ``streams validate`` reads it before it is written; any problem writes nothing.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasekit.errors import InputError, UsageError, printable
from releasekit.io.atomic import write_text_atomic
from releasekit.io.inputs import contained
from releasekit.io.operator_records import load_operator_records, parse_record, record_findings, render_record
from releasekit.io.operator_repo import (
    ANNOTATIONS_PATH,
    DOCKERFILE_PATH,
    MANIFESTS_DIR,
    MAX_FILE_BYTES,
    read_operator_snapshot,
)
from releasekit.io.streams import load_streams
from releasekit.io.upstream import check_ref
from releasekit.io.yamlio import YamlContentError, load_yaml_documents
from releasekit.model.stream import ReleaseStatus
from releasekit.model.version import Version
from releasekit.plan.operator_bundle import choose_operator_facts, recorded_csv
from releasekit.plan.operator_record import dockerfile_labels, make_record, substitute_related_images

__all__ = ["OPERATOR_DIR", "import_operator"]

OPERATOR_DIR = "operator"
"""Records live in ``streams/operator/`` (not top-level ``streams/*.yaml``, which are streams)."""

_SHOWN = 80
"""How many characters of a value from the repository a message quotes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportedOperator:
    """What ``operator import`` wrote."""

    path: Path
    commit: str
    manifests: int
    substituted: int


def _shown(value: object) -> str:
    """A value from the repository as a message quotes it: printable, one line, not too long."""
    text = printable(str(value))
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text):,} characters)"


def _kind_of(mode: int) -> str:
    kinds = ((stat.S_ISLNK, "a dangling symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISREG, "a file"))
    return next((kind for test, kind in kinds if test(mode)), "not a folder (a socket or device)")


def _check_folder(path: Path, what: str) -> bool:
    """Whether ``path`` exists as a folder (a link to one counts); False when absent."""
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InputError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    with contextlib.suppress(OSError):  # a dangling link is judged by its lstat
        lst = path.stat() if stat.S_ISLNK(lst.st_mode) else lst
    if not stat.S_ISDIR(lst.st_mode):
        raise InputError(f"{path}: {what} is {_kind_of(lst.st_mode)}, not a folder")
    return True


def _check_output(streams_dir: Path, path: Path) -> None:
    """Refuse, before git is asked anything, an output that cannot be written."""
    folders = _check_folder(streams_dir, "--streams-dir")
    if not (folders and _check_folder(streams_dir / OPERATOR_DIR, "the operator records folder")):
        return
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{path}: cannot write the record: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else _kind_of(st.st_mode)
        raise InputError(f"{path}: is {kind}; the record is written as a regular file")


def _text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _one_document(text: str, where: str) -> Any:
    try:
        loaded = load_yaml_documents(text, track_paths=False, last_key_wins=True, source=where)
    except YamlContentError as exc:
        raise InputError(f"{where}: not YAML: {exc.message} (line {exc.line})") from None
    docs = [d.data for d in loaded if d.data is not None]
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError(f"{where}: expected one YAML mapping, found {len(docs)} documents")
    return docs[0]


def _type_name(value: object) -> str:
    if value is None:
        return "missing"
    names = {dict: "a mapping", list: "a list", str: "text", bool: "a boolean", int: "a number"}
    return names.get(type(value), f"a {type(value).__name__}")


def _check_csv(csv: dict[Any, Any], where: str) -> None:
    """Refuse a CSV whose ``metadata`` or ``spec`` is not a mapping (the record keeps both as mappings)."""
    for key in ("metadata", "spec"):
        if not isinstance(csv.get(key), dict):
            raise InputError(f"{where}: {key} is {_type_name(csv.get(key))}, not a mapping")
    annotations = csv["metadata"].get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        raise InputError(f"{where}: metadata.annotations is {_type_name(annotations)}, not a mapping")


def _read_manifests(snap: Any, ref: str, dockerfile: str | None, related: str | None) -> tuple[Any, ...]:
    """``(csv file, csv, other manifests, substituted)`` from the snapshot's ``bundle/manifests/``."""
    csv_file: str | None = None
    csv: Any = None
    others: list[tuple[str, Any]] = []
    substituted: tuple[tuple[str, str], ...] = ()
    for name, data in snap.manifests:
        where = f"{ref}:{MANIFESTS_DIR}/{printable(name)}"
        text = _text(data, where)
        if ".clusterserviceversion." in name:
            try:
                text, substituted = substitute_related_images(
                    text, dockerfile, related, max_chars=MAX_FILE_BYTES
                )
            except ValueError as exc:
                raise InputError(f"{ref}: {exc}") from None
        obj = _one_document(text, where)
        if obj.get("kind") == "ClusterServiceVersion":
            if csv is not None:
                raise InputError(
                    f"{ref}: {MANIFESTS_DIR}/ holds two ClusterServiceVersions "
                    f"({printable(str(csv_file))}, {printable(name)})"
                )
            _check_csv(obj, where)
            csv_file, csv = name, obj
        else:
            others.append((name, obj))
    if csv is None or csv_file is None:
        raise InputError(f"{ref}: {MANIFESTS_DIR}/ holds no ClusterServiceVersion")
    return csv_file, csv, others, substituted


def _refuse_invalid(text: str, path: Path, ref: str) -> None:
    """Refuse a record that ``streams validate`` would refuse (naming the first field it breaks)."""
    problems = record_findings(text, str(path))
    if not problems:
        return
    first = problems[0]
    field = first.location.path if first.location and first.location.path else "the record"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    raise InputError(
        f"{ref}: refusing to write {path}: {field}: {_shown(first.message)}{more}; "
        "the operator repository holds something operator-record.schema.json does not allow"
    )


def _keep_what_shipped(streams_dir: Path, version: str, text: str, path: Path, ref: str) -> None:
    """Refuse a first record of a published release that would change the bundle it shipped with."""
    if path.exists() or not any(streams_dir.glob("*.yaml")):
        return  # a re-import of an existing record, or no streams to say what shipped
    loaded = load_streams(streams_dir)
    found = [(s, r) for s in loaded.streams for r in s.releases if str(r.version) == version]
    if not found or found[0][1].status is ReleaseStatus.CANDIDATE:
        return
    stream, release = found[0]
    records, _ = load_operator_records(streams_dir)
    shipped = choose_operator_facts(stream, release, records)
    if shipped.record is None:
        return  # it shipped on the templates' facts: nothing recorded to keep
    new = parse_record(text, str(path))
    new_facts = choose_operator_facts(stream, release, {**records, version: new})
    before = recorded_csv(stream, release, shipped.record, carried_from=shipped.carried_from, prose_doc={})
    after = recorded_csv(stream, release, new, carried_from=new_facts.carried_from, prose_doc={})
    spec_before, spec_after = before.get("spec", {}), after.get("spec", {})
    differ = sorted(k for k in {*before, *after} - {"spec"} if before.get(k) != after.get(k))
    differ += sorted(
        f"spec.{k}" for k in {*spec_before, *spec_after} if spec_before.get(k) != spec_after.get(k)
    )
    differ += ["manifests"] if dict(shipped.record.manifests) != dict(new.manifests) else []
    if differ:
        raise InputError(
            f"{ref}: refusing to record {version}: it was published on {shipped.record.file}'s facts "
            f"(carried), and this record would change its bundle ({', '.join(differ[:6])}); a published "
            "bundle never changes: ship the change as a new release"
        )


def _is_version(text: str) -> bool:
    try:
        Version.parse(text)
    except ValueError:
        return False
    return True


def import_operator(
    repo: str,
    ref: str,
    version: str,
    streams_dir: Path,
    *,
    cache: Path | None = None,
    as_version: bool = False,
) -> ImportedOperator:
    """Read the operator repository ``repo`` at ``ref`` and write the record of release ``version``."""
    check_ref(ref)  # before anything touches git
    if not _is_version(version):
        raise UsageError(f"--version {_shown(version)!r} is not a semantic version (X.Y.Z)")
    folder = streams_dir / OPERATOR_DIR
    path = contained(folder / f"{version}.yaml", folder, "the record named after --version")
    _check_output(streams_dir, path)  # before git: a run that cannot write reads nothing
    snap = read_operator_snapshot(repo, ref, cache=cache)
    dockerfile = _text(snap.dockerfile, f"{ref}:{DOCKERFILE_PATH}") if snap.dockerfile is not None else None
    related = (
        _text(snap.related_images, f"{ref}:related_images.json") if snap.related_images is not None else None
    )
    csv_file, csv, others, substituted = _read_manifests(snap, ref, dockerfile, related)
    found = str(csv["spec"].get("version", ""))
    if found != version and not (as_version and _is_version(found)):
        raise UsageError(  # and the two ways on
            f"{ref}: the CSV there is version {_shown(found) or '(none)'}, not {version}; import the "
            f"commit that bumps the CSV to {version} (on its release branch), or record nothing yet: until "
            f"{version} has a record, its bundle carries the newest earlier record of its minor "
            f"(RK-BUNDLE-100); to record this CSV as {version} anyway (re-aimed at the release's name, "
            "version, images and edges), add --as-version"
        )
    where = f"{ref}:{ANNOTATIONS_PATH}"
    annotations = _one_document(_text(snap.annotations, where), where).get("annotations")
    if not isinstance(annotations, dict):
        raise InputError(f"{ref}:{ANNOTATIONS_PATH}: no annotations mapping")
    try:
        labels = dockerfile_labels(dockerfile) if dockerfile is not None else None
    except ValueError as exc:
        raise InputError(f"{ref}:{DOCKERFILE_PATH}: {exc}") from None
    record = make_record(
        version=version,
        commit=snap.commit,
        csv_file=csv_file,
        csv=csv,
        manifests=others,
        annotations=annotations,
        labels=labels,
        substituted=substituted,
        csv_version=found if found != version else None,
    )
    text = render_record(record)
    _refuse_invalid(text, path, ref)
    _keep_what_shipped(streams_dir, version, text, path, ref)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)
    except OSError as exc:
        raise InputError(f"{path}: cannot write the record: {exc.strerror or exc}") from None
    return ImportedOperator(
        path=path, commit=snap.commit, manifests=len(others) + 1, substituted=len(substituted)
    )
