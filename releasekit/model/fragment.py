"""One catalog fragment (``catalog/v<X.Y>``) as found on disk or as planned: what the Konflux rules judge.

Pure core: no I/O. The tree reader (:mod:`releasekit.io.catalog_tree`) and the planners build it;
:mod:`releasekit.rules.konflux` checks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from releasekit.model.fbc import DeclarativeConfig

__all__ = ["FragmentFacts"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FragmentFacts:
    """One catalog fragment as found on disk (or planned).

    Attributes:
        folder: the fragment folder's name (``v4.18``) and ``folder_path`` its displayed path.
        containerfile: the Containerfile text, or None when there is none; ``containerfile_path`` its path.
        package_files: ``(package folder, file name, displayed path)`` for each file under the FBC root.
        config: the loaded FBC of the fragment.
    """

    folder: str
    folder_path: str
    containerfile: str | None
    containerfile_path: str = ""
    package_files: tuple[tuple[str, str, str], ...] = ()
    config: DeclarativeConfig = field(default_factory=DeclarativeConfig)
