"""Re-import benchmark (issue 26): a generated export of N messages (default 1,000,000) grown by 1,000
messages, imported again into the home that holds the export before it grew: a WhatsApp chat (a line-based
log), a one-chat Telegram ``result.json`` and a DiscordChatExporter channel (JSON exports), the same chat
(``import_bench.chat_records``); and a ChatGPT ``conversations.json`` of the same texts, 50 a conversation
(its last conversation grows, new ones follow), a Slack workspace zip of 20 channels (one grows), and a
Telegram account export of 100 dialogs (``telegram-account``: the dialog of the last messages grows), a
Hangouts.json, a Google Chat Takeout zip and a Skype ``messages.json`` of 20 conversations each (the last one
grows); the chat as KakaoTalk's macOS CSV and as its zipped phone text, and the Telegram account export
zipped; an SMS Backup & Restore file of the same texts (``sms``: SMS threads by sender, every tenth
message an MMS to a group; the grown backup's new SMS come before its earlier MMS), and the chat as an
imessage-exporter TXT file (``imessage``); a Microsoft Teams export zip of 100 chats (the last run's chat
grows) and a Gemini ``MyActivity.json`` of the same texts, a prompt and its reply an entry, 50 entries a
conversation (new entries on top).

Prints the seconds of `refind import` (end to end: the archive and the index) of the grown file, and its CPU
seconds (the process's and its import worker's), each in a fresh process on a fresh copy of the same home, for:

- resumed: what refind does (the file is read from where the last import's reading stopped);
- re-read: `refind import --reread`, the whole file read again (what refind did before issue 26);
- full import of the grown file into an empty home: the peer the issue names.

This is a script that prints figures, not a test.

    python bench/reimport_bench.py [--messages 1000000] [--added 1000] [--rounds 3] [--workdir bench/out]
        [--formats whatsapp telegram discord chatgpt slack telegram-account hangouts google-chat skype
                   kakaotalk-csv kakaotalk-zip telegram-account-zip sms imessage imessage-html teams gemini
                   gemini-html]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sample_exports"))
from generate_assistants import chatgpt_chain
from import_bench import SENDERS, chat_records, cli_run, generate


def _telegram_messages(n: int) -> Iterator[tuple[int, dict]]:
    """The chat of ``import_bench.generate`` as Telegram Desktop's messages: (their number from 1, the item)."""
    senders: dict[str, str] = {}
    for i, (t, sender, text) in enumerate(chat_records(n + 1), 1):
        who = senders.setdefault(sender, f"user{len(senders) + 1}")
        yield (
            i,
            {
                "id": i,
                "type": "message",
                "date": f"{t:%Y-%m-%dT%H:%M:%S}",
                "date_unixtime": str(int(t.replace(tzinfo=UTC).timestamp())),
                "from": sender,
                "from_id": who,
                "text": text,
                "text_entities": [{"type": "plain", "text": text}],
            },
        )


def _telegram_items(items: Iterable[dict], indent: str) -> str:
    """A list's items as the exporter indents them (one space a level), ``indent`` before each."""
    return ",".join(
        f"\n{indent}" + json.dumps(item, ensure_ascii=False, indent=1).replace("\n", f"\n{indent}")
        for item in items
    )


def generate_telegram(path: Path, n: int) -> None:
    """The chat of ``import_bench.generate`` as Telegram Desktop writes a one-chat ``result.json``: a message
    per item, indented as the exporter indents; a grown export's bytes are the earlier one's up to the close
    of its last message."""
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{\n "name": "Bench",\n "type": "private_group",\n "id": 4242,\n "messages": [')
        for i, item in _telegram_messages(n):
            fh.write(("," if i > 1 else "") + _telegram_items([item], "  "))
        fh.write("\n ]\n}\n")


def generate_telegram_account(path: Path, n: int, dialogs: int = 100, run: int = 2_000) -> None:
    """The same messages as a Telegram Desktop account export (``chats.list`` of ``dialogs`` groups, each
    taking runs of ``run`` messages in turn), the dialogs in the exporter's order (the latest message's
    first) behind the account's sections: the messages added to a grown export go to the dialog of the
    last run, which moves to the top."""
    lists: dict[int, list[dict]] = {}
    for i, item in _telegram_messages(n):
        lists.setdefault((i - 1) // run % dialogs, []).append(item)
    ordered = sorted(lists.items(), key=lambda kv: kv[1][-1]["id"], reverse=True)
    contacts = [{"first_name": f"Contact {c}", "phone_number": f"+100{c:07d}"} for c in range(500)]
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{\n "about": "Here is the data you requested.",\n "personal_information": {\n')
        fh.write('  "user_id": 1,\n  "first_name": "Bench"\n },\n "contacts": {\n  "list": [')
        fh.write(_telegram_items(contacts, "   ") + '\n  ]\n },\n "chats": {\n  "list": [')
        for k, (d, messages) in enumerate(ordered):
            head = f'{{\n    "name": "Group {d}",\n    "type": "private_group",\n    "id": {4000 + d},'
            fh.write(("\n   " if k == 0 else ",\n   ") + head + '\n    "messages": [')
            fh.write(_telegram_items(messages, "     ") + "\n    ]\n   }")
        fh.write('\n  ]\n },\n "left_chats": {\n  "list": []\n }\n}\n')


def _runs(n: int, chats: int, run: int) -> dict[int, list[tuple[datetime, str, str]]]:
    """The chat's messages in ``chats`` chats, each taking the next ``run`` of them in turn: those a grown
    export adds go to the chat of the latest run."""
    chat: dict[int, list[tuple[datetime, str, str]]] = {}
    for i, record in enumerate(chat_records(n + 1)):
        chat.setdefault(i // run % chats, []).append(record)
    return chat


def generate_hangouts(path: Path, n: int, chats: int = 20, run: int = 5_000) -> None:
    """The same chat as a Takeout ``Hangouts.json`` of ``chats`` conversations between the 7 senders."""
    senders: dict[str, str] = {}
    items = []
    for c, records in sorted(_runs(n, chats, run).items()):
        events = []
        for i, (t, sender, text) in enumerate(records):
            gaia = senders.setdefault(sender, str(100 + len(senders)))
            events.append(
                {
                    "sender_id": {"gaia_id": gaia},
                    "timestamp": str(int(t.replace(tzinfo=UTC).timestamp() * 1_000_000)),
                    "chat_message": {"message_content": {"segment": [{"type": "TEXT", "text": text}]}},
                    "event_id": f"c{c}-e{i}",
                    "event_type": "REGULAR_CHAT_MESSAGE",
                }
            )
        conversation = {"id": {"id": f"conv{c}"}, "type": "GROUP", "name": f"Group {c}"}
        items.append(
            {
                "conversation": {"conversation_id": {"id": f"conv{c}"}, "conversation": conversation},
                "events": events,
            }
        )
    path.write_text(json.dumps({"conversations": items}, indent=1, ensure_ascii=False), encoding="utf-8")


def generate_skype(path: Path, n: int, chats: int = 20, run: int = 5_000) -> None:
    """The same chat as Skype's ``messages.json`` of ``chats`` group conversations between the 7 senders,
    each message with its sender's name (the grown export's new messages go to the last run's)."""
    senders: dict[str, str] = {}
    items = []
    for c, records in sorted(_runs(n, chats, run).items()):
        messages = [
            {
                "id": f"{c}{i:07d}",
                "displayName": sender,
                "originalarrivaltime": f"{t:%Y-%m-%dT%H:%M:%S}.000Z",
                "messagetype": "RichText",
                "content": text,
                "from": "8:" + senders.setdefault(sender, f"live:person{len(senders) + 1}"),
            }
            for i, (t, sender, text) in enumerate(records)
        ]
        items.append(
            {"id": f"19:group{c}@thread.skype", "displayName": f"Group {c}", "MessageList": messages}
        )
    data = {"userId": "8:live:person1", "exportDate": "2026-06-01T00:00:00.000Z", "conversations": items}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")


def generate_google_chat(path: Path, n: int, chats: int = 20, run: int = 5_000) -> None:
    """The same chat as a Google Chat Takeout zip: ``chats`` spaces, a ``messages.json`` each."""
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for c, records in sorted(_runs(n, chats, run).items()):
            messages = [
                {
                    "creator": {"name": sender, "email": f"{sender.split()[0].lower()}@example.com"},
                    "created_date": f"{t:%A, %B %-d, %Y at %-I:%M:%S %p} UTC",
                    "text": text,
                    "topic_id": f"t{i}",
                    "message_id": f"SPACE{c}/t{i}/m{i}",
                }
                for i, (t, sender, text) in enumerate(records)
            ]
            folder = f"Takeout/Google Chat/Groups/Space SPACE{c}"
            zf.writestr(
                f"{folder}/messages.json", json.dumps({"messages": messages}, indent=2, ensure_ascii=False)
            )
            zf.writestr(f"{folder}/group_info.json", json.dumps({"name": f"Space {c}"}))


def generate_discord(path: Path, n: int) -> None:
    """The same chat as DiscordChatExporter writes a channel: its first bytes hold the time of the export,
    so a grown export's bytes differ from the earlier one's there, and are the same from the messages list
    on up to the close of its last message."""
    start = datetime.now(UTC).isoformat()  # a later export's time: another length, other bytes
    authors: dict[str, dict] = {}
    with path.open("w", encoding="utf-8") as fh:
        head = {
            "guild": {"id": "900000000000000001", "name": "Bench", "iconUrl": "https://cdn/icon.png"},
            "channel": {
                "id": "900000000000000077",
                "type": "GuildTextChat",
                "name": "general",
                "topic": None,
            },
            "dateRange": {"after": None, "before": None},
            "exportedAt": start,
        }
        fh.write(json.dumps(head, indent=2)[:-2] + ',\n  "messages": [')
        for i, (t, sender, text) in enumerate(chat_records(n + 1), 1):
            author = authors.setdefault(
                sender,
                {"id": str(900000000000001000 + len(authors)), "name": sender.lower(), "nickname": sender},
            )
            item: dict[str, object] = {
                "id": str(1100000000000000000 + i),
                "type": "Default",
                "timestamp": t.replace(tzinfo=UTC).isoformat(),
                "timestampEdited": None,
                "isPinned": False,
                "content": text,
                "author": {**author, "isBot": False},
                "attachments": [],
                "embeds": [],
                "stickers": [],
                "reactions": [],
                "mentions": [],
            }
            body = json.dumps(item, ensure_ascii=False, indent=2).replace("\n", "\n    ")
            fh.write(("\n    " if i == 1 else ",\n    ") + body)
        fh.write(f'\n  ],\n  "messageCount": {n}\n}}\n')


def generate_chatgpt(path: Path, n: int, per: int = 50) -> None:
    """The same chat as a ChatGPT ``conversations.json``: conversations of ``per`` messages, question and
    answer in turn (``generate_assistants.chatgpt_chain``, the tests' conversations), at the chat's times; a
    grown export has its last conversation grown and new ones after it."""
    records = list(chat_records(n + 1))[1:]
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[")
        for k in range(0, len(records), per):
            run = records[k : k + per]
            times = [t.replace(tzinfo=UTC).timestamp() for t, _, _ in run]
            conversation = chatgpt_chain(f"conv-{k // per}", [text for _, _, text in run], times[0])
            for node, when in zip(conversation["mapping"].values(), times, strict=True):
                node["message"]["create_time"] = when
            conversation["update_time"] = times[-1]
            fh.write(("" if k == 0 else ", ") + json.dumps(conversation, ensure_ascii=False))
        fh.write("]\n")


def generate_slack(path: Path, n: int, channels: int = 20, run: int = 5_000) -> None:
    """The same chat as a Slack workspace export (a zip): ``channels`` channels, each taking the next ``run``
    messages in turn (a conversation moves from channel to channel), one file per channel and day; the
    messages a grown export adds fall in the channel of the latest run, as new days."""
    import zipfile

    records = list(chat_records(n + 1))[1:]
    users: dict[str, str] = {}
    days: dict[tuple[int, str], list[dict]] = {}
    for i, (t, sender, text) in enumerate(records):
        user = users.setdefault(sender, f"U{len(users) + 1:04d}")
        stamp = t.replace(tzinfo=UTC).timestamp()
        message = {"type": "message", "user": user, "text": text, "ts": f"{int(stamp)}.{i % 1_000_000:06d}"}
        days.setdefault((i // run % channels, f"{t:%Y-%m-%d}"), []).append(message)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        members = [{"id": u, "name": name.lower(), "real_name": name} for name, u in users.items()]
        zf.writestr("users.json", json.dumps(members))
        zf.writestr(
            "channels.json", json.dumps([{"id": f"C{c:03d}", "name": f"c{c}"} for c in range(channels)])
        )
        for (c, day), messages in sorted(days.items()):
            zf.writestr(f"c{c}/{day}.json", json.dumps(messages, indent=4, ensure_ascii=False))


def generate_kakaotalk_csv(path: Path, n: int) -> None:
    """The same chat as KakaoTalk's macOS CSV: a ``Date,User,Message`` header, a record a message (a text
    with a line break spans lines inside its quotes)."""
    with path.open("w", encoding="utf-8") as fh:
        fh.write("Date,User,Message\n")
        for t, sender, text in chat_records(n + 1):
            quoted = text.replace('"', '""')
            fh.write(f'{t:%Y-%m-%d %H:%M:%S},"{sender}","{quoted}"\n')


def generate_kakaotalk_zip(path: Path, n: int) -> None:
    """The same chat as a KakaoTalk phone export (Android, English), zipped as the app shares it: its text
    file beside a photo."""
    import zipfile

    lines = ["KakaoTalk Chats with Bench", "Date Saved : Jan 1, 2030 at 10:00 AM", ""]
    for t, sender, text in chat_records(n + 1):
        lines.append(f"{t:%B} {t.day}, {t.year}, {t:%I:%M %p}".replace(" 0", " ") + f", {sender} : {text}")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("KakaoTalkChats.txt", "\n".join(lines) + "\n")
        zf.writestr("2019-01-01-08-00-00.jpg", b"\xff\xd8 not a photo")


def generate_telegram_account_zip(path: Path, n: int) -> None:
    """``generate_telegram_account``'s export zipped, as Telegram Desktop's folder is when shared."""
    import zipfile

    loose = path.with_suffix(".json")
    generate_telegram_account(loose, n)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(loose, "DataExport_2030-01-01/result.json")
    loose.unlink()


def generate_teams(path: Path, n: int, chats: int = 100, run: int = 2_000) -> None:
    """The same chat as a Microsoft Teams privacy export (a zip): ``chats`` group chats, a
    ``users/<id>/messages_<chat>.json`` each, HTML bodies (the grown export's new messages go to the last
    run's chat, whose file grows)."""
    import html
    import zipfile

    senders: dict[str, str] = {}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for c, records in sorted(_runs(n, chats, run).items()):
            messages: list[dict] = [
                {
                    "Id": f"{c}{i:07d}",
                    "ReplyToId": None,
                    "MessageType": "message",
                    "CreatedDateTime": f"{t:%Y-%m-%dT%H:%M:%S}.000Z",
                    "LastEditedDateTime": None,
                    "DeletedDateTime": None,
                    "ChatId": f"19:chat{c}@unq.gbl.spaces",
                    "From": {
                        "User": {
                            "Id": senders.setdefault(sender, f"u{len(senders) + 1}"),
                            "DisplayName": sender,
                        }
                    },
                    "Body": {"ContentType": "html", "Content": f"<p>{html.escape(text)}</p>"},
                    "Attachments": [],
                }
                for i, (t, sender, text) in enumerate(records)
            ]
            zf.writestr(
                f"users/me/messages_19-chat{c}.json", json.dumps(messages, indent=1, ensure_ascii=False)
            )


def generate_gemini(path: Path, n: int, per: int = 50) -> None:
    """The same texts as a Gemini ``MyActivity.json`` (Google Takeout): a prompt and its reply an entry, an
    entry a minute, ``per`` entries a conversation (two hours of silence between), newest first; a grown
    export's new entries are on top (the last conversation continues, new ones follow)."""
    import html
    from datetime import timedelta

    texts = [text for _, _, text in chat_records(n + 1)]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[")
        for k in reversed(range(len(texts) // 2)):
            when = start + timedelta(minutes=k + 120 * (k // per))
            item = {
                "header": "Gemini Apps",
                "title": f"Prompted {texts[2 * k]}",
                "time": f"{when:%Y-%m-%dT%H:%M:%S}.000Z",
                "products": ["Gemini Apps"],
                "activityControls": ["Gemini Apps Activity"],
                "safeHtmlItem": [{"html": f"<p>{html.escape(texts[2 * k + 1])}</p>"}],
            }
            fh.write(
                ("" if k == len(texts) // 2 - 1 else ",") + "\n  " + json.dumps(item, ensure_ascii=False)
            )
        fh.write("\n]\n")


# The file each format's export is (a WhatsApp chat is named by its file), and how it is made.
def generate_gemini_html(path: Path, n: int, per: int = 50) -> None:
    """The texts of ``generate_gemini`` as Takeout's ``MyActivity.html``: a card an entry (its
    header, the prompt, the time as an English-locale account writes it, the reply, the products), newest
    first, ``per`` entries a conversation."""
    import html
    from datetime import timedelta

    texts = [text for _, _, text in chat_records(n + 1)]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    with path.open("w", encoding="utf-8") as fh:
        fh.write(
            '<html><head><meta charset="UTF-8"><title>My Activity</title></head><body><div class="mdl-grid">\n'
        )
        for k in reversed(range(len(texts) // 2)):
            when = start + timedelta(minutes=k + 120 * (k // per))
            stamp = (
                f"{when:%b} {when.day}, {when.year}, {when.hour % 12 or 12}:{when:%M:%S}\u202f{when:%p} UTC"
            )
            fh.write(
                '<div class="outer-cell mdl-cell mdl-cell--12-col mdl-shadow--2dp"><div class="mdl-grid">'
                '<div class="header-cell mdl-cell mdl-cell--12-col"><p class="mdl-typography--title">'
                'Gemini Apps<br></p></div><div class="content-cell mdl-cell mdl-cell--6-col '
                f'mdl-typography--body-1">Prompted&nbsp;{html.escape(texts[2 * k])}<br>{stamp}<br>'
                f"<p>{html.escape(texts[2 * k + 1])}</p></div>"
                '<div class="content-cell mdl-cell mdl-cell--6-col mdl-typography--body-1 '
                'mdl-typography--text-right"></div><div class="content-cell mdl-cell mdl-cell--12-col '
                'mdl-typography--caption"><b>Products:</b><br>&emsp;Gemini Apps<br></div></div></div>\n'
            )
        fh.write("</div></body></html>\n")


def _xml_attr(text: str) -> str:
    """``text`` as SMS Backup & Restore writes an attribute: escaped, a new line and each character beyond
    the BMP (emoji) as character references (the latter as two UTF-16 halves, as the app writes them)."""
    out = escape(text, {'"': "&quot;", "\n": "&#10;"})
    return "".join(c if ord(c) < 0x10000 else "".join(f"&#{u};" for u in _halves(ord(c))) for c in out)


def _halves(code: int) -> tuple[int, int]:
    code -= 0x10000
    return 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)


def generate_sms(path: Path, n: int, mms_every: int = 10) -> None:
    """The same chat as an SMS Backup & Restore file: each sender's messages a thread of SMS (the first
    sender's are the phone's own, sent to the second), every ``mms_every``-th message an MMS to a group of
    three; all SMS first, then all MMS, as the app writes them. A grown backup's new SMS come before the
    earlier MMS, and its root's count and date change."""
    sms: list[str] = []
    mms: list[str] = []
    for i, (t, sender, text) in enumerate(chat_records(n + 1)):
        ms = int(t.replace(tzinfo=UTC).timestamp() * 1000)
        own = sender == SENDERS[0]
        body = _xml_attr(text)
        if i % mms_every == mms_every - 1:
            mms.append(
                f'  <mms date="{ms}" msg_box="{2 if own else 1}" address="+15550001~+15550002" '
                f'contact_name="{SENDERS[1]}, {SENDERS[2]}">\n    <parts>\n'
                '      <part seq="-1" ct="application/smil" text="&lt;smil/&gt;" />\n'
                f'      <part seq="0" ct="text/plain" text="{body}" />\n    </parts>\n'
                f'    <addrs>\n      <addr address="{"insert-address-token" if own else "+15550001"}" type="137" />'
                "\n    </addrs>\n  </mms>\n"
            )
            continue
        other = SENDERS.index(sender) if not own else 1
        sms.append(
            f'  <sms protocol="0" address="+1555000{other}" date="{ms}" type="{2 if own else 1}" subject="null" '
            f'body="{body}" toa="null" sc_toa="null" read="1" status="-1" locked="0" date_sent="0" '
            f'contact_name="{SENDERS[other]}" />\n'
        )
    with path.open("w", encoding="utf-8") as fh:
        fh.write(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
            f"<!--File Created By SMS Backup & Restore v10.20.002 on {n}-->\n"
            f'<smses count="{n}" backup_set="5d4f1c2e" backup_date="{n}" type="full">\n'
        )
        fh.writelines(sms)
        fh.writelines(mms)
        fh.write("</smses>\n")


def generate_imessage(path: Path, n: int) -> None:
    """The same chat as imessage-exporter's TXT of a group conversation: a block a message (its stamp, its
    sender, ``Me`` for the first sender, its lines) and a blank line after it."""
    with path.open("w", encoding="utf-8") as fh:
        for t, sender, text in chat_records(n + 1):
            who = "Me" if sender == SENDERS[0] else sender
            fh.write(f"{t:%b %d, %Y} {t.hour % 12 or 12:2d}:{t:%M:%S %p}\n{who}\n{text}\n\n")


def generate_imessage_html(path: Path, n: int) -> None:
    """The same chat as imessage-exporter's HTML of a group conversation: a ``div.message`` a message (its
    stamp, its sender, ``Me`` for the first sender, its text in a bubble), the page's closing tag after the
    last; a grown export's new messages come before it."""
    import html

    with path.open("w", encoding="utf-8") as fh:
        fh.write(
            '<html>\n<meta charset="UTF-8">\n\n<link rel="stylesheet" type="text/css" href="style.css">\n'
        )
        for t, sender, text in chat_records(n + 1):
            who = "Me" if sender == SENDERS[0] else sender
            side = "sent iMessage" if who == "Me" else "received"
            body = html.escape(text).replace("\n", "<br>")
            fh.write(
                f'\n<div class="message">\n    <div class="{side}">\n        <p><span class="timestamp">'
                f"{t:%b %d, %Y} {t.hour % 12 or 12:2d}:{t:%M:%S %p}</span>\n"
                f'            <span class="sender">{html.escape(who)}</span>\n        </p>\n        <hr>\n'
                f'        <div class="message_part"><span class="bubble">{body}</span></div>\n'
                "    </div>\n</div>\n"
            )
        fh.write("\n</html>\n")


FORMATS = {
    "whatsapp": ("WhatsApp Chat with Bench.txt", generate),
    "telegram": ("result.json", generate_telegram),
    "telegram-account": ("result.json", generate_telegram_account),
    "hangouts": ("Hangouts.json", generate_hangouts),
    "google-chat": ("takeout-google-chat.zip", generate_google_chat),
    "skype": ("messages.json", generate_skype),
    "discord": ("Bench - general [900000000000000077].json", generate_discord),
    "chatgpt": ("conversations.json", generate_chatgpt),
    "slack": ("Bench Slack export.zip", generate_slack),
    "kakaotalk-csv": ("KakaoTalk_Chat_Bench.csv", generate_kakaotalk_csv),
    "kakaotalk-zip": ("KakaoTalk_Chat_Bench.zip", generate_kakaotalk_zip),
    "telegram-account-zip": ("Telegram Desktop export.zip", generate_telegram_account_zip),
    "sms": ("sms-backup.xml", generate_sms),
    "imessage": ("Bench.txt", generate_imessage),
    "imessage-html": ("Bench.html", generate_imessage_html),
    "teams": ("teams-export.zip", generate_teams),
    "gemini": ("MyActivity.json", generate_gemini),
    "gemini-html": ("Gemini Apps/MyActivity.html", generate_gemini_html),
}


def child(export: Path, home: Path, reread: bool) -> None:
    """One `refind import` in this (fresh) process: its seconds, and the messages the archive holds after
    (counted once the clock has stopped)."""
    # The modules an import loads, loaded before the clock starts: the figure is the import's work, the
    # process's wall beside it is what a person waits for.
    import refind_cli.frontends.cli.imports
    import refind_cli.frontends.render.imports
    import refind_cli.importers.chatgpt
    import refind_cli.importers.discord
    import refind_cli.importers.gemini
    import refind_cli.importers.imessage
    import refind_cli.importers.slack
    import refind_cli.importers.sms
    import refind_cli.importers.teams
    import refind_cli.importers.telegram
    import refind_cli.importers.whatsapp
    import refind_cli.index.tantivy_backend
    import refind_cli.ingest  # noqa: F401
    from refind_cli.storage.archive import Archive

    before = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    start = time.perf_counter()
    cli_run(home, export, *(["--reread"] if reread else []))
    seconds = time.perf_counter() - start
    after = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    # CPU of this process and of the import worker it waited for (the children's figure counts those ended).
    own, worker = (
        a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before, strict=True)
    )
    with Archive.open(home) as archive:
        messages = archive.counts()["messages"]
    print(
        json.dumps(
            {"seconds": seconds, "cpu": own + worker, "own": own, "worker": worker, "messages": messages}
        )
    )


def timed(export: Path, home: Path, reread: bool = False, tree: Path | None = None) -> dict:
    """``child`` in a fresh process (with ``tree``, on that version's refind_cli); also its wall time start
    to end (the interpreter's start-up too) and the load average of the minute before it ended."""
    args = [sys.executable, __file__, "--child", "--export", str(export), "--home", str(home)]
    env = {**os.environ, "PYTHONPATH": str(tree)} if tree is not None else None
    start = time.perf_counter()
    out = subprocess.run(
        [*args, *(["--reread"] if reread else [])], capture_output=True, text=True, check=False, env=env
    )
    wall = time.perf_counter() - start
    if out.returncode:
        raise SystemExit(f"import failed:\n{out.stderr[-2000:]}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "wall": wall, "load": os.getloadavg()[0]}


def command(export: Path, home: Path, tree: Path | None = None) -> dict:
    """`refind import` of ``export`` as a person runs it (``python -m refind_cli``, its output into a pipe):
    the process's wall and CPU (its import worker's too), start-up included; with ``tree``, on that
    version's refind_cli."""
    env = {**os.environ, "PYTHONPATH": str(tree)} if tree is not None else None
    args = [sys.executable, "-m", "refind_cli", "--home", str(home), "import", "--tz", "UTC", str(export)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # In the tree's folder: ``python -m`` puts the working folder before PYTHONPATH (run from a checkout's
    # root, the "-base" way ran that checkout's code, not the base's; resume15).
    out = subprocess.run(args, capture_output=True, text=True, check=False, env=env, cwd=tree)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise SystemExit(f"import failed:\n{out.stderr[-2000:]}")
    home.with_suffix(".out").write_text(out.stdout)  # what it printed, to compare with another tree's
    from refind_cli.storage.archive import Archive

    with Archive.open(home) as archive:
        messages = archive.counts()["messages"]
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    load = os.getloadavg()[0]
    return {
        "seconds": wall,
        "cpu": cpu,
        "own": cpu,
        "worker": 0.0,
        "messages": messages,
        "wall": wall,
        "load": load,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--added", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--export", type=Path)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--reread", action="store_true")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=["resumed", "re-read", "full"])
    parser.add_argument(
        "--base", type=Path, help="another tree (e.g. a git archive of main): its resumed import measured too"
    )
    parser.add_argument(
        "--base-workdir",
        type=Path,
        help="the -base ways start from the earlier export's home there (the --base tree's own import of it, made"
        " with --setup --keep), not from this workdir's: each tree re-imports into a home it wrote",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the exports and the earlier export's home, and reuse them"
    )
    parser.add_argument("--setup", action="store_true", help="only make the exports and the earlier home")
    args = parser.parse_args()
    if args.child:
        child(args.export, args.home, args.reread)
        return

    for fmt in args.formats:
        work = args.workdir / "reimport" / fmt
        ways = [*args.ways, *([f"{w}-base" for w in args.ways if f"{w}-base" in WAYS] if args.base else [])]
        base_home = args.base_workdir / "reimport" / fmt / "base" if args.base_workdir else None
        compare(
            fmt,
            args.messages,
            args.added,
            args.rounds,
            work,
            ways,
            args.base,
            args.keep,
            args.setup,
            base_home,
        )


# The ways of importing the grown export: resumed (what refind does), re-read (``--reread``: the whole file
# read again), full (into an empty home: the peer), each in-process with its modules loaded; command:
# resumed as `refind import` in a process of its own, start-up included. "-base": on another tree's code
# (``--base``).
WAYS = ("resumed", "re-read", "full", "command", "resumed-base", "command-base")


def compare(
    fmt: str,
    messages: int,
    added: int,
    rounds: int,
    work: Path,
    ways: list[str],
    tree: Path | None = None,
    keep: bool = False,
    setup_only: bool = False,
    base_home: Path | None = None,
) -> None:
    """The ways of importing the grown export of one format, interleaved; their medians. With ``keep``, the
    exports and the home of the earlier one are made once and kept (the homes of the last round too).
    ``base_home``: the home the ways on ``tree`` start from (that tree's import of the earlier export)."""
    name, make = FORMATS[fmt]
    earlier, grown, base = work / "earlier" / name, work / name, work / "base"
    if not (keep and (base / "done").exists()):
        shutil.rmtree(work, ignore_errors=True)
        earlier.parent.mkdir(parents=True)
        grown.parent.mkdir(parents=True, exist_ok=True)
        # The same generator and seed: the grown export is the earlier one with its last messages after it.
        make(earlier, messages - added)
        make(grown, messages)
        first = timed(earlier, base)
        (base / "done").write_text(json.dumps(first))
        print(
            f"import of the earlier export (setup): {first['seconds']:.1f} s, {first['messages']:,} messages"
        )
    print(f"{fmt} export: {messages:,} messages, {grown.stat().st_size / 1e6:.1f} MB; grown by {added:,}")
    if setup_only:
        return

    figures: dict[str, list[dict]] = {way: [] for way in ways}
    for _ in range(rounds):
        for way in figures:
            home = work / way
            shutil.rmtree(home, ignore_errors=True)
            on = tree if way.endswith("-base") else None
            if way != "full":
                shutil.copytree(base_home if on is not None and base_home is not None else base, home)
            if way.startswith("command"):
                run = command(grown, home, on)
            else:
                run = timed(grown, home, reread=way == "re-read", tree=on)
            figures[way].append(run)
    counts = {way: {f["messages"] for f in runs} for way, runs in figures.items()}
    assert len({n for c in counts.values() for n in c}) == 1, counts  # every way stores the same messages

    def median(way: str, key: str) -> float:
        return float(statistics.median(f[key] for f in figures[way]))

    print(
        f"{rounds} rounds interleaved, medians; `refind import` in-process seconds, its modules loaded"
        " (and the process's wall, start-up included; CPU of the process and of its import worker)"
    )
    peer = "full" if "full" in figures else ways[-1]
    for way in figures:
        seconds, wall, cpu = median(way, "seconds"), median(way, "wall"), median(way, "cpu")
        rounds_text = ", ".join(f"{f['seconds']:.2f}" for f in figures[way])
        print(
            f"  {way:12} {seconds:8.2f} s  (CPU {cpu:6.2f} s: own {median(way, 'own'):.2f}, worker"
            f" {median(way, 'worker'):.2f}; wall {wall:6.2f} s; load {median(way, 'load'):.1f};"
            f" rounds {rounds_text})  {seconds / median(peer, 'seconds'):.4f} of {peer},"
            f" CPU {cpu / median(peer, 'cpu'):.4f}"
        )
    if "resumed" in figures and "re-read" in figures:
        print(f"  resumed / re-read: {median('resumed', 'seconds') / median('re-read', 'seconds'):.4f}")
    if not keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
