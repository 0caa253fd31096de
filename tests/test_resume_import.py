"""A grown export is read from where the last import's reading stopped (ingest/resume.py), and leaves the
archive exactly as a full re-read (``reread=True``) of the new file would: after an append, an edit in the
middle, a deletion; nothing already archived is lost."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import JONAS, SAMPLES
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401  (registers the command)
from refind_cli import importers
from refind_cli.frontends.cli import app
from refind_cli.ingest import import_file, worker
from refind_cli.operations import Selection
from refind_cli.records import Message, NotResumable
from refind_cli.storage import forget
from refind_cli.storage.archive import Archive
from refind_cli.storage.schema import applied_migrations

BERLIN = ZoneInfo("Europe/Berlin")
FIXTURES = Path(__file__).parent / "fixtures" / "linelogs"
# One loose file of each format that can go on from a mark.
GROWING = {
    "whatsapp": JONAS,
    "line": SAMPLES / "[LINE] Chat with Yuki.txt",
    "signal": SAMPLES / "Lena Hoffmann" / "chat.md",
    "kakaotalk": SAMPLES / "KakaoTalk_Chat_Minji Park.txt",
}
SHAPES = {
    "line-thai": FIXTURES / "[LINE] ประวัติการสนทนากับ สมชาย.txt",
    "line-ja": FIXTURES / "[LINE] 田中とのトーク履歴.txt",
    "signalbackup": FIXTURES / "signalbackup-Lena.txt",
    # KakaoTalk's layouts, the mobile one with rows of dashes around its day lines among them.
    **{f"kakaotalk-{p.stem}": p for p in sorted(FIXTURES.glob("KakaoTalk*.txt"))},
}


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def archive_rows(archive: Archive) -> list[list[tuple]]:
    """Everything an import writes but the ledger: chats, messages, sessions, turns, the index queue."""
    return [
        sorted(archive.db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
        for table in ("chats", "messages", "sessions", "turns", "index_queue")
    ]


def both_ways(tmp_path: Path, name: str, versions: list[bytes], **options) -> tuple[list, list, list]:
    """Each version of an export imported in turn into two homes, the last one resumed where it can in the
    first and re-read in the second: the two archives, and the first home's results."""
    out = []
    results = []
    for way in ("resume", "reread"):
        export = tmp_path / way / "exports" / name  # a chat.md is named by its folder
        export.parent.mkdir(parents=True)
        with Archive.open(tmp_path / way / "home") as archive:
            for i, content in enumerate(versions):
                export.write_bytes(content)
                last = i == len(versions) - 1
                result = import_file(archive, export, tz=BERLIN, reread=last and way == "reread", **options)
                assert result.error is None, result.error
                if way == "resume":
                    results.append(result)
            out.append(archive_rows(archive))
    return out[0], out[1], results


def reimported(
    tmp_path: Path, name: str, versions: list[bytes], at: int | None, **options
) -> tuple[list, list]:
    """``both_ways``, held to both archives being the same and to the last import being read from byte ``at``
    on (None: read whole): the resumed home's archive and its results."""
    resumed, reread, results = both_ways(tmp_path, name, versions, **options)
    assert results[-1].resumed_at == at
    assert resumed == reread
    return resumed, results


def forgotten_both_ways(
    tmp_path: Path, name: str, earlier: bytes, later: bytes, what: Selection, *, must_resume: bool = False
) -> tuple[list, list]:
    """``earlier`` imported into two homes, ``what`` forgotten in each, then ``later`` imported: resumed where
    it can in the first home (``must_resume``: and it does), re-read in the second. The two archives."""
    out = []
    for way in ("resume", "reread"):
        path = tmp_path / way / name
        path.parent.mkdir()
        with Archive.open(tmp_path / way / "home") as archive:
            path.write_bytes(earlier)
            import_file(archive, path, tz=BERLIN)
            forget.forget(archive, forget.plan(archive, what))
            path.write_bytes(later)
            result = import_file(archive, path, tz=BERLIN, reread=way == "reread")
            assert result.error is None
            if must_resume:
                assert (result.resumed_at is not None) == (way == "resume")
            out.append(archive_rows(archive))
    return out[0], out[1]


@pytest.mark.parametrize("fmt", GROWING)
@pytest.mark.parametrize("share", [0.3, 0.8])
def test_an_append_is_read_from_the_mark_and_stores_what_a_full_reading_would(
    tmp_path: Path, fmt: str, share: float
):
    lines = lines_of(GROWING[fmt])
    # The first cut at or after the share between two one-line messages: the file grown by whole messages,
    # as a later export is.
    cuts = [
        n
        for n in range(int(len(lines) * share), len(lines))
        if _starts_message(fmt, lines[n]) and _starts_message(fmt, lines[n - 1])
    ]
    cut = cuts[0]
    old, new = b"".join(lines[:cut]), b"".join(lines)
    resumed, results = reimported(tmp_path, GROWING[fmt].name, [old, new], len(old))
    added = results[-1].chats[0].messages_added
    assert added > 0 and results[0].chats[0].messages_added + added == len(resumed[1])


def _starts_message(fmt: str, line: bytes) -> bool:
    if fmt == "whatsapp":
        return line[:1].isdigit()
    if fmt == "line":
        return line[:2].isdigit() and b"\t" in line
    if fmt == "kakaotalk":
        return line[:1].isdigit() and b", " in line
    return line.startswith(b"[")


@pytest.mark.parametrize("fmt", GROWING)
def test_an_export_edited_before_the_mark_is_read_whole_and_keeps_the_older_version(tmp_path: Path, fmt: str):
    lines = lines_of(GROWING[fmt])
    middle = len(lines) // 2
    edited = [*lines[:middle], lines[middle].rstrip(b"\r\n") + b" (edited)\n", *lines[middle + 1 :]]
    old, new = b"".join(lines[:-2]), b"".join(edited)
    resumed, results = reimported(tmp_path, GROWING[fmt].name, [old, new], None)
    texts = [row[7] for row in resumed[1]]
    assert any("(edited)" in t for t in texts)
    assert len(resumed[1]) >= results[0].chats[0].messages_added + 1  # the older text is still there


@pytest.mark.parametrize("fmt", GROWING)
def test_a_message_deleted_before_the_mark_is_read_whole_and_kept(tmp_path: Path, fmt: str):
    lines = lines_of(GROWING[fmt])
    first = len(lines) // 2
    deleted = next(n for n in range(first, len(lines)) if _starts_message(fmt, lines[n]))
    following = next(n for n in range(deleted + 1, len(lines)) if _starts_message(fmt, lines[n]))
    old, new = b"".join(lines[: following + 1]), b"".join(lines[:deleted] + lines[following : following + 1])
    resumed, results = reimported(tmp_path, GROWING[fmt].name, [old, new], None)
    assert len(resumed[1]) == results[0].chats[0].messages_added  # nothing lost, nothing new


def test_a_message_again_in_the_same_minute_is_a_second_occurrence_after_the_mark(tmp_path: Path):
    # The occurrence counts of the latest times go on from the mark: without them the repeated message
    # would take the identity of the one before it and be skipped as stored.
    lines = lines_of(JONAS)
    old = b"".join(lines)
    _, results = reimported(tmp_path, JONAS.name, [old, old + lines[-1] + lines[-1]], len(old))
    assert results[-1].chats[0].messages_added == 2


def test_a_line_after_the_mark_that_goes_on_with_the_last_message_reads_whole(tmp_path: Path):
    lines = lines_of(JONAS)
    old = b"".join(lines)
    grown = old + b"and one more line of the last message\n" + lines[-1]
    reimported(tmp_path, JONAS.name, [old, grown], None)


def test_dates_after_the_mark_that_change_the_date_order_read_whole(tmp_path: Path):
    # Every date's numbers are 12 or less: the order is told by which number changes. The appended dates
    # have a second number above 12, so the file is month first, and every earlier date reads otherwise.
    old = "".join(f"0{d}/02/2021, 10:0{d} - Ann: day {d}\n" for d in range(1, 8)).encode()
    grown = old + b"02/13/2021, 10:00 - Ann: later\n"
    reimported(tmp_path, "WhatsApp Chat with Ann.txt", [old, grown], None)


def test_the_next_import_goes_on_from_the_mark_the_resumed_one_left(tmp_path: Path):
    lines = lines_of(JONAS)
    versions = [b"".join(lines[:n]) for n in (100, 150, len(lines))]
    versions = [v for v in versions if v]
    _, results = reimported(tmp_path, JONAS.name, versions, len(versions[1]))
    assert results[1].resumed_at == len(versions[0])
    with Archive.open(tmp_path / "resume" / "home") as archive:  # the marks gone on from are dropped
        assert archive.db.execute("SELECT count(*) FROM imports WHERE resume IS NOT NULL").fetchone()[0] == 1


def test_a_mark_is_left_by_the_import_worker_too(tmp_path: Path, monkeypatch):
    if not worker.can_use_a_worker():
        pytest.skip("one core")
    lines = lines_of(JONAS)
    old = b"".join(lines[:150])
    export = tmp_path / JONAS.name
    with Archive.open(tmp_path / "home") as archive:
        export.write_bytes(old)
        assert import_file(archive, export, tz=BERLIN, worker=True).error is None
        export.write_bytes(b"".join(lines))
        assert import_file(archive, export, tz=BERLIN).resumed_at == len(old)


def test_forgetting_the_chat_drops_where_its_reading_stopped(tmp_path: Path):
    export = tmp_path / JONAS.name
    export.write_bytes(JONAS.read_bytes())
    with Archive.open(tmp_path / "home") as archive:
        import_file(archive, export, tz=BERLIN)
        assert archive.db.execute("SELECT count(*) FROM imports WHERE resume IS NOT NULL").fetchone()[0] == 1
        chat = import_file(archive, export, tz=BERLIN).chats[0].chat_id
        forget.forget(archive, forget.plan(archive, Selection(chat=chat)))
        assert archive.db.execute("SELECT count(*) FROM imports WHERE resume IS NOT NULL").fetchone()[0] == 0
        export.write_bytes(JONAS.read_bytes() + lines_of(JONAS)[-1])
        result = import_file(archive, export, tz=BERLIN)
        assert result.resumed_at is None and result.chats[0].messages_added == 1


def test_a_reread_or_another_zone_reads_whole(tmp_path: Path):
    lines = lines_of(JONAS)
    export = tmp_path / JONAS.name
    with Archive.open(tmp_path / "home") as archive:
        export.write_bytes(b"".join(lines[:100]))
        import_file(archive, export, tz=BERLIN)
        export.write_bytes(b"".join(lines))
        assert import_file(archive, export, tz=ZoneInfo("UTC")).resumed_at is None
        export.write_bytes(b"".join(lines) + lines[-1])
        assert import_file(archive, export, tz=BERLIN, reread=True).resumed_at is None
        ledger = archive.db.execute("SELECT counts FROM imports ORDER BY seq").fetchall()
        assert all("resumed" not in json.loads(counts) for (counts,) in ledger)


# --- the readers: what a reading from a mark yields is what a whole reading yields after it ------------------


def read_all(path: Path, fmt: str) -> tuple[list[Message], object]:
    [export] = importers.read_export(path, fmt, BERLIN)
    messages = list(export.messages)
    return messages, export.end() if export.end else None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("source", [*GROWING.values(), *SHAPES.values()], ids=lambda p: p.name)
def test_reading_from_a_mark_yields_what_a_whole_reading_yields_after_it(tmp_path: Path, source: Path, data):
    fmt = importers.detect(source)
    lines = lines_of(source)
    cut = data.draw(st.integers(1, len(lines) - 1), label="cut")
    extra = data.draw(st.lists(st.sampled_from(lines), max_size=4), label="appended")
    path = tmp_path / source.name
    path.write_bytes(b"".join(lines[:cut]))
    try:
        before, mark = read_all(path, fmt)
    except Exception:  # a cut inside the head: not an export yet
        return
    grown = b"".join(lines + extra)
    path.write_bytes(grown)
    whole, whole_end = read_all(path, fmt)
    if mark is None:
        return
    try:
        [export] = importers.read_export(path, fmt, BERLIN, mark)
        after = list(export.messages)
    except NotResumable:
        return  # read whole: always right (the archive tests hold that an append does go on)
    assert before + after == whole
    # And it leaves what the whole reading leaves for the next one.
    assert (export.end() if export.end else None) == whole_end


# --- an archive of the release before ------------------------------------------------------------------------

RELEASE2 = Path(__file__).parent / "fixtures" / "release-2.archive.db"
# What tests/fixtures/make_release2_archive.py imported: the first lines of each file.
EARLIER = {JONAS: 150, GROWING["line"]: 30}


@pytest.mark.parametrize("source", EARLIER, ids=lambda p: p.name)
def test_an_archive_of_the_release_before_upgrades_and_its_grown_files_go_on(tmp_path: Path, source: Path):
    lines = lines_of(source)
    versions = [b"".join(lines[: EARLIER[source] + 6]), b"".join(lines)]
    archives = {}
    for way in ("resume", "reread"):
        home = tmp_path / way / "home"
        home.mkdir(parents=True)
        shutil.copyfile(RELEASE2, home / "archive.db")
        export = tmp_path / way / source.name
        with Archive.open(home) as archive:
            assert "m011_resume_points" in applied_migrations(archive.db)
            assert archive.db.execute("SELECT count(*) FROM imports WHERE resume IS NULL").fetchone()[0] == 2
            stored = archive.counts()["messages"]
            export.write_bytes(versions[0])
            # The import before left no mark: the grown file is read whole, once, and adds only what is new.
            first = import_file(archive, export, tz=BERLIN)
            assert first.resumed_at is None and first.chats[0].messages_added > 0
            assert first.chats[0].messages_skipped > 0
            export.write_bytes(versions[1])
            last = import_file(archive, export, tz=BERLIN, reread=way == "reread")
            if way == "resume":
                assert last.resumed_at == len(versions[0])
            assert (
                archive.counts()["messages"]
                == stored + first.chats[0].messages_added + last.chats[0].messages_added
            )
            archives[way] = archive_rows(archive)
    assert archives["resume"] == archives["reread"]


def test_the_command_says_from_where_a_grown_export_was_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    runner = CliRunner()
    lines = lines_of(JONAS)
    export = tmp_path / JONAS.name
    args = ["--home", str(tmp_path / "home"), "import", "--tz", "Europe/Berlin", str(export)]
    export.write_bytes(b"".join(lines[:100]))
    first = runner.invoke(app, [*args, "--json"])
    assert json.loads(first.stdout)["files"][0]["read_from"] is None
    export.write_bytes(b"".join(lines[:150]))
    grown = runner.invoke(app, [*args, "--json"])
    assert json.loads(grown.stdout)["files"][0]["read_from"] == len(b"".join(lines[:100]))
    export.write_bytes(b"".join(lines))
    monkeypatch.setattr("refind_cli.frontends.render.rows.table_format", lambda **_: "table")  # a terminal
    shown = runner.invoke(app, args, terminal_width=200)
    assert f"grown since it was imported: read from byte {len(b''.join(lines[:150])):,} on" in shown.stdout


# --- zipped exports: the reader checks the text before the mark itself ---------------------------------------


def zipped(member: str, content: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, content)
        zf.writestr("IMG-0001.jpg", b"\xff\xd8 not a photo")
    return buffer.getvalue()


@pytest.mark.parametrize("source", [JONAS, GROWING["kakaotalk"]], ids=lambda p: p.name)
def test_a_grown_zip_is_read_from_the_mark_in_its_text(tmp_path: Path, source: Path):
    lines = lines_of(source)
    cut = next(n for n in range(len(lines) * 2 // 3, len(lines)) if _starts_message(_fmt(source), lines[n]))
    old, new = b"".join(lines[:cut]), b"".join(lines)
    name = source.with_suffix(".zip").name
    reimported(tmp_path, name, [zipped(source.name, old), zipped(source.name, new)], len(old))


@pytest.mark.parametrize("source", [JONAS, GROWING["kakaotalk"]], ids=lambda p: p.name)
def test_a_zip_whose_text_changed_before_the_mark_is_read_whole(tmp_path: Path, source: Path):
    lines = lines_of(source)
    old = b"".join(lines[:-3])
    edited = [*lines[:-4], lines[-4].rstrip(b"\r\n") + b" (edited)\n", *lines[-3:]]
    name = source.with_suffix(".zip").name
    versions = [zipped(source.name, old), zipped(source.name, b"".join(edited))]
    reimported(tmp_path, name, versions, None)


@pytest.mark.parametrize("source", [JONAS, GROWING["kakaotalk"]], ids=lambda p: p.name)
def test_a_zip_whose_text_changed_before_the_mark_in_as_many_bytes_is_read_whole(
    tmp_path: Path, source: Path
):
    # The bytes after the mark are where they were: only the hash of those before it tells the change.
    lines = lines_of(source)
    n = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].rstrip()[-1:].isalpha())
    end = len(lines[n].rstrip())
    swapped = b"X" if lines[n][end - 1 : end] != b"X" else b"Y"
    edited = [*lines[:n], lines[n][: end - 1] + swapped + lines[n][end:], *lines[n + 1 :]]
    name = source.with_suffix(".zip").name
    versions = [zipped(source.name, b"".join(lines[:-3])), zipped(source.name, b"".join(edited))]
    reimported(tmp_path, name, versions, None)


def _fmt(source: Path) -> str:
    return next(fmt for fmt, path in GROWING.items() if path == source)


def test_a_time_after_the_mark_on_the_night_the_clocks_go_back_is_read_by_the_one_before(tmp_path: Path):
    # Berlin, 27 October 2024: 02:00-03:00 happens twice. 02:15 after 02:30 is the second 02:15 (CET), which
    # only the time before the mark tells.
    old = b"27/10/2024, 01:00 - Ann: late\n27/10/2024, 02:30 - Ann: still up\n"
    grown = old + b"27/10/2024, 02:15 - Ann: the clocks went back\n"
    resumed, _ = reimported(tmp_path, "WhatsApp Chat with Ann.txt", [old, grown], len(old))
    times = sorted(row[3] for row in resumed[1])
    assert times[-1] - times[-2] == 45 * 60 * 1_000_000  # 02:30 CEST, then 02:15 CET


def test_a_crlf_export_goes_on_from_the_mark(tmp_path: Path):
    lines = [line.rstrip(b"\n") + b"\r\n" for line in lines_of(JONAS)]
    old, new = b"".join(lines[:120]), b"".join(lines)
    reimported(tmp_path, JONAS.name, [old, new], len(old))
