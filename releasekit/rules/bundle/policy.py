"""releasekit's own bundle rules: stream policy on alpha CRDs; released images pinned, from allowed registries.

Pure. Rules RK-BUNDLE-090 … 092. Stream policy judges only bundles of a releasekit stream (a
:class:`~releasekit.model.bundle.StreamPolicy` resolved from ``streams/``), never a bundle merely because a
channel is called ``stable``.
"""

from __future__ import annotations

import re

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, StreamPolicy
from releasekit.model.finding import Finding, Severity
from releasekit.model.operator import csv_images
from releasekit.rules.bundle._common import BundleFindings, as_map, as_str
from releasekit.rules.bundle.crd import crd_versions

__all__ = [
    "ALPHA_VERSION",
    "check_alpha_crds",
    "check_image_pinning",
    "policy_severity",
]

ALPHA_VERSION = re.compile(r"^v\d+alpha\d*$")
_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def policy_severity(policy: StreamPolicy) -> Severity:
    """Stream policy on a released version is history to note (warning); on anything else an error."""
    return Severity.WARNING if policy.released else Severity.ERROR


def check_alpha_crds(bundle: Bundle, policy: StreamPolicy | None) -> list[Finding]:
    """RK-BUNDLE-090: a bundle of a stream that excludes alpha APIs ships no CRD with any alpha version.

    Kinds the stream lists in ``apiMaturity.alphaApis`` may ship. No policy (another operator's bundle):
    nothing to judge.
    """
    if policy is None:
        return []
    out = BundleFindings(bundle)
    for crd in bundle.crds:
        alpha = sorted(v for v in crd_versions(crd) if ALPHA_VERSION.match(v))
        kind = as_str(as_map(crd.spec.get("names")).get("kind"))
        if alpha and kind not in policy.alpha_kinds:
            history = " (a released version: reported, not refused)" if policy.released else ""
            message = (
                f'CRD "{crd.name}" has alpha version(s) {", ".join(alpha)}; stream "{policy.stream}" '
                f"excludes alpha APIs, so its bundles must not ship a CRD with any alpha version{history}"
            )
            hint = (
                "leave the whole CRD out of this stream's bundles (the experimental stream may keep it), "
                "or list the kind in the stream's apiMaturity.alphaApis"
            )
            out.flag(
                ids.RK_ALPHA_CRD_IN_STABLE, message, crd.loc("$.spec.versions"), hint, policy_severity(policy)
            )
    return out


def check_image_pinning(bundle: Bundle, *, allowed_registries: tuple[str, ...]) -> list[Finding]:
    """RK-BUNDLE-091/092 for a released version: every image by digest, from an allowed registry."""
    csv = bundle.csv
    if csv is None:
        return []
    out = BundleFindings(bundle)
    for image, path, what, _ in csv_images(csv.data):
        if not _DIGEST.search(image):
            tag = image.rpartition(":")[2] if ":" in image.rpartition("/")[2] else ""
            detail = f'a tag (":{tag}")' if tag else "no digest"
            message = (
                f'image "{image}" ({what}) is not pinned by digest: it has {detail}; '
                "a released bundle must reference images by @sha256 digest"
            )
            hint = "replace the tag with the image's @sha256:<digest> (the Konflux snapshot gives it)"
            out.flag(ids.RK_IMAGE_NOT_PINNED, message, csv.loc(path), hint)
        if allowed_registries and not image.startswith(allowed_registries):
            message = f'image "{image}" ({what}) is not in an allowed registry ({", ".join(sorted(allowed_registries))})'
            hint = "reference the image from the registry it is released to"
            out.flag(ids.RK_IMAGE_REGISTRY, message, csv.loc(path), hint)
    return out
