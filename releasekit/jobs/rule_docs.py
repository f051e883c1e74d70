"""Every rule id explained, from the rule tables: SARIF's rule metadata and ``docs/rules.md``.

Regenerate the reference after adding or changing a rule: ``python -m releasekit.jobs.rule_docs``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import releasekit.rules
from releasekit.io.atomic import write_text_atomic
from releasekit.model import acknowledgement
from releasekit.model.finding import Severity
from releasekit.model.ruledoc import RuleDoc, RuleFacts
from releasekit.rules.explain import EXAMPLES

__all__ = ["FAMILIES", "all_rule_docs", "main", "render_rules_markdown"]

DOC_PATH = Path("docs") / "rules.md"

FAMILIES: Mapping[str, tuple[str, str, str]] = {
    "RK-FBC": (
        "opm rejects the catalog for it, so Konflux's FBC fragment build and `opm validate` fail.",
        "a channel entry names a bundle that has no `olm.bundle` blob in the package.",
        "fix the object at the reported file and line; `releasekit catalog validate DIR` lists every "
        "problem at once, where opm stops at the first.",
    ),
    "RK-BUNDLE": (
        "operator-sdk's `bundle validate` (or operator-registry) refuses the bundle, or OLM cannot "
        "install it as written.",
        "a ClusterServiceVersion without `spec.installModes`.",
        "fix the manifest the finding names; `releasekit bundle validate DIR` re-checks it.",
    ),
    "RK-GRAPH": (
        "OLM resolves upgrades from the channel entries; a wrong edge strands users or offers them an "
        "upgrade that cannot work.",
        "`replaces` pointing at a newer bundle than the entry itself.",
        "fix the entry's `replaces`, `skips` or `skipRange`, or the stream's channel policy.",
    ),
    "RK-STREAM": (
        "`streams/` is the source every bundle and catalog is generated from; a wrong fact there is "
        "copied into everything releasekit writes.",
        "a release whose `upstream.inventory` names no file under `streams/upstream/`.",
        "fix the key the finding names in `streams/` (`streams/README.md` documents every key).",
    ),
    "RK-POLICY": (
        "the stable stream promises users stable APIs and safe upgrades; OLM would install what breaks it.",
        "a stable release whose Kueue ships a CRD with a `v1alpha1` version.",
        "ship the release in the experimental stream, or leave out what the policy names.",
    ),
    "RK-KONFLUX": (
        "Konflux builds and releases catalog fragments only in the layout its pipelines expect.",
        "a `v4.18/` fragment whose Containerfile starts FROM a base image tagged `v4.17`.",
        "fix the fragment's Containerfile or folder as the finding says (kueue-and-konflux notes).",
    ),
    "RK-OLMV1": (
        "OLM v1 (ClusterExtension) installs a bundle only without the OLM v0 features it dropped; a "
        "bundle that uses them cannot move to OLM v1.",
        "a CSV that does not support the AllNamespaces install mode.",
        "remove the OLM v0-only feature the finding names, or keep the bundle on OLM v0.",
    ),
    "RK-DIFF": (
        "published catalogs are what users' clusters already run; a pull request may add to them but "
        "must not take away or rewrite what was released.",
        "a pull request that drops a released version from `streams/stable.yaml`.",
        "restore what was published; deprecate or withdraw a release (`status: withdrawn`) instead.",
    ),
}
"""Per family: why its rules matter, an example, the usual fix."""

DETAILS: Mapping[str, tuple[str, str, str]] = {
    "RK-STREAM-040": (
        "`releasekit.yaml` says where catalogs are written; a misspelt key would silently write them "
        "somewhere the image build does not look.",
        "`catalog: {layout: kueue_fbc}` in `releasekit.yaml` (the preset is spelt `kueue-fbc`).",
        "fix the key the finding names; the README's `releasekit.yaml` section lists the keys and presets.",
    ),
    "RK-DIFF-001": (
        "catalog/ is generated from streams/; a hand edit or a forgotten `releasekit build` ships a "
        "catalog nobody can regenerate.",
        "a release added to `streams/stable.yaml` without running `releasekit build`.",
        "run `releasekit build` and commit `streams/` and `catalog/` together.",
    ),
    "RK-DIFF-002": (
        "a reviewer must see what users will be offered: the bundles, channels and upgrade edges the "
        "change adds or removes in each OpenShift catalog.",
        "a new release 1.4.2 adds bundle `kueue-operator.v1.4.2` and the edge 1.4.1 → 1.4.2.",
        "nothing to fix: review the change summary and the before/after upgrade graph.",
    ),
    "RK-DIFF-003": (
        "Konflux's fbc-target-index-pruning-check refuses catalogs that lose a published bundle; users on "
        "it would lose their upgrade path.",
        "removing release 1.3.0 from `streams/stable.yaml`.",
        "keep the bundle; set `status: withdrawn` with a `deprecationMessage` to deprecate it.",
    ),
    "RK-DIFF-004": (
        "a published channel is what subscriptions name; removing it breaks every subscription on it.",
        "renaming channel `stable-v1.3` to `stable-1.3`.",
        "keep the channel; add a new one beside it and deprecate the old one.",
    ),
    "RK-DIFF-005": (
        "a released bundle image is immutable; its catalog entry must keep describing that image.",
        "changing a related image digest of released 1.2.0.",
        "restore the released content; ship the change in a new release.",
    ),
    "RK-DIFF-006": (
        "the recorded facts of a released version are what was shipped; changing them rewrites history.",
        "editing `streams/recorded/kueue-operator.v1.2.0.yaml`.",
        "restore the recorded file; record changes in a new release.",
    ),
    "RK-DIFF-007": (
        "users on a version installable at base must still reach a channel head after the change.",
        "dropping `v4.20` from released 1.1.0's catalogs.",
        "keep the version in that catalog, or add an edge from it to a bundle that stays.",
    ),
    "RK-DIFF-017": (
        "published blobs are carried from git HEAD; without a committed catalog there is nothing to carry "
        "or compare, so every blob is generated and nothing can be seen removed.",
        "`releasekit build` in a copy of the repository that is not a git checkout.",
        "nothing to fix for a first build; commit the catalogs so later builds carry what was published.",
    ),
    "RK-DIFF-020": (
        "clusters on an OpenShift version read their operators from that version's catalog; dropping a "
        "package from it takes every published bundle and upgrade away from them at once (an error). A whole "
        "OpenShift catalog dropped is a warning: versions leave support, and then that is the change.",
        "deleting `v4.17/catalog/demo-operator/` while `v4.17/` stays in a file-based catalog repository.",
        "keep the catalog; retire bundles or channels with `olm.deprecations` entries instead.",
    ),
    "RK-DIFF-021": (
        "a new catalog is where clusters of that OpenShift version start; the previous version's users "
        "must be able to upgrade into it.",
        "adding `v4.19/catalog/<package>/catalog.json`.",
        "nothing to fix: check the OpenShift upgrade findings (RK-GRAPH-010) for the new version.",
    ),
    "RK-DIFF-022": (
        "roots are paired by OpenShift version and package, so a moved folder is no removal; but the "
        "image build must follow it.",
        "`git mv catalog/v4.15 catalog/ocp-v4.15`.",
        "point the Containerfile's `COPY` and the Tekton `path-context` at the new folder.",
    ),
    "RK-DIFF-023": (
        "a published bundle is what clusters installed; a rewritten blob (another image digest, a "
        "re-render with another opm or `--migrate-level`) changes what the catalog says about it.",
        "a bundle's `image` digest replaced by a rebuild of the same version.",
        "revert the blob, or release the change as a new version. `check --published OCP=FILE|REV` (a "
        "rendered index or a revision) makes it an error for a bundle released there, a warning for a candidate.",
    ),
    "RK-DIFF-024": (
        "the head is what every subscription of the channel upgrades to; a reviewer should see it move.",
        "a hotfix entry that replaces the old head.",
        "nothing to fix: check that every bundle of the channel upgrades to the new head.",
    ),
    "RK-DIFF-025": (
        "a skipRange is an upgrade edge from every version it contains; narrowing it takes that upgrade "
        "from users of the versions it drops.",
        "`skipRange: '>=1.0.0 <1.2.0'` changed to `'>=1.1.0 <1.2.0'` while 1.0.0 is published.",
        "keep the range, or give the versions it drops another edge (replaces or skips).",
    ),
    "RK-DIFF-026": (
        "a tag can move: the bundle users install later would not be the one reviewed, and disconnected "
        "mirrors need digests.",
        "`image: registry.example.com/demo/bundle:v1.2.1` in a new bundle.",
        "reference the bundle image and every related image as `<repository>@sha256:<digest>`.",
    ),
    "RK-DIFF-027": (
        "the template is what the catalog is regenerated from: a catalog edited by hand loses the edit at "
        "the next render, and a template entry never rendered is a bundle the catalog image does not ship.",
        "a bundle image added to `v4.18/catalog-template.yaml` without running `opm alpha render-template`.",
        "regenerate the catalog from the template (`opm alpha render-template`), or make the edit in the "
        "template.",
    ),
    "RK-POLICY-001": (
        "stable users must never get an alpha API version; Kueue's alpha CRDs change without notice.",
        "a stable release on Kueue 0.10 whose bundle ships `v1alpha1` of a CRD.",
        "move the release to the experimental stream, or leave the alpha CRD out of the bundle.",
    ),
    "RK-OLMV1-005": (
        "OLM v1 installs with a ServiceAccount that must hold every permission it grants; a `*` on `*` "
        "rule makes the operator and that installer cluster-admin, silently.",
        "`clusterPermissions` with `verbs: ['*']` on `resources: ['*']`.",
        "list the API groups, resources and verbs the operator uses; `olmv1 manifests --allow-broad-rbac` "
        "only when a cluster admin accepts it.",
    ),
    "RK-OLMV1-006": (
        "escalate and bind let the holder write or bind a role granting anything, impersonate lets it act "
        "as anyone: cluster-admin in effect, for the operator and for the OLM v1 installer.",
        "`verbs: [escalate, bind]` on `clusterroles` (every Kueue operator CSV has this: it creates "
        "Kueue's ClusterRoles).",
        "grant them only on the roles the operator manages (`resourceNames`), or ship those roles in the "
        "bundle; `olmv1 manifests --allow-broad-rbac` when a cluster admin accepts it.",
    ),
    "RK-OLMV1-007": (
        "`nonResourceURLs: ['*']` reaches every API server endpoint outside the resources (logs, debug "
        "profiles); the OLM v1 installer must hold it too.",
        "`nonResourceURLs: ['*']` with `verbs: [get]`.",
        "list the non-resource URLs the operator reads (`/metrics`, `/healthz`).",
    ),
    "RK-OLMV1-008": (
        "a namespace name is an RFC 1123 label; the cluster refuses any other, so the install fails "
        "(or, with a newline, the manifests say something else than intended).",
        "`operatorframework.io/suggested-namespace: My_Operator`, or `olmv1 manifests --namespace 'a b'` "
        "(bad usage, exit 2).",
        "use lower-case letters, digits and `-`, at most 63 characters, starting and ending with a letter "
        "or digit.",
    ),
    "RK-OLMV1-009": (
        "`default`, `kube-*` and `openshift` belong to Kubernetes and OpenShift; an operator there sits "
        "beside the control plane's accounts and secrets, and its installer may create Roles there.",
        "`operatorframework.io/suggested-namespace: kube-system`.",
        "install into the operator's own namespace (`openshift-<operator>` or `<operator>-system`).",
    ),
    "RK-OLMV1-010": (
        "a rule field that is not a list of strings cannot be copied exactly; dropped, a `resourceNames` "
        "would widen the rule to every object of its kind.",
        "a bundled ClusterRole rule with `resourceNames: one-secret` (a string).",
        "write every rule field as a list of strings (`resourceNames: [one-secret]`).",
    ),
}
"""Rules whose why, example and fix say more than their family's."""

OUTSIDE_RULES: Mapping[str, RuleFacts] = {
    "RK-FBC-001": RuleFacts("file is not valid YAML or JSON", None),
    "RK-FBC-002": RuleFacts("a document is not an object (opm: `cannot unmarshal array ...`)", None),
    "RK-FBC-003": RuleFacts("duplicate keys (case-folded at the top level, as opm; exact anywhere)", None),
    "RK-FBC-004": RuleFacts("`schema`/`package`/`name` is not a string", None),
    "RK-FBC-005": RuleFacts("object without `schema` (opm: `is missing root schema field`)", None),
    "RK-FBC-006": RuleFacts("file is not valid UTF-8", None),
    "RK-FBC-007": RuleFacts(
        "an `olm.package`/`olm.channel`/`olm.bundle`/`olm.deprecations` field has the wrong type", None
    ),
    "RK-FBC-008": RuleFacts("an `olm.bundle.object` payload cannot be decoded", None),
    "RK-FBC-054": RuleFacts("input refused: unreadable, or over a safety limit (the command exits 2)"),
    "RK-STREAM-040": RuleFacts(
        "releasekit.yaml does not match its JSON Schema, or names paths that cannot work (a Containerfile "
        "named as the FBC folder, a root among the inputs or through a file); the default layout is used meanwhile"
    ),
}
"""Rule ids no rules module defines: the loader's (:mod:`releasekit.io.fbc_load`), the CLI's refusal finding,
the layout configuration's schema finding."""

_OWN_BUNDLE_WHY = (
    "operator-sdk lets it pass, but a released bundle that breaks it breaks what the stream promises "
    "(stable APIs, images pinned to the release registries, the OpenShift versions it ships to)."
)


def _plain(text: str) -> str:
    """A table hint without its ``{placeholders}``."""
    return re.sub(r"\{[^{}]*\}", "…", text).replace("e.g. …", "").strip().rstrip(",")


def _family(rule_id: str) -> str:
    return rule_id.rsplit("-", 1)[0]


@cache
def all_rule_docs() -> dict[str, RuleDoc]:
    """Every rule id releasekit has, explained (sorted by id), from the ``RULES`` tables of the rule modules."""
    found = sorted(
        pkgutil.walk_packages(releasekit.rules.__path__, "releasekit.rules."), key=lambda i: i.name
    )
    tables: list[Mapping[str, Any]] = [OUTSIDE_RULES, acknowledgement.RULES]
    tables += [getattr(importlib.import_module(info.name), "RULES", {}) for info in found]
    facts: dict[str, tuple[str, Severity | None, str]] = {}
    for table in tables:  # ``id: title`` where the finding decides the severity, else RuleFacts or RuleInfo
        for rid, info in table.items():
            facts[rid] = (info, None, "") if isinstance(info, str) else (info.title, info.severity, info.hint)
    out: dict[str, RuleDoc] = {}
    for rid in sorted(facts):
        title, sev, fix = facts[rid]
        why, example, family_fix = DETAILS.get(rid) or FAMILIES.get(_family(rid), ("", "", ""))
        if rid in DETAILS:
            fix = family_fix
        elif rid in EXAMPLES:
            example, own_fix = EXAMPLES[rid]
            fix = fix or own_fix
        if title.startswith("(ours") and rid not in DETAILS:
            why = _OWN_BUNDLE_WHY
        fix = _plain(fix) or family_fix
        out[rid] = RuleDoc(id=rid, severity=sev, title=title, why=why, example=example, fix=fix)
    return out


def render_rules_markdown(docs: Mapping[str, RuleDoc]) -> str:
    """``docs/rules.md``: one section per rule id, grouped by family."""
    out = [
        "# releasekit rules",
        "",
        "<!-- Generated by `python -m releasekit.jobs.rule_docs` from the rule tables; do not edit. -->",
        "",
        "Every finding names one of these rule ids. SARIF output links each rule here (`--rules-url` "
        "changes the base URL). Ids are stable and never renumbered.",
        "",
    ]
    family = ""
    for rid, doc in docs.items():
        if _family(rid) != family:
            family = _family(rid)
            out += [f"## {family}", ""]
        out += [
            f"### {rid}",
            "",
            f"**{doc.title}**" + (f" ({doc.severity.value})" if doc.severity is not None else ""),
            "",
            f"- **Why**: {doc.why}",
            f"- **Example**: {doc.example}",
            f"- **Fix**: {doc.fix}",
            "",
        ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Write ``docs/rules.md`` under the repository (the current folder, or the one given)."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path()
    write_text_atomic(root / DOC_PATH, render_rules_markdown(all_rule_docs()))
    print(f"wrote {root / DOC_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
