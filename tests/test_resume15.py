"""A re-import of an export of many chats costs what changed, not what it holds (issue 26 item 1, resume15):
the chats it takes as they are report their sessions and turns from their rows, which keep them exact
(``schema._m043_chats_keyed_and_counted``), in no statement of their own at a head and one (their row) after
it; a new chat is found by its key
through an index; piped tables are written as the csv module writes them; Gemini's conversations are
grouped without numpy as with it; a letter's script is found by one pattern as by a class a script."""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_resume_conversations import export, gpt
from test_resume_import import BERLIN

from refind_cli.facade import Home
from refind_cli.frontends.render import has_control, visible
from refind_cli.frontends.render.imports import import_json
from refind_cli.frontends.render.rows import write_rows
from refind_cli.importers import conversations, gemini
from refind_cli.ingest import import_file
from refind_cli.operations import Selection
from refind_cli.storage.archive import Archive
from refind_cli.storage.schema import applied_migrations
from refind_cli.text import language
from refind_cli.text.scripts_data import SPEAKERS


def counted(archive: Archive) -> list[tuple[int, int, int]]:
    """Each chat's counts as its row keeps them, beside those its sessions' rows give."""
    return archive.db.execute(
        "SELECT c.seq, c.n_sessions - count(s.seq), c.n_turns - coalesce(sum(s.n_turns), 0) FROM chats c"
        " LEFT JOIN sessions s ON s.chat_seq = c.seq GROUP BY c.seq"
    ).fetchall()


def exact(archive: Archive) -> bool:
    rows = counted(archive)
    return bool(rows) and all(d_sessions == 0 and d_turns == 0 for _, d_sessions, d_turns in rows)


def test_a_chats_counts_stay_its_sessions_through_imports_edits_forgetting_and_merging(tmp_path: Path):
    path = tmp_path / "conversations.json"
    home = Home(tmp_path / "home")
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export([gpt(n, 6) for n in range(6)]))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert exact(archive)
        # One grew, one edited in the middle (its sessions replaced), one lost messages, two new.
        later = [gpt(n, 6) for n in range(6)] + [gpt(6, 3), gpt(7, 4)]
        later[1], later[2], later[3] = gpt(1, 40), gpt(2, 6, edit=3), gpt(3, 2)
        path.write_bytes(export(later))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert exact(archive)
    home.forget(Selection(matching="message 1"), confirm=lambda plan: True)
    with Archive.open(tmp_path / "home") as archive:
        assert exact(archive)
        first, second = [row[0] for row in archive.db.execute("SELECT seq FROM chats ORDER BY seq LIMIT 2")]
    home.merge_chats(str(first), str(second))
    with Archive.open(tmp_path / "home") as archive:
        assert exact(archive)
        assert archive.db.execute("SELECT count(*) FROM chats").fetchone()[0] == 7


def test_an_archive_written_before_m043_gets_its_chats_counted(tmp_path: Path):
    path = tmp_path / "conversations.json"
    path.write_bytes(export([gpt(n, 5 + n) for n in range(5)]))
    with Archive.open(tmp_path / "home") as archive:
        import_file(archive, path, tz=BERLIN, worker=False)
        before = archive.db.execute("SELECT seq, n_sessions, n_turns FROM chats ORDER BY seq").fetchall()
        archive.db.execute("DROP INDEX chats_key")
        archive.db.execute("ALTER TABLE chats DROP COLUMN n_sessions")
        archive.db.execute("ALTER TABLE chats DROP COLUMN n_turns")
        archive.db.execute("DELETE FROM migrations WHERE name = 'm043_chats_keyed_and_counted'")
    with Archive.open(tmp_path / "home") as archive:
        assert applied_migrations(archive.db)[-1] == "m043_chats_keyed_and_counted"
        assert (
            archive.db.execute("SELECT seq, n_sessions, n_turns FROM chats ORDER BY seq").fetchall() == before
        )
        assert exact(archive)
        plan = archive.db.execute(
            "EXPLAIN QUERY PLAN SELECT seq FROM chats WHERE source = ? AND key = ?", ("chatgpt", "x")
        ).fetchall()
        assert "chats_key" in str(plan)


def statements(tmp_path: Path, conversations: int) -> tuple[int, list]:
    """The statements a re-import runs where ``conversations`` were imported before and two were added
    since (a file scanned by its bytes, as one of 4 MB and more is: the conversations before the head its
    last import left are taken as they are); and what it reports."""
    path = tmp_path / "conversations.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export([gpt(n, 4) for n in range(conversations)]))
        import_file(archive, path, tz=BERLIN, worker=False)
        path.write_bytes(export([gpt(n, 4) for n in range(conversations + 2)]))
        ran: list[str] = []

        def trace(_cursor: apsw.Cursor, sql: str, _bindings: object) -> bool:
            ran.append(sql)
            return True

        archive.db.exec_trace = trace
        result = import_file(archive, path, tz=BERLIN, worker=False)
        archive.db.exec_trace = None
    return len(ran), list(result.chats)


def test_a_chat_taken_as_it_is_costs_no_statement_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", 0)
    few, _ = statements(tmp_path / "few", 10)
    many, many_chats = statements(tmp_path / "many", 30)
    assert few == many  # 20 conversations more taken as they are, not one statement more
    # Each is reported as a reading would report it: nothing added, its messages skipped, its counts.
    assert len(many_chats) == 32
    taken = [c for c in many_chats if not c.messages_added]
    assert len(taken) == 30
    assert all(c.messages_skipped == 4 and c.sessions == 1 and c.turns == 2 for c in taken)
    assert [c.messages_added for c in many_chats if c.messages_added] == [4, 4]


def test_a_chat_after_the_head_costs_one_statement_its_row(tmp_path: Path):
    """A file read chat by chat (under 4 MB: not scanned, no head): each chat read before as it is costs the
    lookup of its row, not the opening of it, and is reported alike."""
    few, _ = statements(tmp_path / "few", 10)
    many, many_chats = statements(tmp_path / "many", 30)
    assert many - few == 20
    taken = [c for c in many_chats if not c.messages_added]
    assert len(taken) == 30
    assert all(c.messages_skipped == 4 and c.sessions == 1 and c.turns == 2 for c in taken)


def test_a_chat_whose_row_differs_from_the_export_is_opened_as_before(tmp_path: Path):
    """A row that opening the chat would write otherwise (its name as an earlier release told it) is not taken
    from the row: the chat is opened, and the row ends as a reading leaves it; a name the user gave stays."""
    path = tmp_path / "conversations.json"
    home = Home(tmp_path / "home")
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export([gpt(n, 4) for n in range(4)]))
        import_file(archive, path, tz=BERLIN, worker=False)
        archive.db.execute("UPDATE chats SET name = 'told otherwise' WHERE uid = 'chatgpt:conv-1'")
    home.rename_chat("Conversation 2", "Mine")
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export([gpt(n, 4) for n in range(5)]))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        names = dict(archive.db.execute("SELECT uid, name FROM chats").fetchall())
    assert names["chatgpt:conv-1"] == "Conversation 1"
    assert names["chatgpt:conv-2"] == "Mine"
    assert [c.messages_added for c in result.chats] == [0, 0, 0, 0, 4]


def test_the_json_report_lists_every_chat_as_the_contract_says(tmp_path: Path):
    path = tmp_path / "conversations.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export([gpt(n, 4) for n in range(5)]))
        import_file(archive, path, tz=BERLIN, worker=False)
        path.write_bytes(export([gpt(n, 4) for n in range(6)]))
        result = import_file(archive, path, tz=BERLIN, worker=False)
    shape = import_json([result])
    chats = json.loads(json.dumps(shape))["files"][0]["chats"]
    assert [set(c) for c in chats] == [
        {"chat_id", "name", "messages_added", "messages_skipped", "sessions", "turns"}
    ] * 6
    assert sorted((c["messages_added"], c["messages_skipped"]) for c in chats) == [(0, 4)] * 5 + [(4, 0)]


def csv_module(header: list[str], table: list[list[object]], fmt: str) -> str:
    """What the csv module writes of the table, its text made visible where any holds a control."""
    texts = "".join(v for row in table for v in row if isinstance(v, str))
    if has_control(texts):
        table = [[visible(v) if isinstance(v, str) else v for v in row] for row in table]
    out = io.StringIO()
    writer = csv.writer(out, dialect="excel-tab" if fmt == "tsv" else "excel", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(table)
    return out.getvalue()


_FIELDS = st.one_of(
    st.none(),
    st.integers(-5, 10**9),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(alphabet=st.sampled_from(list("ab ,;\t\"\n\r\x1b\u202e\u2028é'")), max_size=6),
)


@settings(max_examples=50, deadline=None)
@given(
    fmt=st.sampled_from(["tsv", "csv"]),
    columns=st.integers(1, 4),
    data=st.data(),
)
def test_a_piped_table_is_what_the_csv_module_writes(fmt: str, columns: int, data: st.DataObject):
    header = [f"column {i}" for i in range(columns)]
    table = data.draw(st.lists(st.lists(_FIELDS, min_size=columns, max_size=columns), max_size=5))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        write_rows(header, table, fmt)
    assert out.getvalue() == csv_module(header, table, fmt)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 6 * 3_600_000_000), max_size=60), st.integers(0, 10**12))
def test_gemini_groups_conversations_without_numpy_as_with_it(offsets: list[int], start: int):
    def groups() -> list[list[int]]:
        timeline = gemini._Timeline()
        timeline.micros.extend(start + o for o in offsets)
        return [[int(p) for p in group] for group in timeline.groups()]

    by_python = groups()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(gemini, "_NUMPY_FROM", 0)
        assert groups() == by_python
    assert sorted(p for group in by_python for p in group) == list(range(len(offsets)))


@settings(max_examples=50, deadline=None)
@given(st.characters(categories=["Lu", "Ll", "Lo", "Lm"]), st.sampled_from(["", "abc", "abcdefgh"]))
def test_a_letters_script_is_the_one_whose_class_matches_it(letter: str, latin: str):
    """``language._script_of`` finds, by one pattern, what a class a script of ``SPEAKERS`` compiled in turn
    until one matched found."""
    letters = [ch for ch in letter * 5 + latin if ch.isalpha()]
    one_by_one = next(
        (
            lang
            for script, lang in SPEAKERS.items()
            if (own := language._script_class(frozenset([script]))) is not None
            and own.match(letter)
            and language._share(frozenset([script]), letters) >= 0.5
        ),
        language.UNDETERMINED,
    )
    script = language._script_of(letter)
    told = SPEAKERS[script] if script and language._share(frozenset([script]), letters) >= 0.5 else "und"
    assert told == one_by_one
