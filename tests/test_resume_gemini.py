"""A Gemini ``MyActivity.json`` exported again: its entries are found by their bytes (``jsonstream.Items``),
grouped into conversations by their times alone, and a conversation whose entries' bytes an earlier import
fingerprinted is not parsed (``gemini._Scan``). The archive ends exactly as a full re-read (``--reread``)
of the new file leaves it: after new entries on top (the last conversation continued, a new one), an entry
edited in the middle, one deleted, and a conversation deleted; nothing already archived is lost."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_resume_import import BERLIN, both_ways, forgotten_both_ways

from refind_cli.importers import gemini, jsonstream
from refind_cli.ingest import import_file
from refind_cli.operations import Selection
from refind_cli.storage.archive import Archive

START = datetime(2026, 3, 1, 9, tzinfo=UTC)


def entry(c: int, i: int, *, edit: bool = False, title: str = "") -> dict:
    """Entry ``i`` of conversation ``c``: conversations three hours apart, entries a minute apart."""
    when = START + timedelta(hours=3 * c, minutes=i)
    return {
        "header": "Gemini Apps",
        "title": title or f'Prompted conversation {c} question {i} about "trains" \\ rails',
        "time": when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        "products": ["Gemini Apps"],
        "activityControls": ["Gemini Apps Activity"],
        "safeHtmlItem": [{"html": f"<p>Answer {c}.{i}: take the <b>night train</b>{' (edited)' * edit}</p>"}],
    }


def conversation(c: int, length: int, **change: int) -> list[dict]:
    return [
        entry(c, i, edit=i == change.get("edit"), title="Unbekannt: x" if i == change.get("odd") else "")
        for i in range(length)
        if i != change.get("gone")
    ]


def export(groups: dict[int, list[dict]]) -> bytes:
    entries = [e for _, group in sorted(groups.items()) for e in group]
    return json.dumps(sorted(entries, key=lambda e: e["time"], reverse=True), indent=2).encode()


def versions(change: str) -> tuple[dict[int, list[dict]], dict[int, list[dict]]]:
    earlier = {c: conversation(c, 5) for c in range(8)}
    later = {**earlier, 7: conversation(7, 8), 8: conversation(8, 3)}  # the last continued, a new one
    if change == "edit":
        later[3] = conversation(3, 5, edit=2)
    elif change == "entry deleted":
        later[5] = conversation(5, 5, gone=1)
    elif change == "deletion":
        del later[2]
    elif change == "unread title":
        later[4] = conversation(4, 5, odd=3)
    return earlier, later


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The places of the entries the reader builds, from now on."""
    built: list[str] = []
    original = gemini._json_entry
    monkeypatch.setattr(
        gemini, "_json_entry", lambda obj, where, error: built.append(where) or original(obj, where, error)
    )
    return built


@pytest.mark.parametrize("change", ["append", "edit", "entry deleted", "deletion", "unread title"])
def test_a_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str):
    earlier, later = versions(change)
    resumed, reread, results = both_ways(tmp_path, "MyActivity.json", [export(earlier), export(later)])
    assert resumed == reread
    entries = sum(len(g) for g in later.values())
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == 2 * entries
    assert len(results[-1].chats) == len(later)
    if change == "deletion":  # gone from the export, not from the archive
        assert len(resumed[0]) == 9
    if change == "unread title":
        assert any("cannot read" in w for w in results[-1].warnings)


def test_only_the_conversations_that_changed_are_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    earlier, later = versions("edit")
    built = counted(monkeypatch)
    path = tmp_path / "MyActivity.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert len(built) == 40
        built.clear()
        path.write_bytes(export(later))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        assert result.error is None
        # Newest first: conversation 8's 3 entries are [0]-[2], 7's 8 are [3]-[10], 3's are [26]-[30].
        assert sorted(built, key=lambda w: int(w[1:-1])) == [f"[{n}]" for n in [*range(11), *range(26, 31)]]
        assert sum(c.messages_added for c in result.chats) == 2 * (3 + 3) + 1  # new entries, the edited reply
        built.clear()
        assert import_file(archive, path, tz=BERLIN, worker=False).unchanged_since is not None
        later[9] = conversation(9, 2)
        path.write_bytes(export(later))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        assert sorted(built) == ["[0]", "[1]"]
        assert sum(c.messages_added for c in result.chats) == 4


@pytest.mark.parametrize("what", [Selection(matching="trains"), Selection(chat=2)], ids=["messages", "chat"])
def test_what_was_forgotten_stays_forgotten(tmp_path: Path, what: Selection):
    earlier, later = versions("append")
    resumed, reread = forgotten_both_ways(tmp_path, "MyActivity.json", export(earlier), export(later), what)
    assert resumed == reread


@pytest.mark.parametrize(
    "broken",
    [
        lambda t: t[:-40],  # cut short
        lambda t: t + b" x",  # garbage after the list
        lambda t: t.replace(b'"time"', b'"tim"', 1),  # an entry without a time
        lambda t: t.replace(b"night train", b"night \xff train", 1),  # invalid UTF-8 in a reply
        lambda t: t.replace(b'"header"', b'"header": tru, "x"', 1),  # a bad token inside an entry
        lambda t: t.replace(b"[\n  {", b"[\n 7,  {", 1),  # an entry that is no object
    ],
)
def test_a_broken_file_says_what_a_whole_reading_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: Callable[[bytes], bytes]
) -> None:
    earlier, later = versions("edit")
    text = broken(export(later))
    errors = []
    for scan in (True, False):
        path = tmp_path / f"{scan}" / "MyActivity.json"
        path.parent.mkdir()
        path.write_bytes(export(earlier))
        with Archive.open(tmp_path / f"{scan}" / "home") as archive:
            import_file(archive, path, tz=BERLIN, worker=False)
            path.write_bytes(text)
            with monkeypatch.context() as m:
                if not scan:  # the whole reading, as it was before the scan
                    m.setattr(gemini._Scan, "of", lambda *_: None)
                result = import_file(archive, path, tz=BERLIN, worker=False)
            errors.append(result.error and result.error.replace(str(tmp_path / f"{scan}"), ""))
    assert errors[0] is not None
    assert errors[0] == errors[1]


TRICKY = st.lists(
    st.sampled_from(['"', "\\", "{", "}", "[", "]", ",", ":", " ", '"time"', "é", "\n"]), max_size=6
).map("".join)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=8,
)


@given(
    obj=st.dictionaries(TRICKY | st.just("time"), VALUES, max_size=5),
    extra=st.sampled_from(["", '"time"', '"ti\\u006de"', '"\\"time"']),
    at=st.integers(0, 5),
    space=st.sampled_from(["", " ", "\n  "]),
)
@settings(max_examples=300, deadline=None)
def test_a_member_told_at_once_is_the_one_a_parser_takes(obj: dict, extra: str, at: int, space: str) -> None:
    """``Items.member`` tells an object's end and its ``"time"`` string only where a parser takes that string
    (a second key spelling "time", nested "time" keys, quotes and brackets in strings); else nothing."""
    members = [f"{json.dumps(k, ensure_ascii=False)}:{space}{json.dumps(v)}" for k, v in obj.items()]
    if extra:
        members.insert(min(at, len(members)), f'{extra}: "2020-01-01T00:00:00Z"')
    text = f"[{space}{{{space}{f',{space}'.join(members)}{space}}}{space}]".encode()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.json"
        path.write_bytes(text)
        items = jsonstream.Items(path, [()], ())
        try:
            start = items.begin()
            assert start is not None
            found = items.member(start, b'"time"')
            if found is not None:
                end, span = found
                assert end == items.end_of(start)
                parsed = json.loads(text)[0]
                assert parsed["time"] == json.loads(text[span[0] : span[1]])
        finally:
            items.close()


def test_a_plain_entry_is_told_at_once(tmp_path: Path) -> None:
    """The entries a Takeout writes are told by ``Items.member``, not by the slower ``members``."""
    path = tmp_path / "MyActivity.json"
    path.write_bytes(export({0: conversation(0, 3)}))
    items = jsonstream.Items(path, [()], ())
    try:
        while (start := items.begin()) is not None:
            found = items.member(start, b'"time"')
            assert found is not None
            items.ended(found[0])
        assert items.whole
    finally:
        items.close()


def test_places_count_the_null_entries_as_a_whole_reading_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, later = versions("unread title")
    text = export(later).replace(b"[\n  {", b"[\n  null,\n  {", 1)
    warned = []
    for scan in (True, False):
        path = tmp_path / f"{scan}" / "MyActivity.json"
        path.parent.mkdir()
        path.write_bytes(text)
        with Archive.open(tmp_path / f"{scan}" / "home") as archive, monkeypatch.context() as m:
            if not scan:
                m.setattr(gemini._Scan, "of", lambda *_: None)
            result = import_file(archive, path, tz=BERLIN, worker=False)
            assert result.error is None
            warned.append([w.replace(str(path), "") for w in result.warnings])
    assert warned[0] == warned[1]
    assert any("at [23]" in w for w in warned[0])  # [22] without the null before it
