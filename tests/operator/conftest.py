"""A temporary kueue-operator git repository built from ``shared/fixtures/kueue-operator/bundle/``.

One commit per released version, laid out as the operator repository is (``bundle/manifests/``,
``bundle/metadata/``, ``bundle.Dockerfile`` and ``related_images.json`` at the root), tagged ``v<version>``.
The published 1.0.1 and 1.4.1 are the ``+53cd1542`` and ``+d745bcd4`` folders (see the fixtures' README).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import git
import pytest

from tests.cli.test_bundle_build import commit_all
from tests.conftest import require_shared

RELEASED = ("0.1.0", "0.2.0", "0.2.1", "1.0.0", "1.0.1", "1.1.0", "1.2.0", "1.3.0", "1.3.1", "1.4.0", "1.4.1")
PUBLISHED_DIR = {"1.0.1": "v1.0.1+53cd1542", "1.4.1": "v1.4.1+d745bcd4"}


def published_dir(version: str) -> Path:
    """The fixture folder of the published bundle of ``version`` (read in place)."""
    return require_shared("kueue-operator", "bundle", PUBLISHED_DIR.get(version, f"v{version}"))


def lay_out(source: Path, root: Path) -> None:
    """Replace the bundle sources in the work tree ``root`` by those of fixture folder ``source``."""
    for stale in ("bundle", "bundle.Dockerfile", "related_images.json"):
        target = root / stale
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    (root / "bundle" / "manifests").mkdir(parents=True)
    (root / "bundle" / "metadata").mkdir(parents=True)
    for item in sorted((source / "manifests").iterdir()):
        (root / "bundle" / "manifests" / item.name).write_bytes(item.read_bytes())
    (root / "bundle" / "metadata" / "annotations.yaml").write_bytes(
        (source / "metadata" / "annotations.yaml").read_bytes()
    )
    for name in ("bundle.Dockerfile", "related_images.json"):
        if (source / name).is_file():
            (root / name).write_bytes((source / name).read_bytes())


def make_operator_repo(root: Path, versions: tuple[str, ...] = RELEASED) -> git.Repo:
    """The temporary operator repository: one commit per version, tagged ``v<version>``."""
    repo = git.Repo.init(root)
    for version in versions:
        lay_out(published_dir(version), root)
        commit_all(repo, f"kueue-operator {version}")
        repo.create_tag(f"v{version}")
    return repo


@pytest.fixture(scope="session")
def operator_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary operator repository (shared; tests that change it copy it)."""
    root = tmp_path_factory.mktemp("operator") / "kueue-operator"
    make_operator_repo(root)
    return root
