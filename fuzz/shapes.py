"""How fuzz bytes become an export on disk, the seeds each importer's target starts from, and the checks
every input must pass. Pure Python without atheris, so the runner can build and verify seeds before fuzzing.

The importer contract (``refind_cli/importers/__init__.py``): any input yields records or raises
``InputError``. The records must also be storable: the archive keeps text as UTF-8 and times as aware
UTC, so a lone surrogate or a naive datetime that escapes an importer is a bug as real as a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from refind_cli.errors import InputError
from refind_cli.importers import Importer, container
from refind_cli.records import ChatExport, HeldText, Kind

SAMPLES = Path(__file__).resolve().parent.parent / "sample_exports"
# A zone with clock changes, so that the DST paths of the text importers are reached.
TZ = ZoneInfo("Europe/Berlin")

# Separates the files of a multi-file export (Slack) inside one fuzz input. Mutations keep it where the
# seeds put it often enough, and an input without it is simply a day file alone.
SEPARATOR = b"\n\x00--\x00\n"

WHATSAPP_MODES = ("txt", "zip-member", "raw-zip")
SLACK_FOLDER = "general"
SLACK_FILES = (
    f"{SLACK_FOLDER}/2024-01-01.json",
    "channels.json",
    "users.json",
    f"{SLACK_FOLDER}/2024-01-02.json",
)
# Telegram reads its file in chunks of this size; the fuzzer picks smaller ones to put escapes and
# multi-byte characters across chunk boundaries.
TELEGRAM_BIG_CHUNK = 1 << 20


def write_whatsapp(data: bytes, folder: Path) -> Path:
    """First byte: the shape (a loose .txt, a zip holding ``_chat.txt``, or the bytes as a zip file)."""
    mode = WHATSAPP_MODES[data[0] % len(WHATSAPP_MODES)] if data else "txt"
    body = data[1:]
    if mode == "txt":
        path = folder / "WhatsApp Chat with Fuzz.txt"
        path.write_bytes(body)
    elif mode == "zip-member":
        path = folder / "WhatsApp Chat - Fuzz.zip"
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("_chat.txt", body)
        path.write_bytes(buffer.getvalue())
    else:
        path = folder / "WhatsApp Chat - Raw.zip"
        path.write_bytes(body)
    return path


def write_slack(data: bytes, folder: Path) -> Path:
    """Parts split at SEPARATOR: a day file, channels.json, users.json, a second day file. Absent parts
    leave their file out, so every combination of present metadata is reachable."""
    root = folder / "slack"
    (root / SLACK_FOLDER).mkdir(parents=True, exist_ok=True)
    parts = data.split(SEPARATOR, len(SLACK_FILES) - 1)
    for index, name in enumerate(SLACK_FILES):
        target = root / name
        if index < len(parts):
            target.write_bytes(parts[index])
        else:
            target.unlink(missing_ok=True)
    return root


def telegram_chunk(data: bytes) -> int:
    """First byte below 128 picks a small chunk size (1..128 bytes), otherwise the importer's own."""
    return data[0] + 1 if data and data[0] < 128 else TELEGRAM_BIG_CHUNK


def write_telegram(data: bytes, folder: Path) -> Path:
    path = folder / "result.json"
    path.write_bytes(data[1:])
    return path


META_MODES = ("file", "folder", "zip", "raw-zip")


def meta_writer(activity: str) -> Callable[[bytes, Path], Path]:
    """Messenger and Instagram: the first byte picks the shape (a loose ``message_1.json``, an export folder
    or zip whose thread has two files split at SEPARATOR, or the bytes as a zip file); ``activity`` is the
    layout's top folder, which says the service."""

    def write(data: bytes, folder: Path) -> Path:
        mode = META_MODES[data[0] % len(META_MODES)] if data else "file"
        parts = data[1:].split(SEPARATOR, 1)
        thread = f"{activity}/messages/inbox/fuzz_1"
        entries = {f"{thread}/message_{n}.json": part for n, part in enumerate(parts, start=1)}
        if mode == "file":
            path = folder / "message_1.json"
            path.write_bytes(parts[0])
        elif mode == "folder":
            path = folder / "meta"
            for name, body in entries.items():
                (path / name).parent.mkdir(parents=True, exist_ok=True)
                (path / name).write_bytes(body)
        else:
            path = folder / "meta.zip"
            if mode == "raw-zip":
                path.write_bytes(data[1:])
            else:
                buffer = io.BytesIO()
                with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
                    for name, body in entries.items():
                        zf.writestr(name, body)
                path.write_bytes(buffer.getvalue())
        return path

    return write


def write_conversations(data: bytes, folder: Path) -> Path:
    """ChatGPT's and Claude's ``conversations.json``; the first byte picks the chunk size, as for Telegram."""
    path = folder / "conversations.json"
    path.write_bytes(data[1:])
    return path


SIGNAL_FILES = ("chat.md", "data.json", "signal.txt")
KAKAOTALK_FILES = ("KakaoTalk_Fuzz.txt", "KakaoTalk_Fuzz.csv")


def write_signal(data: bytes, folder: Path) -> Path:
    """First byte: the chunk size, as for Telegram; second: which of Signal's files the rest is."""
    name = SIGNAL_FILES[data[1] % len(SIGNAL_FILES)] if len(data) > 1 else SIGNAL_FILES[0]
    path = folder / name
    path.write_bytes(data[2:])
    return path


def write_kakaotalk(data: bytes, folder: Path) -> Path:
    """First byte: the chunk size; second: whether the rest is a text export or the macOS app's CSV."""
    name = KAKAOTALK_FILES[data[1] % len(KAKAOTALK_FILES)] if len(data) > 1 else KAKAOTALK_FILES[0]
    path = folder / name
    path.write_bytes(data[2:])
    return path


def drain(exports: Iterable[ChatExport], source: str) -> list[tuple]:
    """Consume every chat and message, checking what the archive relies on. Returns a comparable summary
    of what was read."""
    seen: list[tuple] = []
    for export in exports:
        chat = export.chat
        assert chat.source == source, chat.source
        assert chat.kind in ("direct", "group", "channel", "chat"), chat.kind
        for text in (chat.key, chat.name, chat.raw):
            _storable(text)
        seen.append(("chat", chat.key, chat.name, chat.kind))
        for m in export.messages:
            assert m.timestamp.utcoffset() == timedelta(0), m.timestamp
            assert m.kind in Kind.ALL, m.kind
            for value in (
                m.text,
                m.raw,
                m.sender,
                m.source_id,
                m.sender_id,
                m.local_time,
                m.thread,
                m.reply_to,
            ):
                if value is not None and not isinstance(value, HeldText):  # a held text is UTF-8 already
                    _storable(value)
            seen.append((m.timestamp, m.sender, m.text, m.kind, m.source_id, m.reply_to, m.edited))
    return seen


def _storable(value: str) -> None:
    assert isinstance(value, str), type(value)
    value.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError: not storable in SQLite as text


# --- seeds ---------------------------------------------------------------------------------------------


def whatsapp_seeds() -> list[bytes]:
    loose = (SAMPLES / "WhatsApp Chat with Jonas Becker.txt").read_bytes()
    family = SAMPLES / "WhatsApp Chat - Family.zip"
    with zipfile.ZipFile(family) as zf:
        ios = zf.read("_chat.txt")
    seeds = [bytes([0]) + loose, bytes([1]) + ios, bytes([2]) + family.read_bytes()]
    # Short slices fuzz faster than whole files: the first lines of each, loose and zipped.
    for text in (loose, ios):
        head = b"".join(text.splitlines(keepends=True)[:12])
        seeds += [bytes([0]) + head, bytes([1]) + head]
    return seeds


def slack_seeds() -> list[bytes]:
    root = SAMPLES / "slack-export-acme"
    channels = (root / "channels.json").read_bytes()
    users = (root / "users.json").read_bytes()
    days = sorted(p for p in root.glob("*/*.json"))
    seeds = [SEPARATOR.join([day.read_bytes(), channels, users]) for day in days[:: max(1, len(days) // 8)]]
    seeds.append(SEPARATOR.join([days[0].read_bytes(), channels, users, days[1].read_bytes()]))
    seeds.append(days[0].read_bytes())  # a day file alone, no metadata
    return seeds


def telegram_seeds() -> list[bytes]:
    raw = (SAMPLES / "telegram-result.json").read_bytes()
    dialog = json.loads(raw)
    small = dict(dialog, messages=dialog["messages"][:8])
    account = {"about": "fuzz", "chats": {"about": "", "list": [small]}, "left_chats": {"list": []}}
    bodies = [raw, json.dumps(small, ensure_ascii=False, indent=1).encode(), json.dumps(account).encode()]
    # Each body twice: with the importer's own chunk size and with a tiny one.
    return [bytes([selector]) + body for body in bodies for selector in (255, 6)]


def meta_seeds(export: Path) -> list[bytes]:
    """Every message file of a sample export, alone and as a thread's two files, in each shape."""
    files = sorted(p.read_bytes() for p in export.rglob("message_*.json")) if export.is_dir() else []
    if not files:
        with zipfile.ZipFile(export) as zf:
            files = [zf.read(n) for n in sorted(zf.namelist()) if n.endswith(".json")]
    bodies = [*files, SEPARATOR.join(files[:2])]
    return [bytes([mode]) + body for body in bodies for mode in range(3)]


DISCORD_EXPORT = "general.json"
# One channel of a Discord data package, cut at SEPARATOR like a Slack folder; absent parts leave their file out.
DISCORD_PACKAGE_FILES = (
    "messages/c42/messages.csv",
    "messages/index.json",
    "messages/c42/channel.json",
    "account/user.json",
    "messages/c43/messages.json",
)


def write_discord(data: bytes, folder: Path) -> Path:
    path = folder / DISCORD_EXPORT
    path.write_bytes(data)
    return path


def write_discord_package(data: bytes, folder: Path) -> Path:
    root = folder / "package"
    parts = data.split(SEPARATOR, len(DISCORD_PACKAGE_FILES) - 1)
    for index, name in enumerate(DISCORD_PACKAGE_FILES):
        target = root / name
        if index < len(parts):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(parts[index])
        else:
            target.unlink(missing_ok=True)
    return root


def discord_seeds() -> list[bytes]:
    seeds = []
    for name in ("discord-dm-noah.json", "discord-kletterkiez-general.json"):
        export = json.loads((SAMPLES / name).read_bytes())
        seeds.append(json.dumps(dict(export, messages=export["messages"][:8]), ensure_ascii=False).encode())
    return seeds


def discord_package_seeds() -> list[bytes]:
    package = SAMPLES / "discord-package"
    general = next(package.glob("messages/c*/messages.csv"))
    channel = (general.parent / "channel.json").read_bytes()
    index = json.dumps({"42": "general in Crag", "43": None}).encode()
    user = (package / "account" / "user.json").read_bytes()
    newer = next(package.glob("messages/c*/messages.json")).read_bytes()
    head = b"".join(general.read_bytes().splitlines(keepends=True)[:6])
    return [
        SEPARATOR.join([head, index, channel, user, newer]),
        SEPARATOR.join([head, index]),  # no channel.json, no account: names and sender fall back
    ]


def _conversations_seeds(raw: bytes) -> list[bytes]:
    """The sample's conversations.json, its first conversation alone, the same as an object, and wrapped as
    ``{"conversations": [...]}``, each in the importer's chunk size and a tiny one."""
    first = json.loads(raw)[0]
    bodies = [
        raw,
        json.dumps([first], ensure_ascii=False, indent=1).encode(),
        json.dumps(first).encode(),
        json.dumps({"conversations": [first, None]}).encode(),
    ]
    return [bytes([selector]) + body for body in bodies for selector in (255, 6)]


def chatgpt_seeds() -> list[bytes]:
    with zipfile.ZipFile(SAMPLES / "chatgpt-export.zip") as zf:
        return _conversations_seeds(zf.read("conversations.json"))


def claude_seeds() -> list[bytes]:
    return _conversations_seeds((SAMPLES / "claude-export" / "conversations.json").read_bytes())


def named_writer(name: str) -> Callable[[bytes, Path], Path]:
    """A loose file called ``name``; the first byte picks the chunk size, as for Telegram."""

    def write(data: bytes, folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data[1:])
        return path

    return write


def _chunked_seeds(*paths: Path) -> list[bytes]:
    return [bytes([selector]) + path.read_bytes() for path in paths for selector in (255, 6)]


GOOGLE_FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "google"


# Phones and messengers (issue 22): SMS, Skype and Teams files are streamed (a loose file, the first byte the
# chunk size); for iMessage the first byte picks the TXT or the HTML output.
PHONE_SAMPLES = ("sms-20261004213000.xml", "Priya Nair.txt", "Lars Lindqvist.html")


def write_imessage(data: bytes, folder: Path) -> Path:
    path = folder / ("conversation.html" if data[:1] and data[0] % 2 else "conversation.txt")
    path.write_bytes(data[1:])
    return path


def sms_seeds() -> list[bytes]:
    backup = (SAMPLES / PHONE_SAMPLES[0]).read_bytes()
    head = backup[: backup.index(b"<mms ")] + b"</smses>\n"
    return [bytes([selector]) + body for body in (backup, head) for selector in (255, 6)]


def imessage_seeds() -> list[bytes]:
    return [
        bytes([0]) + (SAMPLES / PHONE_SAMPLES[1]).read_bytes(),
        bytes([1]) + (SAMPLES / PHONE_SAMPLES[2]).read_bytes(),
    ]


# --- per importer ----------------------------------------------------------------------------------------


LINELOG_FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "linelogs"


def linelog_seeds(sample: str, pattern: str) -> list[bytes]:
    """The sample export and the test fixtures of one line-log format."""
    return _chunked_seeds(SAMPLES / sample, *sorted(LINELOG_FIXTURES.glob(pattern)))


def signal_seeds() -> list[bytes]:
    files = [
        (0, SAMPLES / "Lena Hoffmann" / "chat.md"),
        *((0, f) for f in sorted(LINELOG_FIXTURES.glob("*/chat.md"))),
        (1, LINELOG_FIXTURES / "Aylin Demir" / "data.json"),
        (2, LINELOG_FIXTURES / "signalbackup-Lena.txt"),
        (2, LINELOG_FIXTURES / "sigtop-Aylin Demir.txt"),
        (2, SAMPLES / "Noah Weber.txt"),
    ]
    return [bytes([chunk, mode]) + f.read_bytes() for mode, f in files for chunk in (3, 200)]


def kakaotalk_seeds() -> list[bytes]:
    files = [
        *(
            (0, f)
            for f in (
                SAMPLES / "KakaoTalk_Chat_Minji Park.txt",
                *sorted(LINELOG_FIXTURES.glob("KakaoTalk*.txt")),
            )
        ),
        *(
            (1, f)
            for f in (SAMPLES / "KakaoTalk_Chat_Jiwoo.csv", *sorted(LINELOG_FIXTURES.glob("KakaoTalk*.csv")))
        ),
    ]
    return [bytes([chunk, mode]) + f.read_bytes() for mode, f in files for chunk in (255, 6)]


def read_or_input_error(importer: Importer, path: Path, data: bytes) -> None:
    """The contract alone: records, or InputError."""
    with contextlib.suppress(InputError):
        drain(importer.read(path, TZ), importer.name)


def same_reading_in_any_chunk_size(importer: Importer, path: Path, data: bytes) -> None:
    """The streamed JSON formats' property besides the contract: the chunk size the file is read in does not
    change what is read. An input read in small chunks is read again in the importer's own chunk size, and both readings
    must agree on success and, when both succeed, on every chat and message."""
    chunk = telegram_chunk(data)
    small = _read_in_chunks(importer, path, chunk)
    if chunk != TELEGRAM_BIG_CHUNK:
        whole = _read_in_chunks(importer, path, TELEGRAM_BIG_CHUNK)
        if small != whole:
            raise AssertionError(f"chunk size {chunk} changes the result: {small!r:.300} != {whole!r:.300}")


def _read_in_chunks(importer: Importer, path: Path, chunk: int) -> list[tuple] | None:
    # Loose files are read through container.iter_file_chunks, which reads the module-level CHUNK on every
    # call, so the harness can set it per input.
    container.CHUNK = chunk
    try:
        return drain(importer.read(path, TZ), importer.name)
    except InputError:
        return None


@dataclass(frozen=True)
class Shape:
    """How one importer is fuzzed: what a fuzz input becomes on disk, the seeds, and what is checked."""

    write: Callable[[bytes, Path], Path]
    seeds: Callable[[], list[bytes]]
    check: Callable[[Importer, Path, bytes], None] = read_or_input_error


SHAPES = {
    "whatsapp": Shape(write_whatsapp, whatsapp_seeds),
    "slack": Shape(write_slack, slack_seeds),
    "telegram": Shape(write_telegram, telegram_seeds, same_reading_in_any_chunk_size),
    "messenger": Shape(
        meta_writer("your_facebook_activity"),
        lambda: meta_seeds(SAMPLES / "facebook-mayalindqvist-2026-10-05-Kq3vT8.zip"),
    ),
    "instagram": Shape(
        meta_writer("your_instagram_activity"),
        lambda: meta_seeds(SAMPLES / "instagram-maya.lindqvist-2026-10-05"),
    ),
    "discord": Shape(write_discord, discord_seeds),
    "discord-package": Shape(write_discord_package, discord_package_seeds),
    "chatgpt": Shape(write_conversations, chatgpt_seeds, same_reading_in_any_chunk_size),
    "claude": Shape(write_conversations, claude_seeds, same_reading_in_any_chunk_size),
    "hangouts": Shape(
        named_writer("Hangouts.json"),
        lambda: _chunked_seeds(
            SAMPLES / "Hangouts.json",
            GOOGLE_FIXTURES / "Hangouts.json",
            GOOGLE_FIXTURES / "Hangouts-2016.json",
        ),
        same_reading_in_any_chunk_size,
    ),
    "google-chat": Shape(
        named_writer("messages.json"),
        lambda: [
            bytes([0]) + p.read_bytes() for p in sorted((SAMPLES / "Google Chat").rglob("messages.json"))
        ],
    ),
    "gemini": Shape(
        named_writer("MyActivity.json"),
        lambda: _chunked_seeds(
            SAMPLES / "Gemini-MyActivity.json",
            GOOGLE_FIXTURES / "gemini" / "MyActivity.json",
            GOOGLE_FIXTURES / "gemini" / "MyActivity.html",  # read by its content, whatever its name
        ),
        same_reading_in_any_chunk_size,
    ),
    "grok": Shape(
        named_writer("prod-grok-backend.json"),
        lambda: _chunked_seeds(
            SAMPLES / "grok-export" / "prod-grok-backend.json",
            GOOGLE_FIXTURES / "grok" / "prod-grok-backend.json",
        ),
        same_reading_in_any_chunk_size,
    ),
    "sms": Shape(named_writer("backup.xml"), sms_seeds, same_reading_in_any_chunk_size),
    "imessage": Shape(write_imessage, imessage_seeds),
    "skype": Shape(
        named_writer("messages.json"),
        lambda: _chunked_seeds(*SAMPLES.glob("skype-*/messages.json")),
        same_reading_in_any_chunk_size,
    ),
    "teams": Shape(
        named_writer("messages_1.json"),
        lambda: _chunked_seeds(*sorted(SAMPLES.glob("teams-export/*/*/messages_*.json"))),
        same_reading_in_any_chunk_size,
    ),
    "line": Shape(
        named_writer("[LINE] Fuzz.txt"),
        lambda: linelog_seeds("[LINE] Chat with Yuki.txt", "*LINE*.txt"),
        same_reading_in_any_chunk_size,
    ),
    "kakaotalk": Shape(write_kakaotalk, kakaotalk_seeds, same_reading_in_any_chunk_size),
    "signal": Shape(write_signal, signal_seeds, same_reading_in_any_chunk_size),
}


def shape(importer: Importer) -> Shape:
    """The importer's own shape, or for a format without one: the input as one file named like its exports
    (in a folder, if it reads only folders), fuzzed from an empty corpus."""
    if importer.name in SHAPES:
        return SHAPES[importer.name]
    name = "export" + (importer.names[0].lstrip("*") if importer.names else "")

    def write(data: bytes, folder: Path) -> Path:
        if "folder" in importer.takes and not {"file", "zip"} & set(importer.takes):
            folder = folder / "export"
            folder.mkdir(exist_ok=True)
            (folder / name).write_bytes(data)
            return folder
        (folder / name).write_bytes(data)
        return folder / name

    return Shape(write, list)
