"""``releasekit catalog template [basic|semver] FILE``: render a catalog template as current opm does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from releasekit.errors import InputError, ReleasekitError
from releasekit.io.bundle_source import (
    UnresolvedImageError,
    config_from_entries,
    load_bundle_source,
    read_first_document,
)
from releasekit.io.fbc_write import WriteError, render
from releasekit.jobs.catalog_render import render_bundle_files
from releasekit.model.fbc import Bundle, DeclarativeConfig
from releasekit.plan.migrate import MigrationError, migrate, prepare_for_render, stages_for_level
from releasekit.plan.template_basic import (
    TemplateRenderError,
    basic_entries,
    detect_template_type,
    render_basic,
)
from releasekit.plan.template_semver import parse_semver, render_semver

__all__ = ["TEMPLATE_TYPES", "TemplateContentError", "render_template"]

TEMPLATE_TYPES = ("basic", "semver", "substitutes")


class TemplateContentError(ReleasekitError, ValueError):
    """The template's content is rejected, in opm's words (exit 1)."""


def _resolver(bundles_dir: Path | None, migrate_level: str | None) -> Callable[[str], Sequence[Bundle]]:
    source = load_bundle_source(bundles_dir, render_bundle_files) if bundles_dir is not None else None

    def resolve(image: str) -> Sequence[Bundle]:
        if source is None:
            raise UnresolvedImageError(
                f'cannot resolve bundle image "{image}": releasekit does not pull images; '
                "pass --bundles DIR with its bundle directory or olm.bundle object"
            )
        config = DeclarativeConfig(bundles=tuple(source.resolve(image)))
        return migrate(prepare_for_render(config), migrate_level).bundles

    return resolve


def render_template(
    path: Path, kind: str | None, bundles_dir: Path | None, migrate_level: str | None, output_format: str
) -> str:
    """The text ``opm alpha render-template [KIND] PATH -o FORMAT`` prints."""
    try:
        stages_for_level(migrate_level)
        doc = read_first_document(path)
        kind = detect_template_type(doc) if kind is None else kind
        if kind == "substitutes":
            raise InputError("olm.template.substitutes templates are not supported by releasekit")
        resolve = _resolver(bundles_dir, migrate_level)
        if kind == "basic":
            entries, errors = config_from_entries(basic_entries(doc), str(path))
            if errors:
                raise TemplateRenderError(errors[0])
            config = render_basic(entries, resolve)
        else:
            config = render_semver(parse_semver(doc), resolve)
        return render(config, output_format)
    except (TemplateRenderError, MigrationError) as exc:
        raise TemplateContentError(str(exc).replace("\n", " ")) from None
    except WriteError as exc:
        raise InputError(str(exc)) from None
