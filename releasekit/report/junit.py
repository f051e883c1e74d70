"""JUnit XML: one testcase per check and subject, so CI test tabs list each problem by name.

Every (rule, subject) with findings is a testcase, a ``<failure>`` when it holds an error, else passing
with its findings in ``<system-out>``; a rule that found nothing is one passing testcase. The suite's
properties carry the numbers every format reports.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from releasekit.model.finding import Finding, Severity
from releasekit.model.report import Report
from releasekit.report._checks import checks_by_rule_and_subject, marks, numbers_fields, printable_report

__all__ = ["JunitReporter"]


def _text(findings: list[Finding], report: Report) -> str:
    lines = []
    for f in findings:
        where = str(f.location)
        lines.append(f"{f.severity.value}{marks(f, report)}: {where + ': ' if where else ''}{f.message}")
        if f.hint:
            lines.append(f"  hint: {f.hint}")
    return "\n".join(lines)


class JunitReporter:
    """Renders a JUnit XML document (the Jenkins/GitLab/GitHub test-report dialect)."""

    def render(self, report: Report) -> str:
        """Return the XML document."""
        report = printable_report(report)
        groups = checks_by_rule_and_subject(report)
        passing = report.clean_rules
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
        properties = ET.SubElement(suite, "properties")
        for name, value in numbers_fields(report).items():
            ET.SubElement(properties, "property", name=name, value=str(value))
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
                failure.text = _text(findings, report)
            else:
                out = ET.SubElement(case, "system-out")
                out.text = _text(findings, report)
        for rule in passing:
            ET.SubElement(suite, "testcase", classname=f"releasekit.{rule}", name=f"{rule} found nothing")
        ET.indent(suites)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
