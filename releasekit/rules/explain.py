"""Per rule id: an input that makes it fire and, where the rule's table has no hint, the fix. Pure data.

A rule missing here falls back to its family's example and fix (:mod:`releasekit.jobs.rule_docs`), so a
new rule never breaks the reference -- but give it its own line.
"""

from __future__ import annotations

from typing import Final

__all__ = ["EXAMPLES"]

EXAMPLES: Final[dict[str, tuple[str, str]]] = {
    # ------------------------------------------------------------------ loading a catalog (io.fbc_load)
    "RK-FBC-001": ("a `catalog.yaml` with a tab in its indentation", "fix the syntax at the reported line"),
    "RK-FBC-002": (
        "a YAML document that is a list (`- schema: olm.package`)",
        "make each document one object",
    ),
    "RK-FBC-003": ('an object with both `"name"` and `"Name"`', "keep one of the keys"),
    "RK-FBC-004": ("`name: 1.0` (a number)", "quote the value so it is a string"),
    "RK-FBC-005": (
        "an object with `name` and `package` but no `schema`",
        "add `schema: olm.bundle` (or the right one)",
    ),
    "RK-FBC-006": ("a file saved as Latin-1 with an accented description", "save the file as UTF-8"),
    "RK-FBC-007": (
        "`entries: foo.v1` (a string where opm wants a list)",
        "give the field the type opm expects",
    ),
    "RK-FBC-008": (
        "an `olm.bundle.object` whose `data` is not base64 of JSON",
        "re-render the bundle object",
    ),
    # ------------------------------------------------------------------ opm's model (rules.fbc)
    "RK-FBC-054": (
        "a catalog file over the size limit, a FIFO, or a symbolic link that leaves the folder",
        "fix the input the message names, or raise the limit (`--max-file-size`)",
    ),
    "RK-FBC-010": ("`{schema: olm.package}` without `name`", ""),
    "RK-FBC-011": ("two `olm.package` blobs named `kueue-operator`", ""),
    "RK-FBC-012": ("a package named `Kueue_Operator`", ""),
    "RK-FBC-013": ("a channel whose `package` is `kueue-opertor`", ""),
    "RK-FBC-014": ("`{schema: olm.channel, package: p, entries: [...]}` without `name`", ""),
    "RK-FBC-015": ("two `olm.channel` blobs named `stable-v1.4` in one package", ""),
    "RK-FBC-016": ("`kueue-operator.v1.4.0` listed twice in `stable-v1.4`", ""),
    "RK-FBC-017": ("an `olm.bundle` blob without `package`", ""),
    "RK-FBC-018": ("a bundle whose `package` names no `olm.package` blob", ""),
    "RK-FBC-019": ("two `olm.bundle` blobs named `kueue-operator.v1.4.0`", ""),
    "RK-FBC-020": ("an `olm.gvk` property whose value is a string", ""),
    "RK-FBC-021": ("a bundle with two `olm.package` properties", ""),
    "RK-FBC-022": ("bundle of package `a` whose `olm.package` property says `b`", ""),
    "RK-FBC-023": ("`image: Registry.example.com/Repo:latest`", ""),
    "RK-FBC-024": ("a related image `quay.io/ns/repo@sha256:abc` (digest too short)", ""),
    "RK-FBC-025": ("`version: v1.4.0`", ""),
    "RK-FBC-026": ("`release: 01`", ""),
    "RK-FBC-027": ("a bundle blob no channel lists", ""),
    "RK-FBC-028": ("`stable-v1.4` lists `kueue-operator.v1.4.9`, which has no bundle blob", ""),
    "RK-FBC-030": ("an `olm.deprecations` blob without `package`", ""),
    "RK-FBC-031": ("deprecations for package `kueue`, which the catalog does not have", ""),
    "RK-FBC-032": ("two `olm.deprecations` blobs for one package", ""),
    "RK-FBC-033": ("a deprecation entry whose `reference` has no `schema`", ""),
    "RK-FBC-034": ("the same bundle deprecated twice", ""),
    "RK-FBC-035": ("a deprecation of `kueue-operator.v0.0.9`, which is in no channel", ""),
    "RK-FBC-036": ("a deprecation of channel `stable-v0.9`, which does not exist", ""),
    "RK-FBC-037": ("`reference: {schema: olm.package, name: p}`", ""),
    "RK-FBC-038": ("`reference: {schema: olm.csv}`", ""),
    "RK-FBC-039": ("a deprecation entry with an empty `message`", ""),
    "RK-FBC-040": ("an `olm.package` without `defaultChannel`", ""),
    "RK-FBC-041": ("`defaultChannel: stable-v1.5`, a channel with no entries", ""),
    "RK-FBC-042": ("a package with bundles but no `olm.channel` blob", ""),
    "RK-FBC-043": ("two entries that replace each other", ""),
    "RK-FBC-044": ("v1.3.1 and v1.4.0 in one channel, neither replacing nor skipping the other", ""),
    "RK-FBC-045": ("a replaces b, b replaces c, c replaces a", ""),
    "RK-FBC-046": ("an entry off the head's replaces chain that nothing skips", ""),
    "RK-FBC-047": ("two bundles of one package both at version 1.4.0", ""),
    "RK-FBC-048": ("a channel entry `{replaces: a}` without `name`", ""),
    "RK-FBC-049": ("a bundle named `kueue-operator.v01.4.0`", ""),
    "RK-FBC-050": ('`skips: [""]`', ""),
    "RK-FBC-051": ("`skipRange: '>=v1.0 <1.4'`", ""),
    "RK-FBC-052": ("a bundle with `image: ''` and no `olm.bundle.object` properties", ""),
    "RK-FBC-053": ("`version: 1.4.0+build.1` together with `release: 2`", ""),
    # ------------------------------------------------------------------ bundles (rules.bundle)
    "RK-BUNDLE-001": ("`manifests/csv.yaml` that is not YAML", "fix the file's syntax or encoding"),
    "RK-BUNDLE-002": ("a manifest that is a YAML list", "make each manifest one object"),
    "RK-BUNDLE-003": ("`manifests/crds/` (a sub-folder)", "move the files up into `manifests/`"),
    "RK-BUNDLE-004": ("`manifests/.DS_Store`", "remove the hidden file"),
    "RK-BUNDLE-005": ("a bundle with two ClusterServiceVersions", "keep exactly one CSV"),
    "RK-BUNDLE-006": ("a CRD with `apiVersion: apiextensions.k8s.io/v2`", "use apiextensions.k8s.io/v1"),
    "RK-BUNDLE-007": ("a CSV mapping that lists `spec:` twice", "merge the two keys"),
    "RK-BUNDLE-010": ("a bundle folder without `metadata/`", "add `manifests/` and `metadata/`"),
    "RK-BUNDLE-011": ("`metadata/` without `annotations.yaml`", "add `metadata/annotations.yaml`"),
    "RK-BUNDLE-012": ("annotations without `operators.operatorframework.io.bundle.package.v1`", "add it"),
    "RK-BUNDLE-013": ("`mediatype.v1: helm` on a registry+v1 bundle", "set `registry+v1`"),
    "RK-BUNDLE-014": ("`operators.operatorframework.io.bundle.channels.v1: ''`", "name the channels"),
    "RK-BUNDLE-015": ("`olm.package` dependency with version range `>>1`", "fix the dependency"),
    "RK-BUNDLE-016": ("`manifests.v1: bundle/` while the folder is `manifests/`", "match the folder names"),
    "RK-BUNDLE-017": ("a Deployment manifest in `manifests/`", "put workloads in the CSV's install strategy"),
    "RK-BUNDLE-018": ("a ConfigMap named `My_Config`", "use a DNS-1123 name"),
    "RK-BUNDLE-020": ("`metadata.name: kueue operator`", "name the CSV `<package>.v<version>`"),
    "RK-BUNDLE-021": ("a CSV without `alm-examples`", "add examples for the provided APIs"),
    "RK-BUNDLE-022": ("`alm-examples: '{}'`", "make it a JSON list of objects"),
    "RK-BUNDLE-023": ("an example of kind `Queue` the CSV does not own", "drop the example or own the API"),
    "RK-BUNDLE-024": ("owned CRD `ClusterQueue` without an example", "add an example to `alm-examples`"),
    "RK-BUNDLE-025": ("`installModes: []`", "list the supported install modes"),
    "RK-BUNDLE-026": ("`minKubeVersion: 1.28`", "write a full semver such as 1.28.0"),
    "RK-BUNDLE-027": ("a CSV without `spec.displayName`", "add the field"),
    "RK-BUNDLE-028": ("annotation `OLM.targetNamespaces`", "use the lower-case OLM annotation"),
    "RK-BUNDLE-029": ("a CSV annotated with `olm.properties`", "declare the properties in the catalog"),
    "RK-BUNDLE-030": ("a CSV manifest without `kind`", "set apiVersion and kind"),
    "RK-BUNDLE-031": (
        "owned CRD name `clusterqueue` instead of `clusterqueues.kueue.x-k8s.io`",
        "use <plural>.<group>",
    ),
    "RK-BUNDLE-035": ("a CRD version with two storage versions", "fix the CRD as the API server asks"),
    "RK-BUNDLE-040": ("two CRDs both defining `kueue.x-k8s.io/v1beta1 ClusterQueue`", "keep one"),
    "RK-BUNDLE-041": (
        "CSV owns `clusterqueues.kueue.x-k8s.io`, no such CRD manifest",
        "add the CRD manifest",
    ),
    "RK-BUNDLE-042": ("a CRD manifest the CSV neither owns nor requires", "own it in the CSV or remove it"),
    "RK-BUNDLE-043": (
        "a ServiceAccount manifest named like the CSV's deployment account",
        "remove the manifest",
    ),
    "RK-BUNDLE-044": (
        "a bundle whose CRDs compress to 1.2 MiB",
        "shrink the manifests (descriptions, examples)",
    ),
    "RK-BUNDLE-045": (
        "`spec.release: 2` with name `kueue-operator.v1.4.0`",
        "rename to `<package>-v<version>-<release>`",
    ),
    "RK-BUNDLE-046": ("a relatedImages entry with `image: ''`", "give every related image a pull spec"),
    "RK-BUNDLE-050": ("a CSV without `spec.provider.name`", "fill in the OperatorHub metadata"),
    "RK-BUNDLE-051": ("`capabilities: Expert`", "use a standard capability level"),
    "RK-BUNDLE-052": ("`categories: Queues`", "use a standard category"),
    "RK-BUNDLE-053": ("`--select-optional name=operatorhub`", "select `operatorhubv2` instead"),
    "RK-BUNDLE-060": ("a CSV whose install strategy has no deployment", "add the operator's deployment"),
    "RK-BUNDLE-061": ("an operator container without `resources.requests`", "set CPU and memory requests"),
    "RK-BUNDLE-062": ("an owned CRD entry with `description: ''`", "describe the CRD"),
    "RK-BUNDLE-063": ("channel `tech-preview`", "name channels stable*, fast* or candidate*"),
    "RK-BUNDLE-064": (
        "cluster permissions that create CustomResourceDefinitions",
        "ship the CRDs in the bundle",
    ),
    "RK-BUNDLE-065": ("CSV name `kueue-operator-1.4.0`", "use `<operator>.v<semver>`"),
    "RK-BUNDLE-070": ("a PodDisruptionBudget with `maxUnavailable: 0`", "allow at least one eviction"),
    "RK-BUNDLE-071": ("a PriorityClass with `globalDefault: true`", "set `globalDefault: false`"),
    "RK-BUNDLE-072": ("a Role with `create` on poddisruptionbudgets", "drop the verb unless needed"),
    "RK-BUNDLE-073": (
        "a Role that may `update` SecurityContextConstraints `restricted`",
        "never modify default SCCs",
    ),
    "RK-BUNDLE-080": (
        "a manifest of `policy/v1beta1 PodSecurityPolicy` for Kubernetes 1.25",
        "use the current API",
    ),
    "RK-BUNDLE-081": ("`--k8s-version 1.x`", "give a full Kubernetes version"),
    "RK-BUNDLE-085": (
        "a community bundle using 1.22-removed APIs without `olm.maxOpenShiftVersion`",
        "set it",
    ),
    "RK-BUNDLE-086": ("LABEL `com.redhat.openshift.versions=v4.6`", "raise it to the versions you support"),
    "RK-BUNDLE-090": ("a stable bundle with the `v1alpha1` Topology CRD", "leave the alpha CRD out"),
    "RK-BUNDLE-091": ("operator image `registry.redhat.io/kueue/kueue-rhel9-operator:1.4`", "pin by digest"),
    "RK-BUNDLE-092": ("operator image from `quay.io/someone/`", "use an allowed registry"),
    "RK-BUNDLE-093": ("`com.redhat.openshift.versions: v4.18,v4.19`", "use vX.Y, =vX.Y or vA.B-vC.D"),
    "RK-BUNDLE-094": (
        "label `=v4.18` on a bundle going to v4.18 and v4.19",
        "make the label cover the catalogs",
    ),
    "RK-BUNDLE-100": (
        "candidate 1.4.2 built before `releasekit operator import` recorded its facts",
        "record them with `releasekit operator import`",
    ),
    "RK-BUNDLE-101": (
        "a new minor 1.5.0 with no operator record at all",
        "run `releasekit operator import` for the release",
    ),
    "RK-BUNDLE-102": (
        "an operator record whose operator image digest differs from stable.yaml",
        "make the stream and the record agree",
    ),
    "RK-BUNDLE-110": (
        "an experimental release whose CSV has no `olm.maxOpenShiftVersion`",
        "rebuild the bundle with releasekit",
    ),
    "RK-BUNDLE-111": (
        "`olm.maxOpenShiftVersion: 4.18` on a release listed for v4.19",
        "raise it to the newest catalog",
    ),
    "RK-BUNDLE-112": (
        "a stable release's CSV with `olm.maxOpenShiftVersion`",
        "drop the property from stable bundles",
    ),
    "RK-BUNDLE-120": (
        "a bundle folder whose `metadata/` holds no annotations",
        "add `metadata/annotations.yaml`",
    ),
    "RK-BUNDLE-121": ("an empty `manifests/` folder", "add the CSV and CRDs"),
    "RK-BUNDLE-122": ("a manifest file that is empty", "remove it or give it its object"),
    "RK-BUNDLE-123": ("a CSV with `spec.version: 1.4`", "fix the field the loader names"),
    "RK-BUNDLE-124": (
        "`annotations: [a, b]` in `metadata/annotations.yaml`",
        "make annotations a map of strings",
    ),
    "RK-BUNDLE-125": ("a CRD whose every version has `served: false`", "serve at least one version"),
    # ------------------------------------------------------------------ OLM v1 readiness (rules.olmv1)
    "RK-OLMV1-001": (
        "`installModes` without `AllNamespaces: true`",
        "support the AllNamespaces install mode",
    ),
    "RK-OLMV1-002": (
        "an `olm.gvk.required` property on the bundle",
        "drop the dependency; install it separately",
    ),
    "RK-OLMV1-003": ("`metadata/dependencies.yaml` listing an `olm.package`", "remove the dependencies file"),
    "RK-OLMV1-004": ("RBAC on `operatorconditions`", "stop using the OperatorConditions API"),
    # ------------------------------------------------------------------ upgrade graph (rules.graph)
    "RK-GRAPH-001": ("`kueue-operator.v1.3.0` replaces `kueue-operator.v1.4.0`", ""),
    "RK-GRAPH-002": ("`replaces: kueue-operator.v0.0.9`, a bundle that never existed", ""),
    "RK-GRAPH-003": (
        "an edge from a release owning `kueue.openshift.io` to one owning `operator.openshift.io`",
        "",
    ),
    "RK-GRAPH-004": ("a stable bundle that skips an experimental one", ""),
    "RK-GRAPH-005": (
        "channels `stable-v1.3` and `stable-v1.4` with no edge between them (cross-minor: none)",
        "",
    ),
    "RK-GRAPH-006": ("a bundle in the default channel that no newer entry replaces, skips or covers", ""),
    "RK-GRAPH-007": ("0.2.1 and 1.0.0 in one package: nothing upgrades from 0.x to 1.x", ""),
    "RK-GRAPH-008": ("a stable and an experimental release with the same minor", ""),
    "RK-GRAPH-009": ("0.1.0 owns `operator.openshift.io`, the head owns `kueue.openshift.io`", ""),
    "RK-GRAPH-010": (
        "1.1.0 is in the v4.20 catalog but not in v4.21, and nothing in v4.21 upgrades from it",
        "",
    ),
    # ------------------------------------------------------------------ Konflux fragments (rules.konflux)
    "RK-KONFLUX-001": ("a fragment folder named `4.18` or `ocp-4.18`", "name it `v4.18`"),
    "RK-KONFLUX-002": ("`catalog/v4.18/` without a Containerfile", "add the Containerfile releasekit writes"),
    "RK-KONFLUX-003": (
        "`FROM quay.io/operator-framework/opm:latest`",
        "start FROM ose-operator-registry-rhel9",
    ),
    "RK-KONFLUX-004": (
        "`v4.18/Containerfile` FROM `ose-operator-registry-rhel9:v4.17`",
        "use the fragment's tag",
    ),
    "RK-KONFLUX-005": (
        "a Containerfile without the `index.configs.v1` LABEL",
        "add `LABEL ...configs.v1=/configs`",
    ),
    "RK-KONFLUX-006": ("`configs/catalog.json` at the FBC root", "use `configs/<package>/catalog.json`"),
    "RK-KONFLUX-007": ("an empty `configs/` folder", "add the package's catalog or drop the fragment"),
    "RK-KONFLUX-008": (
        "a v4.18 bundle with `olm.bundle.object` properties",
        "use `olm.csv.metadata` from 4.17 on",
    ),
    "RK-KONFLUX-009": (
        "`image: registry.redhat.io/kueue/kueue-operator-bundle:1.4`",
        "pin the bundle by digest",
    ),
    "RK-KONFLUX-010": ("a bundle image from `quay.io/`", "release bundles from registry.redhat.io"),
    # ------------------------------------------------------------------ policy (rules.policy)
    "RK-POLICY-002": (
        "an edge from a release storing `v1beta1` to one that no longer serves it",
        "keep serving the old storage version for one release",
    ),
    "RK-POLICY-003": (
        "an edge between releases that own different API kinds",
        "remove the edge; document the migration",
    ),
    "RK-POLICY-004": (
        "a `kueue-operator` bundle that replaces a `kueue-operator-experimental` one",
        "remove the edge",
    ),
    "RK-POLICY-010": (
        "an experimental release's catalog entry without `olm.maxOpenShiftVersion`",
        "set `blockClusterUpgrades: true` on the stream and run `releasekit build`",
    ),
    "RK-POLICY-011": (
        "`olm.maxOpenShiftVersion: 4.18` on a release listed in v4.19",
        "run `releasekit build` (it writes the newest catalog's minor)",
    ),
    "RK-POLICY-012": (
        "a stable bundle entry with `olm.maxOpenShiftVersion`",
        "drop the property: stable releases never block cluster upgrades",
    ),
    "RK-POLICY-020": (
        "an acknowledgement of RK-GRAPH-010 for a bundle no catalog strands any more",
        "remove the entry from releasekit-acknowledgements.yaml",
    ),
    "RK-POLICY-021": (
        "an acknowledgement naming RK-DIFF-003 (a published bundle removed)",
        "fix the error; errors are never acknowledged",
    ),
    "RK-POLICY-022": (
        "an acknowledgement without a `reason`",
        "give every entry its rule, subject and reason (see README.md, Acknowledged history)",
    ),
    # ------------------------------------------------------------------ streams (rules.stream)
    "RK-STREAM-001": ("`catalog: [v4.18]` (the key is `catalogs`)", "use the key the schema names"),
    "RK-STREAM-002": ("a release listing `status:` twice", "keep one"),
    "RK-STREAM-003": ("`version: 1.4`", "write MAJOR.MINOR.PATCH"),
    "RK-STREAM-004": ("1.4.0 listed twice in `stable.yaml`", "remove the duplicate"),
    "RK-STREAM-005": ("1.4.1 above 1.4.0 in the file", "list releases in increasing order"),
    "RK-STREAM-006": ("1.4.0 in both stable.yaml and experimental.yaml", "keep each version in one stream"),
    "RK-STREAM-007": ("both streams with `package: kueue-operator`", "give each stream its own package"),
    "RK-STREAM-008": (
        "`inventory: kueue-0.20` with no `streams/upstream/kueue-0.20.yaml`",
        "run `releasekit upstream import`",
    ),
    "RK-STREAM-009": (
        '`line: "0.18"` with inventory `kueue-0.16`',
        "point at the inventory of the Kueue it ships",
    ),
    "RK-STREAM-010": ("a released operator image `...:1.4` without a digest", "pin the image by digest"),
    "RK-STREAM-011": ("an operand image from `quay.io/someone/`", "use a registry the stream allows"),
    "RK-STREAM-012": ("`openshift: [v4.19, v4.18]`", "list OpenShift versions in upgrade order"),
    "RK-STREAM-013": (
        "a stable release with `catalogs: [v4.17]` while stable ships to v4.18+",
        "list only the stream's catalogs",
    ),
    "RK-STREAM-014": ("a setting for gate `NoSuchGate`", "name a gate of that Kueue"),
    "RK-STREAM-015": (
        "`AdmissionGatedBy: true` in stable while the gate is Alpha",
        "use the opt-in allow-list or drop it",
    ),
    "RK-STREAM-016": ("a setting that turns off a LockToDefault gate", "drop the setting"),
    "RK-STREAM-017": ("a setting for a Deprecated gate", "drop the setting"),
    "RK-STREAM-018": ("opt-in `HierarchicalCohorts`, which is GA in that Kueue", "drop the opt-in entry"),
    "RK-STREAM-019": ("`alphaApis: [Topology]` while that Kueue's Topology is v1beta1", "drop the entry"),
    "RK-STREAM-020": ("`openshiftVersionsLabel: v4.18-v4.19-v4.20`", "use vX.Y, =vX.Y or vA.B-vC.D"),
    "RK-STREAM-021": ("`createdAt: 2026-06-12`", "write a full RFC 3339 timestamp"),
    "RK-STREAM-022": (
        "recorded file says operator image digest A, the release says B",
        "make the release match what shipped",
    ),
    "RK-STREAM-023": ("`status: withdrawn` without `deprecationMessage`", "write the message users will see"),
    "RK-STREAM-024": ("`channels: {pattern: 'stable_{major}'}`", "use a pattern that yields DNS-style names"),
    "RK-STREAM-025": ("`streams/upstream/kueue.yaml` holding line 0.18", "name the file after its line"),
    "RK-STREAM-026": (
        "1.4.1 withdrawn while it is the newest 1.4 release",
        "release 1.4.2 first, then withdraw",
    ),
    "RK-STREAM-027": (
        "1.4.0 owns `kueue.openshift.io`, 1.4.1 owns `operator.openshift.io`",
        "change the API in a new minor",
    ),
    "RK-STREAM-028": ("an empty `streams/` folder", "add `stable.yaml` (see streams/README.md)"),
    "RK-STREAM-030": (
        "1.4.1 pinned to v0.18.4 names `kueue-v0.18.6`",
        "name the inventory of the release's own pin",
    ),
    "RK-STREAM-031": (
        "a pull request that re-imports `kueue-v0.16.4` over the published file",
        "import the new pin into its own file",
    ),
    "RK-STREAM-032": (
        "1.4.2 without `featureGates` after 1.4.1 opts in four gates",
        "nothing if meant; `featureGates: {}` for none",
    ),
    "RK-STREAM-050": ("`eus: [v4.17]` in lifecycle.yaml while `versions` lacks v4.17", "list the version"),
    "RK-STREAM-051": ("an upgrade edge v4.20 → v4.19", "make edges go upwards with the right kind"),
    "RK-STREAM-052": (
        "a stream that ships to v4.24, which lifecycle.yaml does not list",
        "add it to the lifecycle",
    ),
    "RK-STREAM-053": (
        "experimental.yaml with releases and no `blockClusterUpgrades: true`",
        "set it on the stream",
    ),
}
"""Rule id -> (an example that makes it fire, the fix when the rule's table has none; ``""`` keeps the table's)."""
