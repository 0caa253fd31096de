"""The analyzer's Unicode classes, read at search time without ``regex``, against ``regex``'s own patterns of
the same properties: the generated table is what ``regex`` gives now, and the stdlib patterns over a text's
kinds split, join and clean every code point as the ``regex`` patterns do."""

from __future__ import annotations

import functools
import re
import sys

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.text import unicode_classes, unicode_classes_data
from refind_cli.text.analysis import _term_patterns, _tokens, _unicode
from refind_cli.text.unicode_classes import CLASS_PROPERTIES, SET_PROPERTIES

EVERY = "".join(map(chr, range(sys.maxunicode + 1)))


@functools.cache
def _reference() -> dict[str, regex.Pattern[str]]:
    """The patterns as the analyzer wrote them with ``regex`` before (session 10), from the same properties."""
    run, letter, mark, ignorable, picture, modifier, indicator, apostrophe = CLASS_PROPERTIES.values()
    word = rf"(?:{run}[{run}{mark}]*|{letter}[{letter}{ignorable}]*)"
    emoji = rf"({indicator}{{2}}|[{picture}{indicator}]){modifier}?"
    return {
        name: regex.compile(pattern, regex.V1)
        for name, pattern in {
            "token": rf"{word}|{emoji}",
            "run": run,
            "emoji": emoji,
            "reader": rf"{word}(?:{apostrophe}{word})?",
            **{name: f"{prop}+" for name, prop in SET_PROPERTIES.items()},
        }.items()
    }


def _same_as_regex(text: str) -> None:
    ref = _reference()
    kinds, token, run, emoji, reader = _unicode()
    tokens = _tokens(token, text)
    assert tokens == [m.group() for m in ref["token"].finditer(text)]
    assert _tokens(reader, text) == [m.group() for m in ref["reader"].finditer(text)]
    for word in tokens:
        assert bool(run.match(kinds(word))) == bool(ref["run"].match(word)), word
        ours, theirs = emoji.fullmatch(kinds(word)), ref["emoji"].fullmatch(word)
        assert (ours and word[ours.start(1) : ours.end(1)]) == (theirs and theirs.group(1)), word
    for name, pattern in zip(("invisible", "diacritic", "cyrillic"), _term_patterns(), strict=True):
        assert pattern.sub("", text) == ref[name].sub("", text), name


def test_the_shipped_table_is_regexs() -> None:
    """``unicode_classes_data.py`` holds what ``regex``'s tables give now (after a ``regex`` upgrade:
    ``python -m refind_cli.text.unicode_classes``, and bump ANALYSIS_VERSION if it changed)."""
    starts, kinds, members, sets = unicode_classes.generate()
    assert starts == unicode_classes_data.STARTS
    assert kinds == unicode_classes_data.KINDS
    assert members == unicode_classes_data.MEMBERS
    assert sets == unicode_classes_data.SETS


def test_every_code_point_is_of_the_kinds_regex_puts_it_in() -> None:
    kinds = unicode_classes.kinds(EVERY)
    assert len(kinds) == len(EVERY)
    for name, prop in CLASS_PROPERTIES.items():
        ours = re.compile(unicode_classes.kind_class(name))
        theirs = regex.compile(prop, regex.V1)
        assert [m.start() for m in ours.finditer(kinds)] == [m.start() for m in theirs.finditer(EVERY)], name
    for name, prop in SET_PROPERTIES.items():
        found = re.findall(unicode_classes.stdlib_set(name), EVERY)
        assert found == regex.findall(prop, EVERY, flags=regex.V1), name


# One character of each end of every run of one kind, and the characters that join or end a token: a
# pattern over kinds sees only a character's kind, and the test above holds every code point's kind to
# regex's, so these stand for every code point.
_EDGES = sorted(
    {chr(p) for p in unicode_classes_data.STARTS}
    | {chr(p - 1) for p in unicode_classes_data.STARTS if p}
    | set("a1 'ʼ’\u200d\u200c\u00ad\ufe0f\u20e3\u0301\u093f\u094d\U0001f3fd\U0001f1e9\U0001f1ea")
)


def test_every_code_point_splits_as_with_regex() -> None:
    """Every code point in order (each beside its neighbours), and each edge of a kind's run between a
    letter and a mark, before a skin tone and after a joiner."""
    _same_as_regex(EVERY)
    _same_as_regex("".join(f"a{c}\u0301{c}\U0001f3fd\u200d{c} " for c in _EDGES))


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(_EDGES) | st.characters(), max_size=40))
def test_any_text_splits_as_with_regex(text: str) -> None:
    _same_as_regex(text)
