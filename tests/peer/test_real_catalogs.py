"""Every package folder of the real catalogs in ``shared/fixtures/real-catalogs`` validates clean.

opm validates each of these folders as it stands, so releasekit must find no error in any package.
Each catalog folder is loaded once (module-scoped fixture) and every package folder is one test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from releasekit.io.fbc_load import LoadResult, load_catalog
from releasekit.model.finding import Finding, Severity
from releasekit.rules.fbc import validate_config
from tests.conftest import require_shared, shared_root

pytestmark = [pytest.mark.shared, pytest.mark.slow]

CATALOGS = (
    "community-operators-prod/v4.16",
    "community-operators-prod/v4.20",
    "certified-operators/v4.14",
)


def _package_params() -> list[object]:
    params: list[object] = []
    for catalog in CATALOGS:
        root = shared_root() / "fixtures" / "real-catalogs" / catalog
        names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        if not names:
            params.append(pytest.param(catalog, "", id=f"{catalog}/(missing)"))
        params.extend(pytest.param(catalog, name, id=f"{catalog}/{name}") for name in names)
    return params


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, tuple[LoadResult, tuple[Finding, ...]]]]:
    """catalog -> (load result, validation findings), each catalog loaded and validated once."""
    cache: dict[str, tuple[LoadResult, tuple[Finding, ...]]] = {}
    yield cache


def _get(
    cache: dict[str, tuple[LoadResult, tuple[Finding, ...]]], catalog: str
) -> tuple[LoadResult, tuple[Finding, ...]]:
    if catalog not in cache:
        loaded = load_catalog(require_shared("real-catalogs", catalog))
        cache[catalog] = (loaded, validate_config(loaded.config))
    return cache[catalog]


@pytest.mark.parametrize(("catalog", "package"), _package_params())
def test_package_folder_validates(
    validated: dict[str, tuple[LoadResult, tuple[Finding, ...]]], catalog: str, package: str
) -> None:
    loaded, findings = _get(validated, catalog)
    assert package, f"{catalog} has no package folders"
    prefix = str(require_shared("real-catalogs", catalog, package)) + "/"
    mine = [f for f in (*loaded.findings, *findings) if f.location.file.startswith(prefix)]
    errors = [f"{f.rule} {f.location}: {f.message}" for f in mine if f.severity is Severity.ERROR]
    assert errors == []
    assert any(f.startswith(prefix) for f in loaded.files), f"nothing loaded from {prefix}"


@pytest.mark.parametrize("catalog", CATALOGS)
def test_whole_catalog_has_no_error(
    validated: dict[str, tuple[LoadResult, tuple[Finding, ...]]], catalog: str
) -> None:
    loaded, findings = _get(validated, catalog)
    assert [f for f in (*loaded.findings, *findings) if f.severity is Severity.ERROR] == []
    assert loaded.config.packages and loaded.config.bundles
