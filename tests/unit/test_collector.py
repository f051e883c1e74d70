"""The loader pauses the garbage collector, and freezes what is alive only where the process asked."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from releasekit.io import collector


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    collector.freeze_after_loading(False)
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:  # pragma: no cover - pytest runs with the collector on
        gc.disable()


def test_a_library_caller_gets_the_pause_without_the_freeze() -> None:
    gc.enable()
    frozen = gc.get_freeze_count()
    with collector.paused():
        assert not gc.isenabled()
        kept = [[n] for n in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    assert kept


def test_a_process_that_asked_freezes_what_is_alive_after_loading() -> None:
    gc.enable()
    collector.freeze_after_loading()
    with collector.paused():
        kept = [[n] for n in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= 1000
    assert kept


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    collector.freeze_after_loading()
    frozen = gc.get_freeze_count()
    with collector.paused():
        pass
    assert not gc.isenabled()
    assert gc.get_freeze_count() == frozen
