"""``releasekit operator import`` against hostile operator repositories and output folders (issue 23).

Every repository is built here, object by object (:mod:`tests.operator.hostile`). Whatever the repository
holds, the answer is a record that its own schema accepts, or one line on stderr and exit 2 with nothing
written: never a traceback, never a record ``streams validate`` or ``bundle build`` would refuse.
"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import Result

from tests.conftest import REPO_ROOT
from tests.operator.hostile import (
    ANNOTATIONS,
    CSV,
    ROLE,
    Gitlink,
    Link,
    Tree,
    commit_tree,
    make_repo,
    minimal_sources,
)

Run = Callable[..., Result]
MIB = 1024 * 1024


def _import(run_line: Run, repo: Path | str, out: Path, *, env: dict[str, str] | None = None) -> Result:
    args = ["operator", "import", "--repo", repo, "--ref", "main", "--version", "1.0.0", "--streams-dir", out]
    return run_line(args, env=env)


def _repo(tmp_path: Path, tree: Tree) -> Path:
    root = make_repo(tmp_path / "kueue-operator")
    commit_tree(root, tree)
    return root


def _refused(result: Result, *needles: str) -> None:
    """Exit 2, one printable line on stderr holding every needle."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("releasekit: error: "), result.stderr
    assert lines[0].isprintable(), repr(lines[0])
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_the_minimal_repository_is_imported(run_line: Run, tmp_path: Path) -> None:
    result = _import(run_line, _repo(tmp_path, minimal_sources()), tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    record = yaml.safe_load((tmp_path / "out" / "operator" / "1.0.0.yaml").read_text(encoding="utf-8"))
    assert record["csvFile"] == "kueue-operator.clusterserviceversion.yaml"
    assert [m["file"] for m in record["manifests"]] == ["metrics-reader.yaml"]


def _bundle(manifests: object, metadata: object = None) -> Tree:
    return {b"bundle": {b"manifests": manifests, b"metadata": metadata or {b"annotations.yaml": ANNOTATIONS}}}  # type: ignore[dict-item]


def _csv(text: bytes) -> Tree:
    return minimal_sources(manifests={b"kueue-operator.clusterserviceversion.yaml": text, b"r.yaml": ROLE})


SHAPES: dict[str, tuple[Tree, tuple[str, ...]]] = {
    "bundle/manifests is a file": (_bundle(b"x\n"), ("main:bundle/manifests: is a file, not a folder",)),
    "bundle/manifests is a symlink": (
        _bundle(Link(b"../elsewhere")),
        ("main:bundle/manifests: is a symbolic link, not a folder",),
    ),
    "bundle/manifests is a submodule": (
        _bundle(Gitlink()),
        ("main:bundle/manifests: is a submodule, not a folder",),
    ),
    "bundle is a file": ({b"bundle": b"x\n"}, ("main:bundle: is a file, not a folder",)),
    "bundle/metadata is a file": (
        _bundle({b"kueue-operator.clusterserviceversion.yaml": CSV}, b"x\n"),
        ("main:bundle/metadata: is a file, not a folder",),
    ),
    "a manifest is a symlink": (
        minimal_sources(
            manifests={b"kueue-operator.clusterserviceversion.yaml": CSV, b"r.yaml": Link(b"/etc/passwd")}
        ),
        ("main:bundle/manifests/r.yaml: is a symbolic link, not a file",),
    ),
    "a manifest is a submodule": (
        minimal_sources(manifests={b"kueue-operator.clusterserviceversion.yaml": CSV, b"r.yaml": Gitlink()}),
        ("main:bundle/manifests/r.yaml: is a submodule, not a file",),
    ),
    "annotations.yaml is a symlink": (
        _bundle({b"kueue-operator.clusterserviceversion.yaml": CSV}, {b"annotations.yaml": Link(b"x")}),
        ("main:bundle/metadata/annotations.yaml: is a symbolic link, not a file",),
    ),
    "bundle.Dockerfile is a folder": (
        minimal_sources(**{"bundle.Dockerfile": {b"x": b"y"}}),
        ("main:bundle.Dockerfile: is a folder, not a file",),
    ),
    "the CSV's spec is a number": (
        _csv(b"apiVersion: v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: x}\nspec: 5\n"),
        ("kueue-operator.clusterserviceversion.yaml: spec is a number, not a mapping",),
    ),
    "the CSV's metadata is a list": (
        _csv(b"apiVersion: v1\nkind: ClusterServiceVersion\nmetadata: [a]\nspec: {version: 1.0.0}\n"),
        ("clusterserviceversion.yaml: metadata is a list, not a mapping",),
    ),
    "the CSV has no metadata": (
        _csv(b"apiVersion: v1\nkind: ClusterServiceVersion\nspec: {version: 1.0.0}\n"),
        ("clusterserviceversion.yaml: metadata is missing, not a mapping",),
    ),
    "the CSV's annotations are a list": (
        _csv(
            b"apiVersion: v1\nkind: ClusterServiceVersion\nmetadata: {name: x, annotations: [a]}\n"
            b"spec: {version: 1.0.0, install: {}}\n"
        ),
        ("metadata.annotations is a list, not a mapping",),
    ),
    "a CRD's versions are a number": (
        minimal_sources(
            manifests={
                b"kueue-operator.clusterserviceversion.yaml": CSV,
                b"crd.yaml": b"apiVersion: v1\nkind: CustomResourceDefinition\nmetadata: {name: c}\nspec: {versions: 5}\n",
            }
        ),
        (),  # kept as written: the record holds the manifest, and the bundle validators judge it
    ),
    "a file name that is not UTF-8": (
        minimal_sources(
            manifests={b"kueue-operator.clusterserviceversion.yaml": CSV, b"\xff\xfe.yaml": ROLE}
        ),
        ("main:bundle/manifests/\\xff\\xfe.yaml: the file name is not UTF-8",),
    ),
    "a file name that breaks the record's YAML": (
        minimal_sources(manifests={b"kueue-operator.clusterserviceversion.yaml": CSV, b"a\nb: c.yaml": ROLE}),
        ("refusing to write", "$.manifests[0].file", "'a\\nb: c.yaml' does not match"),
    ),
    "a file name with a terminal escape": (
        minimal_sources(
            manifests={b"kueue-operator.clusterserviceversion.yaml": CSV, b"\x1b]0;pwned\x07.yaml": ROLE}
        ),
        ("$.manifests[0].file", "\\x1b]0;pwned\\x07.yaml"),
    ),
    "an annotation that is not text": (
        _bundle(
            {b"kueue-operator.clusterserviceversion.yaml": CSV},
            {b"annotations.yaml": b"annotations:\n  a: {b: c}\n"},
        ),
        ("$.annotations.a", "expected string"),
    ),
    "a manifest without kind": (
        minimal_sources(
            manifests={b"kueue-operator.clusterserviceversion.yaml": CSV, b"r.yaml": b"apiVersion: v1\n"}
        ),
        ("$.manifests[0].object", "missing required key 'kind'"),
    ),
    "a CSV named .json": (
        minimal_sources(manifests={b"kueue-operator.clusterserviceversion.json": CSV}),
        ("$.csvFile",),
    ),
}


@pytest.mark.parametrize("case", list(SHAPES))
def test_a_hostile_tree_is_one_line_and_nothing_is_written(case: str, run_line: Run, tmp_path: Path) -> None:
    tree, needles = SHAPES[case]
    result = _import(run_line, _repo(tmp_path, tree), tmp_path / "out")
    if not needles:
        assert result.exit_code == 0, result.stderr
        return
    _refused(result, *needles)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("repo", "needle"),
    [
        ("ext::sh -c touch% {marker}", "git's ext:: transport is not allowed"),
        ("ext::sh -c touch% {marker}://x", "git's ext:: transport is not allowed"),
        ("fd::3", "git's fd:: transport is not allowed"),
        ("git://example.invalid/kueue-operator", "the git:// transport is not allowed"),
        ("http://example.invalid/kueue-operator", "the http:// transport is not allowed"),
        ("-uhelp", "starts with '-'"),
        ("/tmp/a\nb", "control characters"),
    ],
)
def test_only_local_paths_and_safe_transports_are_used(
    repo: str, needle: str, run_line: Run, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    result = _import(run_line, repo.format(marker=marker), tmp_path / "out")
    _refused(result, "--repo: refusing", needle)
    assert not marker.exists()


def test_a_file_url_is_cloned_into_the_cache(run_line: Run, tmp_path: Path) -> None:
    source = _repo(tmp_path, minimal_sources())
    cache = tmp_path / "cache"
    result = _import(run_line, f"file://{source}", tmp_path / "out", env={"XDG_CACHE_HOME": str(cache)})
    assert result.exit_code == 0, result.stderr
    assert len(list((cache / "releasekit" / "upstream").iterdir())) == 1


@pytest.mark.parametrize("case", ["a file", "a dangling link", "a file above it", "a file as the clone"])
def test_a_cache_folder_that_is_not_a_folder_is_one_line(case: str, run_line: Run, tmp_path: Path) -> None:
    source = _repo(tmp_path, minimal_sources())
    cache = tmp_path / "cache"
    folder = cache / "releasekit" / "upstream"
    if case == "a file above it":
        cache.mkdir()
        (cache / "releasekit").write_text("x")
        needle = f"{cache / 'releasekit'} is not a folder"
    elif case == "a file as the clone":
        folder.mkdir(parents=True)
        result = _import(run_line, f"file://{source}", tmp_path / "o", env={"XDG_CACHE_HOME": str(cache)})
        assert result.exit_code == 0, result.stderr
        (clone,) = folder.iterdir()
        __import__("shutil").rmtree(clone)
        clone.write_text("x")
        needle = "is not a git repository"
    else:
        folder.parent.mkdir(parents=True)
        if case == "a file":
            folder.write_text("x")
            needle = f"{folder} is not a folder"
        else:
            folder.symlink_to(tmp_path / "gone")
            needle = f"{folder} is a dangling symbolic link"
    result = _import(run_line, f"file://{source}", tmp_path / "out", env={"XDG_CACHE_HOME": str(cache)})
    _refused(result, needle)
    assert not (tmp_path / "out").exists()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


OUTPUTS: dict[str, tuple[str, Callable[[Path], None], str]] = {
    # case: (the path below out/ that is made hostile, how, what the message says)
    "--streams-dir is a FIFO": ("", _fifo, "--streams-dir is a FIFO, not a folder"),
    "--streams-dir is a file": ("", lambda p: p.write_text("x"), "--streams-dir is a file, not a folder"),
    "operator/ is a file": ("operator", lambda p: p.write_text("x"), "is a file, not a folder"),
    "operator/ is a dangling link": (
        "operator",
        lambda p: p.symlink_to(p.parent / "gone"),
        "is a dangling symbolic link, not a folder",
    ),
    "the record is a folder": ("operator/1.0.0.yaml", Path.mkdir, "is a folder; the record is written as"),
    "the record is a FIFO": ("operator/1.0.0.yaml", _fifo, "is a FIFO; the record is written as"),
}


@pytest.mark.parametrize("case", list(OUTPUTS))
def test_an_output_that_cannot_be_written_is_one_line_before_git(
    case: str, run_line: Run, tmp_path: Path
) -> None:
    below, make, needle = OUTPUTS[case]
    out = tmp_path / "out"
    target = out / below if below else out
    target.parent.mkdir(parents=True, exist_ok=True)
    make(target)
    # the repository does not even exist: the output is refused before git is asked anything
    result = _import(run_line, tmp_path / "no-such-repository", out)
    _refused(result, f"{target}: ", needle)


# ------------------------------------------------------------------------------------------ sizes


def test_the_sources_together_are_held_to_64_mib_from_the_object_headers(
    run_line: Run, tmp_path: Path
) -> None:
    """Five 14 MiB manifests compress to a few KiB in git; their sizes are refused before any is read."""
    big = b"x: " + b"a" * (14 * MIB) + b"\n"
    manifests: Tree = {b"kueue-operator.clusterserviceversion.yaml": CSV}
    manifests.update({f"m{i}.yaml".encode(): big[:-2] + str(i).encode() + b"\n" for i in range(5)})
    repo = _repo(tmp_path, minimal_sources(manifests=manifests))
    tracemalloc.start()
    try:
        result = _import(run_line, repo, tmp_path / "out")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _refused(result, "main:bundle/manifests/m4.yaml", "over 67,108,864 bytes")
    assert peak < 20 * MIB, f"{peak:,} bytes traced: the blobs were read before their sizes were checked"
    assert not (tmp_path / "out").exists()


def test_one_file_is_held_to_16_mib(run_line: Run, tmp_path: Path) -> None:
    manifests: Tree = {b"kueue-operator.clusterserviceversion.yaml": CSV, b"big.yaml": b"#" * (17 * MIB)}
    result = _import(run_line, _repo(tmp_path, minimal_sources(manifests=manifests)), tmp_path / "out")
    _refused(result, "main:bundle/manifests/big.yaml: 17,825,792 bytes is over the 16,777,216-byte limit")


def test_too_many_manifests_are_refused(run_line: Run, tmp_path: Path) -> None:
    manifests: Tree = {f"m{i:04}.yaml".encode(): ROLE for i in range(1001)}
    manifests[b"kueue-operator.clusterserviceversion.yaml"] = CSV
    result = _import(run_line, _repo(tmp_path, minimal_sources(manifests=manifests)), tmp_path / "out")
    _refused(result, "main:bundle/manifests: 1,002 manifests, over the limit of 1,000")


def test_the_record_written_is_held_to_16_mib(run_line: Run, tmp_path: Path) -> None:
    """Two 9 MiB manifests read within the budget, but their record would be 18 MiB: refused, not written."""
    manifests: Tree = {b"kueue-operator.clusterserviceversion.yaml": CSV}
    for name in (b"a.yaml", b"b.yaml"):
        manifests[name] = ROLE + b"data: " + b"b" * (9 * MIB) + b"\n"
    result = _import(run_line, _repo(tmp_path, minimal_sources(manifests=manifests)), tmp_path / "out")
    _refused(result, "the record would be longer than 16,777,216 characters")
    assert not (tmp_path / "out").exists()


def test_a_substitution_cannot_blow_the_csv_up(run_line: Run, tmp_path: Path) -> None:
    dockerfile = (
        b"ARG OP=reg.example/op:latest\n"
        b"RUN X=$(jq -r '.[] | select(.name == \"operator\") | .image' /r.json) && "
        b'sed -i "s|${OP}.*|${X}|g" /m/csv.yaml\n'
    )
    related = b'[{"name": "operator", "image": "' + b"i" * 4096 + b'"}]'
    csv = CSV + b"  images: |\n" + b"    reg.example/op:latest\n" * 5000
    tree = minimal_sources(
        manifests={b"kueue-operator.clusterserviceversion.yaml": csv},
        **{"bundle.Dockerfile": dockerfile, "related_images.json": related},
    )
    result = _import(run_line, _repo(tmp_path, tree), tmp_path / "out")
    _refused(result, "makes the CSV longer than 16,777,216 characters")


# ------------------------------------------------------- the same repository policy for Kueue's repository


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["upstream", "import", "--ref", "v0.11.9"], "git's ext:: transport is not allowed"),
        (["bundle", "build", "--version", "0.3.0", "--stream", "experimental", "--upstream"], "git's ext::"),
    ],
    ids=["upstream-import", "bundle-build"],
)
def test_kueue_repository_arguments_follow_the_same_policy(
    args: list[str], needle: str, run_line: Run, tmp_path: Path
) -> None:
    """`upstream import --repo` and `bundle build --upstream` refuse git's command-running transports too."""
    marker = tmp_path / "pwned"
    spec = f"ext::sh -c touch% {marker}"
    full = [*args, spec] if args[-1] == "--upstream" else [*args, "--repo", spec]
    result = run_line([*full, "--streams-dir", REPO_ROOT / "streams"] if args[0] == "bundle" else full)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert not marker.exists()


def test_kueue_clone_cache_that_is_a_file_is_one_line(run_line: Run, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / "releasekit").mkdir(parents=True)
    (cache / "releasekit" / "upstream").write_text("x")
    result = run_line(
        ["upstream", "import", "--repo", "https://example.invalid/kueue.git", "--ref", "v0.11.9"],
        env={"XDG_CACHE_HOME": str(cache)},
    )
    _refused(result, f"{cache / 'releasekit' / 'upstream'} is not a folder")
