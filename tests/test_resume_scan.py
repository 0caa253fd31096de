"""A large ChatGPT ``conversations.json`` is found by a scan of its bytes (``jsonstream.Items`` over a
top-level list, ``conversations.scan``): each conversation's bytes are hashed and its mapping parsed only where
its messages are read. The scan finds exactly the items a JSON parser finds, whatever the strings hold and
wherever its blocks are cut; a broken file says what a whole reading says; and the archive is the one the
parser's way leaves, on a first import and on a re-import after an append, an edit and a deletion."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
import xxhash
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_resume_conversations import earlier_and_later, export, length
from test_resume_import import BERLIN, archive_rows, both_ways

from refind_cli.errors import InputError
from refind_cli.importers import chatgpt, conversations, jsonstream
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive

# Strings that a scan for quotes and brackets can trip on: escaped quotes, runs of backslashes, brackets.
TRICKY = st.text(
    alphabet=st.sampled_from(['"', "\\", "{", "}", "[", "]", ",", ":", " ", "a", "é", "😀", "\n"])
)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=12,
)
ITEMS = st.lists(
    st.dictionaries(TRICKY, VALUES, max_size=4).flatmap(
        lambda d: st.sampled_from([d, {**d, "mapping": {"n": d}}, {"mapping": [d], **d}])
    ),
    max_size=6,
)


@pytest.fixture
def scanning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", 0)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=ITEMS, indent=st.sampled_from([None, 1, 2]), block=st.integers(1, 64))
@example(items=[{"k": "\\" * 5 + '"]', "mapping": {"x": '\\"}'}}, {}], indent=None, block=1)
@example(items=[{"k": "\\" * 5 + '"]', "mapping": {"x": '\\"}'}}, {}], indent=None, block=3)
def test_the_scan_finds_what_a_parser_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, items: list, indent: int | None, block: int
):
    # Every cut of the scan's blocks: inside strings, between backslashes.
    monkeypatch.setattr(jsonstream, "_CLOSE_BLOCKS", (block, 2 * block))
    data = json.dumps(items, indent=indent, ensure_ascii=False).encode()
    path = tmp_path / "x.json"
    path.write_bytes(data)
    found = []
    with contextlib.closing(jsonstream.Items(path, [()], ())) as walk:
        while (start := walk.begin()) is not None:
            members = walk.members(start)
            assert members is not None
            found.append((start, *members))
            walk.ended(members[0])
        assert walk.whole
    assert [json.loads(data[start:end]) for start, end, _ in found] == items
    # Where each value lies, by its key as written.
    assert [
        {json.loads(key): json.loads(data[a:b]) for key, (a, b) in spans.items()} for _, _, spans in found
    ] == items
    print_ = [jsonstream.Items(path, [()], ()).fingerprint(start, end) for start, end, _ in found]
    assert [p.split(":")[3] for p in print_] == [
        xxhash.xxh3_128_hexdigest(data[start:end]) for start, end, _ in found
    ]


BROKEN = [
    b"x",  # garbage after
    b"<no comma>",  # two conversations without a comma between them
    b"<five>",  # an item that is no object
    b"<trailing comma>",
    b"<cut>",  # cut short
    b"<bad token>",  # invalid JSON inside a conversation
    b"<close>",  # a close without its opening
    b"<null>",  # a null entry: passed over both ways
]


def _broken(text: bytes, how: bytes) -> bytes:
    between = b"},\n {"  # two conversations, as ``export`` writes them
    if how == b"x":
        return text + b" x"
    if how == b"<no comma>":
        return text.replace(between, b"}\n {", 1)
    if how == b"<five>":
        return text.replace(between, b"}, 5, {", 1)
    if how == b"<trailing comma>":
        return text.rstrip()[:-1] + b", ]"
    if how == b"<cut>":
        return text[: len(text) // 2]
    if how == b"<bad token>":
        return text.replace(b"null", b"nul", 3)
    if how == b"<close>":
        return text + b"]"
    return text.replace(between, b"}, null, {", 1)


@pytest.mark.parametrize("how", BROKEN)
def test_a_bad_file_says_what_a_whole_reading_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how):
    earlier, _ = earlier_and_later("chatgpt", "append")
    path = tmp_path / "conversations.json"
    path.write_bytes(_broken(export(earlier), how))
    said = []
    for min_bytes in (1 << 40, 0):  # read whole, then scanned
        monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", min_bytes)
        try:
            said.append(len([m for e in chatgpt.read(path, tz=BERLIN) for m in e.messages]))
        except InputError as exc:
            said.append(str(exc))
    assert said[0] == said[1]
    assert isinstance(said[0], int) == (how == b"<null>")


@pytest.mark.parametrize("change", ["append", "edit", "deletion", "message deleted"])
def test_a_scanned_reimport_leaves_the_archive_a_full_reread_would(
    tmp_path: Path, scanning: None, change: str
):
    earlier, later = earlier_and_later("chatgpt", change)
    resumed, reread, results = both_ways(tmp_path, "conversations.json", [export(earlier), export(later)])
    assert resumed == reread
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        length("chatgpt", c) for c in later
    )


def test_a_scanned_import_stores_what_a_parsed_one_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _, later = earlier_and_later("chatgpt", "edit")
    later[2] = {k: v for k, v in later[2].items() if k not in ("id", "conversation_id")}  # keyed by its tree
    later[4]["title"] = "half a pair \ud800, 1E2 and -0.0"  # values two parsers could read otherwise
    later[4]["x"] = [1e2, -0.0, 10**15]
    rows = []
    for way in ("parsed", "scanned"):
        if way == "scanned":
            monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", 0)
        path = tmp_path / way / "conversations.json"
        path.parent.mkdir()
        path.write_bytes(export(later))
        with Archive.open(tmp_path / way / "home") as archive:
            assert import_file(archive, path, tz=BERLIN, worker=False).error is None
            rows.append(archive_rows(archive))
    assert rows[0] == rows[1]


def test_only_the_changed_conversations_are_parsed(
    tmp_path: Path, scanning: None, monkeypatch: pytest.MonkeyPatch
):
    earlier, later = earlier_and_later("chatgpt", "edit")
    parsed: list[str] = []
    original = chatgpt._conversation
    monkeypatch.setattr(chatgpt, "_conversation", lambda *a: parsed.append(a[1]) or original(*a))
    path = tmp_path / "conversations.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert len(parsed) == len(earlier)
        parsed.clear()
        path.write_bytes(export(later))
        import_file(archive, path, tz=BERLIN, worker=False)
    # 3 grew, 5 was edited, 12 and 13 are new: no other conversation's mapping is parsed.
    assert sorted(parsed) == ["[12]", "[13]", "[3]", "[5]"]
