import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli import ingest
from refind_cli.errors import InputError
from refind_cli.ingest import files, import_chat, import_file
from refind_cli.records import Chat, ChatExport, Kind, Message
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import stored_session_id

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CHAT = Chat("whatsapp", "Jonas", "Jonas")


def m(minutes: float, sender: str, text: str, **kw) -> Message:
    return Message(T0 + timedelta(minutes=minutes), sender, text, **kw)


def conversation() -> list[Message]:
    return [
        m(0, "Maya", "dentist on the 14th?"),
        m(1, "Jonas", "yes 10am"),
        m(2, "Jonas", "at Dr Okafor"),
        m(3, "Maya", "ok"),
        # a silence of a day: a new session
        m(24 * 60, "Maya", "moved it to the 28th"),
        m(24 * 60 + 5, "Jonas", "good"),
    ]


@pytest.fixture
def archive(tmp_path: Path) -> Archive:
    arch = Archive.open(tmp_path / "home")
    yield arch
    arch.close()


def turn_ids(archive: Archive) -> list[str]:
    return [t.id for t in archive.iter_turns()]


def test_home_is_private(tmp_path: Path):
    Archive.open(tmp_path / "home").close()
    assert stat.S_IMODE(os.stat(tmp_path / "home").st_mode) == 0o700


def test_sessions_and_bursts(archive: Archive):
    r = import_chat(archive, CHAT, conversation())
    assert (r.messages_added, r.messages_skipped, r.sessions, r.turns) == (6, 0, 2, 5)
    turns = list(archive.iter_turns())
    assert [t.speaker for t in turns] == ["Maya", "Jonas", "Maya", "Maya", "Jonas"]
    assert turns[1].text == "yes 10am\nat Dr Okafor"
    assert turns[1].id == f"{turns[1].session_id}-2"
    assert turns[1].start < turns[1].end


def test_reimport_is_idempotent_with_stable_ids(archive: Archive):
    import_chat(archive, CHAT, conversation())
    before = turn_ids(archive)
    archive.clear_index_queue(archive.index_queue())
    r = import_chat(archive, CHAT, conversation())
    assert (r.messages_added, r.messages_skipped, r.sessions_changed) == (0, 6, 0)
    assert turn_ids(archive) == before
    assert archive.index_queue() == []


def test_ids_do_not_depend_on_the_archive(tmp_path: Path):
    a = Archive.open(tmp_path / "a")
    b = Archive.open(tmp_path / "b")
    import_chat(b, Chat("slack", "C1", "general"), [m(0, "x", "other chat first")])
    import_chat(a, CHAT, conversation())
    import_chat(b, CHAT, conversation())
    assert turn_ids(a) == turn_ids(b)[1:]


def test_newer_export_adds_only_new_and_rewrites_only_changed_sessions(archive: Archive):
    import_chat(archive, CHAT, conversation())
    first_session = next(archive.iter_turns()).session_id
    archive.clear_index_queue(archive.index_queue())
    newer = [*conversation()[2:], m(24 * 60 + 6, "Maya", "see you"), m(3 * 24 * 60, "Jonas", "new job!")]
    r = import_chat(archive, CHAT, newer)
    assert (r.messages_added, r.messages_skipped) == (2, 4)
    assert r.sessions == 3
    assert r.sessions_changed == 2  # the second session grew, a third began; the first is untouched
    queued = set(archive.index_queue())
    assert archive.session_seqs([first_session])[first_session] not in queued
    assert len(queued) == 2


def test_a_newer_export_replans_only_from_its_earliest_new_message(archive: Archive):
    import_chat(archive, CHAT, conversation())
    first_session = next(archive.iter_turns()).session_id
    # A stale signature is what a full re-plan would notice and rewrite: its surviving shows that the session
    # before the new message was not planned again. (The archive is never changed like this otherwise.)
    stored = stored_session_id(first_session)
    archive.db.execute("UPDATE sessions SET signature = x'5e' WHERE id = ?", (stored,))
    r = import_chat(archive, CHAT, [*conversation(), m(24 * 60 + 6, "Maya", "see you")])
    assert (r.messages_added, r.sessions_changed) == (1, 1)
    signature = archive.db.execute("SELECT signature FROM sessions WHERE id = ?", (stored,)).fetchone()
    assert signature == (b"\x5e",)


MESSAGES = st.lists(
    st.tuples(
        st.integers(0, 600),  # minutes: gaps on either side of the one-hour session gap
        st.sampled_from(["Maya", "Jonas", ""]),
        st.sampled_from(["ok", "dentist", "see you"]),
        st.sampled_from([None, None, None, "t1", "t2"]),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(older=MESSAGES, newer=MESSAGES)
def test_replanning_from_the_first_new_message_equals_replanning_everything(
    tmp_path_factory: pytest.TempPathFactory, older: list, newer: list
):
    with Archive.open(tmp_path_factory.mktemp("home")) as archive:
        for batch in (older, newer):
            msgs = [m(minute, sender, text, thread=thread) for minute, sender, text, thread in batch]
            import_chat(archive, CHAT, msgs)
        for (chat_seq,) in archive.db.execute("SELECT seq FROM chats").fetchall():
            assert ingest.resegment_chat(archive, chat_seq) == 0


def test_identical_messages_in_one_minute_are_both_kept(archive: Archive):
    msgs = [m(0, "Maya", "ok"), m(0, "Maya", "ok"), m(1, "Jonas", "ok")]
    assert import_chat(archive, CHAT, msgs).messages_added == 3
    assert import_chat(archive, CHAT, msgs).messages_added == 0


def test_out_of_order_lines_segment_like_sorted_ones(tmp_path: Path):
    msgs = conversation()
    shuffled = [msgs[4], *msgs[:4], msgs[5]]
    a = Archive.open(tmp_path / "a")
    b = Archive.open(tmp_path / "b")
    import_chat(a, CHAT, msgs)
    import_chat(b, CHAT, shuffled)
    assert [(t.id, t.text) for t in a.iter_turns()] == [(t.id, t.text) for t in b.iter_turns()]


def test_threads_become_sessions(archive: Archive):
    chat = Chat("slack", "C1", "general", kind="channel")
    msgs = [
        m(0, "ann", "release today?", source_id="1.0", thread="1.0"),
        m(1, "bob", "unrelated", source_id="2.0"),
        m(3000, "cid", "yes, after lunch", source_id="3.0", thread="1.0", reply_to="1.0"),
    ]
    r = import_chat(archive, chat, msgs)
    assert r.sessions == 2
    texts = sorted(t.text for t in archive.iter_turns())
    assert texts == ["release today?", "unrelated", "yes, after lunch"]
    assert import_chat(archive, chat, msgs).messages_added == 0


def test_exchange_pairing_for_assistant_chats(archive: Archive):
    msgs = [m(0, "user", "hi"), m(1, "assistant", "hello"), m(2, "user", "bye"), m(3, "assistant", "ciao")]
    import_chat(archive, Chat("eval", "s1", "s1"), msgs, pairing="exchange")
    assert [t.text for t in archive.iter_turns()] == [
        "user: hi\nassistant: hello",
        "user: bye\nassistant: ciao",
    ]


def test_non_text_messages_are_kept(archive: Archive):
    msgs = [
        m(0, "Maya", "<Media omitted>", kind=Kind.MEDIA),
        m(1, None, "Maya created group", kind=Kind.SYSTEM),
    ]
    import_chat(archive, CHAT, msgs)
    kinds = [r[0] for r in archive.db.execute("SELECT kind FROM messages ORDER BY ts")]
    assert kinds == [Kind.MEDIA, Kind.SYSTEM]


def test_a_file_that_fails_midway_writes_nothing(archive: Archive, tmp_path: Path, monkeypatch):
    export = tmp_path / "chat.txt"
    export.write_text("whatever")

    def broken_messages():
        yield from conversation()[:3]
        raise InputError(export, "bad header", "line 4")

    monkeypatch.setattr(
        files, "read_export", lambda path, fmt, tz, known=(): iter([ChatExport(CHAT, broken_messages())])
    )
    monkeypatch.setattr("refind_cli.importers.detect", lambda path: "whatsapp")
    result = import_file(archive, export, tz=UTC)
    assert result.error == f"{export}: line 4: bad header"
    assert archive.counts() == {"chats": 0, "messages": 0, "sessions": 0, "turns": 0}
    assert archive.db.execute("SELECT count(*) FROM imports").fetchone()[0] == 0
    assert archive.index_queue() == []


def test_ledger_records_successful_imports(archive: Archive, tmp_path: Path, monkeypatch):
    export = tmp_path / "chat.txt"
    export.write_text("whatever")
    monkeypatch.setattr(
        files, "read_export", lambda path, fmt, tz, known=(): iter([ChatExport(CHAT, conversation())])
    )
    monkeypatch.setattr("refind_cli.importers.detect", lambda path: "whatsapp")
    result = import_file(archive, export, tz=UTC)
    assert result.error is None and result.chats[0].messages_added == 6
    path, fmt, counts = archive.db.execute("SELECT path, format, counts FROM imports").fetchone()
    assert path == str(export.resolve()) and fmt == "whatsapp" and '"messages_added": 6' in counts


def test_a_transaction_commits_rolls_back_on_any_exception_and_nested_ones_join(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:

        def ledger() -> int:
            return archive.db.execute("SELECT count(*) FROM imports").fetchone()[0]

        with pytest.raises(KeyboardInterrupt), archive.transaction():
            archive.start_import("a", "x", "whatsapp", "now", "")
            raise KeyboardInterrupt
        assert ledger() == 0 and not archive.db.in_transaction
        with pytest.raises(ValueError), archive.transaction():
            archive.start_import("a", "x", "whatsapp", "now", "")
            with archive.transaction():  # joins: its failure undoes the outer one's work too
                archive.start_import("b", "y", "whatsapp", "now", "")
                raise ValueError
        assert ledger() == 0
        with archive.transaction():
            with archive.transaction():
                archive.start_import("b", "y", "whatsapp", "now", "")
            assert archive.db.in_transaction  # the inner one did not commit the outer
        assert ledger() == 1
