"""Compiled twins of the loader's hottest loops, when the optional extension was built.

Adapter module. :mod:`releasekit.io._speedups` (C, built at install time when a compiler is there; an
install without one still works) walks a parsed YAML document for :mod:`releasekit.io.fbc_load`, and
screens YAML bytes and bounds JSON brackets for :mod:`releasekit.io.inputs`, two to five times faster
than their pure-Python twins. Those stay the reference: each caller falls back to its own twin when the
attribute here is ``None``, and the tests hold the two equal on generated and real input.

``RELEASEKIT_PURE_PYTHON=1`` in the environment turns the extension off (to compare the two).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["bracket_bound", "screen", "yaml11_risk"]

yaml11_risk: Callable[[Any, frozenset[str], Callable[[str], bool]], int] | None = None
screen: Callable[[bytes, bytes, int], tuple[int, bool, int, bool, bool]] | None = None
bracket_bound: Callable[[bytes], int] | None = None

if not os.environ.get("RELEASEKIT_PURE_PYTHON"):
    try:
        from releasekit.io import _speedups
    except ImportError:  # not built: the pure-Python twins do the work
        pass
    else:
        yaml11_risk = _speedups.yaml11_risk
        screen = _speedups.screen
        bracket_bound = _speedups.bracket_bound
