"""``check --base`` keeps a catalog repository's opm templates honest (issue 26, RK-DIFF-027).

Each test builds a small git repository in the openshift/kueue-fbc layout (``v4.N/catalog-template.yaml``
beside ``v4.N/catalog/<package>/catalog.json`` and a Containerfile); the catalogs are written here as opm
renders the template (its bundle blobs are the catalog's own), then the pull request changes one side.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from releasekit.jobs.check import CheckRequest
from releasekit.jobs.fbc_repo_check import run_repo_check
from releasekit.model.finding import Finding, Severity
from releasekit.model.report import BaselineState, Report
from tests.scenarios.test_fbc_repo_check import LAYOUTS, git

PKG = "demo-operator"
RULE = "RK-DIFF-027"


def image(version: str) -> str:
    return f"registry.example.com/demo/bundle@sha256:{hashlib.sha256(version.encode()).hexdigest()}"


def bundle(version: str) -> dict[str, Any]:
    return {
        "schema": "olm.bundle",
        "name": f"{PKG}.v{version}",
        "package": PKG,
        "image": image(version),
        "properties": [{"type": "olm.package", "value": {"packageName": PKG, "version": version}}],
        "relatedImages": [{"name": "operator", "image": f"registry.example.com/demo/op@sha256:{'b' * 64}"}],
    }


def semver_template(versions: list[str]) -> str:
    lines = "".join(f"    - Image: {image(v)}\n" for v in versions)
    return f"Schema: olm.semver\nGenerateMinorChannels: true\nStable:\n  Bundles:\n{lines}"


def semver_catalog(older_opm: bool = False, hotfix: bool = True) -> list[dict[str, Any]]:
    """What opm renders from the template of 1.0.0, 1.1.0 and (``hotfix``) 1.1.1, by minor channels.

    Newer opm links the top of stable-v1.1 to the top of stable-v1.0 (``replaces`` across channels);
    older opm linked each channel alone.
    """
    top: dict[str, Any] = (
        {"name": f"{PKG}.v1.1.1", "skips": [f"{PKG}.v1.1.0"]} if hotfix else {"name": f"{PKG}.v1.1.0"}
    )
    if not older_opm:
        top["replaces"] = f"{PKG}.v1.0.0"
    return [
        {"schema": "olm.package", "name": PKG, "defaultChannel": "stable-v1.1"},
        {
            "schema": "olm.channel",
            "name": "stable-v1.0",
            "package": PKG,
            "entries": [{"name": f"{PKG}.v1.0.0"}],
        },
        {
            "schema": "olm.channel",
            "name": "stable-v1.1",
            "package": PKG,
            "entries": [{"name": f"{PKG}.v1.1.0"}, top] if hotfix else [top],
        },
        *(bundle(v) for v in ("1.0.0", "1.1.0", "1.1.1")[: 3 if hotfix else 2]),
    ]


def write(repo: Path, version: str, template: str, catalog: list[dict[str, Any]]) -> None:
    folder = repo / f"v{version}"
    (folder / "catalog" / PKG).mkdir(parents=True, exist_ok=True)
    (folder / "catalog-template.yaml").write_text(template)
    (folder / "catalog" / PKG / "catalog.json").write_text(
        "".join(json.dumps(o, indent=4) + "\n" for o in catalog)
    )
    (folder / "Containerfile.catalog").write_text(
        f"FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v{version}\nCOPY catalog/ /configs\n"
    )


def base_repo(
    tmp_path: Path, template: str, catalog: list[dict[str, Any]], versions: tuple[str, ...] = ("4.18",)
) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for v in versions:
        write(repo, v, template, catalog)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def check(repo: Path, message: str = "change") -> Report:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return run_repo_check(CheckRequest(base="HEAD~1", head="HEAD", repo=repo)).report


def drift(report: Report) -> list[Finding]:
    return [f for f in report.findings if f.rule == RULE]


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_semver_template_regenerated_with_its_catalog_passes(tmp_path: Path) -> None:
    repo = base_repo(tmp_path, semver_template(["1.0.0", "1.1.0"]), semver_catalog(hotfix=False))
    assert not drift(check_same(repo))
    # the pull request adds 1.1.1 to both
    write(repo, "4.18", semver_template(["1.0.0", "1.1.0", "1.1.1"]), semver_catalog())
    report = check(repo)
    assert not drift(report), report.findings


def test_a_catalog_rendered_by_an_older_opm_is_no_drift(tmp_path: Path) -> None:
    repo = base_repo(
        tmp_path, semver_template(["1.0.0", "1.1.0"]), semver_catalog(older_opm=True, hotfix=False)
    )
    assert not drift(check_same(repo))
    write(repo, "4.18", semver_template(["1.0.0", "1.1.0", "1.1.1"]), semver_catalog(older_opm=True))
    report = check(repo)
    assert not drift(report), report.findings
    # ... but a hand edit of that older rendering still is
    path = repo / "v4.18" / "catalog" / PKG / "catalog.json"
    path.write_text(
        path.read_text().replace(f'"{PKG}.v1.1.0"\n            ]', f'"{PKG}.v1.0.9"\n            ]')
    )
    assert [f.subject for f in drift(check(repo))] == [("v4.18", "template")]


def test_a_template_changed_without_regenerating_the_catalog(tmp_path: Path) -> None:
    repo = base_repo(
        tmp_path, semver_template(["1.0.0", "1.1.0"]), semver_catalog(hotfix=False), versions=("4.18", "4.19")
    )
    assert not drift(check_same(repo)), "the base catalogs are the templates' rendering"
    # v4.19 regenerated, v4.18 only its template: 1.1.1's image is in v4.19's catalog, not v4.18's
    write(repo, "4.19", semver_template(["1.0.0", "1.1.0", "1.1.1"]), semver_catalog())
    (repo / "v4.18" / "catalog-template.yaml").write_text(semver_template(["1.0.0", "1.1.0", "1.1.1"]))
    report = check(repo)
    [found] = drift(report)
    assert found.subject == ("v4.18", "template") and found.severity is Severity.ERROR
    assert report.state(found) is BaselineState.NEW
    assert f"bundle {PKG}.v1.1.1 is in the template's rendering, not in the catalog" in found.message
    assert "v4.18/catalog-template.yaml" in found.message
    assert found.location.file == f"v4.18/catalog/{PKG}/catalog.json"
    assert "opm alpha render-template semver v4.18/catalog-template.yaml" in found.hint
    assert not report.passed


def check_same(repo: Path) -> Report:
    """The base against itself plus a touch of every catalog (every root is judged)."""
    for path in repo.glob("v*/catalog/*/catalog.json"):
        path.write_text(path.read_text() + "\n")
    report = check(repo, "touch")
    return report


def test_a_template_image_found_in_no_catalog(tmp_path: Path) -> None:
    repo = base_repo(tmp_path, semver_template(["1.0.0", "1.1.0", "1.1.1"]), semver_catalog())
    template = repo / "v4.18" / "catalog-template.yaml"
    template.write_text(semver_template(["1.0.0", "1.1.0", "1.1.1", "1.2.0"]))
    [found] = drift(check(repo))
    assert found.severity is Severity.ERROR
    assert (
        f"bundle image {image('1.2.0')} of template v4.18/catalog-template.yaml is in no catalog"
        in found.message
    )
    assert (found.location.file, found.location.line) == (
        "v4.18/catalog-template.yaml",
        line_of(template, image("1.2.0")),
    )


def test_a_hand_edit_of_the_catalog_is_drift_with_file_and_line(tmp_path: Path) -> None:
    repo = base_repo(tmp_path, semver_template(["1.0.0", "1.1.0", "1.1.1"]), semver_catalog())
    path = repo / "v4.18" / "catalog" / PKG / "catalog.json"
    edited = semver_catalog()
    edited[2]["entries"][1]["skips"] = []  # 1.1.0's users lose the skip to 1.1.1
    path.write_text("".join(json.dumps(o, indent=4) + "\n" for o in edited))
    [found] = drift(check(repo))
    assert found.severity is Severity.ERROR
    assert (
        f"channel {PKG}/stable-v1.1: entry {PKG}.v1.1.1 has replaces {PKG}.v1.0.0 in the catalog"
        in found.message
    )
    assert f"skips {PKG}.v1.1.0 rendered" in found.message
    assert (found.location.file, found.location.line) == (
        f"v4.18/catalog/{PKG}/catalog.json",
        line_of(path, '"name": "stable-v1.1"') - 2,  # the channel object's first line
    )


def test_drift_the_base_already_had_is_an_unchanged_warning(tmp_path: Path) -> None:
    stale = semver_catalog()
    stale[0]["defaultChannel"] = "stable-v1.0"
    repo = base_repo(tmp_path, semver_template(["1.0.0", "1.1.0", "1.1.1"]), stale)
    report = check_same(repo)
    [found] = drift(report)
    assert "defaultChannel is 'stable-v1.0' in the catalog, 'stable-v1.1' rendered" in found.message
    assert found.severity is Severity.WARNING and report.state(found) is BaselineState.UNCHANGED
    assert report.passed


BASIC = """\
schema: olm.template.basic
entries:
  - schema: olm.package
    name: demo-operator
    defaultChannel: stable
  - schema: olm.channel
    package: demo-operator
    name: stable
    entries:
      - name: demo-operator.v1.0.0
      - name: demo-operator.v1.1.0
        replaces: demo-operator.v1.0.0
  - schema: olm.bundle
    image: {one}
  - schema: olm.bundle
    image: {two}
"""


def basic_catalog() -> list[dict[str, Any]]:
    return [
        {"schema": "olm.package", "name": PKG, "defaultChannel": "stable"},
        {
            "schema": "olm.channel",
            "name": "stable",
            "package": PKG,
            "entries": [{"name": f"{PKG}.v1.0.0"}, {"name": f"{PKG}.v1.1.0", "replaces": f"{PKG}.v1.0.0"}],
        },
        bundle("1.0.0"),
        bundle("1.1.0"),
    ]


def test_a_basic_template(tmp_path: Path) -> None:
    template = BASIC.format(one=image("1.0.0"), two=image("1.1.0"))
    repo = base_repo(tmp_path, template, basic_catalog())
    assert not drift(check_same(repo))
    # the template gains a skipRange, the catalog is not regenerated
    (repo / "v4.18" / "catalog-template.yaml").write_text(
        template.replace(
            "replaces: demo-operator.v1.0.0", "replaces: demo-operator.v1.0.0\n        skipRange: <1.1.0"
        )
    )
    [found] = drift(check(repo))
    assert "entry demo-operator.v1.1.0 has replaces demo-operator.v1.0.0 in the catalog" in found.message
    assert "skipRange '<1.1.0' rendered" in found.message
    assert "opm alpha render-template basic" in found.hint


def test_a_template_that_cannot_be_rendered_is_a_finding(tmp_path: Path) -> None:
    repo = base_repo(tmp_path, semver_template(["1.0.0", "1.1.0", "1.1.1"]), semver_catalog())
    template = repo / "v4.18" / "catalog-template.yaml"
    template.write_text(semver_template(["1.0.0"]).replace("Stable:", "Stabel:"))
    [found] = drift(check(repo))
    assert "cannot be rendered: render: unable to read file" in found.message and '"Stabel"' in found.message
    assert found.location.file == "v4.18/catalog-template.yaml"
    template.write_text("Schema: olm.semver\nStable: [unclosed\n")
    [found] = drift(check(repo))
    assert "template v4.18/catalog-template.yaml cannot be read" in found.message


def test_a_legacy_basic_template_inside_a_yaml_root(tmp_path: Path) -> None:
    """A legacy basic template (FBC, bundles by image) inside the root, beside a YAML catalog."""
    import yaml

    legacy = "".join(
        "---\n" + yaml.safe_dump({"schema": "olm.bundle", "image": image(v)}) for v in ("1.0.0", "1.1.0")
    )
    legacy = "".join("---\n" + yaml.safe_dump(o) for o in basic_catalog()[:2]) + legacy
    repo = tmp_path / "repo"
    folder = repo / "catalog" / "v4.18"
    (folder / PKG).mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (folder / "catalog-template.yaml").write_text(legacy)
    catalog = folder / PKG / "catalog.yaml"
    catalog.write_text("".join("---\n" + yaml.safe_dump(o) for o in basic_catalog()))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    assert not drift(check_same_yaml(repo, catalog))
    edited = basic_catalog()
    edited[1]["entries"][1].pop("replaces")
    catalog.write_text("".join("---\n" + yaml.safe_dump(o) for o in edited))
    [found] = drift(check(repo))
    assert found.subject == ("v4.18", "template") and found.severity is Severity.ERROR
    assert f"entry {PKG}.v1.1.0 has no edges in the catalog, replaces {PKG}.v1.0.0 rendered" in found.message
    assert (found.location.file, found.location.line) == (
        f"catalog/v4.18/{PKG}/catalog.yaml",
        line_of(catalog, "entries:"),  # the channel document's first line
    )
    assert "opm alpha render-template basic catalog/v4.18/catalog-template.yaml -o yaml" in found.hint


def check_same_yaml(repo: Path, catalog: Path) -> Report:
    catalog.write_text(catalog.read_text() + "\n")
    return check(repo, "touch")


def test_a_registry_rewritten_after_rendering_is_the_same_image(tmp_path: Path) -> None:
    """Konflux repositories render from the build registry, then point the catalog at the release one."""
    build = semver_template(["1.0.0", "1.1.0", "1.1.1"]).replace(
        "registry.example.com/demo/", "quay.example.com/build/"
    )
    repo = base_repo(tmp_path, build, semver_catalog())
    assert not drift(check_same(repo))


def test_a_bundle_image_edited_by_hand_in_one_catalog(tmp_path: Path) -> None:
    repo = base_repo(
        tmp_path, semver_template(["1.0.0", "1.1.0", "1.1.1"]), semver_catalog(), versions=("4.18", "4.19")
    )
    path = repo / "v4.18" / "catalog" / PKG / "catalog.json"
    path.write_text(path.read_text().replace(image("1.1.1"), image("rebuilt")))
    [found] = drift(check(repo))
    # the template's image is v4.19's blob of 1.1.1; v4.18 has another blob under that name
    assert f"bundle {PKG}.v1.1.1: its blob differs from the resolved one (image)" in found.message
    assert (found.location.file, found.location.line) == (
        f"v4.18/catalog/{PKG}/catalog.json",
        line_of(path, f'"image": "{image("rebuilt")}"') - 4,  # that bundle's blob
    )


TEMPLATE_FOLDER = {  # where each layout keeps a root's template: beside the root, or in it
    "kueue-fbc": "v{v}",
    "by-version": "catalog/v{v}",
    "named": "catalog/demo-v{v}",
    "split": "catalog-{dashed}",
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_template_drift_in_every_layout(tmp_path: Path, layout: str) -> None:
    """Each layout's root with an honest basic template passes; a template changed alone is drift."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    cats = {v: basic_catalog() for v in ("4.14", "4.15")}
    LAYOUTS[layout](repo, cats)
    templates = {}
    for v in cats:
        path = (
            repo / TEMPLATE_FOLDER[layout].format(v=v, dashed=v.replace(".", "-")) / "catalog-template.yaml"
        )
        path.write_text(BASIC.format(one=image("1.0.0"), two=image("1.1.0")))
        templates[v] = path
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    for path in templates.values():  # every root touched, so every template is judged: all honest
        path.write_text(path.read_text() + "\n")
    assert not drift(check(repo, "touch"))
    # the pull request edits the v4.15 template (a skipRange) and does not regenerate its catalog
    templates["4.15"].write_text(
        templates["4.15"]
        .read_text()
        .replace(
            "replaces: demo-operator.v1.0.0", "replaces: demo-operator.v1.0.0\n        skipRange: <1.1.0"
        )
    )
    report = check(repo)
    [found] = drift(report)
    assert found.severity is Severity.ERROR and report.state(found) is BaselineState.NEW
    assert found.subject[0] == "v4.15", found.subject
    assert "skipRange '<1.1.0' rendered" in found.message and "opm alpha render-template basic" in found.hint
