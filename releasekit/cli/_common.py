"""What every command shares: options, emitting a report, refusals and the exit codes of the contract.

0 no error findings; 1 error findings; 2 input that cannot be read, bad usage, or a safety limit (one line).
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from releasekit.errors import InputError, ReleasekitError, one_line, printable
from releasekit.report import REPORTERS, get_reporter, source_epoch  # light: the format names --help shows

if TYPE_CHECKING:
    from releasekit.model.report import Report

__all__ = [
    "EXIT_ERRORS",
    "EXIT_INPUT",
    "EXIT_OK",
    "Stopped",
    "check_output",
    "emit_report",
    "format_option",
    "format_options",
    "opm_format_option",
    "output_option",
    "streams_dir_option",
    "templates_dir_option",
    "progress",
    "write_konflux_error",
    "write_output",
]

_VERBOSITY = "releasekit.verbosity"
_RULES_URL = "releasekit.rules_url"

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_INPUT = 2

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def streams_dir_option(
    text: str = "The streams/ folder to read.", *, folder: bool = True
) -> Callable[[F], F]:
    """``--streams-dir`` (default ``streams``); ``folder``: a file there is refused."""
    return click.option(
        "--streams-dir",
        "streams_dir",
        type=click.Path(file_okay=not folder, path_type=Path),
        default=Path("streams"),
        show_default=True,
        help=text,
    )


def format_option(*choices: str, default: str = "", text: str | None = "Output format.") -> Callable[[F], F]:
    """``--format`` of a command that writes a document, not a report (default: the first of ``choices``)."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choices),
        default=default or choices[0],
        show_default=True,
        help=text,
    )


def opm_format_option(opm: str) -> Callable[[F], F]:
    """``--format``/``-o`` (``--output``, the old name) of a command that writes what ``opm`` writes."""
    return click.option(
        "--format",
        "-o",
        "--output",
        "output_format",
        type=click.Choice(["json", "yaml"]),
        default="json",
        show_default=True,
        help=f"Output format, as {opm} -o (--output is the old name, kept as an alias).",
    )


def output_option(func: F) -> F:
    """Add ``--output`` for a command that writes a document, not a report."""
    return click.option(
        "--output",
        "output",
        type=click.Path(dir_okay=False, writable=True, path_type=Path),
        default=None,
        help="Write to this file instead of standard output.",
    )(func)


class Stopped(click.ClickException):
    """The command could not run: click's one ``Error:`` line on stderr, exit 2 (Konflux still gets its object)."""

    exit_code = EXIT_INPUT


def templates_dir_option(func: F) -> F:
    """Add ``--templates-dir`` (default ``bundle-templates``)."""
    return click.option(
        "--templates-dir",
        "templates_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("bundle-templates"),
        show_default=True,
        help="The bundle templates folder.",
    )(func)


_REPORT_OPTIONS = (
    click.option(
        "--format",
        "fmt",
        type=click.Choice(list(REPORTERS)),
        default="text",
        show_default=True,
        help="Report format.",
    ),
    click.option(
        "--output",
        "output",
        type=click.Path(path_type=Path),  # checked by check_output: one line, exit 2
        default=None,
        help="Write the report to this file instead of standard output.",
    ),
    click.option("-v", "--verbose", count=True, help="Show more in text output (-v: also the notes)."),
    click.option("-q", "--quiet", count=True, help="Show less in text output (-q: errors only)."),
    click.option(
        "--rules-url",
        "rules_url",
        default=None,
        metavar="URL",
        help="Where SARIF's helpUri links point: the rule reference (default: the repository's docs/rules.md).",
    ),
)


def format_options(command: F) -> F:
    """Add ``--format``, ``--output``, ``-v``/``-q`` and ``--rules-url``; exit with the code the command returns."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        verbose, quiet = kwargs.pop("verbose", 0), kwargs.pop("quiet", 0)
        meta = click.get_current_context().meta
        meta[_VERBOSITY] = 1 + verbose - quiet
        meta[_RULES_URL] = kwargs.pop("rules_url", None)
        check_output(kwargs.get("output"))
        try:
            code = command(*args, **kwargs)
        except ReleasekitError as exc:
            if kwargs.get("fmt") == "konflux":
                write_konflux_error(one_line(exc), kwargs.get("output"))
            elif kwargs.get("fmt") == "json":
                _write_refusal(one_line(exc), kwargs.get("output"))
            raise  # LazyGroup writes the one line (and turns a RecursionError into one)
        except Stopped as exc:
            if kwargs.get("fmt") == "konflux":
                write_konflux_error(exc.message, kwargs.get("output"))
            raise
        click.get_current_context().exit(code)

    func: Any = wrapper
    for option in reversed(_REPORT_OPTIONS):  # --help lists them in this order
        func = option(func)
    return cast(F, func)


def check_output(output: Path | None) -> None:
    """Refuse an ``--output`` that cannot be written before the command runs (missing folders are made later)."""
    if output is None:
        return
    shown = printable(str(output))
    try:
        st = output.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:  # a path through a file, a symlink loop
        raise InputError(f"{shown}: cannot write: {exc.strerror or exc}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{shown}: is a folder; --output names a file")
        if not os.access(output, os.W_OK):
            raise InputError(f"{shown}: cannot write: permission denied")
        return
    folder = output.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{shown}: cannot write: {printable(str(folder))} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{shown}: cannot write: permission denied in {printable(str(folder))}")


def progress(items: Sequence[T], label: str, *, enabled: bool = True) -> Iterator[T]:
    """Iterate ``items`` with a progress bar on stderr when it is a terminal (never in a pipe or CI log)."""
    if not enabled or len(items) < 2 or not sys.stderr.isatty():
        yield from items
        return
    with click.progressbar(items, label=label, file=sys.stderr, show_pos=True) as bar:
        yield from bar


REFUSAL_RULE = "RK-FBC-054"
"""The finding a ``--format json`` report carries when the input was refused (the command exits 2)."""

_WHERE = re.compile(r"^(?P<file>[^\s:][^:]*?)(?::(?P<line>\d+))?: (?P<message>.+)$")


def _write_refusal(message: str, output: Path | None) -> None:
    """The JSON report of a refused input: one RK-FBC-054 error naming the file and line the message names."""
    from releasekit.model.finding import Finding, Location, Severity
    from releasekit.model.report import Report

    match = _WHERE.match(message)
    location = (
        Location(file=match["file"], line=int(match["line"]) if match["line"] else None)
        if match
        else Location(file="")
    )
    finding = Finding(
        rule=REFUSAL_RULE,
        severity=Severity.ERROR,
        message=message,
        location=location,
        hint="the input cannot be read or is refused by a safety limit; fix it and run again",
    )
    command = click.get_current_context().command_path.removeprefix("releasekit ")
    report = Report(command=command, findings=(finding,), rules=(REFUSAL_RULE,))
    write_output(get_reporter("json").render(report), output)


def write_konflux_error(message: str, output: Path | None) -> None:
    """Konflux still gets its TEST_OUTPUT object (``result: ERROR``) when the command exits 2."""
    from releasekit.report.konflux import konflux_error

    write_output(konflux_error(message, source_epoch()), output)


def write_output(text: str, output: Path | None) -> None:
    """Write ``text`` to ``output`` (a FIFO or device is written into, a regular file atomically), or stdout."""
    if output is None:
        click.echo(text, nl=False)
        return
    from releasekit.io.atomic import write_output as write_file

    write_file(output, text.encode("utf-8", "backslashreplace"))  # a name that is not UTF-8 never stops it


def emit_report(report: Report, fmt: str, output: Path | None, unchanged: str = "") -> int:
    """Render ``report`` in ``fmt``, write it, then the line ``unchanged`` on stderr; return the exit code."""
    color = fmt == "text" and output is None and sys.stdout.isatty()
    meta = click.get_current_context().meta  # format_options put -v/-q and --rules-url there
    if fmt == "sarif":
        from releasekit.jobs.rule_docs import all_rule_docs
        from releasekit.report.sarif import DEFAULT_RULES_URL, SarifReporter

        url = meta[_RULES_URL] or DEFAULT_RULES_URL
        write_output(SarifReporter(docs=all_rule_docs(), rules_url=url).render(report), output)
    else:
        write_output(get_reporter(fmt, color=color, verbosity=meta[_VERBOSITY]).render(report), output)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt == "github" and summary:
        with Path(summary).open("a", encoding="utf-8") as handle:  # appended, as GitHub expects
            handle.write(get_reporter("markdown").render(report))
    if unchanged:
        click.echo(unchanged, err=True)
    if fmt == "konflux":
        return EXIT_OK
    return EXIT_OK if report.passed else EXIT_ERRORS
