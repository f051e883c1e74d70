"""Registry+v1 bundle rules: operator-sdk's validators, operator-registry's format checks, and releasekit's own.

Pure: rules take :class:`~releasekit.model.bundle.Bundle` values and return findings; no click, no git,
no jinja2, no files. Validators are named as ``operator-sdk``/``operator-framework/api`` name them
(:data:`VALIDATORS`); :func:`validate_bundle` runs a chosen set. Messages carry upstream wording in
api's ``Error()`` form without the level prefix (``Value : (<csv>) install modes not found``).
Target: api HEAD semantics (docs/olm-bundle-validation.md "version skew").

Rule ids (stable, never renumbered), titles and severities (None where the finding decides): :data:`RULES`;
:mod:`releasekit.model.bundle_ids` holds the constants (the loader's
own refusals RK-BUNDLE-120 … 124 are reported by :mod:`releasekit.io.bundle_load`). RK-BUNDLE-090 and the
error form of RK-BUNDLE-093 are stream policy: they judge only bundles of a releasekit stream
(``ValidationOptions.stream``); a released version of the stream gets warnings. On ``bundle validate DIR``
an error of 001 … 006 or 120 … 124 means operator-sdk would refuse to load the folder: exit 2. The optional
``olmv1`` validator runs :mod:`releasekit.rules.olmv1` (RK-OLMV1-0xx); its broad-RBAC, role and namespace
checks (005 … 010) run as warnings without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from releasekit.model.bundle import Bundle, ValidationOptions
from releasekit.model.finding import Finding, Severity
from releasekit.model.ruledoc import RuleFacts
from releasekit.rules.bundle.crd import validate_crd
from releasekit.rules.bundle.csv import validate_csv
from releasekit.rules.bundle.good_practices import validate_good_practices
from releasekit.rules.bundle.objects import validate_objects, validate_operator_groups
from releasekit.rules.bundle.openshift import check_openshift_versions, validate_community
from releasekit.rules.bundle.operatorhub import (
    validate_capabilities,
    validate_categories,
    validate_operatorhub,
    validate_operatorhub_v2,
)
from releasekit.rules.bundle.policy import check_alpha_crds, check_image_pinning, policy_severity
from releasekit.rules.bundle.registry import (
    validate_registry_content,
    validate_registry_format,
    validate_sdk_content,
)
from releasekit.rules.bundle.removed_apis import validate_removed_apis
from releasekit.rules.bundle.structure import validate_bundle_structure, validate_loader

__all__ = [
    "DEFAULT_VALIDATORS",
    "OPTIONAL_CHECKS",
    "RULES",
    "VALIDATORS",
    "VALIDATOR_RULES",
    "Validator",
    "validate_bundle",
    "rules_run",
    "validate_releasekit_rules",
]

RULES: Final[dict[str, RuleFacts]] = {
    "RK-BUNDLE-001": RuleFacts("file is not valid YAML/UTF-8 (`unable to decode object`)"),
    "RK-BUNDLE-002": RuleFacts("a manifest is not a mapping"),
    "RK-BUNDLE-003": RuleFacts("manifests folder contains a sub-folder (api loader)"),
    "RK-BUNDLE-004": RuleFacts("manifests folder has a hidden file (api loader)"),
    "RK-BUNDLE-005": RuleFacts("no CSV, or more than one CSV"),
    "RK-BUNDLE-006": RuleFacts("CRD apiVersion other than apiextensions.k8s.io/v1 or v1beta1"),
    "RK-BUNDLE-007": RuleFacts(
        "a mapping repeats a key (the last value wins, as operator-sdk reads it)", Severity.INFO
    ),
    "RK-BUNDLE-010": RuleFacts("bundle root lacks manifests/ or metadata/"),
    "RK-BUNDLE-011": RuleFacts("no annotations file in metadata/"),
    "RK-BUNDLE-012": RuleFacts("required annotation missing"),
    "RK-BUNDLE-013": RuleFacts("media type annotation differs from the detected one"),
    "RK-BUNDLE-014": RuleFacts("channels / default channel annotation empty"),
    "RK-BUNDLE-015": RuleFacts("invalid dependency in dependencies.yaml"),
    "RK-BUNDLE-016": RuleFacts(
        "manifests.v1 / metadata.v1 annotation differs from the layout (ours; reg never checks)",
        Severity.WARNING,
    ),
    "RK-BUNDLE-017": RuleFacts(
        "kind not supported in a registry+v1 bundle (operator-sdk's and operator-registry's wording)"
    ),
    "RK-BUNDLE-018": RuleFacts(
        "object metadata kubectl would not accept (no name, a namespace, bad label/annotation keys)"
    ),
    "RK-BUNDLE-020": RuleFacts("CSV metadata.name / spec.replaces not a valid name"),
    "RK-BUNDLE-021": RuleFacts(
        "CSV has no annotations / no example annotations / both kinds of examples", Severity.WARNING
    ),
    "RK-BUNDLE-022": RuleFacts("alm-examples is not a JSON list of objects"),
    "RK-BUNDLE-023": RuleFacts("an example's API is not provided by the CSV"),
    "RK-BUNDLE-024": RuleFacts("a provided API has no example", Severity.WARNING),
    "RK-BUNDLE-025": RuleFacts(
        "install modes missing, none supported, or conversion webhooks without AllNamespaces only"
    ),
    "RK-BUNDLE-026": RuleFacts("minKubeVersion missing (W) or not strict semver (E)", None),
    "RK-BUNDLE-027": RuleFacts("required CSV field missing"),
    "RK-BUNDLE-028": RuleFacts("OLM annotation in the wrong case (CSV, OperatorGroup)"),
    "RK-BUNDLE-029": RuleFacts("olm.properties annotation used", Severity.WARNING),
    "RK-BUNDLE-030": RuleFacts("CSV apiVersion / kind missing"),
    "RK-BUNDLE-031": RuleFacts("owned CRD name is not <plural>.<group>"),
    "RK-BUNDLE-035": RuleFacts(
        "CRD fails the Kubernetes API server's CRD validation (v1beta1 preserveUnknownFields too)"
    ),
    "RK-BUNDLE-040": RuleFacts("duplicate CRD group/version/kind in the bundle"),
    "RK-BUNDLE-041": RuleFacts("owned CRD not found in the bundle"),
    "RK-BUNDLE-042": RuleFacts(
        "CRD present but not owned by the CSV (W in operator-registry's content check)", None
    ),
    "RK-BUNDLE-043": RuleFacts("ServiceAccount manifest shadows one the CSV declares"),
    "RK-BUNDLE-044": RuleFacts("bundle compressed size over (E) or near (W) the 1 MiB limit", None),
    "RK-BUNDLE-045": RuleFacts("spec.release set and the name is not <package>-v<version>-<release>"),
    "RK-BUNDLE-046": RuleFacts("relatedImages entry empty or not a valid pull spec"),
    "RK-BUNDLE-050": RuleFacts(
        "OperatorHub CSV metadata (provider, maintainers, links, version, icon, minKubeVersion)", None
    ),
    "RK-BUNDLE-051": RuleFacts("capabilities annotation not a standard level"),
    "RK-BUNDLE-052": RuleFacts("category not standard (or not in the custom list)"),
    "RK-BUNDLE-053": RuleFacts("the deprecated `operatorhub` validator was selected", Severity.WARNING),
    "RK-BUNDLE-060": RuleFacts("no deployment to install"),
    "RK-BUNDLE-061": RuleFacts("container without resource requests", Severity.WARNING),
    "RK-BUNDLE-062": RuleFacts("owned/required CRD with an empty description", Severity.WARNING),
    "RK-BUNDLE-063": RuleFacts("channel not named stable*/fast*/candidate*", Severity.WARNING),
    "RK-BUNDLE-064": RuleFacts("CSV may create CRDs", Severity.WARNING),
    "RK-BUNDLE-065": RuleFacts("CSV name does not follow <operator>.v<semver>", Severity.WARNING),
    "RK-BUNDLE-070": RuleFacts("PodDisruptionBudget that blocks every eviction"),
    "RK-BUNDLE-071": RuleFacts("PriorityClass with globalDefault: true"),
    "RK-BUNDLE-072": RuleFacts("Role may write PodDisruptionBudgets", Severity.WARNING),
    "RK-BUNDLE-073": RuleFacts("Role may modify default SecurityContextConstraints"),
    "RK-BUNDLE-080": RuleFacts(
        "API removed in Kubernetes 1.22/1.25/1.26 (E when k8s-version/minKubeVersion reaches it)", None
    ),
    "RK-BUNDLE-081": RuleFacts("k8s-version option or minKubeVersion unusable"),
    "RK-BUNDLE-085": RuleFacts(
        "community: olm.maxOpenShiftVersion missing/invalid/too high with 1.22-removed APIs", None
    ),
    "RK-BUNDLE-086": RuleFacts("community: com.redhat.openshift.versions LABEL allows OpenShift 4.9+", None),
    "RK-BUNDLE-090": RuleFacts(
        "(ours, stream policy) a stream that excludes alpha APIs ships a CRD with an alpha version", None
    ),
    "RK-BUNDLE-091": RuleFacts("(ours, release checks) image not pinned by digest"),
    "RK-BUNDLE-092": RuleFacts("(ours, release checks) image not from an allowed registry"),
    "RK-BUNDLE-093": RuleFacts(
        "(ours) com.redhat.openshift.versions not in a documented form / LABEL and annotation differ", None
    ),
    "RK-BUNDLE-094": RuleFacts(
        "(ours) com.redhat.openshift.versions disagrees with the OpenShift catalogs given", Severity.WARNING
    ),
    "RK-BUNDLE-100": RuleFacts(
        "(ours, bundle build) a candidate carries its minor's previous release's operator record",
        Severity.INFO,
    ),
    "RK-BUNDLE-101": RuleFacts(
        "(ours, bundle build) no operator record of the release or its minor: the template's facts",
        Severity.WARNING,
    ),
    "RK-BUNDLE-102": RuleFacts(
        "(ours, bundle build) the operator record and the stream disagree (images, createdAt)"
    ),
    "RK-BUNDLE-110": RuleFacts(
        "(ours, stream bundles) an experimental release's CSV lacks olm.maxOpenShiftVersion"
    ),
    "RK-BUNDLE-111": RuleFacts(
        "(ours, stream bundles) its value is below a catalog the release is listed in"
    ),
    "RK-BUNDLE-112": RuleFacts(
        "(ours, stream bundles) a stable release's CSV carries olm.maxOpenShiftVersion", Severity.WARNING
    ),
    "RK-BUNDLE-120": RuleFacts("loader refusal: no metadata (annotations) found in the bundle folder"),
    "RK-BUNDLE-121": RuleFacts("loader refusal: the manifests folder holds no file"),
    "RK-BUNDLE-122": RuleFacts("loader refusal: a manifest is empty or has no kind"),
    "RK-BUNDLE-123": RuleFacts(
        "loader refusal: the CSV or a CRD cannot be parsed (CSV version not semver, wrong field types)"
    ),
    "RK-BUNDLE-124": RuleFacts("loader refusal: metadata/annotations.yaml is not a map of strings"),
    "RK-BUNDLE-125": RuleFacts(
        "(ours) a CRD serves none of its versions (the API server accepts it)", Severity.WARNING
    ),
}

Validator = Callable[[Bundle, ValidationOptions], list[Finding]]


def _bundle_only(check: Callable[[Bundle], list[Finding]]) -> Validator:
    def run(bundle: Bundle, _options: ValidationOptions) -> list[Finding]:
        return check(bundle)

    run.__doc__ = check.__doc__
    return run


def validate_releasekit_rules(bundle: Bundle, options: ValidationOptions) -> list[Finding]:
    """The rules of releasekit's own, beyond operator-sdk's (stream policy when ``options.stream`` is set)."""
    policy = options.stream
    out = check_alpha_crds(bundle, policy)
    form_severity = policy_severity(policy) if policy is not None else Severity.WARNING
    out += check_openshift_versions(bundle, options.openshift_catalogs, form_severity=form_severity)
    if options.release_checks:
        out += check_image_pinning(bundle, allowed_registries=options.allowed_registries)
    if "olmv1" not in options.validators:  # no silent privilege: with ``olmv1`` they are errors there
        from releasekit.rules.olmv1 import check_install_safety

        out += check_install_safety(bundle, Severity.WARNING)
    return out


def validate_olmv1(bundle: Bundle, _options: ValidationOptions) -> list[Finding]:
    """OLM v1 readiness (RK-OLMV1-001…010, :mod:`releasekit.rules.olmv1`) as errors (009: a warning)."""
    from releasekit.rules.olmv1 import check_install_safety, check_olmv1

    return check_olmv1(bundle) + check_install_safety(bundle, Severity.ERROR)


VALIDATORS: dict[str, Validator] = {
    "loader": _bundle_only(validate_loader),
    "registry-format": _bundle_only(validate_registry_format),
    "registry-content": _bundle_only(validate_registry_content),
    "sdk-content": _bundle_only(validate_sdk_content),
    "csv": _bundle_only(validate_csv),
    "crd": _bundle_only(validate_crd),
    "bundle": _bundle_only(validate_bundle_structure),
    "object": _bundle_only(validate_objects),
    "operatorgroup": _bundle_only(validate_operator_groups),
    "operatorhub": validate_operatorhub,
    "operatorhubv2": validate_operatorhub_v2,
    "capabilities": _bundle_only(validate_capabilities),
    "categories": validate_categories,
    "good-practices": _bundle_only(validate_good_practices),
    "community": validate_community,
    "alpha-deprecated-apis": validate_removed_apis,
    "releasekit": validate_releasekit_rules,
    "olmv1": validate_olmv1,
}
"""Validator name -> function. Names are operator-sdk's, plus ``loader``, ``registry-format``,
``registry-content``, ``sdk-content`` (operator-sdk's own content check), ``object``, ``operatorgroup``
(library level) and ``releasekit`` (our rules)."""

DEFAULT_VALIDATORS: tuple[str, ...] = (
    "loader",
    "registry-format",
    "sdk-content",
    "csv",
    "crd",
    "bundle",
    "releasekit",
)
"""What ``releasekit bundle validate`` runs without ``--optional-checks``: operator-sdk's default set."""

OPTIONAL_CHECKS: tuple[str, ...] = tuple(sorted(set(VALIDATORS) - {*DEFAULT_VALIDATORS, "registry-content"}))
"""Names ``--optional-checks`` accepts: every validator outside the default set but reg's content check."""


def _ids(*numbers: int, area: str = "BUNDLE") -> frozenset[str]:
    return frozenset(f"RK-{area}-{n:03d}" for n in numbers)


_INSTALL_SAFETY = _ids(5, 6, 7, 8, 9, 10, area="OLMV1")

VALIDATOR_RULES: dict[str, frozenset[str]] = {
    "loader": _ids(1, 2, 3, 4, 5, 6, 7, 120, 121, 122, 123, 124),
    "registry-format": _ids(10, 11, 12, 13, 14, 15, 16),
    "registry-content": _ids(
        17, 18, 20, 22, 23, 25, 26, 27, 28, 35, 41, 42
    ),  # it runs the CSV and CRD checks
    "sdk-content": _ids(17, 18),
    "csv": _ids(*range(20, 32)),
    "crd": _ids(35, 125),
    "bundle": _ids(40, 41, 42, 43, 44, 45, 46),
    "object": _ids(70, 71, 72, 73),
    "operatorgroup": _ids(28),
    "operatorhub": _ids(50, 51, 52, 53),
    "operatorhubv2": _ids(50, 80),  # it also runs the removed-API check
    "capabilities": _ids(51),
    "categories": _ids(52),
    "good-practices": _ids(60, 61, 62, 63, 64, 65),
    "community": _ids(85, 86),
    "alpha-deprecated-apis": _ids(80, 81),
    "releasekit": _ids(90, 91, 92, 93, 94) | _INSTALL_SAFETY,
    "olmv1": _ids(1, 2, 3, 4, area="OLMV1") | _INSTALL_SAFETY,
}
"""The rule ids each validator runs (the checks ``bundle validate`` counts; a test holds it to the code)."""


def rules_run(validators: tuple[str, ...]) -> tuple[str, ...]:
    """The rule ids the named validators run, sorted (the loader's always: it reads the bundle)."""
    return tuple(sorted(VALIDATOR_RULES["loader"].union(*(VALIDATOR_RULES[v] for v in validators))))


def validate_bundle(bundle: Bundle, options: ValidationOptions) -> tuple[Finding, ...]:
    """Run ``options.validators`` over ``bundle``; load problems come first; duplicates are dropped."""
    unknown = [name for name in options.validators if name not in VALIDATORS]
    if unknown:
        raise ValueError(
            f"unknown validator(s): {', '.join(unknown)}; known: {', '.join(sorted(VALIDATORS))}"
        )
    findings: list[Finding] = list(bundle.load_findings)
    seen: set[tuple[str, str, str, int | None]] = set()
    for name in dict.fromkeys(options.validators):
        for item in VALIDATORS[name](bundle, options):
            key = (item.rule, item.message, item.location.file, item.location.line)
            if key in seen:
                continue
            seen.add(key)
            findings.append(item)
    return tuple(findings)
