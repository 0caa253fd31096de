"""Issue 26 item 2 (peak memory of a 1M-message import under 250 MB), Gemini's My Activity: the JSON reader
holds each entry's time and place packed (not as objects), and reads each conversation's entries from the
file, not from its map; the HTML reader walks the page's bytes for each card's time and reads each
conversation's cards again, never the page's text whole. Their memory grows by a few tens of bytes an entry,
not with the file; what they read is what the object form of the grouping, and every other form of the same
page (in a zip, in UTF-16, the JSON of the same entries), reads."""

from __future__ import annotations

import html
import json
import random
import tracemalloc
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.importers import gemini, jsonstream
from refind_cli.importers.gemini import GAP, _Placed, _Timeline
from refind_cli.records import ChatExport

WORDS = (
    "the dinner was lovely and we should go back to Lisbon in May café 🍅 grüße Ünïcödé <b> & \" '".split()
)
START = datetime(2025, 3, 1, tzinfo=UTC)
PAGE_HEAD = (
    '<html><head><meta charset="UTF-8"><title>My Activity</title></head><body><div class="mdl-grid">\n'
)


def entries(n: int, per: int = 20, seed: int = 3) -> list[tuple[datetime, str, str]]:
    """``n`` prompts and replies, newest first: an entry a minute, ``per`` a conversation (hours apart)."""
    rng = random.Random(seed)
    made = []
    for k in range(n):
        when = START + timedelta(minutes=k + 180 * (k // per), seconds=rng.randrange(60))
        prompt = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 12)))
        reply = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(5, 40)))
        made.append((when, prompt, reply))
    return made[::-1]


# What Takeout says beside an entry, which the readers pass over: here long, so that a few thousand entries
# make a file of megabytes (the readers' pieces of a megabyte are then the same at every size).
ABOUT = "This activity was saved to your Google Account because Gemini Apps Activity was on. " * 12


def activity_json(made: list[tuple[datetime, str, str]], about: bool = False) -> bytes:
    items = [
        {
            "header": "Gemini Apps",
            "title": f"Prompted {prompt}",
            "time": f"{when:%Y-%m-%dT%H:%M:%S}.000Z",
            "products": ["Gemini Apps"],
            "subtitles": [{"name": ABOUT}] if about else [],
            "safeHtmlItem": [{"html": f"<p>{html.escape(reply)}</p>"}],
        }
        for when, prompt, reply in made
    ]
    return json.dumps(items, ensure_ascii=False, indent=1).encode()


def activity_html(made: list[tuple[datetime, str, str]]) -> str:
    cards = []
    for when, prompt, reply in made:
        stamp = f"{when:%b} {when.day}, {when.year}, {when.hour % 12 or 12}:{when:%M:%S}\u202f{when:%p} UTC"
        cards.append(
            '<div class="outer-cell mdl-cell mdl-cell--12-col mdl-shadow--2dp"><div class="mdl-grid">'
            '<div class="header-cell mdl-cell mdl-cell--12-col"><p class="mdl-typography--title">Gemini Apps<br>'
            '</p></div><div class="content-cell mdl-cell mdl-cell--6-col mdl-typography--body-1">'
            f"Prompted&nbsp;{html.escape(prompt)}<br>{stamp}<br><div><p>{html.escape(reply)}</p></div></div>"
            '<div class="content-cell mdl-cell mdl-cell--6-col mdl-typography--body-1 '
            'mdl-typography--text-right"></div><div class="content-cell mdl-cell mdl-cell--12-col '
            f'mdl-typography--caption"><b>Products:</b><br>&emsp;Gemini Apps<br>{ABOUT}</div></div></div>\n'
        )
    return PAGE_HEAD + "".join(cards) + "</div></body></html>\n"


def read(path: Path) -> list[ChatExport]:
    return [e._replace(messages=list(e.messages)) for e in gemini.read(path, tz=UTC)]


def peak(path: Path) -> int:
    """The reading's tracemalloc peak, its messages read and dropped as an import reads them."""
    tracemalloc.start()
    try:
        for export in gemini.read(path, tz=UTC):
            for _ in export.messages:
                pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --- memory ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["json", "html"])
def test_memory_grows_by_tens_of_bytes_an_entry_not_with_the_file(tmp_path: Path, kind: str) -> None:
    """4 times the entries: the peak grows by under 100 bytes an entry added (their times and places), and
    stays far below the file. Held as objects, an entry's time and place took ~250 bytes (the JSON); the
    HTML's text and every card's entry, several times the file."""
    sizes, peaks = {}, {}
    for n in (40, 1_000, 4_000):  # the first warms the imports (numpy's allocations are traced)
        made = entries(n)
        path = tmp_path / f"{n}" / f"MyActivity.{kind}"
        path.parent.mkdir()
        path.write_bytes(activity_json(made) if kind == "json" else activity_html(made).encode())
        sizes[n], peaks[n] = path.stat().st_size, peak(path)
    assert peaks[4_000] - peaks[1_000] < 100 * 3_000, peaks
    assert peaks[4_000] < sizes[4_000] / 2, (peaks, sizes)


def rss_file_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1])
    pytest.skip("no RssFile in /proc/self/status")


@pytest.mark.parametrize("kind", ["json", "html"])
def test_the_files_pages_are_let_go_of(tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk lets go of the map's pages behind it, and the conversations are read from the file, not the
    map: the file's pages do not pile up in the reader's resident memory (a 1M Gemini JSON's 120 MB did)."""
    made = entries(8_000, per=400)
    path = tmp_path / f"MyActivity.{kind}"
    path.write_bytes(activity_json(made, about=True) if kind == "json" else activity_html(made).encode())
    size_kb = path.stat().st_size >> 10
    assert size_kb > 8 << 10
    monkeypatch.setattr(jsonstream, "_LET_GO_BYTES", 1 << 20)
    before = rss_file_kb()
    most = 0
    for export in gemini.read(path, tz=UTC):
        for _ in export.messages:
            pass
        most = max(most, rss_file_kb() - before)
    assert most < size_kb / 3, (most, size_kb)


# --- the same reading ----------------------------------------------------------------------------------------


def comparable(exports: list[ChatExport]) -> list[Any]:
    return [
        (e.chat.key, e.chat.name, [(m.timestamp, m.sender, m.text, m.kind) for m in e.messages])
        for e in exports
    ]


def test_every_form_of_a_page_reads_alike(tmp_path: Path) -> None:
    """The page loose (read from its own bytes), in a zip and in UTF-16 (read from a copy of its text): the
    same conversations, fingerprints and messages (a place only where the file is loose UTF-8); the JSON of
    the same entries, the same conversations and texts."""
    made = entries(300, per=25)
    text = activity_html(made)
    loose = tmp_path / "MyActivity.html"
    loose.write_text(text, encoding="utf-8")
    wide = tmp_path / "wide" / "MyActivity.html"
    wide.parent.mkdir()
    wide.write_bytes(text.encode("utf-16"))
    zipped = tmp_path / "takeout.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("Takeout/My Activity/Gemini Apps/MyActivity.html", text)
    as_json = tmp_path / "MyActivity.json"
    as_json.write_bytes(activity_json(made))
    first = read(loose)
    assert len(first) == 12 and all(e.at is not None for e in first)
    for other in (wide, zipped):
        assert [e._replace(at=None) for e in read(other)] == [e._replace(at=None) for e in first]
    assert comparable(read(as_json)) == comparable(first)


def test_a_page_cut_short_or_without_a_time_is_refused_at_its_line(tmp_path: Path) -> None:
    text = activity_html(entries(200))
    lines = text.splitlines(keepends=True)
    cut = tmp_path / "cut" / "MyActivity.html"
    cut.parent.mkdir()
    cut.write_text("".join(lines[:150]) + lines[150][:300], encoding="utf-8")
    with pytest.raises(gemini.InputError, match=r"line 151: truncated: a card that never ends"):
        read(cut)
    timeless = tmp_path / "MyActivity.html"
    lines[120] = lines[120].replace(", 2025, ", " in 2025 at ")
    timeless.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(gemini.InputError, match=r"line 121: a card without a time refind can read"):
        read(timeless)


# --- the packed timeline against the objects it replaced ----------------------------------------------------


def grouped_objects(placed: list[_Placed]) -> Iterator[list[_Placed]]:
    """The grouping as it was done with objects: sorted by time (stably), cut at silences over ``GAP``."""
    group: list[_Placed] = []
    for p in sorted(placed, key=lambda p: p.when):
        if group and p.when - group[-1].when > GAP:
            yield group
            group = []
        group.append(p)
    if group:
        yield group


def places_objects(
    placed: list[_Placed], tail: _Placed | None, size: int
) -> Iterator[tuple[int, int] | None]:
    """Each conversation's place as it was found with objects."""
    in_file = sorted(placed, key=lambda p: p.index)
    first = tail or (
        _Placed(in_file[-1].when, in_file[-1].end, in_file[-1].end, in_file[-1].index) if in_file else None
    )
    yield None if first is None else (first.start - size, first.index)
    lowest, newest, count = len(in_file), None, 0
    for group in grouped_objects(placed):
        count += len(group)
        lowest = min(lowest, min(p.index for p in group))
        newest = group[-1].when if newest is None else max(newest, group[-1].when)
        there = in_file[len(in_file) - count]
        whole = there.index == lowest and there.when == newest
        yield (there.start - size, there.index) if whole else None


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(st.tuples(st.integers(-90, 90), st.integers(0, 999_999), st.integers(1, 3)), max_size=40),
    tailed=st.booleans(),
)
def test_the_packed_timeline_groups_and_places_as_the_objects_did(
    steps: list[tuple[int, int, int]], tailed: bool
) -> None:
    """Times in any order, ties, silences around ``GAP``, indexes with gaps (a null entry passed over): the
    same conversations, in the same order, and the same places."""
    timeline, placed = _Timeline(), []
    when, offset, index = START, 0, 0
    for minutes, micros, skip in steps:
        when += timedelta(minutes=minutes, microseconds=micros)
        offset += 100 + micros % 400
        placed.append(_Placed(when, offset, offset + 50, index))
        timeline.add(when, offset, offset + 50, index)
        index += skip
    tail = _Placed(START, offset + 500, offset + 600, index) if tailed else None
    packed = [[timeline.time(p) for p in group] for group in timeline.groups()]
    assert packed == [[p.when for p in group] for group in grouped_objects(placed)]
    assert [[placed[p] for p in g] for g in timeline.groups()] == list(grouped_objects(placed))
    assert list(timeline.places(tail, offset + 1000)) == list(places_objects(placed, tail, offset + 1000))
    assert timeline.near(START) == any(p.when - START <= GAP for p in placed)
