"""The hand-written line-log exports in tests/fixtures/linelogs/ (LINE, KakaoTalk, Signal), laid out as
FORMATS.md §4c records them, and how the tests read them."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

from refind_cli import importers
from refind_cli.records import Chat, Message

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "linelogs"
SEOUL = ZoneInfo("Asia/Seoul")

# Each fixture (a file, or a signal-export chat folder) and the format that reads it.
FORMATS = {
    "[LINE] Chat with Kenji Sato.txt": "line",
    "[LINE] Kletter-Gruppe.txt": "line",
    "[LINE] 田中とのトーク履歴.txt": "line",
    "[LINE] 與小美的聊天記錄.txt": "line",
    "[LINE] 与小明的聊天记录.txt": "line",
    "[LINE] 민지님과의 대화.txt": "line",
    "[LINE] ประวัติการสนทนากับ สมชาย.txt": "line",
    "line-no-header.txt": "line",
    "KakaoTalk Chats with Minji.txt": "kakaotalk",
    "KakaoTalk_2014.txt": "kakaotalk",
    "KakaoTalk_민지.txt": "kakaotalk",
    "KakaoTalk_iOS.txt": "kakaotalk",
    "KakaoTalk_PC.txt": "kakaotalk",
    "KakaoTalk_PC_en.txt": "kakaotalk",
    "KakaoTalk_모바일.txt": "kakaotalk",
    "KakaoTalk_macOS.csv": "kakaotalk",
    "Aylin Demir": "signal",
    "Aylin Demir/chat.md": "signal",
    "Aylin Demir/data.json": "signal",
    "Noah (old)/chat.md": "signal",
    "signalbackup-Lena.txt": "signal",
    "sigtop-Aylin Demir.txt": "signal",
}

Row = tuple[str | None, str | None, str, str, bool]  # local time, sender, text, kind, own


def load(path: Path, tz: tzinfo = SEOUL, fmt: str = "auto") -> tuple[Chat, list[Message]]:
    exports = list(importers.read_export(path, fmt, tz))
    assert len(exports) == 1
    return exports[0].chat, list(exports[0].messages)


def rows(messages: list[Message]) -> list[Row]:
    return [(m.local_time, m.sender, m.text, m.kind, m.own) for m in messages]
