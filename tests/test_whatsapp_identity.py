"""A WhatsApp chat imported by an earlier release and imported again now adds nothing: every message of a
varied set of exports reads as it did then (identity, instant, kind, edited flag, raw record).

``fixtures/whatsapp_identities.json`` was written by ``main`` at 3b70f80, the reader that decoded the
whole file, from exactly the exports below (``python tests/test_whatsapp_identity.py`` on that checkout):
a digest per export of what every message read as, and their count. The exports cover the header
families, locales, authors, markers, malformed dates and the layouts' mixtures, and two long ones that
cross the reader's read boundaries many times.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import warnings
import zipfile
from datetime import UTC
from pathlib import Path
from zoneinfo import ZoneInfo

from samples import JONAS, SAMPLES

from refind_cli.importers import whatsapp
from refind_cli.storage.identity import Identity

FROZEN = Path(__file__).parent / "fixtures" / "whatsapp_identities.json"
BERLIN = ZoneInfo("Europe/Berlin")
LRM, RLM, NBSP, NNBSP = "\u200e", "\u200f", "\u00a0", "\u202f"

SHORT = {
    "android_24h.txt": "18/03/2022, 14:56 - Dmitry S: Hello\n18/03/2022, 14:57 - Anna: How are you?\n",
    "android_12h.txt": (
        "1/29/18, 12:24 AM - Mallory: just after midnight\n1/29/18, 12:24 PM - Mallory: noon\n"
        f"1/29/18, 1:05{NNBSP}PM - Mallory: narrow space\n1/29/18, 11:59{NBSP}pm - Mallory: nbsp\n"
    ),
    "spanish.txt": f"28/3/2025 9:29 p.{NBSP}m. - Ana: hola\n28/3/2025 9:30 a.{NBSP}m. - Ana: adiós\n",
    "canadian.txt": "2019-08-06, 7:03 a.m. - Bob: morning\n2019-08-06, 7:03 p.m. - Bob: evening\n",
    "german.txt": "29.01.18, 12:24 - Hans: Hallo <Diese Nachricht wurde bearbeitet>\n30.01.18, 8:00 - Eva: Na\n",
    "czech.txt": "23.03.22 13:31 - Jan: Ahoj\n24.03.22 13:31 - Jan: Ahoj\n",
    "finnish.txt": "13.6.2018 klo 21.25.15 - Matti: Moi\n13.6.2018 klo 21.26.00 - Liisa: Hei\n",
    "ios.txt": (
        "[3/27/22, 21:41:00] Dmitry S: hi\n"
        f"{LRM}[3/27/22, 21:41:55] Dmitry S: {LRM}image omitted\n"
        "[3/27/22, 21:50:25] Dmitry S: Resume.pdf • 2 pages document omitted\n"
        f"[3/27/22, 21:51:00] Dmitry S: {LRM}<attached: 00000035-PHOTO-2022-03-27-21-41-55.jpg>\n"
        f"[3/27/22, 21:52:00] Dmitry S: 2015-08-04-PHOTO-00004762.jpg <{LRM}attached>\n"
        "[3/27/22, 21:53:00] Dmitry S: Location: https://maps.google.com/?q=51.5021456,-0.127397\n"
        "[3/27/22, 21:54:45] Elon Musk: This message was deleted.\n"
        f"[3/18/22, 14:56:01] Elon Musk: {LRM}Messages and calls are end-to-end encrypted.\n"
        f"[4/28/22, 20:19:00] Trip: {LRM}Alice added Bob\n"
        f"[4/28/22, 20:20:00] {LRM}Alice added Carol\n"
        "[4/28/22, 20:21:00] Elon Musk: line one\r\nline two <This message was edited.>\r\n"
    ),
    "time_first.txt": "[14:56:01, 3/18/22] Dmitry S: Hello World\n[09:00:00, 3/19/22] Dmitry S: again\n",
    "arabic.txt": (
        f"[٢٧{RLM}/٣{RLM}/٢٠٢٢، ٩:٥٣:٥٦{NBSP}م] سارة: مرحبا\n[٢٨{RLM}/٣{RLM}/٢٠٢٢، ٩:٠٠:٠٠{NBSP}ص] سارة: صباح\n"
    ),
    "buddhist.txt": "[3/18/2565 BE, 14:56:01] Somchai: Hi\n[3/27/2565 BE, 21:41:35] Dmitry: Yo\n",
    "reiwa.txt": "[3/18/R4, 14:56:01] Ken: Hi\n[1/7/R5, 23:32:30] Ken: Yo\n",
    "old_ios.txt": "7/1/16, 4:56:55 PM: Sophia H.: hi there\n7/2/16, 9:00:00 AM: Sophia H.: again\n",
    "korean.txt": "[2023. 1. 5. 오후 3:25:10] Jane Doe: tea\n[2023. 1. 5. 오전 12:25:10] Jane Doe: 차\n",
    "chinese.txt": "2023/1/5 下午3:25 - Jane Doe: tea\n2023/01/05 下午4:15 - Jane Doe: 茶\n",
    "morning.txt": "[1/20/22, 9:15:00 in the morning] Jane: tea\n[1/20/22, 10:15:00 at night] Jane: bed\n",
    "authors.txt": (
        "[2026/7/9 02:28:09] Bob:Hi\n"
        f"[2026/7/9 02:28:10] \u202a+40{NBSP}521{NBSP}028\u201162\u202c: phone\n"
        f"[2026/7/9 02:28:11] ~{NNBSP}Dana: hi all\n"
        "[2026/7/9 02:28:12] Carol: the time is 10:30: late\n"
        "[2026/7/9 02:28:13] Carol:\n"
        "[2026/7/9 02:28:14] Jean-Luc - Work: Re: meeting: at 10\n"
        f"[2026/7/9 02:28:15] {LRM}A{NBSP}B: {LRM}ﬁne{NBSP}and\u2009thin \u2068@Priya\u2069\n"
    ),
    "system.txt": (
        "20/03/2022, 09:00 - Messages and calls are end-to-end encrypted. Tap to learn more.\n"
        '18/03/2022, 14:56 - Alice created group "Trip"\n'
        '18/03/2022, 14:58 - Alice changed the subject from "Trip" to "Trip: Paris"\n'
        "18/03/2022, 14:59 - \u202a+49 151 2345678\u202c joined using this group's invite link\n"
        "18/03/2022, 15:00 - Bob left\n"
        "18/03/2022, 15:01 - A: <Media omitted>\n"
        "18/03/2022, 15:02 - A: IMG-20210428-WA0001.jpg (file attached)\ncaption on the next line\n"
        "18/03/2022, 15:03 - A: same\n18/03/2022, 15:03 - A: same\n18/03/2022, 15:03 - A: same\n"
    ),
    "malformed.txt": (
        "18/03/2022, 14:56 - A: see\n31/02/2022, 10:00 - Ann: transfer it\nnow\n"
        "18/03/2022, 25:10 - B: late\n18/03/9999, 10:00 - C: far\n18/03/2022, 14:58 - B: ok\n"
    ),
    "continuation.txt": (
        "\ufeff\n \n[04/03/25, 14:07:30] Marcus: Agenda:\r\n1. budget\n2. hiring\r\n\r\nend\r\n"
        "[04/03/25, 14:08:00] Priya: ok\r\nlooks like 04/03/25 but is not\r"
        "\ufeff[04/03/25, 14:09:00] Priya: one\u2028two\r\n\r\n"
    ),
    "mixed_layouts.txt": (
        "18/03/2022, 14:56 - A: dashed\n[18/03/2022, 14:57:00] B: bracketed in the same file\n"
        f"18/03/2022,{NBSP}14:58 - A: nbsp\n{LRM}18/03/2022, 14:59 - A: marked\n"
    ),
    "dst.txt": (
        "26/03/2023, 01:30 - A: before\n26/03/2023, 02:30 - A: skipped\n26/03/2023, 03:30 - A: after\n"
        "29/10/2023, 02:30 - A: first\n29/10/2023, 02:10 - A: second\n29/10/2023, 03:00 - A: end\n"
    ),
    "month_first_by_decrease.txt": "01/05/2022, 10:00 - A: a\n02/01/2022, 10:00 - A: b\n02/03/2022, 10:00 - A: c\n",
    "utf16.txt": "18/03/2022, 14:56 - Zoë: größer ✓ 🎉\n18/03/2022, 14:57 - Zoë: ja\n",
    "no_newline_at_end.txt": "18/03/2022, 14:56 - A: one\n18/03/2022, 14:57 - A: two",
}


def long_chat(n: int, day_first: bool) -> str:
    """A chat of ``n`` records over a few years: multi-line messages, media, malformed stamps, odd layouts."""
    lines = []
    for i in range(n):
        day, month, year = i % 28 + 1, i // 28 % 12 + 1, 2019 + i // 336 % 6
        date = f"{day:02d}/{month:02d}/{year}" if day_first else f"{month}/{day}/{year % 100:02d}"
        stamp = f"{date}, {i % 24:02d}:{i * 7 % 60:02d}"
        who = ("Ann", "Bo Li", "~\u202fZoë", "Jean-Luc - Work")[i % 4]
        if i % 97 == 96:
            impossible = f"31/02/{year}" if day_first else f"2/31/{year % 100:02d}"
            lines.append(f"{impossible}, 10:00 - {who}: impossible day {i}")
        elif i % 31 == 0:
            lines.append(f"{stamp} - {who}: <Media omitted>")
        elif i % 13 == 0:
            lines.append(
                f"{stamp} - {who}: first line {i}\nsecond line — ü\n\nlast {i} <This message was edited>"
            )
        elif i % 53 == 0:
            lines.append(f"{LRM}[{date}, {i % 24:02d}:00:00] {who}: bracketed {i}")
        else:
            lines.append(f"{stamp} - {who}: message {i} " + "word " * (i % 40))
    return "\n".join(lines) + "\n"


def exports(folder: Path) -> list[Path]:
    """The exports, written into ``folder``."""
    paths = []
    for name, text in SHORT.items():
        path = folder / name
        path.write_bytes(text.encode("utf-16" if name.startswith("utf16") else "utf-8"))
        paths.append(path)
    day_first = folder / "long_day_first.txt"
    day_first.write_text(long_chat(40_000, day_first=True), encoding="utf-8")
    month_first = folder / "long_month_first.zip"
    with zipfile.ZipFile(month_first, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("WhatsApp Chat with Ann.txt", long_chat(30_000, day_first=False).replace("\n", "\r\n"))
    for sample in (JONAS, SAMPLES / "WhatsApp Chat - Family.zip"):
        paths.append(Path(shutil.copy(sample, folder / sample.name)))
    return [*paths, day_first, month_first]


def reading(path: Path) -> dict[str, object]:
    """What the export reads as: a digest of every message's identity and fields, and the count."""
    uids, fields = hashlib.blake2b(digest_size=16), hashlib.blake2b(digest_size=16)
    count = 0
    uid = Identity().uid
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for export in whatsapp.read(path, tz=BERLIN):
            for m in export.messages:
                count += 1
                uids.update(uid(m.source_id, m.local_time, 0, m.sender, m.text).encode() + b"\n")
                stamp = m.timestamp.astimezone(UTC).isoformat()
                fields.update(repr((export.chat, stamp, m.sender, m.kind, m.edited, m.raw, m.own)).encode())
    return {"messages": count, "identities": uids.hexdigest(), "fields": fields.hexdigest()}


def test_every_export_reads_as_the_earlier_release_read_it(tmp_path: Path) -> None:
    frozen = json.loads(FROZEN.read_text(encoding="utf-8"))
    now = {path.name: reading(path) for path in exports(tmp_path)}
    assert sorted(now) == sorted(frozen)
    assert {name: now[name] for name in frozen if now[name] != frozen[name]} == {}


if __name__ == "__main__":  # writes the fixture: run on the release whose readings are frozen
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        frozen = {path.name: reading(path) for path in exports(Path(folder))}
    FROZEN.write_text(json.dumps(frozen, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.exit(0)
