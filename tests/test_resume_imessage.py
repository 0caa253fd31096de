"""A grown imessage-exporter TXT file is read as it streams, and read on from the mark its last import left
(importers/imessage.py); the archive ends exactly as a full re-read (``reread=True``) of the new file leaves
it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_resume_import import BERLIN, reimported

from refind_cli import importers
from refind_cli.records import NotResumable

FIXTURE = Path(__file__).parent / "fixtures" / "phone" / "imessage-gym.txt"
NAME = "+15555550123.txt"


def blocks(n: int, start: int = 0, sender: str = "+15555550123") -> list[bytes]:
    """``n`` blocks as the exporter writes them, a minute apart, each with its blank line after it."""
    out = []
    for i in range(start, start + n):
        stamp = f"Apr {1 + i // 600:02d}, 2024 {1 + i // 60 % 10:2d}:{i % 60:02d}:00 AM"
        who = "Me" if i % 3 == 0 else sender
        body = f"message {i}" + ("\nTapbacks:\nLoved by Me" if i % 7 == 0 else "")
        out.append(f"{stamp}\n{who}\n{body}\n\n".encode())
    return out


def test_an_append_is_read_from_the_mark_and_stores_what_a_full_reading_would(tmp_path: Path):
    old = b"".join(blocks(40))
    new = old + b"".join(blocks(15, 40))
    resumed, results = reimported(tmp_path, NAME, [old, new], len(old))
    assert results[-1].chats[0].messages_added == 15
    assert len(resumed[1]) == 55


def test_a_second_sender_after_the_mark_makes_the_chat_a_group_as_a_full_reading_does(tmp_path: Path):
    old = b"".join(blocks(10))
    # The first new block's sender is the one before the mark: the second comes after it.
    new = old + blocks(1, 10)[0] + b"".join(blocks(3, 11, sender="+15555550999"))
    resumed, _ = reimported(tmp_path, NAME, [old, new], len(old))
    assert [row[5] for row in resumed[0]] == ["group"]


def test_the_next_import_goes_on_from_the_mark_the_resumed_one_left(tmp_path: Path):
    versions = [b"".join(blocks(n)) for n in (10, 20, 30)]
    _, results = reimported(tmp_path, NAME, versions, len(versions[1]))
    assert results[1].resumed_at == len(versions[0])


def test_a_file_edited_before_the_mark_is_read_whole_and_keeps_the_older_version(tmp_path: Path):
    old = blocks(30)
    edited = [*old[:10], old[10].replace(b"message", b"edited message"), *old[11:], *blocks(5, 30)]
    resumed, _ = reimported(tmp_path, NAME, [b"".join(old), b"".join(edited)], None)
    assert len(resumed[1]) == 30 + 5 + 1


def test_a_message_deleted_before_the_mark_is_read_whole_and_kept(tmp_path: Path):
    old = blocks(30)
    resumed, _ = reimported(tmp_path, NAME, [b"".join(old), b"".join(old[:12] + old[13:])], None)
    assert len(resumed[1]) == 30


def test_an_unchanged_file_adds_nothing(tmp_path: Path):
    old = b"".join(blocks(20))
    _, results = reimported(tmp_path, NAME, [old, old + b"\n"], len(old))
    assert results[-1].chats[0].messages_added == 0
    assert results[-1].chats[0].messages_skipped == 20


def test_lines_after_the_mark_that_go_on_with_the_last_message_read_whole(tmp_path: Path):
    old = b"".join(blocks(10))
    # A blank line, then more of the last block's body: a message can hold empty lines.
    reimported(tmp_path / "body", NAME, [old, old + b"and more of the last one\n\n" + blocks(1, 10)[0]], None)
    # A file that ends with its last block's stamp line: its sender comes after the mark.
    cut = old + blocks(1, 10)[0].split(b"\n")[0] + b"\n"
    reimported(tmp_path / "stamp", NAME, [cut, old + blocks(2, 10)[0] + blocks(2, 10)[1]], None)


def test_the_same_message_again_after_the_mark_is_its_second_occurrence(tmp_path: Path):
    old = blocks(10)
    _, results = reimported(tmp_path, NAME, [b"".join(old), b"".join([*old, old[-1]])], len(b"".join(old)))
    assert results[-1].chats[0].messages_added == 1


def read_all(path: Path, after=None) -> tuple[list, object]:
    [export] = importers.read_export(path, "imessage", BERLIN, after)
    messages = list(export.messages)
    return [export.chat, *messages], export.end() if export.end else None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_reading_from_a_mark_yields_what_a_whole_reading_yields_after_it(tmp_path: Path, data):
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    cut = data.draw(st.integers(1, len(lines) - 1), label="cut")
    extra = data.draw(st.lists(st.sampled_from(lines), max_size=6), label="appended")
    path = tmp_path / FIXTURE.name
    path.write_bytes(b"".join(lines[:cut]))
    try:
        before, mark = read_all(path)
    except Exception:  # a cut inside the first block: not an export yet
        return
    path.write_bytes(b"".join(lines + extra))
    whole, whole_end = read_all(path)
    if mark is None:
        return
    try:
        after, end = read_all(path, mark)
    except NotResumable:
        return  # read whole: always right (the archive tests hold that an append does go on)
    assert before[1:] + after[1:] == whole[1:]
    assert after[0] == whole[0]
    assert end == whole_end
