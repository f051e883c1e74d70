"""What a rule is, for people: the entry ``docs/rules.md`` and SARIF's rule metadata are made of. Pure core."""

from __future__ import annotations

from dataclasses import dataclass

from releasekit.model.finding import Severity

__all__ = ["RuleDoc", "RuleFacts", "rule_anchor"]


@dataclass(frozen=True, slots=True)
class RuleFacts:
    """A rule as the ``RULES`` table of its module registers it (:class:`releasekit.rules.fbc.RuleInfo` is alike).

    ``severity`` is None where the context decides it (warning or error); ``hint`` is the generic fix. A table
    whose rules have no fixed severity maps each id to its title alone.
    """

    title: str
    severity: Severity | None = Severity.ERROR
    hint: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleDoc:
    """One rule id explained.

    ``severity`` is None where the rule's table gives none (the caller sets it).
    """

    id: str
    severity: Severity | None
    title: str
    why: str
    example: str
    fix: str


def rule_anchor(rule_id: str) -> str:
    """The anchor GitHub gives the rule's heading in ``docs/rules.md`` (``rk-diff-003``)."""
    return rule_id.lower()
