"""``check --base`` in any file-based catalog repository (issue 26): roots found, paired and judged.

Each test builds a small git repository in ``tmp_path`` (the FBC is written here, nothing is copied)
in one of the layouts real repositories use, commits a base, changes it as a pull request would and
calls :func:`releasekit.jobs.fbc_repo_check.run_repo_check` directly:

- ``kueue-fbc``: ``v4.N/catalog/<package>/catalog.json`` beside ``catalog-template.yaml``,
  ``Containerfile.catalog`` (``COPY catalog/ /configs``) and a Tekton file;
- ``by-version``: ``catalog/v4.N/<package>/catalog.yaml`` (one YAML stream, an ``.indexignore``);
- ``named``: ``catalog/<name>-v4.N/catalog.yaml`` (and a legacy basic template elsewhere);
- ``split``: ``catalog-4-N/`` with ``package.yaml``, ``channels/*.yaml`` and ``bundles/*.yaml``.

The same pull request in every layout: 1.0.0 removed from v4.16 (RK-DIFF-003), 1.1.0's bundle image
rebuilt in v4.14 (RK-DIFF-023), the v4.17 catalog dropped (RK-DIFF-020), 1.2.0's edges changed in v4.15
(RK-DIFF-002, a narrowed skipRange RK-DIFF-025) and a hotfix 1.2.1 added to v4.14 only, by tag
(stranded by the cluster upgrade to v4.15: RK-GRAPH-010; not pinned: RK-DIFF-026).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.fbc_load import LoadLimits
from releasekit.jobs.check import CheckRequest
from releasekit.jobs.fbc_repo_check import run_repo_check
from releasekit.model.finding import Finding, Severity
from releasekit.model.report import BaselineState

PKG = "demo-operator"
VERSIONS = ("4.14", "4.15", "4.16", "4.17")
ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}

Objects = list[dict[str, Any]]


def _digest(char: str) -> str:
    return "sha256:" + char * 64


def _bundle(version: str, image: str | None = None) -> dict[str, Any]:
    return {
        "schema": "olm.bundle",
        "name": f"{PKG}.v{version}",
        "package": PKG,
        "image": image or f"registry.example.com/demo/bundle@{_digest('a')}",
        "properties": [
            {"type": "olm.package", "value": {"packageName": PKG, "version": version}},
            {"type": "olm.gvk", "value": {"group": "demo.example.com", "kind": "Demo", "version": "v1"}},
        ],
        "relatedImages": [{"name": "operator", "image": f"registry.example.com/demo/op@{_digest('b')}"}],
    }


def base_catalog() -> Objects:
    """Package, channel stable (1.0.0 <- 1.1.0 <- 1.2.0, 1.2.0 with a skipRange), three bundles."""
    return [
        {"schema": "olm.package", "name": PKG, "defaultChannel": "stable"},
        {
            "schema": "olm.channel",
            "name": "stable",
            "package": PKG,
            "entries": [
                {"name": f"{PKG}.v1.0.0"},
                {"name": f"{PKG}.v1.1.0", "replaces": f"{PKG}.v1.0.0"},
                {"name": f"{PKG}.v1.2.0", "replaces": f"{PKG}.v1.1.0", "skipRange": ">=1.0.0 <1.2.0"},
            ],
        },
        _bundle("1.0.0"),
        _bundle("1.1.0"),
        _bundle("1.2.0"),
    ]


def _entries(objects: Objects) -> list[dict[str, Any]]:
    channel = next(o for o in objects if o["schema"] == "olm.channel")
    entries: list[dict[str, Any]] = channel["entries"]
    return entries


def head_catalogs() -> dict[str, Objects]:
    """The pull request: every change of the module docstring (v4.17 is gone)."""
    cats = {v: base_catalog() for v in VERSIONS[:3]}
    # removal: 1.0.0 leaves v4.16 (1.1.0 still replaces it: no stranding, only the pruning rule)
    cats["4.16"] = [o for o in cats["4.16"] if o.get("name") != f"{PKG}.v1.0.0"]
    _entries(cats["4.16"])[:] = [e for e in _entries(cats["4.16"]) if e["name"] != f"{PKG}.v1.0.0"]
    # blob change: 1.1.0 rebuilt with another digest in v4.14
    next(o for o in cats["4.14"] if o.get("name") == f"{PKG}.v1.1.0")["image"] = (
        f"registry.example.com/demo/bundle@{_digest('c')}"
    )
    # edge change in v4.15: the skipRange narrowed, a skips added instead
    entry = _entries(cats["4.15"])[2]
    entry["skipRange"] = ">=1.1.0 <1.2.0"
    entry["skips"] = [f"{PKG}.v1.0.0"]
    # a hotfix in v4.14 only, by tag: the cluster upgrade to v4.15 strands it
    cats["4.14"].append(_bundle("1.2.1", image="registry.example.com/demo/bundle:v1.2.1"))
    _entries(cats["4.14"]).append({"name": f"{PKG}.v1.2.1", "replaces": f"{PKG}.v1.2.0"})
    return cats


def _json(objects: Objects) -> str:
    return "".join(json.dumps(o, indent=4) + "\n" for o in objects)


def _yaml(objects: Objects) -> str:
    import yaml

    return "".join("---\n" + yaml.safe_dump(o, sort_keys=True) for o in objects)


TEKTON = """\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: demo-fbc-{n}-on-push
spec:
  params:
    - name: path-context
      value: v{v}
"""

SEMVER_TEMPLATE = """\
Schema: olm.semver
GenerateMajorChannels: false
GenerateMinorChannels: true
Stable:
  Bundles:
    - Image: registry.example.com/demo/bundle@sha256:{d}
"""

LEGACY_BASIC = """\
---
schema: olm.package
name: demo-operator
defaultChannel: stable
---
schema: olm.channel
package: demo-operator
name: stable
entries:
  - name: demo-operator.v1.0.0
---
schema: olm.bundle
image: registry.example.com/demo/bundle@sha256:{d}
"""


def write_kueue_fbc(root: Path, cats: dict[str, Objects]) -> None:
    for v, objects in cats.items():
        folder = root / f"v{v}"
        (folder / "catalog" / PKG).mkdir(parents=True)
        (folder / "catalog" / PKG / "catalog.json").write_text(_json(objects))
        (folder / "catalog-template.yaml").write_text(SEMVER_TEMPLATE.format(d="a" * 64))
        (folder / "Containerfile.catalog").write_text(
            f"FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v{v}\n"
            'ENTRYPOINT ["/bin/opm"]\nCMD ["serve", "/configs", "--cache-dir=/tmp/cache"]\n'
            'COPY catalog/ /configs\nRUN ["/bin/opm", "serve", "/configs", "--cache-only"]\n'
            "LABEL operators.operatorframework.io.index.configs.v1=/configs\n"
        )
        (folder / "pipelinerun.yaml").write_text(TEKTON.format(n=v.replace(".", "-"), v=v))
        tekton = root / ".tekton"
        tekton.mkdir(exist_ok=True)
        (tekton / f"demo-fbc-{v.replace('.', '-')}-push.yaml").write_text(TEKTON.format(n=v, v=v))


def write_by_version(root: Path, cats: dict[str, Objects]) -> None:
    for v, objects in cats.items():
        folder = root / "catalog" / f"v{v}"
        (folder / PKG).mkdir(parents=True)
        (folder / PKG / "catalog.yaml").write_text(_yaml(objects))
        (folder / ".indexignore").write_text("*.md\n")
        (folder / "README.md").write_text("# not a catalog: opm would fail on it without .indexignore\n")
        # inside the root, beside the catalog: never catalog content
        (folder / "catalog-template.yaml").write_text(SEMVER_TEMPLATE.format(d="a" * 64))
        (folder / "pipelinerun.yaml").write_text(TEKTON.format(n=v.replace(".", "-"), v=v))


def write_named(root: Path, cats: dict[str, Objects]) -> None:
    for v, objects in cats.items():
        folder = root / "catalog" / f"demo-v{v}"
        folder.mkdir(parents=True)
        (folder / "catalog.yaml").write_text(_yaml(objects))
        templates = root / "templates"
        templates.mkdir(exist_ok=True)
        (templates / f"v{v}.yaml").write_text(LEGACY_BASIC.format(d="a" * 64))


def write_split(root: Path, cats: dict[str, Objects]) -> None:
    for v, objects in cats.items():
        folder = root / f"catalog-{v.replace('.', '-')}"
        (folder / "bundles").mkdir(parents=True)
        (folder / "channels").mkdir()
        (folder / "Containerfile").write_text(
            f"FROM registry.redhat.io/openshift4/ose-operator-registry-rhel9:v{v}\nCOPY --chown=1001 . /configs/\n"
        )
        for obj in objects:
            if obj["schema"] == "olm.package":
                (folder / "package.yaml").write_text(_yaml([obj]))
            elif obj["schema"] == "olm.channel":
                (folder / "channels" / f"{obj['name']}.yaml").write_text(_yaml([obj]))
            else:
                (folder / "bundles" / f"{obj['name']}.yaml").write_text(_yaml([obj]))


LAYOUTS: dict[str, Callable[[Path, dict[str, Objects]], None]] = {
    "kueue-fbc": write_kueue_fbc,
    "by-version": write_by_version,
    "named": write_named,
    "split": write_split,
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        check=True,
        text=True,
        env={**os.environ, **ENV},
    )
    return done.stdout


def clear(repo: Path) -> None:
    """Remove every tracked file and folder but .git (the next layout is written from scratch)."""
    import shutil

    for child in repo.iterdir():
        if child.name == ".git":
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def make_repo(tmp_path: Path, write: Callable[[Path, dict[str, Objects]], None]) -> Path:
    """A repository whose ``main`` holds the base catalogs and whose ``pr`` branch the head ones."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, {v: base_catalog() for v in VERSIONS})
    (repo / "README.md").write_text("demo FBC\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "latest").symlink_to("../README.md")  # an unrelated symlink: ignored, not refused
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    clear(repo)
    write(repo, head_catalogs())
    (repo / "README.md").write_text("demo FBC\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "latest").symlink_to("../README.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    return repo


def by_rule(findings: tuple[Finding, ...], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


def subjects(findings: tuple[Finding, ...], rule: str) -> set[tuple[str, ...]]:
    return {f.subject for f in by_rule(findings, rule)}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_same_pull_request_in_every_layout(tmp_path: Path, layout: str) -> None:
    repo = make_repo(tmp_path, LAYOUTS[layout])
    result = run_repo_check(CheckRequest(base="main", head="pr", repo=repo))
    findings = result.report.findings
    # the head catalogs are valid: templates, Tekton files, Containerfiles and ignored files are no content
    assert not [f for f in findings if f.rule.startswith("RK-FBC")], findings
    checked = result.report.checked
    assert checked and not [
        c
        for c in checked
        if c.rsplit("/", 1)[-1] in ("pipelinerun.yaml", "catalog-template.yaml", "Containerfile")
    ], checked
    assert not [c for c in checked if c.endswith(".md") or c.startswith(("templates/", ".tekton/"))], checked
    # removal: an error that says to deprecate instead
    removed = by_rule(findings, "RK-DIFF-003")
    assert [f.subject for f in removed] == [("v4.16", PKG, f"{PKG}.v1.0.0")]
    assert removed[0].severity is Severity.ERROR and "olm.deprecations" in removed[0].hint
    # blob change: a warning naming both digests
    changed = by_rule(findings, "RK-DIFF-023")
    assert [f.subject for f in changed] == [("v4.14", PKG, f"{PKG}.v1.1.0")]
    assert changed[0].severity is Severity.WARNING
    assert _digest("a") in changed[0].message and _digest("c") in changed[0].message
    assert not by_rule(findings, "RK-DIFF-005")  # the releasekit-repository error is not used here
    # the dropped OpenShift catalog: one warning (versions leave support), not one error per bundle
    dropped = by_rule(findings, "RK-DIFF-020")
    assert [f.subject for f in dropped] == [("v4.17", PKG)]
    assert dropped[0].severity is Severity.WARNING
    assert "v4.17 catalog" in dropped[0].message and "dropped" in dropped[0].message
    assert not any(f.subject[:1] == ("v4.17",) for f in findings if f.rule in ("RK-DIFF-003", "RK-DIFF-004"))
    # edge change: the summary names the edges, the narrowed skipRange is a warning
    notes = {f.subject: f.message for f in by_rule(findings, "RK-DIFF-002")}
    assert "+edge" in notes[("v4.15", PKG)] and "skipRange" in notes[("v4.15", PKG)]
    narrowed = by_rule(findings, "RK-DIFF-025")
    assert [f.subject[:2] for f in narrowed] == [("v4.15", PKG)]
    assert f"{PKG}.v1.0.0" in narrowed[0].message
    # stranded along the OpenShift upgrade matrix (new: an error), and not pinned by digest
    stranded = by_rule(findings, "RK-GRAPH-010")
    assert [(f.subject[-1], f.severity) for f in stranded] == [(f'bundle "{PKG}.v1.2.1"', Severity.ERROR)]
    assert "v4.14" in stranded[0].message and "v4.15" in stranded[0].message
    assert result.report.is_new(stranded[0])
    assert subjects(findings, "RK-DIFF-026") == {("v4.14", PKG, f"{PKG}.v1.2.1")}
    heads = {f.subject: f.message for f in by_rule(findings, "RK-DIFF-024")}
    assert f"{PKG}.v1.2.1" in heads[("v4.14", PKG, "stable")]
    assert not result.report.passed
    assert ("v4.17", PKG) in result.touched


def _roots(tmp_path: Path, layout: str) -> list[tuple[str, str | None, tuple[str, ...]]]:
    from releasekit.io.catalog_roots import ParseCache, find_catalog_roots
    from releasekit.io.gitrev import list_revision, open_repo

    repo = make_repo(tmp_path, LAYOUTS[layout])
    tree = list_revision(open_repo(repo).commit("main"), rev="main")
    found = find_catalog_roots(tree, cache=ParseCache())
    return [(r.path, r.openshift, r.packages) for r in found.roots]


@pytest.mark.parametrize(
    ("layout", "paths"),
    [
        ("kueue-fbc", ["v4.14/catalog", "v4.15/catalog", "v4.16/catalog", "v4.17/catalog"]),
        ("by-version", ["catalog/v4.14", "catalog/v4.15", "catalog/v4.16", "catalog/v4.17"]),
        ("named", ["catalog/demo-v4.14", "catalog/demo-v4.15", "catalog/demo-v4.16", "catalog/demo-v4.17"]),
        ("split", ["catalog-4-14", "catalog-4-15", "catalog-4-16", "catalog-4-17"]),
    ],
)
def test_roots_and_their_openshift_version_in_each_layout(
    tmp_path: Path, layout: str, paths: list[str]
) -> None:
    roots = _roots(tmp_path, layout)
    assert roots == [(p, f"v{v}", (PKG,)) for p, v in zip(paths, VERSIONS, strict=True)]


def test_a_renamed_root_is_a_move_not_a_removal(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_by_version)
    git(repo, "mv", "catalog/v4.15", "catalog/ocp-v4.15")
    git(repo, "commit", "-q", "-m", "rename")
    result = run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo))
    findings = result.report.findings
    assert [f.rule for f in findings] == ["RK-DIFF-022"], findings
    assert "catalog/v4.15/" in findings[0].message and "catalog/ocp-v4.15/" in findings[0].message
    assert result.report.passed


def test_a_broken_catalog_is_a_finding_not_a_crash_nor_a_drop(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_kueue_fbc)
    target = repo / "v4.15" / "catalog" / PKG / "catalog.json"
    target.write_text(target.read_text().replace('"schema"', '"schema" "oops"', 1))
    git(repo, "commit", "-q", "-am", "break")
    result = run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo))
    findings = result.report.findings
    assert {f.rule for f in findings if f.location.file == f"v4.15/catalog/{PKG}/catalog.json"} >= {
        "RK-FBC-001"
    }
    assert not by_rule(findings, "RK-DIFF-020")


def test_a_broken_file_alone_in_its_root_keeps_the_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_by_version)
    (repo / "catalog" / "v4.15" / PKG / "catalog.yaml").write_text("schema: [unclosed\n")
    git(repo, "commit", "-q", "-am", "break")
    result = run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo))
    findings = result.report.findings
    assert by_rule(findings, "RK-FBC-001"), findings
    assert not by_rule(findings, "RK-DIFF-020")


def test_a_symlink_inside_a_root_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_by_version)
    (repo / "catalog" / "v4.15" / PKG / "extra.yaml").symlink_to("/etc/passwd")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "link")
    with pytest.raises(SafetyLimitError, match=r"catalog/v4.15/demo-operator/extra.yaml: is a symbolic link"):
        run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo))


def test_a_file_over_the_limit_is_refused_where_it_may_be_a_catalog(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_split)
    (repo / "assets").mkdir()
    (repo / "assets" / "logo.png").write_bytes(b"\x89PNG" + b"\0" * 200_000)  # never read
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big unrelated file")
    limits = LoadLimits(max_file_bytes=100_000)
    result = run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo), limits=limits)
    assert result.report.passed
    (repo / "assets" / "unrelated.json").write_text("{" + " " * 200_000 + "}")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big json file: it could be a catalog")
    with pytest.raises(SafetyLimitError, match=r"^pr:assets/unrelated.json: 200,002 bytes is over"):
        run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo), limits=limits)
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    (repo / "catalog-4-15" / "bundles" / "big.yaml").write_text("#" * 200_000 + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big catalog file")
    with pytest.raises(SafetyLimitError, match=r"catalog-4-15/bundles/big.yaml: 200,001 bytes is over"):
        run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo), limits=limits)


def test_the_working_tree_as_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_named)
    git(repo, "checkout", "-q", "main")
    target = repo / "catalog" / "demo-v4.16" / "catalog.yaml"
    target.write_text(_yaml([o for o in base_catalog() if o.get("name") != f"{PKG}.v1.2.0"]))
    v415 = [o for o in base_catalog() if o.get("name") != f"{PKG}.v1.0.0"]
    _entries(v415).pop(0)
    (repo / "catalog" / "demo-v4.15" / "catalog.yaml").write_text(_yaml(v415))
    (repo / "untracked-notes.txt").write_text("an untracked file outside every root\n")
    result = run_repo_check(CheckRequest(base="main", repo=repo))
    findings = result.report.findings
    assert subjects(findings, "RK-DIFF-003") == {("v4.15", PKG, f"{PKG}.v1.0.0")}
    opm = [f for f in findings if f.rule.startswith("RK-FBC")]
    assert opm and all(f.location.file == "catalog/demo-v4.16/catalog.yaml" for f in opm), opm
    assert any("demo-operator.v1.2.0" in f.message for f in opm)


def test_releasekit_yaml_names_the_version_pattern(tmp_path: Path) -> None:
    def write(root: Path, cats: dict[str, Objects]) -> None:
        for v, objects in cats.items():
            folder = root / "catalogs" / f"ocp{v}"
            folder.mkdir(parents=True)
            (folder / "index.json").write_text(_json(objects))
        (root / "releasekit.yaml").write_text(
            "schema: releasekit/config/v1\ncatalogRepository:\n  versionPattern: 'ocp{major}.{minor}'\n"
        )

    repo = make_repo(tmp_path, write)
    result = run_repo_check(CheckRequest(base="main", head="pr", repo=repo))
    findings = result.report.findings
    assert subjects(findings, "RK-DIFF-020") == {("v4.17", PKG)}
    assert [f.subject[-1] for f in by_rule(findings, "RK-GRAPH-010")] == [f'bundle "{PKG}.v1.2.1"']


def test_releasekit_yaml_lists_the_roots(tmp_path: Path) -> None:
    def write(root: Path, cats: dict[str, Objects]) -> None:
        for n, (_v, objects) in enumerate(sorted(cats.items())):
            folder = root / "fbc" / f"line{n}"
            folder.mkdir(parents=True)
            (folder / "catalog.json").write_text(_json(objects))
        roots = "".join(f"    - {{path: fbc/line{n}, openshift: v{v}}}\n" for n, v in enumerate(sorted(cats)))
        (root / "releasekit.yaml").write_text(
            f"schema: releasekit/config/v1\ncatalogRepository:\n  roots:\n{roots}"
        )

    repo = make_repo(tmp_path, write)
    result = run_repo_check(CheckRequest(base="main", head="pr", repo=repo))
    findings = result.report.findings
    assert subjects(findings, "RK-DIFF-003") == {("v4.16", PKG, f"{PKG}.v1.0.0")}
    assert [f.subject[-1] for f in by_rule(findings, "RK-GRAPH-010")] == [f'bundle "{PKG}.v1.2.1"']


def test_a_published_stranding_is_a_warning_and_unchanged(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    cats = {v: base_catalog() for v in VERSIONS}
    cats["4.14"].append(_bundle("1.2.1"))
    _entries(cats["4.14"]).append({"name": f"{PKG}.v1.2.1", "replaces": f"{PKG}.v1.2.0"})
    write_by_version(repo, cats)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "catalog" / "v4.14" / "README.md").write_text("changed, ignored\n")
    cats["4.14"][0]["description"] = "a new description"
    (repo / "catalog" / "v4.14" / PKG / "catalog.yaml").write_text(_yaml(cats["4.14"]))
    git(repo, "commit", "-q", "-am", "touch v4.14")
    result = run_repo_check(CheckRequest(base="main~1", head="main", repo=repo))
    stranded = by_rule(result.report.findings, "RK-GRAPH-010")
    assert [f.severity for f in stranded] == [Severity.WARNING]
    assert result.report.state(stranded[0]) is BaselineState.UNCHANGED
    assert result.report.passed


def test_an_unreadable_base_is_one_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_split)
    with pytest.raises((InputError, Exception)) as caught:
        run_repo_check(CheckRequest(base="no-such-ref", head="pr", repo=repo))
    assert "\n" not in str(caught.value)


def test_a_submodule_is_ignored_outside_the_roots_and_refused_inside(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_kueue_fbc)
    commit = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{commit},vendor/tools")
    git(repo, "commit", "-q", "-m", "a submodule outside the roots")
    assert run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo)).report.passed
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{commit},v4.15/catalog/{PKG}/vendored")
    git(repo, "commit", "-q", "-m", "a submodule inside a root")
    with pytest.raises(
        SafetyLimitError, match=r"v4.15/catalog/demo-operator/vendored: is a submodule inside"
    ):
        run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo))


def test_a_fifo_in_the_working_tree_is_never_opened(tmp_path: Path) -> None:
    """git lists no FIFO (nor socket or device), so none is ever opened, inside a root or not."""
    repo = make_repo(tmp_path, write_by_version)
    os.mkfifo(repo / "outside.yaml")
    os.mkfifo(repo / "catalog" / "v4.15" / PKG / "inside.yaml")
    result = run_repo_check(CheckRequest(base="pr", repo=repo))
    assert not result.report.findings


def test_the_working_tree_follows_the_same_refusals(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_by_version)
    link = repo / "catalog" / "v4.16" / PKG / "more.yaml"
    link.symlink_to("../../../README.md")
    with pytest.raises(
        SafetyLimitError, match=r"catalog/v4.16/demo-operator/more.yaml: is a symbolic link inside"
    ):
        run_repo_check(CheckRequest(base="pr", repo=repo))
    link.unlink()
    (repo / "catalog" / "v4.16" / PKG / "big.yaml").write_text("#" * 20_000 + "\n")
    with pytest.raises(SafetyLimitError, match=r"catalog/v4.16/demo-operator/big.yaml: 20,001 bytes is over"):
        run_repo_check(CheckRequest(base="pr", repo=repo), limits=LoadLimits(max_file_bytes=10_000))


def test_a_nested_releasekit_yaml_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_split)
    (repo / "releasekit.yaml").write_text(
        "schema: releasekit/config/v1\nx: " + "[" * 10_000 + "]" * 10_000 + "\n"
    )
    with pytest.raises(SafetyLimitError, match=r"releasekit.yaml:2: nested deeper than"):
        run_repo_check(CheckRequest(base="pr", repo=repo))


def test_a_catalog_repaired_by_the_change_is_paired_with_its_broken_base(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, write_by_version)
    target = repo / "catalog" / "v4.15" / PKG / "catalog.yaml"
    good = target.read_text()
    target.write_text("schema: [unclosed\n")
    git(repo, "commit", "-q", "-am", "break")
    target.write_text(good)
    git(repo, "commit", "-q", "-am", "repair")
    result = run_repo_check(CheckRequest(base="pr~1", head="pr", repo=repo))
    findings = result.report.findings
    assert not by_rule(findings, "RK-DIFF-021") and not by_rule(findings, "RK-DIFF-026"), findings
    assert "RK-FBC-001" in {f.rule for f in result.report.fixed}


def test_a_package_leaving_a_catalog_that_stays_is_an_error(tmp_path: Path) -> None:
    """A whole OpenShift catalog dropped is a warning; one package gone from a catalog that stays is not."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_by_version(repo, {v: base_catalog() for v in VERSIONS[:2]})
    other = json.loads(json.dumps(base_catalog()).replace(PKG, "other-operator"))
    (repo / "catalog" / "v4.14" / "other-operator").mkdir()
    (repo / "catalog" / "v4.14" / "other-operator" / "catalog.yaml").write_text(_yaml(other))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "rm", "-q", "-r", "catalog/v4.14/other-operator")
    git(repo, "commit", "-q", "-m", "other-operator leaves v4.14")
    findings = run_repo_check(CheckRequest(base="HEAD~1", head="HEAD", repo=repo)).report.findings
    [left] = by_rule(findings, "RK-DIFF-020")
    assert left.subject == ("v4.14", "other-operator") and left.severity is Severity.ERROR
    assert "left the v4.14 catalog" in left.message and "olm.deprecations" in left.hint
