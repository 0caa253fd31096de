"""Writes the phone and messenger sample exports (issue 22) from the conversation scripts below:

- ``sms-20261004213000.xml``: SMS Backup & Restore's backup of Maya's Android phone: Mum, a parcel service,
  a bank code from an unknown number, the housewarming group MMS with Jonas, Aylin and Erik (a photo from
  Erik), a draft and a failed text; emoji written as the app writes them, as pairs of surrogate references;
- ``Priya Nair.txt``: imessage-exporter's TXT of Maya's iMessage chat with Priya on her MacBook (tapbacks, a
  reply with its indented copy, an attachment, a read receipt, an announcement);
- ``Lars Lindqvist.html``: imessage-exporter's HTML of her iMessage chat with Dad (his tomatoes);
- ``skype-8_live_maya.lindqvist_export/messages.json``: Skype's export: calls and messages with Farmor
  (Britt Lindqvist, in Swedish) and the family group (Erik's birthday);
- ``teams-export/``: the Teams privacy export of a partner project: a channel with a thread, an edit, a
  deleted reply and a system message, and a chat with Tobias.

Run from anywhere: ``python sample_exports/generate_phone.py [OUT_DIR]``. Output is deterministic.

Script syntax (one message per line), as in the other generators:

    # 2026-06-21                    a day; the times below are Europe/Berlin wall clock
    19:48 mum {flags} text          time, sender, optional {flags}, then the text ("-" for none)
        more text                   a line indented by 4 spaces continues the message above

Flags (``;``-separated): ``file=NAME`` attaches a file, ``draft``, ``failed``, ``call=SECONDS`` (a call),
``tapback=KIND:who``, ``reply`` (a reply to the message above), ``edited``, ``deleted``, ``system``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from html import escape
from pathlib import Path
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
BERLIN = ZoneInfo("Europe/Berlin")
SMS_FILE = "sms-20261004213000.xml"
IMESSAGE_TXT = "Priya Nair.txt"
IMESSAGE_HTML = "Lars Lindqvist.html"
SKYPE_DIR = "skype-8_live_maya.lindqvist_export"
TEAMS_DIR = "teams-export"


@dataclass
class Line:
    when: datetime  # aware, Europe/Berlin
    who: str
    text: str
    flags: dict[str, str] = field(default_factory=dict)


def parse(script: str) -> list[Line]:
    lines: list[Line] = []
    day = date(2026, 1, 1)
    for raw in script.strip("\n").split("\n"):
        if raw.startswith("# "):
            day = date.fromisoformat(raw[2:])
        elif raw.startswith("    "):
            lines[-1].text += "\n" + raw[4:]
        elif raw.strip():
            clock, who, rest = raw.split(" ", 2)
            flags: dict[str, str] = {}
            if rest.startswith("{"):
                spec, rest = rest[1:].split("} ", 1)
                for flag in spec.split(";"):
                    key, _, value = flag.partition("=")
                    flags[key] = value
            hour, minute = map(int, clock.split(":"))
            when = datetime.combine(day, time(hour, minute), BERLIN)
            # Seconds from a hash of the line: real clocks do not land on whole minutes.
            seconds = int(hashlib.sha256(raw.encode()).hexdigest(), 16) % 60
            lines.append(Line(when.replace(second=seconds), who, "" if rest == "-" else rest, flags))
    return lines


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def _iso(when: datetime) -> str:
    """UTC with milliseconds and a Z, as Skype and Teams write it."""
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- SMS Backup & Restore -------------------------------------------------------------------------------

# short name -> (address as the phone wrote it, contact name)
SMS_PEOPLE = {
    "mum": ("+49 170 5550101", "Mum"),
    "jonas": ("+4915123456789", "Jonas Becker"),
    "aylin": ("+4917611112222", "Aylin Demir"),
    "erik": ("+4916099990000", "Erik Lindqvist"),
    "parcel": ("PaketDienst", "null"),
    "bank": ("+4930 88880000", "(Unknown)"),
}
# thread -> script; a thread of several people is an MMS group
SMS_THREADS = {
    ("mum",): """
# 2026-03-08
18:02 mum Sunday dinner at 6? Dad is making köttbullar 🍝
18:10 me Yes! I'll bring dessert 🍰
# 2026-06-20
09:15 me Happy almost-60th! See you tomorrow at 12
09:31 mum Thank you darling ❤️ Don't bring anything
    just yourself
# 2026-09-28
21:40 me {draft} Can I borrow the big pot on Saturday?
""",
    ("parcel",): """
# 2026-05-27
07:58 parcel Ihre Sendung 00340434161234567890 wird heute zwischen 10:00 und 14:00 zugestellt.
""",
    ("bank",): """
# 2026-08-20
10:05 bank Your code is 481516. Never share it.
10:06 me {failed} wrong number?
""",
    ("jonas", "aylin", "erik"): """
# 2026-09-24
19:12 me Housewarming on Saturday 3 October from 19:00 🎉 bring nothing but yourselves
19:20 aylin I'm in!! 🥳
19:22 jonas Coming down from Hamburg for it
19:45 erik {file=IMG_20260924_194400.jpg} I'll bring the new bike to show off
""",
}
SMS_BASE64 = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwg/9k="


def _xml_text(text: str) -> str:
    """An attribute value as the app writes it: markup characters and line breaks as references, characters
    beyond the Basic Multilingual Plane as two references to their UTF-16 surrogates."""
    out = []
    for ch in text:
        if ch in "&<>\"'\n":
            out.append(f"&#{ord(ch)};" if ch in "\n'" else escape(ch))
        elif ord(ch) > 0xFFFF:
            units = ch.encode("utf-16-be")
            out.append(f"&#{int.from_bytes(units[:2], 'big')};&#{int.from_bytes(units[2:], 'big')};")
        else:
            out.append(ch)
    return "".join(out)


def _readable(when: datetime) -> str:
    return f"{when:%b} {when.day}, {when.year} {when:%H:%M:%S}"


def sms_backup() -> str:
    rows: list[tuple[int, str]] = []
    for people, script in SMS_THREADS.items():
        addresses = [SMS_PEOPLE[p][0] for p in people]
        names = ", ".join(SMS_PEOPLE[p][1] for p in people)
        for line in parse(script):
            ms = _ms(line.when)
            own = line.who == "me"
            body = _xml_text(line.text)
            if len(people) == 1:
                kind = (
                    "3" if "draft" in line.flags else "5" if "failed" in line.flags else "2" if own else "1"
                )
                rows.append(
                    (
                        ms,
                        f'  <sms protocol="0" address="{escape(addresses[0])}" date="{ms}" type="{kind}" '
                        f'subject="null" body="{body}" toa="null" sc_toa="null" service_center="null" '
                        f'read="1" status="-1" locked="0" date_sent="{0 if own else ms - 1000}" sub_id="1" '
                        f'readable_date="{_readable(line.when)}" contact_name="{escape(names)}" />',
                    )
                )
                continue
            sender = "insert-address-token" if own else SMS_PEOPLE[line.who][0]
            addrs = [f'      <addr address="{sender}" type="137" charset="106" />']
            addrs += [
                f'      <addr address="{a}" type="151" charset="106" />' for a in addresses if a != sender
            ]
            parts = [
                '      <part seq="-1" ct="application/smil" name="null" chset="null" cd="null" fn="null" '
                'cid="&lt;smil&gt;" cl="smil.xml" ctt_s="null" ctt_t="null" text="&lt;smil&gt;&lt;body&gt;'
                '&lt;par dur=&quot;5000ms&quot;&gt;&lt;/par&gt;&lt;/body&gt;&lt;/smil&gt;" />'
            ]
            if "file" in line.flags:
                name = line.flags["file"]
                parts.append(
                    f'      <part seq="0" ct="image/jpeg" name="{name}" chset="null" cd="null" fn="null" '
                    f'cid="&lt;{name}&gt;" cl="{name}" ctt_s="null" ctt_t="null" text="null" '
                    f'data="{SMS_BASE64}" />'
                )
            parts.append(
                f'      <part seq="0" ct="text/plain" name="null" chset="106" cd="null" fn="null" '
                f'cid="&lt;text_0&gt;" cl="text_0.txt" ctt_s="null" ctt_t="null" text="{body}" />'
            )
            rows.append(
                (
                    ms,
                    f'  <mms date="{ms}" rr="129" sub="null" ct_t="application/vnd.wap.multipart.related" '
                    f'read_status="null" seen="1" msg_box="{2 if own else 1}" address="{"~".join(addresses)}" '
                    f'm_type="{128 if own else 132}" date_sent="{ms // 1000}" read="1" text_only="0" '
                    f'readable_date="{_readable(line.when)}" contact_name="{escape(names)}">\n'
                    "    <parts>\n" + "\n".join(parts) + "\n    </parts>\n"
                    "    <addrs>\n" + "\n".join(addrs) + "\n    </addrs>\n  </mms>",
                )
            )
    # The app writes every SMS, then every MMS, each newest first.
    sms = sorted((r for r in rows if r[1].startswith("  <sms")), reverse=True)
    mms = sorted((r for r in rows if r[1].startswith("  <mms")), reverse=True)
    backup = datetime(2026, 10, 4, 21, 30, tzinfo=BERLIN)
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
        f"<!--File Created By SMS Backup & Restore v10.23.004 on {backup:%d/%m/%Y %H:%M:%S}-->\n"
        '<?xml-stylesheet type="text/xsl" href="sms.xsl"?>\n'
        f'<smses count="{len(rows)}" backup_set="8c0f5a3e-6b1d-4e2a-9f7c-2d4b6a8e0c13" '
        f'backup_date="{_ms(backup)}" type="full">\n' + "\n".join(r for _, r in sms + mms) + "\n</smses>\n"
    )


# --- iMessage (imessage-exporter) ----------------------------------------------------------------------

PRIYA = """
# 2026-06-09
12:41 priya The cake is in the office fridge, top shelf 🎂 don't tell anyone
12:43 me {tapback=Loved:Priya Nair} You are the best
12:50 priya {reply} Cut it at 3, everybody will be back from the standup
12:51 priya {file=/Users/maya/Library/Messages/Attachments/7b/11/IMG_3310.HEIC} -
# 2026-06-10
09:02 me Thank you again for yesterday!
    Everybody loved the cardamom buns
09:05 priya {system} Priya Nair named the conversation Cake club
"""
DAD = """
# 2026-08-16
19:20 dad The tomatoes are finally red 🍅 eleven today
19:22 me {file=attachments/a4/IMG_5521.jpeg} -
19:23 me Photo proof or it didn't happen
19:30 dad Come on Sunday and take a bag home
"""
IMESSAGE_NAMES = {"priya": "Priya Nair", "dad": "+4917155507070", "me": "Me"}


def _stamp(when: datetime) -> str:
    hour = when.hour % 12 or 12
    return f"{when:%b %d, %Y} {hour:>2}:{when:%M:%S} {'AM' if when.hour < 12 else 'PM'}"


def imessage_txt() -> str:
    blocks: list[str] = []
    lines = parse(PRIYA)
    for i, line in enumerate(lines):
        stamp = _stamp(line.when)
        if "system" in line.flags:
            blocks.append(f"{stamp} {line.text}\n")
            continue
        if line.who != "me":
            stamp += " (Read by you after 2 minutes, 4 seconds)"
        body = [stamp, IMESSAGE_NAMES[line.who]]
        body += [line.flags["file"]] if "file" in line.flags else []
        body += line.text.split("\n") if line.text else []
        if "tapback" in line.flags:
            kind, who = line.flags["tapback"].split(":")
            body += ["Tapbacks:", f"{kind} by {who}"]
        if i + 1 < len(lines) and "reply" in lines[i + 1].flags:
            reply = lines[i + 1]
            copy = [_stamp(reply.when), IMESSAGE_NAMES[reply.who], *reply.text.split("\n")]
            body += ["    " + c for c in copy]
        if "reply" in line.flags:
            body.append("This message responded to an earlier message.")
        blocks.append("\n".join(body) + "\n")
    return "\n".join(blocks) + "\n"


def imessage_html() -> str:
    out = ['<html>\n<meta charset="UTF-8">\n\n<link rel="stylesheet" type="text/css" href="style.css">\n']
    for line in parse(DAD):
        own = line.who == "me"
        part = (
            f'<img src="{escape(line.flags["file"])}" loading="lazy">'
            if "file" in line.flags
            else f'<span class="bubble">{escape(line.text)}</span>'
        )
        out.append(
            '<div class="message">\n'
            f'    <div class="{"sent iMessage" if own else "received"}">\n'
            f'        <p><span class="timestamp">{_stamp(line.when)}</span>\n'
            f'            <span class="sender">{IMESSAGE_NAMES[line.who]}</span>\n'
            "        </p>\n        <hr>\n"
            f'        <div class="message_part">{part}</div>\n'
            "    </div>\n</div>\n"
        )
    return "\n".join(out) + "\n</html>\n"


# --- Skype ------------------------------------------------------------------------------------------------

SKYPE_ME = "8:live:maya.lindqvist"
SKYPE_PEOPLE = {"me": SKYPE_ME, "farmor": "8:live:britt.lindqvist", "erik": "8:live:erik.lq"}
FARMOR = """
# 2026-06-14
17:00 farmor Hej Maya! Har du flyttat in nu? Skicka bilder på lägenheten
17:12 me {file=balcony.jpg} Hej Farmor! Here is the balcony 🌿
17:14 farmor Så fint! Ring mig på söndag
# 2026-06-21
11:00 me {call=1260} -
"""
FAMILY_GROUP = """
# 2026-09-10
20:05 erik {system} -
20:06 erik Reminder: my birthday is on Saturday the 12th, pizza at mine at 7
20:15 farmor Grattis i förväg! <3
20:20 me {edited} I'll bring the good olive oil 🫒
"""


def _skype_message(line: Line, conversation: str) -> dict[str, object]:
    ident = str(_ms(line.when))
    message: dict[str, object] = {
        "id": ident,
        "displayName": None,
        "originalarrivaltime": _iso(line.when),
        "messagetype": "RichText",
        "version": int(ident),
        "content": escape(line.text, quote=False),
        "conversationid": conversation,
        "from": SKYPE_PEOPLE[line.who],
        "properties": None,
        "amsreferences": None,
    }
    if "file" in line.flags:
        name = line.flags["file"]
        message["messagetype"] = "RichText/UriObject"
        message["content"] = (
            f'<URIObject type="Picture.1" uri="https://api.asm.skype.com/v1/objects/0-weu-d3-{ident}">'
            "To view this shared photo, go to: "
            f'<a href="https://login.skype.com/login/sso?go=xmmfallback?pic=0-weu-d3-{ident}">'
            f"https://login.skype.com/login/sso?go=xmmfallback?pic=0-weu-d3-{ident}</a>"
            f'<OriginalName v="{name}"/><meta type="photo" originalName="{name}"/></URIObject>'
        )
    elif "call" in line.flags:
        message["messagetype"] = "Event/Call"
        message["content"] = (
            f'<partlist type="ended" alt=""><part identity="{SKYPE_ME[2:]}"><name>Maya Lindqvist</name>'
            f"<duration>{line.flags['call']}</duration></part></partlist>"
        )
    elif "system" in line.flags:
        message["messagetype"] = "ThreadActivity/TopicUpdate"
        message["content"] = (
            f"<topicupdate><eventtime>{ident}</eventtime><initiator>{SKYPE_PEOPLE[line.who]}</initiator>"
            "<value>Lindqvists</value></topicupdate>"
        )
    elif "edited" in line.flags:
        message["content"] = (
            f'{message["content"]}<e_m ts="{int(ident) // 1000 + 40}" a="live:maya.lindqvist" t="61"></e_m>'
        )
        message["properties"] = {"edittime": str(int(ident) + 40_000)}
    return message


def skype_export() -> str:
    conversations = [
        {
            "id": SKYPE_PEOPLE["farmor"],
            "displayName": "Britt Lindqvist",
            "version": 1782000000000,
            "properties": {"conversationblocked": False},
            "threadProperties": None,
            "MessageList": [_skype_message(line, SKYPE_PEOPLE["farmor"]) for line in parse(FARMOR)][::-1],
        },
        {
            "id": "19:5be41c0f7a2d4e0b@thread.skype",
            "displayName": "Lindqvists",
            "version": 1782000000000,
            "properties": {},
            "threadProperties": {"membercount": 3, "topic": "Lindqvists"},
            "MessageList": [
                _skype_message(line, "19:5be41c0f7a2d4e0b@thread.skype") for line in parse(FAMILY_GROUP)
            ][::-1],
        },
    ]
    root = {"userId": SKYPE_ME, "exportDate": "2026-10-04T19:40:00Z", "conversations": conversations}
    return json.dumps(root, ensure_ascii=False, separators=(",", ":")) + "\n"


# --- Teams ------------------------------------------------------------------------------------------------

TEAM = "3f8e1c52-7a14-4b0e-9d6a-2c5b8e1f0a97"
CHANNEL = "19:4c1b9e0d2f7a4a51b6e3@thread.tacv2"
CHAT = "19:0e2c1a93-maya_5d7b2f40-tobias@unq.gbl.spaces"
TEAMS_PEOPLE = {
    "maya": ("0e2c1a93-5b7f-4d3e-8a1c-9f0b2d4e6a81", "Maya Lindqvist"),
    "jana": ("7b4d9e21-0c3a-4f5b-9e8d-1a2b3c4d5e6f", "Jana Schulz"),
    "tobias": ("5d7b2f40-8e1c-4a9b-b3d2-6f0e1a2c3b4d", "Tobias Wolff"),
}
CHANNEL_SCRIPT = """
# 2026-09-01
10:02 jana {id=root} <p>Partner workshop is on <strong>Thursday 10 September</strong>, 10:00–15:00, our office.</p><p>Agenda follows.</p>
10:30 maya {re=root;edited} <p><at id="0">Jana</at> thanks, Tobias and I will both come</p>
10:41 tobias {re=root;deleted} -
11:00 jana {system} -
"""
CHAT_SCRIPT = """
# 2026-09-09
16:20 tobias Can you bring the HDMI adapter tomorrow?
    The one with USB-C
16:24 maya <p>Packed 👍</p>
"""


def _teams_messages(script: str, where: dict[str, object]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    keys: dict[str, str] = {}
    for line in parse(script):
        ident = str(_ms(line.when))
        if "id" in line.flags:
            keys[line.flags["id"]] = ident
        user_id, name = TEAMS_PEOPLE[line.who]
        created = _iso(line.when)
        html = line.text.startswith("<")
        system = "system" in line.flags
        out.append(
            {
                "Id": ident,
                "ReplyToId": keys.get(line.flags.get("re", "")),
                "Etag": ident,
                "MessageType": "systemEventMessage" if system else "message",
                "CreatedDateTime": created,
                "LastModifiedDateTime": created,
                "LastEditedDateTime": _iso(line.when + timedelta(seconds=40))
                if "edited" in line.flags
                else None,
                "DeletedDateTime": created if "deleted" in line.flags else None,
                "Subject": None,
                "Summary": None,
                "Importance": "normal",
                "Locale": "en-us",
                "WebUrl": None,
                **where,
                "PolicyViolation": None,
                "EventDetail": {"@odata.type": "#microsoft.graph.membersAddedEventMessageDetail"}
                if system
                else None,
                "From": None
                if system
                else {"Application": None, "Device": None, "User": {"Id": user_id, "DisplayName": name}},
                "Body": {
                    "ContentType": "html" if html or system else "text",
                    "Content": "<systemEventMessage/>" if system else line.text,
                },
                "Attachments": [],
                "Mentions": [],
                "Reactions": [],
            }
        )
    return out


def teams_files() -> dict[str, str]:
    channel = {"ChatId": None, "ChannelIdentity": {"TeamId": TEAM, "ChannelId": CHANNEL}}
    chat = {"ChatId": CHAT, "ChannelIdentity": None}
    return {
        f"teams/{TEAM}/messages_{TEAM}.json": json.dumps(
            _teams_messages(CHANNEL_SCRIPT, channel), ensure_ascii=False, indent=2
        )
        + "\n",
        f"users/{TEAMS_PEOPLE['maya'][0]}/messages_{TEAMS_PEOPLE['maya'][0]}.json": json.dumps(
            _teams_messages(CHAT_SCRIPT, chat), ensure_ascii=False, indent=2
        )
        + "\n",
    }


# --- all -------------------------------------------------------------------------------------------------


def files() -> dict[str, str]:
    """Every file, by its path under the output folder."""
    out = {
        SMS_FILE: sms_backup(),
        IMESSAGE_TXT: imessage_txt(),
        IMESSAGE_HTML: imessage_html(),
        f"{SKYPE_DIR}/messages.json": skype_export(),
    }
    out.update({f"{TEAMS_DIR}/{name}": text for name, text in teams_files().items()})
    return out


def main(out: Path) -> None:
    for name, text in files().items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
