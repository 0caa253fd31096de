"""Issue 26 item 2 (an import's memory whatever the messages' shape) for the readers that gathered a whole chat
before handing on its first message: a Slack channel (sorted by ``ts``), a Teams file (its chats named by all
their senders, a channel's posts made threads' roots by the replies that name them), a Google Chat group (its
``messages.json`` loaded whole). They now put their messages aside once they are many (``spool``), or stream
them.

Read with a tiny ``spool.HELD`` (on disk from the first few messages), each gives what it gives in memory;
``spool.Sorted`` sorts as ``sorted`` does, stably; a chat four times the size peaks at about the same Python
memory, well below what holding its messages would take."""

from __future__ import annotations

import json
import random
import warnings
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import xxhash
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_huge_message_held import traced_peak

from refind_cli.errors import InputWarning
from refind_cli.importers import container, google_chat, slack, spool, teams
from refind_cli.records import ChatExport, Message

START = datetime(2024, 3, 1, 8, 0, tzinfo=UTC)
WORDS = "dinner Lisbon boulder café 🍅 grüße the wall at ten maybe Saturday".split()
SENDERS = ("Ada Lovelace", "Bo Lindqvist", "Chen Wei")


def _text(i: int) -> str:
    return " ".join(WORDS[(i + k) % len(WORDS)] for k in range(2 + i % 7))


def read_all(chats: Iterator[ChatExport]) -> list[tuple[Any, list[Message], str | None]]:
    """Each chat with its messages, read before the next chat is asked for (as an import reads them)."""
    return [(c.chat, list(c.messages), c.fingerprint) for c in chats]


def _spooled(monkeypatch: pytest.MonkeyPatch, held: int) -> list[int]:
    """``spool.HELD`` set to ``held``; the list counts the spools' writes to disk."""
    monkeypatch.setattr(spool, "HELD", held)
    writes: list[int] = []
    flush = spool.Spool._flush

    def counted(self: spool.Spool[Any]) -> None:
        writes.append(1)
        flush(self)

    monkeypatch.setattr(spool.Spool, "_flush", counted)
    return writes


# --- the spool itself ------------------------------------------------------------------------------------


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.integers(0, 6), max_size=90), held=st.integers(1, 9), fan_in=st.integers(2, 4))
def test_sorted_gives_what_sorted_gives_stably_in_any_runs(
    monkeypatch: pytest.MonkeyPatch, keys: list[int], held: int, fan_in: int
) -> None:
    """In runs of any size, merged in any number at a time (the runs merged into longer ones on the way)."""
    monkeypatch.setattr(spool, "FAN_IN", fan_in)
    records = [(key, n) for n, key in enumerate(keys)]
    made: spool.Sorted[tuple[int, int]] = spool.Sorted(lambda r: r[0], held)
    for record in records:
        made.add(record)
    assert list(made) == sorted(records, key=lambda r: r[0])
    made.close()


@given(puts=st.lists(st.tuples(st.integers(0, 4), st.text(max_size=30)), max_size=80), held=st.integers(1, 9))
def test_a_spool_gives_each_group_back_in_the_order_put(puts: list[tuple[int, str]], held: int) -> None:
    put: spool.Spool[tuple[int, str]] = spool.Spool(held)
    for n, (group, text) in enumerate(puts):
        put.put(group, (n, text))
    for group in range(5):
        assert list(put.records(group)) == [(n, t) for n, (g, t) in enumerate(puts) if g == group]
    put.close()


def test_a_spool_that_cannot_write_holds_its_records(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_: Any, **__: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(spool.tempfile, "TemporaryFile", full)
    put: spool.Spool[int] = spool.Spool(2)
    for n in range(7):
        put.put(n % 2, n)
    assert list(put.records(0)) == [0, 2, 4, 6] and list(put.records(1)) == [1, 3, 5]


# --- Slack: a channel sorted by ts -------------------------------------------------------------------------


def slack_export(
    root: Path, n: int, per_day: int = 40, seed: int = 7, text: Callable[[int], str] = _text
) -> Path:
    """A Slack folder of one channel: ``n`` messages, ``per_day`` to a day file, in ``ts`` order but for a
    shuffled few and ties; every 9th a reply to the message three before, a root without ``reply_count``
    (a thread's root only where a reply names it), every 13th a root that says its ``reply_count``."""
    rng = random.Random(seed)
    root.mkdir(parents=True)
    users = [{"id": f"U{k}", "name": s.split()[0].lower(), "real_name": s} for k, s in enumerate(SENDERS)]
    (root / "users.json").write_text(json.dumps(users), encoding="utf-8")
    (root / "channels.json").write_text(json.dumps([{"id": "C1", "name": "general"}]), encoding="utf-8")
    (root / "general").mkdir()
    stamps = [f"{1709280000 + 60 * i}.{(i * 7919) % 1_000_000:06d}" for i in range(n)]
    days: list[list[dict[str, Any]]] = []
    for i, ts in enumerate(stamps):
        message: dict[str, Any] = {"type": "message", "user": f"U{i % 3}", "text": text(i), "ts": ts}
        if i % 9 == 8:
            message["thread_ts"] = stamps[i - 3]
        elif i % 9 == 5:
            message["thread_ts"] = ts  # a root whose replies say it is one
        elif i % 13 == 0:
            message.update(thread_ts=ts, reply_count=1)
        if i % 50 == 25:
            message["ts"] = stamps[i - 1]  # a tie with the one before
        if i % per_day == 0:
            days.append([])
        days[-1].append(message)
    for day in days:
        if rng.random() < 0.3:
            rng.shuffle(day)  # out of order within the day
    for k in range(0, len(days) - 1, 5):
        days[k + 1].append(days[k].pop(0))  # a message filed under the next day
    for k, day in enumerate(days):
        name = (START + timedelta(days=k)).strftime("%Y-%m-%d")
        (root / "general" / f"{name}.json").write_text(json.dumps(day), encoding="utf-8")
    return root


def test_a_slack_channel_put_aside_reads_as_one_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = slack_export(tmp_path / "slack", 700)
    held = read_all(slack.read(root, tz=UTC))
    writes = _spooled(monkeypatch, 16)
    put_aside = read_all(slack.read(root, tz=UTC))
    assert writes and put_aside == held
    [(_, messages, _)] = held
    assert [m.timestamp for m in messages] == sorted(m.timestamp for m in messages)
    roots = {m.reply_to for m in messages if m.reply_to}
    told = [m for m in messages if m.source_id in roots and json.loads(m.raw).get("thread_ts") == m.source_id]
    assert len(told) > 50 and all(m.thread == m.source_id for m in told)


def test_a_grown_slack_channel_goes_on_the_same_put_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-import reads the day files after the earlier reading's (``known``): the same, put aside or held."""
    root = slack_export(tmp_path / "slack", 400)
    [first] = slack.read(root, tz=UTC)
    assert len(list(first.messages)) == 400 and first.printed is not None
    known = [first.printed()]
    later = [
        {"type": "message", "user": "U1", "text": _text(i), "ts": f"{1809280000 + 60 * i}.000001"}
        for i in range(300)
    ]
    (root / "general" / "2030-01-01.json").write_text(json.dumps(later[::-1]), encoding="utf-8")

    def grown() -> list[tuple[int, list[Message], str | None]]:
        return [
            (c.passed, list(c.messages), c.printed() if c.printed else None)
            for c in slack.read(root, tz=UTC, known=[p for p in known if p])
        ]

    held = grown()
    writes = _spooled(monkeypatch, 8)
    assert grown() == held and writes
    [(passed, messages, _)] = held
    assert passed == 400 and [m.text for m in messages] == [_text(i) for i in range(300)]


# --- Teams: a file's chats named by all their senders --------------------------------------------------------


def teams_file(path: Path, n: int, channel: bool = False, chats: int = 1) -> Path:
    """A Teams message file of ``n`` messages in ``chats`` chats (or one channel), the senders joining one by
    one; every 7th a reply to a post that comes later in the file, every 11th to one before."""
    messages = []
    for i in range(n):
        stamp = (START + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        sender = SENDERS[min(i * 3 // n, 2)] if n >= 3 else SENDERS[0]
        reply = f"{i + 5}" if i % 7 == 3 and i + 5 < n else f"{i - 4}" if i % 11 == 10 else None
        where: dict[str, Any] = (
            {"ChannelIdentity": {"TeamId": "T1", "ChannelId": "19:general@thread.tacv2"}, "ChatId": None}
            if channel
            else {"ChatId": f"19:chat{i % chats}@unq.gbl.spaces"}
        )
        messages.append(
            {
                "Id": f"{i}",
                "ReplyToId": reply,
                "MessageType": "message",
                "CreatedDateTime": stamp,
                "LastEditedDateTime": None,
                "DeletedDateTime": None,
                **where,
                "From": {"User": {"Id": f"u{SENDERS.index(sender)}", "DisplayName": sender}},
                "Body": {"ContentType": "html", "Content": f"<p>{_text(i)}</p>"},
                "Attachments": [],
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(messages, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(("channel", "chats"), [(False, 1), (True, 1), (False, 3)])
def test_a_teams_file_put_aside_reads_as_one_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, channel: bool, chats: int
) -> None:
    path = teams_file(tmp_path / "users" / "me" / "messages_19-chat.json", 600, channel, chats)
    held = read_all(teams.read(path, tz=UTC))
    writes = _spooled(monkeypatch, 16)
    put_aside = read_all(teams.read(path, tz=UTC))
    assert writes and put_aside == held
    assert len(held) == chats
    if channel:  # a post a reply names later in the file is its thread's root
        [(_, messages, _)] = held
        assert messages[8].source_id == "8" and messages[8].thread == "8"
    else:  # named by all its senders, the last joining at its end
        assert all(chat.name == ", ".join(sorted(SENDERS)) for chat, _, _ in held)


# --- Google Chat: a group's messages.json streamed -----------------------------------------------------------


def google_group(folder: Path, n: int, undated: tuple[int, ...] = ()) -> Path:
    """A Google Chat group folder of ``n`` messages; the messages at ``undated`` with a date not readable."""
    messages = []
    for i in range(n):
        t = START + timedelta(minutes=i)
        stamp = f"{t:%A, %B} {t.day}, {t.year} at {t.hour % 12 or 12}:{t:%M:%S %p} UTC"
        sender = SENDERS[i % 3]
        messages.append(
            {
                "creator": {"name": sender, "email": f"{sender.split()[0].lower()}@example.com"},
                "created_date": "Unknown Date" if i in undated else stamp,
                "text": _text(i),
                "topic_id": f"t{i}",
                "message_id": f"SPACE1/t{i}/m{i}",
            }
        )
    folder.mkdir(parents=True)
    (folder / "messages.json").write_text(
        json.dumps({"messages": messages}, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    (folder / "group_info.json").write_text(json.dumps({"name": "Space 1"}), encoding="utf-8")
    return folder


def test_a_google_chat_group_streams_with_the_fingerprint_of_its_bytes(tmp_path: Path) -> None:
    """Its chat, messages and fingerprint as the whole file gives them: the fingerprint, told once the
    messages are read, hashes the file's bytes (with its folder, its group_info.json and the account), and the
    bytes before a head of its list."""
    folder = google_group(tmp_path / "Groups" / "Space SPACE1", 1500)  # longer than a read block
    [export] = google_chat.read(folder, tz=UTC)
    chat, messages = export.chat, list(export.messages)
    assert export.fingerprint is None and export.printed is not None
    raw = (folder / "messages.json").read_bytes()
    tag = container.fingerprint([b"Space SPACE1", (folder / "group_info.json").read_bytes(), b""])
    [told] = google_chat._Print.parse([export.printed() or ""])[tag]
    assert told.whole == container.fingerprint(
        [tag.encode(), f"xxh3 {container.fingerprint([raw])}".encode()]
    )
    assert told.key == "SPACE1" and told.head is not None and 0 < told.head.items < 1500
    assert told.digest == xxhash.xxh3_128_hexdigest(raw[: told.head.offset])
    assert (
        json.loads(raw[: told.head.offset].rstrip(b", \n") + b"]}")["messages"]
        == json.loads(raw)["messages"][: told.head.items]
    )
    entries = json.loads(raw)["messages"]
    assert chat.key == "SPACE1" and chat.name == "Space 1"
    assert [json.loads(m.raw) for m in messages] == entries
    assert [m.timestamp for m in messages] == [START + timedelta(minutes=i) for i in range(1500)]


def test_google_chat_messages_before_the_first_date_wait_for_it_put_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = google_group(tmp_path / "Groups" / "Space SPACE1", 200, undated=(*range(40), 90, 91))
    writes = _spooled(monkeypatch, 8)
    with pytest.warns(InputWarning, match=r"42 messages whose created_date .* first at messages\[0\]"):
        [(_, messages, _)] = read_all(google_chat.read(folder, tz=UTC))
    assert writes
    times = [m.timestamp for m in messages]
    assert times[:41] == [START + timedelta(minutes=40)] * 41
    assert times[90:92] == [START + timedelta(minutes=89)] * 2 and times[92] == START + timedelta(minutes=92)
    assert [m.source_id for m in messages] == [f"SPACE1/t{i}/m{i}" for i in range(200)]


def test_a_google_chat_group_whose_messages_are_all_undated_is_an_error(tmp_path: Path) -> None:
    folder = google_group(tmp_path / "Groups" / "Space SPACE1", 5, undated=tuple(range(5)))
    with pytest.raises(Exception, match="no message has a created_date refind can read"):
        read_all(google_chat.read(folder, tz=UTC))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunk=st.integers(1, 4096))
def test_a_zipped_google_chat_group_reads_the_same_in_any_chunk(tmp_path_factory: Any, chunk: int) -> None:
    root = tmp_path_factory.mktemp("gchat")
    folder = google_group(root / "Takeout" / "Google Chat" / "Groups" / "Space SPACE1", 60, undated=(0, 30))
    zipped = root / "takeout.zip"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in sorted(folder.iterdir()):
            zf.write(file, file.relative_to(root).as_posix())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        whole = read_all(google_chat.read(folder, tz=UTC))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(container, "CHUNK", chunk)
            pieces = read_all(google_chat.read(zipped, tz=UTC))
    assert [(c, m) for c, m, _ in pieces] == [(c, m) for c, m, _ in whole]


# --- memory: a chat sixteen times the size ------------------------------------------------------------------


def _consumed(chats: Iterator[ChatExport]) -> int:
    """Reads every message and keeps none: what an import does with them."""
    return sum(1 for chat in chats for _ in chat.messages)


def _slack_at(root: Path, n: int) -> Callable[[], Iterator[ChatExport]]:
    """Zipped, as Slack gives it (an unpacked folder's channel is fingerprinted by its files' bytes, held)."""
    folder = slack_export(root / "export", n)
    zipped = root / "Bench Slack export.zip"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in sorted(folder.rglob("*.json")):
            zf.write(file, file.relative_to(folder).as_posix())
    return lambda: slack.read(zipped, tz=UTC)


def _teams_at(root: Path, n: int) -> Callable[[], Iterator[ChatExport]]:
    path = teams_file(root / "users" / "me" / "messages_19-chat.json", n, channel=True)
    return lambda: teams.read(path, tz=UTC)


def _google_at(root: Path, n: int) -> Callable[[], Iterator[ChatExport]]:
    folder = google_group(root / "Groups" / "Space SPACE1", n)
    return lambda: google_chat.read(folder, tz=UTC)


@pytest.mark.parametrize("reader", [_slack_at, _teams_at, _google_at], ids=["slack", "teams", "google-chat"])
def test_memory_does_not_grow_with_the_chat(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reader: Callable[[Path, int], Callable[[], Iterator[ChatExport]]],
) -> None:
    """A chat of 16,000 messages peaks at little more than the Python memory of one of 1,000 (less than two and
    a half times it, and a MiB: the file's read chunk; a sort's runs open at once grow as the log of their
    number), where holding its messages (as these readers did) took sixteen times as much. Each reading holds 500 messages at most (``spool.HELD``), as a real one holds
    20,000 of a million, and a sort merges 4 runs at a time (``spool.FAN_IN``) in slices of 8 KB, as a real one merges 64 in
    slices of 64 KB."""
    monkeypatch.setattr(spool, "HELD", 500)
    monkeypatch.setattr(spool, "FAN_IN", 4)
    monkeypatch.setattr(spool, "SLICE_BYTES", 8 << 10)
    small, large = reader(tmp_path / "small", 1_000), reader(tmp_path / "large", 16_000)
    small_peak, large_peak = traced_peak(lambda: _consumed(small())), traced_peak(lambda: _consumed(large()))
    assert large_peak < 2.5 * small_peak + (1 << 20), (small_peak, large_peak)
