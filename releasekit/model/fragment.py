"""One catalog fragment (``catalog/v<X.Y>``) as found on disk or as planned: what the Konflux rules judge.

Pure core: no I/O. :mod:`releasekit.io.catalog_tree` and the planners build it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from releasekit.model.fbc import DeclarativeConfig

__all__ = ["FragmentFacts"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FragmentFacts:
    """One catalog fragment as found on disk (or planned).

    ``containerfile`` is None when there is none; ``package_files`` holds ``(package folder, file name,
    displayed path)`` for each file under the FBC root.
    """

    folder: str
    folder_path: str
    containerfile: str | None
    containerfile_path: str = ""
    package_files: tuple[tuple[str, str, str], ...] = ()
    config: DeclarativeConfig = field(default_factory=DeclarativeConfig)
