"""The WhatsApp importer, one test per header family and body marker it reads.

Every export is built inside the test from the shapes the format notes record, written to tmp_path and
read back through the module's public functions (``sniff``, ``read``).
"""

from __future__ import annotations

import codecs
import io
import warnings
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from dateutil import tz as dateutil_tz
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import whatsapp
from refind_cli.ingest import import_chat, import_file
from refind_cli.records import Chat, Kind, Message
from refind_cli.storage.archive import Archive

BERLIN = ZoneInfo("Europe/Berlin")
LRM, RLM, NBSP, NNBSP = "\u200e", "\u200f", "\u00a0", "\u202f"


def write(
    tmp_path: Path, text: str, name: str = "WhatsApp Chat with Alice.txt", encoding: str = "utf-8"
) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def load(path: Path, tz: object = UTC) -> tuple[Chat, list[Message]]:
    exports = list(whatsapp.read(path, tz=tz))  # type: ignore[arg-type]
    assert len(exports) == 1
    return exports[0].chat, list(exports[0].messages)


def parse(tmp_path: Path, text: str, tz: object = UTC) -> list[Message]:
    return load(write(tmp_path, text), tz)[1]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


# --- header families ----------------------------------------------------------------------------------


def test_android_24h_fields(tmp_path: Path) -> None:
    text = "18/03/2022, 14:56 - Dmitry S: Hello\n18/03/2022, 14:57 - Anna: How are you?\n"
    chat, msgs = load(write(tmp_path, text), BERLIN)
    assert chat == Chat(source="whatsapp", key="Alice", name="Alice", kind="chat")
    first = msgs[0]
    assert first.timestamp == utc(2022, 3, 18, 13, 56)  # CET is UTC+1 in March before the switch
    assert first.timestamp.tzinfo == UTC
    assert (first.sender, first.text, first.kind) == ("Dmitry S", "Hello", Kind.TEXT)
    assert first.local_time == "18/03/2022, 14:56"
    assert first.raw == "18/03/2022, 14:56 - Dmitry S: Hello"
    assert first.source_id is None and first.edited is False
    assert msgs[1].sender == "Anna" and msgs[1].text == "How are you?"


def test_android_12h_am_pm_edges(tmp_path: Path) -> None:
    text = (
        "1/29/18, 12:24 AM - Mallory: just after midnight\n"
        "1/29/18, 12:24 PM - Mallory: just after noon\n"
        f"1/29/18, 1:05{NNBSP}PM - Mallory: narrow space\n"
        f"1/29/18, 11:59{NBSP}pm - Mallory: nbsp and lower case\n"
    )
    msgs = parse(tmp_path, text)
    assert [m.timestamp for m in msgs] == [
        utc(2018, 1, 29, 0, 24),
        utc(2018, 1, 29, 12, 24),
        utc(2018, 1, 29, 13, 5),
        utc(2018, 1, 29, 23, 59),
    ]
    assert msgs[2].local_time == "1/29/18, 1:05 PM"  # narrow NBSP normalised to a space
    assert msgs[2].raw.startswith(f"1/29/18, 1:05{NNBSP}PM - ")
    assert all(m.sender == "Mallory" for m in msgs)


def test_dotted_am_pm_spanish_canadian_and_year_first(tmp_path: Path) -> None:
    spanish = parse(tmp_path, f"28/3/2025 9:29 p.{NBSP}m. - Ana: hola\n")
    assert spanish[0].timestamp == utc(2025, 3, 28, 21, 29)
    canadian = parse(tmp_path, "2019-08-06, 7:03 a.m. - Bob: morning\n2019-08-06, 7:03 p.m. - Bob: evening\n")
    assert [m.timestamp for m in canadian] == [utc(2019, 8, 6, 7, 3), utc(2019, 8, 6, 19, 3)]
    south_african = parse(tmp_path, "2023/12/20, 5:46 pm - Thabo: hi\n")
    assert south_african[0].timestamp == utc(2023, 12, 20, 17, 46)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("29.01.18, 12:24 - Hans: Hallo", utc(2018, 1, 29, 12, 24)),  # de
        ("23.03.22 13:31 - Jan: Ahoj", utc(2022, 3, 23, 13, 31)),  # cs, no comma
        ("23-03-2022 13:31 - Piet: Hoi", utc(2022, 3, 23, 13, 31)),  # nl
        ("13.6.2018 klo 21.25.15 - Matti: Moi", utc(2018, 6, 13, 21, 25, 15)),  # fi, dot time
    ],
)
def test_android_dotted_dashed_and_finnish(tmp_path: Path, line: str, expected: datetime) -> None:
    msgs = parse(tmp_path, line + "\n")
    assert msgs[0].timestamp == expected
    assert msgs[0].text in {"Hallo", "Ahoj", "Hoi", "Moi"}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[3/27/22, 21:41:35] Dmitry S: Hello World", utc(2022, 3, 27, 21, 41, 35)),
        ("[1/29/18, 12:24:03 PM] Dmitry S: Hello World", utc(2018, 1, 29, 12, 24, 3)),
        ("[26/01/21 21.05.53] Dmitry S: Hello World", utc(2021, 1, 26, 21, 5, 53)),
        ("[29.01.18, 12:24:03] Dmitry S: Hello World", utc(2018, 1, 29, 12, 24, 3)),
        ("[14:56:01, 3/18/22] Dmitry S: Hello World", utc(2022, 3, 18, 14, 56, 1)),  # vi: time first
        ("[2026/7/9 02:28:09] Dmitry S: Hello World", utc(2026, 7, 9, 2, 28, 9)),
    ],
)
def test_ios_bracketed(tmp_path: Path, line: str, expected: datetime) -> None:
    msgs = parse(tmp_path, line + "\r\n")
    assert (msgs[0].timestamp, msgs[0].sender, msgs[0].text) == (expected, "Dmitry S", "Hello World")


def test_ios_arabic_digits_rlm_and_arabic_pm(tmp_path: Path) -> None:
    line = f"[٢٧{RLM}/٣{RLM}/٢٠٢٢، ٩:٥٣:٥٦{NBSP}م] سارة: مرحبا"
    msgs = parse(tmp_path, line + "\n" + f"[٢٨{RLM}/٣{RLM}/٢٠٢٢، ٩:٠٠:٠٠{NBSP}ص] سارة: صباح\n")
    assert msgs[0].timestamp == utc(2022, 3, 27, 21, 53, 56)
    assert msgs[1].timestamp == utc(2022, 3, 28, 9, 0, 0)
    assert (msgs[0].sender, msgs[0].text) == ("سارة", "مرحبا")
    assert RLM not in (msgs[0].local_time or "")


def test_buddhist_and_japanese_era_years(tmp_path: Path) -> None:
    buddhist = parse(
        tmp_path, "[3/18/2565 BE, 14:56:01] Elon Musk: Hi\n[3/27/2565 BE, 21:41:35] Dmitry: Yo\n"
    )
    assert [m.timestamp for m in buddhist] == [utc(2022, 3, 18, 14, 56, 1), utc(2022, 3, 27, 21, 41, 35)]
    reiwa = parse(tmp_path, "[3/18/R4, 14:56:01] Elon Musk: Hi\n[1/7/R5, 23:32:30] Elon Musk: Yo\n")
    assert [m.timestamp for m in reiwa] == [utc(2022, 3, 18, 14, 56, 1), utc(2023, 1, 7, 23, 32, 30)]
    heisei = parse(tmp_path, "[12/24/H30, 10:00:00] Ken: Merry\n")
    assert heisei[0].timestamp == utc(2018, 12, 24, 10)
    without_be = parse(tmp_path, "[18/3/2565, 14:56:01] Somchai: Hi\n")  # no Gregorian chat is that late
    assert without_be[0].timestamp == utc(2022, 3, 18, 14, 56, 1)


def test_old_ios_colon_separator(tmp_path: Path) -> None:
    msgs = parse(tmp_path, "7/1/16, 4:56:55 PM: Sophia H.: hi there\n7/2/16, 9:00:00 AM: Sophia H.: again\n")
    assert msgs[0].timestamp == utc(2016, 7, 1, 16, 56, 55)
    assert (msgs[0].sender, msgs[0].text) == ("Sophia H.", "hi there")
    dmy = parse(tmp_path, "13/06/15 10:59:59: Name: text\n")
    assert dmy[0].timestamp == utc(2015, 6, 13, 10, 59, 59) and dmy[0].sender == "Name"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[1/20/22, 9:15:00 in the morning] Jane Doe: tea", utc(2022, 1, 20, 9, 15)),
        ("[1/20/22, 3:15:00 in the afternoon] Jane Doe: tea", utc(2022, 1, 20, 15, 15)),
        ("[1/20/22, 10:15:00 at night] Jane Doe: tea", utc(2022, 1, 20, 22, 15)),
        ("[2023. 1. 5. 오후 3:25:10] Jane Doe: tea", utc(2023, 1, 5, 15, 25, 10)),
        ("[2023. 1. 5. 오전 12:25:10] Jane Doe: tea", utc(2023, 1, 5, 0, 25, 10)),
        ("2023/1/5 下午3:25 - Jane Doe: tea", utc(2023, 1, 5, 15, 25)),
        ("2023/01/05 午前0:15 - Jane Doe: tea", utc(2023, 1, 5, 0, 15)),
    ],
)
def test_localised_am_pm_words(tmp_path: Path, line: str, expected: datetime) -> None:
    msgs = parse(tmp_path, line + "\n")
    assert (msgs[0].timestamp, msgs[0].sender, msgs[0].text) == (expected, "Jane Doe", "tea")


# --- authors ------------------------------------------------------------------------------------------


def test_author_shapes(tmp_path: Path) -> None:
    text = (
        "[2026/7/9 02:28:09] Bob:Hi\n"
        f"[2026/7/9 02:28:10] \u202a+40{NBSP}521{NBSP}028\u201162\u202c: phone\n"
        f"[2026/7/9 02:28:11] ~{NNBSP}Dana: hi all\n"
        "[2026/7/9 02:28:12] Carol: the time is 10:30: late\n"
        "[2026/7/9 02:28:13] Carol:\n"
    )
    msgs = parse(tmp_path, text)
    assert [(m.sender, m.text) for m in msgs] == [
        ("Bob", "Hi"),
        ("+40 521 028‐62", "phone"),  # marks stripped, NFKC turns the non-breaking hyphen into U+2010
        ("Dana", "hi all"),
        ("Carol", "the time is 10:30: late"),
        ("Carol", ""),
    ]
    assert msgs[4].kind == Kind.MEDIA  # view-once media leaves an empty body
    assert msgs[2].raw == f"[2026/7/9 02:28:11] ~{NNBSP}Dana: hi all"


def test_author_containing_dash_and_colon_in_body(tmp_path: Path) -> None:
    msgs = parse(tmp_path, "18/03/2022, 14:56 - Jean-Luc - Work: Re: meeting: at 10\n")
    assert (msgs[0].sender, msgs[0].text) == ("Jean-Luc - Work", "Re: meeting: at 10")


# --- lines --------------------------------------------------------------------------------------------


def test_continuation_lines_crlf_with_bare_lf_and_blank_lines(tmp_path: Path) -> None:
    text = (
        "[04/03/25, 14:07:30] Marcus: Agenda:\r\n1. budget\n2. hiring\r\n\r\nend\r\n"
        "[04/03/25, 14:08:00] Priya: ok\r\n"
    )
    msgs = parse(tmp_path, text)
    assert len(msgs) == 2
    assert msgs[0].text == "Agenda:\n1. budget\n2. hiring\n\nend"
    assert msgs[0].raw == "[04/03/25, 14:07:30] Marcus: Agenda:\n1. budget\n2. hiring\n\nend"
    assert msgs[1].raw == "[04/03/25, 14:08:00] Priya: ok"


def test_bom_at_start_and_mid_file(tmp_path: Path) -> None:
    text = "\ufeff18/03/2022, 14:56 - A: one\n\ufeff18/03/2022, 14:57 - B: two\n"
    msgs = parse(tmp_path, text)
    assert [(m.sender, m.text) for m in msgs] == [("A", "one"), ("B", "two")]
    assert msgs[1].raw.startswith("\ufeff")


def test_blank_lines_before_first_header_are_tolerated(tmp_path: Path) -> None:
    msgs = parse(tmp_path, f"\n \n{LRM}\n18/03/2022, 14:56 - A: one\n")
    assert [m.text for m in msgs] == ["one"]


def test_out_of_order_lines_keep_file_order(tmp_path: Path) -> None:
    text = (
        "20/03/2022, 09:00 - Messages and calls are end-to-end encrypted. Tap to learn more.\n"
        "18/03/2022, 14:56 - A: older\n"
        "19/03/2022, 08:00 - B: newer\n"
    )
    msgs = parse(tmp_path, text)
    assert [m.text[:5] for m in msgs] == ["Messa", "older", "newer"]
    assert msgs[0].timestamp > msgs[1].timestamp


@pytest.mark.parametrize(
    "stamp",
    ["31/02/9999, 10:00", "12/03/9999, 10:00", "31/02/2022, 10:00", "18/03/2022, 25:10", "18/03/1969, 10:00"],
)
def test_header_whose_date_cannot_be_read_is_its_own_flagged_message(tmp_path: Path, stamp: str) -> None:
    # Glued to the message before, "Ann: transfer it" would pass for A's words.
    text = f"18/03/2022, 14:56 - A: see\n{stamp} - Ann: transfer it\nnow\n18/03/2022, 14:58 - B: ok\n"
    with pytest.warns(InputWarning) as caught:
        msgs = parse(tmp_path, text)
    assert [(m.sender, m.text, m.kind) for m in msgs] == [
        ("A", "see", Kind.TEXT),
        (None, f"{stamp} - Ann: transfer it\nnow", Kind.MALFORMED),
        ("B", "ok", Kind.TEXT),
    ]
    odd = msgs[1]
    assert (odd.timestamp, odd.local_time, odd.raw) == (msgs[0].timestamp, stamp, odd.text)
    [warning] = caught
    assert str(warning.message) == (
        f"{tmp_path / 'WhatsApp Chat with Alice.txt'}: line 2: date or time {stamp!r} cannot be read;"
        " kept as its own message, kind 'malformed'"
    )


def test_unreadable_dates_are_warned_about_five_times_then_counted(tmp_path: Path) -> None:
    lines = ["18/03/2022, 14:56 - A: see"] + [f"31/02/9999, 10:0{i} - A: {i}" for i in range(8)]
    path = make_zip(tmp_path / "WhatsApp Chat - A.zip", {"_chat.txt": "\n".join(lines).encode()})
    with pytest.warns(InputWarning) as caught:
        msgs = load(path)[1]
    assert [m.kind for m in msgs] == [Kind.TEXT] + [Kind.MALFORMED] * 8
    assert [str(w.message).split(": ")[1] for w in caught] == [
        *(f"entry '_chat.txt', line {n}" for n in range(2, 7)),
        "entry '_chat.txt'",
    ]
    assert str(caught[-1].message).endswith(
        "3 more lines whose date or time cannot be read, the last at line 9; each is kept as its own"
        " message, kind 'malformed'"
    )


def test_unicode_line_separator_is_message_content(tmp_path: Path) -> None:
    msgs = parse(tmp_path, "18/03/2022, 14:56 - A: one\u2028two\n")
    assert len(msgs) == 1 and "\u2028" in msgs[0].text


# --- day/month order ----------------------------------------------------------------------------------


def test_day_month_order_decided_once_per_file(tmp_path: Path) -> None:
    # 01/02 alone is ambiguous; 13/02 later in the file makes the whole file day-first.
    text = "01/02/2022, 10:00 - A: a\n05/02/2022, 10:00 - A: b\n13/02/2022, 10:00 - A: c\n"
    assert [m.timestamp.date() for m in parse(tmp_path, text)] == [
        datetime(2022, 2, 1).date(),
        datetime(2022, 2, 5).date(),
        datetime(2022, 2, 13).date(),
    ]
    us = "02/01/2022, 10:00 - A: a\n02/05/2022, 10:00 - A: b\n02/13/2022, 10:00 - A: c\n"
    assert [m.timestamp.month for m in parse(tmp_path, us)] == [2, 2, 2]


def test_day_month_order_from_decreasing_numbers(tmp_path: Path) -> None:
    # Within 2022 the second number goes down (12 -> 1): it is the day, so the file is month-first.
    text = "1/10/22, 10:00 - A: a\n1/12/22, 10:00 - A: b\n2/1/22, 10:00 - A: c\n"
    assert [m.timestamp.date().isoformat() for m in parse(tmp_path, text)] == [
        "2022-01-10",
        "2022-01-12",
        "2022-02-01",
    ]


def test_undecidable_day_month_defaults_to_day_first(tmp_path: Path) -> None:
    msgs = parse(tmp_path, "03/04/2022, 10:00 - A: a\n")
    assert msgs[0].timestamp.date().isoformat() == "2022-04-03"


def test_infer_day_first_rules() -> None:
    assert whatsapp.infer_day_first([(13, 1, 2022)]) is True
    assert whatsapp.infer_day_first([(1, 13, 2022)]) is False
    assert whatsapp.infer_day_first([(5, 1, 2022), (2, 2, 2022)]) is True  # first goes down
    assert whatsapp.infer_day_first([(1, 5, 2022), (2, 2, 2022)]) is False  # second goes down
    # A single out-of-order step in the month is outvoted by the days going down at month ends.
    dmy = [(10, 1, 2022), (2, 2, 2022), (3, 1, 2022), (2, 3, 2022), (1, 4, 2022)]
    assert whatsapp.infer_day_first(dmy) is True
    assert whatsapp.infer_day_first([(1, 1, 2021), (2, 1, 2022)]) is True  # changes more often
    assert whatsapp.infer_day_first([(1, 1, 2022)]) is None
    assert whatsapp.infer_day_first([]) is None


def test_two_digit_years_are_this_century(tmp_path: Path) -> None:
    assert parse(tmp_path, "18/03/99, 14:56 - A: x\n")[0].timestamp.year == 2099
    assert parse(tmp_path, "18/03/09, 14:56 - A: x\n")[0].timestamp.year == 2009


# --- time zones ---------------------------------------------------------------------------------------


def test_wall_clock_read_in_given_zone_including_dst(tmp_path: Path) -> None:
    text = (
        "29/10/2022, 12:00 - A: summer\n"
        "30/10/2022, 02:30 - A: first 02:30\n"
        "30/10/2022, 02:50 - A: still summer\n"
        "30/10/2022, 02:10 - A: clocks went back\n"
        "30/10/2022, 12:00 - A: winter\n"
        "27/03/2022, 02:30 - A: never happened\n"
    )
    msgs = parse(tmp_path, text, BERLIN)
    assert [m.timestamp for m in msgs] == [
        utc(2022, 10, 29, 10, 0),
        utc(2022, 10, 30, 0, 30),
        utc(2022, 10, 30, 0, 50),
        utc(2022, 10, 30, 1, 10),
        utc(2022, 10, 30, 11, 0),
        utc(2022, 3, 27, 1, 0),  # read as the moment the clocks changed (issue 24)
    ]


def test_dateutil_zone(tmp_path: Path) -> None:
    zone = dateutil_tz.gettz("America/New_York")
    msgs = parse(tmp_path, "7/14/22, 9:00 AM - A: parade\n12/24/22, 9:00 AM - A: eve\n", zone)
    assert [m.timestamp for m in msgs] == [utc(2022, 7, 14, 13, 0), utc(2022, 12, 24, 14, 0)]


# --- body markers -------------------------------------------------------------------------------------


def test_media_attachments_location_deleted(tmp_path: Path) -> None:
    text = (
        "18/03/2022, 14:56 - A: <Media omitted>\n"
        "18/03/2022, 14:56 - A: <Medien ausgeschlossen>\n"
        "18/03/2022, 14:57 - A: IMG-20210428-WA0001.jpg (file attached)\n"
        "caption on the next line\n"
        "18/03/2022, 14:58 - A: location: https://maps.google.com/?q=51.50,-0.12\n"
        "18/03/2022, 14:59 - A: This message was deleted\n"
        "18/03/2022, 15:00 - A: You deleted this message\n"
        "18/03/2022, 15:01 - A: a normal message about <Media omitted> things\n"
    )
    msgs = parse(tmp_path, text)
    assert [m.kind for m in msgs] == [
        Kind.MEDIA,
        Kind.MEDIA,
        Kind.ATTACHMENT,
        Kind.LOCATION,
        Kind.DELETED,
        Kind.DELETED,
        Kind.TEXT,
    ]
    assert msgs[2].text == "IMG-20210428-WA0001.jpg (file attached)\ncaption on the next line"


def test_ios_markers(tmp_path: Path) -> None:
    text = (
        f"[3/27/22, 21:41:00] Dmitry S: hi\n"
        f"{LRM}[3/27/22, 21:41:55] Dmitry S: {LRM}image omitted\n"
        "[3/27/22, 21:50:25] Dmitry S: Resume.pdf • 2 pages document omitted\n"
        f"[3/27/22, 21:51:00] Dmitry S: {LRM}<attached: 00000035-PHOTO-2022-03-27-21-41-55.jpg>\n"
        f"[3/27/22, 21:52:00] Dmitry S: 2015-08-04-PHOTO-00004762.jpg <{LRM}attached>\n"
        "[3/27/22, 21:53:00] Dmitry S: Location: https://maps.google.com/?q=51.5021456,-0.127397\n"
        "[3/27/22, 21:54:00] Dmitry S: Pimlico (London, UK): https://foursquare.com/v/4e89af95e5fa82ad4c0aa03b\n"
        "[3/27/22, 21:54:45] Elon Musk: This message was deleted.\n"
        "[3/27/22, 21:55:00] Dmitry S: Contact card omitted\n"
    )
    msgs = parse(tmp_path, text)
    assert msgs[1].timestamp == utc(2022, 3, 27, 21, 41, 55)  # an LRM before the bracket
    assert [m.kind for m in msgs] == [
        Kind.TEXT,
        Kind.MEDIA,
        Kind.MEDIA,
        Kind.ATTACHMENT,
        Kind.ATTACHMENT,
        Kind.LOCATION,
        Kind.LOCATION,
        Kind.DELETED,
        Kind.MEDIA,
    ]


def test_edited_marker(tmp_path: Path) -> None:
    text = (
        "18/03/2022, 14:56 - A: moved to 3pm <This message was edited>\n"
        "[04/03/25, 14:08:00] B: line one\nline two <This message was edited.>\n"
    )
    msgs = parse(tmp_path, text.split("[")[0])
    assert (msgs[0].text, msgs[0].edited, msgs[0].kind) == ("moved to 3pm", True, Kind.TEXT)
    assert msgs[0].raw.endswith("<This message was edited>")
    ios = parse(tmp_path, "[" + text.split("[")[1])
    assert (ios[0].text, ios[0].edited) == ("line one\nline two", True)
    german = parse(tmp_path, "29.01.18, 12:24 - Hans: Hallo <Diese Nachricht wurde bearbeitet>\n")
    assert (german[0].text, german[0].edited) == ("Hallo", True)


def test_system_messages(tmp_path: Path) -> None:
    text = (
        "18/03/2022, 14:56 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
        "not even WhatsApp, can read or listen to them. Tap to learn more.\n"
        '18/03/2022, 14:56 - Alice created group "Trip"\n'
        "18/03/2022, 14:57 - Alice added Bob\n"
        '18/03/2022, 14:58 - Alice changed the subject from "Trip" to "Trip: Paris"\n'
        "18/03/2022, 14:59 - \u202a+49 151 2345678\u202c joined using this group's invite link\n"
        "18/03/2022, 15:00 - Bob left\n"
    )
    msgs = parse(tmp_path, text)
    assert all(m.kind == Kind.SYSTEM and m.sender is None for m in msgs)
    assert msgs[3].text == 'Alice changed the subject from "Trip" to "Trip: Paris"'


def test_ios_system_messages_with_an_author(tmp_path: Path) -> None:
    text = (
        f"[3/18/22, 14:56:01] Elon Musk: {LRM}Messages and calls are end-to-end encrypted. No one outside "
        "of this chat, not even WhatsApp, can read or listen to them.\n"
        "[4/28/22, 20:17:31] Elon Musk: Your security code with Elon changed. Tap to learn more.\n"
        f"[4/28/22, 20:18:00] Elon Musk: {LRM}Missed voice call\n"
        f"[4/28/22, 20:19:00] Trip: {LRM}Alice added Bob\n"
        f"[4/28/22, 20:20:00] {LRM}Alice added Carol\n"
        "[4/28/22, 20:21:00] Elon Musk: I added salt\n"
    )
    msgs = parse(tmp_path, text)
    assert [m.kind for m in msgs] == [Kind.SYSTEM] * 5 + [Kind.TEXT]
    assert msgs[0].sender == "Elon Musk"  # kept as written; the kind says it is a notice
    assert msgs[3].sender == "Trip"
    assert msgs[4].sender is None and msgs[4].text == "Alice added Carol"


def test_text_normalisation(tmp_path: Path) -> None:
    # The body as written (issue 24: "x²" is not "x2"); only the export's marks around it and the isolates
    # around a mention go. The header is normalised.
    text = f"18/03/2022, 14:56 - {LRM}A{NBSP}B: {LRM}ﬁne{NBSP}and\u2009thin \u2068@Priya\u2069\n"
    msgs = parse(tmp_path, text)
    assert msgs[0].text == f"ﬁne{NBSP}and\u2009thin @Priya"
    assert msgs[0].sender == "A B"
    assert LRM in msgs[0].raw and "\u2068" in msgs[0].raw


# --- containers and encodings -------------------------------------------------------------------------


def test_ios_zip_with_macosx_and_media(tmp_path: Path) -> None:
    chat = b"[3/27/22, 21:41:35] Dmitry S: Hello World\r\n"
    path = make_zip(
        tmp_path / "WhatsApp Chat - Dmitry S.zip",
        {
            "_chat.txt": chat,
            "__MACOSX/._chat.txt": b"\x00\x05\x16\x07 AppleDouble",
            "00000035-PHOTO-2022-03-27-21-41-55.jpg": b"\xff\xd8\xff\xe0 not really a jpeg",
        },
    )
    assert whatsapp.sniff(path)
    chat_record, msgs = load(path)
    assert chat_record.name == "Dmitry S" and chat_record.key == "Dmitry S"
    assert [m.text for m in msgs] == ["Hello World"]


@pytest.mark.parametrize("folder", ["WhatsApp Chat - Alice", "Alice"])
def test_unzipped_ios_chat_is_named_by_its_folder(tmp_path: Path, folder: str) -> None:
    # macOS unzips "WhatsApp Chat - Alice.zip" into "WhatsApp Chat - Alice/_chat.txt": the same chat, by
    # name and key, as the zip.
    chat = b"[3/27/22, 21:41:35] Alice: Hello\r\n"
    (tmp_path / folder).mkdir()
    loose = tmp_path / folder / "_chat.txt"
    loose.write_bytes(chat)
    zipped = make_zip(tmp_path / "WhatsApp Chat - Alice.zip", {"_chat.txt": chat})
    assert (load(loose)[0].name, load(loose)[0].key) == ("Alice", "Alice")
    assert load(zipped)[0].key == "Alice"


def test_two_unzipped_ios_chats_are_two_chats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = []
    for name in ("Alice", "Bob"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "_chat.txt").write_bytes(f"[3/27/22, 21:41:35] {name}: hi\r\n".encode())
        keys.append(load(tmp_path / name / "_chat.txt")[0].key)
    assert keys == ["Alice", "Bob"]
    monkeypatch.chdir(tmp_path / "Bob")  # a relative path still has a folder
    assert load(Path("_chat.txt"))[0].name == "Bob"


def test_reimporting_an_ios_chat_stored_as_chat_by_an_earlier_release(tmp_path: Path) -> None:
    """Earlier releases stored every unzipped iOS chat as one chat "_chat" (several chats merged). It is
    not adopted, which would keep them merged: the chat comes in under its own name, and "_chat" stays
    until the user forgets it (`refind forget --chat _chat`)."""
    (tmp_path / "Alice").mkdir()
    export = tmp_path / "Alice" / "_chat.txt"
    export.write_bytes(b"[3/27/22, 21:41:35] Alice: Hello\r\n[3/27/22, 21:42:00] Me: Hi\r\n")
    with Archive.open(tmp_path / "home") as archive:
        old = Chat(source="whatsapp", key="_chat", name="_chat")
        import_chat(archive, old, load(export)[1])
        result = import_file(archive, export, tz=UTC)
        assert [(c.name, c.messages_added) for c in result.chats] == [("Alice", 2)]
        assert sorted(c.info.key for c in archive.chats()) == ["Alice", "_chat"]


def test_android_zip_prefers_shortest_chat_name(tmp_path: Path) -> None:
    path = make_zip(
        tmp_path / "export.zip",
        {
            "IMG-20220327-WA0001.jpg": b"\xff\xd8",
            "WhatsApp Chat with Bob (1).txt": b"18/03/2022, 14:56 - Bob: old copy\n",
            "WhatsApp Chat with Bob.txt": b"18/03/2022, 14:56 - Bob: hi\n",
        },
    )
    chat, msgs = load(path)
    assert chat.name == "Bob" and [m.text for m in msgs] == ["hi"]


def test_zip_without_chat_file(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "photos.zip", {"IMG-1.jpg": b"\xff\xd8", "__MACOSX/._chat.txt": b"x"})
    assert not whatsapp.sniff(path)
    with pytest.raises(InputError, match="no WhatsApp chat"):
        load(path)


def test_zip_errors_name_the_entry_and_line(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "x.zip", {"_chat.txt": b"18/03/2022, 14:56 - A: \xc3\xb6k\nbad \xff byte\n"})
    with pytest.raises(InputError) as err:
        load(path)
    assert err.value.where == "entry '_chat.txt', line 2"


@pytest.mark.parametrize(
    ("file_name", "expected"),
    [
        ("WhatsApp Chat with Alice.txt", "Alice"),
        ("WhatsApp_Chat_with_Alice_Smith.txt", "Alice Smith"),
        ("WhatsApp Chat - Dmitry S.zip", "Dmitry S"),
        ("Chat de WhatsApp con Ana.txt", "Ana"),
        ("Чат WhatsApp с контактом Дмитрий.txt", "Дмитрий"),
        ("WhatsApp-chat met Piet.txt", "Piet"),
        ("notes.txt", "notes"),
    ],
)
def test_chat_name(file_name: str, expected: str) -> None:
    assert whatsapp.chat_name(file_name) == expected


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_bom_encodings(tmp_path: Path, encoding: str) -> None:
    path = write(tmp_path, "18/03/2022, 14:56 - Zoë: größer\n", encoding=encoding)
    assert whatsapp.sniff(path)
    assert [(m.sender, m.text) for m in load(path)[1]] == [("Zoë", "größer")]


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_bytes(b"18/03/2022, 14:56 - A: \xc3\xb6ne\n18/03/2022, 14:57 - A: two\nthree \xc3\x28\n")
    with pytest.raises(InputError) as err:
        load(path)
    assert err.value.where == "line 3" and str(path) in str(err.value)


@pytest.mark.parametrize("content", [b"", b"\n\n  \r\n", codecs.BOM_UTF8])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "chat.txt"
    path.write_bytes(content)
    assert not whatsapp.sniff(path)
    with pytest.raises(InputError, match="empty"):
        load(path)


def test_leading_junk_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "\nhello there\n18/03/2022, 14:56 - A: one\n")
    assert not whatsapp.sniff(path)
    with pytest.raises(InputError) as err:
        load(path)
    assert err.value.where == "line 2"


def test_binary_and_foreign_files(tmp_path: Path) -> None:
    png = tmp_path / "image.txt"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(InputError):
        load(png)
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"\x00" * 100)
    with pytest.raises(InputError, match="not a WhatsApp chat export"):
        load(nul)
    json_file = write(tmp_path, '{"name": "x", "messages": []}', name="result.json")
    assert not whatsapp.sniff(json_file)
    assert not whatsapp.sniff(tmp_path)
    assert not whatsapp.sniff(tmp_path / "missing.txt")
    with pytest.raises(InputError, match="folder"):
        load(tmp_path)


def test_sniff_reads_only_the_first_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[3/27/22, 21:41:35] A: hi\n" + "x" * 200_000, name="big.txt")
    assert whatsapp.sniff(path)


def test_messages_are_streamed(tmp_path: Path) -> None:
    path = write(tmp_path, "".join(f"18/03/2022, 14:{i:02d} - A: m{i}\n" for i in range(60)))
    export = next(whatsapp.read(path, tz=UTC))
    messages = iter(export.messages)
    assert next(messages).text == "m0"
    assert sum(1 for _ in messages) == 59


# --- properties ---------------------------------------------------------------------------------------

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def consume(path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for export in whatsapp.read(path, tz=BERLIN):
                for message in export.messages:
                    assert isinstance(message, Message)
                    assert message.timestamp.tzinfo is not None
        except InputError:
            pass
    # The only warnings are about lines that were kept, flagged.
    assert all(w.category is InputWarning for w in caught)


header_like = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.sampled_from(
            [
                "18/03/2022, 14:56 - A: hi",
                "[3/18/2565 BE, 14:56:01] B: x",
                "[14:56:01, 3/18/22] C:",
                "99/99/9999, 99:99 - D: y",
                "1/1/1, 0:00 AM - E: z",
                "31/12/2199, 23:59 - F: end",
                "01/01/1970, 00:00 - G: start",
                "[\u0660/\u0660/\u0660\u0660, \u0669:\u0669\u0669 م] H: h",
                "13.6.2018 klo 21.25.15 - ",
            ]
        ),
    ),
    max_size=8,
).map("\n".join)


@FUZZ
@given(data=st.one_of(st.binary(max_size=300), header_like.map(lambda s: s.encode("utf-8", "surrogatepass"))))
def test_any_bytes_as_txt_yield_records_or_input_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.txt"
    path.write_bytes(data)
    consume(path)
    assert isinstance(whatsapp.sniff(path), bool)


@FUZZ
@given(data=st.binary(max_size=300), wrap=st.booleans())
def test_any_bytes_as_zip_yield_records_or_input_error(tmp_path: Path, data: bytes, wrap: bool) -> None:
    path = tmp_path / "fuzz.zip"
    if wrap:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zf:
            zf.writestr("_chat.txt", data)
        path.write_bytes(buffer.getvalue())
    else:
        path.write_bytes(data)
    consume(path)
    assert isinstance(whatsapp.sniff(path), bool)


bodies = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="<>:"), min_size=1, max_size=40
).filter(lambda s: s.strip() == s)


@FUZZ
@given(
    rows=st.lists(
        st.tuples(
            st.datetimes(datetime(2015, 1, 1), datetime(2030, 1, 1)),
            st.sampled_from(["Ann", "Bo Li"]),
            bodies,
        ),
        min_size=1,
        max_size=15,
    )
)
def test_android_round_trip(tmp_path: Path, rows: list[tuple[datetime, str, str]]) -> None:
    rows = sorted(rows)
    text = "".join(f"{t:%d/%m/%Y, %H:%M} - {who}: {body}\n" for t, who, body in rows)
    msgs = parse(tmp_path, text)
    assert [(m.sender, m.text) for m in msgs] == [(who, body) for _, who, body in rows]
    # With every day number <= 12 the file can be read either way; the times of day always survive.
    assert [m.timestamp.strftime("%H:%M") for m in msgs] == [f"{t:%H:%M}" for t, _, _ in rows]
    if any(t.day > 12 for t, _, _ in rows):
        assert [m.timestamp.replace(tzinfo=None) for m in msgs] == [
            t.replace(second=0, microsecond=0) for t, _, _ in rows
        ]
