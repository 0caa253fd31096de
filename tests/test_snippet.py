"""Huge turns in search output: a bounded window around the match, and work bounded by that window."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_runs import run
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive
from refind_cli.storage.queries import SHOWN_CHARS
from refind_cli.text import snippet
from refind_cli.text.analysis import Analyzer
from refind_cli.text.snippet import JSON_CHARS, TERMINAL_CHARS, first_match, highlight_spans, terms_in

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
FILLER = "all work and no play makes jack a dull boy "

WORDS = st.sampled_from(["Paris", "dentist", "dentists", "the", "東京タワー", "x" * 50, "naïve", "jack", "A"])
TEXT = st.lists(st.tuples(WORDS, st.sampled_from([" ", "\n", ", ", "", "_"])), max_size=40).map(
    lambda parts: "".join(w + sep for w, sep in parts)
)
TERMS = st.sets(st.sampled_from(["pari", "dentist", "東京", "jack", "naïv", "absent"]), max_size=3)


@settings(max_examples=150, deadline=None)
@given(text=TEXT, terms=TERMS, chunk=st.sampled_from([64, 100, 1 << 16]))
def test_chunked_reading_finds_what_a_whole_analysis_finds(text: str, terms: set[str], chunk: int) -> None:
    analyzer = Analyzer(stopwords=("the",), name="t")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(snippet, "_CHUNK", chunk)
        assert terms_in(analyzer, text, terms) == set(analyzer.analyze(text)) & terms
        spans = highlight_spans(text, terms)
        assert first_match(text, terms) == (spans[0][0] if spans else None)


def test_a_short_text_is_whole_and_a_long_one_a_window_around_its_first_match() -> None:
    assert snippet.snippet("a dentist", ["dentist"], 100) == snippet.Snippet("a dentist", 0, 9)
    text = FILLER * 1000 + "the dentist said " + FILLER * 1000
    view = snippet.snippet(text, ["dentist"], 2_000)
    assert view.truncated and view.length == len(text) and len(view.text) <= 2_000
    assert text[view.start : view.start + len(view.text)] == view.text
    assert 0 < view.text.index("dentist") <= 500 + len("the ")
    assert text[view.start - 1] == " "  # the window starts at a word
    # No match (a context turn): the beginning.
    assert snippet.snippet(text, [], 2_000).start == 0


@pytest.fixture
def huge(tmp_path: Path) -> tuple[Path, str]:
    """One 2-MB message with one match inside its indexed part (``INDEXED_CHARS``), between two ordinary
    turns."""
    text = FILLER * 10_000 + "the dentist said tuesday " + FILLER * 40_000
    home = tmp_path / "home"
    with Archive.open(home) as arch:
        import_chat(
            arch,
            Chat("test", "c1", "Jack"),
            [
                Message(T0, "Wendy", "how is the writing going"),
                Message(T0 + timedelta(minutes=1), "Jack", text),
                Message(T0 + timedelta(minutes=2), "Wendy", "dentist on tuesday then"),
            ],
        )
    return home, text


def test_a_huge_hit_prints_a_window_around_the_match(huge: tuple[Path, str], monkeypatch) -> None:
    home, text = huge
    read: list[int] = []
    words = snippet.HIGHLIGHTER.words
    monkeypatch.setattr(snippet.HIGHLIGHTER, "words", lambda t: read.append(len(t)) or words(t))
    r = run(home, "search", "tuesday", "-k", "2")
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout) < 3 * TERMINAL_CHARS  # not 2 MB
    flat = " ".join(r.stdout.split())  # as rich wrapped it, unwrapped
    assert "the dentist said tuesday" in flat and "dentist on tuesday then" in flat
    assert f"of {len(text):,}; all: refind show" in flat
    # The word-by-word highlighter saw the chunk with the match and the short turns, never the 2 MB: twice,
    # as `run` runs a search through both entry points (typer's and the quick path).
    assert sum(read) <= 2 * 2 * snippet._CHUNK


def test_a_huge_hit_in_json_is_cut_and_says_so(huge: tuple[Path, str]) -> None:
    home, text = huge
    r = run(home, "search", "tuesday", "-k", "2", "--json")
    assert r.exit_code == 0, r.stderr
    small, big = sorted(json.loads(r.stdout)["results"], key=lambda h: "text_length" in h)
    assert big["truncated"] is True and big["text_length"] == len(text) and len(big["text"]) <= JSON_CHARS
    assert text[big["text_offset"] :].startswith(big["text"]) and "dentist said tuesday" in big["text"]
    assert [(w["hit"], w.get("truncated", False)) for w in big["window"]] == [
        (False, False),
        (True, True),
        (False, False),
    ]
    # An ordinary turn keeps the documented keys and nothing more; its huge neighbour is cut from its start.
    assert "truncated" not in small and small["text"] == "dentist on tuesday then"
    assert small["window"][1]["text_offset"] == 0 and small["window"][1]["truncated"] is True
    # `refind show --json` gives its first SHOWN_CHARS characters, marked the same way.
    shown = run(home, "show", big["turn_id"], "--json")
    [hit] = [t for t in json.loads(shown.stdout)["turns"] if t["hit"]]
    assert hit["text"] == text[:SHOWN_CHARS] and (hit["truncated"], hit["text_length"]) == (True, len(text))
