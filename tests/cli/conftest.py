"""What the command-line tests share: a copy of this repository's data to run commands in."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

D = "sha256:" + "4" * 64


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``streams/``, ``bundle-templates/`` and ``catalog/`` copied to a temporary folder, made the current one."""
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def release_1_4_2(*, status: str, bundle_digest: str = D) -> str:
    """A 1.4.2 entry for ``streams/stable.yaml`` (Kueue 0.18, every catalog, images pinned by ``D``)."""
    return f"""\
  - version: 1.4.2
    status: {status}
    upstream:
      line: "0.18"
      describe: v0.18.4-40-ge4ce3bcc
      inventory: kueue-v0.18.4-40-ge4ce3bcc
    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]
    bundle: registry.redhat.io/kueue/kueue-operator-bundle@{bundle_digest}
    images:
      operator: registry.redhat.io/kueue/kueue-rhel9-operator@{D}
      operand: registry.redhat.io/kueue/kueue-rhel9@{D}
      mustGather: registry.redhat.io/kueue/kueue-must-gather-rhel9@{D}
    createdAt: "2026-09-01T10:00:00Z"
"""
