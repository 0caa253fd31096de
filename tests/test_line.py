"""LINE exports in every UI language the format notes record: titles, day lines, stamps, placeholders, calls,
system lines, multi-line messages; and the files that are not LINE exports."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from cli_runs import run
from linelog_fixtures import FIXTURES, load, rows

from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.importers import line
from refind_cli.records import Chat, Kind

T, M, S, A, L, D = Kind.TEXT, Kind.MEDIA, Kind.SYSTEM, Kind.ATTACHMENT, Kind.LOCATION, Kind.DELETED


def test_english_with_bom_crlf_quotes_calls_and_system_lines() -> None:
    chat, msgs = load(FIXTURES / "[LINE] Chat with Kenji Sato.txt", ZoneInfo("Asia/Tokyo"))
    assert chat == Chat(source="line", key="Kenji Sato", name="Kenji Sato", kind="direct")
    assert rows(msgs) == [
        ("2018-01-19 21:30", "Kenji Sato", "Are we still on for ramen tomorrow?", T, False),
        ("2018-01-19 21:31", "Maya", "Yes!\nIchiran at 7, the one near the station", T, False),
        ("2018-01-19 21:33", "Kenji Sato", "[Sticker]", M, False),
        ("2018-01-19 21:40", "Maya", "[Photo]", M, False),
        ("2018-01-19 21:41", "Kenji Sato", "☎ Call time 1:16", S, False),
        ("2018-01-19 22:02", None, "Kenji Sato unsent a message.", S, False),
        ("2018-01-20 09:05", "Maya", "☎ Missed call", S, False),
        ("2018-01-20 09:06", "Kenji Sato", "[File] menu.pdf", A, False),
        ("2018-01-20 09:07", "Kenji Sato", "see you at 7\nbring cash, they do not take cards", T, False),
    ]
    # Tokyo is UTC+9; the raw record keeps the quotes, the stamp and the hour as written.
    assert msgs[0].timestamp == datetime(2018, 1, 19, 12, 30, tzinfo=UTC)
    assert msgs[1].raw == '21:31\tMaya\t"Yes!\nIchiran at 7, the one near the station"'
    assert msgs[6].raw == "9:05\tMaya\t☎ Missed call"


def test_english_group_with_the_older_quoted_title() -> None:
    chat, msgs = load(FIXTURES / "[LINE] Kletter-Gruppe.txt")
    assert (chat.name, chat.kind) == ("Kletter-Gruppe", "group")
    assert rows(msgs) == [
        ("2024-03-12 18:02", "Noah", "Who is in on Thursday?", T, False),
        ("2024-03-12 18:03", "Lea", "me", T, False),
        ("2024-03-12 18:05", None, "Noah changed the group's profile picture.", S, False),
        ("2024-03-12 18:06", "Yuki", "[Voice message]", M, False),
        ("2024-03-12 18:07", "Noah", "[Location] Boulderklub Kreuzberg", L, False),
    ]


def test_japanese() -> None:
    chat, msgs = load(FIXTURES / "[LINE] 田中とのトーク履歴.txt")
    assert (chat.name, chat.kind) == ("田中", "direct")
    assert rows(msgs) == [
        ("2024-01-23 21:30", "田中", "明日の会議は10時からです", T, False),
        ("2024-01-23 21:31", "Maya", "了解です", T, False),
        ("2024-01-23 21:32", "田中", "[スタンプ]", M, False),
        ("2024-01-23 21:33", "田中", "[写真]", M, False),
        ("2024-01-23 21:40", "田中", "☎ 通話時間 0:42", S, False),
        ("2024-01-23 21:45", "田中", "資料は\n共有フォルダにあります", T, False),
        ("2024-01-24 09:00", "Maya", "おはようございます", T, False),
    ]


def test_traditional_chinese_with_am_pm_words_and_fullwidth_weekday() -> None:
    chat, msgs = load(FIXTURES / "[LINE] 與小美的聊天記錄.txt")
    assert (chat.name, chat.kind) == ("小美", "direct")
    assert rows(msgs) == [
        ("2016-06-18 09:04", "小美", "早安", T, False),
        ("2016-06-18 12:30", "Maya", "午餐吃什麼？", T, False),
        ("2016-06-18 12:31", "小美", "[貼圖]", M, False),
        ("2016-06-18 12:32", "小美", "[照片]", M, False),
        ("2016-06-18 12:40", None, "小美已收回訊息", S, False),
    ]


def test_simplified_chinese_twelve_am_is_midnight() -> None:
    chat, msgs = load(FIXTURES / "[LINE] 与小明的聊天记录.txt")
    assert chat.name == "小明"
    assert [r[0] for r in rows(msgs)] == [
        "2024-01-23 14:21",
        "2024-01-23 14:22",
        "2024-01-23 14:23",
        "2024-01-23 00:05",
    ]
    assert msgs[2].kind == M


def test_korean_twelve_pm_is_noon() -> None:
    chat, msgs = load(FIXTURES / "[LINE] 민지님과의 대화.txt")
    assert (chat.name, chat.kind) == ("민지", "direct")
    assert rows(msgs) == [
        ("2021-05-11 14:21", "민지", "안녕하세요", T, False),
        ("2021-05-11 14:22", "Maya", "안녕!", T, False),
        ("2021-05-11 14:23", "민지", "[사진]", M, False),
        ("2021-05-11 12:01", "민지", "점심 먹었어?", T, False),
    ]


def test_thai_buddhist_era_day_first_told_by_the_weekday() -> None:
    # 10/07/2562 BE is Wednesday 10 July 2019; 11/07 could be 7 November (also a Thursday): the first day
    # line told the file's order, so it is 11 July.
    chat, msgs = load(FIXTURES / "[LINE] ประวัติการสนทนากับ สมชาย.txt", ZoneInfo("Asia/Bangkok"))
    assert (chat.name, chat.kind) == ("สมชาย", "direct")
    assert [r[0] for r in rows(msgs)] == [
        "2019-07-10 09:15",
        "2019-07-10 09:16",
        "2019-07-10 09:20",
        "2019-07-11 08:00",
    ]
    assert msgs[0].timestamp == datetime(2019, 7, 10, 2, 15, tzinfo=UTC)
    assert msgs[2].kind == M


def test_thai_weekday_abbreviations(tmp_path: Path) -> None:
    # พ. is Wednesday: 10/07/2562 is 10 July 2019 (7 October was a Monday).
    path = write(
        tmp_path, "พ., 10/07/2562\n09:15\tสมชาย\tสวัสดีครับ\n\nพฤ., 11/07/2562\n08:00\tสมชาย\tอรุณสวัสดิ์\n"
    )
    _, msgs = load(path, fmt="line")
    assert [m.local_time for m in msgs] == ["2019-07-10 09:15", "2019-07-11 08:00"]


def test_no_header_named_after_the_file() -> None:
    chat, msgs = load(FIXTURES / "line-no-header.txt")
    assert (chat.name, chat.kind) == ("line-no-header", "chat")
    assert len(msgs) == 2


def write(tmp_path: Path, text: str, name: str = "[LINE] Test.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_line_that_looks_like_a_day_line_inside_a_message_is_text(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "2024/1/23(火)\n10:00\tAiko\tdates to keep:\n2024/2/1(木)\nand more\n10:01\tMaya\tok\n",
    )
    _, msgs = load(path, fmt="line")
    assert [(m.sender, m.text) for m in msgs] == [
        ("Aiko", "dates to keep:\n2024/2/1(木)\nand more"),
        ("Maya", "ok"),
    ]


def test_an_impossible_time_is_text_of_the_message_before(tmp_path: Path) -> None:
    path = write(tmp_path, "2024/1/23(火)\n10:00\tAiko\tscore\n25:70\tnot a time\n")
    _, msgs = load(path, fmt="line")
    assert [m.text for m in msgs] == ["score\n25:70\tnot a time"]


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("[LINE] Chat history with Bob\nSaved on: 5/4/2020, 21:31\n\n", "has no messages"),
        (
            "[LINE] Chat history with Bob\nSaved on: 5/4/2020, 21:31\n\nFri, 1/19/2018\n",
            "has day lines but no",
        ),
        ("[LINE] Chat history with Bob\nSaved on: 5/4/2020, 21:31\nOnce upon a time\n", "line 3: not a LINE"),
        ("Fri, 1/19/2018\nIt was a dark and stormy night.\n", "line 2: not a LINE"),
        ("Fri, 2/30/2018\n21:30\tBob\thi\n", "line 1: not a LINE"),
    ],
)
def test_broken_files_are_one_input_error(tmp_path: Path, text: str, what: str) -> None:
    with pytest.raises(InputError) as err:
        load(write(tmp_path, text), fmt="line")
    assert what in str(err.value) and "\n" not in str(err.value)


def test_invalid_utf8_and_a_file_cut_mid_character_name_their_line(tmp_path: Path) -> None:
    good = "2024/1/23(火)\n10:00\tAiko\tこんにちは\n".encode()
    bad = tmp_path / "bad.txt"
    bad.write_bytes(good + b"10:01\tMaya\t\xff\n")
    with pytest.raises(InputError, match="line 3: invalid text"):
        load(bad, fmt="line")
    cut = tmp_path / "cut.txt"
    cut.write_bytes(good[:-3])  # the last character's first byte only
    with pytest.raises(InputError, match="line 2: invalid text"):
        load(cut, fmt="line")


def test_utf16_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "[LINE] Bob.txt"
    path.write_bytes("[LINE] Chat history with Bob\nFri, 1/19/2018\n21:30\tBob\thi\n".encode("utf-16"))
    assert line.sniff(path)
    chat, msgs = load(path)
    assert (chat.name, [m.text for m in msgs]) == ("Bob", ["hi"])


def test_the_old_space_separated_group_layout_is_refused_with_its_own_error(tmp_path: Path) -> None:
    path = tmp_path / "[LINE] Kletter-Gruppe.txt"
    path.write_text(
        "[LINE] Chat history in Kletter-Gruppe\nSaved on: 5/4/2020, 21:31\n\nFri, 1/19/2018\n"
        "21:30 Anna Maria Berg see you at the wall\n21:31 Jonas ok\n",
        encoding="utf-8",
    )
    assert importers.detect(path) == "line"
    with pytest.raises(InputError) as exc:
        load(path)
    assert str(exc.value).startswith(f"{path}: line 5: LINE's old space-separated layout"), str(exc.value)
    r = run(tmp_path / "home", "import", str(path))
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_text_line_that_starts_with_a_time_after_a_tab_line_is_text(tmp_path: Path) -> None:
    path = tmp_path / "[LINE] Bob.txt"
    path.write_text("Fri, 1/19/2018\n21:30\tBob\tplan:\n21:45 meet at the station\n", encoding="utf-8")
    _, msgs = load(path)
    assert [m.text for m in msgs] == ["plan:\n21:45 meet at the station"]
