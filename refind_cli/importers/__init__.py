"""Export readers, one module per format, and the registry that knows them.

An importer module exposes:

- ``FORMAT``: its name (``"whatsapp"``), stored as each chat's source,
- ``sniff(path) -> bool``: a cheap look at the content (a zip's entry names, a folder's files, a file's
  first bytes) that says whether the export is this format; it never raises for foreign input,
- ``read(path, *, tz) -> Iterator[ChatExport]``: the chats and their messages, exactly as written. Times
  without an offset are read in ``tz``. Unreadable input raises ``InputError`` naming the place.
- a format registered with ``resumes=True`` (a line-based log: one chat per file, read front to back) takes
  ``read(path, *, tz, after: Mark | None)``: with a mark of an earlier reading (``ChatExport.end``), it reads
  from the mark's offset on, as if it had read the bytes before (``NotResumable`` where it cannot).

and is known through one ``register(Importer(...))`` call, which says what else refind needs of it: the kinds of
path it reads, the file names its exports carry, and how its chats pair into turns. Everything that lists
formats (``--format``, the "supported: ..." errors, the fuzz targets) reads the registry. A registration names
the module rather than holding it, so that listing formats imports no parser.

Importers know nothing of sessions, storage, search or the CLI.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import stat
import warnings
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from refind_cli.errors import InputError, InputWarning, UnknownFormat

if TYPE_CHECKING:
    from datetime import tzinfo

    from refind_cli.importers import container
    from refind_cli.records import ChatExport, Mark, Message, Tap


class ImporterModule(Protocol):
    """What an importer module exposes (above); modules are imported by name, so the checker takes this on
    trust."""

    FORMAT: str

    def sniff(self, path: Path) -> bool: ...

    def read(self, path: Path, *, tz: tzinfo) -> Iterator[ChatExport]: ...


class ResumingModule(Protocol):
    """An importer module of a format registered with ``resumes=True``."""

    def read(self, path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]: ...


class KnowingModule(Protocol):
    """An importer module of a format registered with ``knows=True``."""

    def read(self, path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]: ...


# What a path can be to an importer: a plain file, a zip archive, or a folder.
PATH_KINDS = ("file", "zip", "folder")


@dataclass(frozen=True, slots=True)
class Importer:
    name: str  # the --format name; the module's FORMAT
    module: str  # dotted name of the module with sniff() and read(), imported on first use
    takes: tuple[str, ...]  # the PATH_KINDS it reads
    # Name patterns (lower case) of its export files, by which a folder of exports is searched: a file no
    # importer names is passed over without being opened (a WhatsApp folder's photos and voice notes).
    names: tuple[str, ...] = ()
    # How its chats pair into turns (segment.PAIRINGS): "burst", consecutive messages by one sender, for
    # people talking; "exchange", a message and its reply, for chats with an assistant.
    pairing: str = "burst"
    # Its reader can go on from where an earlier reading of the same file stopped (a ``Mark``), so a grown
    # export is read only from there: a re-import costs what is new, not the whole history.
    resumes: bool = False
    # Its reader is given the chats' fingerprints that earlier imports left (``known``), and passes over the
    # chats they cover without parsing them where their messages are not asked for.
    knows: bool = False
    # Path patterns (lower case, from a folder down: "messages/index.json") of the file each of its exports
    # holds once (a ChatGPT export's conversations.json, a WhatsApp zip's chat text): an archive where two
    # such files are each an export of the format holds two exports, not one.
    roots: tuple[str, ...] = ()
    # What the names of the files its zip sniff looks for hold (lower case: "result.json", ".txt"): a zip on
    # disk none of whose file names holds one, in any case, is not asked about, its module not even
    # imported (a Slack export's 36,000 day files were walked by 14 formats' sniffs). Each must be in
    # every name the sniff would take, so the table passes over zips the sniff would refuse, never one it
    # would accept. Empty: always asked.
    zipped: tuple[str, ...] = ()

    def load(self) -> ImporterModule:
        from refind_cli.method.segment import PAIRINGS

        if self.pairing not in PAIRINGS:
            raise ValueError(
                f"importer {self.name!r}: pairing must be one of {PAIRINGS}, not {self.pairing!r}"
            )
        return cast(ImporterModule, importlib.import_module(self.module))

    def sniff(self, path: Path) -> bool:
        stamp = _archive_stamp(path)
        return _sniffed(self, path, stamp) if stamp is not None else bool(self.load().sniff(path))

    def read(
        self, path: Path, tz: tzinfo, after: Mark | None = None, known: Collection[str] = ()
    ) -> Iterator[ChatExport]:
        if after is None and known and self.knows:
            return cast(KnowingModule, self.load()).read(path, tz=tz, known=known)
        if after is None:
            return self.load().read(path, tz=tz)
        if not self.resumes:
            raise ValueError(f"importer {self.name!r} cannot go on from a mark")
        return cast(ResumingModule, self.load()).read(path, tz=tz, after=after)

    def tap(self, path: Path, after: Mark) -> Tap | None:
        """What the reader checks a mark with its own digest against in ``path``, for the ledger's pass over
        the file to hash on the way (a module's ``tap``); None where the module has none."""
        tap = getattr(self.load(), "tap", None) if self.resumes else None
        return cast("Tap | None", tap(path, after)) if tap is not None else None

    def names_file(self, name: str) -> bool:
        return _naming((self,)).match(name.lower()) is not None


def _archive_stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells that an archive on disk changed (as ``container`` tells it, with its inode); None for any
    other path."""
    from refind_cli.importers import container

    try:
        st = os.stat(path)
    except OSError:  # a path inside an archive, or none
        return None
    if not stat.S_ISREG(st.st_mode) or not container.is_zip(path):
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


@functools.lru_cache(maxsize=256)
def _sniffed(importer: Importer, path: Path, _stamp: tuple[int, int, int]) -> bool:
    """An importer's sniff of an archive, once while it keeps its stamp: an import asks each format about a
    zip up to three times (whether it is one export, which, what else it holds), and each sniff of a Slack
    export of a million messages walks its 36,000 names (0.15 s of CPU the two later rounds). Not asked of
    a zip that holds no file its sniff looks for (``Importer.zipped``)."""
    from refind_cli.importers import container

    if importer.zipped and not container.may_hold(path, importer.zipped):
        return False
    return bool(importer.load().sniff(path))


@functools.lru_cache(maxsize=64)
def _naming(importers: tuple[Importer, ...]) -> re.Pattern[str]:
    """What matches a file name (in lower case) that one of ``importers`` names: one pattern, as a large
    archive's walk matches every name."""
    import fnmatch

    return re.compile("|".join(fnmatch.translate(p) for i in importers for p in i.names) or "(?!)")


_REGISTRY: dict[str, Importer] = {}


def register(importer: Importer) -> None:
    """Make a format known. Registration order is the order formats are listed and detected in, so every
    sniff must say no to the other formats' exports. Built-in formats register below; a registration made
    at run time is known only to this process (a large export read in the import worker process needs the
    registration below, so its reading works the same). The pairing is checked when the importer is first
    used: segment.py is not worth importing to start `refind --help`."""
    if importer.name in _REGISTRY or importer.name == "auto":
        raise ValueError(f"an importer named {importer.name!r} is registered already")
    if not importer.takes or not set(importer.takes) <= set(PATH_KINDS):
        raise ValueError(f"takes must name some of {PATH_KINDS}, not {importer.takes}")
    _REGISTRY[importer.name] = importer


def unregister(name: str) -> None:
    del _REGISTRY[name]


@contextlib.contextmanager
def registered(importer: Importer) -> Iterator[Importer]:
    """``importer`` registered for the length of a ``with`` block (tests, experiments)."""
    register(importer)
    try:
        yield importer
    finally:
        unregister(importer.name)


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def get(name: str) -> Importer:
    """The importer called ``name``; KeyError if there is none."""
    return _REGISTRY[name]


def _supported() -> str:
    return ", ".join(_REGISTRY)


# --- which paths are exports ---------------------------------------------------------------------------

_NOT_REGULAR = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def path_kind(path: Path) -> str:
    """``"file"``, ``"zip"`` or ``"folder"``, once the path is known to be a regular file or a folder that can
    be read. Anything else (missing, a FIFO, a device, a socket, no permission) raises ``InputError`` before
    a byte is read: a FIFO or ``/dev/zero`` named like an export would otherwise be read forever. A file
    inside an archive (``container.member_of``) is a file, and a folder or an archive inside one a zip."""
    from refind_cli.importers import container

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(path, "no such file or folder") from None
    except NotADirectoryError:
        kind = container.member_kind(path)
        if kind is not None:
            return kind
        inside = container.member_of(path)
        if inside is None or not container.is_zip(inside[0]):
            raise InputError(path, "no such file or folder") from None
        raise InputError(path, "no such file in the archive") from None
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror or exc})") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        what = _NOT_REGULAR.get(stat.S_IFMT(mode), "not a regular file")
        raise InputError(path, f"is {what}, not a regular file or folder")
    try:
        if stat.S_ISDIR(mode):
            os.scandir(path).close()
            return "folder"
        with path.open("rb"):
            pass
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror or exc})") from None
    return "zip" if container.is_zip(path) else "file"


def resolve(path: Path, fmt: str = "auto") -> Importer:
    """The importer for an export: the one named ``fmt``, or with ``"auto"`` the one ``detect`` finds. The
    path is checked first (``path_kind``), so nothing unreadable or endless reaches an importer."""
    if fmt == "auto":
        return _REGISTRY[detect(path)]
    if fmt not in _REGISTRY:
        raise InputError(path, f"unknown format {fmt!r}; supported: {_supported()}")
    importer = _REGISTRY[fmt]
    kind = path_kind(path)
    if kind not in importer.takes:
        raise InputError(path, f"is a {kind}; a {fmt} export is a {' or a '.join(importer.takes)}")
    return importer


def detect(path: Path) -> str:
    """The name of the first importer that reads this kind of path and recognises the export."""
    from refind_cli.importers import container

    kind = path_kind(path)
    if kind == "file" and container.file_size(path) == 0:
        raise InputError(path, "is empty; not a chat export")
    if kind == "file" and _starts_like_a_zip(path):
        raise InputError(
            path, "is a zip archive cut short or damaged (no central directory); download it again"
        )
    if kind == "folder" and _empty(path):
        raise InputError(path, "is an empty folder; not a chat export")
    if kind == "zip":
        # A broken or hostile zip is reported as such, not as an unknown format.
        container.open_zip(path).close()
    for importer in _sniffing_order(path, kind):
        if kind in importer.takes and importer.sniff(path):
            return importer.name
    piece = container.not_joined(path) if kind == "file" else None
    if piece is not None:  # what no importer reads, as an unknown format is: said what it is
        raise UnknownFormat(path, f"is {piece}")
    raise UnknownFormat(path, f"unknown export format; supported: {_supported()}")


def _sniffing_order(path: Path, kind: str) -> list[Importer]:
    """The importers in their registered order, those that name a file so (``Importer.names``) first: each
    sniff says no to the other formats' exports (``register``), so the order finds the same one, and a
    file's sniff imports the modules of the formats before it (``conversations.json``: WhatsApp's and its
    date tables, of ``MyActivity.json``: nine; 10-40 ms of a re-import's CPU, resume15)."""
    importers = list(_REGISTRY.values())
    if kind != "file":
        return importers
    named = [importer for importer in importers if importer.names_file(path.name)]
    return named + [importer for importer in importers if importer not in named]


def _empty(folder: Path) -> bool:
    with os.scandir(folder) as entries:
        return next(entries, None) is None


def _starts_like_a_zip(path: Path) -> bool:
    from refind_cli.importers import container

    return container.read_file_part(path, 0, 4) == b"PK\x03\x04"


def read_export(
    path: Path, fmt: str, tz: tzinfo, after: Mark | None = None, known: Collection[str] = ()
) -> Iterator[ChatExport]:
    """Chats of one export (``after``: from that mark on; ``known``: fingerprints earlier imports left;
    ``Importer.read``). ``fmt`` is a registered name or
    ``"auto"``. A time too far out for every zone and calendar step to show (``TIMES``) is clamped into it,
    with a warning; its record keeps it as written."""
    importer = resolve(path, fmt)
    for export in importer.read(path, tz, after, known):
        messages = _representable(path, export.chat.name, export.messages)
        yield export._replace(messages=messages)
    if after is None and path_kind(path) == "zip":
        _warn_others(path, importer)


def _warn_others(archive: Path, mine: Importer) -> None:
    """One warning naming the other formats an archive read as one export holds exports of (a Takeout's
    Hangouts, Google Chat and Gemini; a zip of several exports): an export is read by one importer."""
    others = sorted(i.name for i in _REGISTRY.values() if i is not mine and _recognises(i, archive))
    if others:
        how = " and ".join(f"--format {name}" for name in others)
        what = (
            f"this archive also holds {', '.join(others)}, read only when imported again with {how}, or "
            "unpacked and imported as a folder"
        )
        warnings.warn(InputWarning(archive, what), stacklevel=2)


def _representable(path: Path, chat: str, messages: Iterable[Message]) -> Iterator[Message]:
    from refind_cli.records import TIMES

    low, high = TIMES
    # A year strictly between the bounds' is within them in any zone: an int compared, where comparing two
    # times of different zones asks each for its offset (1.4 s a million messages read in a local zone).
    inside = range(low.year + 1, high.year)
    for n, m in enumerate(messages, 1):
        if m.timestamp.year in inside or low <= m.timestamp <= high:
            yield m
            continue
        kept = low if m.timestamp < low else high
        where = f"chat {chat!r}, message {n}"
        what = f"time {m.timestamp.isoformat()} is outside 1970-2199; stored as {kept.isoformat()}"
        warnings.warn(InputWarning(path, what, where), stacklevel=1)
        yield m._replace(timestamp=kept)


def exports_in(path: Path, fmt: str = "auto") -> Iterator[Path]:
    """The exports ``refind import PATH`` reads: the path itself, unless it is a folder or an archive that is
    not one export (a Slack or Telegram export folder is one); then each export in it, depth first by name,
    without descending into a folder that is one export. In a folder only files some importer names are taken
    (``Importer.names``): photos, voice notes and hidden files are never exports, so they are passed over
    without a word. A file named like an export is yielded even if no importer will recognise it, so that its
    import says so: a warning where the same walk finds an export, an error (exit code 2) where it finds none
    (``Home.import_files``). A folder holding nothing named like an export yields itself, for the same reason.
    An archive (zip or tar) is walked as a folder is (``_archived``), each export in it a path inside the
    archive (``container.member_of``): a chat file zipped, a zip of several export folders, a Takeout .tgz,
    an archive inside an archive. With ``fmt``, only that importer's exports are looked for."""
    importers = list(_REGISTRY.values()) if fmt == "auto" else [_REGISTRY[fmt]] if fmt in _REGISTRY else []
    if not importers or (path.is_dir() and _one_export(path, importers)):
        yield path
    elif path.is_dir():
        yield from _or_itself(path, _walk(path, importers, {path.resolve()}))
    else:
        yield from _or_itself(path, _archived(path, importers))


def _or_itself(path: Path, found: Iterator[Path]) -> Iterator[Path]:
    """``found``, or ``path`` if it is empty: an import of a place holding no export says so."""
    empty = True
    for export in found:
        empty = False
        yield export
    if empty:
        yield path


def _archived(path: Path, importers: list[Importer]) -> Iterator[Path]:
    """The exports of an archive, or of a folder or an archive inside one: itself if it is one export
    (``_one_archived``); else each export in it, found as a folder's walk finds them, a folder in it taken or
    walked by the same rule, a file some importer names taken (an archive among them looked into). Nothing
    for a file that is no archive, or for an archive that cannot be listed (its import names the problem)."""
    from refind_cli.importers import container

    if not container.is_zip(path):
        return
    try:
        entries = container.archive_files(path)
    except InputError:
        return
    # Each format names its exports' files (``Importer.names``): where it names none, no export lies (a
    # Takeout's photo albums), and no sniff need look.
    if not any(_named(e.name.rsplit("/", 1)[-1], importers) for e in entries):
        return
    if _one_archived(path, importers, entries):
        yield path
        return
    folders: dict[str, bool] = {}  # each name at the top: whether it is a folder (a file of a name wins)
    for entry in entries:
        name, below, _ = entry.name.partition("/")
        folders[name] = folders.get(name, True) and bool(below)
    for name, folder in sorted(folders.items()):
        if name.startswith("."):
            continue
        if folder:
            yield from _archived(path / name, importers)
        elif _named(name, importers):
            yield from _or_itself(path / name, _archived(path / name, importers))


def _one_archived(archive: Path, importers: list[Importer], entries: list[container.Entry]) -> bool:
    """Whether an archive, or a folder or an archive inside one, is one export: exactly one importer of zips
    recognises it, and no file at its top (below the folders that hold nothing else: a zip of one folder) is
    another format's export, and it does not hold two exports of that format (``_several``). A zip sniff
    finds its format's file at any depth, so an archive of several exports is recognised by each of their
    formats; a real export is recognised by one, since every sniff refuses the other formats' exports. The
    second part, as for a folder (``_one_export``), tells an export with a chat of another format beside
    it."""
    claims = [i for i in importers if "zip" in i.takes and _recognises(i, archive)]
    if len(claims) != 1 or _several(archive, claims[0], entries):
        return False
    # The folders every name lies below: those of the first and the last name, as the entries are in name
    # order (a walk of 36,000 names split into their parts cost a large Slack export 15 ms).
    folder = ""
    for part in entries[0].name.split("/")[:-1] if entries else ():
        if not entries[-1].name.startswith(f"{folder}{part}/"):
            break
        folder += f"{part}/"
    top = archive.joinpath(*folder.split("/")[:-1])
    others = [i for i in importers if i not in claims]
    files = [f for e in entries if "/" not in (f := e.name[len(folder) :]) and not f.startswith(".")]
    return not any(o.names_file(f) and _recognises(o, top / f) for f in files for o in others)


def _several(archive: Path, importer: Importer, entries: list[container.Entry]) -> bool:
    """Whether an archive holds two exports of ``importer``'s format: its root files (``roots``) at two
    places, each an export of it alone (a zip of two ChatGPT exports, of two WhatsApp chats)."""
    import fnmatch

    if not importer.roots:
        return False
    places: set[str] = set()  # those looked at
    found = 0
    for entry in entries:
        name = "/" + entry.name.lower()
        for root in importer.roots:
            if fnmatch.fnmatchcase(name, "*/" + root):  # the root file: the export, or its top folder
                steps = 0 if "file" in importer.takes else root.count("/") + 1
                parts = entry.name.split("/")
                place = "/".join(parts[: len(parts) - steps])
            elif "/" + root + "/" in name:  # below the root folder: the folder above it is the top
                place = entry.name[: name.index("/" + root + "/")]
            else:
                continue
            if place in places:
                continue
            places.add(place)
            found += _recognises(importer, archive / place if place else archive)
            if found > 1:
                return True
    return False


def _walk(folder: Path, importers: list[Importer], seen: set[Path], depth: int = 1) -> Iterator[Path]:
    """The exports below a folder that is not one export; a folder nested past ``container.MAX_FOLDERS`` is
    passed over, as it is in an archive (no export lies so deep, and each folder is a frame)."""
    from refind_cli.importers import container

    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        yield folder  # its import names the problem
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            real = path.resolve()
            if real in seen:  # a symbolic link back up the tree
                continue
            seen.add(real)
            if _one_export(path, importers):
                yield path
            elif depth < container.MAX_FOLDERS:
                yield from _walk(path, importers, seen, depth + 1)
        elif _named(entry.name, importers) and not container.read_with_another(path):
            yield from _or_itself(path, _archived(path, importers))


def _named(name: str, importers: list[Importer]) -> bool:
    """Whether a file's name is one an export of ``importers`` has, or an archive's (a Takeout .tgz) that an
    importer of zips may find exports in."""
    from refind_cli.importers import container

    if _naming(tuple(importers)).match(name.lower()):
        return True
    archive = container.archive_stem(name) is not None or container.is_piece(name)
    return archive and any("zip" in i.takes for i in importers)


def _one_export(folder: Path, importers: list[Importer]) -> bool:
    """Whether a folder is one export: an importer that reads folders recognises it, and no file directly in
    it is an export of another format. The second part tells a folder of exports that holds a loose Telegram
    result.json (which makes it look like a Telegram export folder) from the export folder itself."""
    claims = [i for i in importers if "folder" in i.takes and _recognises(i, folder)]
    if not claims:
        return False
    others = [i for i in importers if i not in claims]
    try:
        with os.scandir(folder) as it:
            files = [Path(e.path) for e in it if not e.name.startswith(".") and e.is_file()]
    except OSError:
        return True
    return not any(o.names_file(f.name) and _recognises(o, f) for f in files for o in others)


def _recognises(importer: Importer, path: Path) -> bool:
    try:
        kind = path_kind(path)
    except InputError:
        return False
    return kind in importer.takes and importer.sniff(path)


# --- the built-in formats --------------------------------------------------------------------------------

register(
    Importer(
        "whatsapp",
        "refind_cli.importers.whatsapp",
        takes=("file", "zip"),
        names=("*.txt", "*.zip"),
        resumes=True,
        roots=("*.txt",),
        zipped=(".txt",),
    )
)
register(
    Importer(
        "slack",
        "refind_cli.importers.slack",
        takes=("zip", "folder"),
        names=("*.zip",),
        knows=True,
        zipped=(".json",),
    )
)
register(
    Importer(
        "telegram",
        "refind_cli.importers.telegram",
        takes=("file", "zip", "folder"),
        names=("*.json", "*.zip"),
        resumes=True,
        knows=True,
        roots=("result.json",),
        zipped=("result.json",),
    )
)
# ChatGPT and Claude.ai: assistant chats, so a turn is a question with its answer.
register(
    Importer(
        "chatgpt",
        "refind_cli.importers.chatgpt",
        takes=("file", "zip", "folder"),
        names=("conversations.json", "*.zip"),
        pairing="exchange",
        knows=True,
        roots=("conversations.json",),
        zipped=("conversations.json",),
    )
)
register(
    Importer(
        "claude",
        "refind_cli.importers.claude",
        takes=("file", "zip", "folder"),
        names=("conversations.json", "*.zip"),
        pairing="exchange",
        knows=True,
        roots=("conversations.json",),
        zipped=("conversations.json",),
    )
)
# Messenger and Instagram: one reader (meta.py), two sources; an export's paths say which service it is.
register(
    Importer(
        "messenger",
        "refind_cli.importers.messenger",
        takes=("file", "zip", "folder"),
        names=("message_*.json", "*.zip"),
        roots=("messages/inbox",),
        zipped=("message_",),
    )
)
register(
    Importer(
        "instagram",
        "refind_cli.importers.instagram",
        takes=("file", "zip", "folder"),
        names=("message_*.json", "*.zip"),
        roots=("messages/inbox",),
        zipped=("message_",),
    )
)
register(
    Importer("discord", "refind_cli.importers.discord", takes=("file",), names=("*.json",), resumes=True)
)
register(
    Importer(
        "discord-package",
        "refind_cli.importers.discord_package",
        takes=("zip", "folder"),
        names=("*.zip",),
        roots=("messages/index.json",),
        zipped=("index.json", "messages.csv", "messages.json"),
    )
)
# Google Takeout: Hangouts and Google Chat are two apps to the people who used them, so two sources; Gemini's
# activity and Grok's export are assistant chats.
register(
    Importer(
        "hangouts",
        "refind_cli.importers.hangouts",
        takes=("file", "zip"),
        names=("hangouts.json",),
        knows=True,
        roots=("hangouts.json",),
        zipped=("hangouts.json",),
    )
)
register(
    Importer(
        "google-chat",
        "refind_cli.importers.google_chat",
        takes=("file", "zip", "folder"),
        names=("messages.json", "*.zip"),
        knows=True,
        zipped=("messages.json",),
    )
)
register(
    Importer(
        "gemini",
        "refind_cli.importers.gemini",
        takes=("file", "zip", "folder"),
        names=("*.json", "*.zip"),
        pairing="exchange",
        knows=True,
        roots=("*.json",),
        zipped=(".json", ".html"),
    )
)
register(
    Importer(
        "grok",
        "refind_cli.importers.grok",
        takes=("file", "zip", "folder"),
        names=("prod-grok-backend.json", "*.zip"),
        pairing="exchange",
        roots=("prod-grok-backend.json",),
        zipped=("prod-grok-backend.json",),
    )
)
# Phones and messengers (issue 22). SMS Backup & Restore XML also holds Signal Android's old plaintext backup.
register(Importer("sms", "refind_cli.importers.sms", takes=("file",), names=("*.xml",), resumes=True))
register(
    Importer(
        "imessage", "refind_cli.importers.imessage", takes=("file",), names=("*.txt", "*.html"), resumes=True
    )
)
register(
    Importer(
        "skype", "refind_cli.importers.skype", takes=("file", "folder"), names=("messages.json",), knows=True
    )
)
register(
    Importer(
        "teams",
        "refind_cli.importers.teams",
        takes=("file", "zip", "folder"),
        names=("messages_*.json", "*.zip"),
        knows=True,
        zipped=("messages_",),
    )
)
# Line-based logs read by one engine (linelog.py). Their sniffs need a title or two stamped lines of their
# own layouts; Signal's Markdown is a .md file, which WhatsApp's sniff refuses. A signal-export chat folder
# is one export, read from its chat.md; its data.json (the same chat) is read only when named.
register(Importer("line", "refind_cli.importers.line", takes=("file",), names=("*.txt",), resumes=True))
register(
    Importer(
        "kakaotalk",
        "refind_cli.importers.kakaotalk",
        takes=("file", "zip"),
        names=("*.txt", "*.zip", "*.csv"),
        resumes=True,
        roots=("*.txt", "*.csv"),
        zipped=(".txt",),
    )
)
register(
    Importer(
        "signal",
        "refind_cli.importers.signal_logs",
        takes=("file", "folder"),
        names=("chat.md", "*.txt"),
        resumes=True,
    )
)
