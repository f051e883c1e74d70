"""Shared test fixtures.

``shared`` is the one way tests reach ``../shared/fixtures`` (real data, read in place, never copied).
Outside CI a missing ``../shared`` skips those tests with a reason; under ``CI=true`` it fails them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("soak", max_examples=3000, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def usual_catalog(*extra_properties: dict[str, Any]) -> list[dict[str, Any]]:
    """A small valid catalog as JSON objects: package foo, channel alpha, bundle foo.v0.1.0 (whose
    properties are its olm.package and then ``extra_properties``)."""
    package_property = {"type": "olm.package", "value": {"packageName": "foo", "version": "0.1.0"}}
    return [
        {"schema": "olm.package", "name": "foo", "defaultChannel": "alpha"},
        {"schema": "olm.channel", "name": "alpha", "package": "foo", "entries": [{"name": "foo.v0.1.0"}]},
        {
            "schema": "olm.bundle",
            "name": "foo.v0.1.0",
            "package": "foo",
            "image": "quay.io/a/foo@sha256:" + "a" * 64,
            "properties": [package_property, *extra_properties],
        },
    ]


def shared_root() -> Path:
    """Where ``shared/`` is: ``$RELEASEKIT_SHARED`` or the folder beside the repository."""
    env = os.environ.get("RELEASEKIT_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"


def require_shared(*parts: str) -> Path:
    """Path inside ``shared/fixtures``; skip (or fail under CI=true) when it is absent."""
    path = shared_root().joinpath("fixtures", *parts)
    if not path.exists():
        reason = f"shared fixtures not found at {path}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true requires ../shared beside the repository)")
        pytest.skip(reason)
    return path


@pytest.fixture
def shared() -> Callable[..., Path]:
    """``shared("opm-testdata", "cases.yaml")`` -> the fixture path (skips/fails when absent)."""
    return require_shared


@pytest.fixture
def run_line() -> Callable[..., Result]:
    """Run ``releasekit`` in-process: ``run_line(["catalog", "validate", d])``; stdout/stderr apart."""
    from releasekit.cli import cli

    def _run(args: list[str], *, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        runner = CliRunner()
        return runner.invoke(cli, [str(a) for a in args], input=input, env=env, catch_exceptions=False)

    return _run
