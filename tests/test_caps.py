"""Turn and session caps through the import: streamed and re-planned segmentation agree, and archives made
before the caps change on re-import only where a turn or a session was over a cap."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.ingest import files as ingest_files
from refind_cli.ingest import import_chat, import_file, resegment_chat
from refind_cli.method import segment
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CHAT = Chat("telegram", "Jonas", "Jonas")
SMALL = segment.Caps(turn_messages=3, turn_chars=20, session_messages=5)

BATCH = st.lists(
    st.tuples(
        st.integers(0, 200),  # minutes: equal times, and gaps on either side of the one-hour session gap
        st.sampled_from(["Maya", "Jonas"]),
        # A NUL character (SQLite's length() stops there) and letters of more than one byte: a re-plan
        # counts characters as the streamed plan does.
        st.sampled_from(["ok", "the dentist moved", "dî\x00ner at 8 🎂"]),
        st.sampled_from([None, None, None, "t1"]),
    ),
    max_size=30,
)


def messages(batch: list, first: int) -> list[Message]:
    # Distinct source ids: the two imports never share a message by accident.
    return [
        Message(T0 + timedelta(minutes=minute), sender, text, source_id=str(first + i), thread=thread)
        for i, (minute, sender, text, thread) in enumerate(batch)
    ]


def turns(archive: Archive) -> list[tuple[str, str]]:
    return sorted((t.id, t.text) for t in archive.iter_turns())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(older=BATCH, newer=BATCH)
def test_capped_plans_agree_streamed_replanned_and_incremental(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, older: list, newer: list
):
    monkeypatch.setattr(segment, "CAPS", SMALL)
    old, new = messages(older, 0), messages(newer, 1000)
    with Archive.open(tmp_path_factory.mktemp("a")) as a, Archive.open(tmp_path_factory.mktemp("b")) as b:
        import_chat(a, CHAT, old)
        import_chat(a, CHAT, new)  # re-planned from the stored rows, from the earliest new message on
        # One import of everything in time order: planned while the rows stream in.
        import_chat(b, CHAT, sorted(old + new, key=lambda m: m.timestamp))
        assert turns(a) == turns(b)
        for (chat_seq,) in a.db.execute("SELECT seq FROM chats").fetchall():
            assert resegment_chat(a, chat_seq) == 0


def whatsapp(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"01/03/2026, {line}\n" for line in lines))
    return path


def test_reimporting_an_archive_from_before_the_caps_changes_only_over_cap_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    calm = ["09:00 - Maya: dentist on the 14th?", "09:01 - Jonas: yes 10am", "09:02 - Maya: ok"]
    # A flood: one sender, 150 messages in one minute, two hours after the calm talk.
    flood = [f"11:00 - Jonas: line {i}" for i in range(150)]
    a = whatsapp(tmp_path / "WhatsApp Chat with Jonas.txt", calm)
    b = whatsapp(tmp_path / "WhatsApp Chat with Bot.txt", calm + flood)
    tz = UTC
    with Archive.open(tmp_path / "home") as archive:
        with monkeypatch.context() as mp:
            # What an archive made before the caps holds: uncapped plans, stored under the old key.
            mp.setattr(segment, "CAPS", segment.Caps(10**9, 10**9, 10**9))
            mp.setattr(
                ingest_files,
                "segmenting_key",
                lambda pairing, gap: f"{pairing}:{int(gap.total_seconds() * 1e6)}",
            )
            import_file(archive, a, tz=tz)
            import_file(archive, b, tz=tz)
        before = turns(archive)
        assert len(before) == 3 + 3 + 1  # the flood was one turn

        again = [import_file(archive, p, tz=tz) for p in (a, b)]
        assert [c.sessions_changed for r in again for c in r.chats] == [0, 1]
        after = turns(archive)
        # The calm sessions keep their ids and texts; the flood's session is now turns of at most 100 lines.
        assert [t for t in after if not t[1].startswith("line")] == [
            t for t in before if not t[1].startswith("line")
        ]
        flood_turns = [t for t in after if t[1].startswith("line")]
        assert [text.count("\n") + 1 for _, text in flood_turns] == [100, 50]
        # Nothing left to do: a third import reads nothing and changes nothing.
        assert [c.sessions_changed for p in (a, b) for c in import_file(archive, p, tz=tz).chats] == [0, 0]
