"""Property (issue 23): every file releasekit did not write survives a write byte for byte.

Drives the write layer a build ends in -- :func:`write_tree_atomic` (``writes: tree``) and :func:`write_files`
(``writes: files``) -- with random trees: files releasekit wrote (listed in its marker) and files it did not
(at various depths, names starting with ``v`` among them), and random sets of generated files laid out as
each layout lays them out (same bytes, other bytes, new paths). Whether a file is tracked by git makes no
difference at this layer (nothing here asks git), which is the point: only the marker says what is
releasekit's. The end-to-end builds are in ``test_ownership.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path, PurePosixPath

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from releasekit.errors import InputError, SafetyLimitError
from releasekit.io.atomic import MARKER, write_files, write_tree_atomic
from releasekit.model.layout import DEFAULT_LAYOUT, KUEUE_FBC_LAYOUT, CatalogLayout

LAYOUTS = {
    "releasekit": DEFAULT_LAYOUT,
    "kueue-fbc": KUEUE_FBC_LAYOUT,
    "custom": CatalogLayout(name="custom", root="deploy", fbc_dir="fbc", containerfile="Dockerfile"),
}
NAMES = ["v4.18", "v4.19", "vendor", "values.yaml", "vault", "configs", "catalog", "fbc", "notes.md", "x"]
PACKAGES = ["kueue-operator", "other"]


def generated_paths(layout: CatalogLayout) -> list[PurePosixPath]:
    return [
        path
        for openshift in ("v4.18", "v4.19")
        for path in (
            layout.containerfile_path(openshift),
            *(layout.catalog_file(openshift, p) for p in PACKAGES),
        )
    ]


@st.composite
def scenarios(
    draw: st.DrawFn,
) -> tuple[str, str, dict[PurePosixPath, tuple[bytes, bool]], dict[PurePosixPath, bytes], bool]:
    layout_name = draw(st.sampled_from(sorted(LAYOUTS)))
    mode = draw(st.sampled_from(["tree", "files"]))
    layout = LAYOUTS[layout_name]
    shapes = generated_paths(layout)
    random_paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map(lambda p: PurePosixPath(*p))
    candidates = draw(st.lists(st.one_of(st.sampled_from(shapes), random_paths), max_size=10, unique=True))
    existing: dict[PurePosixPath, tuple[bytes, bool]] = {}
    for path in candidates:  # a tree: no file where another needs a folder
        if any(path in other.parents or other in path.parents for other in existing):
            continue
        existing[path] = (draw(st.sampled_from([b"a", b"b", b"theirs\n"])), draw(st.booleans()))
    wanted = draw(st.lists(st.sampled_from(shapes), max_size=len(shapes), unique=True))
    files = {path: draw(st.sampled_from([b"a", b"b", b"new\n"])) for path in wanted}
    return layout_name, mode, existing, files, draw(st.booleans())


def snapshot(root: Path) -> dict[PurePosixPath, bytes]:
    return {
        PurePosixPath(p.relative_to(root).as_posix()): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "releasekit-lock" not in p.name
    }


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_files_releasekit_did_not_write_survive_every_write(
    scenario: tuple[str, str, dict[PurePosixPath, tuple[bytes, bool]], dict[PurePosixPath, bytes], bool],
) -> None:
    layout_name, mode, existing, files, with_marker = scenario
    layout = LAYOUTS[layout_name]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo" / "out"
        root.mkdir(parents=True)
        for path, (data, _mine) in existing.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        listed = {path for path, (_data, mine) in existing.items() if mine}
        if with_marker:
            (root / MARKER).write_text("# marker\n" + "".join(f"{p}\n" for p in sorted(map(str, listed))))
        else:
            listed = set()
        before = snapshot(root)
        foreign = {path: data for path, (data, _mine) in existing.items() if path not in listed}
        try:
            if mode == "tree":
                write_tree_atomic(root, files, owned=layout.owns)
            else:
                write_files(root, files)
        except (SafetyLimitError, InputError):
            assert snapshot(root) == before  # refused: nothing written at all
            return
        after = snapshot(root)
        for path, data in foreign.items():
            assert after.get(path) == data, f"{path} (not releasekit's) was lost or changed"
        for path, data in files.items():
            assert after[path] == data
        for path in listed - set(files):
            assert (path in after) == (mode == "files"), path  # a tree build removes what it no longer writes
        marker = set((root / MARKER).read_text().splitlines())
        assert {str(path) for path in files} <= marker
        assert not marker & {str(path) for path in foreign if path not in files}
