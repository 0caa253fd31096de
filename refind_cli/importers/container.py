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

import codecs
import contextlib
import functools
import io
import itertools
import mimetypes
import os
import shutil
import stat
import tarfile
import zipfile
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from refind_cli.errors import InputError

# A chat export's largest single member is its text or JSON file; a few hundred MB is already a huge one.
MAX_MEMBER_BYTES = 1 << 30
# Text compresses about 3-10x; a ratio beyond this, for a member big enough to matter, is a zip bomb.
MAX_RATIO = 200
RATIO_FLOOR_BYTES = 64 << 20
CHUNK = 1 << 20

# A tar is listed by reading it through; a header count past any real export's (Takeout's photos included) is
# a hostile one, and so are declared sizes that add up far past what the archive could expand to.
MAX_TAR_MEMBERS = 200_000
# A tar is read as a zip held in memory (``open_zip``) of its files other than photos, videos and sound
# (which are never exports): a compressed tar reads only from its start, and every importer that reads zips
# then reads tars. What it holds beyond this is refused with a word to unpack it.
MAX_TAR_HELD_BYTES = 512 << 20

ErrorMaker = Callable[[str, str | None], InputError]
"""Makes an importer's error from what went wrong and where (None: nowhere in particular)."""

# Archive names (.zip, .tgz, .tar.xz, ...), from the formats the standard library unpacks, longest first.
ARCHIVE_SUFFIXES = tuple(
    sorted((s for _, suffixes, _ in shutil.get_unpack_formats() for s in suffixes), key=len, reverse=True)
)


def archive_stem(name: str) -> str | None:
    """A file name without its archive suffix (``Takeout.tar.gz``: ``Takeout``); None if it has none."""
    folded = name.lower()
    suffix = next((s for s in ARCHIVE_SUFFIXES if folded.endswith(s)), None)
    return None if suffix is None else name[: -len(suffix)]


def is_zip(path: Path) -> bool:
    """Whether a loose file is an archive ``open_zip`` opens: a zip, or a tar (compressed or not)."""
    return zipfile.is_zipfile(path) or is_tar(path)


def open_zip(path: Path) -> zipfile.ZipFile:
    """A zip archive, or a tar archive as a zip (its files held in memory, ``MAX_TAR_HELD_BYTES``)."""
    try:
        if is_tar(path):
            st = path.stat()
            zf = zipfile.ZipFile(io.BytesIO(_tar_as_zip(str(path), st.st_mtime_ns, st.st_size)))
        else:
            zf = zipfile.ZipFile(path)
        members = zf.infolist()
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        ValueError,
        EOFError,
        NotImplementedError,
    ) as exc:
        raise InputError(path, f"not a readable zip archive ({exc})") from None
    for info in members:
        if info.file_size > MAX_MEMBER_BYTES:
            raise InputError(
                path,
                f"declares {info.file_size:,} bytes uncompressed (limit {MAX_MEMBER_BYTES:,}); refusing a possible zip bomb",
                f"entry {info.filename!r}",
            )
    return zf


def member_names(zf: zipfile.ZipFile) -> list[str]:
    """File entries, without folders and macOS resource forks (``__MACOSX/``, ``._name``)."""
    names = []
    for info in zf.infolist():
        name = info.filename
        # Not info.is_dir(): it fails on an empty name, which a hostile zip can carry.
        if not name or name.endswith("/") or name.startswith("__MACOSX/") or Path(name).name.startswith("._"):
            continue
        names.append(name)
    return names


def iter_member_chunks(zf: zipfile.ZipFile, name: str, path: Path) -> Generator[bytes, None, None]:
    """Stream one member, enforcing the size limits on the bytes actually produced."""
    info = zf.getinfo(name)
    where = f"entry {name!r}"
    produced = 0
    try:
        with zf.open(info) as fh:
            while chunk := fh.read(CHUNK):
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


def iter_file_chunks(path: Path, start: int = 0) -> Generator[bytes, None, None]:
    """Stream a loose file or an archive member (from byte ``start`` on), for formats that parse as they
    read."""
    inside = member_of(path)
    if inside is not None:
        yield from _skip(_member_chunks(path, *inside), start)
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


def member_of(path: Path) -> tuple[Path, str] | None:
    """The archive and the member's name of a path inside an archive (see the module's notes); None for a
    path on disk or one below no file."""
    if os.path.lexists(path):
        return None
    for parent in path.parents:
        try:
            mode = os.stat(parent).st_mode
        except OSError:  # missing, or below a file: look further up
            continue
        return (parent, path.relative_to(parent).as_posix()) if stat.S_ISREG(mode) else None
    return None


def is_tar(path: Path) -> bool:
    """Whether a loose file is a tar archive, compressed (Takeout's .tgz) or not. Never raises."""
    try:
        return path.is_file() and tarfile.is_tarfile(path)
    except Exception:  # a damaged compressed stream raises what its codec raises
        return False


def is_archive(path: Path) -> bool:
    """Whether a loose file is an archive whose members refind can read (zip or tar)."""
    return path.is_file() and is_zip(path)


@dataclass(frozen=True, slots=True)
class Entry:
    """A file in an archive: its name, normalised, and its size as declared."""

    name: str
    size: int


def archive_files(archive: Path) -> list[Entry]:
    """The regular files in a zip or tar, in archive order: no folders, links or devices (a link is never
    followed), no macOS forks, no name that climbs out (``..``) or is absolute, each name as a member path
    takes it (``./`` dropped). The limits are checked as the archive is listed."""
    try:
        st = archive.stat()
    except OSError as exc:
        raise InputError(archive, f"cannot read ({exc.strerror or exc})") from None
    return list(_listing(str(archive), st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=8)
def _listing(archive: str, _mtime: int, _size: int) -> tuple[Entry, ...]:
    with open_zip(Path(archive)) as zf:
        infos = [(n, zf.getinfo(n).file_size) for n in member_names(zf)]
    entries = []
    for name, size in infos:
        clean = _member_name(name)
        if clean is not None:
            entries.append(Entry(clean, size))
    return tuple(entries)


def _member_name(name: str) -> str | None:
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p != "."]
    if not parts or parts[0] == "/" or ".." in parts or parts[-1].startswith("._") or parts[0] == "__MACOSX":
        return None
    return "/".join(parts)


def _open_tar(path: Path) -> tarfile.TarFile:
    try:
        return tarfile.open(path, "r:*")
    except Exception as exc:  # tarfile.TarError, OSError and what a damaged compressed stream raises
        raise InputError(path, f"not a readable tar archive ({exc})") from None


@functools.lru_cache(maxsize=1)
def _tar_as_zip(archive: str, _mtime: int, _size: int) -> bytes:
    """The files of a tar as an uncompressed zip, read through once with the limits of ``_tar_files``;
    photos, videos and sound (by the name's media type) are left out."""
    path = Path(archive)
    out = io.BytesIO()
    held = 0
    with _open_tar(path) as tf, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for info in _tar_files(tf, path):
            name = _member_name(info.name)
            kind = (mimetypes.guess_type(info.name)[0] or "").split("/")[0]
            if name is None or kind in ("image", "video", "audio"):
                continue
            held += info.size
            if held > MAX_TAR_HELD_BYTES:
                raise InputError(
                    path,
                    f"holds more than {MAX_TAR_HELD_BYTES >> 20} MB of files other than media, more than "
                    "refind reads from a tar; unpack it and import the folder",
                )
            try:
                fh = tf.extractfile(info)
                assert fh is not None  # a regular file always has its data
                with fh, zf.open(name, "w") as dest:
                    while chunk := fh.read(CHUNK):
                        dest.write(chunk)
            except Exception as exc:  # a damaged compressed stream
                where = f"entry {info.name!r}"
                raise InputError(
                    path, f"cannot read tar entry ({type(exc).__name__}: {exc})", where
                ) from None
    return out.getvalue()


def _tar_files(tf: tarfile.TarFile, path: Path) -> Iterator[tarfile.TarInfo]:
    """The tar's regular files as its headers are read, refused past the limits: a tar is read through to
    be listed, so a hostile one must be stopped by what it declares before it is expanded."""
    budget = max(RATIO_FLOOR_BYTES, MAX_RATIO * path.stat().st_size)
    declared = 0
    try:
        for count, info in enumerate(tf, 1):
            if count > MAX_TAR_MEMBERS:
                raise InputError(
                    path, f"holds more than {MAX_TAR_MEMBERS:,} entries; refusing a possible tar bomb"
                )
            if not info.isreg():
                continue
            where = f"entry {info.name!r}"
            if info.size > MAX_MEMBER_BYTES:
                raise InputError(
                    path,
                    f"declares {info.size:,} bytes (limit {MAX_MEMBER_BYTES:,}); refusing a possible tar "
                    "bomb",
                    where,
                )
            declared += info.size
            if declared > budget:
                raise InputError(
                    path, "declares far more bytes than it could hold; refusing a tar bomb", where
                )
            yield info
    except InputError:
        raise
    except Exception as exc:  # tarfile.TarError, EOFError, zlib.error and friends from a damaged stream
        raise InputError(path, f"cannot read tar archive ({type(exc).__name__}: {exc})") from None


def _member_chunks(path: Path, archive: Path, name: str) -> Generator[bytes, None, None]:
    """The bytes of the member ``name`` of ``archive``; errors name ``path``, the member's own path."""
    with open_zip(archive) as zf:
        stored = next((n for n in member_names(zf) if _member_name(n) == name), None)
        if stored is None:
            raise InputError(path, "no such file in the archive")
        yield from iter_member_chunks(zf, stored, archive)


def is_file(path: Path) -> bool:
    """Whether ``path`` is a regular file on disk or in an archive. Never raises."""
    inside = member_of(path)
    if inside is None:
        return path.is_file()
    try:
        return any(e.name == inside[1] for e in archive_files(inside[0]))
    except InputError:
        return False


def file_size(path: Path) -> int:
    """The bytes of a loose file, or of an archive member as its archive declares them."""
    inside = member_of(path)
    if inside is None:
        try:
            return path.stat().st_size
        except OSError as exc:
            raise InputError(path, f"cannot read ({exc.strerror or exc})") from None
    found = next((e for e in archive_files(inside[0]) if e.name == inside[1]), None)
    if found is None:
        raise InputError(path, "no such file in the archive")
    return found.size


def shallowest(zf: zipfile.ZipFile, name: str) -> str | None:
    """The shallowest member called ``name``: a zip of an export folder adds a folder level."""
    found = [n for n in member_names(zf) if n.rsplit("/", 1)[-1] == name]
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
                data = utf8_head(next(iter_member_chunks(zf, member, path), b"")[:size]) if member else b""
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
    with contextlib.closing(iter_file_chunks(path, start)) as chunks:
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


def text_encoding(start: bytes) -> Encoding:
    """The encoding of text that starts with ``start`` (a few KB tell it best): UTF-8, 16 or 32 by their
    BOM, or UTF-16 and 32 without one by where their NUL bytes fall; else UTF-8."""
    for bom, codec in _BOMS:
        if start.startswith(bom):
            return Encoding(codec, len(bom))
    sample = start[: min(len(start), ENCODING_BYTES) // 4 * 4]
    if not sample or b"\0" not in sample:
        return Encoding("utf-8", 0)
    places = [sample[i::4].count(0) * _NUL_SHARE >= len(sample) // 4 for i in range(4)]
    for codec, nul_places in (
        ("utf-32-le", [False, None, True, True]),
        ("utf-32-be", [True, True, None, False]),
        ("utf-16-le", [False, True, False, True]),
        ("utf-16-be", [True, False, True, False]),
    ):
        if all(want is None or have == want for have, want in zip(places, nul_places, strict=True)):
            return Encoding(codec, 0)
    return Encoding("utf-8", 0)


def utf8_head(data: bytes) -> bytes:
    """The first bytes of a text file as UTF-8 without a BOM, leniently: a character the cut split, or a
    byte that is not text, is dropped or replaced rather than refused. Never raises."""
    encoding = text_encoding(data)
    data = data[encoding.bom :]
    if encoding.codec == "utf-8":
        return data
    return data.decode(encoding.codec, "ignore").encode("utf-8", "replace")


def utf8_chunks(
    chunks: Iterable[bytes], error: ErrorMaker, transcoding: Callable[[], None] = lambda: None
) -> Iterator[bytes]:
    """A text file's byte chunks as UTF-8 without a BOM, for the parsers that read bytes (JSON, XML): UTF-8
    passes through as it is, UTF-16 and 32 are decoded as they stream in (``transcoding`` is called first:
    the bytes handed on then no longer count the file's). Invalid UTF-16 or 32 is an error made by
    ``error``, naming the byte; invalid UTF-8 is left to the parser, which names it its own way."""
    chunks = iter(chunks)
    first = _enough_to_tell(chunks)
    encoding = text_encoding(first)
    if encoding.codec == "utf-8":
        first = first[encoding.bom :]
        if first:
            yield first
        first = b""  # held no longer than the parser needs it
        yield from chunks
        return
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
    """The first chunks, joined, until they tell the encoding (``ENCODING_BYTES``) or the text ends."""
    start = b""
    for chunk in chunks:
        start += chunk
        if len(start) >= ENCODING_BYTES:
            break
    return start


def decode_text(data: bytes, path: Path | str, where: str | None = None) -> str:
    """Decode an export's text: UTF-8, 16 or 32 (``text_encoding``). Invalid bytes are an error that names
    the line, never a silent replacement character."""
    encoding = text_encoding(data)
    data = data[encoding.bom :]
    try:
        return data.decode(encoding.codec)
    except UnicodeDecodeError as exc:
        if encoding.codec != "utf-8":
            raise InputError(
                path, f"invalid {encoding.label} at byte {exc.start + encoding.bom}", where
            ) from None
        line = data.count(b"\n", 0, exc.start) + 1
        place = f"{where}, line {line}" if where else f"line {line}"
        raise InputError(
            path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); not a text export", place
        ) from None


def fingerprint(parts: Iterable[bytes]) -> str:
    """A ``ChatExport.fingerprint`` of what a chat is read from (files' names and bytes, a directory of
    names): each part's length goes in before it, so that no two lists of parts hash alike by where they
    are cut."""
    import xxhash

    h = xxhash.xxh3_128()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()
