"""Writes the two Meta sample exports from the conversation scripts below:

- ``facebook-mayalindqvist-2026-10-05-Kq3vT8.zip``: a Facebook "Download your information" zip in JSON,
  newer layout (``your_facebook_activity/messages/...``), holding Messenger threads in ``inbox`` (Aylin,
  in two files), ``message_requests`` (Inês, the Airbnb host, in Portuguese), ``archived_threads`` (Lena,
  about the old flat, in German) and ``filtered_threads`` (spam), plus one photo;
- ``instagram-maya.lindqvist-2026-10-05/``: an unpacked Instagram export, one DM thread with Kasia, whom
  Maya met in Sintra (Polish and English).

Run from anywhere: ``python sample_exports/generate_meta.py [OUT_DIR]``. Output is deterministic:
milliseconds come from hashes of the script, zip entries carry a fixed date.

Meta writes every string as mojibake (its UTF-8 bytes as ``\\u00XX`` escapes), messages newest first,
and ``indent=2`` JSON; so does this script.

Script syntax (one message per line):

    # 2026-07-09                    a day; times below are Europe/Berlin wall clock
    09:48 aylin {flags} text        time, sender, optional {flags}, then the text ("-" for none)

Flags (``;``-separated): ``photo=NAME``, ``video=NAME``, ``audio=NAME``, ``gif=NAME``, ``sticker``,
``share=URL`` (``share_text=...`` for its text), ``call=SECONDS`` (0: missed), ``unsent``,
``react=EMOJI:who`` (``|`` between several), ``unavailable`` (Instagram: nothing but sender and time).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
import zipfile
from datetime import date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
BERLIN = ZoneInfo("Europe/Berlin")
FACEBOOK_ZIP = "facebook-mayalindqvist-2026-10-05-Kq3vT8.zip"
INSTAGRAM_DIR = "instagram-maya.lindqvist-2026-10-05"
ZIP_DATE = (2026, 10, 5, 9, 12, 0)
# The one photo whose file is in the zip: a JPEG's start and end markers, like the WhatsApp sample's.
PHOTO_BYTES = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")

PEOPLE = {
    "maya": "Maya Lindqvist",
    "aylin": "Aylin Demir",
    "ines": "In\u00eas Carvalho",
    "lena": "Lena Hoffmann",
    "spam": "Facebook user",
    "maya_ig": "Maya Lindqvist",
    "kasia": "Kasia Wi\u015bniewska",
}

# folder -> (category, title, participants, messages per file, script)
MESSENGER: dict[str, tuple[str, str, tuple[str, ...], int, str]] = {
    "aylindemir_10159384726154832": (
        "inbox",
        "Aylin Demir",
        ("aylin", "maya"),
        15,
        """
# 2026-07-09
09:12 aylin {photo=10159384726154832_1.jpg} we made it!! 28 degrees at 9 in the morning \u2600\ufe0f
09:13 maya {react=\U0001f60d:aylin} taxi or metro?
09:15 aylin metro to Santa Apol\u00f3nia, then we walk up. In\u00eas says the key is in the box by the door, code 4711 \U0001f511
09:40 maya {sticker} -
14:02 aylin {share=https://www.parquesdesintra.pt/en/parks-monuments/park-and-palace-of-pena/;share_text=Park and National Palace of Pena} tickets for Monday are on my phone, Pena at 10:30
14:05 maya \u00f3timo \U0001f44c
# 2026-07-10
11:20 aylin {call=0} -
11:24 aylin {call=263} -
11:30 maya sorry, was on the tram 28 with no signal. we're at the miradouro now
11:31 maya {video=10159384726154832_2.mp4} the view from Santa Luzia
11:33 aylin {react=\u2764\ufe0f:maya} that's the one from the postcard
19:50 maya {unsent} -
19:51 maya never mind, found the bakery \U0001f950
# 2026-07-11
10:05 aylin bacalhau \u00e0 br\u00e1s for lunch? the tasca on Rua dos Rem\u00e9dios opens at 12
10:06 maya always
# 2026-07-13
08:41 aylin {audio=10159384726154832_3.mp4} -
08:45 maya running, 2 minutes, I'm at Rossio
17:30 aylin {photo=10159384726154832_4.jpg;react=\U0001f602:maya} you, arguing with a peacock at Quinta da Regaleira
17:32 maya he started it
# 2026-07-14
22:15 aylin fado tonight was unreal. I cried at the second song
22:16 maya {react=\u2764\ufe0f:aylin} same. saudade is a real feeling now
# 2026-07-16
07:10 aylin {gif=10159384726154832_5.gif} last day \U0001f62d
07:12 maya one more past\u00e9is de nata run before the airport. non-negotiable
# 2026-07-20
09:05 maya {react=\U0001f602:aylin} the office ate all twelve past\u00e9is in 9 minutes
09:06 aylin proud of them
""",
    ),
    "inescarvalho_10160011223344556": (
        "message_requests",
        "In\u00eas Carvalho",
        ("ines", "maya"),
        10_000,
        """
# 2026-07-08
18:02 ines Ol\u00e1 Maya! Sou a In\u00eas, a anfitri\u00e3 do apartamento na Rua dos Rem\u00e9dios. A Aylin deu-me o seu nome \U0001f60a
18:03 ines Check-in a partir das 15h, mas podem deixar as malas de manh\u00e3. A chave est\u00e1 no cofre ao lado da porta, o c\u00f3digo \u00e9 4711.
18:30 maya Obrigada, In\u00eas! We land at 08:30, so we'll drop the bags in the morning
18:32 ines Perfeito. The tram 28 stops at the corner. Boa viagem! \u2708\ufe0f
# 2026-07-16
11:00 ines Obrigada pela estadia! Deixem a chave no cofre, por favor \U0001f64f
""",
    ),
    "lenahoffmann_10158765432109876": (
        "archived_threads",
        "Lena Hoffmann",
        ("lena", "maya"),
        10_000,
        """
# 2026-04-18
19:22 lena Hallo Maya! Jonas hat erz\u00e4hlt, dass du aus der Weserstra\u00dfe ausziehst. Ist die Wohnung noch frei? Ich w\u00fcrde sie gern \u00fcbernehmen \U0001f64f
19:40 maya Hi Lena! Yes, from 1 June. Herr Yilmaz wants a Nachmieterin, I'll give him your number
19:41 lena Das w\u00e4re gro\u00dfartig, danke!!
# 2026-05-21
12:10 lena Ich habe den Mietvertrag unterschrieben \U0001f389 Ab 1. Juni bin ich in der Weserstra\u00dfe!
12:15 maya {react=\U0001f389:lena} amazing! the kitchen tap drips, just so you know. Herr Yilmaz has been "fixing it" since 2024
# 2026-06-12
16:40 maya I just gave the keys back to Herr Yilmaz. It's all yours \U0001f511
16:41 lena {photo=10158765432109876_1.jpg} schon eingezogen, siehe Foto \U0001f604
""",
    ),
    "facebookuser_10161234000000000": (
        "filtered_threads",
        "Facebook user",
        ("spam", "maya"),
        10_000,
        """
# 2026-08-03
03:14 spam Congratulations \U0001f381 You have been selected for a free cruise to the Bahamas! Claim it here: bit.ly/fr33-cru1se
""",
    ),
}

INSTAGRAM: dict[str, tuple[str, str, tuple[str, ...], int, str]] = {
    "kasia.wisniewska_17842938475610293": (
        "inbox",
        "Kasia Wi\u015bniewska",
        ("kasia", "maya_ig"),
        10_000,
        """
# 2026-07-13
20:15 kasia Cze\u015b\u0107 Maya! Kasia from the Pena queue \U0001f604 mi\u0142o by\u0142o Ci\u0119 pozna\u0107 w Sintrze
20:20 maya_ig Cze\u015b\u0107 Kasia! that's all the Polish I know \U0001f605 so nice to meet you too
20:22 kasia {photo=17842938475610293_1.jpg} the two of us with the yellow towers, you look like a tourist ad
20:25 maya_ig {react=\u2764\ufe0f:kasia} I'm framing this
# 2026-07-14
09:02 kasia {share=https://www.instagram.com/reel/C9qRt2bNx7L/;share_text=Quinta da Regaleira: the initiation well \U0001f300} did you go down the well??
09:10 maya_ig yes!! 9 floors of spiral stairs, my knees are still in there
09:11 kasia {unavailable} -
# 2026-08-30
18:44 kasia Maya! b\u0119d\u0119 w Berlinie 18\u201320 wrze\u015bnia, a conference at the Messe. Kawa? \u2615
18:50 maya_ig YES. Sunday 20th? Mauerpark flea market and then coffee at mine, I finally have a sofa that fits
18:52 kasia {react=\U0001f44d:maya_ig} umowa! (deal!)
# 2026-09-20
17:30 kasia dzi\u0119kuj\u0119 za dzisiaj! the flea market lamp fits in my suitcase, barely \U0001f602
17:35 maya_ig {audio=17842938475610293_2.mp4} -
""",
    ),
}

# --------------------------------------------------------------------------------------------------
# Building the files
# --------------------------------------------------------------------------------------------------

_LINE = re.compile(r"(\d\d):(\d\d) (\w+)(?: \{([^}]*)\})? (.*)")


def mojibake(text: str) -> str:
    """What Meta writes for ``text``: each UTF-8 byte as the code point of the same number."""
    return text.encode("utf-8").decode("latin-1")


def _millis(day: date, hh: int, mm: int, key: str) -> int:
    local = datetime.combine(day, time(hh, mm), tzinfo=BERLIN)
    jitter = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=4).digest()) % 60_000
    return int(local.timestamp()) * 1000 + jitter


def _media(folder_uri: str, kind: str, name: str, ms: int) -> dict:
    return {"uri": f"{folder_uri}/{kind}/{name}", "creation_timestamp": ms // 1000}


def parse_script(script: str, thread: str, folder_uri: str, instagram: bool) -> list[dict]:
    """The messages in time order, as Meta's objects (mojibake applied)."""
    messages: list[dict] = []
    day: date | None = None
    for line in script.strip().splitlines():
        if line.startswith("# "):
            day = date.fromisoformat(line[2:])
            continue
        match = _LINE.fullmatch(line)
        if match is None or day is None:
            raise SystemExit(f"bad script line in {thread}: {line!r}")
        hh, mm, who, flags, text = match.groups()
        ms = _millis(day, int(hh), int(mm), f"{thread}|{line}")
        obj: dict = {"sender_name": mojibake(PEOPLE[who]), "timestamp_ms": ms}
        options = dict(f.split("=", 1) if "=" in f else (f, "") for f in (flags or "").split(";") if f)
        if text != "-":
            obj["content"] = mojibake(text)
        for flag, field, kind in (
            ("photo", "photos", "photos"),
            ("video", "videos", "videos"),
            ("audio", "audio_files", "audio"),
            ("gif", "gifs", "gifs"),
        ):
            if flag in options:
                item = _media(folder_uri, kind, options[flag], ms)
                if flag == "gif":
                    item.pop("creation_timestamp")
                obj[field] = [item]
        if "sticker" in options:
            obj["sticker"] = {
                "uri": "your_facebook_activity/messages/stickers_used/39178562_1505197616293642_5411344281094848512_n.png",
                "ai_stickers": [],
            }
        if "share" in options:
            obj["share"] = {"link": options["share"]}
            if "share_text" in options:
                obj["share"]["share_text"] = mojibake(options["share_text"])
            if instagram:
                obj["share"]["original_content_owner"] = "parquesdesintra"
        if "call" in options:
            obj["call_duration"] = int(options["call"])
        if "react" in options:
            obj["reactions"] = [
                {"reaction": mojibake(emoji), "actor": mojibake(PEOPLE[actor]), "timestamp": ms // 1000 + 60}
                for emoji, actor in (r.split(":") for r in options["react"].split("|"))
            ]
        if "unsent" in options:
            obj["is_unsent"] = True
        obj["is_geoblocked_for_viewer"] = False
        if not instagram or "unavailable" not in options:
            obj["is_unsent_image_by_messenger_kid_parent"] = False
        messages.append(obj)
    return messages


def thread_files(service: str, folder: str, spec: tuple) -> dict[str, bytes]:
    """The thread's ``message_N.json`` files by path: newest first, ``message_1`` the newest."""
    category, title, participants, per_file, script = spec
    root = "your_instagram_activity" if service == "instagram" else "your_facebook_activity"
    folder_uri = f"{root}/messages/{category}/{folder}"
    messages = parse_script(script, folder, folder_uri, service == "instagram")
    newest_first = messages[::-1]
    out = {}
    for number, start in enumerate(range(0, len(newest_first), per_file), start=1):
        data = {
            "participants": [{"name": mojibake(PEOPLE[p])} for p in participants],
            "messages": newest_first[start : start + per_file],
            "title": mojibake(title),
            "is_still_participant": True,
            "thread_path": f"{category}/{folder}",
            "magic_words": [],
        }
        text = json.dumps(data, indent=2, ensure_ascii=True)
        out[f"{folder_uri}/message_{number}.json"] = text.encode("ascii")
    return out


def facebook_zip() -> bytes:
    entries: dict[str, bytes] = {}
    for folder, spec in MESSENGER.items():
        entries.update(thread_files("facebook", folder, spec))
    photo = (
        "your_facebook_activity/messages/inbox/aylindemir_10159384726154832/photos/10159384726154832_1.jpg"
    )
    entries[photo] = PHOTO_BYTES
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, entries[name])
    return buffer.getvalue()


def instagram_files() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for folder, spec in INSTAGRAM.items():
        files.update(thread_files("instagram", folder, spec))
    return files


def write(out: Path) -> None:
    (out / FACEBOOK_ZIP).write_bytes(facebook_zip())
    for name, data in instagram_files().items():
        target = out / INSTAGRAM_DIR / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
