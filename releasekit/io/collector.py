"""How loading big catalogs treats Python's cyclic garbage collector.

Adapter module. Loading makes millions of objects and no reference cycles, and the collector's passes
over them cost more than the parsing, so it is paused while a catalog loads (:func:`paused`). When it
resumes, everything loaded is still in its youngest generation, and the first pass afterwards walks all
of it; :func:`gc.freeze` avoids that by taking every live object out of the collector's view.

Freezing is right for a process that ends soon after loading (the CLI turns it on with
:func:`freeze_after_loading`), and wrong for a long-lived caller: whatever was alive at that moment,
the caller's own objects included, is never looked at again, so any of it that later becomes cyclic
garbage is never freed. Library callers therefore get the pause without the freeze unless they ask.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["freeze_after_loading", "paused"]

_freeze = False


def freeze_after_loading(enabled: bool = True) -> None:
    """Whether :func:`paused` ends by freezing what is alive (:func:`gc.freeze`); off until turned on."""
    global _freeze
    _freeze = enabled


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Pause the cyclic collector while loading; resume it afterwards (freezing first if asked to)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if _freeze:
                gc.freeze()
            gc.enable()
