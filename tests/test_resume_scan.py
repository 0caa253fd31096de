"""A large ChatGPT ``conversations.json`` is found by a scan of its bytes (``jsonstream.array_items``,
``conversations.scan``): each conversation's bytes are hashed and its mapping parsed only where its messages
are read. The scan finds exactly the items a JSON parser finds, whatever the strings hold and wherever its
blocks are cut; a file it cannot vouch for is read as before; and the archive is the one the parser's way
leaves, on a first import and on a re-import after an append, an edit and a deletion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xxhash
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_resume_conversations import earlier_and_later, export, length
from test_resume_import import BERLIN, archive_rows, both_ways

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
    monkeypatch.setattr(jsonstream, "_SCAN_BLOCK", block)  # every cut: inside strings, between backslashes
    data = json.dumps(items, indent=indent, ensure_ascii=False).encode()
    path = tmp_path / "x.json"
    path.write_bytes(data)
    found = jsonstream.array_items(path, "mapping", 1 << 20)
    assert found is not None
    assert [json.loads(data[i.start : i.end]) for i in found] == items
    assert [i.fingerprint for i in found] == [xxhash.xxh3_128_hexdigest(data[i.start : i.end]) for i in found]
    # The rest is the item with its mapping (an object or a list at its top level) written null.
    assert [json.loads(i.rest) for i in found] == [
        {**item, "mapping": None} if isinstance(item.get("mapping"), dict | list) else item for item in items
    ]


@pytest.mark.parametrize(
    "text",
    [
        b'[{"a": 1}] x',  # garbage after
        b'[{"a": 1} {"b": 2}]',  # no comma
        b'[{"a": 1}, 5]',  # an item that is no object
        b'[{"a": 1},]',  # a trailing comma
        b'[{"a": "}"',  # cut short
        b'{"conversations": []}',  # another top level
        b'\xef\xbb\xbf[{"a": 1}]',  # a BOM
        b'[{"a": 1}]]',  # a close without its opening
        b'[{"a": "' + b"x" * 200 + b'"}]',  # an item's rest longer than allowed
    ],
)
def test_a_file_the_scan_cannot_vouch_for_is_left_to_the_parser(tmp_path: Path, text: bytes):
    path = tmp_path / "x.json"
    path.write_bytes(text)
    assert jsonstream.array_items(path, "mapping", 100) is None


def test_a_bad_file_says_what_the_parser_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    earlier, _ = earlier_and_later("chatgpt", "append")
    path = tmp_path / "conversations.json"
    path.write_bytes(export(earlier)[:-5])  # cut short: not scanned, read as always
    expected = ""
    try:
        [m for e in chatgpt.read(path, tz=BERLIN) for m in e.messages]
    except Exception as exc:
        expected = str(exc)
    monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", 0)
    with pytest.raises(Exception, match="truncated JSON") as scanned:
        [m for e in chatgpt.read(path, tz=BERLIN) for m in e.messages]
    assert str(scanned.value) == expected


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
