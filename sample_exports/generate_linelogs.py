"""Writes the line-log sample exports from the conversation scripts below:

- ``[LINE] Chat with Yuki.txt``: LINE's "Export chat history" in the app's English UI (BOM, title, "Saved on",
  day lines, tab-separated messages, a quoted multi-line message, placeholders, a call, an unsent message).
  Yuki joined Kletterkiez on 21 April and climbs with Maya; she goes home to Japan in August;
- ``KakaoTalk_Chat_Minji Park.txt``: KakaoTalk's export from an Android phone in Korean (Maya set the app's
  language to Korean to practise): Minji Park, who moved into Schliemannstraße 21 from Seoul, is Maya's
  neighbour. ``회원님`` is Maya, as KakaoTalk writes the exporting person;
- ``Lena Hoffmann/chat.md``: signal-export's Markdown for Maya's Signal chat with Lena, who took over the old
  flat on Weserstraße (a quote, a reaction, an attachment, a sticker);
- ``KakaoTalk_Chat_Jiwoo.csv``: KakaoTalk's macOS app export (``Date,User,Message``) of Maya's chat with Jiwoo,
  Minji's sister, who visits Berlin in October (a text over two lines, quotes inside a text, a photo);
- ``Noah Weber.txt``: sigtop's text export from Signal Desktop: Maya and Noah from Kletterkiez on the
  housewarming (a reply quoting a message, a reaction, an attachment, an edited message).

Run from anywhere: ``python sample_exports/generate_linelogs.py [OUT_DIR]``. Output is deterministic: the
seconds of Signal's stamps come from a hash of the message.

Script syntax (one message per line), as in generate.py:

    # 2026-04-22                   a day; the times below are Europe/Berlin wall clock
    21:14 yuki text                time, sender, then the text ("-" as sender: a system line)
        more text                  a line indented by 4 spaces continues the message above ("~": an empty line)
"""

from __future__ import annotations

import calendar
import hashlib
import sys
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent

LINE_FILE = "[LINE] Chat with Yuki.txt"
KAKAO_FILE = "KakaoTalk_Chat_Minji Park.txt"
SIGNAL_FOLDER = "Lena Hoffmann"
KAKAO_CSV_FILE = "KakaoTalk_Chat_Jiwoo.csv"
SIGTOP_FILE = "Noah Weber.txt"


@dataclass(frozen=True)
class Said:
    day: date
    time: str  # HH:MM
    who: str  # a name of NAMES, or "-" for a system line
    lines: tuple[str, ...]


def parse(script: str) -> list[Said]:
    messages: list[Said] = []
    day = date.min
    for raw in script.strip("\n").splitlines():
        if raw.startswith("# "):
            day = date.fromisoformat(raw[2:])
        elif raw.startswith("    "):
            last = messages[-1]
            extra = "" if raw.strip() == "~" else raw[4:]
            messages[-1] = Said(last.day, last.time, last.who, (*last.lines, extra))
        else:
            time, who, *text = raw.split(" ", 2)
            messages.append(Said(day, time, who, (text[0] if text else "",)))
    return messages


LINE_NAMES = {"maya": "Maya", "yuki": "Yuki"}
LINE_SCRIPT = """
# 2026-04-22
21:14 yuki Hi Maya! It's Yuki from Kletterkiez 🙂 Noah said you have LINE?
21:20 maya yes!! I installed it for my cousin in Osaka and never used it since
21:21 yuki [Sticker]
21:23 yuki Are you coming on Thursday? I want to try the new purple problems at Berta Block
21:30 maya I'll be there at 19:00
# 2026-04-23
22:41 yuki [Photo]
22:42 yuki the purple one that beat us both
22:43 maya "next week. next week it goes down
    (my fingers say no)"
# 2026-05-12
18:10 yuki Lea says you move on 30 May? I'm at a conference in Munich that weekend, sorry!
18:12 maya no worries! Erik has a van and Jonas has muscles
18:13 yuki ☎ Call time 4:12
# 2026-06-04
20:02 yuki How is the new flat? Is Schliemannstraße really 10 minutes from Berta Block?
20:05 maya 9 minutes on foot, I timed it 😄
20:06 maya [Photo]
# 2026-07-20
09:15 maya ☎ Missed call
09:40 yuki sorry, was on the train! Did Bloc Lisboa have slab?
09:42 maya so much slab. you would have hated it
# 2026-08-03
19:30 yuki I fly home to Fukuoka on Friday for three weeks. Any wishes? Matcha KitKats?
19:31 - Yuki unsent a message.
19:33 maya matcha kitkats and a photo of the sea please
# 2026-08-24
21:05 yuki [Photo]
21:06 yuki Nokonoshima, as promised 🌊
# 2026-09-03
20:10 maya Housewarming on Saturday 3 October, from 18:00, Schliemannstraße 21, 4th floor. Bring climbers!
20:11 yuki I'll bring the kitkats 🍫
"""

KAKAO_NAMES = {"maya": "회원님", "minji": "Minji Park"}
KAKAO_SCRIPT = """
# 2026-05-16
10:02 minji Hi! I'm Minji from the 3rd floor, left door. Welcome to Schliemannstraße 21!
10:05 maya Hi Minji, thank you! Sorry about the noise yesterday, the sofa did not want to go up the stairs
10:06 minji haha I saw. It won in the end?
10:07 maya We won. Barely.
10:07 minji (이모티콘)
# 2026-06-09
13:20 minji A parcel came for you from Worten? No wait, from Ikea. It's at my door
13:45 maya Thank you!! I'll pick it up after work, around 19:00
13:46 minji 사진
# 2026-07-11
17:02 minji Is it you who waters the plants on the courtyard? They look sad
17:30 maya Not me, I'm in Lisbon this week
    the sad ones belong to the 2nd floor I think
17:31 minji 삭제된 메시지입니다.
# 2026-09-05
11:00 maya Housewarming on Saturday 3 October, from 18:00! You are very welcome (the sofa will be there)
11:04 minji I'll come! I can make kimbap
11:05 maya yes please 🙏
# 2026-10-04
00:40 minji Thank you for yesterday 😊 your climbing friends are very loud
00:42 maya sorry!! 😅
"""

SIGNAL_NAMES = {"maya": "Me", "lena": "Lena Hoffmann"}
SIGNAL_SCRIPT = """
# 2026-06-12
16:45 lena Hi Maya, it's Lena. Switched to Signal, Messenger keeps losing my messages
16:47 maya Hi Lena! Good choice. All good with the flat?
16:50 lena The kitchen tap still drips 😂
    (- Me: 😂 -)
# 2026-08-20
09:12 maya My deposit came back today, minus 80 € for the hole in the wall behind the wardrobe
09:30 lena
    ~
    > minus 80 € for the hole in the wall behind the wardrobe
    ~
    Herr Yilmaz found that hole in 5 minutes, I swear he has a list
09:31 maya [deposit-statement.pdf](./media/deposit-statement.pdf)
# 2026-09-28
18:02 maya Housewarming on Saturday 3 October, 18:00, Schliemannstraße 21. Come and see the wall without holes
18:05 lena
    (( 🎉 ))
"""


def line_export(messages: list[Said]) -> str:
    out = ["\ufeff[LINE] Chat history with Yuki", "Saved on: 10/4/2026, 21:31", ""]
    day = None
    for m in messages:
        if m.day != day:
            if day is not None:
                out.append("")
            out.append(f"{calendar.day_abbr[m.day.weekday()]}, {m.day.month}/{m.day.day}/{m.day.year}")
            day = m.day
        text = "\n".join(m.lines)
        if m.who == "-":
            out.append(f"{m.time}\t{text}")
        else:
            out.append(f"{m.time}\t{LINE_NAMES[m.who]}\t{text}")
    return "\r\n".join(out) + "\r\n"


def _korean(when: datetime) -> str:
    half = "오전" if when.hour < 12 else "오후"
    return f"{when.year}년 {when.month}월 {when.day}일 {half} {(when.hour % 12) or 12}:{when.minute:02d}"


def kakao_export(messages: list[Said]) -> str:
    weekdays = "월화수목금토일"
    out = ["Minji Park 님과 카카오톡 대화", f"저장한 날짜 : {_korean(datetime(2026, 10, 4, 21, 31))}", ""]
    day = None
    for m in messages:
        if m.day != day:
            out.append(f"{m.day.year}년 {m.day.month}월 {m.day.day}일 {weekdays[m.day.weekday()]}요일")
            day = m.day
        when = datetime.combine(m.day, datetime.strptime(m.time, "%H:%M").time())
        out.append(f"{_korean(when)}, {KAKAO_NAMES[m.who]} : " + "\n".join(m.lines))
    return "\n".join(out) + "\n"


def _second(m: Said) -> int:
    """The seconds of a stamp that has them: from a hash of the message, so that output is deterministic."""
    return hashlib.sha256(f"{m.day}{m.time}{m.lines}".encode()).digest()[0] % 60


def signal_export(messages: list[Said]) -> str:
    """As signal-export writes a message: the text and Markdown's two line-break spaces, then attachment links
    (each with the same two spaces), then reactions and stickers on lines of their own."""
    out = []
    for m in messages:
        second = _second(m)
        text = [line for line in m.lines if not line.startswith(("(- ", "(( "))]
        after = "".join(f"\n{line}" for line in m.lines if line.startswith(("(- ", "(( ")))
        body = f"  {text[0]}  " if "](./media/" in text[0] else "\n".join(text) + "  "
        out.append(f"[{m.day} {m.time}:{second:02d}] {SIGNAL_NAMES[m.who]}: {body}{after}")
    return "\n".join(out) + "\n"


KAKAO_CSV_NAMES = {"maya": "Maya", "jiwoo": "지우"}
KAKAO_CSV_SCRIPT = """
# 2026-10-01
19:02 jiwoo 마야 씨! 언니가 번호 줬어요. 다음 주에 베를린 가요
19:05 maya 와 환영해요! Saturday is our housewarming, come with Minji
19:06 jiwoo 좋아요 "집들이" 맞죠?
    뭐 가져갈까요?
19:08 maya just yourselves :) 18:00, Schliemannstraße 21
# 2026-10-03
17:40 jiwoo 사진
17:41 jiwoo 케이크 샀어요
"""


def kakao_csv_export(messages: list[Said]) -> str:
    """As the macOS app writes it: the stamp with seconds (a hash of the message), the name and the text
    quoted, a quote inside doubled."""
    out = ["Date,User,Message"]
    for m in messages:
        text = "\n".join(m.lines).replace('"', '""')
        out.append(f'{m.day} {m.time}:{_second(m):02d},"{KAKAO_CSV_NAMES[m.who]}","{text}"')
    return "\n".join(out) + "\n"


SIGTOP_SCRIPT = """
# 2026-10-02
20:11 noah Is the housewarming still on for Saturday? Jonas asks if he can bring the slackline
20:15 maya yes! 18:00. Slackline only if the park is dry
20:16 noah 👍
# 2026-10-03
16:30 noah [IMG_0412.jpg]
16:31 maya we're out of chairs 😅 can you bring two? {edited: can you bring three?}
"""


def _rfc2822(day: date, time: str, second: int) -> str:
    when = datetime.combine(day, datetime.strptime(time, "%H:%M").time()).replace(second=second)
    offset = "+0200"  # Europe/Berlin in summer time, as sigtop writes the stamp in the machine's zone
    return f"{calendar.day_abbr[when.weekday()]}, {when.day} {calendar.month_abbr[when.month]} {when.year} {when:%H:%M:%S} {offset}"


def sigtop_export(messages: list[Said]) -> str:
    """As sigtop's ``fmt_text.go`` writes a conversation: fields, a blank line, the body, a blank line. The
    second message quotes the first, Maya reacts to the first, the photo is an attachment, the last is
    edited (``{edited: …}`` in the script is its newer version)."""
    noah = "Noah Weber (+4915209876543)"
    out = [f"Conversation: {noah}", ""]
    for i, m in enumerate(messages):
        sent = _rfc2822(m.day, m.time, _second(m))
        text = "\n".join(m.lines)
        if m.who == "maya":
            out += ["From: You", "Type: outgoing", f"Sent: {sent}"]
        else:
            out += [
                f"From: {noah}",
                "Type: incoming",
                f"Sent: {sent}",
                f"Received: {_rfc2822(m.day, m.time, 59)}",
            ]
        if text.startswith("[") and text.endswith("]"):
            out += [f"Attachment: {text[1:-1]} (image/jpeg, 241877 bytes)", ""]
            continue
        if i == 0:
            out.append("Reaction: ❤️ from You")
        if "{edited: " in text:
            old, new = text.rstrip("}").split(" {edited: ")
            newer = old.rsplit(" ", 4)[0] + " " + new
            out += ["Edited: 2 versions", "", "| Version: 2", f"| Sent: {_rfc2822(m.day, m.time, 58)}", "|"]
            out += [f"| {newer}", "|", "| Version: 1", f"| Sent: {sent}", "|", f"| {old}", ""]
            continue
        if i == 1:
            first = messages[0]
            out += ["", f"> From: {noah}", f"> Sent: {_rfc2822(first.day, first.time, _second(first))}", ">"]
            out += [f"> {first.lines[0]}"]
        out += ["", text, ""]
    return "\n".join(out) + "\n"


def main(out: Path = HERE) -> None:
    (out / LINE_FILE).write_bytes(line_export(parse(LINE_SCRIPT)).encode("utf-8"))
    (out / KAKAO_FILE).write_bytes(kakao_export(parse(KAKAO_SCRIPT)).encode("utf-8"))
    (out / SIGNAL_FOLDER).mkdir(exist_ok=True)
    (out / SIGNAL_FOLDER / "chat.md").write_bytes(signal_export(parse(SIGNAL_SCRIPT)).encode("utf-8"))
    (out / KAKAO_CSV_FILE).write_bytes(kakao_csv_export(parse(KAKAO_CSV_SCRIPT)).encode("utf-8"))
    (out / SIGTOP_FILE).write_bytes(sigtop_export(parse(SIGTOP_SCRIPT)).encode("utf-8"))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
