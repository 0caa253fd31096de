"""Google Hangouts read an event at a time (issue 26): a conversation's events are streamed, each conversation
is fingerprinted by its bytes (``jsonstream.Items``), passed over unparsed where an earlier import read it as
it is, and read on from a head of its events where it grew. The archive a re-import leaves is the one a full
``--reread`` leaves, in both layouts, loose and zipped, after an append, an edit in the middle, a deletion; a
home written by the reader before (its fingerprints a hash of each parsed conversation) is upgraded by one
reading of every conversation. The reader's output is the old reader's (kept here as the oracle) on generated
files of every shape it takes, and its memory does not grow with a conversation's events."""

from __future__ import annotations

import copy
import gc
import json
import shutil
import tracemalloc
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_resume_import import BERLIN, archive_rows

from refind_cli.errors import InputError
from refind_cli.importers import conversations, fields, hangouts
from refind_cli.importers.conversations import as_dict, as_list, dump, text_of
from refind_cli.ingest import import_file
from refind_cli.records import Chat, ChatExport
from refind_cli.storage.archive import Archive

# --- the reader before this change (main at 8860cf5), kept as the oracle ---------------------------------


def old_read(path: Path) -> Iterator[ChatExport]:
    gaps = fields.Gaps(path)
    for where, item, reader in conversations.read(path, hangouts.WHAT, hangouts.FILE, hangouts.LISTS):
        yield _old_conversation(item, where, reader, gaps)
    gaps.warn()


def _old_conversation(item: dict[str, Any], where: str, reader: Any, gaps: fields.Gaps) -> ChatExport:
    if "conversation_state" in item:
        state = as_dict(item.get("conversation_state"))
        conv, events = as_dict(state.get("conversation")), state.get("event")
        key = as_dict(item.get("conversation_id")).get("id")
    elif "conversation" in item or "events" in item:
        outer = as_dict(item.get("conversation"))
        conv, events = as_dict(outer.get("conversation")), item.get("events")
        key = as_dict(outer.get("conversation_id")).get("id")
    else:
        raise reader.error(f"a conversation in neither Hangouts layout; not {hangouts.WHAT}", where or None)
    if events is None:
        gaps.lack("conversation", "events")
    events = [] if events is None else events
    if not isinstance(events, list):
        raise reader.error("its events are not a list", where or None)
    first = as_dict(events[0]) if events else {}
    there = (first.get("timestamp"), first.get("event_id"), first.get("chat_message"))
    key = gaps.key("conversation", "id", fields.ident(key) or as_dict(conv.get("id")).get("id"), *there)
    names: dict[str, str] = {}
    for person in as_list(conv.get("participant_data")):
        person = as_dict(person)
        ident = hangouts._gaia(person.get("id"))
        if ident:
            names[ident] = text_of(person.get("fallback_name")) or ident
    me = hangouts._gaia(
        as_dict(as_dict(conv.get("self_conversation_state")).get("self_read_state")).get("participant_id")
    ) or next(
        (
            g
            for e in events
            if (g := hangouts._gaia(as_dict(as_dict(e).get("self_event_state")).get("user_id")))
        ),
        None,
    )
    group = text_of(conv.get("type")) == "GROUP"
    others = [name for ident, name in names.items() if ident != me]
    name = text_of(conv.get("name")).strip() or ", ".join(others) or f"Hangouts {key}"
    meta = {k: v for k, v in conv.items() if k not in ("read_state",)}
    chat = Chat(hangouts.FORMAT, key, name, kind="group" if group else "direct", raw=dump(meta))

    def messages() -> Iterator[Any]:
        for index, event in enumerate(events):
            place = f"{where}.events[{index}]".lstrip(".")
            if not isinstance(event, dict):
                raise reader.error("an event is not a JSON object", place)
            yield hangouts._message(event, place, names, me, reader.error, gaps)

    return ChatExport(chat, messages(), fingerprint=conversations.fingerprint(item))


# --- exports -------------------------------------------------------------------------------------------

PEOPLE = ("111", "222", "333")


def event(c: int, i: int, *, edit: bool = False, ident: bool = True, mine: bool = False) -> dict:
    sender = PEOPLE[i % 3 if c % 2 else i % 2]
    return {
        "conversation_id": {"id": f"conv{c}"},
        "sender_id": {"gaia_id": sender, "chat_id": sender},
        "timestamp": str(1_465_999_200_000_000 + 86_400_000_000 * c + 60_000_000 * i),
        **({"self_event_state": {"user_id": {"gaia_id": "111"}}} if mine else {}),
        "chat_message": {
            "message_content": {
                "segment": [
                    {"type": "TEXT", "text": f"conversation {c} event {i} about the crag"},
                    *([{"type": "TEXT", "text": " (edited)"}] if edit else []),
                ]
            }
        },
        **({"event_id": f"c{c}-e{i}"} if ident else {}),
        "event_type": "REGULAR_CHAT_MESSAGE",
    }


def header(c: int, *, account: bool = True) -> dict:
    people = PEOPLE if c % 2 else PEOPLE[:2]
    conv = {
        "id": {"id": f"conv{c}"},
        "type": "GROUP" if c % 2 else "STICKY_ONE_TO_ONE",
        **({"name": f"Crew {c}"} if c % 4 == 1 else {}),
        **(
            {"self_conversation_state": {"self_read_state": {"participant_id": {"gaia_id": "111"}}}}
            if account
            else {}
        ),
        "read_state": [{"participant_id": {"gaia_id": g}} for g in people],
        "participant_data": [
            {"id": {"gaia_id": g, "chat_id": g}, "fallback_name": f"Person {g}"} for g in people
        ],
    }
    return conv


def conversation(c: int, length: int, old: bool = False, **changes: Any) -> dict:
    edit, gone = changes.get("edit"), changes.get("gone")
    events = [event(c, i, edit=i == edit) for i in range(length) if i != gone]
    if old:
        return {
            "conversation_id": {"id": f"conv{c}"},
            "conversation_state": {
                "conversation_id": {"id": f"conv{c}"},
                "conversation": header(c),
                "event": events,
            },
        }
    return {
        "conversation": {"conversation_id": {"id": f"conv{c}"}, "conversation": header(c)},
        "events": events,
    }


def export(items: list[dict], old: bool = False) -> bytes:
    key = "conversation_state" if old else "conversations"
    return json.dumps({"continuation_end_timestamp": "1", key: items}, indent=1).encode()


LENGTH = 60


def versions(change: str, old: bool) -> tuple[bytes, bytes]:
    earlier = [conversation(c, LENGTH, old) for c in range(6)]
    later = [conversation(c, LENGTH, old) for c in range(6)]
    later[5] = conversation(5, LENGTH + 25, old)  # the last one grew
    if change == "grown in the middle":
        later[2] = conversation(2, LENGTH + 7, old)
    elif change == "edit":
        later[3] = conversation(3, LENGTH, old, edit=30)
    elif change == "message deleted":
        later[1] = conversation(1, LENGTH, old, gone=40)
    elif change == "deletion":
        del later[2]
    elif change == "new":
        later.append(conversation(6, 5, old))
    return export(earlier, old), export(later, old)


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read blocks of 4 KB: a conversation of 60 events spans several, so that it has heads (a real one of
    thousands of events has them in 1 MB blocks)."""
    monkeypatch.setattr(hangouts, "BLOCK", 4096)


def zipped(data: bytes) -> bytes:
    import io

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("Takeout/Hangouts/Hangouts.json", data)
    return out.getvalue()


def both_ways(tmp_path: Path, name: str, versions: list[bytes]) -> tuple[list, list, list]:
    """Each version imported in turn into two homes, the last re-imported in the first and re-read whole
    (``--reread``) in the second: the two archives, and the first home's results."""
    out, results = [], []
    for way in ("resume", "reread"):
        path = tmp_path / way / name
        path.parent.mkdir(parents=True)
        with Archive.open(tmp_path / way / "home") as archive:
            for i, content in enumerate(versions):
                path.write_bytes(content)
                last = i == len(versions) - 1
                result = import_file(archive, path, tz=BERLIN, reread=last and way == "reread", worker=False)
                assert result.error is None, result.error
                if way == "resume":
                    results.append(result)
            out.append(archive_rows(archive))
    return out[0], out[1], results


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The places of the events the reader builds, from now on."""
    built: list[str] = []
    original = hangouts._message
    monkeypatch.setattr(
        hangouts, "_message", lambda event, place, *a: built.append(place) or original(event, place, *a)
    )
    return built


CHANGES = ["append", "grown in the middle", "edit", "message deleted", "deletion", "new"]


@pytest.mark.parametrize("old", [False, True], ids=["2017 layout", "2016 layout"])
@pytest.mark.parametrize("change", CHANGES)
def test_a_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str, old: bool):
    earlier, later = versions(change, old)
    resumed, reread, results = both_ways(tmp_path, "Hangouts.json", [earlier, later])
    assert resumed == reread
    events = sum(
        len(c["events"] if "events" in c else c["conversation_state"]["event"])
        for c in json.loads(later)["conversation_state" if old else "conversations"]
    )
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == events


@pytest.mark.parametrize("change", ["append", "edit", "deletion"])
def test_a_zipped_takeout_reimports_as_a_full_reread(tmp_path: Path, change: str):
    earlier, later = versions(change, False)
    resumed, reread, _ = both_ways(tmp_path, "takeout.zip", [zipped(earlier), zipped(later)])
    assert resumed == reread


@pytest.mark.parametrize("name, wrap", [("Hangouts.json", lambda d: d), ("takeout.zip", zipped)])
def test_only_what_changed_is_parsed_and_a_grown_conversation_is_read_on_from_a_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, wrap: Any
):
    earlier, later = versions("edit", False)
    built = counted(monkeypatch)
    path = tmp_path / name
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(wrap(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert len(built) == 6 * LENGTH
        built.clear()
        path.write_bytes(wrap(later))
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
        touched = {p.split(".")[0] for p in built}
        assert touched == {"conversations[3]", "conversations[5]"}  # edited, grown
        grown = [int(p.rsplit("[", 1)[1][:-1]) for p in built if p.startswith("conversations[5]")]
        # Read on from a head of its events: the 25 new ones, and those after the head (a 4 KB block at most).
        assert grown == list(range(grown[0], LENGTH + 25)) and LENGTH // 2 < grown[0] <= LENGTH
        built.clear()
        assert import_file(archive, path, tz=BERLIN, worker=False).unchanged_since is not None
        assert built == []


def reimported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, earlier: list[dict], later: list[dict]
) -> tuple[list[str], Path]:
    """``both_ways`` of the two versions, held to the same archive; then in a third home the places of the
    events the re-import of ``later`` builds, and its file."""
    resumed, reread, _ = both_ways(tmp_path, "Hangouts.json", [export(earlier), export(later)])
    assert resumed == reread
    built = counted(monkeypatch)
    path = tmp_path / "again" / "Hangouts.json"
    path.parent.mkdir()
    with Archive.open(tmp_path / "again" / "home") as archive:
        path.write_bytes(export(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        built.clear()
        path.write_bytes(export(later))
        import_file(archive, path, tz=BERLIN, worker=False)
    return built, path


def test_no_head_is_left_before_an_event_without_an_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Its identity (its time, sender and text) would make those after it depend on it: the grown
    conversation is read whole, and the archive is a full reading's."""
    items = [conversation(c, LENGTH) for c in range(3)]
    items[2]["events"][3] = event(2, 3, ident=False)
    later = copy.deepcopy(items)
    later[2]["events"] += [event(2, i) for i in range(LENGTH, LENGTH + 20)]
    built, _ = reimported(tmp_path, monkeypatch, items, later)
    assert len(built) == LENGTH + 20


def test_the_account_named_by_the_events_is_read_as_a_whole_reading_reads_it(tmp_path: Path):
    """A conversation that does not name the account is read whole again (its account is told by an event
    the head would pass over); the archive is a full reading's."""
    items = [conversation(c, LENGTH) for c in range(3)]
    for item in items:
        del item["conversation"]["conversation"]["self_conversation_state"]
        item["events"][2] = event(int(item["conversation"]["conversation_id"]["id"][4:]), 2, mine=True)
    later = copy.deepcopy(items)
    later[2]["events"] += [event(2, i) for i in range(LENGTH, LENGTH + 20)]
    resumed, reread, _ = both_ways(tmp_path, "Hangouts.json", [export(items), export(later)])
    assert resumed == reread
    chats = {
        e.chat.key: (e.chat.name, [m.own for m in e.messages])
        for e in hangouts.read(tmp_path / "resume" / "Hangouts.json", tz=BERLIN)
    }
    assert chats["conv0"][0] == "Person 222" and chats["conv0"][1][:2] == [True, False]


@pytest.mark.parametrize("change", CHANGES)
def test_a_home_written_by_the_reader_before_is_upgraded_by_one_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
):
    """Main's reader (``old_read``) fingerprinted each conversation by a hash of its parsed object: none of
    those is taken for a fingerprint of bytes, so the first import after the upgrade reads every
    conversation (the archive a full reading leaves), and leaves fingerprints of bytes: the next passes over
    all but what changed."""
    earlier, later = versions(change, False)
    path = tmp_path / "Hangouts.json"
    with Archive.open(tmp_path / "home") as archive:
        with monkeypatch.context() as old:
            old.setattr(hangouts, "read", lambda p, *, tz, known=(): old_read(p))
            path.write_bytes(earlier)
            assert import_file(archive, path, tz=BERLIN, worker=False).error is None
        built = counted(monkeypatch)
        path.write_bytes(later)
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
        items = json.loads(later)["conversations"]
        assert len(built) == sum(len(c["events"]) for c in items)  # every conversation read, once
        upgraded = archive_rows(archive)
        built.clear()
        items[-1]["events"].append(event(9, 1))
        path.write_bytes(export(items))
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
        assert {p.split("]")[0] for p in built} == {f"conversations[{len(items) - 1}"}
        assert len(built) < len(items[-1]["events"])  # read on from a head of its events
        resumed = archive_rows(archive)
    # The same imports in a home of the new reader's, the last re-read whole.
    for imports, rows in (([earlier, later], upgraded), ([earlier, later, export(items)], resumed)):
        shutil.rmtree(tmp_path / "whole", ignore_errors=True)
        with Archive.open(tmp_path / "whole") as archive:
            for i, version in enumerate(imports):
                path.write_bytes(version)
                import_file(archive, path, tz=BERLIN, worker=False, reread=i == len(imports) - 1)
            assert archive_rows(archive) == rows


def test_a_broken_file_says_what_a_whole_reading_says(tmp_path: Path):
    earlier, later = versions("append", False)
    broken = later.replace(b'"conversation 4 event 7', b'"conversation 4 event 7\x01', 1)
    path = tmp_path / "Hangouts.json"
    said = []
    for home in ("resumed", "whole"):
        with Archive.open(tmp_path / home) as archive:
            if home == "resumed":
                path.write_bytes(earlier)
                import_file(archive, path, tz=BERLIN, worker=False)
            path.write_bytes(broken)
            said.append(import_file(archive, path, tz=BERLIN, worker=False).error)
    assert said[0] == said[1] and said[0] and "Hangouts.json" in said[0] and "\n" not in said[0]


# --- the same output as the reader before ----------------------------------------------------------------


def outcome(read: Any, path: Path) -> tuple[Any, ...]:
    """What a reader makes of a file: its chats and messages, or the error it stops at (its words; places
    differ where the 2016 layout's events are named by their real path now)."""
    out: list[Any] = []
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            for found in read(path):
                out.append((found.chat, list(found.messages)))
        except InputError as exc:
            return ("error", exc.args[1] if len(exc.args) > 1 else str(exc))
    return ("read", out, sorted(str(w.message) for w in said))


def new_read(path: Path) -> Iterator[ChatExport]:
    return hangouts.read(path, tz=BERLIN)


def _shaped(item: dict, reverse: bool, drop: set[str]) -> dict:
    """A conversation as another tool writes it: its keys in the other order (its events first), some of its
    parts dropped."""
    old = "conversation_state" in item
    conv = item["conversation_state"]["conversation"] if old else item["conversation"]["conversation"]
    if "account" in drop:
        conv.pop("self_conversation_state", None)
    if "id" in drop:
        conv.pop("id", None)
        if old:
            del item["conversation_id"], item["conversation_state"]["conversation_id"]
        else:
            item["conversation"]["conversation_id"] = {}
    if not reverse:
        return item
    if old:
        item["conversation_state"] = dict(reversed(item["conversation_state"].items()))
    return dict(reversed(item.items()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    old=st.booleans(),
    lengths=st.lists(st.integers(0, 40), min_size=0, max_size=4),
    reverse=st.lists(st.booleans(), min_size=4, max_size=4),
    drops=st.lists(
        st.sets(st.sampled_from(["account", "id", "ident", "mine", "null"])), min_size=4, max_size=4
    ),
    wrap=st.sampled_from(["object", "list", "alone"]),
)
def test_the_reader_reads_as_the_reader_before(
    tmp_path: Path, old: bool, lengths: list[int], reverse: list[bool], drops: list[set[str]], wrap: str
):
    items: list[Any] = []
    for c, length in enumerate(lengths):
        item = conversation(c, length, old)
        events = item["conversation_state"]["event"] if old else item["events"]
        drop = drops[c]
        if "ident" in drop and events:
            events[len(events) // 2].pop("event_id")
        if "mine" in drop and events:
            events[-1]["self_event_state"] = {"user_id": {"gaia_id": "222"}}
        items.append(_shaped(item, reverse[c], drop))
        if "null" in drop:
            items.append(None)
    if wrap == "list":
        data = json.dumps(items).encode()
    elif wrap == "alone" and items and items[0] is not None and not old:
        data = json.dumps(items[0]).encode()
    else:
        data = export(items, old)
    path = tmp_path / "Hangouts.json"
    path.write_bytes(data)
    assert outcome(new_read, path) == outcome(old_read, path)


@pytest.mark.parametrize(
    "data",
    [
        b"[1]",
        b'{"conversations": {}}',
        b'{"conversations": [{"conversation": {}, "events": 3}]}',
        b'{"conversations": [{"conversation": {}, "events": [1]}]}',
        b'{"conversations": [{"other": 1}]}',
        b'{"conversations": [{"conversation": {}, "events": [{"timestamp": "x"}]}]}',
        b'{"conversations": [{"conversation": {}, "events": [{"timestamp": "1"}, ',
        b"3",
    ],
)
def test_bad_files_are_refused_as_before_in_one_line(tmp_path: Path, data: bytes):
    path = tmp_path / "Hangouts.json"
    path.write_bytes(data)
    new, old = outcome(new_read, path), outcome(old_read, path)
    assert new[0] == old[0] == "error"
    with pytest.raises(InputError) as said:
        for found in new_read(path):
            list(found.messages)
    assert "Hangouts.json" in str(said.value) and "\n" not in str(said.value)


# --- memory -------------------------------------------------------------------------------------------------


def peak(path: Path) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        for found in hangouts.read(path, tz=BERLIN):
            for _ in found.messages:
                pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("old", [False, True])
def test_memory_does_not_grow_with_a_conversations_events(tmp_path: Path, old: bool):
    """One conversation of 1,000 events and one of 8,000 (3 MB): the reading's peak grows by less than 100
    bytes an event (the reader before held every event parsed: some 3 KB an event)."""
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    small.write_bytes(export([conversation(0, 1000, old)], old))
    large.write_bytes(export([conversation(0, 8000, old)], old))
    assert peak(large) - peak(small) < 100 * 7000


def anonymous(items: list[dict]) -> list[dict]:
    """The conversations as the benchmark's generator writes them: none names the account."""
    for item in items:
        del item["conversation"]["conversation"]["self_conversation_state"]
    return items


@pytest.mark.parametrize("names_it", [False, True], ids=["no event names the account", "a new one does"])
def test_a_conversation_that_names_no_account_is_read_on_from_a_head_till_an_event_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, names_it: bool
):
    """Where no event names the account, a head of the events is kept (a new event that names it is seen in
    the bytes before they are read): the grown conversation is read on from it; where a new event names it,
    every message of the conversation is the account's or not anew, and it is read whole."""
    items = anonymous([conversation(c, LENGTH) for c in range(3)])
    later = copy.deepcopy(items)
    later[2]["events"] += [event(2, i, mine=names_it and i == LENGTH + 5) for i in range(LENGTH, LENGTH + 20)]
    built, path = reimported(tmp_path, monkeypatch, items, later)
    assert {p.split("]")[0] for p in built} == {"conversations[2"}
    assert (len(built) == LENGTH + 20) == names_it
    owned = [m.own for e in hangouts.read(path, tz=BERLIN) for m in e.messages if e.chat.key == "conv2"]
    assert any(owned) == names_it
