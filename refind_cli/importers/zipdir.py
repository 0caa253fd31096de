"""A zip's central directory, read lean: each entry's name, size and CRC-32 without a ``ZipInfo`` made for it.

``zipfile`` builds a ``ZipInfo`` for every entry as it opens a zip (about 5 µs an entry: 190 ms for the 36,524
day files of a Slack export of a million messages), where a re-import of a grown export asks only for their
names, sizes and CRCs and opens a handful. Here the directory's records are unpacked in one pass
(``struct.unpack_from``) into ``Member`` tuples; a member's ``ZipInfo`` is built when a reader opens it, by
``zipfile``'s own steps for that one record (``Listing.info``). A zip this pass does not read the plain way
(ZIP64 records or sizes, an archive comment, bytes before the archive, a record that does not parse) is listed
by ``zipfile`` itself, so it is read, or refused with ``zipfile``'s error, exactly as before.
"""

from __future__ import annotations

import os
import struct
import zipfile
from dataclasses import dataclass, field
from typing import IO

from refind_cli.typed import NamedTuple

# The end of central directory record, a central directory file header and the ZIP64 end locator (APPNOTE
# 4.3.16, 4.3.12, 4.3.15), as ``zipfile`` unpacks them.
_END = struct.Struct("<4s4H2LH")
_RECORD = struct.Struct("<4s4B4HL2L5H2L")
# A record's name and extra field lengths, and where they sit in it (APPNOTE 4.3.12).
_NAME_AND_EXTRA = struct.Struct("<HH")
_NAME_AND_EXTRA_AT = 28
_LOCATOR_SIZE = 20
_UTF8_NAME = 0x800
# A field at its largest stands for a ZIP64 value in the entry's extra field: such a zip is zipfile's to list.
_ZIP64 = 0xFFFF_FFFF


class Member(NamedTuple):
    """An entry of a zip: its name as ``ZipInfo.filename`` has it (or as the archive renamed it below a
    folder), the name its record holds (``orig_filename``), its flags, its size uncompressed, its CRC-32 and
    the place of its record in the listing (``Listing.info``)."""

    name: str
    orig: str
    flags: int
    size: int
    crc: int
    at: int


@dataclass(frozen=True, slots=True)
class Listing:
    """A zip's central directory as read: its bytes, its members in order, and the ``ZipInfo``s built so far
    by record (all of them, for a zip that zipfile listed)."""

    records: bytes
    members: tuple[Member, ...]
    built: dict[int, zipfile.ZipInfo] = field(default_factory=dict)

    def info(self, member: Member) -> zipfile.ZipInfo:
        """The member's ``ZipInfo``, as ``zipfile`` would have listed it (named ``member.name``), built once."""
        info = self.built.get(member.at)
        if info is None:
            info = self.built[member.at] = _built(self.records, member.at)
        if info.filename == member.name:
            return info
        renamed = zipfile.ZipInfo.__new__(zipfile.ZipInfo)
        for slot in zipfile.ZipInfo.__slots__:  # copy.copy, several times faster
            if hasattr(info, slot):
                setattr(renamed, slot, getattr(info, slot))
        renamed.filename = member.name
        return renamed

    def holds(self, data: bytes) -> bool:
        """Whether ``data`` may be in some record (a name, an extra field, a comment): False only where the
        directory's bytes were read and hold no such run."""
        return not self.records or data in self.records

    def extra(self, member: Member) -> bytes:
        """The member's extra field, as its record holds it."""
        info = self.built.get(member.at)
        if info is not None:
            return info.extra
        names, extras = _NAME_AND_EXTRA.unpack_from(self.records, member.at + _NAME_AND_EXTRA_AT)
        start = member.at + _RECORD.size + names
        return self.records[start : start + extras]


def listing(source: IO[bytes]) -> Listing:
    """The central directory of the zip ``source`` (seekable). Raises what ``zipfile.ZipFile`` raises for a
    zip it cannot list."""
    lean = _lean(source)
    if lean is not None:
        return lean
    source.seek(0)
    with zipfile.ZipFile(source) as zf:
        infos = zf.infolist()
    members = tuple(
        Member(i.filename, i.orig_filename, i.flag_bits, i.file_size, i.CRC, n) for n, i in enumerate(infos)
    )
    return Listing(b"", members, dict(enumerate(infos)))


def _lean(source: IO[bytes]) -> Listing | None:
    """The listing of a plain zip (an end record with no comment last, no ZIP64 record or value, the
    directory right before the end record), read without a ``ZipInfo`` an entry; None for any other, or
    where a record does not parse as zipfile would take it."""
    size = source.seek(0, os.SEEK_END)
    if size < _END.size + _LOCATOR_SIZE:
        return None
    source.seek(size - _END.size - _LOCATOR_SIZE)
    tail = source.read()
    sig, disk, disk_cd, _, count, cd_size, cd_offset, comment = _END.unpack_from(tail, _LOCATOR_SIZE)
    if (
        sig != b"PK\x05\x06"
        or comment
        or disk
        or disk_cd
        or _ZIP64 in (cd_size, cd_offset)
        or count == 0xFFFF
        or tail.startswith(b"PK\x06\x07")
        or cd_offset + cd_size != size - _END.size  # bytes before the archive, or between
    ):
        return None
    source.seek(cd_offset)
    records = source.read(cd_size)
    members = []
    unpack, new, head = _RECORD.unpack_from, tuple.__new__, _RECORD.size
    at = 0
    # One step of Python an entry (a Slack export has 36,000): what is checked of them all is checked after.
    try:
        while at < cd_size:
            (sig, _, _, version, _, flags, _, _, _, crc, packed, unpacked, n, x, c, _, _, _, offset) = unpack(
                records, at
            )
            if (
                sig != b"PK\x01\x02"
                or version > zipfile.MAX_EXTRACT_VERSION
                or packed == _ZIP64
                or unpacked == _ZIP64
                or offset == _ZIP64
                or (x and not _whole_fields(records[at + head + n : at + head + n + x]))
            ):
                return None
            raw = records[at + head : at + head + n]
            # An ASCII name reads the same in CP437 (whose codec is a Python call a name) as in UTF-8.
            orig = raw.decode("utf-8" if flags & _UTF8_NAME or raw.isascii() else "cp437")
            members.append(new(Member, (orig, orig, flags, unpacked, crc, at)))
            at += head + n + x + c
    except (struct.error, UnicodeDecodeError):
        return None
    if at != cd_size:  # the last record runs past the directory
        return None
    if "\0" in "".join(m.orig for m in members) or (os.sep != "/" and any(os.sep in m.orig for m in members)):
        members = [m._replace(name=_as_zipinfo_names(m.orig)) for m in members]
    return Listing(records, tuple(members))


def _as_zipinfo_names(orig: str) -> str:
    """A name as ``ZipInfo`` takes it: cut at its first NUL, a Windows separator turned."""
    name = orig.split("\0", 1)[0]
    return name.replace(os.sep, "/") if os.sep != "/" else name


def _whole_fields(extra: bytes) -> bool:
    """Whether an extra field is a run of whole (id, length, data) fields, as ``ZipInfo._decodeExtra``
    wants it (it refuses the zip otherwise)."""
    while len(extra) >= 4:
        length = int.from_bytes(extra[2:4], "little")
        if length + 4 > len(extra):
            return False
        extra = extra[length + 4 :]
    return True


def _built(records: bytes, at: int) -> zipfile.ZipInfo:
    """The ``ZipInfo`` of the record at ``at``, made by zipfile's steps in ``ZipFile._RealGetContents`` (the
    archive starts the file: nothing to add to its offset)."""
    fields = _RECORD.unpack_from(records, at)
    start = at + _RECORD.size
    flags = fields[5]
    names, extras, comments = fields[12:15]
    x = zipfile.ZipInfo(records[start : start + names].decode("utf-8" if flags & _UTF8_NAME else "cp437"))
    x.extra = records[start + names : start + names + extras]
    x.comment = records[start + names + extras : start + names + extras + comments]
    x.header_offset = fields[18]
    (
        x.create_version,
        x.create_system,
        x.extract_version,
        x.reserved,
        x.flag_bits,
        x.compress_type,
        t,
        d,
        x.CRC,
        x.compress_size,
        x.file_size,
    ) = fields[1:12]
    x.volume, x.internal_attr, x.external_attr = fields[15:18]
    setattr(x, "_raw_time", t)  # noqa: B010 (a private slot typeshed does not declare)
    x.date_time = ((d >> 9) + 1980, (d >> 5) & 0xF, d & 0x1F, t >> 11, (t >> 5) & 0x3F, (t & 0x1F) * 2)
    getattr(x, "_decodeExtra")()  # noqa: B009
    return x
