"""A turn's messages stored as a run (m023): consecutive seqs as the first and how many follow, any other
order as the list it is. Either form reads back as the seqs it stands for, and the turn reads the same."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from test_ingest import CHAT, m

from refind_cli.ingest import import_chat
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import seqs_of, stored_seqs


@given(st.lists(st.integers(1, 10**12), min_size=1, max_size=40))
def test_any_turns_seqs_read_back_from_their_stored_form(seqs: list[int]):
    listed = ",".join(map(str, seqs))
    stored = stored_seqs(listed)
    assert seqs_of(stored) == seqs
    assert stored_seqs(stored) == stored  # what is stored already is left as it is
    assert len(stored) <= len(listed)


@given(st.integers(1, 10**12), st.integers(1, 500))
def test_consecutive_seqs_are_stored_as_a_run(first: int, more: int):
    seqs = list(range(first, first + more + 1))
    assert stored_seqs(",".join(map(str, seqs))) == f"{first}+{more}"


def test_a_turn_of_messages_stored_apart_reads_in_its_order(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:
        import_chat(archive, CHAT, [m(0, "Maya", "one"), m(2, "Maya", "three"), m(4, "Maya", "five")])
        assert [r[0] for r in archive.db.execute("SELECT message_seqs FROM turns")] == ["1+2"]
        assert [t.text for t in archive.iter_turns()] == ["one\nthree\nfive"]
        # The same chat exported again with two messages between: the turn's seqs are no run now.
        maya = [m(i, "Maya", text) for i, text in enumerate(["one", "two", "three", "four", "five"])]
        import_chat(archive, CHAT, [*maya, m(5, "Jo", "six"), m(6, "Jo", "seven")])
        stored = [
            r[0] for r in archive.db.execute("SELECT message_seqs FROM turns ORDER BY session_seq, ordinal")
        ]
        assert stored == ["1,4,2,5,3", "6+1"]
        turns = list(archive.iter_turns())
        assert [(t.text, t.speaker) for t in turns] == [
            ("one\ntwo\nthree\nfour\nfive", "Maya"),
            ("six\nseven", "Jo"),
        ]
        assert [t.end - t.start for t in turns] == [timedelta(minutes=4), timedelta(minutes=1)]
        assert archive.session_message_seqs(turns[0].session_seq) == [1, 4, 2, 5, 3, 6, 7]
