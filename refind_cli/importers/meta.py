"""Meta's "Download your information" exports in JSON: Facebook Messenger and Instagram direct messages, as
the downloaded zip, its unpacked folder (or any folder inside it down to one thread's), or one
``message_N.json`` (FORMATS.md §4 and §4b).

Layouts: ``messages/<category>/<thread>/message_N.json`` (older exports of both services) and
``your_facebook_activity/messages/...`` or ``your_instagram_activity/messages/...`` (newer), where the
category is ``inbox``, ``archived_threads``, ``filtered_threads``, ``message_requests`` or ``e2ee_cutover``.
A thread is its folder, wherever it lies: a folder of the same name under another category is the same
conversation, so all of its ``message_N.json`` files make one chat, keyed by the folder name (which a
thread keeps when it moves from the inbox to the archive).

Which service: the ``messenger`` and ``instagram`` importers are two registrations of this one reader,
because a chat's source is its importer's name and should say where it came from. An export is Instagram's
when its paths say so (``your_instagram_activity``, or an ``instagram-<user>-<date>`` download name),
otherwise Messenger's: the older layout is the same for both services and carries no other mark.

What the files hold, and what is done with it:

- Every string is mojibake: UTF-8 bytes written as ``\\u00XX`` escapes. Each one is repaired on its own
  (``repair``); one that does not round-trip (already proper text, or not from Meta) stays as it is.
- ``messages`` are newest first, at most 10,000 to a file, ``message_1.json`` the newest. Files are read
  from the highest number down and each is put in time order, so a thread comes out oldest first; ties keep
  the order of the file, reversed. The title and participants come after the messages in the file, so a
  file is read whole (``MAX_FILE_BYTES`` bounds it); only one file is held at a time. A message whose text
  is its ``content`` alone, ASCII (nothing to repair) and longer than ``LONG_TEXT``, has it held in a file
  (``HeldText``), its record holding ``HELD`` in its place.
- ``timestamp_ms`` holds seconds in some files: a file whose every time is below 10^11 is read as seconds.
- Browser downloads leave copies named ``message_1 (2).json``. A message that an earlier file with the same
  number (a copy, or the thread's folder under another category) already held is the same message, and is
  left out; repeats inside one file are kept, since the file lists them.
- Every message is kept. Kinds: ``is_unsent`` -> deleted; calls (``call_duration``) and group changes
  (``Subscribe``/``Unsubscribe``) -> system; photos, videos, audio, GIFs, files, stickers and shares ->
  attachment, their text the caption plus one line per item (``photo 123_456.jpg``, the shared link and
  its text); a message with nothing else in the export (Instagram's unavailable ones) -> media, text "".
  Reactions stay in the raw record only: they change between two exports of a thread, and the text is
  part of a message's identity.
- No message ids: identity is the instant (absolute, so no zone is involved), the sender and the text,
  and the occurrence among identical ones (``identity.py``). A thread that grows between two exports keeps
  its old messages' identities, so importing the newer export adds only what is new.
"""

from __future__ import annotations

import json
import math
import os
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeGuard

from refind_cli.errors import InputError
from refind_cli.importers import fields, linelog
from refind_cli.importers.container import (
    decode_text,
    file_size,
    files_matching,
    is_zip,
    iter_file_chunks,
    iter_member_chunks,
    open_zip,
    read_file,
    sniff_head,
    streamed_fingerprint,
)
from refind_cli.records import HELD, LONG_TEXT, Chat, ChatExport, HeldText, Kind, Message

MESSENGER = "messenger"
INSTAGRAM = "instagram"

CATEGORIES = ("inbox", "archived_threads", "filtered_threads", "message_requests", "e2ee_cutover")
# Meta writes at most 10,000 messages to a file; even all in Cyrillic or CJK, whose every byte is a
# six-character escape, that is some tens of MB. Far beyond that is not a Meta file, and reading it whole
# would cost several times its size in memory.
MAX_FILE_BYTES = 128 << 20
_SNIFF_BYTES = 64 << 10
# Below this, a file's times are seconds: 10^11 ms is March 1973, 10^11 s the year 5138.
_SECONDS_BELOW = 10**11
_MESSAGE_FILE = re.compile(r"message_(\d{1,9})(?: \((\d{1,9})\))?\.json")
_MESSAGE_FILES = f"(?:.*/)?(?:{_MESSAGE_FILE.pattern})"  # its path in a zip (``files_matching``)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ACTIVITY = ("your_facebook_activity", "your_instagram_activity")
_MEDIA = (
    ("photos", "photo"),
    ("videos", "video"),
    ("audio_files", "audio"),
    ("gifs", "GIF"),
    ("files", "file"),
)
_SYSTEM_TYPES = frozenset({"Subscribe", "Unsubscribe"})
_HELD_WRITTEN = json.dumps(HELD)[1:-1]  # as a record written by ``json.dumps`` holds it


def repair(text: str) -> str:
    """Meta's mojibake undone: ``"CzeÅ\\x9bÄ\\x87"`` -> ``"Cześć"``. A string that is not UTF-8 read as
    Latin-1 (a character above U+00FF, or bytes that are not UTF-8) is returned as it is."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return text


# --- where the message files are ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _File:
    """One ``message_N.json``: ``name`` opens it (a zip entry or a path), ``thread`` is its folder."""

    name: str
    thread: str
    category: str  # the folder above the thread's, "" when it is none of CATEGORIES
    number: int
    copy: int  # k of "message_N (k).json"; 0 for the file itself


def _message_file(name: str, parts: tuple[str, ...]) -> _File | None:
    """The file ``name`` whose path is ``parts``, if its name is a message file's."""
    match = _MESSAGE_FILE.fullmatch(parts[-1]) if parts else None
    if match is None:
        return None
    thread = parts[-2] if len(parts) > 1 else ""
    category = parts[-3] if len(parts) > 2 and parts[-3] in CATEGORIES else ""
    return _File(name, thread, category, int(match.group(1)), int(match.group(2) or 0))


def _service_of(names: Iterable[str]) -> str:
    for name in names:
        lowered = name.lower()
        if lowered == "your_instagram_activity" or lowered.startswith("instagram-"):
            return INSTAGRAM
    return MESSENGER


def _has_message_file(folder: Path) -> bool:
    try:
        with os.scandir(folder) as it:
            return any(_MESSAGE_FILE.fullmatch(e.name) and e.is_file() for e in it)
    except OSError:
        return False


def _subfolders(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as it:
            return [
                Path(e.path) for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []


def _is_export_folder(folder: Path) -> bool:
    """Whether a folder is a Meta export, its ``messages`` folder, a category folder or one thread's, by
    looking only where the layouts put message files (this runs on every folder of a folder of exports)."""
    if _has_message_file(folder):
        return True
    categories = [folder] if folder.name in CATEGORIES else []
    for messages in (folder, folder / "messages", *(folder / p / "messages" for p in _ACTIVITY)):
        categories += [messages / c for c in CATEGORIES if (messages / c).is_dir()]
    return any(_has_message_file(thread) for c in categories for thread in _subfolders(c))


def _sniff_file(path: Path) -> bool:
    try:
        head = sniff_head(path, _SNIFF_BYTES).lstrip()
    except InputError:
        return False
    return (
        head.startswith(b"{")
        and b'"participants"' in head
        and (b'"sender_name"' in head or b'"thread_path"' in head)
    )


def service(path: Path) -> str | None:
    """``"messenger"`` or ``"instagram"`` for a Meta export, None for anything else; never raises."""
    try:
        if path.is_dir():
            if not _is_export_folder(path):
                return None
            children = [p.name for p in _subfolders(path)]
            return _service_of([*path.resolve().parts, *children])
        if is_zip(path):
            with open_zip(path) as zf:
                names = files_matching(zf, _MESSAGE_FILES)
            found = [n for n in names if _message_file(n, tuple(n.split("/")))]
            if not found:
                return None
            return _service_of([path.name, *(part for n in found[:1] for part in n.split("/"))])
        if _sniff_file(path):
            return _service_of(path.resolve().parts)
    except (InputError, OSError, ValueError):
        return None
    return None


# --- reading -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Source:
    """The message files of one export and how to read them."""

    files: list[_File]
    read: Callable[[_File], bytes]
    # A file's size and its bytes a chunk at a time, for its part of the chat's fingerprint: hashed as they
    # stream, not read whole again while the thread's first file is held (a file of one 50 MB message cost
    # 50 MB more: bench/RESULTS.md, issue 24 item 4, session 17).
    chunks: Callable[[_File], tuple[int, Iterable[bytes]]]
    place: Callable[[_File], tuple[Path, str | None]]  # path and "where" for errors about one file


def read(path: Path, source: str) -> Iterator[ChatExport]:
    """Chats of the export at ``path``, each with ``source`` as its source."""
    if path.is_dir():
        yield from _read_source(path, _folder_source(path), source)
    elif is_zip(path):
        with open_zip(path) as zf:
            yield from _read_source(path, _zip_source(path, zf), source)
    else:
        parent = path.resolve().parent.name
        file = _File(str(path), parent if _MESSAGE_FILE.fullmatch(path.name) else "", "", 1, 0)
        yield from _read_source(path, _file_source([file], lambda f: (path, None)), source)


def _folder_source(root: Path) -> _Source:
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(folder)
        for name in names:
            found = _message_file(os.path.join(folder, name), (*base.parts, name))
            if found is not None:
                files.append(found)
    return _file_source(files, lambda f: (Path(f.name), None))


def _file_source(files: list[_File], place: Callable[[_File], tuple[Path, str | None]]) -> _Source:
    """Loose files (each ``_File.name`` a path)."""

    def chunks(file: _File) -> tuple[int, Iterable[bytes]]:
        path = Path(file.name)
        size = file_size(path)
        if size > MAX_FILE_BYTES:  # as ``read_file`` says it
            read_file(path, MAX_FILE_BYTES)
        return size, iter_file_chunks(path)

    return _Source(files, lambda f: read_file(Path(f.name), MAX_FILE_BYTES), chunks, place)


def _zip_source(path: Path, zf: zipfile.ZipFile) -> _Source:
    files = [f for n in files_matching(zf, _MESSAGE_FILES) if (f := _message_file(n, tuple(n.split("/"))))]

    def member(file: _File) -> Iterator[bytes]:
        size = 0
        for chunk in iter_member_chunks(zf, file.name, path):
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise InputError(
                    path,
                    f"is larger than {MAX_FILE_BYTES:,} bytes; not a Meta message file",
                    f"entry {file.name!r}",
                )
            yield chunk

    return _Source(
        files,
        lambda f: b"".join(member(f)),
        lambda f: (zf.getinfo(f.name).file_size, member(f)),  # the size its bytes will have (``ZipExtFile``)
        lambda f: (path, f"entry {f.name!r}"),
    )


def _read_source(path: Path, src: _Source, source: str) -> Iterator[ChatExport]:
    if not src.files:
        raise InputError(path, "no message_N.json files; not a Messenger or Instagram export")
    threads: dict[str, list[_File]] = {}
    for file in src.files:
        threads.setdefault(file.thread, []).append(file)
    for thread in sorted(threads):
        # Oldest file first; a file's copies and namesakes in other categories right after it.
        files = sorted(threads[thread], key=lambda f: (-f.number, f.copy, f.category, f.name))
        first = _load(src, files[0])
        chat = _chat(first, thread, source)
        # A thread's messages are made of its files alone.
        yield ChatExport(
            chat, _thread_messages(src, files, first), fingerprint=streamed_fingerprint(_parts(src, files))
        )


def _parts(src: _Source, files: list[_File]) -> Iterator[tuple[int, Iterable[bytes]]]:
    """What a thread's fingerprint hashes: each file's place, then its bytes (``fingerprint``'s parts)."""
    for file in files:
        name = f"{file.category}/{file.number}/{file.copy}".encode()
        yield len(name), [name]
        yield src.chunks(file)


@dataclass(slots=True)
class _Loaded:
    """One parsed message file: its top-level fields other than the messages, and its messages in time
    order with their times."""

    meta: dict[str, Any]
    messages: list[Message]
    file: _File


def _load(src: _Source, file: _File) -> _Loaded:
    path, where = src.place(file)
    text = decode_text(src.read(file), path, where)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"invalid JSON ({exc.msg})", _join(where, f"line {exc.lineno} column {exc.colno}")
        ) from None
    except RecursionError:
        raise InputError(path, "JSON nested too deeply", where) from None
    if not isinstance(data, dict):
        raise InputError(path, "not a Meta message file: the top level is not a JSON object", where)
    if "messages" not in data and "participants" not in data:
        raise InputError(path, "not a Meta message file: it has neither messages nor participants", where)
    gaps = fields.Gaps(path)
    if data.get("messages") is None:
        gaps.lack("message file", "messages")
    raw_messages = data.pop("messages", None)
    raw_messages = [] if raw_messages is None else raw_messages
    if not isinstance(raw_messages, list):
        raise InputError(path, "messages is not a list", where)
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
    del text
    fix = _fix_scrubbing if surrogates else repair
    scale = _scale(raw_messages)
    entries = []
    for index, obj in enumerate(raw_messages):
        place = _join(where, f"messages[{index}]")
        if not isinstance(obj, dict):
            raise InputError(path, "a message is not a JSON object", place)
        timestamp = _timestamp(obj.get("timestamp_ms"), scale, path, place)
        content = obj.get("content")
        message = _held(obj, timestamp, content, surrogates, fix) if _holdable(content) else None
        if message is None:
            try:
                raw = json.dumps(obj, ensure_ascii=surrogates, sort_keys=True)
            except RecursionError:
                raise InputError(path, "message nested too deeply", place) from None
            message = _message(obj, timestamp, raw, fix)
        raw_messages[index] = None  # the parsed object is done with: one file's worth is held, not two
        del obj, content
        entries.append(message)
    gaps.warn()
    entries.reverse()  # newest first in the file; a stable sort then keeps ties in reverse file order
    entries.sort(key=lambda m: m.timestamp)
    return _Loaded(data, entries, file)


def _holdable(content: object) -> TypeGuard[str]:
    """A ``content`` longer than ``LONG_TEXT`` that is its own text (no mojibake to repair) and is written in
    the record as ``raw.FORMS`` writes a JSON string's contents (ASCII: alike escaped or not)."""
    return isinstance(content, str) and len(content) > LONG_TEXT and content.isascii()


def _held(
    obj: dict[str, Any], timestamp: datetime, content: str, surrogates: bool, fix: Callable[[str], str]
) -> Message | None:
    """The message of ``obj`` with its ``content`` held in a file (``HeldText``, written a slice at a time)
    and its record holding ``HELD`` in the content's place, written ``\\u0000``: the record and its
    encoded content are not made (``json.dumps`` of a 50 MB message held it three times). None where its
    text is more than its content (attachments, a share, a call: read whole), or where its record holds
    what ``HELD`` is written as elsewhere (``raw.cut`` would find that first)."""
    obj["content"] = HELD
    try:
        raw = json.dumps(obj, ensure_ascii=surrogates, sort_keys=True)
    except RecursionError:
        raw = ""  # read whole, which says where
    message = _message(obj, timestamp, raw, fix)
    obj["content"] = content
    if message.text != HELD or raw.count(_HELD_WRITTEN) != 1:
        return None
    spool = linelog.Spool()
    linelog.spool_slices(spool, content, 0, len(content))
    return message._replace(text=spool.held("", ""))


def _scale(messages: list[Any]) -> int:
    """Microseconds per unit of the file's ``timestamp_ms``: 1,000 for milliseconds, 1,000,000 for seconds."""
    largest = 0.0
    for obj in messages:
        value = _stamp(obj.get("timestamp_ms")) if isinstance(obj, dict) else None
        if _number(value) and (isinstance(value, int) or math.isfinite(value)):
            largest = max(largest, abs(value))
    return 1_000_000 if largest and largest < _SECONDS_BELOW else 1_000


def _stamp(value: Any) -> Any:
    """``timestamp_ms`` as written, or the number a string of one holds (a spreadsheet's round trip)."""
    return fields.number(value) if isinstance(value, str) else value


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _timestamp(value: Any, scale: int, path: Path, where: str) -> datetime:
    value = _stamp(value)
    if not _number(value):
        raise InputError(path, f"message has no valid timestamp_ms ({value!r:.40})", where)
    try:
        return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=round(value * scale))
    except (OverflowError, ValueError):
        raise InputError(path, f"timestamp_ms {value!r:.40} is out of range", where) from None


def _fix_scrubbing(text: str) -> str:
    """``repair``, and lone surrogates (an escaped half of a pair) replaced: such text cannot be stored."""
    return _LONE_SURROGATE.sub("\ufffd", repair(text))


def _join(where: str | None, detail: str) -> str:
    return f"{where}, {detail}" if where else detail


def _str(value: Any, fix: Callable[[str], str]) -> str | None:
    return fix(value) if isinstance(value, str) and value else None


def _chat(first: _Loaded, thread: str, source: str) -> Chat:
    meta = first.meta
    fix = _fix_scrubbing
    names = (
        [
            name
            for p in meta.get("participants") or []
            if isinstance(p, dict) and (name := _str(p.get("name"), fix))
        ]
        if isinstance(meta.get("participants"), list)
        else []
    )
    thread_path = _str(meta.get("thread_path"), fix)
    key = (thread_path.rstrip("/").rsplit("/", 1)[-1] if thread_path else "") or thread or "thread"
    group = len(names) > 2 or meta.get("thread_type") == "RegularGroup"
    name = _str(meta.get("title"), fix) or ", ".join(names) or key
    try:
        raw = json.dumps(meta, ensure_ascii=True, sort_keys=True)
    except RecursionError:
        path = first.file.name
        raise InputError(path, "thread record nested too deeply") from None
    return Chat(source=source, key=key, name=name, kind="group" if group else "direct", raw=raw)


def _thread_messages(src: _Source, files: list[_File], first: _Loaded) -> Iterator[Message]:
    """The thread's messages, one file number after another (the highest, oldest, first). A file's copies
    and namesakes in other categories share its number and may repeat its messages: such a group is merged
    in time order, and a message an earlier file of the group held is left out."""
    loaded: _Loaded | None = first
    del first  # held in ``loaded`` until its messages are out, and no longer
    start = 0
    while start < len(files):
        end = start + 1
        while end < len(files) and files[end].number == files[start].number:
            end += 1
        group = []
        held: Counter[tuple[datetime, str | HeldText, str]] = Counter()  # a record Meta never holds
        for file in files[start:end]:
            current = loaded or _load(src, file)
            loaded = None
            here: Counter[tuple[datetime, str | HeldText, str]] = Counter()
            for m in current.messages:
                key = (m.timestamp, m.raw, _digest(m.text))
                here[key] += 1
                if here[key] > held[key]:
                    group.append(m)
            held |= here
            del current
        if end - start > 1:
            group.sort(key=lambda m: m.timestamp)
        yield from group
        start = end


def _digest(text: str | HeldText) -> str:
    """What tells a held text from another (its record holds ``HELD`` in its place), read a piece at a
    time; "" for a text in memory, which its record holds."""
    return "" if isinstance(text, str) else streamed_fingerprint([(text.size, text.pieces())])


def _message(obj: dict[str, Any], timestamp: datetime, raw: str, fix: Callable[[str], str]) -> Message:
    content = _str(obj.get("content"), fix)
    lines = [content] if content else []
    attached = False
    for field, label in _MEDIA:
        items = obj.get(field)
        if isinstance(items, list):
            for item in items:
                attached = True
                uri = _str(item.get("uri"), fix) if isinstance(item, dict) else None
                lines.append(f"{label} {uri.rsplit('/', 1)[-1]}" if uri else label)
    if isinstance(obj.get("sticker"), dict):
        attached = True
        lines.append("sticker")
    share = obj.get("share")
    if isinstance(share, dict):
        attached = True
        for value in (share.get("link"), share.get("share_text")):
            text = _str(value, fix)
            if text and text not in lines:
                lines.append(text)
    call = obj.get("call_duration")
    # A string or nothing: a list or an object here would not even be hashable.
    kind_name = found if isinstance(found := obj.get("type"), str) else None
    if obj.get("is_unsent") is True:
        kind = Kind.DELETED
    elif _number(call) or kind_name == "Call":
        kind = Kind.SYSTEM
        seconds = int(call) if _number(call) and (isinstance(call, int) or math.isfinite(call)) else 0
        lines.append(f"call, {_duration(seconds)}" if seconds > 0 else "missed call")
    elif kind_name in _SYSTEM_TYPES:
        kind = Kind.SYSTEM
    elif attached:
        kind = Kind.ATTACHMENT
    elif content is None:
        kind = Kind.MEDIA
    else:
        kind = Kind.TEXT
    return Message(
        timestamp=timestamp,
        sender=_str(obj.get("sender_name"), fix),
        text="\n".join(lines),
        kind=kind,
        raw=raw,
    )


def _duration(seconds: int) -> str:
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
