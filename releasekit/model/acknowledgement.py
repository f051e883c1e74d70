"""Acknowledged history: findings about published facts that cannot change, accepted once with a reason.

Pure core: no I/O. A repository lists them in ``releasekit-acknowledgements.yaml`` at its root (read by
:mod:`releasekit.io.acknowledgements`); each entry names one finding's full identity -- its rule, its
subject as the JSON report prints it and, where the rule has them, facts such as the OpenShift upgrade
(``from``/``to``) -- and says why it stays. :func:`acknowledge` matches entries to findings exactly:

- a warning or note it matches is *acknowledged*: still in every report, counted apart, hidden from the
  default text output;
- an error is never acknowledged (an error fails the command; fix it or change the rule): the entry
  gets RK-POLICY-021;
- an entry that matches no finding, or repeats an earlier one, is RK-POLICY-020 (a warning), so the
  file cannot rot into a blanket pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from releasekit.model.finding import Finding, Location, Severity, make_finding

__all__ = [
    "ACKNOWLEDGEMENTS_FILE",
    "RULES",
    "RULE_ACK_ERROR",
    "RULE_ACK_SCHEMA",
    "RULE_ACK_STALE",
    "Acknowledgement",
    "Identity",
    "acknowledge",
    "identity_of",
]

ACKNOWLEDGEMENTS_FILE = "releasekit-acknowledgements.yaml"
RULE_ACK_STALE = "RK-POLICY-020"
RULE_ACK_ERROR = "RK-POLICY-021"
RULE_ACK_SCHEMA = "RK-POLICY-022"
RULES: dict[str, str] = {
    RULE_ACK_STALE: "an acknowledgement matches no finding (or repeats another)",
    RULE_ACK_ERROR: "an acknowledgement names an error, which cannot be acknowledged",
    RULE_ACK_SCHEMA: "the acknowledgements file does not follow its schema",
}

Identity = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]
"""``(rule, subject, facts)``: what an acknowledgement must name to match a finding."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Acknowledgement:
    """One entry of the acknowledgements file."""

    rule: str
    subject: tuple[str, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()
    reason: str
    location: Location

    @property
    def identity(self) -> Identity:
        """What it matches on."""
        return (self.rule, self.subject, tuple(sorted(self.facts)))


def identity_of(finding: Finding) -> Identity:
    """A finding's full identity: rule, subject and the facts its rule records (never file or line)."""
    return (finding.rule, finding.subject, tuple(sorted(finding.facts)))


def acknowledge(
    findings: Iterable[Finding],
    acknowledgements: Iterable[Acknowledgement],
    *,
    complete: bool = True,
) -> tuple[dict[Finding, Acknowledgement], tuple[Finding, ...]]:
    """Match ``acknowledgements`` to ``findings``.

    ``complete`` False (``check`` judges only the catalogs a change touches): an entry that matches nothing
    is not reported, since what it names may not have been looked at. Returns the acknowledged findings with
    their entry, and RK-POLICY-020 (matches nothing, or repeats another) or 021 (names an error) findings.
    """
    by_identity: dict[Identity, Acknowledgement] = {}
    problems: list[Finding] = []
    for ack in acknowledgements:
        earlier = by_identity.get(ack.identity)
        if earlier is not None:
            repeat = f"repeats the one at line {earlier.location.line}"
            problems.append(_problem(RULE_ACK_STALE, ack, repeat, "remove one of the two"))
            continue
        by_identity[ack.identity] = ack
    acknowledged: dict[Finding, Acknowledgement] = {}
    used: set[Identity] = set()
    errors: set[Identity] = set()
    for finding in findings:
        key = identity_of(finding)
        match = by_identity.get(key)
        if match is None:
            continue
        if finding.severity is Severity.ERROR:
            errors.add(key)
            continue
        acknowledged[finding] = match
        used.add(key)
    for key, ack in by_identity.items():
        if key in used:
            continue
        if key in errors:
            what = "names an error; an error is never acknowledged"
            problems.append(
                _problem(RULE_ACK_ERROR, ack, what, "fix what the error reports, then remove the entry")
            )
        elif complete:
            hint = (
                "remove the entry (what it acknowledged is gone), or correct its rule, subject and facts "
                "to those the JSON report (--format json) gives the finding"
            )
            problems.append(_problem(RULE_ACK_STALE, ack, "matches no finding", hint))
    return acknowledged, tuple(problems)


def _problem(rule: str, ack: Acknowledgement, what: str, hint: str) -> Finding:
    parts = [
        ack.rule,
        *(f'"{s}"' if '"' not in s else s for s in ack.subject),
        *(f"{k} {v}" for k, v in ack.facts),
    ]
    message = f"acknowledgement of {' '.join(parts)} {what}"
    return make_finding(rule, message, ack.location, hint, (ACKNOWLEDGEMENTS_FILE,), Severity.WARNING)
