"""Issue 24, item 4 (sessions 11, 12, 14, 15): time and peak RSS of every command on a home holding one huge message,
for the release before (``--base``) and this checkout, beside the same commands on a one-line chat, in one
run.

    git archive main | tar -x -C /tmp/huge-base
    python bench/huge_commands_figures.py --base /tmp/huge-base [--mb 50] [--after-mb 4]

Inputs: a one-line WhatsApp chat (the baseline); a WhatsApp chat whose one huge message is its last; the
huge message followed by ``--after-mb`` of ordinary messages (the reader reads on past it); the huge message
made of short lines (a pasted log) and followed; the first two, and the pasted log, as LINE exports (the
line-by-line reader of LINE, KakaoTalk and Signal logs); the pasted log as the last message of a KakaoTalk
CSV, inside a sigtop export and an iMessage TXT conversation, and in a Discord data package's messages.csv;
the huge message quoted in a sigtop export, the quoting message's text short (session 18)
(``--command`` runs some commands only); a Telegram result.json holding a message of ``--tg-mb`` (Telegram refuses a JSON token over 8 MB) between two short
ones. The huge text says "abc" near its start (inside the indexed part, at 1 % of it or 430,000
characters). Each import runs in a fresh child (``IMPORT_CHILD``: the importing process's VmHWM and
its worker's); every other command is a fresh ``python -m refind_cli`` whose peak RSS is read from
``RUSAGE_CHILDREN``. The checkouts take turns on each input. Each home also gets a one-line chat of its
own (imported second, unmeasured), which ``chats merge`` then takes the huge message's chat into.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_figures import MB, ROOT, measure_import, run_measured
from hostile_two_figures import first_session

WORDS = "all work and no play makes jack a dull boy "


def _body(megabytes: int) -> str:
    """``megabytes`` of words, "abc" at 1 % of them, within the indexed part (``INDEXED_CHARS``) whatever
    the size."""
    count = megabytes * MB // len(WORDS)
    before = min(count // 100, 10_000)
    return WORDS * before + "abc " + WORDS * (count - before)


def _lines(megabytes: int) -> str:
    """A pasted log: short lines, "abc" on one near the start."""
    count = megabytes * MB // len(WORDS)
    line = WORDS.strip() + "\n"
    return line * (count // 100) + "abc\n" + line * (count - count // 100)


def _wa(folder: Path, text: str, name: str = "Jack") -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"WhatsApp Chat with {name}.txt"
    path.write_text(text)
    return path


def wa_one_line(folder: Path, _mb: int, _after: int) -> Path:
    return _wa(folder, "01/02/2024, 10:59 - Ann: hi abc\n")


def wa_last(folder: Path, mb: int, _after: int) -> Path:
    return _wa(folder, f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {_body(mb)}\n")


def _wa_followed(folder: Path, body: str, after: int) -> Path:
    path = _wa(folder, f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n")
    line = "02/02/2024, {:02d}:{:02d} - Ann: message {} about the flat in lisbon\n"
    with path.open("a") as fh:
        written = i = 0
        while written < after * MB:
            text = line.format(i // 60 % 24, i % 60, i)
            fh.write(text)
            written += len(text)
            i += 1
    return path


def wa_followed(folder: Path, mb: int, after: int) -> Path:
    return _wa_followed(folder, _body(mb), after)


def wa_lines_followed(folder: Path, mb: int, after: int) -> Path:
    return _wa_followed(folder, _lines(mb), after)


_LINE_HEAD = "[LINE] Chat history with Jack\nSaved on: 2024/02/01 12:00\n\n2024/02/01(Thu)\n"


def _line(folder: Path, body: str, after: int) -> Path:
    path = folder / "[LINE] Chat with Jack.txt"
    with path.open("w") as fh:
        fh.write(f"{_LINE_HEAD}10:59\tAnn\thi\n11:00\tJack\t{body}\n")
        written = i = 0
        while written < after * MB:
            text = f"11:01\tAnn\tmessage {i} about the flat in lisbon\n"
            fh.write(text)
            written += len(text)
            i += 1
    return path


def line_last(folder: Path, mb: int, _after: int) -> Path:
    return _line(folder, _body(mb), 0)


def line_followed(folder: Path, mb: int, after: int) -> Path:
    return _line(folder, _body(mb), after)


def line_lines_followed(folder: Path, mb: int, after: int) -> Path:
    """A pasted log in LINE (quoted, as LINE writes a text of several lines), ordinary messages after it."""
    return _line(folder, f'"{_lines(mb).rstrip()}"', after)


def kakao_csv_last(folder: Path, mb: int, _after: int) -> Path:
    """A KakaoTalk CSV (the macOS app's) whose last message is the huge one, quoted short lines."""
    path = folder / "KakaoTalk_Chat_Jack.csv"
    head = 'Date,User,Message\n2024-02-01 10:59:00,"Ann","hi"\n'
    path.write_text(f'{head}2024-02-01 11:00:00,"Jack","{_lines(mb).rstrip()}"\n')
    return path


def _pasted_export(
    path: Path,
    mb: int,
    who: tuple[str, str],
    message: str,
    around: tuple[str, str, str],
    written: Callable[[str], str] = str,
) -> Path:
    """An export of three messages, the middle one ``who[1]``'s pasted log, the others ``who[0]``'s: each
    ``message`` formatted with its number, sender and text (as ``written`` writes it); ``around``: what comes
    before them, between two, after them."""
    head, between, tail = around
    texts = [(who[0], "hi"), (who[1], written(_lines(mb).rstrip())), (who[0], "ok")]
    path.write_text(
        head + between.join(message.format(i=i, who=w, text=t) for i, (w, t) in enumerate(texts)) + tail
    )
    return path


def sigtop_lines(folder: Path, mb: int, _after: int) -> Path:
    """sigtop's text export whose middle message is a pasted log."""
    message = "From: {who}\nType: incoming\nSent: Thu, 1 Feb 2024 11:{i:02d}:00 +0000\n\n{text}\n"
    return _pasted_export(
        folder / "Jack.txt", mb, ("Ann", "Jack"), message, ("Conversation: Jack\n\n", "\n", "")
    )


def sigtop_quoted(folder: Path, mb: int, _after: int) -> Path:
    """sigtop's text export whose middle message quotes a huge one (session 18): its text is short, the
    huge part is in its raw record only (held in a file and stored apart), with an emoji elsewhere."""
    message = "From: {who}\nType: incoming\nSent: Thu, 1 Feb 2024 11:{i:02d}:00 +0000\n\n{text}\n"
    texts = [("Ann", "hi"), ("Jack", f"> From: Ann 😀\n> {_body(mb)}\n\nyes abc"), ("Ann", "ok")]
    path = folder / "Jack.txt"
    path.write_text(
        "Conversation: Jack\n\n"
        + "\n".join(message.format(i=i, who=w, text=t) for i, (w, t) in enumerate(texts))
    )
    return path


def imessage_lines(folder: Path, mb: int, _after: int) -> Path:
    """An imessage-exporter TXT conversation whose middle message is a pasted log (session 16)."""
    message = "Feb 01, 2024 11:{i:02d}:00 AM\n{who}\n{text}"
    return _pasted_export(folder / "Jack.txt", mb, ("Jack", "Me"), message, ("", "\n\n", "\n"))


def imessage_html_lines(folder: Path, mb: int, _after: int) -> Path:
    """An imessage-exporter HTML conversation whose middle message is a pasted log (session 17)."""
    message = (
        '<div class="message">\n<div class="received">\n<p><span class="timestamp">Feb 01, 2024 11:{i:02d}:00 AM'
        '</span>\n<span class="sender">{who}</span>\n</p>\n<hr>\n<div class="message_part"><span class="bubble">'
        "{text}</span></div>\n</div>\n</div>\n\n"
    )
    return _pasted_export(
        folder / "Jack.html",
        mb,
        ("Jack", "Me"),
        message,
        ('<html>\n<meta charset="UTF-8">\n\n', "", "</html>\n"),
    )


def sms_lines(folder: Path, mb: int, _after: int) -> Path:
    """An SMS Backup & Restore backup whose middle row (a message sent) is a pasted log, its line breaks
    written as the app writes them (session 18)."""
    message = (
        '  <sms protocol="0" address="+15550001" date="170678{i}000000" type="{who}" subject="null" '
        'body="{text}" read="1" status="-1" locked="0" date_sent="0" contact_name="Jack" />\n'
    )
    head = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<smses count=\"3\" type=\"full\">\n"
    return _pasted_export(
        folder / "sms-20240201.xml",
        mb,
        ("1", "2"),
        message,
        (head, "", "</smses>\n"),
        lambda text: text.replace("\n", "&#10;"),
    )


def discord_package(folder: Path, text: str) -> Path:
    """A Discord data package (its folder) whose one channel's messages.csv holds ``text`` (as the csv module
    writes it: quoted, its quotes doubled) between two short messages (session 15)."""
    package = folder / "package"
    channel = package / "messages" / "c111"
    channel.mkdir(parents=True)
    (package / "account").mkdir()
    (package / "account" / "user.json").write_text('{"id": "7", "username": "jack"}')
    (package / "messages" / "index.json").write_text('{"111": "general in Crag"}')
    (channel / "channel.json").write_text('{"id": "111", "type": 0, "name": "general"}')
    cell = '"' + text.replace('"', '""') + '"'
    with (channel / "messages.csv").open("w") as fh:
        fh.write("ID,Timestamp,Contents,Attachments\n")
        for i, contents in enumerate(["ok", cell, "hi"]):
            fh.write(f"{1003 - i},2024-02-01 11:0{2 - i}:00.000000+00:00,{contents},\n")
    return package


def discord_csv_lines(folder: Path, mb: int, _after: int) -> Path:
    """A Discord data package whose middle message is a pasted log."""
    return discord_package(folder, _lines(mb).rstrip())


def tg_between(folder: Path, mb: int, _after: int) -> Path:
    """``mb``: here ``--tg-mb``."""

    def message(i: int, text: str) -> dict[str, object]:
        return {
            "id": i,
            "type": "message",
            "date": "2024-01-01T10:00:00",
            "date_unixtime": str(1704099600 + i),
        } | {
            "from": "Ann",
            "from_id": "user7",
            "text": text,
        }

    path = folder / "result.json"
    chat = {"name": "Ann", "type": "personal_chat", "id": 7}
    chat["messages"] = [message(1, "hi"), message(2, _body(mb)), message(3, "ok")]
    path.write_text(json.dumps(chat, indent=1))
    return path


INPUTS: dict[str, Callable[[Path, int, int], Path]] = {
    "one line": wa_one_line,
    "WhatsApp, last": wa_last,
    "WhatsApp, followed": wa_followed,
    "WhatsApp, lines, followed": wa_lines_followed,
    "LINE, last": line_last,
    "LINE, followed": line_followed,
    "LINE, lines, followed": line_lines_followed,
    "KakaoTalk CSV, lines, last": kakao_csv_last,
    "sigtop, lines": sigtop_lines,
    "sigtop, quoted": sigtop_quoted,
    "iMessage TXT, lines": imessage_lines,
    "iMessage HTML, lines": imessage_html_lines,
    "SMS XML, lines": sms_lines,
    "Discord package CSV, lines": discord_csv_lines,
    "Telegram, between": tg_between,
}


def commands(session: str) -> dict[str, list[str]]:
    return {
        "show": ["show", session],
        "show --json": ["show", session, "--json"],
        "search abc --window 3": ["search", "abc", "--window", "3"],
        "search abc --json": ["search", "abc", "--json"],
        "ask --offline": ["ask", "--offline", "abc?"],
        "stats": ["stats"],
        "reindex": ["reindex"],
        "doctor": ["doctor"],
        # The huge message's chat (the first imported) moves into the one-line one.
        "chats merge 2 1": ["chats", "merge", "2", "1"],
        "forget --matching abc": ["forget", "--matching", "abc", "--yes"],  # last: it changes the home
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="checkout of the release before")
    parser.add_argument("--mb", type=int, default=50, help="the huge message's size")
    parser.add_argument("--after-mb", type=int, default=4, help="ordinary messages after it (followed)")
    parser.add_argument("--tg-mb", type=int, default=7, help="the Telegram message's size (under 8 MB)")
    parser.add_argument("--only", choices=sorted(INPUTS), action="append", help="these inputs only")
    parser.add_argument(
        "--command", choices=sorted(commands("")), action="append", help="these commands only"
    )
    args = parser.parse_args()
    checkouts = {"before": args.base.resolve(), "after": ROOT}
    print(f"load average {os.getloadavg()[0]:.1f} at start", flush=True)
    print(f"{'input':<26} {'command':<22} {'code':<7} {'time':>8} {'peak RSS':>9} {'worker':>7}")
    with tempfile.TemporaryDirectory(prefix="refind-huge-commands-") as tmp:
        for i, name in enumerate(args.only or INPUTS):
            folder = Path(tmp) / str(i)
            folder.mkdir()
            path = INPUTS[name](folder, args.tg_mb if name.startswith("Telegram") else args.mb, args.after_mb)
            homes = {code: folder / f"home-{code}" for code in checkouts}
            refused = set()  # a release that refuses the input (main: a CSV field over 128K characters)
            for code, source in checkouts.items():
                f = measure_import(path, homes[code], source)
                if "crash" in f:
                    print(f"{name:<26} {'import':<22} {code:<7} refused: {f['crash']}", flush=True)
                    refused.add(code)
                    continue
                print(
                    f"{name:<26} {'import':<22} {code:<7} {f['seconds']:>7.1f}s {f['main_mb']:>7.0f}MB"
                    f" {f['worker_mb']:>5.0f}MB",
                    flush=True,
                )
                other = measure_import(
                    _wa(folder / "other", "01/02/2024, 09:00 - Zed: hello\n", "Zed"), homes[code], source
                )
                if "crash" in other:
                    raise SystemExit(f"{name} ({code}): import of the other chat: {other['crash']}")
            imported = {code: source for code, source in checkouts.items() if code not in refused}
            sessions = {code: first_session(homes[code], source, "abc") for code, source in imported.items()}
            for label in args.command or commands(""):
                for code, source in imported.items():
                    argv = commands(sessions[code])[label]
                    r = run_measured(
                        [sys.executable, "-m", "refind_cli", "--home", str(homes[code]), *argv], source
                    )
                    failed = f" exit {r['rc']}: {' '.join(r['stderr'])[:60]}" if r["rc"] else ""
                    print(
                        f"{name:<26} {label:<22} {code:<7} {r['seconds']:>7.1f}s {r['rss_mb']:>7.0f}MB{failed}",
                        flush=True,
                    )
            shutil.rmtree(path) if path.is_dir() else path.unlink()  # a Discord package is a folder
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
