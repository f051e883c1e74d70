"""Templates with bounds (issue 14, defect 3 and the template attacks).

Each attack is written into the CSV template of a repository copy and the catalog build runs in a child
process with a timeout: before the fix these leaked /etc/passwd, ended in tracebacks or ran for minutes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.conftest import assert_refused, run_child, run_here

CSV = "bundle-templates/clusterserviceversion.yaml.j2"


def _attack(repo: Path, line: str) -> int:
    """Insert ``line`` as line 3 of the CSV template; return that line's number."""
    path = repo / CSV
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(2, line + "\n")
    path.write_text("".join(lines))
    return 3


def test_a_symlink_reached_by_include_is_refused_and_nothing_leaks(repo: Path) -> None:
    """``{% include %}`` followed a symlink in bundle-templates/: /etc/passwd ended up in catalog/."""
    (repo / "bundle-templates" / "evil.txt").symlink_to("/etc/passwd")
    number = _attack(repo, "# {% include 'evil.txt' %}")
    ran = run_here(["catalog", "build", "--candidates", "--out", "preview"], repo)
    assert_refused(ran, f"{CSV.split('/')[1]}:{number}", "symbolic link")
    assert not (repo / "preview").exists()


def test_a_symlinked_data_file_is_refused_even_inside_the_folder(repo: Path) -> None:
    """Templates may hold no symlinks at all (one inside the folder was followed before)."""
    prose = repo / "bundle-templates" / "prose.yaml"
    prose.rename(repo / "bundle-templates" / "prose-real.yaml")
    prose.symlink_to("prose-real.yaml")
    ran = run_here(["catalog", "build", "--candidates", "--out", "preview"], repo)
    assert_refused(ran, "prose.yaml", "symbolic link")


@pytest.mark.parametrize(
    ("attack", "words"),
    [
        ("{{ 1/0 }}", "division by zero"),
        ("{% for i in range(10**9) %}{% endfor %}", "Range too big"),
        ("{{ 'x' * 10**10 }}", "too large"),
        ("{{ 2 ** 1000000000 }}", "exponent"),
        ("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "recursion"),
        ("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", "steps"),
    ],
    ids=["zero-division", "huge-range", "huge-repeat", "huge-power", "recursive-macro", "nested-loops"],
)
def test_template_arithmetic_and_loop_errors_name_the_template_line(
    repo: Path, attack: str, words: str
) -> None:
    number = _attack(repo, attack)
    ran = run_child(["catalog", "build", "--candidates", "--out", "preview"], repo, timeout=120)
    assert_refused(ran, f"clusterserviceversion.yaml.j2:{number}", words)
    assert not (repo / "preview").exists()


def test_a_runaway_template_is_stopped_by_the_render_time_limit(repo: Path) -> None:
    """A nested template loop ran for more than 18 minutes; the limit (lowered to 1 s here) stops it."""
    number = _attack(repo, "{% for a in 'x' * 100000 %}{% for b in 'x' * 100000 %}{% endfor %}{% endfor %}")
    ran = run_child(
        ["catalog", "build", "--candidates", "--out", "preview"],
        repo,
        timeout=90,
        prelude="import releasekit.io.template_engine as t; t.RENDER_SECONDS = 1",
    )
    assert_refused(ran, f"clusterserviceversion.yaml.j2:{number}", "rendering took more than 1 s")


def test_a_value_that_breaks_the_rendered_yaml_names_the_template_line(repo: Path) -> None:
    """A template value that broke the CSV's YAML ended in a parser traceback, exit 1."""
    number = _attack(repo, "broken: {{ '[unclosed' }}")
    ran = run_here(["catalog", "build", "--candidates", "--out", "preview"], repo)
    assert_refused(ran, f"clusterserviceversion.yaml.j2:{number}", "rendered YAML is invalid")


@pytest.mark.parametrize(
    "attack",
    [
        "{{ '{0.__class__}'.format_map({'0': 1}) | to_json }}",
        "{{ '{0.__class__}'.format(1) | to_json }}",
        "{{ '{0:{1.__class__}}'.format(1, 2) | to_json }}",
    ],
    ids=["format-map", "format", "nested-spec"],
)
def test_a_format_string_reaching_for_a_private_attribute_is_refused_by_the_sandbox(
    repo: Path, attack: str
) -> None:
    """``'{0.__class__}'.format_map({'0': 1})`` ended in an IndexError traceback instead of exit 2."""
    number = _attack(repo, f"# {attack}")
    ran = run_here(["catalog", "build", "--candidates", "--out", "preview"], repo)
    assert_refused(ran, f"clusterserviceversion.yaml.j2:{number}", "leave the sandbox")
    assert not (repo / "preview").exists()


def test_a_format_string_with_a_missing_field_is_a_template_error(repo: Path) -> None:
    number = _attack(repo, "# {{ '{5}'.format(1) | to_json }}")
    ran = run_here(["catalog", "build", "--candidates", "--out", "preview"], repo)
    assert_refused(ran, f"clusterserviceversion.yaml.j2:{number}", "template failed")
