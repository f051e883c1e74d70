"""``check --published OCP=FILE|REV`` in a file-based catalog repository (issue 26).

The pull request of :mod:`tests.scenarios.test_fbc_repo_check` (kueue-fbc layout): 1.1.0's blob rebuilt in
v4.14 (RK-DIFF-023), 1.0.0 removed from v4.16 (RK-DIFF-003). ``--published`` says what was released: a
rendered index (JSON or YAML, streamed past the size limit) or a revision's catalog for that version.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from releasekit.errors import SafetyLimitError
from releasekit.io.fbc_load import LoadLimits
from releasekit.jobs import published as published_job
from releasekit.jobs.check import CheckRequest, run_check
from releasekit.model.finding import Finding, Severity
from tests.scenarios.test_fbc_repo_check import (
    LAYOUTS,
    PKG,
    _bundle,
    _digest,
    _json,
    _yaml,
    base_catalog,
    clear,
    git,
    make_repo,
)

BLOB = ("v4.14", PKG, f"{PKG}.v1.1.0")
REMOVED = ("v4.16", PKG, f"{PKG}.v1.0.0")


def _other_package(n: int) -> list[dict[str, Any]]:
    """Objects of a package the repository does not hold (what fills a real index)."""
    name = f"other-{n}"
    bundle = _bundle("1.0.0") | {"name": f"{name}.v1.0.0", "package": name, "properties": []}
    return [{"schema": "olm.package", "name": name, "defaultChannel": "stable"}, bundle]


def _index(released: list[str], others: int = 3) -> list[dict[str, Any]]:
    """A rendered index: other packages, and the repository's package with the ``released`` bundles."""
    objects = [o for n in range(others) for o in _other_package(n)]
    ours = [o for o in base_catalog() if o["schema"] != "olm.bundle" or o["name"] in released]
    return objects[: len(objects) // 2] + ours + objects[len(objects) // 2 :]


def _check(repo: Path, *published: str, limits: LoadLimits | None = None) -> dict[tuple[str, ...], Finding]:
    request = CheckRequest(base="main", head="pr", repo=repo, published=published)
    report = run_check(request, limits=limits).report
    return {f.subject: f for f in report.findings if f.rule in ("RK-DIFF-023", "RK-DIFF-003")}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, LAYOUTS["kueue-fbc"])


def test_without_published_the_base_is_published(repo: Path) -> None:
    found = _check(repo)
    assert found[BLOB].severity is Severity.WARNING and found[REMOVED].severity is Severity.ERROR


def test_a_released_blob_changed_is_an_error_and_an_unreleased_removal_is_not(
    repo: Path, tmp_path: Path
) -> None:
    json_index = tmp_path / "index-4.14.json"
    json_index.write_text(_json(_index([f"{PKG}.v1.0.0", f"{PKG}.v1.1.0"])))
    yaml_index = tmp_path / "index-4.16.yaml"
    yaml_index.write_text(_yaml(_index([f"{PKG}.v1.1.0", f"{PKG}.v1.2.0"])))
    found = _check(repo, f"v4.14={json_index}", f"4.16={yaml_index}")
    changed = found[BLOB]
    assert changed.severity is Severity.ERROR
    assert _digest("a") in changed.message and _digest("c") in changed.message
    assert "released bundle" in changed.message
    assert found[REMOVED].severity is Severity.INFO and "never released" in found[REMOVED].message


def test_a_candidate_rebuilt_stays_a_warning_and_a_released_removal_an_error(
    repo: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index.json"
    index.write_text(_json(_index([f"{PKG}.v1.0.0"])))  # 1.1.0 was never released in v4.14
    found = _check(repo, f"v4.14={index}", f"v4.16={index}")
    assert found[BLOB].severity is Severity.WARNING and "never released" in found[BLOB].message
    assert found[REMOVED].severity is Severity.ERROR


def test_a_revision_says_what_was_released(repo: Path) -> None:
    """``release``: the catalogs as shipped, v4.14 with 1.0.0 only, v4.16 with all three."""
    git(repo, "checkout", "-q", "-b", "release", "main")
    clear(repo)
    only_first = [o for o in base_catalog() if o.get("name") not in (f"{PKG}.v1.1.0", f"{PKG}.v1.2.0")]
    LAYOUTS["kueue-fbc"](repo, {"4.14": only_first, "4.16": base_catalog()})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "as released")
    git(repo, "checkout", "-q", "pr")
    found = _check(repo, "v4.14=release", "v4.16=release")
    assert found[BLOB].severity is Severity.WARNING
    assert found[REMOVED].severity is Severity.ERROR
    found = _check(repo, "v4.16=release~1")  # main: 1.0.0 released; v4.14 keeps the default
    assert found[REMOVED].severity is Severity.ERROR and found[BLOB].severity is Severity.WARNING


def test_a_big_index_is_streamed_past_the_size_limit(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index.json"
    index.write_text(_json(_index([f"{PKG}.v1.1.0"], others=4000)))
    limits = LoadLimits(max_file_bytes=1 << 16)
    assert index.stat().st_size > 30 * limits.max_file_bytes
    monkeypatch.setattr(published_job, "_CHUNK", 1 << 15)
    tracemalloc.start()
    try:
        loaded = published_job.published_loader(repo, (("v4.14", str(index)),), limits)
        assert loaded is not None
        released = loaded({PKG})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert released == {"v4.14": frozenset({(PKG, f"{PKG}.v1.1.0")})}
    assert peak < index.stat().st_size / 4  # read in pieces, only the repository's package decoded
    big = tmp_path / "big.json"
    big.write_text(_json([{**_bundle("9.0.0"), "x": "y" * (1 << 17)}, *_index([])]))
    loaded = published_job.published_loader(repo, (("v4.14", str(big)),), limits)
    assert loaded is not None
    with pytest.raises(SafetyLimitError, match="one object over the 65,536-byte limit"):
        loaded({PKG})


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("v4.14", "expected OCP=FILE|REV"),
        ("four=main", "expected OCP=FILE|REV"),
        ("v4.14=", "expected OCP=FILE|REV"),
        ("v4.14=no-such-revision", "no such file, and no revision"),
        ("v4.14=docs", "expected a file but found a directory"),
        ("v4.14=README.md", "not a rendered index"),
        ("v4.14=broken.json", "broken.json:"),
    ],
)
def test_a_bad_published_value_exits_2_in_one_line(
    repo: Path, run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch, value: str, expected: str
) -> None:
    monkeypatch.chdir(repo)
    (repo / "broken.json").write_text(_json(_index([]))[:-3] + "\n" + json.dumps({"package": PKG}) + "\n")
    result = run_line(["check", "--base", "main", "--head", "pr", "--published", value])
    assert result.exit_code == 2, result.stdout
    assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr, result.stderr


def test_published_is_refused_in_a_releasekit_repository(
    tmp_path: Path, run_line: Callable[..., Result]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "streams").mkdir()
    (repo / "streams" / "README.md").write_text("streams\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    result = run_line(["check", "--base", "main", "--repo", repo, "--published", "v4.14=main"])
    assert result.exit_code == 2 and "streams/ say what is released" in result.stderr


def test_a_package_never_released_may_leave_a_catalog(tmp_path: Path) -> None:
    """RK-DIFF-020 for a package gone from a catalog that stays follows --published like a removal."""
    from tests.scenarios.test_fbc_repo_check import write_by_version

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_by_version(repo, {"4.14": base_catalog()})
    other = json.loads(json.dumps(base_catalog()).replace(PKG, "other-operator"))
    (repo / "catalog" / "v4.14" / "other-operator").mkdir()
    (repo / "catalog" / "v4.14" / "other-operator" / "catalog.yaml").write_text(_yaml(other))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    git(repo, "rm", "-q", "-r", "catalog/v4.14/other-operator")
    git(repo, "commit", "-q", "-m", "other-operator leaves v4.14")

    def dropped(index: list[dict[str, Any]]) -> Finding:
        path = tmp_path / "index.json"
        path.write_text(_json(index))
        report = run_check(
            CheckRequest(base="main", head="pr", repo=repo, published=(f"v4.14={path}",))
        ).report
        [found] = [f for f in report.findings if f.rule == "RK-DIFF-020"]
        return found

    never = dropped(_index([]))  # the index holds none of other-operator's bundles
    assert never.severity is Severity.INFO and "never released in v4.14" in never.message
    released = dropped([*_index([]), *[o for o in other if o["schema"] != "olm.channel"]])
    assert released.severity is Severity.ERROR
