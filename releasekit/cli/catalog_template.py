"""``releasekit catalog template [basic|semver] FILE``: render a catalog template as current opm does.

Thin click layer over :mod:`releasekit.plan.template_basic` and :mod:`releasekit.plan.template_semver`.
Bundle images are resolved from ``--bundles DIR`` (registry+v1 bundle directories, or ``olm.bundle``
objects in FBC files; see :mod:`releasekit.io.bundle_source`) instead of being pulled; each resolved
bundle gets opm's render post-processing and ``--migrate-level``.

Exit codes: 0 rendered; 1 the template's content is rejected (opm's own error text: wrong schema,
unknown field, bundle versions that cannot be ordered, ...); 2 the input cannot be read — the file,
``--bundles``, or a bundle image that nothing under ``--bundles`` provides (the image is named) — or the
command line is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import click

from releasekit.cli._common import EXIT_ERRORS, EXIT_INPUT
from releasekit.errors import ReleasekitError, one_line
from releasekit.model.fbc import Bundle, DeclarativeConfig

__all__ = ["TemplateFailure", "TemplateInputFailure", "command"]

_TYPES = ("basic", "semver", "substitutes")


class TemplateFailure(click.ClickException):
    """The template's content is rejected: one line on stderr, exit 1."""

    exit_code = EXIT_ERRORS

    def show(self, file: object = None) -> None:  # noqa: ARG002 - click's signature
        click.echo(f"releasekit: error: {one_line(self.message)}", err=True)


class TemplateInputFailure(TemplateFailure):
    """The input cannot be read (file, --bundles, an unresolvable image) or is not supported: exit 2."""

    exit_code = EXIT_INPUT


def _no_bundles(image: str) -> list[Bundle]:
    from releasekit.io.bundle_source import UnresolvedImageError

    raise UnresolvedImageError(
        f'cannot resolve bundle image "{image}": releasekit does not pull images; '
        "pass --bundles DIR with its bundle directory or olm.bundle object"
    )


def _resolver(bundles_dir: Path | None, migrate_level: str | None) -> Callable[[str], Sequence[Bundle]]:
    from releasekit.io.bundle_source import load_bundle_source
    from releasekit.plan.migrate import migrate, prepare_for_render

    lookup = load_bundle_source(bundles_dir).resolve if bundles_dir is not None else _no_bundles

    def resolve(image: str) -> Sequence[Bundle]:
        config = DeclarativeConfig(bundles=tuple(lookup(image)))
        return migrate(prepare_for_render(config), migrate_level).bundles

    return resolve


@click.command("template")
@click.argument("args", nargs=-1, required=True, metavar="[basic|semver] FILE")
@click.option(
    "--bundles",
    "bundles_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder with registry+v1 bundle directories or FBC files whose olm.bundle objects stand in for images.",
)
@click.option(
    "--migrate-level", default=None, metavar="LEVEL", help="Run opm's migrations on rendered bundles."
)
@click.option(
    "-o", "--output", "output_format", type=click.Choice(["json", "yaml"]), default="json", show_default=True
)
def command(
    args: tuple[str, ...], bundles_dir: Path | None, migrate_level: str | None, output_format: str
) -> None:
    """Render an olm.template.basic or olm.semver template FILE like `opm alpha render-template`."""
    from releasekit.io.bundle_source import config_from_entries, read_first_document
    from releasekit.io.fbc_write import WriteError, render
    from releasekit.plan.migrate import MigrationError, stages_for_level
    from releasekit.plan.template_basic import (
        TemplateRenderError,
        basic_entries,
        detect_template_type,
        render_basic,
    )
    from releasekit.plan.template_semver import parse_semver, render_semver

    if len(args) > 2:
        raise click.UsageError("expected [basic|semver] FILE")
    kind = args[0] if len(args) == 2 else None
    if kind is not None and kind not in _TYPES:
        raise click.UsageError(f'unknown template type "{kind}"; valid types are basic, semver')
    path = Path(args[-1])
    try:
        stages_for_level(migrate_level)
        doc = read_first_document(path)
        if kind is None:
            kind = detect_template_type(doc)
        if kind == "substitutes":
            raise TemplateInputFailure("olm.template.substitutes templates are not supported by releasekit")
        resolve = _resolver(bundles_dir, migrate_level)
        if kind == "basic":
            entries, errors = config_from_entries(basic_entries(doc), str(path))
            if errors:
                raise TemplateRenderError(errors[0])
            config = render_basic(entries, resolve)
        else:
            config = render_semver(parse_semver(doc), resolve)
        text = render(config, output_format)
    except (TemplateRenderError, MigrationError) as exc:
        raise TemplateFailure(str(exc).replace("\n", " ")) from None
    except (ReleasekitError, WriteError) as exc:
        raise TemplateInputFailure(str(exc)) from None
    click.echo(text, nl=False)
