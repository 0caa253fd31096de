"""LINE "Export chat history" text files, in the app's English, Japanese, Chinese, Korean and Thai UI.

The layout (FORMATS.md §4c): an optional title (``[LINE] Chat history with NAME``, localised) and "saved on"
line, then day lines (``Fri, 1/19/2018``, ``2024/1/23(火)``, ``Wed, 10/07/2562 BE``) and tab-separated
messages ``21:30<TAB>Sender<TAB>text``; a system line has no sender field, a multi-line text is wrapped in
double quotes. The reading is linelog's; this module is its tables.

Old group exports wrote ``21:30 Sender text`` with spaces for tabs. That layout is refused with its own
error rather than read: a name is one or more words, and nothing in such a file (no member list, no tab
lines to learn the names from) says where a name with a space ends and the text begins, so any reading
would put words of people's names into their messages or the other way round.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import tzinfo
from pathlib import Path

from refind_cli.errors import InputError
from refind_cli.importers import container, linelog
from refind_cli.importers.linelog import TIME, WS, Grammar, Head, Layout, pattern
from refind_cli.records import Chat, ChatExport, Kind, Mark

FORMAT = "line"

# A day line: year first (Japanese, Chinese, Korean: ``2024/1/23(火)``, ``2016/06/18（六）``, ``2026/1/30周五``,
# ``2021.05.11 화요일``, ``2020. 5. 4. (월)``), or a weekday then month and day in the locale's order
# (English ``Fri, 1/19/2018``, Thai ``Wed, 10/07/2562 BE``): the weekday tells which number is the day.
_DAYS = (
    pattern(
        rf"(?P<y>\d{{4}})[./]{WS}?(?P<mo>\d{{1,2}})[./]{WS}?(?P<d>\d{{1,2}})\.?{WS}*"
        r"(?:[（(]?(?P<dow>[^\s()（）]{1,9})[)）]?)?"
    ),
    pattern(
        rf"(?P<dow>[^\W\d_]{{1,12}}\.?),?{WS}(?P<a>\d{{1,2}})/(?P<b>\d{{1,2}})/(?P<y>\d{{4}})"
        rf"(?:{WS}?(?P<be>BE|พ\.ศ\.))?"
    ),
)
_LAYOUT = Layout(message=pattern(rf"{TIME}\t(?:(?P<sender>[^\t]*)\t)?(?P<text>.*)"), days=_DAYS)
# The old space-separated layout's message line (see the module's notes).
_SPACED = pattern(rf"{TIME} \S")

_TITLES = (
    (pattern(r'(?:\[LINE\] )?Chat history with "?(?P<name>.+?)"?'), "direct"),
    (pattern(r'(?:\[LINE\] )?Chat history in "?(?P<name>.+?)"?'), "group"),
    (pattern(r"\[LINE\] (?P<name>.+?)とのトーク履歴"), "direct"),
    (pattern(r"\[LINE\] (?P<name>.+?)のトーク履歴"), "group"),
    (pattern(r"\[LINE\] [與与](?P<name>.+?)的聊天[記记][錄录]"), "direct"),
    (pattern(r"\[LINE\] (?P<name>.+?)的聊天[記记][錄录]"), "group"),
    (pattern(r"\[LINE\] (?P<name>.+?)님과의 대화"), "direct"),
    (pattern(r"\[LINE\] (?P<name>.+?)(?:의)? 대화"), "group"),
    (pattern(r"\[LINE\] ประวัติการ(?:สนทนา|แชท)กับ ?(?P<name>.+)"), "direct"),
    (pattern(r"\[LINE\] ประวัติการ(?:สนทนา|แชท)ใน ?(?P<name>.+)"), "group"),
    (pattern(r"\[LINE\] (?P<name>.+)"), "chat"),  # a UI language not listed
)
_SAVED = pattern(r"(?:Saved on|保存日時|保存日期|儲存日期|저장한 날짜|저장 일시|บันทึกเมื่อ|บันทึกวันที่)\s?[:：]")

_MEDIA = (
    "[Photo]",
    "[Sticker]",
    "[Video]",
    "[Voice message]",
    "[Album]",
    "[Contact]",
    "[写真]",
    "[スタンプ]",
    "[動画]",
    "[ボイスメッセージ]",
    "[アルバム]",
    "[連絡先]",
    "[照片]",
    "[貼圖]",
    "[影片]",
    "[語音訊息]",
    "[相簿]",
    "[聯絡資訊]",
    "[图片]",
    "[贴图]",
    "[视频]",
    "[语音信息]",
    "[联系人]",
    "[사진]",
    "[스티커]",
    "[이모티콘]",
    "[동영상]",
    "[음성메시지]",
    "[연락처]",
    "[รูป]",
    "[สติกเกอร์]",
    "[วิดีโอ]",
    "[ข้อความเสียง]",
)
_FILES = ("[File]", "[ファイル]", "[檔案]", "[文件]", "[파일]", "[ไฟล์]")
_LOCATIONS = ("[Location]", "[位置情報]", "[位置]", "[위치정보]", "[ตำแหน่งที่ตั้ง]")
_KINDS = (
    dict.fromkeys(_MEDIA, Kind.MEDIA)
    | dict.fromkeys(_FILES, Kind.ATTACHMENT)
    | dict.fromkeys(_LOCATIONS, Kind.LOCATION)
)
_KIND_PATTERNS = (
    (pattern("☎"), Kind.SYSTEM),  # calls: "☎ Call time 1:16", "☎ Missed call", "☎ 通話時間 0:42"
    (pattern(r"(?:\[File\]|\[ファイル\]|\[檔案\]|\[文件\]|\[파일\]) "), Kind.ATTACHMENT),
    (pattern(r"(?:\[Location\]|\[位置情報\]|\[位置\]|\[위치정보\]) "), Kind.LOCATION),
    (
        pattern(r"(?:Message unsent\.|メッセージの送信を取り消しました|已收回訊息|撤回了一条消息)$"),
        Kind.DELETED,
    ),
)

GRAMMAR = Grammar(
    what="a LINE chat export",
    example="21:30\tName\ttext",
    layouts=(_LAYOUT,),
    titles=_TITLES,
    saved=_SAVED,
    kinds=_KINDS,
    kind_patterns=_KIND_PATTERNS,
    quoted=True,
)


def sniff(path: Path) -> bool:
    try:
        return container.is_file(path) and linelog.sniff_lines(
            GRAMMAR, linelog.head_lines(linelog.file_head(path)), path.suffix.lower()
        )
    except Exception:  # sniffing looks at foreign files of any shape; none of them may stop detection
        return False


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """One chat per file; the messages are read as they are consumed."""

    def chat(head: Head) -> Chat:
        name = head.title or _name_from_file(path.name)
        return Chat(source=FORMAT, key=name, name=name, kind=head.kind)

    _refuse_spaced(path)
    yield linelog.read_file_log(GRAMMAR, path, tz, chat, after)


def _refuse_spaced(path: Path) -> None:
    """An InputError when the file's first message line is in the old space-separated layout."""
    for number, line in enumerate(linelog.head_lines(linelog.file_head(path)), 1):
        line = line.lstrip(linelog.MARKS)
        if _LAYOUT.message.match(line):
            return
        if _SPACED.match(line) and "\t" not in line:
            raise InputError(
                path,
                "LINE's old space-separated layout ('21:30 Name text') is not read: a name with a space "
                "cannot be told from the text; export the chat again from a current LINE app",
                f"line {number}",
            )


def _name_from_file(file_name: str) -> str:
    """LINE names the file ``[LINE] NAME.txt`` (localised titles inside)."""
    stem = container.unmarked(
        file_name.rsplit(".", 1)[0] if file_name.lower().endswith(".txt") else file_name
    )
    return stem.removeprefix("[LINE]").strip() or stem
