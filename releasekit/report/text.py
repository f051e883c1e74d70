"""Human-readable findings for a terminal or a CI log.

Findings are grouped by subject as a ``├──`` tree (package → channel → bundle, as opm prints its
errors); each line gives severity, rule id, location and message, with the hint below it. Colour is
used only when asked for (the CLI asks when stdout is a terminal).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report

__all__ = ["TextReporter", "summary_line"]

_COLOURS = {Severity.ERROR: "\x1b[31m", Severity.WARNING: "\x1b[33m", Severity.INFO: "\x1b[36m"}
_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(report: Report) -> str:
    """One closing line: verdict and counts."""
    counts = report.counts
    parts = [_plural(counts[Severity.ERROR], "error"), _plural(counts[Severity.WARNING], "warning")]
    if counts[Severity.INFO]:
        parts.append(_plural(counts[Severity.INFO], "note"))
    verdict = "passed" if report.passed else "failed"
    checked = f" ({len(report.checked)} checked)" if report.checked else ""
    return f"{report.command}: {verdict}: {', '.join(parts)}{checked}"


@dataclass
class _Node:
    findings: list[Finding] = field(default_factory=list)
    children: dict[str, _Node] = field(default_factory=dict)


@dataclass(frozen=True)
class TextReporter:
    """Groups findings by subject and prints them as a tree.

    ``verbosity`` (``1 + verbose - quiet`` on the command line): 0 shows errors only, 1 errors and
    warnings, 2 and more also the notes. What is hidden is counted in the closing lines.
    """

    color: bool = False
    verbosity: int = 2

    def _paint(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text

    def _finding_lines(self, finding: Finding) -> list[str]:
        sev = self._paint(finding.severity.value, _COLOURS[finding.severity])
        where = str(finding.location)
        head = f"{sev} {finding.rule}: {where + ': ' if where else ''}{finding.message}"
        lines = head.split("\n")
        if finding.hint:
            lines.append(f"  hint: {finding.hint}")
        return lines

    def render(self, report: Report) -> str:
        """Return the grouped findings and the summary line."""
        root = _Node()
        shown_levels = {Severity.ERROR, Severity.WARNING, Severity.INFO}
        if self.verbosity <= 1:
            shown_levels.discard(Severity.INFO)
        if self.verbosity <= 0:
            shown_levels.discard(Severity.WARNING)
        hidden = [f for f in report.findings if f.severity not in shown_levels]
        for finding in report.sorted_findings:
            if finding.severity not in shown_levels:
                continue
            node = root
            for label in finding.subject:
                node = node.children.setdefault(label, _Node())
            node.findings.append(finding)
        out: list[str] = []
        self._emit(root, "", out, top=True)
        if hidden:
            rules = sorted({f.rule for f in hidden})
            more = ", ".join(rules[:4]) + (", ..." if len(rules) > 4 else "")
            out.append(f"({_plural(len(hidden), 'finding')} not shown ({more}); -v shows them)")
        out.append(self._paint(summary_line(report), _BOLD))
        return "\n".join(out) + "\n"

    def _emit(self, node: _Node, prefix: str, out: list[str], *, top: bool = False) -> None:
        items: list[tuple[str, Finding | _Node]] = [("", f) for f in node.findings]
        items += sorted(node.children.items())
        for index, (label, item) in enumerate(items):
            last = index == len(items) - 1
            if top:
                branch, cont = "", ""
            else:
                branch, cont = ("└── ", "    ") if last else ("├── ", "│   ")
            if isinstance(item, Finding):
                lines = self._finding_lines(item)
                out.append(prefix + branch + lines[0])
                out.extend(prefix + cont + line for line in lines[1:])
            else:
                out.append(prefix + branch + self._paint(label, _BOLD))
                self._emit(item, prefix + cont + ("" if top else ""), out)
