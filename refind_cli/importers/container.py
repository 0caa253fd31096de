"""Safe access to what an export comes in: a zip, a folder or a plain file.

Nothing is ever extracted to disk, so entry names (``../../etc/passwd``) are only names. What a zip
*declares* is not trusted: members are read in chunks and stopped when they grow past the limits.
"""

from __future__ import annotations

import codecs
import contextlib
import zipfile
from collections.abc import Generator, Iterator
from pathlib import Path

from refind_cli.errors import InputError

# A chat export's largest single member is its text or JSON file; a few hundred MB is already a huge one.
MAX_MEMBER_BYTES = 1 << 30
# Text compresses about 3-10x; a ratio beyond this, for a member big enough to matter, is a zip bomb.
MAX_RATIO = 200
RATIO_FLOOR_BYTES = 64 << 20
CHUNK = 1 << 20


def open_zip(path: Path) -> zipfile.ZipFile:
    try:
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
    """Stream a loose file (from byte ``start`` on), for formats that parse as they read."""
    try:
        with path.open("rb") as fh:
            fh.seek(start)
            while chunk := fh.read(CHUNK):
                yield chunk
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror or exc})") from None


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
    elif zipfile.is_zipfile(path):
        with open_zip(path) as zf:
            member = shallowest(zf, name)
            if member is None:
                raise InputError(path, f"no {name} in this zip; not {what}")
            yield iter_member_chunks(zf, member, path), path, f"entry {member!r}"
    else:
        yield iter_file_chunks(path), path, None


def named_head(path: Path, name: str, size: int) -> bytes:
    """The first ``size`` bytes of an export's ``name`` file, as ``named_file`` finds it, without a BOM or
    leading white space; b"" where there is none. Never raises: it serves a format's sniff."""
    try:
        if path.is_dir():
            file = path / name
            data = _head(file, size) if file.is_file() else b""
        elif zipfile.is_zipfile(path):
            with open_zip(path) as zf:
                member = shallowest(zf, name)
                data = next(iter_member_chunks(zf, member, path), b"")[:size] if member else b""
        else:
            data = _head(path, size)
    except (InputError, OSError, ValueError):
        return b""
    return data.removeprefix(codecs.BOM_UTF8).lstrip()


def _head(path: Path, size: int) -> bytes:
    with path.open("rb") as fh:
        return fh.read(size)


def read_file(path: Path, limit: int = MAX_MEMBER_BYTES) -> bytes:
    try:
        size = path.stat().st_size
        if size > limit:
            raise InputError(path, f"is {size:,} bytes; larger than the {limit:,} bytes refind reads whole")
        return path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror or exc})") from None


def read_file_part(path: Path, start: int, size: int = -1) -> bytes:
    """``size`` bytes of a loose file from byte ``start`` on (all the rest with -1)."""
    try:
        with path.open("rb") as fh:
            fh.seek(start)
            return fh.read(size)
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror or exc})") from None


def decode_text(data: bytes, path: Path | str, where: str | None = None) -> str:
    """Decode an export's text: UTF-8 (BOM optional) or UTF-16 with a BOM. Invalid bytes are an error
    that names the line, never a silent replacement character."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(path, f"invalid UTF-16 at byte {exc.start}", where) from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        place = f"{where}, line {line}" if where else f"line {line}"
        raise InputError(
            path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); not a text export", place
        ) from None
