"""The shared line-log engine under LINE, KakaoTalk and Signal: how files are told apart (from each other, from
WhatsApp, from things that are not exports), streaming, re-imports, and properties of its line parsers."""

from __future__ import annotations

import codecs
import itertools
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from cli_runs import run
from hypothesis import given, settings
from hypothesis import strategies as st
from linelog_fixtures import FIXTURES, FORMATS, SEOUL, load
from samples import SAMPLES, load_script

from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.importers import kakaotalk, line, linelog, signal_logs
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive

MINE = {"line": line, "kakaotalk": kakaotalk, "signal": signal_logs}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_fixture_is_told_by_its_own_sniff_and_no_other(name: str) -> None:
    path = FIXTURES / name
    assert importers.detect(path) == FORMATS[name]
    for other in importers.names():
        if other != FORMATS[name]:
            assert not importers.get(other).sniff(path), other


def test_no_sample_of_another_format_is_taken_for_a_line_log() -> None:
    exports = [
        p
        for p in SAMPLES.rglob("*")
        if p.suffix not in (".py", ".md")
        and not any(p.is_relative_to(SAMPLES / name) for name in SAMPLE_COUNTS)
    ]
    assert len(exports) > 40
    for path in exports:
        for module in MINE.values():
            assert not module.sniff(path), (module.FORMAT, path)


NOT_EXPORTS = {
    "feed.xml": '<?xml version="1.0"?>\n<rss version="2.0"><channel><title>News</title>\n'
    "<item><pubDate>Fri, 19 Jan 2018 21:30:00 GMT</pubDate></item></channel></rss>\n",
    "novel.txt": "Chapter 1\n\nFri, 1/19/2018\nIt was a dark and stormy night.\n21:30 and still raining.\n"
    "[2024-01-05 14:22:01] she wrote in her diary: nothing.\n",
    "page.html": "<!doctype html>\n<html><body><p>2024/1/23(火)</p><p>21:30</p></body></html>\n",
    "diary.md": "# Diary\n\n[2024-01-05 14:22:01]\nNothing happened.\n",
    "conversations.json": '{"conversations": "not a list"}\n',
}


@pytest.mark.parametrize("name", sorted(NOT_EXPORTS))
def test_things_that_are_not_exports_are_one_line_errors(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(NOT_EXPORTS[name], encoding="utf-8")
    for module in MINE.values():
        assert not module.sniff(path), module.FORMAT
    r = run(tmp_path / "home", "import", str(path))
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"refind: error: {path}"), r.stderr


@pytest.mark.parametrize("fmt", sorted(MINE))
def test_a_broken_file_named_with_its_format_is_one_line_exit_2(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "broken.txt"
    path.write_bytes(
        "[LINE] Chat history with Bob\n2024/1/23(火)\n10:00\tBob\thi\n".encode()[:-8] + b"\xe3\x81"
    )
    r = run(tmp_path / "home", "import", "--format", fmt, str(path))
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output, r.stderr
    with Archive.open(tmp_path / "home") as archive:
        assert list(archive.chats()) == []


def test_every_fixture_imports_and_a_reimport_adds_nothing(tmp_path: Path) -> None:
    paths = [FIXTURES / name for name in sorted(FORMATS) if "/" not in name or name.endswith("data.json")]
    with Archive.open(tmp_path / "home") as archive:
        first = [import_file(archive, p, tz=SEOUL) for p in paths]
        assert [r.error for r in first] == [None] * len(paths)
        counts = {p.name: sum(c.messages_added for c in r.chats) for p, r in zip(paths, first, strict=True)}
        expected = {p.name: len(load(p)[1]) for p in paths}
        # data.json is the chat folder's chat again: two of its five messages read the same (time, sender
        # and text) as its chat.md, so they are the same messages.
        expected["data.json"] -= 2
        assert counts == expected
        again = [import_file(archive, p, tz=SEOUL, reread=True) for p in paths]
        assert [sum(c.messages_added for c in r.chats) for r in again] == [0] * len(paths)
        # Read in another zone the instants move, the identities (written local times) do not.
        other = [import_file(archive, p, tz=ZoneInfo("America/New_York"), reread=True) for p in paths]
        assert [sum(c.messages_added for c in r.chats) for r in other] == [0] * len(paths)


# --- the engine -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_lines_are_the_same_in_any_chunk_size(size: int) -> None:
    text = "\ufeffa\r\nb\rc\n\nd\u2028e\r\n\r\nf"
    data = text.encode("utf-8")
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    assert list(linelog.iter_lines(chunks, "x")) == ["a", "b", "c", "", "d\u2028e", "", "f"]
    utf16 = codecs.BOM_UTF16_LE + text.removeprefix("\ufeff").encode("utf-16-le")
    chunks = [utf16[i : i + size] for i in range(0, len(utf16), size)]
    assert list(linelog.iter_lines(chunks, "x")) == ["a", "b", "c", "", "d\u2028e", "", "f"]


def test_messages_are_read_as_consumed_not_the_whole_file_first() -> None:
    consumed = 0

    def lines() -> itertools.count[int]:
        return itertools.count()

    def endless() -> object:
        nonlocal consumed
        yield "Fri, 1/19/2018"
        for i in lines():
            consumed += 1
            yield f"21:{i % 60:02d}\tBob\tmessage {i}"

    reader = linelog.Reader(line.GRAMMAR, endless(), UTC, "x", None)  # type: ignore[arg-type]
    head = reader.head()
    first = list(itertools.islice(reader.messages(head.layout), 3))
    assert [m.text for m in first] == ["message 0", "message 1", "message 2"]
    assert consumed <= 5


def test_clock_changes_read_like_whatsapp() -> None:
    # Berlin's clocks went back at 03:00 on 27 October 2024: 02:30 happens twice, read in order.
    clock = linelog.Clock(ZoneInfo("Europe/Berlin"))
    day = (2024, 10, 27)
    first = clock.at(day, timedelta(hours=2, minutes=30))
    assert first == datetime(2024, 10, 27, 0, 30, tzinfo=UTC)
    clock.at(day, timedelta(hours=2, minutes=50))
    assert clock.at(day, timedelta(hours=2, minutes=10)) == datetime(2024, 10, 27, 1, 10, tzinfo=UTC)


# --- properties -----------------------------------------------------------------------------------------

NAMES = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=12).filter(
    lambda s: s == s.strip() and s.strip(linelog.MARKS) == s and "\t" not in s
)
TEXTS = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=30).filter(
    lambda s: s == s.strip() and not s.startswith('"') and s.strip(linelog.MARKS) == s
)
MESSAGES = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 1439), NAMES, st.lists(TEXTS, min_size=1, max_size=3)),
    min_size=1,
    max_size=20,
)


@settings(max_examples=60, deadline=None)
@given(MESSAGES)
def test_a_written_line_export_reads_back(tmp_path_factory: pytest.TempPathFactory, messages: list) -> None:
    """Any messages written in LINE's English layout read back as written: senders, texts (multi-line ones
    quoted), days and times."""
    start = datetime(2024, 1, 1)
    lines = ["[LINE] Chat history with Prop", "Saved on: 1/1/2025, 10:00", ""]
    expected = []
    last_day = None
    for day_offset, minute, sender, text_lines in sorted(messages, key=lambda m: (m[0], m[1])):
        day = start + timedelta(days=day_offset)
        if day != last_day:
            lines += ["", f"{day:%a}, {day.month}/{day.day}/{day.year}"]
            last_day = day
        text = "\n".join(text_lines)
        written = f'"{text}"' if len(text_lines) > 1 else text
        lines.append(f"{minute // 60}:{minute % 60:02d}\t{sender}\t{written}")
        expected.append((f"{day:%Y-%m-%d} {minute // 60:02d}:{minute % 60:02d}", sender, text))
    path = tmp_path_factory.mktemp("prop") / "[LINE] Prop.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        _, read = load(path, UTC, fmt="line")
    except InputError:
        # A text line that is itself a LINE stamp line or day line ("1:05\tX\ty") makes another message or
        # day: only then may the file read differently.
        assert any(linelog._stamped(line._LAYOUT, t) for *_, ts in messages for t in ts)
        return
    got = [(m.local_time, m.sender, m.text) for m in read]
    if got != expected:
        assert any(linelog._stamped(line._LAYOUT, t) for *_, ts in messages for t in ts)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(MINE)), st.text(max_size=300))
def test_any_text_reads_or_is_an_input_error(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, text: str
) -> None:
    path = tmp_path_factory.mktemp("any") / "chat.md"
    path.write_text(
        "[2024-01-05 14:22:01] A: x\n2024/1/23(火)\n10:00\tB\ty\n" + text,
        encoding="utf-8",
        errors="surrogatepass",
    )
    try:
        for export in importers.read_export(path, fmt, ZoneInfo("Europe/Berlin")):
            for m in export.messages:
                assert m.timestamp.tzinfo is not None
                m.text.encode("utf-8")
    except InputError as exc:
        assert "\n" not in str(exc)


# --- the demo samples -------------------------------------------------------------------------------------

SAMPLE_COUNTS = {
    "[LINE] Chat with Yuki.txt": 24,
    "KakaoTalk_Chat_Minji Park.txt": 16,
    "Lena Hoffmann": 8,
    "KakaoTalk_Chat_Jiwoo.csv": 6,
    "Noah Weber.txt": 5,
}


def test_samples_regenerate_byte_for_byte_read_whole_and_are_named_in_the_readme(tmp_path: Path) -> None:
    module = load_script("generate_linelogs")
    module.main(tmp_path)
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert produced == sorted(
        [
            Path("[LINE] Chat with Yuki.txt"),
            Path("KakaoTalk_Chat_Minji Park.txt"),
            Path("Lena Hoffmann/chat.md"),
            Path("KakaoTalk_Chat_Jiwoo.csv"),
            Path("Noah Weber.txt"),
        ]
    )
    for rel in produced:
        assert (tmp_path / rel).read_bytes() == (SAMPLES / rel).read_bytes(), rel
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name, count in SAMPLE_COUNTS.items():
        assert name in readme
        assert len(load(SAMPLES / name, ZoneInfo("Europe/Berlin"))[1]) == count
    assert "generate_linelogs.py" in readme


@pytest.mark.parametrize(
    ("fmt", "head", "hostile"),
    [
        (
            "kakaotalk",
            "--------------- 2018년 3월 3일 토요일 ---------------\n[민지] [오후 8:54] hi\n",
            "님이 ",
        ),
        ("kakaotalk", "May 28, 2018, 9:40 AM, Minji : ", " invited "),
        ("line", "2024/1/23(火)\n10:00\tAiko\thi\n", "\t"),
        ("signal", "[2024-01-05 14:22:01] A: ", "(( [a](./media/"),
    ],
)
def test_a_long_hostile_line_reads_in_linear_time(tmp_path: Path, fmt: str, head: str, hostile: str) -> None:
    """A message's first line (its kind's patterns) and its further lines (system lines' and day lines'
    patterns) repeat what a pattern's runs could split at; 40,000 times took the earlier, unbounded KakaoTalk
    patterns tens of seconds (0.2 s at 4,000: quadratic)."""
    path = tmp_path / ("chat.md" if fmt == "signal" else "export.txt")
    path.write_text(head + hostile * 40_000 + "\n" + hostile * 40_000 + "x\n", encoding="utf-8")
    start = time.perf_counter()
    _, msgs = load(path, UTC, fmt=fmt)
    assert len(msgs) == 1 and time.perf_counter() - start < 10  # quadratic backtracking would take minutes
