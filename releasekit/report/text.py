"""Human-readable findings for a terminal or a CI log."""

from __future__ import annotations

from dataclasses import dataclass, field

from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report, told_by_changes
from releasekit.report._checks import marks, numbers_phrase, plural, printable_report

__all__ = ["TextReporter", "change_lines", "summary_line"]

_COLOURS = {Severity.ERROR: "\x1b[31m", Severity.WARNING: "\x1b[33m", Severity.INFO: "\x1b[36m"}
_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"


def summary_line(report: Report) -> str:
    """One closing line: verdict and the numbers every format reports."""
    verdict = "passed" if report.passed else "failed"
    return f"{report.command}: {verdict}: {numbers_phrase(report)}"


def change_lines(report: Report) -> list[str]:
    """``What this change does`` per OpenShift catalog (shown at every verbosity)."""
    if not report.changes:
        return []
    out = ["What this change does:"]
    for change in report.changes:
        out.append(f"  {change.openshift} {change.package}")
        out.extend(f"    {line}" for line in change.lines)
    return out


@dataclass
class _Node:
    findings: list[Finding] = field(default_factory=list)
    children: dict[str, _Node] = field(default_factory=dict)


@dataclass(frozen=True)
class TextReporter:
    """Groups findings by subject and prints them as a tree.

    Subjects form a ``├──`` tree (package → channel → bundle, as opm prints its errors). ``verbosity``
    (``1 + verbose - quiet``): 0 shows the errors and the closing line only, 1 errors and warnings, 2 also
    the notes. With a baseline, what the change does comes first; below 2 the findings the base already had
    and the acknowledged ones are only counted.
    """

    color: bool = False
    verbosity: int = 2

    def _paint(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text

    def _finding_lines(self, finding: Finding, report: Report) -> list[str]:
        sev = self._paint(finding.severity.value, _COLOURS[finding.severity])
        where = str(finding.location)
        ack = report.acknowledgement(finding)
        head = (
            f"{sev}{marks(finding, report)} {finding.rule}: {where + ': ' if where else ''}{finding.message}"
        )
        lines = head.split("\n")
        if ack is not None:
            lines.append(f"  acknowledged: {ack.reason} ({ack.location})")
        elif finding.hint:
            lines.append(f"  hint: {finding.hint}")
        return lines

    def render(self, report: Report) -> str:
        """Return the grouped findings and the summary line."""
        report = printable_report(report)
        root = _Node()
        shown_levels = {s for s in Severity if s.rank <= max(self.verbosity, 0)}  # errors, warnings, notes
        told = told_by_changes(report)  # the change summary above says what these notes say
        folded = (
            {f for f in report.findings if not report.is_new(f)} if self.verbosity <= 1 else set()
        )  # the base had them: shown with -v
        acked = set(report.acknowledged) if self.verbosity <= 1 else set()  # listed with -v
        folded -= acked
        kept = [f for f in report.sorted_findings if f not in told and f not in folded and f not in acked]
        hidden = [f for f in kept if f.severity not in shown_levels]
        for finding in (f for f in kept if f.severity in shown_levels):
            node = root
            for label in finding.subject:
                node = node.children.setdefault(label, _Node())
            node.findings.append(finding)
        quiet = self.verbosity <= 0
        out: list[str] = [] if quiet else change_lines(report)
        self._emit(root, "", out, top=True, report=report)
        if quiet:
            out.append(self._paint(summary_line(report), _BOLD))
            return "\n".join(out) + "\n"
        if hidden:
            rules = sorted({f.rule for f in hidden})
            more = ", ".join(rules[:4]) + (", ..." if len(rules) > 4 else "")
            out.append(f"({plural(len(hidden), 'finding')} not shown ({more}); -v shows them)")
        if acked:
            out.append(f"({plural(len(acked), 'acknowledged finding')} not shown; -v lists them)")
        if folded:
            out.append(
                f"({plural(len(folded), 'finding')} the base revision already had not shown; -v shows them)"
            )
        if report.fixed:
            out.append(f"fixed by this change: {plural(len(report.fixed), 'finding')} of the base")
            out.extend(f"  {f.rule}: {f.message}" for f in report.fixed)
        out.append(self._paint(summary_line(report), _BOLD))
        return "\n".join(out) + "\n"

    def _emit(self, node: _Node, prefix: str, out: list[str], *, report: Report, top: bool = False) -> None:
        items: list[tuple[str, Finding | _Node]] = [("", f) for f in node.findings]
        items += sorted(node.children.items())
        for index, (label, item) in enumerate(items):
            last = index == len(items) - 1
            if top:
                branch, cont = "", ""
            else:
                branch, cont = ("└── ", "    ") if last else ("├── ", "│   ")
            if isinstance(item, Finding):
                lines = self._finding_lines(item, report)
                out.append(prefix + branch + lines[0])
                out.extend(prefix + cont + line for line in lines[1:])
            else:
                out.append(prefix + branch + self._paint(label, _BOLD))
                self._emit(item, prefix + cont, out, report=report)
