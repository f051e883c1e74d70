"""The line a YAML catalog document is reported at: its first line that is neither blank nor a comment."""

from __future__ import annotations

import itertools

from releasekit.io.fbc_load import _first_content_line

# every kind of first character: blanks and the other characters Python splits lines at or strips
_CHARS = ["", " ", "\t", "\r", "\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000"]
_CHARS += ["\ufeff", "#", "a", "-"]


def test_the_quick_answer_for_a_document_that_starts_at_once_is_the_full_one() -> None:
    """A document whose first character is content is answered without splitting it into lines; every
    mix of leading characters gets the line the full search gives."""
    for a, b, c in itertools.product(_CHARS, repeat=3):
        chunk = a + b + c + "x: 1\n"
        lines = chunk.splitlines()
        expected = next(
            (7 + i for i, raw in enumerate(lines) if raw.strip() and not raw.strip().startswith("#")), 7
        )
        assert _first_content_line(chunk, 7) == expected, repr(chunk)
    assert _first_content_line("", 3) == 3
    assert _first_content_line("# only a comment\n\n", 3) == 3
