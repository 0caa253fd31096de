"""A grown JSON export (a one-chat Telegram ``result.json``) is read on from where an earlier reading left a
head between two messages, without parsing the bytes before it (``importers.jsonstream.Head``,
``ingest.resume``), and leaves the archive exactly as a full re-read of the new file would: after an append,
an edit in the middle, a deletion."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import JONAS
from test_resume_import import BERLIN, both_ways

from refind_cli import importers
from refind_cli.importers import jsonstream, telegram
from refind_cli.ingest import import_file, worker
from refind_cli.storage.archive import Archive

SENDERS = [("Maya Lindqvist", "user1"), ("Jonas Becker", "user2"), ("Aylin Demir", "user3")]


def message(i: int, text: str | None = None) -> dict:
    """The ``i``-th message of a generated chat, one a minute, as Telegram Desktop writes it."""
    sender, sender_id = SENDERS[i * 7 % 3 if i % 4 else 0]
    stamp = 1_600_000_000 + 60 * i
    return {
        "id": i,
        "type": "message",
        "date": f"{datetime.fromtimestamp(stamp, UTC):%Y-%m-%dT%H:%M:%S}",
        "date_unixtime": str(stamp),
        "from": sender,
        "from_id": sender_id,
        "text": text if text is not None else f"message {i} " + "words of the day " * (i % 5),
    }


def result_json(messages: list[dict], dialog: dict | None = None) -> bytes:
    """A one-chat export, indented as the exporter indents: the bytes of an earlier export with fewer
    messages are the first bytes of a later one, up to the close of its last message."""
    head = dialog or {"name": "Bench", "type": "private_group", "id": 4242}
    out = "{\n" + "".join(f" {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items()) + ' "messages": ['
    for n, m in enumerate(messages):
        out += ("\n  " if n == 0 else ",\n  ") + json.dumps(m, ensure_ascii=False, indent=1).replace(
            "\n", "\n  "
        )
    return (out + "\n ]\n}\n").encode()


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The parser's read block, which a mark is measured in, made small: a few hundred messages then span
    # many blocks, as a million do with the real one.
    rules = dataclasses.replace(telegram._RULES, block=512)
    monkeypatch.setattr(telegram, "_JsonStream", functools.partial(jsonstream.Stream, rules=rules))


def grown(tmp_path: Path, versions: list[bytes]) -> tuple[list, list, list]:
    return both_ways(tmp_path, "result.json", versions)


def test_an_append_is_read_from_the_head_and_stores_what_a_full_reading_would(tmp_path: Path):
    messages = [message(i) for i in range(1, 301)]
    resumed, reread, results = grown(tmp_path, [result_json(messages[:250]), result_json(messages)])
    assert results[-1].resumed_at is not None, "read whole"
    assert resumed == reread
    assert results[-1].chats[0].messages_added == 50
    assert results[-1].chats[0].messages_skipped == 250
    assert len(resumed[1]) == 300


def test_with_the_real_block_a_grown_export_goes_on_from_its_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.undo()
    messages = [message(i) for i in range(1, 1201)]  # about four of the parser's 64 KB blocks
    resumed, reread, results = grown(tmp_path, [result_json(messages[:1100]), result_json(messages)])
    assert results[-1].resumed_at is not None
    assert resumed == reread


def test_a_message_edited_before_the_mark_is_read_whole_and_keeps_the_older_text(tmp_path: Path):
    messages = [message(i) for i in range(1, 301)]
    edited = [*messages[:100], {**messages[100], "text": "said otherwise", "edited": "2020-09-14T10:00:00"}]
    resumed, reread, results = grown(
        tmp_path, [result_json(messages[:250]), result_json(edited + messages[101:])]
    )
    assert results[-1].resumed_at is None
    assert resumed == reread
    texts = [row[7] for row in resumed[1]]
    assert "said otherwise" in texts and messages[100]["text"] in texts


def test_a_message_deleted_before_the_mark_is_read_whole_and_kept(tmp_path: Path):
    messages = [message(i) for i in range(1, 301)]
    resumed, reread, results = grown(
        tmp_path, [result_json(messages[:250]), result_json(messages[:100] + messages[101:])]
    )
    assert results[-1].resumed_at is None
    assert resumed == reread
    assert len(resumed[1]) == 300  # the deleted message stays archived


def changed(messages: list[dict], old: int, change: tuple[str, float] | None, field: str) -> list[dict]:
    """``messages`` with one of the first ``old`` edited (its ``field`` said otherwise) or deleted, at the
    share of them ``change`` says; as they are for None."""
    new = list(messages)
    if change is not None:
        what, where = change
        at = min(int(where * old), old - 1)
        if what == "edit":
            new[at] = {**new[at], field: new[at][field] + " (edited)"}
        else:
            del new[at]
    return new


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    old=st.integers(1, 120),
    added=st.integers(0, 40),
    change=st.one_of(st.none(), st.tuples(st.sampled_from(["edit", "delete"]), st.floats(0, 1))),
)
def test_any_grown_export_stores_what_a_full_reading_would(tmp_path_factory, old: int, added: int, change):
    tmp_path = tmp_path_factory.mktemp("grown")
    messages = [message(i) for i in range(1, old + added + 1)]
    new = changed(messages, old, change, "text")
    # A change after the mark (in the last block read) is read with what was added.
    resumed, reread, _ = grown(tmp_path, [result_json(messages[:old]), result_json(new)])
    assert resumed == reread


def test_the_next_import_goes_on_from_the_mark_the_resumed_one_left(tmp_path: Path):
    messages = [message(i) for i in range(1, 401)]
    versions = [result_json(messages[:n]) for n in (200, 300, 400)]
    resumed, reread, results = grown(tmp_path, versions)
    assert results[1].resumed_at is not None and results[2].resumed_at is not None
    assert results[2].resumed_at > results[1].resumed_at
    assert resumed == reread
    with Archive.open(tmp_path / "resume" / "home") as archive:  # the marks gone on from are dropped
        assert archive.db.execute("SELECT count(*) FROM imports WHERE resume IS NOT NULL").fetchone()[0] == 1


def test_a_mark_is_left_by_the_import_worker_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    if not worker.can_use_a_worker():
        pytest.skip("one core")
    monkeypatch.undo()  # the worker process reads with the real block
    messages = [message(i) for i in range(1, 1201)]
    export = tmp_path / "result.json"
    with Archive.open(tmp_path / "home") as archive:
        export.write_bytes(result_json(messages[:1100]))
        assert import_file(archive, export, tz=BERLIN, worker=True).error is None
        export.write_bytes(result_json(messages))
        result = import_file(archive, export, tz=BERLIN, worker=True)
        assert result.resumed_at is not None and result.chats[0].messages_added == 100


def test_a_message_without_an_id_before_the_mark_leaves_none(tmp_path: Path):
    # Its identity is a hash counted among identical ones (storage.identity): the messages after it could
    # not be told apart from it without reading it.
    messages = [message(i) for i in range(1, 301)]
    del messages[10]["id"]
    resumed, reread, results = grown(tmp_path, [result_json(messages[:250]), result_json(messages)])
    assert results[-1].resumed_at is None
    assert resumed == reread


@pytest.mark.parametrize("codec", ["utf-16", "utf-32"])
def test_an_export_saved_as_utf16_or_32_is_read_whole_and_right(tmp_path: Path, codec: str):
    # Its parser reads UTF-8 made from the file: a mark counted in those bytes would not be the file's.
    messages = [message(i) for i in range(1, 301)]
    versions = [result_json(messages[:n]).decode().encode(codec) for n in (250, 300)]
    resumed, reread, results = grown(tmp_path, versions)
    assert results[-1].resumed_at is None
    assert resumed == reread and len(resumed[1]) == 300


@pytest.mark.parametrize("shape", ["account", "zip"])
def test_an_account_export_has_no_mark_and_a_zip_goes_on_from_its_own(tmp_path: Path, shape: str):
    """An account export's dialogs are passed over by their fingerprints (``test_resume_telegram``), not
    read on from a mark; a zip's mark holds the hash of the bytes before it, which its reader checks."""
    messages = [message(i) for i in range(1, 301)]

    def export(n: int) -> bytes:
        if shape == "account":
            chat = json.loads(result_json(messages[:n]))
            return json.dumps({"chats": {"list": [chat]}}, indent=1).encode()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("Telegram Desktop/result.json", result_json(messages[:n]))
        return buf.getvalue()

    resumed, reread, results = grown(tmp_path, [export(250), export(300)])
    assert (results[-1].resumed_at is None) == (shape == "account")
    assert resumed == reread


def test_reading_from_a_mark_yields_what_a_whole_reading_yields_after_it(tmp_path: Path):
    messages = [message(i) for i in range(1, 301)]
    path = tmp_path / "result.json"
    path.write_bytes(result_json(messages[:250]))
    export = next(importers.read_export(path, "telegram", BERLIN))
    list(export.messages)
    mark = export.end() if export.end else None
    assert mark is not None and mark.read is not None and 0 < mark.read < 250
    path.write_bytes(result_json(messages))
    everything = list(next(importers.read_export(path, "telegram", BERLIN)).messages)
    after = next(importers.read_export(path, "telegram", BERLIN, mark))
    rest = list(after.messages)
    assert len(everything) == 300 and rest == everything[mark.read :]
    assert after.end and after.end() is not None  # and leaves a mark for the next one


# Items as an export's list holds them: objects with strings that hold the bytes a head is told by.
ITEMS = st.lists(
    st.dictionaries(
        st.sampled_from(["id", "text", "from", "parts"]),
        st.one_of(
            st.text(alphabet=st.sampled_from('ab }]{[,"\\\n\u00e9\U0001f600'), max_size=40),
            st.integers(-(2**62), 2**62),
            st.lists(st.dictionaries(st.just("text"), st.text(alphabet="x}", max_size=5)), max_size=2),
        ),
        min_size=1,
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(items=ITEMS, indent=st.sampled_from([None, 1]), block=st.sampled_from([16, 64, 200]), data=st.data())
def test_a_head_is_between_two_items_and_a_fresh_parser_reads_on_from_it(items, indent, block, data):
    grown = items + data.draw(ITEMS, label="added")
    rules = dataclasses.replace(telegram._RULES, block=block, repair=None)

    def read(raw: bytes) -> tuple[list, jsonstream.Head | None]:
        stream = jsonstream.Stream(iter([raw[i : i + 97] for i in range(0, len(raw), 97)]), _fail, rules)
        stream.cut_after = b"}"
        events = jsonstream.JsonEvents(stream)
        assert events.next() == ("start_map", None) and events.next() == ("map_key", "messages")
        assert events.next()[0] == "start_array"
        return [obj for obj, _ in events.array("messages")], events.head

    def dump(values: list) -> bytes:
        text = json.dumps({"messages": values}, indent=indent, ensure_ascii=False)
        return text.encode()

    earlier, head = read(dump(items))
    assert earlier == items
    if head is None:
        return
    raw = dump(grown)
    # The bytes before the head are the earlier file's, and hold its first items whole.
    assert raw[: head.offset] == dump(items)[: head.offset]
    stream = jsonstream.Stream(iter([]), _fail, rules)
    events = jsonstream.JsonEvents(stream)
    chunks = iter([raw[head.offset :]])
    passed = events.go_on(head, chunks, raw[: head.offset][-4096:], ["messages"])
    assert passed is not None
    assert [obj for obj, _ in events.array("messages", passed)] == grown[head.items :]


def _fail(what: str, where: str | None) -> Exception:
    raise AssertionError(f"{what} at {where}")


def test_a_mark_an_earlier_release_left_under_sha256_reads_the_grown_file_whole_once(tmp_path: Path):
    # Before issue 26's second part the ledger hashed exports with SHA-256: such a mark is not found again
    # (the file is read whole, which adds what is new), and the import leaves one the next import goes on from.
    lines = JONAS.read_bytes().splitlines(keepends=True)
    versions = [b"".join(lines[:n]) for n in (100, 150, len(lines))]
    export = tmp_path / JONAS.name
    with Archive.open(tmp_path / "home") as archive:
        export.write_bytes(versions[0])
        import_file(archive, export, tz=BERLIN)
        sha256 = hashlib.sha256(JONAS.name.encode() + b"\x00" + versions[0]).hexdigest()
        archive.db.execute("UPDATE imports SET sha256 = ?", (sha256,))
        export.write_bytes(versions[1])
        once = import_file(archive, export, tz=BERLIN)
        assert once.resumed_at is None and once.chats[0].messages_added > 0
        export.write_bytes(versions[2])
        assert import_file(archive, export, tz=BERLIN).resumed_at == len(versions[1])
    resumed, reread, _ = both_ways(tmp_path / "ways", JONAS.name, versions)
    assert resumed == reread
