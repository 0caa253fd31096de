"""A grown DiscordChatExporter export is read on from a mark between two messages although its first bytes
differ with every export (``exportedAt``): the bytes of its messages list, from its opening on, are checked
instead (``importers.discord``, ``jsonstream.Span``). It leaves the archive exactly as a full re-read of the
new file would: after an append, an edit in the middle, a deletion, a reaction added."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_resume_import import BERLIN, both_ways
from test_resume_json import changed

from refind_cli import importers
from refind_cli.importers import discord
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive

NAME = "Kletterkiez - general [77].json"
AUTHORS = [("42", "maya", "Maya"), ("43", "jonas", None), ("44", "aylin", "Aylin D.")]


def message(i: int, content: str | None = None) -> dict:
    """The ``i``-th message of a generated channel, one a minute, as DiscordChatExporter writes it."""
    ident, name, nickname = AUTHORS[i * 7 % 3]
    return {
        "id": str(1_100_000_000_000_000_000 + i),
        "type": "Default",
        "timestamp": f"2024-01-{1 + i // 1440:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00+01:00",
        "timestampEdited": None,
        "isPinned": False,
        "content": content if content is not None else f"message {i} }} " + "words of the day " * (i % 5),
        "author": {"id": ident, "name": name, "nickname": nickname or name, "isBot": False},
        "attachments": [],
        "embeds": [],
        "stickers": [],
        "reactions": [],
        "mentions": [],
    }


def export(
    messages: list[dict], exported: str = "2024-02-01T10:00:00.1234567+01:00", topic: str = ""
) -> bytes:
    """A channel's export as the exporter writes it: its first bytes differ with the export's time."""
    return json.dumps(
        {
            "guild": {"id": "1", "name": "Kletterkiez", "iconUrl": "https://cdn/x.png"},
            "channel": {
                "id": "77",
                "type": "GuildTextChat",
                "category": "Text",
                "name": "general",
                "topic": topic,
            },
            "dateRange": {"after": None, "before": None},
            "exportedAt": exported,
            "messages": messages,
            "messageCount": len(messages),
        },
        indent=2,
        ensure_ascii=False,
    ).encode()


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The parser's read block, which a mark is measured in, made small: a few hundred messages span many.
    monkeypatch.setattr(discord, "_RULES", dataclasses.replace(discord._RULES, block=512))


def grown(tmp_path: Path, versions: list[bytes]) -> tuple[list, list, list]:
    return both_ways(tmp_path, NAME, versions)


MESSAGES = [message(i) for i in range(1, 301)]


def test_an_append_exported_later_is_read_from_the_mark_and_stores_what_a_full_reading_would(tmp_path: Path):
    later = export(MESSAGES, "2024-03-09T23:59:59+01:00", topic='a longer topic, "messages": [ {')
    resumed, reread, results = grown(tmp_path, [export(MESSAGES[:250]), later])
    assert results[-1].resumed_at is not None, "read whole"
    assert resumed == reread
    assert results[-1].chats[0].messages_added == 50
    assert results[-1].chats[0].messages_skipped == 250
    assert len(resumed[1]) == 300


@pytest.mark.parametrize(
    "change",
    [
        lambda m: {**m, "content": "said otherwise", "timestampEdited": "2024-01-02T00:00:00+01:00"},
        lambda m: {**m, "reactions": [{"emoji": {"name": "👍"}, "count": 2}]},
        lambda m: None,  # deleted
    ],
    ids=["edit", "reaction", "deletion"],
)
def test_a_change_before_the_mark_is_read_whole_and_keeps_what_was_archived(tmp_path: Path, change):
    changed = change(MESSAGES[100])
    new = [*MESSAGES[:100], *([changed] if changed else []), *MESSAGES[101:]]
    resumed, reread, results = grown(tmp_path, [export(MESSAGES[:250]), export(new, "2024-03-01")])
    assert results[-1].resumed_at is None
    assert resumed == reread
    assert len(resumed[1]) == 300 + (changed is not None and changed["content"] != MESSAGES[100]["content"])


def test_the_next_import_goes_on_from_the_mark_the_resumed_one_left(tmp_path: Path):
    versions = [export(MESSAGES[:n], f"2024-0{n // 100}-01") for n in (100, 200, 300)]
    resumed, reread, results = grown(tmp_path, versions)
    assert results[1].resumed_at is not None and results[2].resumed_at is not None
    assert results[2].resumed_at > results[1].resumed_at
    assert resumed == reread


def test_a_message_without_an_id_before_the_mark_leaves_none(tmp_path: Path):
    messages = [dict(m) for m in MESSAGES]
    del messages[10]["id"]
    resumed, reread, results = grown(tmp_path, [export(messages[:250]), export(messages)])
    assert results[-1].resumed_at is None
    assert resumed == reread


def test_a_file_of_another_channel_under_the_same_name_is_read_whole(tmp_path: Path):
    other = json.loads(export(MESSAGES))
    other["messages"] = [message(i, f"elsewhere {i}") for i in range(1, 301)]
    resumed, reread, results = grown(tmp_path, [export(MESSAGES[:250]), json.dumps(other, indent=2).encode()])
    assert results[-1].resumed_at is None
    assert resumed == reread


def test_reading_from_a_mark_yields_what_a_whole_reading_yields_after_it(tmp_path: Path):
    path = tmp_path / NAME
    path.write_bytes(export(MESSAGES[:250]))
    first = next(importers.read_export(path, "discord", BERLIN))
    list(first.messages)
    mark = first.end() if first.end else None
    assert mark is not None and mark.read is not None and 0 < mark.read < 250 and mark.digest
    path.write_bytes(export(MESSAGES, "a later time, longer"))
    everything = list(next(importers.read_export(path, "discord", BERLIN)).messages)
    after = next(importers.read_export(path, "discord", BERLIN, mark))
    rest = list(after.messages)
    assert len(everything) == 300 and rest == everything[mark.read :]
    assert after.end and after.end() is not None


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    old=st.integers(1, 120),
    added=st.integers(0, 40),
    change=st.one_of(st.none(), st.tuples(st.sampled_from(["edit", "delete"]), st.floats(0, 1))),
    exported=st.text(alphabet='0123456789T:+-."\\{[', max_size=30),
)
def test_any_grown_export_stores_what_a_full_reading_would(tmp_path_factory, old, added, change, exported):
    tmp_path = tmp_path_factory.mktemp("grown")
    messages = [message(i) for i in range(1, old + added + 1)]
    new = changed(messages, old, change, "content")
    resumed, reread, _ = grown(tmp_path, [export(messages[:old]), export(new, exported)])
    assert resumed == reread


def test_a_mark_is_left_by_the_import_worker_too(tmp_path: Path):
    path = tmp_path / NAME
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export(MESSAGES[:250]))
        assert import_file(archive, path, tz=BERLIN, worker=True).error is None
        path.write_bytes(export(MESSAGES, "later"))
        result = import_file(archive, path, tz=BERLIN, worker=True)
    # The worker reads with the real block: 250 messages fit in a few, so a mark is likely but not sure.
    assert result.error is None and result.chats[0].messages_added == 50
