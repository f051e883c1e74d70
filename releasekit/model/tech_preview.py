"""Tech Preview blocks cluster upgrades: the ``olm.maxOpenShiftVersion`` property releasekit writes.

Pure model. While an operator declaring ``olm.maxOpenShiftVersion`` X.Y is installed, OpenShift reports
Upgradeable=False at X.Y. A stream with ``blockClusterUpgrades: true`` gives each release the highest
minor among its catalogs, in the CSV's ``olm.properties`` annotation and the bundle's properties.
"""

from __future__ import annotations

import json
import re
from typing import Final

from releasekit.model.stream import OPENSHIFT_NUMBER_DIGITS, OpenShiftVersion, Release, Stream

__all__ = [
    "ANNOTATION_OLM_PROPERTIES",
    "PROP_MAX_OPENSHIFT",
    "max_openshift_value",
    "olm_properties_annotation",
    "parse_max_openshift",
    "written_max_openshift",
]

PROP_MAX_OPENSHIFT: Final = "olm.maxOpenShiftVersion"
ANNOTATION_OLM_PROPERTIES: Final = "olm.properties"


def max_openshift_value(release: Release) -> str:
    """``X.Y`` of the highest OpenShift version among the release's catalogs."""
    top = max(release.catalogs)
    return f"{top.major}.{top.minor}"


def written_max_openshift(stream: Stream, release: Release) -> str | None:
    """The value releasekit writes for ``release`` (None when the stream does not block upgrades)."""
    if not stream.block_cluster_upgrades or not release.catalogs:
        return None
    return max_openshift_value(release)


def olm_properties_annotation(value: str) -> str:
    """The ``olm.properties`` annotation text releasekit writes for a maxOpenShiftVersion ``value``."""
    return json.dumps([{"type": PROP_MAX_OPENSHIFT, "value": value}], separators=(",", ":"))


# ``4.19`` / ``v4.19`` / ``4.19.0`` / ``4.19-rc.1``: ASCII digits, so int() never sees a huge number
_MAX_OPENSHIFT = re.compile(
    rf"v?([0-9]{{1,{OPENSHIFT_NUMBER_DIGITS}}})\.([0-9]{{1,{OPENSHIFT_NUMBER_DIGITS}}})(?:[.+-].*)?\Z",
    re.DOTALL,
)


def parse_max_openshift(value: object) -> OpenShiftVersion | None:
    """``4.19`` / ``v4.19`` / ``4.19.0`` as an OpenShift version (patch dropped, as OLM does); None if not."""
    match = _MAX_OPENSHIFT.match(value.strip()) if isinstance(value, str) else None
    return OpenShiftVersion(major=int(match[1]), minor=int(match[2])) if match else None
