"""KakaoTalk "Export messages" text files: the phone apps (Android, iOS) in English and Korean, and the PC
(Windows) app.

The layouts (FORMATS.md §4c), each a ``Layout`` of linelog's:

- Android English: ``May 28, 2018, 9:46 AM, Name : text``; the 2014 app put the time first,
  ``9:46AM, February 20, 2014, Name : text``;
- Android Korean: ``2013년 2월 28일 오후 11:17, Name : text``;
- iOS Korean: ``2014. 2. 6. 오전 10:25, Name : text``;
- PC: ``--------------- 2018년 3월 3일 토요일 ---------------`` day lines, ``[Name] [오후 8:54] text``, and
  joins and leaves on lines of their own without a time.

A stamp without ``, Name : `` is a system line (joins, leaves, invitations); a stamp alone, or a date alone,
is a day line. ``회원님`` ("member") is the exporting person.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from datetime import tzinfo
from pathlib import Path

from refind_cli.errors import InputError
from refind_cli.importers import container, linelog
from refind_cli.importers.linelog import TIME, Grammar, Head, Layout, pattern
from refind_cli.records import Chat, ChatExport, Kind, Mark

FORMAT = "kakaotalk"

_SENDER = r"(?:(?P<sender>[^\n]+?) : )?(?P<text>.*)"
# A name in a join, leave or invitation line, and a list of names: bounded, so that a long line of text that
# repeats "님이 " is not tried at every split (two unbounded runs backtrack quadratically).
_NAME = r".{1,80}?"
_NAMES = r".{1,800}?"
_KO_DATE = r"(?P<y>\d{4})년 (?P<mo>\d{1,2})월 (?P<d>\d{1,2})일"
_IOS_DATE = r"(?P<y>\d{4})\. (?P<mo>\d{1,2})\. (?P<d>\d{1,2})\."
_EN_DATE = r"(?P<mon>[A-Z][a-z]+) (?P<d>\d{1,2}), (?P<y>\d{4})"
_EN_WEEKDAY = r"(?:(?P<dow>[A-Z][a-z]+), )?"
_KO_WEEKDAY = r"(?: (?P<dow>[월화수목금토일]요일))?"
_STAMP_ALONE = rf"(?:,? {TIME})?"  # a day line may carry the time of its first message

_LAYOUTS = (
    Layout(
        message=pattern(rf"{_EN_DATE}, {TIME}, {_SENDER}"),
        days=(pattern(rf"{_EN_WEEKDAY}{_EN_DATE}{_STAMP_ALONE}"),),
    ),
    Layout(
        message=pattern(rf"{TIME}, {_EN_DATE}, {_SENDER}"),
        days=(pattern(rf"{_EN_WEEKDAY}{_EN_DATE}"), pattern(rf"{TIME}, {_EN_DATE}")),
    ),
    Layout(
        message=pattern(rf"{_KO_DATE} {TIME}, {_SENDER}"),
        days=(pattern(rf"{_KO_DATE}{_KO_WEEKDAY}"), pattern(rf"{_KO_DATE} {TIME}")),
    ),
    Layout(
        message=pattern(rf"{_IOS_DATE} {TIME}, {_SENDER}"),
        days=(pattern(rf"{_IOS_DATE}{_KO_WEEKDAY}"), pattern(rf"{_IOS_DATE} {TIME}")),
    ),
    Layout(
        message=pattern(rf"\[(?P<sender>[^\]]*)\] \[{TIME}\] (?P<text>.*)"),
        days=(
            pattern(rf"-{{5,}} {_KO_DATE}{_KO_WEEKDAY} -{{5,}}"),
            pattern(rf"-{{5,}} {_EN_WEEKDAY}{_EN_DATE} -{{5,}}"),
        ),
        system=pattern(
            rf"{_NAME}님이 들어왔습니다\.|{_NAME}님이 나갔습니다\.|{_NAME}님이 {_NAMES}님을 초대했습니다\."
            rf"|{_NAME}님을 내보냈습니다\.|{_NAME} joined this chatroom\.|{_NAME} left this chatroom\."
            rf"|{_NAME} invited {_NAMES}\.|운영정책을 위반한 메시지로 신고 접수 시 .+"
        ),
    ),
)

_TITLES = (
    (pattern(r"KakaoTalk Chats with (?P<name>.+)"), "direct"),
    (pattern(r"KakaoTalk Chats (?P<name>.+?) \(\d+\)"), "group"),
    (pattern(r"(?P<name>.+?) \d+ 님과 카카오톡 대화"), "group"),
    (pattern(r"(?P<name>.+?) 님과 카카오톡 대화"), "direct"),
    (pattern(r"(?P<name>.+?) (?:카카오톡 대화|with KakaoTalk Chats)"), "chat"),
)
_SAVED = pattern(r"(?:Date Saved|저장한 날짜|Saved Date) ?:")

_KINDS = {
    "사진": Kind.MEDIA,
    "Photo": Kind.MEDIA,
    "<Photo>": Kind.MEDIA,
    "이모티콘": Kind.MEDIA,
    "(이모티콘)": Kind.MEDIA,
    "Emoticons": Kind.MEDIA,
    "(emoticon)": Kind.MEDIA,
    "동영상": Kind.MEDIA,
    "Video": Kind.MEDIA,
    "<Video>": Kind.MEDIA,
    "음성메시지": Kind.MEDIA,
    "Voice Note": Kind.MEDIA,
    "삭제된 메시지입니다.": Kind.DELETED,
    "This message has been deleted.": Kind.DELETED,
}
_KIND_PATTERNS = (
    (pattern(r"사진 \d+장$|Photos? \d+$|\d+ photos$"), Kind.MEDIA),
    (pattern(r"파일: |File: "), Kind.ATTACHMENT),
    (pattern(r"(?:보이스톡|페이스톡|Voice Call|Face Talk|Voice Talk)\b"), Kind.SYSTEM),
    (pattern(rf"{_NAME}님이 {_NAMES}님을 초대했습니다\.$|{_NAME} invited {_NAMES}\.$"), Kind.SYSTEM),
)

GRAMMAR = Grammar(
    what="a KakaoTalk chat export",
    example="May 28, 2018, 9:46 AM, Name : text",
    layouts=_LAYOUTS,
    titles=_TITLES,
    saved=_SAVED,
    kinds=_KINDS,
    kind_patterns=_KIND_PATTERNS,
    own=frozenset({"회원님"}),
)


def sniff(path: Path) -> bool:
    try:
        if not path.is_file():
            return False
        if not _is_zip(path):
            return linelog.sniff_lines(GRAMMAR, linelog.head_lines(linelog.file_head(path)), "")
        with container.open_zip(path) as zf:
            member = _chat_member(container.member_names(zf))
            if member is None:
                return False
            with contextlib.closing(container.iter_member_chunks(zf, member, path)) as chunks:
                lines = list(itertools.islice(linelog.iter_lines(chunks, path), linelog.SNIFF_LINES * 4))
        return linelog.sniff_lines(GRAMMAR, lines, "")
    except Exception:  # sniffing looks at foreign files of any shape; none of them may stop detection
        return False


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """One chat per file (or per zip, whose text file is the chat); read as consumed."""

    def chat(head: Head) -> Chat:
        name = head.title or path.name.rsplit(".", 1)[0]
        return Chat(source=FORMAT, key=name, name=name, kind=head.kind)

    if not _is_zip(path):
        yield linelog.read_file_log(GRAMMAR, path, tz, chat, after)
        return
    with container.open_zip(path) as zf:
        member = _chat_member(container.member_names(zf))
        if member is None:
            raise InputError(path, "contains no KakaoTalk chat (.txt) file")
        yield linelog.read_member_log(GRAMMAR, zf, member, path, tz, chat, after)


def _is_zip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(4) == b"PK\x03\x04"


def _chat_member(names: list[str]) -> str | None:
    """The mobile apps zip the chat's text file with its photos; the shortest .txt name is the chat."""
    texts = [n for n in names if n.lower().endswith(".txt")]
    return min(texts, key=lambda n: (len(n), n)) if texts else None
