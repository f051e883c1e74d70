"""The exact text of each blob of a JSON-stream catalog, and the published bundle blobs of a catalog tree.

Adapter module (bytes in, model out; nothing here opens a file: callers pass readers). A published
bundle is carried into a new catalog byte for byte (:mod:`releasekit.plan.carry`), so its text is kept
exactly as it stands between its opening ``{`` and its closing ``}``. Only JSON-stream files (what
``opm render`` and releasekit write) are read for blobs; a YAML or unreadable file yields none, and
the catalog's own checks report what is wrong with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from releasekit.io.fbc_load import LoadLimits, _json_docs, decode_metas, load_catalog_text
from releasekit.model.fbc import SCHEMA_BUNDLE, Bundle, PublishedBlob, PublishedKey
from releasekit.model.finding import Finding, Location, Severity
from releasekit.model.layout import CatalogLayout

__all__ = ["RawBlob", "json_stream_blobs", "published_blobs"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RawBlob:
    """One top-level object of a JSON stream: its identity, its exact text and its first line."""

    schema: str
    package: str
    name: str
    text: str
    line: int


def json_stream_blobs(text: str) -> list[RawBlob] | None:
    """Every top-level object of ``text`` with its exact text; None when ``text`` is not a JSON stream."""
    if text.strip(" \t\r\n") and not text.lstrip(" \t\r\n").startswith("{"):
        return None
    refused: list[Finding] = []
    out = []
    for obj, line, start, end in _json_docs(text, "", refused):
        if not isinstance(obj, dict):
            return None
        schema, package, name = (str(obj.get(key, "")) for key in ("schema", "package", "name"))
        out.append(RawBlob(schema=schema, package=package, name=name, text=text[start:end], line=line))
    return None if refused else out


def _bundles(data: bytes, shown: str) -> Iterator[tuple[RawBlob, Bundle]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    raws = json_stream_blobs(text.removeprefix("\ufeff"))  # a byte-order mark is outside every blob
    if not raws:
        return
    metas, findings = load_catalog_text(data, shown, LoadLimits())
    config, decode_findings = decode_metas(metas)
    if any(f.severity is Severity.ERROR for f in (*findings, *decode_findings)):
        return
    decoded = {(bundle.package, bundle.name): bundle for bundle in reversed(config.bundles)}  # the first wins
    for raw in raws:  # each bundle once, with the text of its first blob
        if raw.schema == SCHEMA_BUNDLE and (bundle := decoded.pop((raw.package, raw.name), None)) is not None:
            yield raw, bundle


def published_blobs(
    files: Mapping[PurePosixPath, Callable[[], bytes]],
    layout: CatalogLayout,
    *,
    display_root: str,
    revision: str = "HEAD",
) -> dict[PublishedKey, PublishedBlob]:
    """The bundle blobs of every package catalog among ``files`` (paths relative to the layout's root).

    Keyed by ``(OpenShift version, package, bundle name)``; a bundle whose ``package`` is not the
    folder's package is left out (it is not that package catalog's bundle).
    """
    out: dict[PublishedKey, PublishedBlob] = {}
    root = display_root.rstrip("/")
    for rel in sorted(files):
        key = layout.catalog_key(rel)
        if key is None or rel.name != "catalog.json":
            continue
        shown = f"{root}/{rel}" if root not in ("", ".") else str(rel)
        for raw, bundle in _bundles(files[rel](), shown):
            if bundle.package != key[1]:
                continue
            out[(key[0], key[1], bundle.name)] = PublishedBlob(
                bundle=bundle, text=raw.text, location=Location(file=shown, line=raw.line), revision=revision
            )
    return out
