"""``bundle validate`` counts the checks it ran: each validator's declared rules, held to what it reports."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from releasekit.io.bundle_load import load_bundle
from releasekit.model.bundle import ValidationOptions
from releasekit.rules.bundle import OPTIONAL_CHECKS, VALIDATOR_RULES, VALIDATORS

pytestmark = pytest.mark.shared


def _bundles(shared: Callable[..., Path]) -> list[Path]:
    cases = sorted(p for p in shared("bundle-testdata").iterdir() if p.is_dir())
    published = sorted(p for p in shared("kueue-operator", "bundle").iterdir() if p.is_dir())
    return cases + published


def test_every_validator_reports_only_the_rules_it_declares(shared: Callable[..., Path]) -> None:
    """Over every peer case and published bundle: a validator's findings name only its declared rules."""
    strays: set[tuple[str, str, str]] = set()
    for path in _bundles(shared):
        try:
            bundle = load_bundle(path)
        except Exception:  # noqa: BLE001 - a case the loader refuses outright has nothing to validate
            continue
        for name, validator in VALIDATORS.items():
            options = ValidationOptions(validators=(name,), release_checks=True)
            for finding in validator(bundle, options):
                if finding.rule not in VALIDATOR_RULES[name]:
                    strays.add((name, finding.rule, path.name))
    assert not strays, sorted(strays)[:20]


def test_a_valid_bundle_counts_the_checks_it_ran(
    run_line: Callable[..., Result], shared: Callable[..., Path]
) -> None:
    bundle = shared("kueue-operator", "bundle", "v1.2.0")
    plain = run_line(["bundle", "validate", bundle])
    assert plain.exit_code == 0, plain.stdout
    last = plain.stdout.strip().splitlines()[-1]
    assert " 0 checks run" not in last
    more = run_line(["bundle", "validate", bundle, "--optional-checks", ",".join(OPTIONAL_CHECKS)])

    def checks(text: str) -> int:
        return int(text.strip().splitlines()[-1].split("; ")[1].split(" check")[0])

    assert 0 < checks(plain.stdout) < checks(more.stdout)
