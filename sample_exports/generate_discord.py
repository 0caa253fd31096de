"""Writes the Discord sample exports from the conversation scripts below:

- ``discord-kletterkiez-general.json``: DiscordChatExporter's JSON export of ``#general`` on Kletterkiez, the
  bouldering group Maya climbs with on Tuesday and Thursday evenings,
- ``discord-dm-noah.json``: DiscordChatExporter's JSON export of Maya's direct messages with Noah,
- ``discord-package/``: the same account's own data package (Settings > Data & Privacy), unpacked: only
  Maya's messages, ``#general`` as an older ``messages.csv`` (newest first, as Discord writes it), the DM as
  a newer ``messages.json``, and a channel of a gaming server that no export above covers.

Run from anywhere: ``python sample_exports/generate_discord.py [OUT_DIR]``. Output is deterministic: ids
and milliseconds come from hashes of the script. Message ids are real-shaped snowflakes (the time in the
top bits), the same in the exports and the package, as Discord's are.

Script syntax (one message per line), as in generate.py:

    # 2026-04-07                    a day; the times below are Europe/Berlin wall clock
    19:48 noah {flags} text         time, sender, optional {flags}, then the text
        more text                   a line indented by 4 spaces continues the message above

Flags (``;``-separated): ``id=KEY`` names a message, ``re=KEY`` replies to it, ``edited=HH:MM``,
``file=NAME:BYTES`` attaches a file, ``sticker=NAME``, ``react=EMOJI:who,who|EMOJI:who``,
``embed=TITLE|DESCRIPTION|URL`` a link preview, ``pinned``; ``@noah`` in a text mentions Noah; system messages: ``join`` (joined the server),
``pin=KEY`` (pinned that message), ``call=MINUTES``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
BERLIN = ZoneInfo("Europe/Berlin")
DISCORD_EPOCH_MS = 1420070400000
CDN = "https://cdn.discordapp.com"

# short name -> (id, user name, display name, is a bot)
USERS = {
    "maya": ("771203945861283840", "maya.lq", "Maya", False),
    "noah": ("689412257003618304", "noah.climbs", "Noah", False),
    "lea": ("702518830241202176", "leaonthewall", "Lea", False),
    "kemal": ("815330719224258560", "kemal_b", "Kemal", False),
    "yuki": ("1029384756102938475", "yuki.sends", "Yuki", False),
    "crimpbot": ("1102938475610293847", "Crimpbot", "Crimpbot", True),
}
GUILD = {
    "id": "1098765432101234567",
    "name": "Kletterkiez",
    "iconUrl": f"{CDN}/icons/1098765432101234567/a1.png",
}
GENERAL = {
    "id": "1098765432101234570",
    "type": "GuildTextChat",
    "categoryId": "1098765432101234568",
    "category": "Text Channels",
    "name": "general",
    "topic": "Tue + Thu 19:00 at Berta Block, Saturdays outside when it's dry",
}
DM = {
    "id": "1101122334455667788",
    "type": "DirectTextChat",
    "categoryId": None,
    "category": None,
    "name": "noah.climbs",
    "topic": None,
}
# A server no export covers: only the package knows of it.
COUCH = {
    "guild": {"id": "905512345678901234", "name": "Couch Co-op"},
    "id": "905512345678901240",
    "name": "lfg",
}

GENERAL_SCRIPT = """
# 2026-03-03
19:02 lea {id=rules;pinned} Welcome to Kletterkiez! We meet Tuesday and Thursday at 19:00 at Berta Block, Saturdays outside when it's dry. Say here if you're coming so we can share the 10-visit cards
19:03 lea {pin=rules}
19:40 noah {react=💪:lea,kemal} new purple circuit is up at Berta, the overhang one is nasty
# 2026-03-10
18:15 maya {id=tonight} anyone going tonight? I need to get out of the flat, the traffic on Weserstraße is driving me mad
18:20 kemal {re=tonight} I'm in, 19:15 though
18:21 noah in
# 2026-03-24
12:00 crimpbot Reminder: Thursday session at Berta Block 19:00. React with 🧗 if you're coming
12:40 maya {sticker=Wave}
# 2026-04-09
20:05 maya {react=🎉:noah,lea,kemal|🏠:lea} I GOT THE FLAT in Prenzlauer Berg!! Schliemannstraße, 10 minutes from Berta Block
20:07 lea congrats!! now you have no excuse for missing Tuesdays
20:09 noah {edited=20:10} finally, a climber in the neighbourhood. Housewarming on the wall
# 2026-04-21
19:30 yuki {join}
19:34 lea welcome Yuki! Yuki climbed at the Fontainebleau trip with Noah last year
19:36 yuki hi all, thanks for having me :) I mostly boulder, slab is my weakness
# 2026-05-12
18:00 maya {id=moving} can't make it Thursday or Saturday, I'm packing boxes. Moving day is 30 May if anyone wants a very heavy workout
18:04 kemal {re=moving} how heavy are we talking
18:05 maya a sofa that doesn't fit through doors and 14 boxes of books
18:06 kemal I'll bring chalk for grip
# 2026-06-16
19:10 noah {file=kletterwald-topo.pdf:482113;id=topo} topo for the Saturday trip to the Kletterwald, meeting at Ostkreuz 8:30
19:12 maya {re=topo} @noah thanks! I'm in
# 2026-06-30
21:14 maya {id=lisbon} Lisbon 9–16 July with my friend Aylin. Anyone know a bouldering gym there? I don't want to lose all my finger strength
21:20 noah {re=lisbon;embed=Bloc Lisboa|Bouldering gym in Alcântara, Lisbon. Open daily 10:00–23:00, day pass 12 €, shoe rental on site.|https://bloclisboa.example/} Bloc Lisboa in Alcântara, I went last spring. Ask for the board in the back room, the setting is great
21:22 maya that looks perfect, going on the Tuesday
21:30 lea and Sintra has granite boulders if you get a free day, near the Pena Palace road
# 2026-07-14
22:05 maya {id=sent;file=bloc-lisboa-wall.jpg:2311875;react=😍:noah,lea,yuki} Bloc Lisboa: done. Sent the pink one in the back room on the third go
22:09 noah {re=sent} told you. did you make it to Sintra?
22:15 maya Sintra yesterday, no climbing: we did Pena Palace and Quinta da Regaleira and I lost my phone charger in a café
# 2026-07-21
19:05 maya back at Berta tonight, my fingers are soft after a week of pastéis de nata
19:07 kemal {react=😂:maya,noah} welcome back, the purple circuit is gone, you missed nothing
# 2026-09-15
12:00 crimpbot Reminder: Saturday session outdoors at the Kletterwald if it's dry. React with 🧗 if you're coming
18:30 yuki raining Saturday, let's do Berta instead
18:32 noah agreed
"""

DM_SCRIPT = """
# 2026-06-30
21:40 noah you should also check out the board at Bloc Lisboa in the back room, seriously
21:41 maya noted!! send me the instagram
21:43 noah {file=bloc-lisboa-board.jpg:1843302} this one
# 2026-07-02
20:00 noah {call=12}
20:13 maya thanks for the call, I wrote down Bloc Lisboa and the Sintra boulders
# 2026-07-17
01:20 maya home finally, flight was two hours late
09:30 noah {sticker=Sleepy} welcome back
# 2026-09-03
19:00 maya coming to the housewarming on 3 October? Schliemannstraße 21, 4th floor, from 19:00
19:05 noah {edited=19:06} of course, I'll bring a chalk bag as a gift
"""

# The package's third channel: Maya's side only, as the package holds nothing else.
COUCH_SCRIPT = """
# 2026-05-22
21:00 maya anyone up for Mario Kart on Friday? I'll be too sore from packing boxes for anything else
# 2026-10-09
20:30 maya {file=housewarming-karaoke.mp4:5502231} proof that the housewarming karaoke happened
"""


@dataclass(frozen=True)
class Line:
    stamp: datetime  # aware, Europe/Berlin
    sender: str
    flags: dict[str, str]
    text: str


def parse_script(script: str) -> list[Line]:
    lines: list[Line] = []
    day: date | None = None
    for raw in script.strip("\n").split("\n"):
        if raw.startswith("# "):
            day = date.fromisoformat(raw[2:])
        elif raw.startswith("    "):
            last = lines[-1]
            lines[-1] = Line(last.stamp, last.sender, last.flags, f"{last.text}\n{raw[4:]}")
        else:
            assert day is not None, raw
            clock, sender, rest = [*raw.split(" ", 2), ""][:3]
            flags: dict[str, str] = {}
            if rest.startswith("{"):
                inner, rest = rest[1:].split("}", 1)
                for flag in inner.split(";"):
                    key, _, value = flag.partition("=")
                    flags[key] = value
                rest = rest.strip()
            stamp = datetime.combine(day, time.fromisoformat(clock), BERLIN)
            lines.append(Line(stamp, sender, flags, rest))
    return lines


def _digest(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def _snowflake(stamp: datetime, *salt: object) -> str:
    ms = int(stamp.timestamp() * 1000)
    return str(((ms - DISCORD_EPOCH_MS) << 22) | (_digest(*salt) & 0x3FFFFF))


def _with_times(lines: list[Line], salt: str) -> list[tuple[Line, datetime, str]]:
    """Each line with its instant (seconds and milliseconds from a hash) and its snowflake id."""
    out = []
    for index, line in enumerate(lines):
        ms = _digest(salt, index, line.text) % 59000
        stamp = line.stamp + timedelta(milliseconds=ms)
        out.append((line, stamp, _snowflake(stamp, salt, index)))
    return out


def _iso_local(stamp: datetime) -> str:
    """DiscordChatExporter's time: local wall clock with its offset, milliseconds."""
    return stamp.astimezone(BERLIN).isoformat(timespec="milliseconds")


def _package_time(stamp: datetime) -> str:
    """The data package's time: UTC, microseconds, a space between date and time."""
    return stamp.astimezone(UTC).isoformat(sep=" ", timespec="microseconds")


def _user(short: str, roles: bool = True) -> dict[str, object]:
    ident, name, nickname, bot = USERS[short]
    user: dict[str, object] = {
        "id": ident,
        "name": name,
        "discriminator": "0000",
        "nickname": nickname,
        "color": None if bot else "#3BA55C" if short == "lea" else None,
        "isBot": bot,
    }
    if roles:
        user["roles"] = (
            [{"id": "1098765432101234599", "name": "Admin", "color": "#3BA55C", "position": 1}]
            if (short == "lea")
            else []
        )
    user["avatarUrl"] = f"{CDN}/avatars/{ident}/{_digest(short):016x}.png"
    return user


def _attachment(name: str, size: str, salt: str) -> dict[str, object]:
    ident = str(_digest("file", salt, name) >> 4)
    return {
        "id": ident,
        "url": f"{CDN}/attachments/{salt}/{ident}/{name}",
        "fileName": name,
        "fileSizeBytes": int(size),
    }


def _reactions(spec: str) -> list[dict[str, object]]:
    reactions = []
    for part in spec.split("|"):
        emoji, who = part.split(":")
        users = [_user(w, roles=False) for w in who.split(",")]
        for user in users:
            user.pop("color")
        reactions.append(
            {
                "emoji": {"id": "", "name": emoji, "code": emoji, "isAnimated": False, "imageUrl": ""},
                "count": len(users),
                "users": users,
            }
        )
    return reactions


def dce_messages(script: str, channel: dict[str, object]) -> list[dict[str, object]]:
    salt = str(channel["id"])
    timed = _with_times(parse_script(script), salt)
    ids = {line.flags["id"]: ident for line, _, ident in timed if "id" in line.flags}
    messages = []
    for line, stamp, ident in timed:
        flags = line.flags
        kind, content = ("Reply" if "re" in flags else "Default"), _mentions(line.text, "@{nickname}")
        if "join" in flags:
            kind, content = "GuildMemberJoin", "Joined the server."
        elif "pin" in flags:
            kind, content = "ChannelPinnedMessage", "Pinned a message."
        elif "call" in flags:
            kind, content = "Call", f"Started a call that lasted {flags['call']} minutes."
        edited = None
        if "edited" in flags:
            edited = _iso_local(
                datetime.combine(line.stamp.date(), time.fromisoformat(flags["edited"]), BERLIN)
            )
        ended = None
        if "call" in flags:
            ended = _iso_local(stamp + timedelta(minutes=int(flags["call"])))
        message: dict[str, object] = {
            "id": ident,
            "type": kind,
            "timestamp": _iso_local(stamp),
            "timestampEdited": edited,
            "callEndedTimestamp": ended,
            "isPinned": "pinned" in flags,
            "content": content,
            "author": _user(line.sender),
            "attachments": [_attachment(*flags["file"].split(":"), salt)] if "file" in flags else [],
            "embeds": [],
            "stickers": [],
            "reactions": _reactions(flags["react"]) if "react" in flags else [],
            "mentions": [_user(u) for u in USERS if f"@{u}" in line.text],
            "inlineEmojis": [],
        }
        if "embed" in flags:
            title, description, url = flags["embed"].split("|")
            message["embeds"] = [
                {
                    "title": title,
                    "url": url,
                    "timestamp": None,
                    "description": description,
                    "thumbnail": {"url": f"{url}og.jpg", "width": 1200, "height": 630},
                    "images": [],
                    "fields": [],
                    "inlineEmojis": [],
                }
            ]
        if "sticker" in flags:
            name = flags["sticker"]
            sticker_id = str(_digest("sticker", name) >> 4)
            message["stickers"] = [
                {
                    "id": sticker_id,
                    "name": name,
                    "format": "Apng",
                    "sourceUrl": f"{CDN}/stickers/{sticker_id}.png",
                }
            ]
        target = flags.get("re") or flags.get("pin")
        if target:
            message["reference"] = {
                "messageId": ids[target],
                "channelId": channel["id"],
                "guildId": GUILD["id"],
            }
            if channel is DM:
                message["reference"]["guildId"] = None
        messages.append(message)
    return messages


def dce_export(guild: dict[str, object], channel: dict[str, object], script: str) -> dict[str, object]:
    messages = dce_messages(script, channel)
    return {
        "guild": guild,
        "channel": channel,
        "dateRange": {"after": None, "before": None},
        "exportedAt": "2026-10-12T21:04:55.512+02:00",
        "messages": messages,
        "messageCount": len(messages),
    }


def _own(script: str, channel_id: str) -> list[tuple[str, str, str, str]]:
    """Maya's messages of a channel as the package has them: (ID, Timestamp, Contents, Attachments)."""
    rows = []
    for line, stamp, ident in _with_times(parse_script(script), channel_id):
        if line.sender != "maya" or {"join", "pin", "call"} & line.flags.keys():
            continue
        attachment = ""
        if "file" in line.flags:
            name, size = line.flags["file"].split(":")
            attachment = str(_attachment(name, size, channel_id)["url"])
        rows.append((ident, _package_time(stamp), _mentions(line.text, "<@{id}>"), attachment))
    return rows


def _mentions(text: str, form: str) -> str:
    """``@short`` as the export writes a mention: DiscordChatExporter ``@Nickname``, the package ``<@id>``."""
    for short, (ident, _, nickname, _) in USERS.items():
        text = text.replace(f"@{short}", form.format(id=ident, nickname=nickname))
    return text


def _csv_field(value: str) -> str:
    if any(c in value for c in ',"\n\r'):
        return '"' + value.replace('"', '""') + '"'
    return value


def write_package(root: Path) -> None:
    messages = root / "messages"
    general = messages / f"c{GENERAL['id']}"
    dm = messages / f"c{DM['id']}"
    couch = messages / f"c{COUCH['id']}"
    for folder in (general, dm, couch, root / "account"):
        folder.mkdir(parents=True, exist_ok=True)
    maya, noah = USERS["maya"], USERS["noah"]
    index = {
        GENERAL["id"]: f"general in {GUILD['name']}",
        DM["id"]: f"Direct Message with {noah[1]}#0",
        COUCH["id"]: None,  # Discord writes null for a channel it can no longer name
    }
    _write_json(messages / "index.json", index)
    _write_json(
        general / "channel.json",
        {
            "id": GENERAL["id"],
            "type": 0,
            "name": "general",
            "guild": {"id": GUILD["id"], "name": GUILD["name"]},
        },
    )
    _write_json(dm / "channel.json", {"id": DM["id"], "type": 1, "recipients": [maya[0], noah[0]]})
    _write_json(
        couch / "channel.json", {"id": COUCH["id"], "type": 0, "name": COUCH["name"], "guild": COUCH["guild"]}
    )
    # Older packages: CSV, newest message first.
    rows = sorted(_own(GENERAL_SCRIPT, str(GENERAL["id"])), key=lambda r: int(r[0]), reverse=True)
    lines = ["ID,Timestamp,Contents,Attachments"] + [",".join(_csv_field(v) for v in row) for row in rows]
    (general / "messages.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode())
    # Newer packages: JSON, oldest first.
    for folder, script, channel_id in (
        (dm, DM_SCRIPT, str(DM["id"])),
        (couch, COUCH_SCRIPT, str(COUCH["id"])),
    ):
        own = [
            {"ID": int(i), "Timestamp": t, "Contents": c, "Attachments": a}
            for i, t, c, a in _own(script, channel_id)
        ]
        _write_json(folder / "messages.json", own)
    _write_json(
        root / "account" / "user.json",
        {
            "id": maya[0],
            "username": maya[1],
            "discriminator": "0",
            "global_name": maya[2],
            "email": "maya@example.org",
            "verified": True,
            "relationships": [
                {
                    "id": noah[0],
                    "type": 1,
                    "nickname": None,
                    "user": {
                        "id": noah[0],
                        "username": noah[1],
                        "global_name": noah[2],
                        "discriminator": "0",
                    },
                }
            ],
        },
    )
    (root / "README.txt").write_text(
        "This is a copy of the data Discord holds about your account. Messages you sent are in messages/.\n",
        encoding="utf-8",
    )


def _write_json(path: Path, obj: object) -> None:
    # Discord writes compact JSON; DiscordChatExporter writes it indented (see _write_export).
    path.write_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _write_export(path: Path, obj: object) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def main(out: Path) -> None:
    _write_export(out / "discord-kletterkiez-general.json", dce_export(GUILD, GENERAL, GENERAL_SCRIPT))
    direct = {"id": "0", "name": "Direct Messages", "iconUrl": f"{CDN}/embed/avatars/0.png"}
    _write_export(out / "discord-dm-noah.json", dce_export(direct, DM, DM_SCRIPT))
    write_package(out / "discord-package")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
