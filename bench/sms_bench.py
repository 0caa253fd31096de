"""SMS import benchmark (issue 22): a generated SMS Backup & Restore XML of N messages (default 100,000) beside a
WhatsApp export of as many messages, each read alone and imported end to end (`refind import`: parse, archive,
index), every phase in a fresh process, the two formats interleaved over ``--rounds`` rounds. The figure that
matters is the ratio of the two formats' messages per second in the same run.

The backup holds the WhatsApp export's chat, message for message (``import_bench.chat_records``: the same
times, texts and turn-taking), spread over threads as a phone's are: a conversation (messages without an
hour's gap) goes to one thread, a contact's or the group's; Maya's messages are the phone's own (sent). In a
contact's thread the side changes wherever the WhatsApp chat's sender does, so both archives get as many
turns; the group (MMS rows, every 25th with a 6 KB photo as base64) has the WhatsApp senders themselves.
``--old-generator`` writes the backup of the first measurements instead (its own texts, a sent/received
coin per message: a third more turns than the WhatsApp chat).

    python bench/sms_bench.py [--messages 100000] [--rounds 2] [--workdir bench/out] [--old-generator]
"""

from __future__ import annotations

import argparse
import base64
import random
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import quoteattr

from import_bench import SENDERS, WORDS, best_rates, chat_records, format_child, generate

PHOTO = base64.b64encode(bytes(range(256)) * 24).decode()  # a 6 KB "photo"
CONTACTS = [s.strip("\u202a\u202c") for s in SENDERS[1:]] + ["Kasia Wi\u015bniewska"]
NUMBERS = ["+49 151 2345 6789", "+4917611112222", "+49 30 1234567", "+48 512 345 678"]


def _sms_row(address: str, contact: str, ms: int, sent: bool, body: str) -> str:
    return (
        f'  <sms protocol="0" address="{address}" date="{ms}" type="{2 if sent else 1}" subject="null" body={body} '
        'toa="null" sc_toa="null" service_center="null" read="1" status="-1" locked="0" date_sent="0" sub_id="1" '
        f'readable_date="x" contact_name="{contact}" />\n'
    )


def _mms_row(i: int, group: str, names: str, ms: int, sender: str, body: str) -> str:
    photo = (
        f'<part seq="0" ct="image/jpeg" name="IMG_{i}.jpg" cl="IMG_{i}.jpg" text="null" data="{PHOTO}" />'
        if i % 25 == 0
        else ""
    )
    box = 2 if sender == "insert-address-token" else 1
    return (
        f'  <mms date="{ms}" msg_box="{box}" address="{group}" contact_name="{names}" readable_date="x">\n'
        f'    <parts><part seq="-1" ct="application/smil" text="&lt;smil/&gt;" />{photo}'
        f'<part seq="0" ct="text/plain" text={body} /></parts>\n'
        f'    <addrs><addr address="{sender}" type="137" charset="106" /></addrs>\n  </mms>\n'
    )


def _body(text: str) -> str:
    # As the app writes them: line breaks as references, an emoji as references to its two surrogates.
    return quoteattr(text, {chr(10): "&#10;", "\U0001f60a": "&#55357;&#56842;"})


def generate_sms(path: Path, n: int, seed: int = 7) -> None:
    """The WhatsApp export's chat as a phone's backup (the module's notes); the app writes all SMS rows first,
    then all MMS rows."""
    rng = random.Random(seed)
    group = "~".join(NUMBERS[:3])
    names = ", ".join(CONTACTS[:3])
    numbers = dict(zip(SENDERS[1:], NUMBERS, strict=False))
    sms_rows: list[str] = []
    mms_rows: list[str] = []
    who = len(NUMBERS)  # a contact, or len(NUMBERS): the group
    previous: datetime | None = None
    sent = True
    last_sender = SENDERS[0]
    for i, (t, sender, text) in enumerate(chat_records(n + 1, seed)):
        if previous is not None and (t - previous).total_seconds() > 3600:  # a new conversation, with anyone
            who = rng.randrange(len(NUMBERS) + 1)
        previous = t
        ms = int(t.replace(tzinfo=UTC).timestamp() * 1000)
        if i % 97 == 0:
            text += " \U0001f60a"
        if who < len(NUMBERS):
            if sender != last_sender:
                sent = not sent
            sms_rows.append(_sms_row(NUMBERS[who], CONTACTS[who], ms, sent, _body(text)))
        else:
            address = "insert-address-token" if sender == SENDERS[0] else numbers[sender]
            sent = sender == SENDERS[0]
            mms_rows.append(_mms_row(i, group, names, ms, address, _body(text)))
        last_sender = sender
    with path.open("w", encoding="utf-8") as fh:
        fh.write("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n")
        fh.write(f'<smses count="{n}" backup_set="bench" backup_date="0" type="full">\n')
        fh.writelines(sms_rows)
        fh.writelines(mms_rows)
        fh.write("</smses>\n")


def generate_sms_old(path: Path, n: int, seed: int = 7) -> None:
    """The backup of the first measurements: its own texts, and who sent each message a coin toss."""
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
    parser.add_argument("--old-generator", action="store_true", help="the backup of the first measurements")
    args = parser.parse_args()
    if args.child:
        format_child(args.child, args.format, args.export, args.home)
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    old = "-old" if args.old_generator else ""
    sms = args.workdir / f"sms-bench{old}-{args.messages}.xml"
    whatsapp = args.workdir / f"WhatsApp Chat with Bench {args.messages}.txt"
    if not sms.exists():
        (generate_sms_old if args.old_generator else generate_sms)(sms, args.messages)
    if not whatsapp.exists():
        generate(whatsapp, args.messages)
    best = best_rates(__file__, {"whatsapp": whatsapp, "sms": sms}, args.rounds, args.workdir / "home-sms")
    for phase in ("parse", "e2e"):
        for clock in ("wall", "cpu"):
            sms_best, wa_best = best[("sms", phase, clock)], best[("whatsapp", phase, clock)]
            print(
                f"{phase} ({clock}): SMS {sms_best:,.0f} msg/s, WhatsApp {wa_best:,.0f} msg/s,"
                f" ratio WhatsApp/SMS {wa_best / sms_best:.2f}"
            )


if __name__ == "__main__":
    main()
