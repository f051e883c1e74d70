"""The bundle.Dockerfile readers of ``operator import`` take time linear in their input, by construction.

A 200,000-character line once took minutes: the related-images step was found with a regular expression that
retries from every position of a long identifier run, and LABEL values were split with :mod:`shlex`, which
grows each word one character at a time. No timing here: the work is counted (Python line events, under
``sys.settrace``) for an input of ``n`` and of ``2n`` characters, and doubling the input may at most about
double it. Work a regular expression or :mod:`shlex` does is invisible to that count, so the readers may hand
no text to either (checked with ``sys.setprofile``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import releasekit
from releasekit.plan.operator_record import dockerfile_labels, substitute_related_images

PACKAGE = str(Path(releasekit.__file__).parent)
N = 4_000
ANCHOR = "=$(jq -r '.[] | select(.name == \""
STEP = (
    "ARG OP_ORIG=reg.example/op:latest\n"
    "RUN OP=$(jq -r '.[] | select(.name == \"operator\") | .image' /related_images.json) && "
    'sed -i "s|${OP_ORIG}.*|${OP}|g" /manifests/csv.yaml\n'
)
RELATED = json.dumps([{"name": "operator", "image": "reg.example/op@sha256:" + "a" * 64}])


def _work(call: Callable[[], Any]) -> tuple[int, list[str]]:
    """Python line events while ``call`` runs, and what it handed to a regular expression or shlex."""
    lines = 0
    hidden: list[str] = []

    def trace(_frame: FrameType, event: str, _arg: object) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
        return trace

    def profile(frame: FrameType, event: str, arg: object) -> None:
        here = frame.f_code.co_filename
        if event == "call" and here.endswith("shlex.py"):
            hidden.append(f"shlex.{frame.f_code.co_name}")
        elif event == "c_call" and here.startswith(PACKAGE):
            owner = getattr(arg, "__self__", None)
            if isinstance(owner, re.Pattern):
                hidden.append(f"{owner.pattern[:40]!r}.{getattr(arg, '__name__', '?')}")

    old_trace, old_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(trace)
    sys.setprofile(profile)
    try:
        call()
    except ValueError:
        pass  # a refusal is an answer too; what counts is the work to reach it
    finally:
        sys.settrace(old_trace)
        sys.setprofile(old_profile)
    return lines, hidden


def _assert_linear(make: Callable[[int], Callable[[], Any]]) -> None:
    small, hidden_small = _work(make(N))
    large, hidden_large = _work(make(2 * N))
    assert not hidden_small + hidden_large, f"text handed to a regex or shlex: {hidden_small + hidden_large}"
    assert large <= 2.5 * max(small, 1), f"{small} line events for n, {large} for 2n: not linear"


LABEL_CASES: dict[str, Callable[[int], str]] = {
    "one long quoted value": lambda n: 'LABEL a="' + "x" * n + '"\n',
    "many pairs on one line": lambda n: "LABEL " + "a=b " * n + "\n",
    "many continuation lines": lambda n: "LABEL a=b \\\n" * n + "LABEL z=z\n",
    "many escaped quotes": lambda n: 'LABEL a="' + '\\"' * n + '"\n',
    "an unclosed quote": lambda n: 'LABEL a="' + "x " * n + "\n",
    "a long word without =": lambda n: "LABEL " + "x" * n + "\n",
    "many stages": lambda n: "FROM x\nLABEL a=b\n" * n,
}


@pytest.mark.parametrize("case", sorted(LABEL_CASES))
def test_dockerfile_labels_are_read_in_linear_time(case: str) -> None:
    _assert_linear(lambda n: lambda: dockerfile_labels(LABEL_CASES[case](n)))


SUBSTITUTION_CASES: dict[str, Callable[[int], tuple[str, str, str]]] = {
    # (CSV text, bundle.Dockerfile, related_images.json)
    "a long identifier run before '='": lambda n: ("x: 1\n", "RUN " + "A" * n + "=$(jq -r\n", RELATED),
    "many step starts on one line": lambda n: ("x: 1\n", "RUN " + ("A" + ANCHOR) * n + "\n", RELATED),
    "a step start without its end": lambda n: ("x: 1\n", "RUN A" + ANCHOR + "n" + '") ' * n, RELATED),
    "a long ARG line": lambda n: ("x: 1\n", "ARG " + " " * n + "X=1 y\n" + STEP, RELATED),
    "many placeholder lines": lambda n: ("image: reg.example/op:latest\n" * n, STEP, RELATED),
    "one long CSV line": lambda n: ("image: " + "reg.example/op:latest " * n + "\n", STEP, RELATED),
    "deep related_images.json with a long string": lambda n: (
        "x: 1\n",
        STEP,
        "[" * 300 + '"' + '\\"' * n,
    ),
}


@pytest.mark.parametrize("case", sorted(SUBSTITUTION_CASES))
def test_the_related_images_substitution_runs_in_linear_time(case: str) -> None:
    _assert_linear(lambda n: lambda: substitute_related_images(*SUBSTITUTION_CASES[case](n)))


def test_the_substitution_is_what_sed_does() -> None:
    csv = "a: reg.example/op:latest # rest\nb: reg.example/op:latest\r tail\nc: none\n"
    text, applied = substitute_related_images(csv, STEP, RELATED)
    image = "reg.example/op@sha256:" + "a" * 64
    assert text == f"a: {image}\nb: {image}\nc: none\n"
    assert applied == (("reg.example/op:latest", image),)


def test_labels_read_as_a_posix_shell_splits_them() -> None:
    text = (
        "FROM a\nLABEL old=1\nFROM b\n"
        'LABEL a="x y" b=\'q "r"\' c=d\\ e f="g\\"h\\\\i\\j" \\\n  k="" l=m"n o"p\n'
        "label lower=case\n"
    )
    assert dockerfile_labels(text) == [
        ("a", "x y"),
        ("b", 'q "r"'),
        ("c", "d e"),
        ("f", 'g"h\\i\\j'),
        ("k", ""),
        ("l", "mn op"),
        ("lower", "case"),
    ]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('LABEL a="b', "No closing quotation"),
        ("LABEL a='b", "No closing quotation"),
        ("LABEL ab", "'ab' is not key=value"),
    ],
)
def test_unreadable_labels_are_refused(line: str, needle: str) -> None:
    with pytest.raises(ValueError, match=re.escape(needle)):
        dockerfile_labels(line + "\n")


def test_a_refusal_quotes_a_long_line_briefly() -> None:
    with pytest.raises(ValueError) as caught:
        dockerfile_labels("LABEL " + "x" * 100_000 + "\n")
    assert len(str(caught.value)) < 300
