"""What several reporters share: checks grouped by rule and subject, and the one set of numbers in words."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from releasekit.errors import printable
from releasekit.model.finding import Finding, Location
from releasekit.model.report import CatalogChangeNote, Report

__all__ = [
    "checks_by_rule_and_subject",
    "marks",
    "numbers_fields",
    "numbers_phrase",
    "plural",
    "printable_report",
    "subject_text",
]


def _printable_finding(f: Finding) -> Finding:
    loc = f.location
    file, path = printable(loc.file), printable(loc.path)
    message, hint = printable(f.message, newlines=True), printable(f.hint, newlines=True)
    subject = tuple(printable(s) for s in f.subject)
    facts = tuple((printable(k), printable(v)) for k, v in f.facts)
    location = Location(file=file, line=loc.line, path=path)
    return replace(f, message=message, location=location, hint=hint, subject=subject, facts=facts)


def _nothing_to_escape(report: Report) -> bool:
    """True when no string of ``report`` needs escaping: one scan over names, one over messages."""
    names: list[str] = [*report.checked]
    texts: list[str] = []
    for f in (*report.findings, *report.fixed):
        names += (f.location.file, f.location.path, *f.subject, *(v for pair in f.facts for v in pair))
        texts += (f.message, f.hint)
    for ack in report.acknowledged.values():
        names.append(ack.location.file)
        texts.append(ack.reason)
    for title, block in report.extras:
        names.append(title)
        texts.append(block)
    for change in report.changes:
        names += (change.openshift, change.package, *change.lines)
    joined_names, joined_texts = " ".join(names), " ".join(texts)
    return printable(joined_names) == joined_names and printable(joined_texts, newlines=True) == joined_texts


def printable_report(report: Report) -> Report:
    """``report`` with every string from input safe to print and to encode (every reporter's first step).

    File names, subjects and messages may carry terminal escapes or bytes that are not UTF-8 (a hostile file
    name); escaped with :func:`releasekit.errors.printable`, they cannot rewrite a text or GitHub log, XML
    stays XML 1.0 and every format encodes as UTF-8. Messages and hints keep their line breaks.
    """
    if _nothing_to_escape(report):
        return report  # nearly always
    findings = {f: _printable_finding(f) for f in (*report.findings, *report.fixed)}
    baseline = report.baseline
    if baseline is not None:
        baseline = {findings.get(f, f): state for f, state in baseline.items()}
    acknowledged = {
        findings.get(f, f): replace(
            ack,
            reason=printable(ack.reason, newlines=True),
            location=replace(ack.location, file=printable(ack.location.file)),
        )
        for f, ack in report.acknowledged.items()
    }
    return replace(
        report,
        acknowledged=acknowledged,
        findings=tuple(findings[f] for f in report.findings),
        fixed=tuple(findings[f] for f in report.fixed),
        baseline=baseline,
        checked=tuple(printable(c) for c in report.checked),
        extras=tuple((printable(t), printable(b, newlines=True)) for t, b in report.extras),
        changes=tuple(
            CatalogChangeNote(
                openshift=printable(c.openshift),
                package=printable(c.package),
                lines=tuple(printable(line) for line in c.lines),
            )
            for c in report.changes
        ),
    )


def subject_text(finding: Finding) -> str:
    """The subject as one string (``package "p" / channel "c"``), else the file, else ``input``."""
    if finding.subject:
        return " / ".join(finding.subject)
    return finding.location.file or "input"


def checks_by_rule_and_subject(report: Report) -> dict[tuple[str, str], list[Finding]]:
    """Findings grouped by (rule id, subject), in sorted order."""
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in report.sorted_findings:
        groups[(finding.rule, subject_text(finding))].append(finding)
    return dict(sorted(groups.items()))


def marks(finding: Finding, report: Report) -> str:
    """`` (new, acknowledged)``: the finding's baseline state and acknowledgement, or ''."""
    state = report.state(finding)
    parts = [state.value] if state is not None else []
    parts += ["acknowledged"] if report.acknowledgement(finding) is not None else []
    return f" ({', '.join(parts)})" if parts else ""


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def numbers_fields(report: Report) -> dict[str, int]:
    """The numbers by name (JUnit's properties, SARIF's): baseline counts with a baseline, acknowledged if any."""
    n = report.numbers
    out = {"checks": n.checks, "clean": n.clean, "errors": n.errors, "warnings": n.warnings, "info": n.info}
    if n.new is not None:
        out.update(new=n.new, unchanged=n.unchanged or 0, fixed=n.fixed or 0)
    if n.acknowledged:
        out["acknowledged"] = n.acknowledged
    return out


def numbers_phrase(report: Report) -> str:
    """``3 errors, 13 warnings, 2 notes; 87 checks run, 80 clean; 1 new, 17 unchanged, 0 fixed``."""
    n = report.numbers
    parts = [plural(n.errors, "error"), plural(n.warnings, "warning"), plural(n.info, "note")]
    text = f"{', '.join(parts)}; {plural(n.checks, 'check')} run, {n.clean} clean"
    if n.new is not None:
        text += f"; {n.new} new, {n.unchanged} unchanged, {n.fixed} fixed"
    if n.acknowledged:
        text += f"; {n.acknowledged} acknowledged"
    return text
