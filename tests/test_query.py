from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refind_cli.text.analysis import analyze
from refind_cli.text.query import Query, parse


@given(st.text())
def test_any_text_parses(text: str) -> None:
    query = parse(text)
    # Whatever the syntax took, nothing is lost: every word lands in one of the parts.
    parts = [query.text, *query.phrases, *query.excluded, *query.prefixes]
    assert sorted(analyze(" ".join(parts))) == sorted(analyze(text.replace('"', " ")))


@given(st.text(alphabet=st.characters(blacklist_characters='"-*')))
def test_plain_words_parse_to_themselves(text: str) -> None:
    assert parse(text) == Query(text)


@given(st.text())
def test_an_unclosed_quote_is_plain_words(text: str) -> None:
    odd = text + '"' if text.count('"') % 2 == 0 else text
    assert parse(odd) == Query(odd)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('dentist "new york" -paris app*', Query("dentist", ("new york",), ("paris",), ("app",))),
        ('-"bad news" -x* good', Query("good", (), ("bad news", "x*"))),
        ('say"hi there"', Query("say", ("hi there",))),
        ("e-mail C++ -- - * ** http://x/* 3-5", Query("e-mail C++ -- - * ** http://x/* 3-5")),
        ('""', Query("", ("",))),
        ('"unclosed -word', Query('"unclosed -word')),
        # A prefix keeps its combining marks (a Devanagari virama, a decomposed accent).
        ("नमस्* cafe\u0301*", Query("", prefixes=("नमस्", "cafe\u0301"))),
        ("\u0301*", Query("\u0301*")),
    ],
)
def test_syntax(text: str, want: Query) -> None:
    assert parse(text) == want
