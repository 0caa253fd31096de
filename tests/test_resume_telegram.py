"""A Telegram account export exported again: the dialogs whose bytes an earlier import fingerprinted are
passed over unparsed (``jsonstream.Items``, ``ingest.resume.Prints``), and the archive ends exactly as a full
re-read of the new file would leave it: after messages were added to a dialog (which moves to the top, as the
exporter orders dialogs by their latest message), a dialog was added, a message edited or deleted in the
middle of one, a dialog deleted, and the account's other sections changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_resume_import import BERLIN, both_ways, forgotten_both_ways

from refind_cli.importers import jsonstream, telegram
from refind_cli.ingest import import_file, worker
from refind_cli.operations import Selection
from refind_cli.storage.archive import Archive


def message(d: int, i: int, edit: bool = False, plain: bool = False) -> dict:
    return {
        "id": i,
        "type": "message",
        "date": f"2024-01-{1 + d % 28:02d}T10:{i // 60 % 60:02d}:{i % 60:02d}",
        "date_unixtime": str(1_704_100_000 + 86_400 * d + i),
        "from": f"Person {i % 3}",
        "from_id": f"user{100 + i % 3}",
        "text": f"dialog {d} message {i} about "
        + ("the crag" if plain else "[brackets] and {braces}")
        + " (edited)" * edit,
        "text_entities": [{"type": "plain", "text": f"dialog {d} message {i}"}],
    }


def dialog(d: int, n: int, edit: int | None = None, gone: int | None = None, plain: bool = False) -> dict:
    """``plain``: no braces in its texts, where a read block may end (``jsonstream.Stream.cut_after``)."""
    messages = [message(d, i, i == edit, plain) for i in range(n) if i != gone]
    return {"name": f"Group {d}", "type": "private_group", "id": 4000 + d, "messages": messages}


def account(dialogs: list[dict], rating: float = 1.0, left: list[dict] | None = None) -> bytes:
    """An account export as Telegram Desktop writes it: one space a level, the dialogs with the latest
    message first (a dialog left without messages, as real exports hold, last)."""
    ordered = sorted(
        dialogs, key=lambda x: x["messages"][-1]["date_unixtime"] if x["messages"] else "", reverse=True
    )
    return json.dumps(
        {
            "about": "Here is the data you requested.",
            "personal_information": {"user_id": 101, "first_name": "Me"},
            "frequent_contacts": {"list": [{"id": 100, "name": "Person 0", "rating": rating}]},
            "chats": {"about": "This page lists all chats from this export.", "list": ordered},
            "left_chats": {"list": left or []},
        },
        indent=1,
        ensure_ascii=False,
    ).encode()


def versions(change: str) -> tuple[list[dict], list[dict]]:
    earlier = [dialog(d, 30 + d) for d in range(8)]
    later = [dialog(d, 30 + d) for d in range(8)] + [dialog(8, 5)]  # a new dialog
    later[2] = dialog(2, 40)  # one grew: it moves to the top
    if change == "edit":
        later[5] = dialog(5, 35, edit=10)
    elif change == "message deleted":
        later[6] = dialog(6, 36, gone=7)
    elif change == "dialog deleted":
        del later[3]
    return earlier, later


CHANGES = ["append", "edit", "message deleted", "dialog deleted"]


@pytest.mark.parametrize("change", CHANGES)
def test_a_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str):
    earlier, later = versions(change)
    old, new = account(earlier), account(later, rating=0.5)
    resumed, reread, results = both_ways(tmp_path, "result.json", [old, new])
    assert resumed == reread
    last = results[-1]
    # It reports what a full reading would: every message of the later export seen.
    assert sum(c.messages_added + c.messages_skipped for c in last.chats) == sum(
        len(d["messages"]) for d in later
    )
    if change == "edit":
        texts = [row[7] for row in resumed[1]]
        assert any("(edited)" in t for t in texts)
        assert any(t.startswith("dialog 5 message 10") and "(edited)" not in t for t in texts)


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the messages the reader builds, from now on."""
    built: list[str] = []
    original = telegram._Parser._message

    def counting(self: telegram._Parser, obj: object, where: str):
        built.append(where)
        return original(self, obj, where)

    monkeypatch.setattr(telegram._Parser, "_message", counting)
    return built


@pytest.mark.parametrize("use_worker", [False, True], ids=["here", "worker"])
def test_only_the_dialogs_that_changed_are_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_worker: bool
):
    if use_worker and not worker.can_use_a_worker():
        pytest.skip("one core")
    earlier, later = versions("edit")
    built = counted(monkeypatch)
    path = tmp_path / "result.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(account(earlier))
        import_file(archive, path, tz=BERLIN, worker=use_worker)
        built.clear()
        path.write_bytes(account(later, rating=0.5))
        result = import_file(archive, path, tz=BERLIN, worker=use_worker)
        assert result.error is None
        # Three dialogs changed (2 grew, 5 edited, 8 new): the next import parses none.
        assert sum(1 for c in result.chats if c.messages_added) == 3
        assert len(result.chats) == 9
        path.write_bytes(account(later, rating=0.25))
        again = import_file(archive, path, tz=BERLIN, worker=use_worker)
        assert again.error is None and not any(c.messages_added for c in again.chats)
    if not use_worker:  # the worker builds them in its own process
        # The edited and the new dialog whole; the grown one from a head of its messages where its earlier
        # reading left one (a read block of the file ended between two of them), else whole.
        assert 8 + 35 + 5 <= len(built) <= 40 + 35 + 5


@pytest.mark.parametrize("edit", [None, 5], ids=["append", "edit before the head"])
def test_a_grown_dialog_is_read_on_from_a_head_of_its_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: int | None
):
    earlier = [dialog(d, 400 if d == 1 else 20, plain=True) for d in range(4)]
    later = [*earlier[:1], dialog(1, 410, edit=edit, plain=True), *earlier[2:]]
    resumed, reread, results = both_ways(tmp_path, "result.json", [account(earlier), account(later)])
    assert resumed == reread
    built = counted(monkeypatch)
    path = tmp_path / "counted" / "result.json"
    path.parent.mkdir()
    with Archive.open(tmp_path / "counted" / "home") as archive:
        path.write_bytes(account(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        built.clear()
        path.write_bytes(account(later))
        import_file(archive, path, tz=BERLIN, worker=False)
    parsed = len(built)
    if edit is None:
        # Its 400 messages are about 2 read blocks: only those after its latest head are parsed again.
        assert parsed < 150
    else:  # changed before the head: read whole
        assert parsed == 410
    assert [c.messages_added for c in results[-1].chats if c.messages_added] == [10 + (edit is not None)]
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == 3 * 20 + 410


def test_the_next_import_goes_on_skipping_and_equals_a_reread(tmp_path: Path):
    earlier, later = versions("append")
    third = [*later[:4], dialog(4, 50), *later[5:]]
    vs = [account(earlier), account(later), account(third, rating=2.0)]
    resumed, reread, results = both_ways(tmp_path, "result.json", vs)
    assert resumed == reread
    assert [sum(1 for c in r.chats if c.messages_added) for r in results] == [8, 2, 1]


def test_left_chats_and_a_folder_export(tmp_path: Path):
    earlier, later = versions("append")
    left = [dialog(20, 12)]
    old = account(earlier, left=left)
    new = account(later, left=[*left, dialog(21, 3)])
    resumed, reread, results = both_ways(tmp_path, "ChatExport_2024-05-01/result.json", [old, new])
    assert resumed == reread
    assert sum(1 for c in results[-1].chats if c.messages_added) == 3


@pytest.mark.parametrize("what", [Selection(matching="braces"), Selection(chat=2)], ids=["messages", "chat"])
def test_what_was_forgotten_since_stays_forgotten_as_after_a_full_reading(tmp_path: Path, what: Selection):
    earlier, later = versions("append")
    resumed, reread = forgotten_both_ways(tmp_path, "result.json", account(earlier), account(later), what)
    assert resumed == reread


def test_bytes_outside_the_dialogs_that_are_not_json_are_an_error_as_in_a_full_reading(tmp_path: Path):
    earlier, later = versions("append")
    path = tmp_path / "result.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(account(earlier))
        import_file(archive, path, tz=BERLIN)
        path.write_bytes(account(later).replace(b'"left_chats": {', b'"left_chats": {,'))
        result = import_file(archive, path, tz=BERLIN)
    assert result.error is not None and "invalid JSON" in result.error


# --- where the items lie ---------------------------------------------------------------------------------

_text = st.text(st.sampled_from('ab"\\{}[],: \n\té'), max_size=8)
_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    before=st.dictionaries(_text, _values, max_size=3),
    dialogs=st.lists(_values, max_size=4),
    left=st.lists(_values, max_size=2),
    indent=st.sampled_from([None, 0, 1, 3]),
)
def test_items_tells_where_each_dialog_lies_whatever_the_json(
    tmp_path_factory: pytest.TempPathFactory, before: dict, dialogs: list, left: list, indent: int | None
):
    doc = {**before, "chats": {"about": "[{", "list": dialogs}, "left_chats": {"list": left}}
    data = json.dumps(doc, indent=indent, ensure_ascii=False).encode()
    path = tmp_path_factory.mktemp("items") / "result.json"
    path.write_bytes(data)
    items = jsonstream.Items(path, [("chats", "list"), ("left_chats", "list")], ())
    found = []
    while (start := items.begin()) is not None:
        end = items.end_of(start)
        assert end is not None
        found.append(json.loads(data[start:end]))
        items.ended(end if len(found) % 2 else None)  # told, or found from the bytes
    items.close()
    assert found == dialogs + left


_changes = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from(["grow", "edit", "drop message", "drop dialog", "new"])),
    max_size=4,
)


@settings(max_examples=6, deadline=None)
@example(sizes=[1], changes=[(0, "drop message")], escape=False)  # the one message dropped: no messages left
@given(sizes=st.lists(st.integers(1, 12), min_size=1, max_size=6), changes=_changes, escape=st.booleans())
def test_any_later_export_reimports_as_a_full_reread_would(
    tmp_path_factory: pytest.TempPathFactory, sizes: list[int], changes: list[tuple[int, str]], escape: bool
):
    earlier = {d: dialog(d, n) for d, n in enumerate(sizes)}
    later = dict(earlier)
    for d, change in changes:
        if d not in later:
            continue
        n = len(later[d]["messages"])
        if change == "grow":
            later[d] = dialog(d, n + 3)
        elif change == "edit":
            later[d] = dialog(d, n, edit=n // 2)
        elif change == "drop message":
            later[d] = dialog(d, n, gone=n // 2)
        elif change == "drop dialog" and len(later) > 1:
            del later[d]
        elif change == "new":
            later[10 + d] = dialog(10 + d, 2)
    old, new = account(list(earlier.values())), account(list(later.values()), rating=0.5)
    if escape:  # the exporter's \xHH escapes, which the reader repairs on the way into the parser
        old, new = (v.replace(b"message 1 about", b"message 1\\x01 about") for v in (old, new))
    resumed, reread, _ = both_ways(tmp_path_factory.mktemp("ways"), "result.json", [old, new])
    assert resumed == reread


# --- an account export in a zip: its result.json copied to a temporary file, walked as a loose one's ----------


def zipped_account(data: bytes) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("DataExport_2024-02-01/result.json", data)
        zf.writestr("DataExport_2024-02-01/export_results.html", b"<html></html>")
    return buffer.getvalue()


@pytest.mark.parametrize("change", CHANGES)
def test_a_zipped_account_export_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str):
    earlier, later = versions(change)
    zips = [zipped_account(account(earlier)), zipped_account(account(later, rating=0.5))]
    resumed, reread, results = both_ways(tmp_path, "Telegram.zip", zips)
    assert resumed == reread
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        len(d["messages"]) for d in later
    )


def test_a_zipped_account_export_parses_only_the_dialogs_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    earlier, later = versions("edit")
    built = counted(monkeypatch)
    path = tmp_path / "Telegram.zip"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(zipped_account(account(earlier)))
        import_file(archive, path, tz=BERLIN, worker=False)
        built.clear()
        path.write_bytes(zipped_account(account(later, rating=0.5)))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        assert result.error is None and len(result.chats) == 9
    assert 8 + 35 + 5 <= len(built) <= 40 + 35 + 5  # the grown, the edited and the new dialog


def test_a_zipped_account_export_is_read_as_it_streams_where_no_copy_can_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "Telegram.zip"
    path.write_bytes(zipped_account(account(versions("append")[1])))
    whole = [(e.chat, list(e.messages)) for e in telegram.read(path, tz=BERLIN)]

    opened = Path.open

    def full_disk(self: Path, mode: str = "r", *args: object, **kwargs: object):
        if "w" in mode and self.name == "result.json":
            raise OSError(28, "No space left on device")
        return opened(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", full_disk)
    streamed = [(e.chat, list(e.messages)) for e in telegram.read(path, tz=BERLIN)]
    assert streamed == whole
