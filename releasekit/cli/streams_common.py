"""What the ``streams`` subcommands share: table helpers."""

from __future__ import annotations

from collections.abc import Sequence

from releasekit.model.stream import OpenShiftVersion, Release, Stream

__all__ = ["kueue_text", "openshift_range", "release_rows", "table"]


def openshift_range(versions: Sequence[OpenShiftVersion], order: Sequence[OpenShiftVersion]) -> str:
    """``v4.18–v4.22, v5.0``: runs that are contiguous in the stream's ``order`` become ranges."""
    if not versions:
        return "-"
    index = {v: i for i, v in enumerate(order)}
    runs: list[list[OpenShiftVersion]] = []
    for version in versions:
        if runs and version in index and runs[-1][-1] in index and index[version] == index[runs[-1][-1]] + 1:
            runs[-1].append(version)
        else:
            runs.append([version])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def kueue_text(release: Release) -> str:
    """``0.18 (v0.18.4-40-ge4ce3bcc)``: the line and, where known, the pin."""
    pin = release.upstream.describe or release.upstream.tag
    return f"{release.upstream.line} ({pin})" if pin else release.upstream.line


def table(rows: Sequence[Sequence[str]]) -> list[str]:
    """``rows`` as columns aligned by two spaces, each line indented by two."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def release_rows(stream: Stream, *, newest_first: bool = False) -> list[Release]:
    """The stream's releases in semver order."""
    return sorted(stream.releases, key=lambda r: r.version, reverse=newest_first)
