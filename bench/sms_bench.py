"""SMS import benchmark (issue 22): a generated SMS Backup & Restore XML of N messages (default 100,000: SMS
rows with four contacts and MMS rows in a group of three, every 25th MMS carrying a 6 KB photo as base64; a
conversation goes on in one thread until a gap of hours, as WhatsApp's does) beside a WhatsApp export of as many messages (``import_bench.generate``, the same words and senders),
each read alone and imported end to end (`refind import`: parse, archive, index), every phase in a fresh
process, the two formats interleaved over ``--rounds`` rounds. The figure that matters is the ratio of the two
formats' messages per second in the same run.

    python bench/sms_bench.py [--messages 100000] [--rounds 2] [--workdir bench/out]
"""

from __future__ import annotations

import argparse
import base64
import random
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import quoteattr

from import_bench import SENDERS, WORDS, best_rates, format_child, generate

PHOTO = base64.b64encode(bytes(range(256)) * 24).decode()  # a 6 KB "photo"
CONTACTS = [s.strip("\u202a\u202c") for s in SENDERS[1:]] + ["Kasia Wi\u015bniewska"]
NUMBERS = ["+49 151 2345 6789", "+4917611112222", "+49 30 1234567", "+48 512 345 678"]


def generate_sms(path: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(WORDS))]
    ms = int(datetime(2019, 1, 1, 8, tzinfo=UTC).timestamp() * 1000)
    group = "~".join(NUMBERS[:3])
    names = ", ".join(CONTACTS[:3])
    with path.open("w", encoding="utf-8") as fh:
        fh.write("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n")
        fh.write(f'<smses count="{n}" backup_set="bench" backup_date="{ms}" type="full">\n')
        who = 0  # a contact, or len(NUMBERS): the group
        for i in range(n):
            gap = rng.choice((10, 30, 60, 120, 600, 3600 * 5))
            ms += gap * 1000
            if gap > 3600:  # a new conversation, with anyone (the sessions WhatsApp's export has)
                who = rng.randrange(len(NUMBERS) + 1)
            text = " ".join(rng.choices(WORDS, weights, k=rng.randint(2, 18)))
            if i % 97 == 0:
                text += "\n" + " ".join(rng.choices(WORDS, weights, k=6)) + " \U0001f60a"
            sent = rng.random() < 0.45
            # As the app writes them: line breaks as references, an emoji as references to its two surrogates.
            body = quoteattr(text, {chr(10): "&#10;", "\U0001f60a": "&#55357;&#56842;"})
            if who < len(NUMBERS):
                fh.write(
                    f'  <sms protocol="0" address="{NUMBERS[who]}" date="{ms}" type="{2 if sent else 1}" '
                    f'subject="null" body={body} toa="null" sc_toa="null" service_center="null" read="1" '
                    f'status="-1" locked="0" date_sent="0" sub_id="1" readable_date="x" '
                    f'contact_name="{CONTACTS[who]}" />\n'
                )
                continue
            photo = (
                f'<part seq="0" ct="image/jpeg" name="IMG_{i}.jpg" cl="IMG_{i}.jpg" text="null" data="{PHOTO}" />'
                if i % 25 == 0
                else ""
            )
            sender = "insert-address-token" if sent else NUMBERS[rng.randrange(3)]
            fh.write(
                f'  <mms date="{ms}" msg_box="{2 if sent else 1}" address="{group}" contact_name="{names}" '
                'readable_date="x">\n'
                f'    <parts><part seq="-1" ct="application/smil" text="&lt;smil/&gt;" />{photo}'
                f'<part seq="0" ct="text/plain" text={body} /></parts>\n'
                f'    <addrs><addr address="{sender}" type="137" charset="106" /></addrs>\n  </mms>\n'
            )
        fh.write("</smses>\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--child")
    parser.add_argument("--export", type=Path)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--format")
    args = parser.parse_args()
    if args.child:
        format_child(args.child, args.format, args.export, args.home)
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    sms = args.workdir / f"sms-bench-{args.messages}.xml"
    whatsapp = args.workdir / f"WhatsApp Chat with Bench {args.messages}.txt"
    if not sms.exists():
        generate_sms(sms, args.messages)
    if not whatsapp.exists():
        generate(whatsapp, args.messages)
    best = best_rates(__file__, {"whatsapp": whatsapp, "sms": sms}, args.rounds, args.workdir / "home-sms")
    for phase in ("parse", "e2e"):
        sms_best, wa_best = best[("sms", phase)], best[("whatsapp", phase)]
        print(
            f"{phase}: SMS {sms_best:,.0f} msg/s, WhatsApp {wa_best:,.0f} msg/s, ratio WhatsApp/SMS {wa_best / sms_best:.2f}"
        )


if __name__ == "__main__":
    main()
