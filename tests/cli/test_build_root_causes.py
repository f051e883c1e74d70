"""One mistake, one finding: a release with a stream error is reported at its line, not again per catalog."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import REPO_ROOT

GOOD = "sha256:" + "4" * 64
RELEASE = """\
  - version: 1.4.2
    status: released
    upstream:
      line: "0.18"
      describe: v0.18.4-40-ge4ce3bcc
      inventory: kueue-v0.18.4-40-ge4ce3bcc
    catalogs: [v4.18, v4.19, v4.20, v4.21, v4.22, v4.23, v5.0]
    bundle: registry.redhat.io/kueue/kueue-operator-bundle@{bundle}
    images:
      operator: registry.redhat.io/kueue/kueue-rhel9-operator@{good}
      operand: registry.redhat.io/kueue/kueue-rhel9@{good}
      mustGather: registry.redhat.io/kueue/kueue-must-gather-rhel9@{good}
    createdAt: "2026-09-01T10:00:00Z"
"""


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("streams", "bundle-templates", "catalog"):
        shutil.copytree(REPO_ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_short_digest_is_one_error_at_the_stream_line(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    stable = repo_copy / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + RELEASE.format(bundle="sha256:12345", good=GOOD))
    before = _snapshot(repo_copy / "catalog")
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    errors = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["location"]["file"]) for f in errors] == [("RK-STREAM-010", "streams/stable.yaml")]
    assert _snapshot(repo_copy / "catalog") == before  # nothing written, nothing pointed at
