"""``catalog render`` / ``catalog template`` write exactly the bytes opm writes (shared/fixtures/real-catalogs/opm-render).

Each case is one line of that folder's README: the command opm ran and the file it wrote.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

MIGRATE = "bundle-object-to-csv-metadata"

# (expected file, releasekit args relative to real-catalogs/, with {cop} = community-operators-prod)
CASES = [
    ("v4.20-coherence-operator.json", ["catalog", "render", "-o", "json", "{cop}/v4.20/coherence-operator"]),
    ("v4.20-cat-facts-operator.json", ["catalog", "render", "-o", "json", "{cop}/v4.20/cat-facts-operator"]),
    ("v4.20-cat-facts-operator.yaml", ["catalog", "render", "-o", "yaml", "{cop}/v4.20/cat-facts-operator"]),
    ("v4.16-coherence-operator.json", ["catalog", "render", "-o", "json", "{cop}/v4.16/coherence-operator"]),
    (
        "v4.16-coherence-operator.migrated.json",
        ["catalog", "render", "-o", "json", "--migrate-level", MIGRATE, "{cop}/v4.16/coherence-operator"],
    ),
    *[
        (
            f"template-basic-{pkg}.v4.20.json",
            [
                "catalog",
                "template",
                "basic",
                "-o",
                "json",
                f"{{tpl}}/{pkg}/basic.yaml",
                "--bundles",
                f"{{cop}}/v4.20/{pkg}",
            ],
        )
        for pkg in ("coherence-operator", "cat-facts-operator", "alloydb-omni-operator")
    ],
    (
        "template-semver-clusterpulse.v4.20.json",
        [
            "catalog",
            "template",
            "semver",
            "-o",
            "json",
            "{tpl}/clusterpulse/semver.yaml",
            "--bundles",
            "{cop}/v4.20/clusterpulse",
        ],
    ),
]


def _args(shared: Callable[..., Path], args: list[str]) -> list[str]:
    cop = str(shared("real-catalogs", "community-operators-prod"))
    tpl = str(shared("real-catalogs", "community-operators-prod-templates"))
    return [a.format(cop=cop, tpl=tpl) for a in args]


@pytest.mark.shared
@pytest.mark.parametrize(("expected", "args"), CASES, ids=[c[0] for c in CASES])
def test_byte_identical_to_opm(shared: Callable[..., Path], run_line, expected: str, args: list[str]) -> None:
    want = shared("real-catalogs", "opm-render", expected).read_bytes()
    result = run_line(_args(shared, args))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    got = result.stdout_bytes
    if got != want:  # a short diff instead of two multi-megabyte strings
        import difflib

        diff = difflib.unified_diff(
            want.decode().splitlines(), got.decode().splitlines(), "opm", "releasekit", lineterm="", n=1
        )
        pytest.fail("\n".join(list(diff)[:40]))


@pytest.mark.shared
def test_clusterpulse_basic_names_the_unresolvable_image(shared: Callable[..., Path], run_line) -> None:
    args = _args(
        shared,
        ["catalog", "template", "{tpl}/clusterpulse/basic.yaml", "--bundles", "{cop}/v4.20/clusterpulse"],
    )
    result = run_line(args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert (
        'cannot resolve bundle image "quay.io/community-operator-pipeline-prod/clusterpulse:0.1.0"'
        in result.stderr
    )
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
