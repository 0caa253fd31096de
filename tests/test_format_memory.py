"""Issue 26 item 2 (memory whatever the file's size): the iMessage HTML reader streams its page. Read in
pieces of any size, it gives what it gives read in one piece (messages, the mark, errors); its memory does not
grow with the page's size, nor its time faster than the size; ``container.decoded_chunks`` fails as
``decode_text`` fails on the same bytes, wherever the pieces are cut."""

from __future__ import annotations

import codecs
import html
import time
import tracemalloc
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container, imessage
from refind_cli.records import ChatExport, Mark, Message

FIXTURES = Path(__file__).parent / "fixtures" / "phone"
SAMPLES = Path(__file__).parent.parent / "sample_exports"
PAGES = (FIXTURES / "imessage-gym.html", SAMPLES / "Lars Lindqvist.html")
WORDS = "the dinner was lovely and we should go back to Lisbon in May café 🍅 grüße Ünïcödé".split()


def page(n: int, senders: tuple[str, ...] = ("Me", "Ada", "Bo"), line_end: str = "\n") -> str:
    """An imessage-exporter page of ``n`` messages (the senders in turn), every tenth an announcement, a
    reply's copy nested under every seventh, entities and line breaks in the bubbles."""
    parts = ['<html>\n<meta charset="UTF-8">\n<link rel="stylesheet" href="style.css">\n<body>\n']
    t = datetime(2024, 1, 1, 8, 0)
    for i in range(n):
        t += timedelta(seconds=37 * (i % 5) + 1)
        stamp = f"{t:%b %d, %Y} {t.hour % 12 or 12:2d}:{t:%M:%S %p}"
        if i % 10 == 9:
            parts.append(
                f'<div class="announcement"><p><span class="timestamp">{stamp}</span> Ada named the '
                f"conversation &quot;Trip {i}&quot;</p></div>\n"
            )
            continue
        who = senders[i % len(senders)]
        side = "sent iMessage" if who == "Me" else "received"
        text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(3 + i % 9))
        body = html.escape(text) + ("<br>and &amp; a second line" if i % 4 == 0 else "")
        reply = (
            '<div class="replies"><div class="message"><div class="received"><p><span class="timestamp">'
            f'{stamp}</span><span class="sender">Bo</span></p><span class="bubble">copy</span></div></div></div>'
            if i % 7 == 0
            else ""
        )
        parts.append(
            f'<div class="message">\n  <div class="{side}">\n    <p><span class="timestamp">{stamp}</span>\n'
            f'    <span class="sender">{html.escape(who)}</span></p>\n    <hr>\n'
            f'    <div class="message_part"><span class="bubble">{body}</span></div>{reply}\n  </div>\n</div>\n'
        )
    parts.append("</body>\n</html>\n")
    return "".join(parts).replace("\n", line_end)


def reading(path: Path, chunk: int, after: Mark | None = None) -> tuple[object, list[Message], Mark | None]:
    export: ChatExport = imessage._html(path, UTC, after, chunk)
    messages = list(export.messages)
    return export.chat, messages, export.end() if export.end is not None else None


def test_the_samples_read_alike_in_pieces_of_any_size() -> None:
    for path in PAGES:
        whole = reading(path, 1 << 30)
        assert whole[1] and whole[2] is not None
        for chunk in (1, 2, 3, 5, 64, 1000):
            assert reading(path, chunk) == whole, (path, chunk)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n=st.integers(1, 40),
    chunk=st.integers(16, 700),
    line_end=st.sampled_from(["\n", "\r\n"]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]),
    others=st.sampled_from([("Me", "Ada"), ("Me", "Ada", "Bo"), ("Ada",)]),
)
def test_a_page_reads_alike_in_pieces(
    tmp_path: Path, n: int, chunk: int, line_end: str, encoding: str, others: tuple[str, ...]
) -> None:
    path = tmp_path / f"Ada {n} {chunk}.html"
    path.write_bytes(page(n, others, line_end).encode(encoding))
    whole = reading(path, 1 << 30)
    assert len(whole[1]) == n
    assert (whole[2] is not None) == (encoding == "utf-8")
    assert reading(path, chunk) == whole


def test_a_grown_page_read_from_its_mark_in_pieces(tmp_path: Path) -> None:
    """The mark a streamed reading leaves is where the whole reading leaves it, and a grown page read on from
    it in pieces gives the messages after it, numbered on."""
    path = tmp_path / "Ada.html"
    earlier, grown = page(30), page(45)
    path.write_text(earlier, encoding="utf-8")
    _, first, mark = reading(path, 1 << 30)
    assert mark is not None and reading(path, 13)[2] == mark
    assert earlier.encode()[mark.offset :].lstrip().startswith(b"</body>")
    # A grown export: the same page up to its last message, the new ones after it.
    path.write_text(grown, encoding="utf-8")
    assert grown.encode()[: mark.offset] == earlier.encode()[: mark.offset]
    _, whole, _ = reading(path, 1 << 30)
    _, rest, end = reading(path, 1 << 30, mark)
    assert rest == whole[len(first) :]
    assert reading(path, 11, mark) == (reading(path, 1 << 30, mark)[0], rest, end)
    assert end is not None and end.read == 45


@pytest.mark.parametrize(
    ("cut", "says"),
    [(0.6, "the file ends inside a message: cut short"), (None, "message 4 has no readable timestamp")],
)
def test_errors_are_the_same_in_pieces(tmp_path: Path, cut: float | None, says: str) -> None:
    text = page(12)
    if cut is None:  # the fourth message's stamp (the first message's nested reply has one too)
        parts = text.split('<span class="timestamp">')
        parts[5] = "soon" + parts[5][parts[5].index("</span>") :]
        text = '<span class="timestamp">'.join(parts)
    data = text.encode()[: int(len(text) * cut)] if cut else text.encode()
    path = tmp_path / "Ada.html"
    path.write_bytes(data)
    for chunk in (1 << 30, 1, 97):
        with pytest.raises(InputError, match=says):
            reading(path, chunk)


def test_a_code_page_is_said_once(tmp_path: Path) -> None:
    """The first reading (which tells the chat's kind) does not say again what the second one says."""
    path = tmp_path / "Ada.html"
    path.write_bytes(page(20).replace("🍅", "tomato").encode("cp1252"))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        (export,) = imessage.read(path, tz=UTC)
        assert len(list(export.messages)) == 20
    assert [str(w.message) for w in said if issubclass(w.category, InputWarning)] == [
        f"{path}: not UTF-8: read as CP1252, the code page its bytes tell (saved by an older tool?)"
    ]


@given(
    data=st.binary(max_size=300),
    codec=st.sampled_from(["utf-8", "utf-8-sig", "utf-16-le", "utf-16", "cp1252"]),
    cuts=st.lists(st.integers(1, 50), max_size=8),
)
def test_decoded_chunks_is_decode_text_in_pieces(data: bytes, codec: str, cuts: list[int]) -> None:
    """Text in any encoding, with any bytes spliced in, cut anywhere: the same text or the same error."""
    text = "Grüße\n🍅 x\r\n" * 3
    encoded = text.encode(codec, "replace")
    whole = encoded[:60] + data + encoded[60:]
    pieces, at = [], 0
    for size in cuts:
        pieces.append(whole[at : at + size])
        at += size
    pieces.append(whole[at:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        try:
            expected: str | Exception = container.decode_text(whole, "f.html", legacy=True)
        except InputError as exc:
            expected = exc
        try:
            got: str | Exception = "".join(container.decoded_chunks(pieces, "f.html", legacy=True))
        except InputError as exc:
            got = exc
    assert str(got) == str(expected)


def _peak_and_cpu(path: Path) -> tuple[int, float]:
    """The Python memory at its peak and the CPU seconds of reading ``path`` in pieces of 64 KiB (the
    reader's own are 1 MiB: a small page would be one piece)."""

    def read() -> int:  # the messages counted as they come, not kept
        return sum(1 for _ in imessage._html(path, UTC, None, 1 << 16).messages)

    tracemalloc.start()
    try:
        read()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    start = time.process_time()
    read()
    return peak, time.process_time() - start


@pytest.mark.parametrize("senders", [("Me", "Ada"), ("Me", "Ada", "Bo")])  # read twice, and once and a bit
def test_memory_does_not_grow_with_the_page_nor_time_faster(tmp_path: Path, senders: tuple[str, ...]) -> None:
    """A page 16 times the size peaks at about the same Python memory (below the page's own size), and takes
    at most about 16 times the CPU. The whole page held (as before) peaks at more than 16 times."""
    small, large = tmp_path / "Ada small.html", tmp_path / "Ada large.html"
    small.write_text(page(1_000, senders), encoding="utf-8")
    large.write_text(page(16_000, senders), encoding="utf-8")
    (small_peak, small_cpu), (large_peak, large_cpu) = _peak_and_cpu(small), _peak_and_cpu(large)
    assert large_peak < 1.5 * small_peak + (1 << 20), (small_peak, large_peak)  # a 1 MiB read piece
    assert large_peak < large.stat().st_size, (large_peak, large.stat().st_size)
    assert large_cpu < 32 * small_cpu + 0.5, (small_cpu, large_cpu)


def test_a_bom_page_is_streamed_too(tmp_path: Path) -> None:
    """Not only a plain UTF-8 page: UTF-16 with its BOM is decoded as it streams (no mark is left)."""
    path = tmp_path / "Ada.html"
    path.write_bytes(codecs.BOM_UTF16_LE + page(50).encode("utf-16-le"))
    _, messages, mark = reading(path, 333)
    assert len(messages) == 50 and mark is None


@pytest.mark.parametrize("broken", [0, 7, 29])
def test_a_gemini_html_card_error_names_its_line(tmp_path: Path, broken: int) -> None:
    """Gemini's My Activity HTML counts its cards' lines once through the page (not from its start for each
    card): the line an error names is still the card's, however far down."""
    from test_resume_tail import activity_html, cards

    from refind_cli.importers import gemini

    data = activity_html({c: cards(c, 3) for c in range(10)}).decode()
    lines = data.split("\n")
    # The page's newest card first: card ``broken`` from the top loses its time.
    row = 1 + broken
    lines[row] = lines[row].replace("\u202f", " ").replace(" UTC<br>", " sometime<br>", 1)
    lines[row] = lines[row].replace(", 20", " in the year 20", 1)
    path = tmp_path / "MyActivity.html"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError, match=rf": line {row + 1}: a card without a time"):
        list(gemini.read(path, tz=UTC))


def test_a_large_json_list_lets_go_of_the_pages_it_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``jsonstream.Items`` drops the map's pages behind its walk (its resident memory was the file's size at
    the end of a 1M ChatGPT file); what is read is the same, letting go at every item or never."""
    from test_assistants import big_chatgpt

    from refind_cli.importers import chatgpt, jsonstream

    path = tmp_path / "conversations.json"
    path.write_bytes(big_chatgpt(400, 16))
    assert path.stat().st_size > 4 << 20  # read by its bytes (``conversations.scan``)

    def messages() -> list[object]:
        return [(e.chat, list(e.messages)) for e in chatgpt.read(path, tz=UTC)]

    monkeypatch.setattr(jsonstream, "_LET_GO_BYTES", 1 << 40)
    kept = messages()
    let_go = jsonstream.Items._let_go
    dropped: list[int] = []

    def spy(self: jsonstream.Items, start: int) -> None:
        let_go(self, start)
        dropped.append(self._dropped)

    monkeypatch.setattr(jsonstream, "_LET_GO_BYTES", 1)
    monkeypatch.setattr(jsonstream.Items, "_let_go", spy)
    assert messages() == kept
    assert len(kept) == 400 and dropped[-1] > path.stat().st_size - (64 << 10)
