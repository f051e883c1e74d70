"""operator-sdk's own bundle-content check (sdk ``internal/registry/validate.go`` ``ValidateBundleContent``).

Pure. Part of what ``operator-sdk bundle validate`` runs by default, besides api's CSV, CRD and bundle
validators: every object other than the CSV and CRDs must be of a kind a registry+v1 bundle may carry
(RK-BUNDLE-017, sdk wording ``unsupported media type registry+v1 for bundle object``) and must have the
metadata ``kubectl`` would accept (RK-BUNDLE-018: a name, no namespace, label and annotation keys of
the right syntax; ``k8s.io/apimachinery``'s ``ValidateObjectMetaAccessor``). The sdk appends the Go
dump of the object to the metadata message; releasekit names file and line instead.
"""

from __future__ import annotations

from releasekit.model import bundle_ids as ids
from releasekit.model.bundle import Bundle, BundleLayout
from releasekit.model.finding import Finding
from releasekit.rules.bundle._common import BundleFindings, api_message, gvk_string
from releasekit.rules.bundle._k8s import aggregate, object_meta_problems
from releasekit.rules.bundle.registry import SUPPORTED_KINDS

__all__ = ["validate_sdk_content"]


def validate_sdk_content(bundle: Bundle) -> list[Finding]:
    """Supported kinds and object metadata of every object besides the CSV and the CRDs."""
    if bundle.layout is BundleLayout.FILE or bundle.csv is None:
        return []  # one file validated alone is no bundle; without a CSV the loader refuses the bundle
    out = BundleFindings(bundle)
    for obj in bundle.objects:
        if obj.kind not in SUPPORTED_KINDS:
            out.flag(
                ids.CONTENT_UNSUPPORTED_KIND,
                api_message(
                    "unsupported media type registry+v1 for bundle object",
                    value=gvk_string(obj.group, obj.api_version.rpartition("/")[2], obj.kind),
                ),
                obj.loc("$.kind"),
                "OLM installs only these kinds from a registry+v1 bundle: "
                + ", ".join(sorted(SUPPORTED_KINDS))
                + "; let the operator create the object, or leave it out",
            )
            continue
        problems = object_meta_problems(obj.data.get("metadata"))
        if problems:
            out.flag(
                ids.CONTENT_OBJECT_METADATA,
                api_message(
                    f"error validating object: {aggregate([message for _, message in problems])}",
                    value=obj.name,
                ),
                obj.loc(problems[0][0]),
                "give the object a metadata.name, no metadata.namespace (OLM installs it in the "
                "operator's namespace), and label/annotation keys of the form [prefix/]name",
            )
    return out
