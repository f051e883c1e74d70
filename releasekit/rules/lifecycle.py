"""The OpenShift lifecycle's own consistency, and the streams against it.

Pure core: takes an :class:`~releasekit.model.lifecycle.OpenShiftLifecycle` and the loaded streams and
returns findings.

Rule ids (stable, never renumbered), titles and severities: :data:`RULES`. The reader reports RK-STREAM-050
for a version the file's EUS list or upgrades name but its ``versions`` lacks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from releasekit.model.finding import Finding, Findings, Location
from releasekit.model.lifecycle import EdgeKind, OpenShiftLifecycle
from releasekit.model.ruledoc import RuleFacts
from releasekit.model.stream import Stream

__all__ = ["RULES", "check_lifecycle"]

RULES: Final[dict[str, RuleFacts]] = {
    "RK-STREAM-050": RuleFacts("a lifecycle entry names a version that is not listed"),
    "RK-STREAM-051": RuleFacts("a lifecycle upgrade edge does not go upwards or has the wrong kind"),
    "RK-STREAM-052": RuleFacts("a stream ships to an OpenShift version the lifecycle does not list"),
}


def check_lifecycle(lifecycle: OpenShiftLifecycle, streams: Iterable[Stream] = ()) -> tuple[Finding, ...]:
    """RK-STREAM-051 and 052 (see the module docstring)."""
    findings = Findings()
    for edge in lifecycle.edges:
        if not edge.line:
            continue  # derived edges are right by construction
        same_major = edge.source.major == edge.target.major
        wrong = (
            "it does not go upwards"
            if edge.target <= edge.source
            else "a major edge must go into a higher major"
            if edge.kind is EdgeKind.MAJOR and same_major
            else f"a {edge.kind.value} edge stays inside one major"
            if edge.kind is not EdgeKind.MAJOR and not same_major
            else ""
        )
        if wrong:
            findings.add(
                "RK-STREAM-051",
                f"upgrade {edge.source} -> {edge.target} ({edge.kind.value}): {wrong}",
                Location(file=lifecycle.file, line=edge.line),
                "fix from/to, or the kind (minor, eus, major)",
            )
    listed = set(lifecycle.versions)
    for stream in streams:
        for version in stream.openshift:
            if version not in listed:
                findings.add(
                    "RK-STREAM-052",
                    f"stream {stream.name!r} ships to {version}, which {lifecycle.file or 'the lifecycle'} "
                    "does not list: no cluster upgrade into or out of it is checked",
                    stream.origin.at(".openshift"),
                    f"add {version} to versions in {lifecycle.file or 'streams/openshift/lifecycle.yaml'}",
                    (f"stream {stream.name!r}",),
                )
    return tuple(findings)
