"""KakaoTalk exports: Android in English (and the 2014 layout) and Korean, iOS Korean, the PC app in Korean
and English; joins, leaves, invitations, placeholders, 회원님 as the exporting person."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from linelog_fixtures import FIXTURES, load, rows

from refind_cli.errors import InputError
from refind_cli.importers import kakaotalk
from refind_cli.records import Kind

T, M, S, A, D = Kind.TEXT, Kind.MEDIA, Kind.SYSTEM, Kind.ATTACHMENT, Kind.DELETED


def test_android_english() -> None:
    chat, msgs = load(FIXTURES / "KakaoTalk Chats with Minji.txt")
    assert (chat.source, chat.name, chat.kind) == ("kakaotalk", "Minji", "direct")
    assert rows(msgs) == [
        ("2018-05-28 09:40", "Minji", "Did you get the tickets?", T, False),
        ("2018-05-28 09:41", "Maya", "Yes, row 12\nboth seats together", T, False),
        ("2018-05-28 09:42", "Minji", "Photo", M, False),
        ("2018-05-28 09:43", "Minji", "(emoticon)", M, False),
        ("2018-05-28 12:05", "Maya", "This message has been deleted.", D, False),
        ("2018-05-28 12:10", None, "Minji invited Jun.", S, False),
        ("2018-05-28 12:11", None, "Jun left this chatroom.", S, False),
        ("2018-05-29 00:00", "Minji", "File: tickets.pdf", A, False),
    ]
    assert msgs[0].timestamp == datetime(2018, 5, 28, 0, 40, tzinfo=UTC)  # Seoul, UTC+9


def test_android_english_2014_time_first() -> None:
    chat, msgs = load(FIXTURES / "KakaoTalk_2014.txt")
    assert chat.name == "Jin"
    assert rows(msgs) == [
        ("2014-02-20 09:46", "Jin", "are you coming to the study group?", T, False),
        ("2014-02-20 21:50", "Maya", "yes, at 8", T, False),
        ("2014-02-21 00:15", "Jin", "Photo", M, False),
    ]


def test_android_korean_with_the_exporting_user() -> None:
    chat, msgs = load(FIXTURES / "KakaoTalk_민지.txt")
    assert (chat.name, chat.kind) == ("민지", "direct")
    assert rows(msgs) == [
        ("2013-02-28 23:17", "민지", "안녕", T, False),
        ("2013-02-28 23:18", "회원님", "(이모티콘)", M, True),
        ("2013-02-28 23:19", "회원님", "내일 봐\n아침 10시에", T, True),
        ("2013-02-28 23:20", None, "민지님이 철수님을 초대했습니다.", S, False),
        ("2013-02-28 23:21", None, "철수님이 나갔습니다.", S, False),
        ("2013-03-01 00:01", "민지", "사진 3장", M, False),
        ("2013-03-01 00:02", "민지", "삭제된 메시지입니다.", D, False),
    ]


def test_ios_korean() -> None:
    _, msgs = load(FIXTURES / "KakaoTalk_iOS.txt")
    assert rows(msgs) == [
        ("2014-02-06 10:25", "민지", "사진", M, False),
        ("2014-02-06 12:25", "회원님", "점심 먹자", T, True),
        ("2014-02-06 12:26", "민지", "이모티콘", M, False),
    ]


def test_pc_korean_joins_without_a_stamp_take_the_time_before() -> None:
    chat, msgs = load(FIXTURES / "KakaoTalk_PC.txt")
    assert chat.name == "민지"
    assert rows(msgs) == [
        ("2018-03-03 20:54", "민지", "주말에 뭐 해?", T, False),
        ("2018-03-03 20:55", "회원님", "이사 준비\n박스가 많아", T, True),
        ("2018-03-03 20:55", None, "철수님이 들어왔습니다.", S, False),
        ("2018-03-03 21:01", "철수", "안녕하세요", T, False),
        ("2018-03-04 00:30", "민지", "잘 자", T, False),
    ]


def test_pc_english_without_a_header() -> None:
    chat, msgs = load(FIXTURES / "KakaoTalk_PC_en.txt")
    assert chat.name == "KakaoTalk_PC_en"
    assert rows(msgs) == [
        ("2024-12-09 14:30", "John", "Hello", T, False),
        ("2024-12-09 14:31", "Maya", "Hi John", T, False),
        ("2024-12-09 14:31", None, "John left this chatroom.", S, False),
    ]


def test_a_zip_from_the_phone_holds_the_chat_and_its_photos(tmp_path: Path) -> None:
    path = tmp_path / "KakaoTalk_Chat_Minji.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("KakaoTalkChats.txt", (FIXTURES / "KakaoTalk Chats with Minji.txt").read_bytes())
        zf.writestr("2018-05-28-09-42-00.jpg", b"\xff\xd8")
    assert kakaotalk.sniff(path)
    chat, msgs = load(path)
    assert chat.source == "kakaotalk" and len(msgs) == 8
    empty = tmp_path / "KakaoTalk_Photos.zip"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("photo.jpg", b"\xff\xd8")
    with pytest.raises(InputError, match="no KakaoTalk chat"):
        load(empty, fmt="kakaotalk")


def test_a_title_with_nothing_after_it_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "KakaoTalk_cut.txt"
    path.write_text("KakaoTalk Chats with Minji\nDate Saved : May 28, 2018, 9:46 AM\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="has no messages; not a KakaoTalk chat export"):
        load(path, fmt="kakaotalk")


def test_mobile_days_framed_by_dashes_and_messages_with_only_a_time() -> None:
    chat, msgs = load(FIXTURES / "KakaoTalk_모바일.txt")
    assert (chat.name, chat.kind) == ("민지", "direct")
    assert rows(msgs) == [
        ("2023-05-10 09:23", "민지", "오늘 몇시에 와?", T, False),
        # A row of dashes that frames no day is text.
        ("2023-05-10 09:25", "회원님", "7시쯤 갈 것 같아.\n-----\n그 전에 전화할게", T, True),
        ("2023-05-10 13:02", None, "민지님이 철수님을 초대했습니다.", S, False),
        ("2023-05-10 13:10", "철수", "사진", M, False),
        ("2023-05-11 00:05", "민지", "잘 자", T, False),
    ]
    assert msgs[0].raw == "오전 9:23, 민지 : 오늘 몇시에 와?"


def test_macos_csv() -> None:
    chat, msgs = load(FIXTURES / "KakaoTalk_macOS.csv")
    assert (chat.source, chat.name) == ("kakaotalk", "KakaoTalk_macOS")
    assert rows(msgs) == [
        ("2025-07-06 14:39:55", "민지", "주말에 뭐 해?", T, False),
        ("2025-07-06 14:40:02", "Maya", '이사 준비\n박스가 많아, 정말 "많아"', T, False),
        ("2025-07-06 14:41:10", "민지", "사진", M, False),
        ("2025-07-06 14:42:00", "민지", "파일: 계약서.pdf", A, False),
        ("2025-07-07 09:05:31", "Maya", "Good morning!", T, False),
    ]
    assert msgs[1].raw == '2025-07-06 14:40:02,"Maya","이사 준비\n박스가 많아, 정말 ""많아"""'
    assert msgs[0].timestamp == datetime(2025, 7, 6, 5, 39, 55, tzinfo=UTC)  # Seoul, UTC+9


@pytest.mark.parametrize(
    ("tail", "error"),
    [
        ('2025-07-06 14:40:02,"Maya","cut off in the mid', "line 3: the file ends inside a quoted message"),
        ('2025-07-06 14:40:02,"Maya"', "line 3: expected 3 fields"),
        ('2025-13-06 14:40:02,"Maya","hi"', "line 3: unreadable date '2025-13-06 14:40:02'"),
        ('2025-02-30 14:40:02,"Maya","hi"', "line 3: unreadable date"),
        ('yesterday,"Maya","hi"', "line 3: unreadable date 'yesterday'"),
        ('2025-07-06 14:40:02,"Maya" x,"hi"', "line 3: unreadable CSV record"),
    ],
)
def test_a_broken_csv_is_one_error_naming_its_line(tmp_path: Path, tail: str, error: str) -> None:
    path = tmp_path / "KakaoTalk_broken.csv"
    path.write_text(f'Date,User,Message\n2025-07-06 14:39:55,"민지","hi"\n{tail}\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load(path, fmt="kakaotalk")
    assert str(exc.value).startswith(f"{path}: {error}"), str(exc.value)


def test_a_csv_with_only_its_header_has_no_messages(tmp_path: Path) -> None:
    path = tmp_path / "KakaoTalk_empty.csv"
    path.write_text("Date,User,Message\n", encoding="utf-8")
    assert kakaotalk.sniff(path)
    with pytest.raises(InputError, match="has no messages"):
        load(path)


def test_a_csv_of_something_else_is_not_kakaotalk(tmp_path: Path) -> None:
    for text in ("Date,Amount,Description\n2025-07-06,12.50,Coffee\n", "Date,User,Message\nmonday,bob,hi\n"):
        path = tmp_path / "other.csv"
        path.write_text(text, encoding="utf-8")
        assert not kakaotalk.sniff(path)
