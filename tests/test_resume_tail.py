"""A Gemini ``MyActivity.json`` grown at its top (newest first) is read up to where the earlier export's
bytes begin: the ledger's pass hashes the bytes after the place the earlier import left (a head counted from
the file's end, ``ingest.resume.Head``), the conversations after it are taken as they are, and the walk of
the entries stops there (``gemini._Scan``). Where the bytes after it changed, or the entries before it are
not all later than it by more than the conversation gap, the file is walked whole, as before. Each way
leaves the archive exactly as a full re-read (``--reread``) of the new file does."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from test_resume_gemini import START, conversation, entry, export
from test_resume_import import BERLIN, both_ways, reimported
from test_resume_teams import chat as teams_chat
from test_resume_teams import files, message, zipped

from refind_cli.importers import gemini, teams
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive


def walked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The entries the scan reads a time from (their offsets), from now on."""
    seen: list[int] = []
    original = gemini._timed
    monkeypatch.setattr(gemini, "_timed", lambda items, start: seen.append(start) or original(items, start))
    return seen


def grown(n: int, last: int = 5) -> dict[int, list[dict]]:
    """Conversations 0..n-1 of five entries, the last of ``last``."""
    return {c: conversation(c, last if c == n - 1 else 5) for c in range(n)}


def test_a_grown_export_is_walked_only_up_to_the_earlier_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "MyActivity.json"
    seen = walked(monkeypatch)
    with Archive.open(tmp_path / "home") as archive:
        for n, (groups, expected) in enumerate(
            [
                (grown(8), 40),  # read whole
                (grown(8, last=7), 7 + 1),  # the last continued: its entries, and the first after the place
                ({**grown(8, last=7), 8: conversation(8, 3)}, 3 + 7 + 1),  # a new one: the one before it too
            ]
        ):
            seen.clear()
            path.write_bytes(export(groups))
            result = import_file(archive, path, tz=BERLIN, worker=False)
            assert result.error is None
            assert len(seen) == expected, n
            assert len(result.chats) == len(groups)
            assert sum(c.messages_added + c.messages_skipped for c in result.chats) == 2 * sum(
                len(g) for g in groups.values()
            )


@pytest.mark.parametrize(
    "change",
    [
        "append",
        "two appends",
        "an edit after the place",
        "a deletion after the place",
        "the newest conversation gone, an entry near the one before",
        "an entry older than the place on top",
        "the newest conversation edited",
    ],
)
def test_each_way_leaves_what_a_reread_leaves(tmp_path: Path, change: str) -> None:
    first = grown(6)
    later = {**grown(6, last=8), 6: conversation(6, 2)}
    steps = [first, later]
    if change == "two appends":
        steps.append({**later, 6: conversation(6, 4), 7: conversation(7, 1)})
    elif change == "an edit after the place":
        later[2] = conversation(2, 5, edit=3)
    elif change == "a deletion after the place":
        later[1] = conversation(1, 5, gone=0)
    elif change == "the newest conversation gone, an entry near the one before":
        del later[5], later[6]
        # Half an hour after conversation 4's last entry: it joins conversation 4.
        later[9] = [{**entry(4, 4), "time": entry(4, 34)["time"], "title": "Prompted late"}]
    elif change == "an entry older than the place on top":
        later[9] = [{**entry(0, 2), "time": entry(0, 2)["time"][:-4] + "500Z", "title": "Prompted early"}]
    elif change == "the newest conversation edited":
        later[5] = conversation(5, 8, edit=1)
    versions = [export(v) for v in steps]
    if change == "an entry older than the place on top":  # on top of the file, whatever its time
        entries = json.loads(versions[-1])
        moved = next(e for e in entries if e["title"] == "Prompted early")
        entries.remove(moved)
        versions[-1] = json.dumps([moved, *entries], indent=2).encode()
    resumed, reread, results = both_ways(tmp_path, "MyActivity.json", versions)
    assert resumed == reread
    assert results[-1].error is None
    assert len({c.chat_uid for c in results[-1].chats}) == len(results[-1].chats)


def test_a_tail_that_is_not_a_conversations_end_leaves_no_place(tmp_path: Path) -> None:
    """Entries out of time order in the file: no conversation's entries are the last of the list, so no
    place is left, and the next import walks the file whole (as a re-read)."""
    groups = grown(4)
    entries = sorted((e for g in groups.values() for e in g), key=lambda e: e["time"], reverse=True)
    entries[-1], entries[-7] = entries[-7], entries[-1]  # conversation 0's first entry among conversation 1's
    text = json.dumps(entries, indent=2).encode()
    later = json.dumps([entry(9, 0), *entries], indent=2).encode()
    resumed, reread, _ = both_ways(tmp_path, "MyActivity.json", [text, later])
    assert resumed == reread


# --- Microsoft Teams: a grown chat file read on from a head of its list -----------------------------------


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Teams files read in blocks of 512 bytes (heads form between read blocks: a small file has some); the
    files read on from a head, from now on."""
    monkeypatch.setattr(teams, "_RULES", dataclasses.replace(teams._RULES, block=512))
    went_on: list[str] = []
    original = teams._grown

    def spy(file, tz, grown):  # type: ignore[no-untyped-def]
        read = original(file, tz, grown)
        if read is not None:
            went_on.append(file.name)
        return read

    monkeypatch.setattr(teams, "_grown", spy)
    return went_on


def teams_versions(change: str) -> list[dict[int, list[dict]]]:
    earlier = {c: teams_chat(c, 12) for c in range(-1, 3)}
    later = {**earlier, 1: teams_chat(1, 20)}
    if change == "a new sender":
        later[1] = [
            *teams_chat(1, 20),
            {**message(1, 20), "From": {"User": {"Id": "u9", "DisplayName": "Zoe"}}},
        ]
    elif change == "an edit before the head":
        later[1] = teams_chat(1, 20, edit=2)
    elif change == "a deletion before the head":
        later[1] = teams_chat(1, 20, gone=3)
    elif change == "a message of another chat":
        later[1] = [*teams_chat(1, 20), message(7, 0)]
    elif change == "the channel grew":
        later[-1] = teams_chat(-1, 20)
    elif change == "a message without an id":
        later[1] = [*teams_chat(1, 20), {**message(1, 20), "Id": None}]
    steps = [earlier, later]
    if change == "twice":
        steps.append({**later, 1: teams_chat(1, 31)})
    return steps


@pytest.mark.parametrize(
    ("change", "went_on"),
    [
        ("append", ["users/me/messages_1.json"]),
        ("twice", ["users/me/messages_1.json"] * 2),
        ("a new sender", ["users/me/messages_1.json"]),
        ("an edit before the head", []),
        ("a deletion before the head", []),
        ("a message of another chat", []),
        ("the channel grew", ["users/me/messages_1.json"]),
        ("a message without an id", ["users/me/messages_1.json"]),
    ],
)
def test_a_grown_teams_chat_leaves_what_a_reread_leaves(
    tmp_path: Path, small_blocks: list[str], change: str, went_on: list[str]
) -> None:
    steps = teams_versions(change)
    resumed, reread, results = both_ways(tmp_path, "teams-export.zip", [zipped(files(s)) for s in steps])
    assert resumed == reread
    assert small_blocks == went_on
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        len(m) for m in steps[-1].values()
    )


def test_a_teams_chat_after_a_message_without_an_id_is_read_whole(
    tmp_path: Path, small_blocks: list[str]
) -> None:
    """A message without an id leaves no head: the identities of those after it depend on it."""
    first = {1: [*teams_chat(1, 12), {**message(1, 12), "Id": None}]}
    later = {1: [*first[1], *teams_chat(1, 20)[13:]]}
    resumed, reread, _ = both_ways(tmp_path, "teams-export.zip", [zipped(files(first)), zipped(files(later))])
    assert resumed == reread
    assert small_blocks == []


# --- imessage-exporter HTML: read on from after the last message ------------------------------------------

HTML_HEAD = '<html>\n<meta charset="UTF-8">\n\n<link rel="stylesheet" type="text/css" href="style.css">\n'


def html_message(i: int, sender: str = "", text: str = "", minute: int | None = None) -> str:
    who = sender or ("Me" if i % 3 == 0 else "+4917155507070")
    side = "sent iMessage" if who == "Me" else "received"
    stamp = f"Aug 16, 2026  7:{(i if minute is None else minute) % 60:02d}:{i // 60 % 60:02d} PM"
    return (
        f'\n<div class="message">\n    <div class="{side}">\n        <p><span class="timestamp">{stamp}</span>\n'
        f'            <span class="sender">{who}</span>\n        </p>\n        <hr>\n'
        f'        <div class="message_part"><span class="bubble">{text or f"tomatoes {i} &amp; beans"}</span></div>\n'
        "    </div>\n</div>\n"
    )


def html_file(messages: list[str]) -> bytes:
    return (HTML_HEAD + "".join(messages) + "\n</html>\n").encode()


def html_mark(messages: list[str]) -> int:
    """Where a reading of a file of ``messages`` leaves its mark: after the last one's closing tag."""
    return len((HTML_HEAD + "".join(messages)).encode()) - 1  # the line break after it is not the record's


@pytest.mark.parametrize(
    "change",
    [
        "append",
        "twice",
        "a third sender",
        "the same words in the same second",
        "an edit before",
        "a deletion",
    ],
)
def test_a_grown_imessage_html_is_read_on_from_after_its_last_message(tmp_path: Path, change: str) -> None:
    first = [html_message(i) for i in range(10)]
    later = [*first, *(html_message(i) for i in range(10, 14))]
    steps = [first, later]
    at: int | None = html_mark(first)
    if change == "twice":
        steps.append([*later, html_message(14), html_message(15)])
        at = html_mark(later)
    elif change == "a third sender":
        steps[1] = [*later, html_message(14, sender="+4917100000000")]
    elif change == "the same words in the same second":
        same = html_message(9)
        steps = [[*first, same], [*first, same, same, same]]  # the second and third occurrences
        at = html_mark(steps[0])
    elif change == "an edit before":
        steps[1] = [*first[:4], html_message(4, text="edited"), *later[5:]]
        at = None
    elif change == "a deletion":
        steps[1] = [*first[:4], *later[5:]]
        at = None
    _, results = reimported(tmp_path, "Lars.html", [html_file(s) for s in steps], at)
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == len(steps[-1])
    if change == "a third sender":
        assert results[-1].chats[0].messages_added == 5


def test_an_imessage_html_in_a_code_page_leaves_no_mark(tmp_path: Path) -> None:
    first = [html_message(i, text="Grüße") for i in range(4)]
    later = [*first, html_message(4, text="Grüße")]
    reimported(tmp_path, "Lars.html", [html_file(s).decode().encode("cp1252") for s in (first, later)], None)


def test_a_zipped_gemini_export_is_walked_from_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Takeout zip's ``MyActivity.json`` is copied out and walked as a loose file: only the conversations
    whose entries changed are parsed, and the archive ends as a re-read leaves it."""

    def zipped_takeout(groups: dict[int, list[dict]]) -> bytes:
        return zipped({"Takeout/My Activity/Gemini Apps/MyActivity.json": export(groups)})

    first, later = grown(6), {**grown(6, last=8), 6: conversation(6, 2)}
    resumed, reread, _ = both_ways(
        tmp_path / "ways", "takeout.zip", [zipped_takeout(first), zipped_takeout(later)]
    )
    assert resumed == reread
    built: list[str] = []
    original = gemini._json_entry
    monkeypatch.setattr(
        gemini, "_json_entry", lambda obj, where, error: built.append(where) or original(obj, where, error)
    )
    path = tmp_path / "takeout.zip"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(zipped_takeout(first))
        import_file(archive, path, tz=BERLIN, worker=False)
        built.clear()
        path.write_bytes(zipped_takeout(later))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        assert result.error is None
        assert len(built) == 2 + 8  # the new conversation's entries, the continued one's
        broken = zipped({"Takeout/My Activity/Gemini Apps/MyActivity.json": export(later)[:-30]})
        path.write_bytes(broken)
        error = import_file(archive, path, tz=BERLIN, worker=False).error
        assert (
            error is not None
            and "takeout.zip" in error
            and "MyActivity.json" in error
            and "refind-" not in error
        )


# --- Gemini's My Activity HTML: the same places, by its cards ------------------------------------------------

HTML_PAGE = (
    '<html><head><meta charset="UTF-8"><title>My Activity</title></head><body><div class="mdl-grid">\n'
)


def card(c: int, i: int, *, edit: bool = False, minutes: int | None = None) -> tuple[datetime, str]:
    """Card ``i`` of conversation ``c``, as Takeout's HTML writes an entry (times in UTC)."""
    when = START + timedelta(hours=3 * c, minutes=i if minutes is None else minutes)
    stamp = f"{when:%b} {when.day}, {when.year}, {when.hour % 12 or 12}:{when:%M:%S}\u202f{when:%p} UTC"
    text = (
        '<div class="outer-cell mdl-cell mdl-cell--12-col mdl-shadow--2dp"><div class="mdl-grid">'
        '<div class="header-cell mdl-cell mdl-cell--12-col"><p class="mdl-typography--title">Gemini Apps<br></p>'
        '</div><div class="content-cell mdl-cell mdl-cell--6-col mdl-typography--body-1">'
        f"Prompted&nbsp;conversation {c} question {i} about trains<br>{stamp}<br>"
        f"<p>Answer {c}.{i}: the <b>night train</b>{' (edited)' * edit}</p></div>"
        '<div class="content-cell mdl-cell mdl-cell--6-col mdl-typography--body-1 mdl-typography--text-right">'
        "</div></div></div>\n"
    )
    return when, text


def cards(c: int, n: int, **change: int) -> list[tuple[datetime, str]]:
    return [card(c, i, edit=i == change.get("edit")) for i in range(n) if i != change.get("gone")]


def activity_html(groups: dict[int, list[tuple[datetime, str]]]) -> bytes:
    entries = sorted((e for g in groups.values() for e in g), key=lambda e: e[0], reverse=True)
    return (HTML_PAGE + "".join(text for _, text in entries) + "</div></body></html>\n").encode()


@pytest.mark.parametrize(
    ("change", "parsed"),
    [
        # The continued conversation's cards, the new one's, the newest after the place.
        ("append", 8 + 2 + 1),
        ("an edit after the place", 45),  # read whole
        ("a conversation gone after the place", 40),
        # The newest after the place, then (it is within the gap of the card before the place, whose time
        # alone is read) the whole file.
        ("the newest conversation gone, a card near the one before", 1 + 36),
    ],
)
def test_a_grown_activity_html_is_read_only_up_to_the_earlier_cards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, parsed: int
) -> None:
    first = {c: cards(c, 5) for c in range(8)}
    later = {**first, 7: cards(7, 8), 8: cards(8, 2)}
    if change == "an edit after the place":
        later[3] = cards(3, 5, edit=1)
    elif change == "a conversation gone after the place":
        del later[2]
    elif change == "the newest conversation gone, a card near the one before":
        later = {c: g for c, g in first.items() if c != 7}
        later[9] = [card(6, 35)]
    versions = [activity_html(first), activity_html(later)]
    resumed, reread, results = both_ways(tmp_path / "ways", "MyActivity.html", versions)
    assert resumed == reread
    assert len(results[-1].chats) == len(later) - (change.startswith("the newest") and 1)
    built: list[str] = []
    original = gemini._html_entry
    monkeypatch.setattr(gemini, "_html_entry", lambda *a: built.append(a[3]) or original(*a))
    path = tmp_path / "MyActivity.html"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(versions[0])
        import_file(archive, path, tz=BERLIN, worker=False)
        built.clear()
        path.write_bytes(versions[1])
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
        assert len(built) == parsed
