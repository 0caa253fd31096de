"""Issue 24, item 4 (session 15): one huge message in a record-based export is read without holding it.

A Discord data package's ``messages.csv`` was read by the ``csv`` module, whose field limit (128K characters,
process-wide) refused a longer message and the import with it. Now a record longer than that limit is read
by ``importers.csvlong``'s scanner, which gives the fields as the ``csv`` module would, a field longer than
``LONG_TEXT`` written to an unnamed file as it is read (``HeldText``); the record keeps ``HELD`` in its
place (``\\u0000`` in its JSON) and is rebuilt exactly from the stored text. Measured in a child process
(its peak RSS, VmHWM); read with tiny thresholds, every message gives the same text, record and identity as
the ``csv`` module reading it whole.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_huge_message_worker import WORDS, bounded, read_as_whole
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.search  # noqa: F401 (registers `import` and `search`)
from refind_cli.errors import InputError
from refind_cli.frontends.cli import app
from refind_cli.importers import container, csvlong, read_export
from refind_cli.records import HELD, HeldText, Message
from refind_cli.storage import raw as raw_record
from refind_cli.storage.archive import Archive

MB = 1 << 20
SAMPLE = Path(__file__).resolve().parent.parent / "sample_exports" / "discord-package"
CHANNEL = "messages/c1098765432101234570/messages.csv"


def _cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in '",\r\n') else text


def _package(folder: Path, rows: list[str]) -> Path:
    """The sample package with ``rows`` (written CSV records) after its channel's header."""
    package = folder / "discord-package"
    shutil.copytree(SAMPLE, package)
    path = package / CHANNEL
    header, rest = path.read_text().split("\n", 1)
    path.write_text("\n".join([header, *rows, rest]))
    return package


def _long(mb: int, pasted: bool) -> str:
    if pasted:
        return "\n".join(f'{WORDS}"{i}"' for i in range(mb * MB // (len(WORDS) + 9)))
    return WORDS * (mb * MB // len(WORDS))


def _export(folder: Path, mb: int, pasted: bool) -> Path:
    text = _long(mb, pasted) or "hi"
    return _package(folder, [f"1529172429905872356,2026-07-21 17:05:18.939000+00:00,{_cell(text)},"])


def _read(path: Path) -> list[Message]:
    return [m for export in read_export(path, "discord-package", UTC) for m in export.messages]


@pytest.mark.parametrize("pasted", [False, True])
def test_a_long_discord_csv_message_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path, pasted: bool):
    """Before, refused (the ``csv`` module's field limit) once its record was read whole."""
    bounded(tmp_path, "discord-package", lambda folder, mb: _export(folder, mb, pasted))


@pytest.mark.parametrize("pasted", [False, True])
def test_a_long_discord_csv_message_is_held_and_its_record_rebuilt(tmp_path: Path, pasted: bool):
    text = _long(2, pasted)
    messages = _read(_export(tmp_path, 2, pasted))
    held = [m for m in messages if isinstance(m.text, HeldText)]
    assert len(held) == 1 and held[0].text.whole() == text
    record = {
        "Attachments": "",
        "Contents": text,
        "ID": "1529172429905872356",
        "Timestamp": "2026-07-21 17:05:18.939000+00:00",
    }
    whole = json.dumps(record, ensure_ascii=False, sort_keys=True)  # the record as main would keep it
    assert held[0].raw == json.dumps({**record, "Contents": HELD}, ensure_ascii=False, sort_keys=True)
    rest, form = raw_record.cut(held[0].raw, (HELD, None, held[0].sender, held[0].sender_id))
    assert raw_record.joined(rest, form, (text, None, held[0].sender, held[0].sender_id)) == whole


def test_a_long_discord_csv_message_is_imported_and_shown_as_written(tmp_path: Path):
    text = _long(2, True) + " é😀 \r\n end"
    path = _package(tmp_path, [f"1529172429905872356,2026-07-21 17:05:18.939000+00:00,{_cell(text)},"])
    home = tmp_path / "home"
    runner = CliRunner()
    r = runner.invoke(app, ["--home", str(home), "import", str(path)])
    assert r.exit_code == 0, r.output
    with Archive.open(home) as archive:
        stored = [m for chat in (1, 2, 3) for m in archive.stored_messages(chat) if len(m.text) > 1000]
    assert [m.text for m in stored] == [text]
    assert json.loads(stored[0].raw)["Contents"] == text
    r = runner.invoke(app, ["--home", str(home), "search", "dull boy end", "--json"])
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.stdout)["results"]) == 1


@pytest.mark.parametrize(
    ("attachments", "text", "what"),
    [
        ("https://cdn.discordapp.com/a/b/c.jpg", "x", "with attachments"),
        ("", "<:blob:123456789012345678>", "a custom emoji"),
        ("", "<@689412257003618304>", "a mention of a friend"),  # one the package names
    ],
)
def test_a_long_message_whose_text_is_not_its_contents_is_one_error_line(
    tmp_path: Path, attachments: str, text: str, what: str
):
    """Its text would differ from its Contents (names added, emoji and mentions written otherwise), so its
    record would have to be held too: refused, naming the file and line, never read whole."""
    body = WORDS * (2 * MB // len(WORDS)) + text
    path = _package(tmp_path, [f"1529172429905872356,2026-07-21 17:05:18.939000+00:00,{body},{attachments}"])
    with pytest.raises(InputError) as caught:
        _read(path)
    assert what in str(caught.value) and "line 2" in str(caught.value) and "\n" not in str(caught.value)


def test_a_quote_that_never_closes_is_one_error_line_naming_where_it_opens(tmp_path: Path):
    path = _package(tmp_path, ['1529172429905872356,2026-07-21 17:05:18.939000+00:00,"never closed,'])
    with (path / CHANNEL).open("a") as fh:
        fh.write(WORDS * (MB // len(WORDS)))
    with pytest.raises(InputError) as caught:
        _read(path)
    message = str(caught.value)
    assert "invalid CSV" in message and "line 2:" in message and "\n" not in message


# --- the scanner, against the csv module -------------------------------------------------------------


@contextmanager
def _tiny(monkeypatch: pytest.MonkeyPatch, limit: int, held: int = 12) -> Iterator[None]:
    """Thresholds so small that a record of a few dozen characters is read by the scanner and a field of
    a dozen held in a file. The csv module's limit is process-wide: set back after."""
    before = csv.field_size_limit(limit)
    try:
        with monkeypatch.context() as patch:
            patch.setattr(csvlong, "PIECE", 7)
            patch.setattr(csvlong, "LONG_TEXT", held)
            patch.setattr(csvlong, "_WRITE", 5)
            yield
    finally:
        csv.field_size_limit(before)


def _value(field: str | HeldText) -> str:
    return field.whole() if isinstance(field, HeldText) else field


def _rows(text: str, delimiter: str) -> list[list[str]] | str:
    try:
        return [[_value(f) for f in row] for row in csvlong.Records(io.StringIO(text, newline=""), delimiter)]
    except csv.Error as exc:
        return str(exc)


_CSV_TEXT = st.lists(
    st.sampled_from(["a", "bc", ",", ";", '"', '""', "\n", "\r\n", "\r", "x y", "é😀", "\x00", WORDS]),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_CSV_TEXT, delimiter=st.sampled_from([",", ";"]), limit=st.integers(1, 40))
def test_the_scanner_reads_every_record_as_the_csv_module(
    monkeypatch: pytest.MonkeyPatch, text: str, delimiter: str, limit: int
):
    try:
        expected: list[list[str]] | str = list(
            csv.reader(io.StringIO(text, newline=""), strict=True, delimiter=delimiter)
        )
    except csv.Error as exc:
        expected = str(exc)
    with _tiny(monkeypatch, limit):
        got = _rows(text, delimiter)
        try:
            one: list[str] | str = [_value(f) for f in csvlong.cells(text, delimiter)]
        except csv.Error as exc:
            one = str(exc)
    assert got == expected
    try:
        whole: list[str] | str = next(csv.reader([text], strict=True, delimiter=delimiter), [])
    except csv.Error as exc:
        whole = str(exc)
    assert one == whole


_CONTENTS = st.lists(
    st.sampled_from(
        [
            "word ",
            WORDS,
            "\n",
            "\r\n",
            '"',
            ",",
            "é😀",
            "\x00",
            "<:blob:123>",
            "<@689412257003618304>",
            "<@1>",
            "\\u0000",
        ]
    ),
    max_size=6,
).map("".join)
_RECORD = st.builds(
    lambda i, text, n, url: (
        f"15291724299058723{i:02d},2026-07-21 17:05:{i:02d}.939000+00:00,{_cell(text + WORDS * n)},{url}"
    ),
    st.integers(10, 59),
    _CONTENTS,
    st.integers(0, 6),
    st.sampled_from(["", "", "", "https://cdn.discordapp.com/a/b/c.jpg"]),
)


def _read_or_error(path: Path) -> list[Message] | str:
    try:
        return _read(path)
    except InputError as exc:
        return str(exc)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(_RECORD, min_size=1, max_size=3), chunk=st.integers(16, 300))
def test_a_discord_record_held_in_part_reads_as_read_whole(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, records: list[str], chunk: int
):
    """Tiny thresholds: the same messages, identities and records rebuilt as the csv module reading them
    whole; or, where a held message's text is not its Contents as written, one error line naming its line."""
    path = _package(tmp_path_factory.mktemp("p"), records)
    monkeypatch.setattr(container, "CHUNK", chunk)
    expected = _read_or_error(path)
    with _tiny(monkeypatch, 60, held=150):  # the sample's fields are shorter: those added are held
        got = _read_or_error(path)
    if isinstance(got, str) and "not read" in got:
        event("a held record refused")
        assert isinstance(expected, list)
        contents = [json.loads(m.raw)["Contents"] for m in expected]
        assert any(
            len(c) > 150 and (m.text != c or m.raw.count("\\u0000") > 1)
            for m, c in zip(expected, contents, strict=True)
        )
        return
    assert not isinstance(expected, str) and not isinstance(got, str), (expected, got)
    read_as_whole(expected, got, "a Discord message held")


@pytest.mark.parametrize("quoted", [False, True])
def test_a_kakaotalk_csv_record_between_the_csv_limit_and_a_spill_is_read(tmp_path: Path, quoted: bool):
    """Before, a message of 128K characters to a spill (1.2M) was refused by the csv module's field limit
    (process-wide, not raised here); now its record is read by csvlong's scanner, as it is written."""
    text = WORDS * (300_000 // len(WORDS)) + ('"quoted", and\nmore' if quoted else "")
    record = f"2024-02-01 11:00:00,Jack,{_cell(text)}"
    path = tmp_path / "KakaoTalk_Chat_Jack.csv"
    path.write_text(
        f'Date,User,Message\n2024-02-01 10:59:00,"Ann","hi"\n{record}\n2024-02-01 11:01:00,Ann,ok\n'
    )
    messages = [m for export in read_export(path, "kakaotalk", UTC) for m in export.messages]
    assert [m.text for m in messages] == ["hi", text, "ok"]
    assert messages[1].raw == record and messages[1].sender == "Jack"


def test_a_json_value_past_its_cap_says_what_the_cap_is(tmp_path: Path):
    """A DiscordChatExporter file whose one message runs past the 8 MB a value may hold: refused in one line
    naming the file, the byte and the limit, not "not a Discord export" (it may well be one)."""
    message = {"id": "1", "type": "Default", "timestamp": "2026-05-01T20:00:00.000+02:00", "content": "TEXT"}
    message["author"] = {"id": "7", "name": "ann_c"}
    export = {
        "guild": {"id": "1", "name": "Crag"},
        "channel": {"id": "2", "name": "beta"},
        "messages": [message],
    }
    path = tmp_path / "long.json"
    path.write_bytes(json.dumps(export).encode().replace(b"TEXT", b"a" * (9 << 20)))
    r = CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "import", str(path)])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert r.stderr.startswith(f"refind: error: {path}: byte ")
    assert "runs past 8 MB, refind's limit for one value of a Discord export" in r.stderr
    assert "not a Discord export" not in r.stderr


def test_an_sms_backup_whose_first_message_is_long_is_read_not_called_no_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Its first row's tag (its body) ran past the bytes a prolog may take before a row: refused as "no
    message ...; not a backup". It is read on as a later row is (held whole: what is left of item 4)."""
    from refind_cli.importers import sms

    monkeypatch.setattr(sms, "_PROLOG_BYTES", 1 << 10)
    monkeypatch.setattr(container, "CHUNK", 512)  # the file read in pieces, as a 50 MB one is
    sample = SAMPLE.parent / "sms-20261004213000.xml"
    body = WORDS * 200  # 8.6 KB: past the 1 KB a prolog may take here, as 50 MB is past 16 MB
    path = tmp_path / sample.name
    path.write_text(sample.read_text().replace("Can I borrow the big pot on Saturday?", body, 1))
    texts = [m.text for export in read_export(path, "sms", UTC) for m in export.messages]
    assert body in texts
    path.write_text('<?xml version="1.0"?>\n<!-- ' + "x" * 4096 + ' -->\n<smses count="0"></smses>\n')
    with pytest.raises(InputError, match="not a backup"):  # no row in the first bytes: as before
        read_export(path, "sms", UTC).__next__()
