"""The result of a judging command, as reporters receive it. Pure core.

A pull-request check adds a *baseline*: each finding ``new`` or ``unchanged`` (:func:`baseline_key`),
the base's findings the change fixed, and what it does to each catalog.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from releasekit.model.acknowledgement import Acknowledgement
from releasekit.model.finding import Finding, Severity, sort_findings

__all__ = [
    "BaselineState",
    "CatalogChangeNote",
    "FailOn",
    "Numbers",
    "Report",
    "baseline_key",
    "match_baseline",
    "told_by_changes",
]

CHANGES_RULE = "RK-DIFF-002"
"""The rule whose notes say what :attr:`Report.changes` says (reporters that show the changes skip them)."""


def told_by_changes(report: Report) -> frozenset[Finding]:
    """The findings a reporter that prints :attr:`Report.changes` need not print again."""
    if not report.changes:
        return frozenset()
    return frozenset(f for f in report.findings if f.rule == CHANGES_RULE)


class BaselineState(enum.StrEnum):
    """Whether the base revision had a finding too (SARIF's ``baselineState`` words)."""

    NEW = "new"
    UNCHANGED = "unchanged"


class FailOn(enum.StrEnum):
    """Which error findings fail the command: any (the contract's default) or only new ones."""

    ERROR = "error"
    NEW = "new"


def baseline_key(finding: Finding) -> tuple[str, ...]:
    """What a finding is matched on across revisions: rule, file and subject (lines move; subjects do not).

    Without a subject, the message. The severity is part of the key: a base warning turned error is new.
    """
    where = (finding.rule, finding.severity.value, finding.location.file)
    return (*where, *finding.subject) if finding.subject else (*where, finding.message)


def match_baseline(
    head: Iterable[Finding], base: Iterable[Finding]
) -> tuple[dict[Finding, BaselineState], tuple[Finding, ...]]:
    """Mark each head finding new or unchanged, and return the base findings the change fixed.

    Matching counts: two head findings with one key and one base finding give one unchanged, one new.
    """
    left = Counter(baseline_key(f) for f in base)  # base findings not matched yet (negative: none left)
    states: dict[Finding, BaselineState] = {}
    for f in sort_findings(head):
        key = baseline_key(f)
        states[f] = BaselineState.UNCHANGED if left[key] > 0 else BaselineState.NEW
        left[key] -= 1
    fixed: list[Finding] = []
    for f in sort_findings(base):
        key = baseline_key(f)
        if left[key] > 0:
            left[key] -= 1
            fixed.append(f)
    return states, tuple(fixed)


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogChangeNote:
    """What a change does to one package in one OpenShift catalog, as lines a reader scans."""

    openshift: str
    package: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Numbers:
    """The one set of numbers every format reports.

    ``checks``: rules that ran; ``clean``: those that found nothing. Baseline counts are None without a
    baseline. Severity and baseline counts leave out the acknowledged findings (``acknowledged``).
    """

    checks: int
    clean: int
    errors: int
    warnings: int
    info: int
    new: int | None = None
    unchanged: int | None = None
    fixed: int | None = None
    new_errors: int | None = None
    acknowledged: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Findings of one command run plus what was checked.

    Attributes:
        rules: the rule ids that ran (the checks counted in :class:`Numbers`).
        extras: Markdown blocks a reporter may append (e.g. Mermaid graphs), keyed by title.
        baseline: each finding's state against the base revision; None when there was no base.
        fixed: the base's findings the change no longer has; ``changes``: its catalog changes.
        fail_on: which errors make the command fail (``new``: only those the change brought).
        acknowledged: findings the acknowledgements file accepts (never errors), counted apart.
    """

    command: str
    findings: tuple[Finding, ...] = ()
    checked: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    extras: tuple[tuple[str, str], ...] = ()
    baseline: Mapping[Finding, BaselineState] | None = field(default=None, compare=False)
    fixed: tuple[Finding, ...] = ()
    changes: tuple[CatalogChangeNote, ...] = ()
    fail_on: FailOn = FailOn.ERROR
    acknowledged: Mapping[Finding, Acknowledgement] = field(default_factory=dict, compare=False)

    def acknowledgement(self, finding: Finding) -> Acknowledgement | None:
        """The entry that acknowledges ``finding``, or ``None``."""
        return self.acknowledged.get(finding)

    @property
    def open_findings(self) -> tuple[Finding, ...]:
        """The findings no acknowledgement accepts, in reporting order."""
        return tuple(f for f in self.sorted_findings if f not in self.acknowledged)

    def state(self, finding: Finding) -> BaselineState | None:
        """The finding's baseline state, or ``None`` without a baseline."""
        return None if self.baseline is None else self.baseline.get(finding, BaselineState.NEW)

    def is_new(self, finding: Finding) -> bool:
        """True when the change brought the finding (always, without a baseline)."""
        return self.state(finding) is not BaselineState.UNCHANGED

    @property
    def failing(self) -> tuple[Finding, ...]:
        """The error findings that fail the command under :attr:`fail_on`."""
        errors = (f for f in self.findings if f.severity is Severity.ERROR)
        if self.fail_on is FailOn.NEW:
            return tuple(f for f in errors if self.is_new(f))
        return tuple(errors)

    @property
    def passed(self) -> bool:
        """True when no finding fails the command (any error; with ``--fail-on new``, a new error)."""
        return not self.failing

    @property
    def sorted_findings(self) -> tuple[Finding, ...]:
        """Findings in the one deterministic order."""
        return sort_findings(self.findings)

    @property
    def clean_rules(self) -> tuple[str, ...]:
        """Rules that ran and found nothing at all."""
        fired = {f.rule for f in self.findings}
        return tuple(sorted(set(self.rules) - fired))

    @property
    def numbers(self) -> Numbers:
        """Checks run, findings by severity and, with a baseline, new / unchanged / fixed."""
        counts = Counter(f.severity for f in self.findings if f not in self.acknowledged)
        base = dict(
            checks=len(set(self.rules) | {f.rule for f in self.findings}),
            clean=len(self.clean_rules),
            errors=counts[Severity.ERROR],
            warnings=counts[Severity.WARNING],
            info=counts[Severity.INFO],
            acknowledged=sum(1 for f in self.findings if f in self.acknowledged),
        )
        if self.baseline is None:
            return Numbers(**base)
        judged = [f for f in self.findings if f not in self.acknowledged]
        new = [f for f in judged if self.is_new(f)]
        return Numbers(
            **base,
            new=len(new),
            unchanged=len(judged) - len(new),
            fixed=len(self.fixed),
            new_errors=sum(1 for f in new if f.severity is Severity.ERROR),
        )
