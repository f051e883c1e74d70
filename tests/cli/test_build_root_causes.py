"""One mistake, one finding: a release with a stream error is reported at its line, not again per catalog."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.cli.conftest import release_1_4_2


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_short_digest_is_one_error_at_the_stream_line(
    run_line: Callable[..., Result], repo_copy: Path
) -> None:
    stable = repo_copy / "streams" / "stable.yaml"
    stable.write_text(stable.read_text() + release_1_4_2(status="released", bundle_digest="sha256:12345"))
    before = _snapshot(repo_copy / "catalog")
    result = run_line(["build", "--format", "json"])
    assert result.exit_code == 1
    errors = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["location"]["file"]) for f in errors] == [("RK-STREAM-010", "streams/stable.yaml")]
    assert _snapshot(repo_copy / "catalog") == before  # nothing written, nothing pointed at
