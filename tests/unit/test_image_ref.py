"""Image pull specs: the reference grammar must not backtrack exponentially (a ReDoS guard).

Go matches this grammar with RE2 in linear time; a Python regex with an optional separator between
alphanumeric runs backtracks exponentially on a reference that does not match, which hung
``catalog build --candidates`` on ``quay.io/...:candidate``. The check runs in a child process so a
regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from releasekit.rules.fbc import image_pull_spec_error

HARD = [
    "quay.io/redhat-user-workloads/kueue-operator-tenant/kueue-bundle-experimental:candidate",
    "quay.io/" + "a" * 60 + "-" * 3 + "!",
    "quay.io/" + "ab-" * 40 + "/C",
    "x" * 200 + ":" + "y" * 130,
    "index.docker.io.index.docker.io.",
    "a." * 30 + "-",
    "x.y/" + "a-" * 50 + "!",
]


def test_pathological_references_answer_quickly() -> None:
    code = (
        "from releasekit.rules.fbc import image_pull_spec_error\n"
        f"for ref in {HARD!r}:\n"
        "    image_pull_spec_error(ref)\n"
        "import random\n"
        "rng = random.Random(7)\n"
        "for _ in range(3000):\n"
        "    image_pull_spec_error(''.join(rng.choice('ab1.-_:/@A') for _ in range(rng.randint(1, 64))))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)


@pytest.mark.parametrize(
    ("ref", "error"),
    [
        ("quay.io/a--b/c:tag", None),
        ("quay.io/a__b/c", None),
        ("quay.io/a___b/c", "invalid reference format"),
        ("quay.io/-a/b", "invalid reference format"),
        ("Quay.io/A/b", "invalid reference format: repository name must be lowercase"),
        ("registry.redhat.io/kueue/kueue-rhel9@sha256:" + "a" * 64, None),
        ("registry.redhat.io/kueue/kueue-rhel9@md5:" + "a" * 32, "unsupported digest algorithm"),
    ],
)
def test_grammar_is_unchanged(ref: str, error: str | None) -> None:
    assert image_pull_spec_error(ref) == error
