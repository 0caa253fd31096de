"""Safe access to what an export comes in: a zip, a tar, a folder or a plain file, and the text in it.

Nothing is ever extracted to disk, so entry names (``../../etc/passwd``) are only names. What an archive
*declares* is not trusted: members are read in chunks and stopped when they grow past the limits.

A file inside an archive has a path too: the archive's path with the member's name below it
(``Takeout.tgz/Takeout/Hangouts/Hangouts.json``). No such path exists on disk (a regular file has nothing
below it), so the name is never ambiguous, survives being passed as text to the import worker, and errors
name the member the way a person would. The functions here that read a file (``iter_file_chunks``,
``read_file``, ``read_file_part``, ``sniff_head``, ``is_file``, ``file_size``) read such a member as they read
a loose file; an importer that reads through them takes a single-file export wherever it lies.

Text is read through one place too (``text_encoding``, ``utf8_chunks``, ``utf8_head``, ``decode_text``,
``sniff_head``): UTF-8, 16 or 32, with or without a BOM (Windows tools save UTF-16), so that no importer tells
encodings on its own.
"""

from __future__ import annotations

import bisect
import codecs
import contextlib
import functools
import io
import itertools
import mimetypes
import os
import re
import shutil
import stat
import struct
import tarfile
import unicodedata
import urllib.parse
import warnings
import zipfile
import zlib
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from refind_cli.typed import NamedTuple

if TYPE_CHECKING:
    import mmap

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import zipdir

# A chat export's largest single member is its text or JSON file; a few hundred MB is already a huge one.
MAX_MEMBER_BYTES = 1 << 30
# Text compresses about 3-10x; a ratio beyond this, for a member big enough to matter, is a zip bomb.
MAX_RATIO = 200
RATIO_FLOOR_BYTES = 64 << 20
CHUNK = 1 << 20

# An archive's entry count past any real export's (a Takeout's photos included) is a hostile one; so are a
# tar's declared sizes that add up far past what the archive could expand to (a tar is listed by reading it
# through, so it must be stopped by what it declares).
MAX_MEMBERS = 200_000
# Some archives are held in memory as a zip: a tar, of its files other than photos, videos and sound (which
# are never exports; a compressed tar reads only from its start, and every importer that reads zips then
# reads tars), and an archive inside an archive (a Takeout zip zipped again: a member can only be streamed
# from its start). What one holds beyond this is refused with a word to unpack it.
MAX_HELD_BYTES = 512 << 20
# Archives inside archives are read to this depth below the one on disk; a deeper one is refused (a zip
# quine holds itself without end).
MAX_NESTED = 2
# A name nested deeper than this lies in no export (Takeout's lie 6 folders deep): it is passed over, as a
# name that climbs out is, rather than walked a folder at a time.
MAX_FOLDERS = 64

ErrorMaker = Callable[[str, str | None], InputError]
"""Makes an importer's error from what went wrong and where (None: nowhere in particular)."""

# A single file compressed on its own (a server's rotated log, a mail's attachment: ``chat.txt.gz``): the suffix
# ``gunzip`` and its kin take off its name, the bytes its stream starts with and the standard library's module
# that reads it. Such a file is read as an archive holding the one file, named as they name it.
_COMPRESSED = {".gz": (b"\x1f\x8b", "gzip"), ".bz2": (b"BZh", "bz2"), ".xz": (b"\xfd7zXZ\x00", "lzma")}
# Archive names (.zip, .tgz, .tar.xz, ...), from the formats the standard library unpacks, and the single
# compressed files' (.gz), longest first.
ARCHIVE_SUFFIXES = tuple(
    sorted(
        {s for _, suffixes, _ in shutil.get_unpack_formats() for s in suffixes} | set(_COMPRESSED),
        key=len,
        reverse=True,
    )
)


def archive_stem(name: str) -> str | None:
    """A file name without its archive suffix (``Takeout.tar.gz``: ``Takeout``; a volume's, ``Chat.zip.001``:
    ``Chat``); None if it has none."""
    volume = _VOLUME.fullmatch(name)
    name = volume[1] if volume is not None else name
    folded = name.lower()
    suffix = next((s for s in ARCHIVE_SUFFIXES if folded.endswith(s)), None)
    return None if suffix is None else name[: -len(suffix)]


# The marks a copy of a file is given, each with what it leaves of the name: a browser's or Explorer's second
# download (``NAME (1).txt``: Chrome, Firefox, Edge) or the number a download is told apart by; Explorer's copy
# (``NAME - Copy.txt``, ``NAME - Copy (2).txt``) and Finder's duplicate (``NAME copy.txt``, ``NAME copy 2.txt``),
# in the words of the languages they are most used in (Windows' and macOS's own translations of "copy").
_COPY_WORDS = "copy|kopie|copie|copia|cópia|kopia|копия|コピー|副本|복사본|kopya|αντίγραφο"
_COPY_MARKS = (
    # Dropbox's conflicted copy (``NAME (Maya's conflicted copy 2026-10-05).txt``), OneDrive's copy named after
    # the computer whose change conflicted (``NAME-DESKTOP-4F2K9QL.txt``: Windows' own computer names).
    re.compile(r"\s\([^()]*(?:conflicted copy|Konfliktkopie|copie en conflit|copia en conflicto)[^()]*\)$"),
    re.compile(r"-(?:DESKTOP|LAPTOP)-[A-Z0-9]{7,8}$"),
    re.compile(r"\s\(\d{1,3}\)$"),
    re.compile(rf"(?i)\s[-–—]\s(?:{_COPY_WORDS})(?:\s\(\d{{1,3}}\))?$"),
    re.compile(rf"(?i)\s(?:{_COPY_WORDS})(?:\s\d{{1,3}})?$"),
)
# The stamp and part number a cloud drive's download of a folder (Google Drive, Takeout) adds to its zip's
# name: ``NAME-20261005T120000Z-001``.
_PART_MARK = re.compile(r"-\d{8}T\d{6}Z-\d{3}$")
# A name a download wrote percent-encoded, as its link has it (wget, curl -O: ``Chat%20with%20X.txt``).
_ESCAPED = re.compile(r"%[0-9A-Fa-f]{2}")
# An attachment's name a mail client saved as the message carried it, not decoded (RFC 2047's encoded words:
# ``=?utf-8?q?Noah_Weber=2Etxt?=``): its extension is inside.
_ENCODED_WORD = re.compile(r"=\?[\w.:-]+\?[BbQq]\?[^?\s]*\?=")
# Or as RFC 2231 writes a parameter's value (``filename*=``): its charset, a language, its bytes escaped.
_EXTENDED_VALUE = re.compile(r"([\w.:-]+)'[\w-]*'(.+)")


def unmarked(stem: str, told: str = "") -> str:
    """A file's name (without its extension) as it was before a download, a mail or a copy marked it: its
    link's escapes or a mail's encoded words (RFC 2047, 2231) undone, an extension left inside it dropped (a share that added
    ``.txt``; Finder's ``NAME.txt.zip``), without a drive's stamp and part number, and without the mark a copy
    of it is given (``_COPY_MARKS``): a chat named after its file keeps its name, and its key, when the file
    is downloaded again (``Chat with X (1).txt``) or copied (``Chat with X - Copy.txt``). ``told``: the start
    of the chat's own text, or the names in it. A copy's mark stays where it names the chat with the mark: a
    group really called "Family (2)", whose name WhatsApp writes into its first lines. A name a share wrote
    with ``_`` for its spaces (Android's) is read with spaces where it names the chat so (``Priya_Nair.txt``
    of a chat with Priya Nair)."""
    if (extended := _EXTENDED_VALUE.fullmatch(stem)) is not None:
        with contextlib.suppress(LookupError, UnicodeDecodeError):  # no charset: a name's own quotes
            codecs.lookup(extended[1])
            stem = urllib.parse.unquote(extended[2], encoding=extended[1], errors="strict")
    if " " not in stem and _ESCAPED.search(stem):
        with contextlib.suppress(UnicodeDecodeError):
            stem = urllib.parse.unquote(stem, errors="strict")
    if _ENCODED_WORD.search(stem):
        stem = _mail_decoded(stem)
    stem = _without_extensions(stem)
    if " " not in stem and "_" in stem and told and (spaced := stem.replace("_", " ")) in told:
        stem = spaced
    for mark in _COPY_MARKS:
        m = mark.search(stem)
        before = stem[: m.start()] if m is not None else ""
        if m is not None and before.strip() and not (told and before.split()[-1] + m[0] in told):
            stem = before
    return _PART_MARK.sub("", stem) or stem


def _mail_decoded(name: str) -> str:
    """A name of RFC 2047's encoded words as the mail meant it (as it is where they do not decode)."""
    import email.errors
    import email.header

    try:
        return str(email.header.make_header(email.header.decode_header(name)))
    except (email.errors.HeaderParseError, LookupError, UnicodeError, ValueError):
        return name


def _without_extensions(stem: str) -> str:
    """A name without the extensions of exports and archives left at its end (``Chat.txt`` of ``Chat.txt.txt``
    or ``Chat.txt.zip``)."""
    while True:
        folded = stem.lower()
        suffix = next((s for s in _export_suffixes() if folded.endswith(s) and len(s) < len(stem)), None)
        if suffix is None:
            return stem
        stem = stem[: -len(suffix)]


# The extensions of the files exports are saved in, as the format registry's importers name them (``names``:
# ``tests/test_ablation6.py`` holds this to them; the registry imports this module, not this module it).
EXPORT_SUFFIXES = (".txt", ".json", ".csv", ".html", ".xml")


@functools.lru_cache(maxsize=1)
def _export_suffixes() -> tuple[str, ...]:
    return tuple(sorted(set(EXPORT_SUFFIXES) | set(ARCHIVE_SUFFIXES), key=len, reverse=True))


def is_zip(path: Path) -> bool:
    """Whether ``open_zip`` opens ``path``: a zip or a tar (compressed or not), loose or inside an archive, or
    a folder inside an archive. Never raises."""
    if member_of(path) is None:
        # A FIFO would never answer.
        return path.is_file() and (
            zipfile.is_zipfile(path)
            or is_tar(path)
            or _compressed_on_disk(path)
            or bool(_VOLUME.fullmatch(path.name))
        )
    try:
        return member_kind(path) == "zip"
    except InputError:
        return False


def open_zip(path: Path) -> zipfile.ZipFile:
    """A zip archive; a tar as a zip (held in memory, ``MAX_HELD_BYTES``); a folder inside either, as a zip
    of the files below it named from there (a zip of several exports holds each in a folder); an archive
    inside either, held in memory (``MAX_NESTED``). Each archive's directory is read once (``_directory``),
    however often it is opened."""
    chain, folder = _archive_at(path)
    stamp = _stamp(Path(chain[0]))
    directory = _directory(chain, stamp)
    try:
        return directory.open(_below(chain, stamp, folder) if folder else None)
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror or exc})") from None


class _Listed(zipfile.ZipFile):
    """A zip whose directory was read before (a ``_View``): opening it reads no directory again (a walk over
    a large archive's folders opens it thousands of times). Its entries may be a folder's, renamed below it:
    each keeps the name its local header has (``orig_filename``), which is what zipfile checks that against.
    An entry's ``ZipInfo`` is made when it is asked for (``zipdir``); zipfile's own tables stay empty, as
    this zip is only read."""

    def __init__(self, file: Path | IO[bytes], view: _View) -> None:
        self._view = view
        super().__init__(file)

    def _RealGetContents(self) -> None:  # zipfile's reading of the directory, which was read before
        pass

    def getinfo(self, name: str) -> zipfile.ZipInfo:
        member = self._view.table.get(name)
        if member is None:
            raise KeyError(f"There is no item named {name!r} in the archive")
        return self._view.listing.info(member)

    def infolist(self) -> list[zipfile.ZipInfo]:
        return [self._view.listing.info(m) for m in self._view.members]

    def namelist(self) -> list[str]:
        return [m.name for m in self._view.members]


@dataclass(frozen=True, slots=True)
class _View:
    """Entries of a zip as ``_Listed`` takes them: in order, by name, and the names of its files; those names
    one a line, for a search of them all at once (``files_matching``; None where a name holds a line break);
    and the directory they were read from, which makes their ``ZipInfo``s."""

    members: tuple[zipdir.Member, ...]
    table: dict[str, zipdir.Member]
    names: tuple[str, ...]
    lines: str | None
    listing: zipdir.Listing

    @classmethod
    def of(cls, members: Iterable[zipdir.Member], listing: zipdir.Listing) -> _View:
        members = tuple(members)
        names = tuple(_file_names(m.name for m in members))
        lines: str | None = "\n".join(names)
        if lines is not None and lines.count("\n") != max(len(names) - 1, 0):
            lines = None
        return cls(members, {m.name: m for m in members}, names, lines, listing)


def member_names(zf: zipfile.ZipFile) -> list[str]:
    """File entries, without folders and macOS resource forks (``__MACOSX/``, ``._name``)."""
    return list(zf._view.names) if isinstance(zf, _Listed) else _file_names(zf.namelist())


def declared_sizes(zf: zipfile.ZipFile) -> list[tuple[str, int]]:
    """Every entry's name and size uncompressed, as its directory declares them (for a listed zip, without a
    ``ZipInfo`` made for each)."""
    if isinstance(zf, _Listed):
        return [(m.name, m.size) for m in zf._view.members]
    return [(i.filename, i.file_size) for i in zf.infolist()]


def files_matching(zf: zipfile.ZipFile, pattern: str, flags: int = 0) -> list[str]:
    """The file entries (``member_names``) that ``pattern`` matches whole, in the archive's order: one search
    of all the names at once, where a walk of them costs each sniff of a large archive 10 ms (a Slack export
    of a million messages holds 36,000 day files). ``pattern`` matches no line break (``[^/\n]``, not
    ``[^/]``): the names are searched one a line. Where a name holds one (a hostile zip's), each name is
    matched on its own, ``.`` matching a line break too."""
    lines = zf._view.lines if isinstance(zf, _Listed) else None
    if lines is None:
        each = _whole_names(pattern, flags | re.DOTALL, "")
        return [n for n in member_names(zf) if each.fullmatch(n)]
    return [m[0] for m in _whole_names(pattern, flags | re.MULTILINE, "$").finditer(lines)]


def may_name(zf: zipfile.ZipFile, words: Iterable[str]) -> bool:
    """Whether some file entry's name may hold one of ``words`` (ASCII, lower case) in any case: False only
    where none does. Names in ASCII are lowered and searched as text (a case-blind pattern over a Slack
    export's 36,000 names took 25 ms, this 2); others may fold to a word (a dotted "İ"), and may hold it."""
    lines = zf._view.lines if isinstance(zf, _Listed) else None
    if lines is None or not lines.isascii():
        return True
    lowered = _lowered(lines)
    return any(word in lowered for word in words)


def may_hold(path: Path, words: Iterable[str]) -> bool:
    """``may_name`` of the archive ``path`` (or a folder in one); True where it cannot be listed (what to
    make of it is a sniff's to say)."""
    try:
        with open_zip(path) as zf:
            return may_name(zf, words)
    except (InputError, OSError, ValueError, zipfile.BadZipFile):
        return True


@functools.lru_cache(maxsize=4)  # each format asks of the same names (a Slack export's are 1.4 MB)
def _lowered(lines: str) -> str:
    return lines.lower()


@functools.lru_cache(maxsize=64)
def _whole_names(pattern: str, flags: int, end: str) -> re.Pattern[str]:
    return re.compile(f"^(?:{pattern}){end}", flags)


def _file_names(entries: Iterable[str]) -> list[str]:
    names = []
    for name in entries:
        # Not ZipInfo.is_dir(): it fails on an empty name, which a hostile zip can carry.
        if (
            not name
            or name.endswith("/")
            or name.startswith("__MACOSX/")
            or name.rsplit("/", 1)[-1].startswith("._")
        ):
            continue
        names.append(name)
    return names


def iter_member_chunks(
    zf: zipfile.ZipFile, name: str, path: Path, step: int = CHUNK
) -> Generator[bytes, None, None]:
    """Stream one member, enforcing the size limits on the bytes actually produced; ``step`` bytes a chunk
    (a sniff that reads a member's head asks for that much: a chunk of ``CHUNK`` is a megabyte inflated)."""
    info = zf.getinfo(name)
    where = f"entry {name!r}"
    produced = 0
    try:
        with zf.open(info) as fh:
            while chunk := fh.read(step):
                produced += len(chunk)
                if produced > MAX_MEMBER_BYTES or (
                    produced > RATIO_FLOOR_BYTES and produced > MAX_RATIO * max(info.compress_size, 1)
                ):
                    raise InputError(
                        path, "expands far beyond its compressed size; refusing a zip bomb", where
                    )
                yield chunk
    except InputError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
        raise InputError(path, f"cannot read zip entry ({exc})", where) from None
    except Exception as exc:  # zlib.error and friends from a corrupt stream
        raise InputError(path, f"corrupt zip entry ({type(exc).__name__}: {exc})", where) from None


def read_member(zf: zipfile.ZipFile, name: str, path: Path) -> bytes:
    return b"".join(iter_member_chunks(zf, name, path))


def member_head(zf: zipfile.ZipFile, name: str, path: Path, size: int) -> bytes:
    """The first ``size`` bytes of a member (fewer where it is shorter): only they are inflated."""
    with contextlib.closing(iter_member_chunks(zf, name, path, max(size, 1))) as chunks:
        return next(chunks, b"")[:size]


def iter_file_chunks(path: Path, start: int = 0, step: int = CHUNK) -> Generator[bytes, None, None]:
    """Stream a loose file or an archive member (from byte ``start`` on), for formats that parse as they
    read; a member ``step`` bytes a chunk."""
    if member_of(path) is not None:
        yield from _skip(_member_chunks(path, step), start)
        return
    try:
        with path.open("rb") as fh:
            fh.seek(start)
            while chunk := fh.read(CHUNK):
                yield chunk
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror or exc})") from None


def _skip(chunks: Iterable[bytes], start: int) -> Iterator[bytes]:
    for chunk in chunks:
        if start >= len(chunk):
            start -= len(chunk)
            continue
        yield chunk[start:]
        start = 0


# --- files inside archives ---------------------------------------------------------------------------


def let_go(data: mmap.mmap, start: int, stop: int) -> int:
    """Drops a map's pages from ``start`` (a page's start) to the page ``stop`` is in from this process's
    resident memory, where the system can: a map keeps each page its reader touched until it closes (the
    file's size, at the end of a large file). A page read again is read from the page cache as before.
    Where the pages let go of stop."""
    import mmap

    cut = stop // mmap.PAGESIZE * mmap.PAGESIZE
    with contextlib.suppress(OSError, ValueError, AttributeError):
        data.madvise(mmap.MADV_DONTNEED, start, cut - start)
    return cut


def member_of(path: Path) -> tuple[Path, str] | None:
    """The archive on disk and the member's name below it of a path inside an archive (see the module's
    notes); None for a path on disk or one below no file."""
    if os.path.lexists(path):
        return None
    for parent in path.parents:
        try:
            mode = os.stat(parent).st_mode
        except OSError:  # missing, or below a file: look further up
            continue
        return (parent, path.relative_to(parent).as_posix()) if stat.S_ISREG(mode) else None
    return None


def member_kind(path: Path) -> str | None:
    """What a path inside an archive is: ``"zip"``, a folder or an archive that ``open_zip`` reads as a zip;
    ``"file"``; None where nothing is. ``InputError`` for an archive on the way that cannot be read."""
    place = _place(path)
    if place is None:
        return None
    if place.folder or _an_archive_inside(place.chain, place.name, _stamp(Path(place.chain[0]))):
        return "zip"
    return "file"


def is_tar(path: Path) -> bool:
    """Whether a loose file is a tar archive, compressed (Takeout's .tgz) or not. Never raises."""
    try:
        return path.is_file() and tarfile.is_tarfile(path)
    except Exception:  # a damaged compressed stream raises what its codec raises
        return False


class Entry(NamedTuple):
    """A file in an archive: its name, normalised, and its size as declared. A tuple, not a frozen
    dataclass: an archive's walk lists every entry (36,000 took 35 ms as dataclasses, a fifth as tuples)."""

    name: str
    size: int


def archive_files(path: Path) -> list[Entry]:
    """The regular files of an archive, of a folder inside one or of an archive inside one, named from there
    and in name order: no folders, links or devices (a link is never followed), no macOS forks, no name that
    climbs out (``..``) or is absolute, each name as a member path takes it (``./`` dropped). The limits are
    checked as the archive is listed."""
    chain, folder = _archive_at(path)
    directory = _directory(chain, _stamp(Path(chain[0])))
    cut = len(folder) + 1 if folder else 0
    return [Entry(n[cut:], directory.files[n].size) for n in directory.names_below(folder)]


def export_files(path: Path) -> list[Path]:
    """The files an export is made of, in name order: a folder's, on disk or inside an archive; an archive's
    in pieces, its pieces (``pieces``: a change to any is a change to it); else the path itself (a file, or
    an archive whole)."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file())
    if member_of(path) is None and (together := pieces(path)):
        return list(together)
    place = _place(path) if member_of(path) is not None else None
    if place is None or not place.folder:
        return [path]
    return sorted(path / e.name for e in archive_files(path))


def _member_name(name: str) -> str | None:
    """A member's name as a path takes it (``./``, ``//`` and back slashes gone); None for an absolute name,
    one that climbs out (``..``), one nested past ``MAX_FOLDERS`` or a macOS fork."""
    if (
        name
        and not name.startswith((".", "/"))
        and not f"{name}/".startswith("__MACOSX/")
        and "\\" not in name
        and "//" not in name
        and "/." not in name
        and not name.endswith("/")
        and name.count("/") < MAX_FOLDERS
    ):  # nothing to take out: most names (a Slack export's 36,000 took 20 ms in parts)
        return name
    return _normalised(name)


def _normalised(name: str) -> str | None:
    """``_member_name`` of any name, part by part."""
    name = name.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if (
        name.startswith("/")
        or not parts
        or len(parts) > MAX_FOLDERS
        or ".." in parts
        or parts[-1].startswith("._")
        or parts[0] == "__MACOSX"
    ):
        return None
    return "/".join(parts)


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a path inside an archive leads: the archive on disk and each archive inside it down to the one
    that holds the place (``chain``), and the place's name in that one, a file's or a folder's."""

    chain: tuple[str, ...]
    name: str
    folder: bool


def _place(path: Path) -> _Place | None:
    """Where a path inside an archive (``member_of``) leads; None where nothing is. A name that goes on below
    a file of the archive goes into that file as an archive (``x.zip/Takeout-001.zip/Takeout/...``).
    ``InputError`` for an archive on the way that cannot be read."""
    inside = member_of(path)
    name = None if inside is None else _member_name(inside[1])
    if inside is None or name is None:
        return None
    chain: tuple[str, ...] = (str(inside[0]),)
    stamp = _stamp(inside[0])
    if not _an_archive_on_disk(chain[0], stamp):
        return None
    parts = name.split("/")
    start = 0
    for end in range(1, len(parts) + 1):
        here = "/".join(parts[start:end])
        if here in _directory(chain, stamp).files:
            if end == len(parts):
                return _Place(chain, here, folder=False)
            chain, start = (*chain, here), end
    folder = "/".join(parts[start:])
    return _Place(chain, folder, folder=True) if _directory(chain, stamp).is_folder(folder) else None


@functools.lru_cache(maxsize=16)
def _an_archive_on_disk(disk: str, _stamp: tuple[int, int]) -> bool:
    path = Path(disk)
    return (
        zipfile.is_zipfile(disk)
        or is_tar(path)
        or _compressed_on_disk(path)
        or bool(_VOLUME.fullmatch(path.name))
    )


def _compressed(name: str, head: bytes) -> str | None:
    """The suffix of a single compressed file (``_COMPRESSED``) named ``name`` whose bytes start with
    ``head``; None for any other."""
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    magic = _COMPRESSED.get(suffix, (None, ""))[0]
    return suffix if magic is not None and head.startswith(magic) else None


def _compressed_on_disk(path: Path) -> bool:
    """Whether a loose file is a single compressed file (``_COMPRESSED``). Never raises."""
    if "." + path.name.rsplit(".", 1)[-1].lower() not in _COMPRESSED:
        return False
    try:
        with path.open("rb") as fh:
            return _compressed(path.name, fh.read(8)) is not None
    except OSError:
        return False


def _one_file_as_zip(source: Path | IO[bytes], name: str, where: Path) -> bytes:
    """A single compressed file (``_compressed``) as an uncompressed zip of the one file, named as
    ``gunzip`` names it (without the suffix), held up to ``MAX_HELD_BYTES``."""
    import importlib

    name = name.rsplit("/", 1)[-1]
    suffix = "." + name.rsplit(".", 1)[-1].lower()
    module = importlib.import_module(_COMPRESSED[suffix][1])
    out = io.BytesIO()
    held = 0
    try:
        with (
            module.open(source) as fh,
            zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf,
            zf.open(name[: -len(suffix)], "w") as dest,
        ):
            while chunk := fh.read(CHUNK):
                held += len(chunk)
                if held > MAX_HELD_BYTES:
                    raise InputError(
                        where,
                        f"holds more than {MAX_HELD_BYTES >> 20} MB uncompressed, more than refind reads from "
                        "memory; uncompress it, then import the file",
                    )
                dest.write(chunk)
    except InputError:
        raise
    except Exception as exc:  # a damaged stream raises what its codec raises
        raise InputError(where, f"cannot uncompress ({type(exc).__name__}: {exc})") from None
    return out.getvalue()


def _archive_at(path: Path) -> tuple[tuple[str, ...], str]:
    """The archive (``_Place.chain``) that ``open_zip`` opens for ``path``, and the folder in it ("": all)."""
    if member_of(path) is None:
        return (str(path),), ""
    place = _place(path)
    if place is None:
        raise InputError(path, "no such file in the archive")
    return (place.chain, place.name) if place.folder else ((*place.chain, place.name), "")


def _stamp(disk: Path) -> tuple[int, int]:
    """What tells that a file on disk changed (its time and size; of each piece of an archive in pieces, the
    latest time and their sizes' sum): a directory read before is read again."""
    stamps = []
    for piece in pieces(disk) or (disk,):
        try:
            st = piece.stat()
        except OSError as exc:
            raise InputError(piece, f"cannot read ({exc.strerror or exc})") from None
        stamps.append((st.st_mtime_ns, st.st_size))
    return max(t for t, _ in stamps), sum(n for _, n in stamps)


# --- archives in pieces ---------------------------------------------------------------------------------
# An archive in pieces that lie side by side is read as one: 7-Zip's volumes (``NAME.zip.001``, ``.002``: the
# bytes of one archive cut up, joined again end to end), and a cloud drive's download of a folder in parts
# (``NAME-20261005T120000Z-001.zip``, ``-002.zip``, Google Drive's and Takeout's: each a zip of some of the
# folder's files, the folder's files all of theirs together). Each by the pattern of its pieces' names: the
# whole's name, the piece's number.
_VOLUME = re.compile(r"(.+\.(?:zip|tar|tgz|tar\.gz|tar\.bz2|tar\.xz))\.(\d{3})", re.IGNORECASE)
_DRIVE_PART = re.compile(r"(.+-\d{8}T\d{6}Z)-(\d{3})\.zip", re.IGNORECASE)
# Pieces of archives refind does not join, by their names, with what to do: a zip split by WinZip or Info-ZIP
# (each piece's offsets are its own), the volumes of a 7z or RAR archive (formats refind does not read).
_NOT_JOINED = (
    (
        re.compile(r".+\.z\d{2}", re.IGNORECASE),
        "a piece of a zip split by WinZip or Info-ZIP (NAME.z01, NAME.z02, ..., NAME.zip), which refind does "
        "not join: join them with `zip -s 0 NAME.zip --out whole.zip`, then import whole.zip",
    ),
    (
        re.compile(r".+(?:\.(?:7z|rar)\.\d{3}|\.part\d{1,3}\.rar|\.r\d{2})", re.IGNORECASE),
        "a volume of a 7z or RAR archive, which refind does not read: extract it with 7-Zip, then import the "
        "folder",
    ),
)


def pieces(path: Path) -> tuple[Path, ...]:
    """The pieces, in order, of the archive that a file on disk is a piece of (``path`` among them): volumes
    from the first up to the first number missing, a drive's parts all beside it; () for a file that is no
    piece, or a volume whose first is missing (its reading says so)."""
    pattern = _VOLUME if _VOLUME.fullmatch(path.name) else _DRIVE_PART
    m = pattern.fullmatch(path.name)
    if m is None:
        return ()
    try:
        folder = path.parent.stat().st_mtime_ns
    except OSError:
        return ()
    together = _pieces_beside(str(path.parent), folder, pattern, m[1].casefold())
    if pattern is _VOLUME:
        numbered = [n for n, _ in together]
        count = next((k for k in range(len(numbered)) if numbered[k] != k + 1), len(numbered))
        together = together[:count]
    found = tuple(path.parent / name for _, name in together)
    return found if path in found else ()


@functools.lru_cache(maxsize=64)
def _pieces_beside(
    folder: str, _stamp: int, pattern: re.Pattern[str], whole: str
) -> tuple[tuple[int, str], ...]:
    """The files of a folder whose names ``pattern`` matches with the whole's name ``whole`` (case folded),
    by number: read once while the folder keeps its time."""
    try:
        names = os.listdir(folder)
    except OSError:
        return ()
    found = ((int(m[2]), n) for n in names if (m := pattern.fullmatch(n)) and m[1].casefold() == whole)
    return tuple(sorted(found))


def is_piece(name: str) -> bool:
    """Whether a file's name is a piece's of an archive in pieces, joined or not (``pieces``, ``_NOT_JOINED``):
    a folder's walk takes it as an archive."""
    return any(p.fullmatch(name) for p in (_VOLUME, _DRIVE_PART, *(q for q, _ in _NOT_JOINED)))


def read_with_another(path: Path) -> bool:
    """Whether a file on disk is a piece of an archive read from its first piece, which lies beside it: a
    folder's walk passes it over."""
    together = pieces(path)
    return bool(together) and together[0] != path


def not_joined(path: Path) -> str | None:
    """What a piece of an archive that refind does not join is, and what to do (``_NOT_JOINED``); None for
    any other file."""
    return next((what for pattern, what in _NOT_JOINED if pattern.fullmatch(path.name)), None)


def _pieces_as_zip(together: tuple[Path, ...], where: Path) -> bytes:
    """An archive in pieces (``pieces``) as a zip held in memory: volumes joined (a tar's files as a zip,
    ``_tar_as_zip``), a drive's parts' files in one zip (photos, videos and sound left out, as of a tar)."""
    if _VOLUME.fullmatch(together[0].name):
        return _joined(together, where)
    out = io.BytesIO()
    held = 0
    taken: set[str] = set()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as joined:
        for part in together:
            directory = _directory((str(part), ""), _stamp(part))  # the part alone: see _held
            with directory.open() as zf:
                for member in directory.files.values():
                    kind = (mimetypes.guess_type(member.name)[0] or "").split("/")[0]
                    if member.name in taken or kind in ("image", "video", "audio"):
                        continue
                    taken.add(member.name)
                    held += member.size
                    if held > MAX_HELD_BYTES:
                        raise InputError(
                            where,
                            f"is a part of a download in parts whose parts hold more than {MAX_HELD_BYTES >> 20} "
                            "MB of files other than media, more than refind reads from memory; unzip every part "
                            "into one folder and import the folder",
                        )
                    with joined.open(_Utf8Named(member.name, (1980, 1, 1, 0, 0, 0)), "w") as dest:
                        for chunk in iter_member_chunks(zf, member.name, part):
                            dest.write(chunk)
    return out.getvalue()


class _Utf8Named(zipfile.ZipInfo):
    """An entry of a zip made here, its name in UTF-8 and flagged so, ASCII or not (zipfile flags only names
    beyond ASCII; a name read from a part is already decoded as the tool that wrote it meant)."""

    def _encodeFilenameFlags(self) -> tuple[bytes, int]:
        return self.filename.encode("utf-8"), self.flag_bits | 0x800


def _joined(volumes: tuple[Path, ...], where: Path) -> bytes:
    """7-Zip's volumes of an archive joined end to end: the archive, held in memory (a tar's files as a zip)."""
    size = sum(v.stat().st_size for v in volumes)
    if size > MAX_HELD_BYTES:
        raise InputError(
            where,
            f"is a volume of an archive of {size >> 20} MB in volumes, more than refind joins in memory: join "
            f"them (`cat {volumes[0].name[:-4]}.* > whole`, or 7-Zip's Combine files), then import the whole",
        )
    data = b"".join(v.read_bytes() for v in volumes)
    if zipfile.is_zipfile(io.BytesIO(data)):
        return data
    if _is_tar_data(data):
        return _tar_as_zip(io.BytesIO(data), where, len(data))
    last = volumes[-1].name
    raise InputError(
        where,
        f"is volume 1 of {len(volumes)} side by side ({volumes[0].name} to {last}), which do not make the whole "
        f"archive: the volume after {last} is missing? put every volume in one folder",
    )


@dataclass(frozen=True, slots=True)
class _Directory:
    """An archive's directory, read once: its entries as zipfile lists them (``root``), its regular files by their
    normalised names (``_member_name``) and these names in order (a folder's files are a range of them), and
    the archive's bytes where it is held in memory (None: the zip on disk, ``source``)."""

    source: str
    root: _View
    files: dict[str, zipdir.Member]
    names: tuple[str, ...]
    held: bytes | None

    def open(self, view: _View | None = None) -> zipfile.ZipFile:
        """The archive, as a zip of its own entries or of a folder's (``_below``)."""
        source = Path(self.source) if self.held is None else io.BytesIO(self.held)
        return _Listed(source, self.root if view is None else view)

    def is_folder(self, folder: str) -> bool:
        at = bisect.bisect_left(self.names, folder + "/")
        return at < len(self.names) and self.names[at].startswith(folder + "/")

    def names_below(self, folder: str) -> Sequence[str]:
        """The names of the files below ``folder`` ("": the whole archive)."""
        if not folder:
            return self.names
        start = bisect.bisect_left(self.names, folder + "/")
        return self.names[start : bisect.bisect_left(self.names, folder + "0", start)]  # "0" follows "/"


@functools.lru_cache(maxsize=8)
def _below(chain: tuple[str, ...], stamp: tuple[int, int], folder: str) -> _View:
    """The entries of the files below a folder of an archive, each named from there: a walk opens the folder
    once for each format's sniff."""
    directory = _directory(chain, stamp)
    below = (directory.files[n]._replace(name=n[len(folder) + 1 :]) for n in directory.names_below(folder))
    return _View.of(below, directory.root.listing)


# Held archives make each entry up to MAX_HELD_BYTES: few are kept, and a walk reads one archive at a time.
@functools.lru_cache(maxsize=4)
def _directory(chain: tuple[str, ...], stamp: tuple[int, int]) -> _Directory:
    """The directory of the archive ``chain`` names (``_Place``), read once while the file on disk keeps its
    ``stamp``."""
    where = Path(*chain)
    held = _held(chain, stamp, where)
    try:
        with open(chain[0], "rb") if held is None else io.BytesIO(held) as source:
            # Told by the end record before the directory is read: parsing 200,000 entries takes seconds.
            if _declared_entries(source) > MAX_MEMBERS:
                raise InputError(
                    where, f"holds more than {MAX_MEMBERS:,} entries; refusing a possible zip bomb"
                )
            listing = zipdir.listing(source)
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        ValueError,
        EOFError,
        NotImplementedError,
    ) as exc:
        raise InputError(where, f"not a readable zip archive ({exc})") from None
    if len(listing.members) > MAX_MEMBERS:
        raise InputError(where, f"holds more than {MAX_MEMBERS:,} entries; refusing a possible zip bomb")
    members = _names_decoded(listing)
    if any(member.flags & _ENCRYPTED for member in members):
        # Said once for the archive: each of its files would fail alike.
        raise InputError(
            where, "is encrypted (zipped with a password): unzip it with the password, then import the folder"
        )
    files = {}
    for member in members:
        if member.size > MAX_MEMBER_BYTES:
            raise InputError(
                where,
                f"declares {member.size:,} bytes uncompressed (limit {MAX_MEMBER_BYTES:,}); refusing a possible zip bomb",
                f"entry {member.name!r}",
            )
        name = None if member.name.endswith(("/", "\\")) else _member_name(member.name)
        if name is not None:
            files[name] = member
    return _Directory(chain[0], _View.of(members, listing), files, tuple(sorted(files)), held)


_ENCRYPTED = 0x1  # an entry's general purpose flag: enciphered (ZipCrypto, or AES with method 99)
_DEFLATE64 = 9  # the compression method 7-Zip writes with -mm=Deflate64 (and Windows for large files)


class _Inflate64:
    """A Deflate64 stream's decompressor for zipfile (``inflate64``, a maintained implementation): zipfile
    reads every method but deflate and stored through ``decompress`` and ``eof``."""

    def __init__(self) -> None:
        import inflate64

        self._inflater = inflate64.Inflater()

    def decompress(self, data: bytes) -> bytes:
        return bytes(self._inflater.inflate(data))

    @property
    def eof(self) -> bool:
        return bool(self._inflater.eof)


def _decompressor(compress_type: int) -> Any:
    """zipfile's choice of decompressor, and Deflate64's, which it has none of."""
    return _Inflate64() if compress_type == _DEFLATE64 else _zipfile_decompressor(compress_type)


_zipfile_decompressor = zipfile._get_decompressor  # type: ignore[attr-defined]
zipfile._get_decompressor = _decompressor  # type: ignore[attr-defined]


# The code pages a zip's names are written in without its UTF-8 flag, the most used first: the system's OEM
# code page, which Windows' "Compressed folder" and older 7-Zip and WinZip write (the zip specification's
# CP437 is the US one).
_OEM = (
    "cp437",
    "cp850",
    "cp866",
    "cp852",
    "cp932",
    "cp936",
    "cp949",
    "cp950",
    "cp857",
    "cp775",
    "cp737",
    "cp862",
    "cp720",
    "cp874",
)


def _names_decoded(listing: zipdir.Listing) -> tuple[zipdir.Member, ...]:
    """The entries named as the tool that wrote them meant: zipfile reads a name without the UTF-8 flag as
    CP437, which Info-ZIP and macOS write in UTF-8 and Windows in its OEM code page (told from the names
    together, ``code_page``); and composed, as other systems write them (macOS decomposes "ë")."""
    members = listing.members
    unflagged = [m for m in members if not m.flags & 0x800 and not m.orig.isascii()]
    written = [m.orig.encode("cp437") for m in unflagged]  # zipfile decoded them as CP437
    try:
        for w in written:
            w.decode("utf-8")  # a name in another code page is rarely UTF-8 too
        codec = "utf-8"
    except UnicodeDecodeError:
        codec = code_page(b"\n".join(written), _OEM) or "cp437"
    decoded = {id(i): w.decode(codec) for i, w in zip(unflagged, written, strict=True)}
    named = []
    # Most zips hold no Unicode Path field at all: one search of the directory's bytes spares a look at
    # each entry's extra field (a Slack export has 36,000 entries).
    paths = listing.holds(_UNICODE_PATH_TAG)
    for member in members:
        path = _unicode_path(member, listing.extra(member)) if paths else None
        name = path or decoded.get(id(member), member.name)
        if not name.isascii():
            name = unicodedata.normalize("NFC", name)
        named.append(member if name == member.name else member._replace(name=name))
    return tuple(named)


_EXTRA = struct.Struct("<HH")
_UNICODE_PATH = 0x7075  # Info-ZIP's Unicode Path extra field (APPNOTE 4.6.9)
_UNICODE_PATH_TAG = _UNICODE_PATH.to_bytes(2, "little")


def _unicode_path(member: zipdir.Member, extra: bytes) -> str | None:
    """The UTF-8 name WinZip and Info-ZIP write in an entry's Unicode Path extra field beside a name in the
    OEM code page that could not hold it (``??.txt``); None where there is none, or it was written for
    another name than the entry now has (its CRC of the name differs: a tool renamed it since)."""
    at = 0
    while at + _EXTRA.size <= len(extra):
        tag, size = _EXTRA.unpack_from(extra, at)
        body = extra[at + _EXTRA.size : at + _EXTRA.size + size]
        at += _EXTRA.size + size
        if tag != _UNICODE_PATH or len(body) < 5 or body[0] != 1:
            continue
        raw = member.orig.encode("utf-8" if member.flags & 0x800 else "cp437")
        if struct.unpack_from("<I", body, 1)[0] != zlib.crc32(raw):
            return None
        with contextlib.suppress(UnicodeDecodeError):
            return body[5:].decode("utf-8")
    return None


def _declared_entries(source: IO[bytes]) -> int:
    """The number of entries a zip's end record declares (its ZIP64 record's, where the count did not fit);
    0 where there is none to read (zipfile then says what is wrong)."""
    size = source.seek(0, os.SEEK_END)
    reach = min(size, _END.size + (1 << 16))  # the record, and a comment of at most 64 KiB after it
    source.seek(size - reach)
    tail = source.read(reach)
    at = len(tail)
    while True:  # the record whose comment runs to the end (its signature may be in the comment too)
        at = tail.rfind(b"PK\x05\x06", 0, at)
        if at < 0:
            return 0
        if len(tail) - at >= _END.size and at + _END.size + _END.unpack_from(tail, at)[7] == len(tail):
            break
    count = _END.unpack_from(tail, at)[4]
    if count == 0xFFFF and at >= _LOCATOR.size and tail.startswith(b"PK\x06\x07", at - _LOCATOR.size):
        where = _LOCATOR.unpack_from(tail, at - _LOCATOR.size)[2]
        source.seek(where)
        record = source.read(_END64.size)
        if len(record) == _END64.size and record.startswith(b"PK\x06\x06"):
            count = _END64.unpack_from(record)[7]
    return int(count)


# The zip format's end of central directory record, its ZIP64 locator and ZIP64 record (APPNOTE 4.3.14-16).
_END = struct.Struct("<4s4H2LH")
_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")


def _held(chain: tuple[str, ...], stamp: tuple[int, int], where: Path) -> bytes | None:
    """The bytes of the archive ``chain`` names, for one held in memory (a tar, as a zip; an archive inside
    another); None for a zip on disk, read from there."""
    if len(chain) == 2 and not chain[1]:  # a piece of an archive in pieces, alone (``_pieces_as_zip``)
        return None
    if len(chain) == 1:
        disk = Path(chain[0])
        together = pieces(disk)
        if together:
            return _pieces_as_zip(together, where)
        if _VOLUME.fullmatch(disk.name):  # a volume, but not the first
            first = _VOLUME.fullmatch(disk.name)[1] + ".001"  # type: ignore[index]
            raise InputError(
                where, f"is a volume of an archive cut in volumes: its first, {first}, is not beside it"
            )
        if is_tar(disk):  # a .tar.gz before a .gz
            return _tar_as_zip(disk, where, stamp[1])
        return _one_file_as_zip(disk, disk.name, where) if _compressed_on_disk(disk) else None
    if len(chain) > 1 + MAX_NESTED:
        raise InputError(
            where,
            f"is an archive inside {len(chain) - 1} others, deeper than refind reads ({MAX_NESTED}); unpack the "
            "outer one, then import this one",
        )
    outer = _directory(chain[:-1], stamp)
    data = bytearray()
    with outer.open() as zf:
        for chunk in iter_member_chunks(zf, outer.files[chain[-1]].name, Path(*chain[:-1])):
            data += chunk
            if len(data) > MAX_HELD_BYTES:
                raise InputError(
                    where,
                    f"is an archive of more than {MAX_HELD_BYTES >> 20} MB inside an archive, more than refind "
                    "reads from memory; unpack the outer one, then import this one",
                )
    if zipfile.is_zipfile(io.BytesIO(data)):
        return bytes(data)
    if _is_tar_data(data):
        return _tar_as_zip(io.BytesIO(data), where, len(data))
    if _compressed(chain[-1], bytes(data[:8])):
        return _one_file_as_zip(io.BytesIO(data), chain[-1], where)
    raise InputError(where, "is not a zip or tar archive")


@functools.lru_cache(maxsize=1024)
def _an_archive_inside(chain: tuple[str, ...], name: str, stamp: tuple[int, int]) -> bool:
    """Whether the file ``name`` of an archive is an archive too (a zip, or a tar by its first header). A
    file that cannot be read is not: its reading names the problem."""
    try:
        # Its first header (512 bytes) tells a tar, after the long name or pax records before it, read through
        # gzip or xz as they stream: a JSON file of many megabytes is not inflated whole to say so.
        head = _head(chain, name, stamp)
        if head.startswith(b"BZh"):  # bzip2 gives nothing back before a whole block (up to 900 kB)
            directory = _directory(chain, stamp)
            with directory.open() as zf:
                head = member_head(zf, directory.files[name].name, Path(*chain), CHUNK)
    except (InputError, OSError):
        return False
    return head.startswith(b"PK\x03\x04") or _is_tar_data(head) or _compressed(name, head) is not None


# The head of a file inside an archive that sniffs look at (each format's is at most this), held for the
# formats asked in turn: a zip's 100 Teams chats are each asked whether they are a Discord, Telegram or
# Gemini file, and whether they are an archive.
HEAD = 64 << 10


@functools.lru_cache(maxsize=128)
def _head(chain: tuple[str, ...], name: str, stamp: tuple[int, int]) -> bytes:
    """The first ``HEAD`` bytes of the file ``name`` of an archive (``_Place``)."""
    directory = _directory(chain, stamp)
    with directory.open() as zf:
        return member_head(zf, directory.files[name].name, Path(*chain), HEAD)


def _is_tar_data(data: bytes | bytearray) -> bool:
    """Whether bytes start as a tar does, compressed or not. Never raises."""
    try:
        return tarfile.is_tarfile(io.BytesIO(data))
    except Exception:  # a damaged compressed stream raises what its codec raises
        return False


def _tar_as_zip(source: Path | IO[bytes], where: Path, size: int) -> bytes:
    """The files of a tar as an uncompressed zip, read through once with the limits of ``_tar_files``;
    photos, videos and sound (by the name's media type) are left out."""
    out = io.BytesIO()
    held = 0
    with _open_tar(source, where) as tf, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for info in _tar_files(tf, where, size):
            name = _member_name(info.name)
            kind = (mimetypes.guess_type(info.name)[0] or "").split("/")[0]
            if name is None or kind in ("image", "video", "audio"):
                continue
            held += info.size
            if held > MAX_HELD_BYTES:
                raise InputError(
                    where,
                    f"holds more than {MAX_HELD_BYTES >> 20} MB of files other than media, more than "
                    "refind reads from a tar; unpack it and import the folder",
                )
            try:
                fh = tf.extractfile(info)
                assert fh is not None  # a regular file always has its data
                with fh, zf.open(name, "w") as dest:
                    while chunk := fh.read(CHUNK):
                        dest.write(chunk)
            except Exception as exc:  # a damaged compressed stream
                place = f"entry {info.name!r}"
                raise InputError(
                    where, f"cannot read tar entry ({type(exc).__name__}: {exc})", place
                ) from None
    return out.getvalue()


def _open_tar(source: Path | IO[bytes], where: Path) -> tarfile.TarFile:
    try:
        if isinstance(source, Path):
            return tarfile.open(source, "r:*")
        return tarfile.open(fileobj=source, mode="r:*")
    except Exception as exc:  # tarfile.TarError, OSError and what a damaged compressed stream raises
        raise InputError(where, f"not a readable tar archive ({exc})") from None


def _tar_files(tf: tarfile.TarFile, where: Path, size: int) -> Iterator[tarfile.TarInfo]:
    """The tar's regular files as its headers are read, refused past the limits: a tar is read through to
    be listed, so a hostile one must be stopped by what it declares before it is expanded."""
    budget = max(RATIO_FLOOR_BYTES, MAX_RATIO * size)
    declared = 0
    try:
        for count, info in enumerate(tf, 1):
            if count > MAX_MEMBERS:
                raise InputError(
                    where, f"holds more than {MAX_MEMBERS:,} entries; refusing a possible tar bomb"
                )
            if not info.isreg():
                continue
            place = f"entry {info.name!r}"
            if info.size > MAX_MEMBER_BYTES:
                raise InputError(
                    where,
                    f"declares {info.size:,} bytes (limit {MAX_MEMBER_BYTES:,}); refusing a possible tar "
                    "bomb",
                    place,
                )
            declared += info.size
            if declared > budget:
                raise InputError(
                    where, "declares far more bytes than it could hold; refusing a tar bomb", place
                )
            yield info
    except InputError:
        raise
    except Exception as exc:  # tarfile.TarError, EOFError, zlib.error and friends from a damaged stream
        raise InputError(where, f"cannot read tar archive ({type(exc).__name__}: {exc})") from None


def _member_chunks(path: Path, step: int = CHUNK) -> Generator[bytes, None, None]:
    """The bytes of the file inside an archive at ``path``, ``step`` a chunk; errors name ``path``, or its
    archive's entry."""
    place = _place(path)
    if place is None or place.folder:
        raise InputError(path, "no such file in the archive")
    directory = _directory(place.chain, _stamp(Path(place.chain[0])))
    with directory.open() as zf:
        yield from iter_member_chunks(zf, directory.files[place.name].name, Path(*place.chain), step)


def is_file(path: Path) -> bool:
    """Whether ``path`` is a regular file on disk or in an archive. Never raises."""
    if member_of(path) is None:
        return path.is_file()
    try:
        place = _place(path)
    except InputError:
        return False
    return place is not None and not place.folder


def file_size(path: Path) -> int:
    """The bytes of a loose file, or of an archive member as its archive declares them."""
    if member_of(path) is None:
        try:
            return path.stat().st_size
        except OSError as exc:
            raise InputError(path, f"cannot read ({exc.strerror or exc})") from None
    place = _place(path)
    if place is None or place.folder:
        raise InputError(path, "no such file in the archive")
    return _directory(place.chain, _stamp(Path(place.chain[0]))).files[place.name].size


def shallowest(zf: zipfile.ZipFile, name: str) -> str | None:
    """The shallowest member called ``name``: a zip of an export folder adds a folder level."""
    found = files_matching(zf, f"(?:.*/)?{re.escape(name)}")
    return min(found, key=lambda n: (n.count("/"), n)) if found else None


@contextlib.contextmanager
def named_file(
    path: Path, name: str, what: str
) -> Iterator[tuple[Generator[bytes, None, None], Path, str | None]]:
    """The chunks of an export's one ``name`` file (``result.json``, ``conversations.json``): in the folder
    ``path``, the shallowest in the zip ``path``, or ``path`` itself; with the path and the zip entry that
    errors name. The zip stays open inside the block. ``what`` ends the error for an export without it."""
    if path.is_dir():
        file = path / name
        if not file.is_file():
            raise InputError(path, f"no {name} in this folder; not {what}")
        yield iter_file_chunks(file), file, None
    elif is_zip(path):
        with open_zip(path) as zf:
            member = shallowest(zf, name)
            if member is None:
                raise InputError(path, f"no {name} in this zip; not {what}")
            yield iter_member_chunks(zf, member, path), path, f"entry {member!r}"
    else:
        yield iter_file_chunks(path), path, None


def zipped_file(path: Path, name: str) -> Path | None:
    """The zip ``path``'s ``name`` file, as ``named_file`` finds it, as a path (``x.zip/folder/result.json``);
    None where it has none."""
    with open_zip(path) as zf:
        member = shallowest(zf, name)
    return None if member is None else path / member


def named_head(path: Path, name: str, size: int) -> bytes:
    """The first ``size`` bytes of an export's ``name`` file, as ``named_file`` finds it, as UTF-8
    (``sniff_head``) without leading white space; b"" where there is none. Never raises: it serves a format's
    sniff."""
    try:
        if path.is_dir():
            file = path / name
            data = sniff_head(file, size) if file.is_file() else b""
        elif is_zip(path):
            with open_zip(path) as zf:
                member = shallowest(zf, name)
                data = utf8_head(member_head(zf, member, path, size)) if member else b""
        else:
            data = sniff_head(path, size)
    except (InputError, OSError, ValueError):
        return b""
    return data.lstrip()


def sniff_head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of a loose file or an archive member, as UTF-8 without a BOM (``utf8_head``):
    what a sniff matches its patterns on, whatever the file's encoding."""
    return utf8_head(read_file_part(path, 0, size))


def read_file(path: Path, limit: int = MAX_MEMBER_BYTES) -> bytes:
    """A loose file or an archive member whole, up to ``limit`` bytes."""
    found = file_size(path)
    if found > limit:
        raise InputError(path, f"is {found:,} bytes; larger than the {limit:,} bytes refind reads whole")
    return b"".join(iter_file_chunks(path))


def read_file_part(path: Path, start: int, size: int = -1) -> bytes:
    """``size`` bytes of a loose file or an archive member from byte ``start`` on (all the rest with -1)."""
    inside = member_of(path) is not None
    if inside and size >= 0 and start + size <= HEAD:
        place = _place(path)
        if place is None or place.folder:
            raise InputError(path, "no such file in the archive")
        return _head(place.chain, place.name, _stamp(Path(place.chain[0])))[start : start + size]
    if size >= 0 and not inside:  # read as much as asked, not a whole chunk
        try:
            with path.open("rb") as fh:
                fh.seek(start)
                return fh.read(size)
        except OSError as exc:
            raise InputError(path, f"cannot read ({exc.strerror or exc})") from None
    # A member's bytes up to the part, inflated in one read where they are fewer than a chunk (a sniff's).
    step = CHUNK if size < 0 else min(CHUNK, max(start + size, 1))
    with contextlib.closing(iter_file_chunks(path, start, step)) as chunks:
        if size < 0:
            return b"".join(chunks)
        data = b""
        for chunk in chunks:
            data += chunk
            if len(data) >= size:
                break
        return data[:size]


# --- text --------------------------------------------------------------------------------------------

_BOMS = (
    # UTF-32 LE before UTF-16 LE: its BOM starts with UTF-16 LE's.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Without a BOM, UTF-16 and UTF-32 are told by their NUL bytes: every export starts in ASCII (a brace, a tag,
# a date, a title) and holds much of it, whose characters carry NULs in fixed places of their code units.
_NUL_SHARE = 4  # at least one byte in this many of a place is NUL
ENCODING_BYTES = 4096  # the first bytes that tell a text's encoding


@dataclass(frozen=True, slots=True)
class Encoding:
    codec: str  # a Python codec without BOM handling ("utf-16-le")
    bom: int  # the bytes of its BOM at the start, 0 without

    @property
    def label(self) -> str:
        return "-".join(self.codec.upper().split("-")[:2])

    @property
    def legacy(self) -> bool:
        """A code page told from the bytes (``_legacy``), not a Unicode encoding."""
        return not self.codec.startswith("utf-")

    def said(self, path: Path | str, where: str | None = None) -> None:
        """One warning that a text was read in a legacy code page, which its bytes tell only as a guess (UTF-8
        encoded twice is not said: its bytes tell it beyond doubt, and a Meta export is so throughout)."""
        if self.legacy:
            what = f"not UTF-8: read as {self.label}, the code page its bytes tell (saved by an older tool?)"
            warnings.warn(InputWarning(path, what, where), stacklevel=3)


def text_encoding(start: bytes) -> Encoding:
    """The encoding of text that starts with ``start`` (a few KB tell it best; as many as ``more_to_tell``
    asks for tell it as the whole text does): UTF-8, 16 or 32 by their BOM, or UTF-16 and 32 without one by
    where their NUL bytes fall; a legacy code page where the bytes are not UTF-8 (``_legacy``); UTF-8 encoded
    twice where they prove it (``_twice``); else UTF-8."""
    for bom, codec in _BOMS:
        if start.startswith(bom):
            twice = codec == "utf-8" and _twice(start[len(bom) :])
            return Encoding(TWICE if twice else codec, len(bom))
    sample = start[: min(len(start), ENCODING_BYTES) // 4 * 4]
    if not sample or b"\0" not in sample:
        return Encoding(_legacy(_telling(start)) or (TWICE if _twice(start) else "utf-8"), 0)
    places = [sample[i::4].count(0) * _NUL_SHARE >= len(sample) // 4 for i in range(4)]
    for codec, nul_places in (
        ("utf-32-le", [False, None, True, True]),
        ("utf-32-be", [True, True, None, False]),
        ("utf-16-le", [False, True, False, True]),
        ("utf-16-be", [True, False, True, False]),
    ):
        if all(want is None or have == want for have, want in zip(places, nul_places, strict=True)):
            return Encoding(codec, 0)
    return Encoding(TWICE if _twice(start) else "utf-8", 0)


# An ASCII start tells nothing of the bytes beyond ASCII: up to this many bytes are read for the first of
# them (a JSON export's first kilobytes are often keys and numbers only).
ENCODING_SCAN = CHUNK
_BEYOND_ASCII = re.compile(rb"[\x80-\xff]")


def more_to_tell(start: bytes) -> bool:
    """Whether a text's first bytes are too few to tell its encoding as its whole text does
    (``text_encoding``): fewer than ``ENCODING_BYTES``; ASCII and fewer than ``ENCODING_SCAN``; fewer than
    ``ENCODING_BYTES`` after an ASCII start's first byte beyond ASCII (``_telling``); or UTF-8 that may be
    encoded twice, short of the ``TWICE_BYTES`` that tell it (``_twice``). However the text comes in chunks,
    its encoding is told from the same bytes."""
    if len(start) < ENCODING_BYTES:
        return True
    beyond = _beyond_ascii(start.removeprefix(codecs.BOM_UTF8))
    if beyond is None:
        return len(start) < ENCODING_SCAN
    if start[:ENCODING_BYTES].isascii() and len(start) < beyond + ENCODING_BYTES:
        return True
    sample = _twice_sample(start)
    if len(sample) >= TWICE_BYTES:
        return False
    # Text written once is told by its first character that is not UTF-8's bytes in Windows-1252, looked
    # for in the sample's first 2**k bytes: the same bytes (``twice_evidence`` remembers them) while the
    # sample grows chunk by chunk, not undone again for each (small chunks cost a square otherwise).
    return twice_evidence(sample[: 1 << (len(sample).bit_length() - 1)], final=False) is not None


def _beyond_ascii(start: bytes) -> int | None:
    """Where a text's first byte beyond ASCII is, among its first ``ENCODING_SCAN``."""
    head = start[:ENCODING_SCAN]
    found = None if head.isascii() else _BEYOND_ASCII.search(head)
    return None if found is None else found.start()


def _telling(start: bytes) -> bytes:
    """The bytes of a text's start that tell its encoding: its first ``ENCODING_BYTES``, or where those are
    ASCII, as many from its first byte beyond ASCII (among its first ``ENCODING_SCAN``)."""
    head = start[:ENCODING_BYTES]
    if not head.isascii() or (beyond := _beyond_ascii(start)) is None:
        return head
    return start[beyond : beyond + ENCODING_BYTES]


# UTF-8 encoded twice: UTF-8 text read as Windows-1252 and saved as UTF-8 again (an editor or a converter
# told the wrong encoding: "für" becomes "fÃ¼r"). Its bytes are valid UTF-8, and so are the bytes its
# characters stand for in Windows-1252, which the text of a person almost never is: there a letter with an
# accent is one such byte, followed by a plain one. A byte Windows-1252 leaves undefined is read as the
# control character of its number (as Windows maps it).
TWICE = "utf-8-twice"
_AS_CP1252 = str.maketrans(
    {bytes([b]).decode("cp1252", "ignore") or chr(b): chr(b) for b in range(0x80, 0x100)}
)


def _undone(text: str) -> bytes:
    """The bytes the characters of a text encoded twice stand for (UnicodeEncodeError: it is not one)."""
    return text.translate(_AS_CP1252).encode("latin-1")


# UTF-8 encoded twice is told from this many bytes from the text's first byte beyond ASCII (a whole chat
# export of a few hundred messages; most formats' sniffs read as many), the same bytes for every reader.
TWICE_BYTES = 64 << 10
# ... and only where they prove it: every character beyond ASCII there is one of the bytes of a UTF-8
# character read in Windows-1252. Read so, one such character is proof enough ("ÃŸ" for "ß", "â€“" for "–":
# an English export whose one character beyond ASCII is a dash is common, a person writing "ÃŸ" is not). A
# control character (U+0080-U+009F) among them is not how Windows-1252 reads a byte it defines, but how
# Latin-1 does (a converter that took the text as Latin-1): a person's text may hold one by chance
# ("Â\x80", "á\x80\x80"), so there the bytes must hold at least this many beyond their characters' first
# (an emoji holds three, "Ã©" for "é" one).
TWICE_EVIDENCE = 3
_LATIN_1_CONTROLS = re.compile(rb"\xc2[\x80-\x9f]")  # U+0080-U+009F in UTF-8
_BEYOND_ASCII_TEXT = re.compile(r"[^\x00-\x7f]+")


def _twice_sample(start: bytes) -> bytes:
    """The bytes of a text's start (its BOM dropped) that tell whether it is UTF-8 encoded twice: its
    ``TWICE_BYTES`` from its first byte beyond ASCII (b"" where there is none among its first
    ``ENCODING_SCAN``)."""
    start = start.removeprefix(codecs.BOM_UTF8)
    beyond = _beyond_ascii(start)
    return b"" if beyond is None else start[beyond : beyond + TWICE_BYTES]


def _twice(start: bytes) -> bool:
    """Whether UTF-8 text that starts with ``start`` (its BOM dropped) proves to be UTF-8 encoded twice
    (``TWICE``) in the bytes that tell it (``_twice_sample``): see ``TWICE_EVIDENCE``. Bytes fewer than
    those are taken for the whole text (``more_to_tell`` asks for them all where there are more)."""
    sample = _twice_sample(start)
    evidence = twice_evidence(sample, final=len(sample) < TWICE_BYTES)
    if not evidence:
        return False
    return evidence >= TWICE_EVIDENCE or not _LATIN_1_CONTROLS.search(sample)


@functools.lru_cache(maxsize=64)  # each format's sniff asks of the same file's start
def twice_evidence(data: bytes, final: bool = True) -> int | None:
    """How far UTF-8 bytes prove to be UTF-8 encoded twice: the bytes beyond a character's first that their
    characters beyond ASCII stand for in Windows-1252 (``_undone``), each run of them UTF-8; None where one
    is not (text written once), or where the bytes are not UTF-8. ``final``: False where the bytes may be
    cut at their end (inside a character, or inside the bytes of one encoded twice)."""
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final)
    except UnicodeDecodeError:
        return None
    evidence = 0
    # Run by run: text written once is told by its first character beyond ASCII, never undone whole.
    for run in _BEYOND_ASCII_TEXT.finditer(text):
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            raw = _undone(run.group())
            once = decoder.decode(raw, final or run.end() < len(text))
        except (UnicodeDecodeError, UnicodeEncodeError):
            return None
        evidence += len(raw) - len(decoder.getstate()[0]) - len(once)
    return evidence


class _TwiceDecoder(codecs.IncrementalDecoder):
    """UTF-8 decoded twice, as it streams in."""

    def __init__(self, errors: str = "strict") -> None:
        super().__init__(errors)
        self._outer = codecs.getincrementaldecoder("utf-8")(errors)
        self._inner = codecs.getincrementaldecoder("utf-8")(errors)

    def decode(self, data: bytes, final: bool = False) -> str:  # type: ignore[override]
        text = self._outer.decode(data, final)
        try:
            raw = _undone(text)
        except UnicodeEncodeError as exc:
            raise UnicodeDecodeError(
                TWICE, data, 0, len(data), f"not UTF-8 encoded twice: {exc.reason}"
            ) from None
        return self._inner.decode(raw, final)

    def reset(self) -> None:
        self._outer.reset()
        self._inner.reset()


def _twice_codec(name: str) -> codecs.CodecInfo | None:
    if name.replace("_", "-") != TWICE:
        return None

    def decode(data: Any, errors: str = "strict", /) -> tuple[str, int]:
        return _TwiceDecoder(errors).decode(bytes(data), final=True), len(data)

    def encode(text: str, errors: str = "strict", /) -> tuple[bytes, int]:
        once = text.encode("utf-8", errors).decode("latin-1")
        return once.translate({ord(v): chr(k) for k, v in _AS_CP1252.items()}).encode("utf-8", errors), len(
            text
        )

    return codecs.CodecInfo(encode, decode, incrementaldecoder=_TwiceDecoder, name=TWICE)


codecs.register(_twice_codec)


# The code pages Windows writes as "ANSI" (the system's legacy code page: Excel's plain CSV, Notepad before
# 2019), one per script, the most used first: those a legacy text export is read in. Where its bytes read
# alike in several (a short Western text), the first wins. Not CP1258 (Vietnamese, which writes tones as
# combining marks after any byte): Czech in CP1250 reads as it with a better score, and Vietnamese Windows
# text was mostly written in Unicode or VNI.
_ANSI = (
    "cp1252",
    "cp1251",
    "cp1250",
    "cp932",
    "cp936",
    "cp949",
    "cp950",
    "cp1254",
    "cp1253",
    "cp1257",
    "cp1256",
    "cp1255",
    "cp874",
)
# What a text holds besides its characters: line ends and tabs. A text that decodes to other control
# characters in a code page is no text in it (a binary file).
_CONTROLS = frozenset(range(32)) - {9, 10, 13}


@functools.lru_cache(maxsize=64)  # each format's sniff asks of the same file's start
def _legacy(start: bytes) -> str | None:
    """The code page of a text whose first bytes are not UTF-8 (an older Windows tool's "ANSI": Excel's
    plain CSV, Notepad before 2019): of those it decodes in without control characters, the one whose
    decoding reads most like written text (``_oddness``), the most used on a tie; None where the bytes are
    UTF-8 (or cut inside a character at their end), UTF-8 with a damaged byte (a UTF-8 character before it),
    or no text in any code page."""
    try:
        start.decode("utf-8")
        return None
    except UnicodeDecodeError as exc:
        if exc.end == len(start) and exc.start >= len(start) - 3 and "end" in exc.reason:
            return None  # a character cut at the end of the sample
        if not start[: exc.start].isascii():
            return None
    return code_page(start, _ANSI)


def code_page(data: bytes, candidates: Sequence[str]) -> str | None:
    """Of the ``candidates`` (code pages, the most used first) that decode ``data`` without control
    characters, the one whose decoding reads most like written text (``_oddness``), the most used on a tie;
    None where none does."""
    ranked = []
    for order, codec in enumerate(candidates):
        try:
            # Not final: the sample may end inside a character of a double-byte code page.
            text = codecs.getincrementaldecoder(codec)().decode(data, final=False)
        except UnicodeDecodeError:
            continue
        name = codecs.lookup(codec).name
        if not any(ord(c) in _CONTROLS for c in text):
            odd_words, symbols, fit = _oddness(text)
            # A text that reads cleanly as several characters of a double-byte code page, some of them
            # common in a language, is in it: other text rarely pairs its bytes into them all, let alone
            # into common ones (Korean in CP874 reads as clean Thai; one short word of Cyrillic may pair).
            paired = not _single_byte(name) and fit < 0 and sum(ord(c) > 127 for c in text) >= _PAIRED
            ranked.append((odd_words, symbols, not paired, fit, order, name))
    return min(ranked)[-1] if ranked else None


# Double-byte characters a clean decoding needs to hold to be taken over a single-byte one.
_PAIRED = 4
# Symbols written text holds as they are, which no decoding makes of letters alone: the degree sign.
_PLAIN_SYMBOLS = frozenset("°")
# Scripts one word of Japanese or Chinese mixes, as Unicode names them (the first word of a name): kana,
# ideographic punctuation, full-width forms.
_ONE_SCRIPT = {
    "HIRAGANA": "CJK",
    "KATAKANA": "CJK",
    "KATAKANA-HIRAGANA": "CJK",
    "HALFWIDTH": "CJK",
    "FULLWIDTH": "CJK",
    "IDEOGRAPHIC": "CJK",
}


def _oddness(text: str) -> tuple[int, int, float]:
    """How unlike written text a decoding reads, from the characters' own properties and charset-normalizer's
    tables of each language's common letters: words that mix scripts or hold a capital after a small letter
    (Arabic in CP1251 is "ЗбГУИЗднЙ", Czech in CP1251 "Celй инslo", Spanish in CP874 "n๚mero"), then
    symbols where letters belong (Polish in CP1252 is "£ódŸ"), then the share of its non-ASCII letters that
    no one language commonly writes (Czech in CP1252 is "ìø", Turkish "Ýþ")."""
    words = "".join(c if _script(c) else " " for c in text).split()
    odd_words = sum(
        1
        for w in words
        if len(set(map(_script, w))) > 1 or any(a.islower() and b.isupper() for a, b in itertools.pairwise(w))
    )
    symbols = sum(
        1
        for c in text
        if ord(c) > 127
        and unicodedata.category(c)[0] in "SNC"
        and not c.isdigit()
        and c not in _PLAIN_SYMBOLS
    )
    letters = [c.lower() for c in text if ord(c) > 127 and c.isalpha()]
    fit = max(sum(c in common for c in letters) for common in _common_letters())
    return odd_words, symbols, -fit / len(letters) if letters else 0.0


@functools.lru_cache(maxsize=1)
def _common_letters() -> tuple[frozenset[str], ...]:
    from charset_normalizer.constant import FREQUENCIES

    return tuple(frozenset(letters) for letters in FREQUENCIES.values())


@functools.lru_cache(maxsize=4096)
def _script(c: str) -> str:
    """The script a character of a word is written in ("LATIN", "CJK"), "" for one of no script (a digit,
    common punctuation: "EM DASH"): the first word of its Unicode name, where that names a script letters
    are written in (a Thai or an Arabic mark holds to its script: in a Latin word it is out of place)."""
    if ord(c) < 128:
        return "LATIN" if c.isalpha() else ""
    name = unicodedata.name(c, "").split(" ", 1)[0]
    name = _ONE_SCRIPT.get(name, name)
    return name if name in _letter_scripts() else ""


@functools.lru_cache(maxsize=1)
def _letter_scripts() -> frozenset[str]:
    """The scripts of the letters of the Basic Multilingual Plane: the first words of their Unicode names."""
    found = set(_ONE_SCRIPT.values())
    for point in range(0x80, 0x10000):
        c = chr(point)
        if c.isalpha():
            found.add(unicodedata.name(c, " ").split(" ", 1)[0])
    return frozenset(found)


def _single_byte(codec: str) -> bool:
    return codecs.lookup(codec).name not in ("cp932", "gbk", "cp949", "cp950")


def utf8_head(data: bytes) -> bytes:
    """The first bytes of a text file as UTF-8 without a BOM, leniently: a character the cut split, or a
    byte that is not text, is dropped or replaced rather than refused. Never raises."""
    encoding = text_encoding(data)
    data = data[encoding.bom :]
    if encoding.codec == "utf-8":
        return data
    return data.decode(encoding.codec, "ignore").encode("utf-8", "replace")


def utf8_chunks(
    chunks: Iterable[bytes],
    error: ErrorMaker,
    transcoding: Callable[[], None] = lambda: None,
    legacy: bool = False,
    part: bool = False,
) -> Iterator[bytes]:
    """A text file's byte chunks as UTF-8 without a BOM, for the parsers that read bytes (JSON, XML, CSV):
    UTF-8 passes through as it is, UTF-16 and 32 are decoded as they stream in (``transcoding`` is called
    first: the bytes handed on then no longer count the file's), and with ``legacy`` (a CSV: JSON is UTF-8,
    an XML file declares its encoding to its parser) a legacy code page too. Invalid UTF-16 or 32 is an
    error made by ``error``, naming the byte; invalid UTF-8 is left to the parser, which names it its own
    way. ``part``: the chunks are a part of a text from elsewhere than its start, whose start told UTF-8
    (``file_encoding``): they pass through, never told on their own (a part proves less), but their first
    chunks joined as a whole reading joins them: a parser's first read block, and so the heads a reading that
    goes on marks (``jsonstream.JsonEvents.go_on``), depend on it."""
    chunks = iter(chunks)
    if part:
        encoding, first = Encoding("utf-8", 0), _enough_to_tell(chunks)
    else:
        encoding, first = told_encoding(chunks, legacy)
    if encoding.codec == "utf-8":
        first = first[encoding.bom :]
        if first:
            yield first
        first = b""  # held no longer than the parser needs it
        yield from chunks
        return
    place = error("", None)
    encoding.said(place.path, place.where)
    transcoding()
    source = itertools.chain([first[encoding.bom :]], chunks, [b""])
    del first
    decoder = codecs.getincrementaldecoder(encoding.codec)()
    done = encoding.bom
    for chunk in source:
        try:
            text = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise error(f"invalid {encoding.label}; not a text export", f"byte {done + exc.start}") from None
        done += len(chunk)
        if text:
            yield text.encode("utf-8")


def _enough_to_tell(chunks: Iterator[bytes]) -> bytes:
    """The first chunks, joined, until they tell the encoding (``more_to_tell``) or the text ends."""
    start = b""
    for chunk in chunks:
        start += chunk
        if not more_to_tell(start):
            break
    return start


def file_encoding(path: Path) -> Encoding:
    """The encoding of a file's text (``text_encoding``), told from as many of its first bytes as its
    reading tells it from (``more_to_tell``): most texts tell it in their first few KB, read alone."""
    size = ENCODING_BYTES
    while len(start := read_file_part(path, 0, size)) == size and more_to_tell(start):
        size *= 4
    return text_encoding(start)


def telling(chunks: Iterable[bytes], told: Callable[[Encoding], None]) -> Iterator[bytes]:
    """A text's chunks passed on as they come, ``told`` its encoding (``text_encoding``) once enough of them
    tell it (``more_to_tell``) or they end: told from the same bytes as the text's reading, whatever the
    chunks."""
    start: bytes | None = b""
    for chunk in chunks:
        if start is not None:
            start += chunk
            if not more_to_tell(start):
                told(text_encoding(start))
                start = None
        yield chunk
    if start is not None:
        told(text_encoding(start))


def told_encoding(chunks: Iterator[bytes], legacy: bool = False) -> tuple[Encoding, bytes]:
    """The encoding ``decoded_chunks`` (and ``linelog.iter_text``) reads a text in, told from its first
    chunks, and those chunks joined (a BOM and all): the same chunks handed on to it first are told alike."""
    first = _enough_to_tell(chunks)
    encoding = text_encoding(first)
    return (Encoding("utf-8", 0) if encoding.legacy and not legacy else encoding), first


def decode_text(data: bytes, path: Path | str, where: str | None = None, legacy: bool = False) -> str:
    """Decode an export's text: UTF-8, 16 or 32 (``text_encoding``), and with ``legacy`` (a text or HTML
    file, not JSON) a legacy code page too, said in a warning. Invalid bytes are an error that names the
    line, never a silent replacement character (``decoded_chunks``, given the bytes whole)."""
    return "".join(decoded_chunks([data], path, where, legacy))


def decoded_chunks(
    chunks: Iterable[bytes],
    path: Path | str,
    where: str | None = None,
    legacy: bool = False,
    bom: bool = True,
) -> Iterator[str]:
    """``decode_text`` as the bytes stream in, never holding them whole: the encoding told by the first
    bytes in the same way, the text given a piece at a time as written (line ends too), the same error at
    the same line or byte. ``bom``: False for bytes read from a mark on (plain UTF-8, where no BOM can be)."""
    chunks = iter(chunks)
    encoding, first = Encoding("utf-8", 0), b""
    if bom:
        encoding, first = told_encoding(chunks, legacy)
        encoding.said(path, where)
        first = first[encoding.bom :]
    decoder = codecs.getincrementaldecoder(encoding.codec)()
    passed = newlines = 0  # the bytes after the BOM given to the decoder before this chunk, their newlines
    for chunk in itertools.chain([first], chunks, [b""]):
        pending = decoder.getstate()[0]  # the start of a character the last chunk cut
        try:
            text = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            data = pending + chunk
            if encoding.codec != "utf-8":
                at = encoding.bom + passed - len(pending) + exc.start
                raise InputError(path, f"invalid {encoding.label} at byte {at}", where) from None
            line = newlines + data.count(b"\n", 0, exc.start) + 1
            place = f"{where}, line {line}" if where else f"line {line}"
            raise InputError(
                path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); not a text export", place
            ) from None
        passed += len(chunk)
        if encoding.codec == "utf-8":
            newlines += chunk.count(b"\n")
        if text:
            yield text


def spooled(member: Path, stack: contextlib.ExitStack) -> Path | None:
    """A zip member (``x.zip/folder/file.json``) copied to a temporary file of its name for as long as
    ``stack`` lasts, so that its items can be found by their bytes as a loose file's are
    (``jsonstream.Items`` needs the bytes at hand, which a zip's stream does not give); None where no
    temporary file can be written (the member is then read as it streams)."""
    copy = spooled_until(member, stack, ())
    return None if copy is None else copy[0]


def member_sums(member: Path) -> tuple[int, int] | None:
    """The CRC-32 and size that a zip's central directory holds for its member at ``member``
    (``x.zip/folder/result.json``), nothing inflated; None for any other path (a tar's member, a nested
    archive's, one on disk)."""
    place = _place(member)
    if place is None or place.folder or len(place.chain) != 1:
        return None
    directory = _directory(place.chain, _stamp(Path(place.chain[0])))
    found = directory.files.get(place.name)
    return None if found is None or directory.held is not None else (found.crc, found.size)


def spooled_until(
    member: Path, stack: contextlib.ExitStack, ends: Sequence[tuple[int, int, int]]
) -> tuple[Path, int | None] | None:
    """``spooled``, stopped where the member's last bytes are shown to be an earlier member's from an item of
    a list on: ``ends`` holds the length and CRC-32 of such last bytes (they begin with the item's ``{``), and
    what they stand for (an index). Where the CRC-32 of the bytes before one, joined to its own, is the
    member's CRC-32 and the lengths add up to its size (``member_sums``: nothing inflated to know them), the
    copy holds the bytes before it, then the ``{`` a parser reads before it stops there. The copy and the index
    of the end it stops at (None: the whole member copied); None where no copy can be written."""
    import tempfile

    from refind_cli.importers import crc32

    sums = member_sums(member) if ends else None
    whole, size = sums if sums is not None else (0, 0)
    # By where each end begins in this member, the shortest way in first.
    wanted = sorted((size - length, crc, index) for length, crc, index in ends if 0 < length <= size)
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="refind-")))
    copy = folder / member.name
    at, running, found, next_end = 0, 0, None, 0
    try:
        with copy.open("wb") as out, contextlib.closing(iter_file_chunks(member)) as chunks:
            for chunk in chunks:
                while next_end < len(wanted) and wanted[next_end][0] < at + len(chunk):
                    start, crc, index = wanted[next_end]
                    next_end += 1
                    if chunk[start - at : start - at + 1] != b"{":  # no item of a list begins there
                        continue
                    before = zlib.crc32(chunk[: start - at], running)
                    if crc32.joined(before, crc, size - start) == whole:
                        found, chunk = index, chunk[: start - at] + b"{"
                        break
                out.write(chunk)
                if found is not None:
                    break
                running = zlib.crc32(chunk, running) if next_end < len(wanted) else running
                at += len(chunk)
    except OSError:  # a full disk: the copy is dropped now, not when the reading ends
        copy.unlink(missing_ok=True)
        return None
    return copy, found


def member_stamp(zf: zipfile.ZipFile, name: str) -> bytes:
    """What stands for a zip member's bytes in a fingerprint: the CRC-32 and size its central directory holds
    (nothing decompressed; for a listed zip, no ``ZipInfo`` made: a Slack export's 36,000 day files each have
    one)."""
    member = zf._view.table.get(name) if isinstance(zf, _Listed) else None
    if member is None:
        info = zf.getinfo(name)
        return f"crc32 {info.CRC:08x} size {info.file_size}".encode()
    return f"crc32 {member.crc:08x} size {member.size}".encode()


def fingerprint(parts: Iterable[bytes]) -> str:
    """A ``ChatExport.fingerprint`` of what a chat is read from (files' names and bytes, a directory of
    names): each part's length goes in before it, so that no two lists of parts hash alike by where they
    are cut. Hashed as it goes: a part may be a large file's chunk (``framed`` joins them)."""
    return streamed_fingerprint((len(part), (part,)) for part in parts)


def streamed_fingerprint(parts: Iterable[tuple[int, Iterable[bytes]]]) -> str:
    """``fingerprint`` of parts each given as its length and its chunks: a file too large to hold whole
    (its size told beforehand: a zip member's, or a file's on disk)."""
    import xxhash

    h = xxhash.xxh3_128()
    for size, chunks in parts:
        h.update(size.to_bytes(8, "little"))
        for chunk in chunks:
            h.update(chunk)
    return h.hexdigest()


def framed(parts: Iterable[bytes]) -> bytes:
    """The bytes ``fingerprint`` hashes, joined: each part after its length. Those of a list's first parts
    begin those of the list (``prefix_fingerprints``)."""
    parts = list(parts)
    # Iterated in C, each length's bytes made once: 146,000 parts of a large Slack export took 40 ms a piece
    # at a time.
    return b"".join(itertools.chain.from_iterable(zip(map(_length, map(len, parts)), parts, strict=True)))


@functools.lru_cache(maxsize=4096)  # a day file's name and stamp take a few lengths
def _length(size: int) -> bytes:
    return size.to_bytes(8, "little")


PREFIX_BATCH = 1 << 20  # bytes of parts ``prefix_fingerprints`` holds before it hashes them


def prefix_fingerprints(
    head: Iterable[bytes], items: Iterable[Iterable[bytes]], wanted: Collection[int]
) -> dict[int, str]:
    """The ``fingerprint`` of ``head``'s parts and the first n items' parts, for each n of ``wanted`` (a
    Slack channel's context and its first n day files' names and stamps), in one pass over ``items``: the
    parts are held only until ``PREFIX_BATCH`` bytes of them are hashed (an unzipped channel's stamps are its
    day files' bytes: a million messages' ~300 MB). Framed and hashed in batches, not a hash update a part: a
    grown 1M export's 36,500 day files took 60 ms a reading in updates."""
    import xxhash

    h = xxhash.xxh3_128(framed(head))
    found = {0: h.hexdigest()} if 0 in wanted else {}
    batch: list[bytes] = []
    held = 0
    for n, parts in enumerate(items, 1):
        for part in parts:
            batch.append(part)
            held += len(part)
        if n in wanted or held >= PREFIX_BATCH:
            h.update(framed(batch))
            batch, held = [], 0
        if n in wanted:
            found[n] = h.hexdigest()  # the state goes on: a digest does not end it
    return found
