"""The SMS Backup & Restore reader holds the messages it has read in a file until the backup ends
(``importers.timespool``), keeping only each one's time and place (issue 26 item 2): its threads come out as
they did when every message was held in memory, each in time order, messages of one time in the order the
file holds them; a broken backup is still one line and nothing stored; a grown backup still reads on from
its mark."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_discord import one_error, refind_import
from test_resume_sms import NAME, T0, at, backup, reimported

from refind_cli.errors import InputError, RefindError
from refind_cli.importers import linelog, sms, timespool
from refind_cli.importers.timespool import TimeSpool
from refind_cli.records import Message

# Threads: an address with its contact name, and a group of three.
PEOPLE = [("+49 151 2345 6789", "Jonas Becker"), ("+4917611112222", "Aylin Demir"), ("555", "null")]
GROUP = "+4915123456789~+4917611112222~+4930111"
# Far more than any backup here holds: the in-memory reading.
IN_MEMORY = 1 << 40


def _attr(text: str) -> str:
    """``text`` as the app writes an attribute: quoted, markup and line breaks as references."""
    return quoteattr(text, {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def sms_row(who: int, ms: int, body: str, sent: bool = False) -> str:
    address, contact = PEOPLE[who]
    return (
        f'  <sms protocol="0" address="{address}" date="{T0 + ms}" type="{2 if sent else 1}" subject="null" '
        f'body={_attr(body)} read="1" contact_name="{contact}" />\n'
    )


def mms_row(ms: int, body: str, *, to: str = GROUP, sent: bool = False, photo: bool = False) -> str:
    data = '      <part seq="1" ct="image/jpeg" cl="p.jpg" data="/9j/4AAQSkZJRg==" />\n' if photo else ""
    return (
        f'  <mms date="{T0 + ms}" msg_box="{2 if sent else 1}" address="{to}" contact_name="null">\n'
        "    <parts>\n"
        '      <part seq="-1" ct="application/smil" text="&lt;smil/&gt;" />\n'
        f'      <part seq="0" ct="text/plain" text={_attr(body)} />\n{data}'
        "    </parts>\n"
        '    <addrs>\n      <addr address="+4917611112222" type="137" />\n    </addrs>\n'
        "  </mms>\n"
    )


def read(path: Path, hold: int) -> tuple[list[tuple[Any, list[Message]]], TimeSpool]:
    spool = TimeSpool(hold)
    return [(e.chat, list(e.messages)) for e in sms.read(path, tz=UTC, spool=spool)], spool


def write(tmp_path: Path, rows: list[str], name: str = NAME) -> Path:
    path = tmp_path / name
    path.write_bytes(backup(rows))
    return path


def test_interleaved_threads_come_out_each_in_time_order_ties_in_file_order(tmp_path: Path) -> None:
    rows = [
        sms_row(0, 5_000, "a1"),
        sms_row(1, 3_000, "b1"),
        sms_row(0, 5_000, "a2", sent=True),  # the same time as a1, after it in the file
        sms_row(0, 1_000, "a3"),
        sms_row(1, 3_000, "b2"),
        mms_row(2_000, "g1", photo=True),
        mms_row(5_000, "a4", to=PEOPLE[0][0]),  # an MMS in a direct thread, of a1's time
        mms_row(1_000, "g2", sent=True),
    ]
    path = write(tmp_path, rows)
    spooled, spool = read(path, 0)
    assert spool.written > 0
    chats = [(chat.name, [m.text.partition("\n")[0] for m in messages]) for chat, messages in spooled]
    assert chats == [
        ("Jonas Becker", ["a3", "a1", "a2", "a4"]),
        ("Aylin Demir", ["b1", "b2"]),
        ("+4915123456789, +4917611112222, +4930111", ["g2", "g1"]),
    ]
    in_memory, memory = read(path, IN_MEMORY)
    assert memory.file is None
    assert spooled == in_memory
    photo = next(m for m in spooled[2][1] if m.text.startswith("g1"))
    assert photo.kind == "attachment" and "(16 characters of base64, not kept)" in photo.raw


# Any character XML holds (not U+FFFE, U+FFFF), markup and line breaks among them.
_BODIES = st.text(
    st.characters(exclude_categories=["Cs", "Cc"], exclude_characters="\ufffe\uffff")
    | st.sampled_from("\n\r\t&<>\"'"),
    max_size=12,
)
_ROWS = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 6), _BODIES, st.booleans()),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    long=st.sampled_from([4, 40, timespool.LONG]),
    rows=_ROWS,
    hold=st.sampled_from([0, 1, 200, 5000]),
    numpy=st.booleans(),
    let_go=st.sampled_from([1, 1 << 25]),
)
def test_a_spooled_reading_is_the_in_memory_reading(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rows: list[tuple[int, int, str, bool]],
    hold: int,
    numpy: bool,
    let_go: int,
    long: int,
) -> None:
    # Threads 0-2 by SMS, 3 the group by MMS, times with many ties; the app writes SMS before MMS.
    written = [
        sms_row(who, ms * 1000, f"{n} {body}", sent)
        if who < 3
        else mms_row(ms * 1000, f"{n} {body}", sent=sent)
        for n, (who, ms, body, sent) in enumerate(rows)
    ]
    written.sort(key=lambda row: row.lstrip().startswith("<mms"))
    path = write(tmp_path, written, f"sms-{len(rows)}-{hold}-{numpy}-{let_go}-{long}.xml")
    # Sorted by numpy or by Python; the map's pages let go of after each record or never.
    monkeypatch.setattr(timespool, "_NUMPY_FROM", 0 if numpy else 1 << 16)
    monkeypatch.setattr(timespool, "_LET_GO_BYTES", let_go)
    # A long string written apart from its record: here any but the shortest.
    monkeypatch.setattr(timespool, "LONG", long)
    spooled, _ = read(path, hold)
    assert spooled == read(path, IN_MEMORY)[0]
    # Each thread in time order, those of one time in the file's order; every row once.
    places = {row.strip(): i for i, row in enumerate(written)}
    seen = []
    for _, messages in spooled:
        order = [(m.timestamp, places[m.raw]) for m in messages]
        assert order == sorted(order)
        seen += [i for _, i in order]
    assert sorted(seen) == list(range(len(written)))


def test_a_backup_cut_short_after_spooled_rows_is_one_error_and_nothing_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timespool, "HOLD", 0)
    data = backup([sms_row(n % 3, n * 1000, f"message {n}") for n in range(300)])
    path = tmp_path / NAME
    path.write_bytes(data[: data.index(b"message 250")])
    code, out, stderr = refind_import(tmp_path / "home", path)
    one_error(code, stderr, NAME, "cut short", "line ")
    assert sum(c["messages_added"] for f in out["files"] for c in f["chats"]) == 0
    spool = TimeSpool(0)
    with pytest.raises(InputError):
        next(sms.read(path, tz=UTC, spool=spool))
    assert spool.written > 0 and spool.file is not None and spool.file.closed


def test_a_backup_cut_short_inside_a_huge_attribute_is_one_error(tmp_path: Path) -> None:
    data = backup([sms_row(0, 0, "hello"), sms_row(1, 1000, "x" * (3 << 20))])
    path = tmp_path / NAME
    path.write_bytes(data[: data.index(b"x" * 1000) + (2 << 20)])
    code, out, stderr = refind_import(tmp_path / "home", path)
    one_error(code, stderr, NAME, "cut short")
    assert sum(c["messages_added"] for f in out["files"] for c in f["chats"]) == 0


def test_a_spool_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, [sms_row(0, 0, "hello")])
    with linelog.spooling_in(tmp_path / "missing"), pytest.raises(RefindError) as caught:
        read(path, 0)
    assert str(caught.value).count("\n") == 0
    assert "cannot hold the messages of an export whose chats end only with it" in str(caught.value)


def test_a_grown_backup_reads_on_from_its_mark_with_its_messages_spooled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_rows = [sms_row(n % 3, n * 60_000, f"m {n}") for n in range(30)] + [
        mms_row(n * 60_000, f"g {n}") for n in range(8)
    ]
    new_rows = (
        old_rows[:30]
        + [sms_row(n % 3, n * 60_000, f"m {n}") for n in range(30, 45)]
        + old_rows[30:]
        + [mms_row(n * 60_000, f"g {n}") for n in range(8, 12)]
    )
    old, new = backup(old_rows, 1), backup(new_rows, 2)
    in_memory, _ = reimported(tmp_path / "memory", NAME, [old, new], at(old, b"<mms"))
    monkeypatch.setattr(timespool, "HOLD", 0)
    spooled, results = reimported(tmp_path / "spooled", NAME, [old, new], at(old, b"<mms"))
    assert sum(c.messages_added for c in results[-1].chats) == 15 + 4
    assert spooled == in_memory
