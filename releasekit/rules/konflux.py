"""Konflux's rules for file-based catalog fragments (what ``validate-fbc`` and friends enforce).

Pure core: the caller describes each fragment (:class:`~releasekit.model.fbc.FragmentFacts`); the
rules return findings. Rule ids (stable, never renumbered) and titles: :data:`RULES`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from releasekit.model.fbc import PROP_BUNDLE_OBJECT, PROP_CSV_METADATA, FragmentFacts
from releasekit.model.finding import Finding, Location, make_finding
from releasekit.model.stream import image_has_digest

__all__ = [
    "RELEASE_REGISTRIES",
    "RULES",
    "RULE_IDS",
    "FragmentFacts",
    "check_fragment",
]

RULES: Final[dict[str, str]] = {
    "RK-KONFLUX-001": "a fragment folder is not named after an OpenShift version (`v4.18`)",
    "RK-KONFLUX-002": "no Containerfile beside the catalog",
    "RK-KONFLUX-003": "base image is not ose-operator-registry(-rhel9) from openshift4/openshift5/brew",
    "RK-KONFLUX-004": "base image tag differs from the fragment's OpenShift version",
    "RK-KONFLUX-005": "the `operators.operatorframework.io.index.configs.v1` label is missing",
    "RK-KONFLUX-006": "FBC root does not hold `<package>/catalog.{json,yaml}`",
    "RK-KONFLUX-007": "the fragment has no package",
    "RK-KONFLUX-008": "bundle metadata format does not match the OpenShift version (csv.metadata from 4.17)",
    "RK-KONFLUX-009": "bundle image not pinned by digest",
    "RK-KONFLUX-010": "bundle image not from registry.redhat.io (or registry.stage.redhat.io)",
}

RELEASE_REGISTRIES = ("registry.redhat.io/", "registry.stage.redhat.io/")
RULE_IDS = tuple(RULES)
CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"
_FOLDER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)$")
_BASE = re.compile(
    r"^(?:registry\.redhat\.io/openshift(?P<major>[45])|brew\.registry\.redhat\.io/rh-osbs/openshift)"
    r"/?-?ose-operator-registry(?:-rhel9)?:(?P<tag>v\d+\.\d+)$"
)
_CSV_METADATA_MIN = (4, 17)


def _finding(
    rule: str, message: str, file: str, hint: str, line: int | None = None, *subject: str
) -> Finding:
    return make_finding(rule, message, Location(file=file, line=line), hint, subject)


def _from_line(text: str) -> tuple[str, int] | None:
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.upper().startswith("FROM "):
            parts = line.split()
            image = next((p for p in parts[1:] if not p.startswith("--")), "")
            return image, number
    return None


def _check_containerfile(facts: FragmentFacts, version: tuple[int, int] | None) -> Iterable[Finding]:
    path = facts.containerfile_path or f"{facts.folder_path}/Containerfile"
    if facts.containerfile is None:
        yield _finding(
            "RK-KONFLUX-002",
            f"fragment {facts.folder!r} has no Containerfile",
            facts.folder_path,
            "add a Containerfile (releasekit catalog build writes one)",
        )
        return
    found = _from_line(facts.containerfile)
    if found is None:
        yield _finding(
            "RK-KONFLUX-003", "Containerfile has no FROM line", path, "start it FROM the opm base image"
        )
    else:
        image, line = found
        match = _BASE.match(image)
        if match is None:
            yield _finding(
                "RK-KONFLUX-003",
                f"base image {image!r} is not ose-operator-registry from openshift4, openshift5 or brew",
                path,
                "use registry.redhat.io/openshift4/ose-operator-registry-rhel9:vX.Y (openshift5 for 5.x)",
                line,
            )
        elif version is not None and match.group("tag") != f"v{version[0]}.{version[1]}":
            yield _finding(
                "RK-KONFLUX-004",
                f"base image tag {match.group('tag')!r} differs from the fragment's OpenShift version {facts.folder!r}",
                path,
                f"use the :{facts.folder} tag of the opm base image",
                line,
            )
    if CONFIGS_LABEL not in facts.containerfile:
        yield _finding(
            "RK-KONFLUX-005",
            f"Containerfile lacks the {CONFIGS_LABEL} label",
            path,
            f"add: LABEL {CONFIGS_LABEL}=/configs",
        )


def _check_bundles(facts: FragmentFacts, version: tuple[int, int] | None) -> Iterable[Finding]:
    for bundle in facts.config.bundles:
        subject = (f'package "{bundle.package}"', f'bundle "{bundle.name}"')
        file = bundle.location.file or facts.folder_path
        line = bundle.location.line
        types = {p.type for p in bundle.properties}
        new_format = version is not None and version >= _CSV_METADATA_MIN  # olm.csv.metadata from 4.17 on
        if version is not None and (PROP_BUNDLE_OBJECT if new_format else PROP_CSV_METADATA) in types:
            yield _finding(
                "RK-KONFLUX-008",
                f"bundle properties are not permitted in a FBC fragment for OCP version {facts.folder}: "
                f'bundle "{bundle.name}" carries olm.bundle.object'
                if new_format
                else f'bundle "{bundle.name}" carries olm.csv.metadata, which OpenShift {facts.folder} cannot read',
                file,
                "render with --migrate-level=bundle-object-to-csv-metadata (olm.csv.metadata from 4.17 on)"
                if new_format
                else "use olm.bundle.object for OpenShift 4.16 and earlier",
                line,
                *subject,
            )
        image = bundle.image
        if not image_has_digest(image):
            yield _finding(
                "RK-KONFLUX-009",
                f'bundle "{bundle.name}" image {image!r} is not pinned by digest',
                file,
                "reference the bundle image as <repository>@sha256:<digest>",
                line,
                *subject,
            )
        if not image.startswith(RELEASE_REGISTRIES):
            yield _finding(
                "RK-KONFLUX-010",
                f'bundle "{bundle.name}" image {image!r} is not from registry.redhat.io',
                file,
                "release bundles through registry.redhat.io (registry.stage.redhat.io for stage)",
                line,
                *subject,
            )


def check_fragment(facts: FragmentFacts) -> tuple[Finding, ...]:
    """Every Konflux layout and content rule for one fragment."""
    findings: list[Finding] = []
    match = _FOLDER.match(facts.folder)
    version = (int(match.group(1)), int(match.group(2))) if match else None
    if version is None:
        findings.append(
            _finding(
                "RK-KONFLUX-001",
                f"fragment folder {facts.folder!r} is not named after an OpenShift version",
                facts.folder_path,
                "name each fragment folder vX.Y (e.g. v4.18)",
            )
        )
    findings.extend(_check_containerfile(facts, version))
    findings.extend(
        _finding(
            "RK-KONFLUX-006",
            f"{path} is not <package>/catalog.json or <package>/catalog.yaml under the FBC root",
            path,
            "keep exactly one catalog.json (or .yaml) per package folder",
        )
        for package, name, path in facts.package_files
        if not package or name not in ("catalog.json", "catalog.yaml")
    )
    if not facts.config.packages:
        findings.append(
            _finding(
                "RK-KONFLUX-007",
                f"fragment {facts.folder!r} contains no package",
                facts.folder_path,
                "a fragment must hold at least one olm.package",
            )
        )
    findings.extend(_check_bundles(facts, version))
    return tuple(findings)
