"""JUnit XML: one testcase per rule and subject, so CI test tabs list each problem by name.

Errors are ``<failure>``s; warnings and notes pass but carry their text in ``<system-out>``; rules that
ran and found nothing appear as passing testcases named after the rule.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from releasekit.model.finding import Severity
from releasekit.model.report import Report
from releasekit.report._checks import checks_by_rule_and_subject, clean_rules

__all__ = ["JunitReporter"]


def _text(findings: list) -> str:  # type: ignore[type-arg]
    lines = []
    for f in findings:
        where = str(f.location)
        lines.append(f"{f.severity.value}: {where + ': ' if where else ''}{f.message}")
        if f.hint:
            lines.append(f"  hint: {f.hint}")
    return "\n".join(lines)


class JunitReporter:
    """Renders a JUnit XML document (the Jenkins/GitLab/GitHub test-report dialect)."""

    def render(self, report: Report) -> str:
        """Return the XML document."""
        groups = checks_by_rule_and_subject(report)
        passing = clean_rules(report)
        failures = sum(1 for fs in groups.values() if any(f.severity is Severity.ERROR for f in fs))
        suites = ET.Element("testsuites", name="releasekit")
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f"releasekit {report.command}",
            tests=str(len(groups) + len(passing)),
            failures=str(failures),
            errors="0",
            skipped="0",
        )
        for (rule, subject), findings in groups.items():
            case = ET.SubElement(suite, "testcase", classname=f"releasekit.{rule}", name=subject)
            first = findings[0]
            if first.location.file:
                case.set("file", first.location.file)
                if first.location.line is not None:
                    case.set("line", str(first.location.line))
            errors = [f for f in findings if f.severity is Severity.ERROR]
            if errors:
                failure = ET.SubElement(case, "failure", message=errors[0].message, type=rule)
                failure.text = _text(findings)
            else:
                out = ET.SubElement(case, "system-out")
                out.text = _text(findings)
        for rule in passing:
            ET.SubElement(suite, "testcase", classname=f"releasekit.{rule}", name=f"{rule} found nothing")
        ET.indent(suites)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
