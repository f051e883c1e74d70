"""One catalog fragment (``catalog/v<X.Y>``) as found on disk or as planned: what the Konflux rules judge."""

from __future__ import annotations

from dataclasses import dataclass, field

from releasekit.model.fbc import DeclarativeConfig

__all__ = ["FragmentFacts"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FragmentFacts:
    """One catalog fragment as found on disk (or planned)."""

    folder: str
    folder_path: str
    containerfile: str | None
    containerfile_path: str = ""
    package_files: tuple[tuple[str, str, str], ...] = ()
    config: DeclarativeConfig = field(default_factory=DeclarativeConfig)
