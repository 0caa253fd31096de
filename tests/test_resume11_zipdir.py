"""A zip's directory read lean, and the heads of the files inside it read once (issue 26 item 1, session 15):
what is listed, opened and sniffed is what ``zipfile`` and a whole read gave, for the plain zips read the lean
way and for those ``zipfile`` still lists; a grown Slack export re-imported leaves what a re-read leaves."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_resume_import import both_ways

from refind_cli.importers import container, zipdir

# Names as zip writers leave them: ASCII, UTF-8 (flagged), folders, and the same name twice (the later entry
# is the one a name finds).
NAME = st.one_of(
    st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=12),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12),
    st.sampled_from(["a/", "a/b.txt", "dup.json", "dup.json"]),
)
EXTRA = st.sampled_from([b"", b"UT\x05\x00\x01\x00\x00\x00\x00", b"\x99\x99\x00\x00ux\x0b\x00" + bytes(11)])


def written(entries: list[tuple[str, bytes, bytes, bytes]], comment: bytes = b"") -> bytes:
    """A zip of (name, data, extra field, entry comment), compressed, as zipfile writes it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, extra, remark in entries:
            info = zipfile.ZipInfo(name, (2024, 5, 6, 7, 8, 10))
            info.extra, info.comment = extra, remark
            zf.writestr(info, data, zipfile.ZIP_DEFLATED)
        zf.comment = comment
    return buffer.getvalue()


def cp437_named(data: bytes, placeholder: str, raw: bytes) -> bytes:
    """A zip whose entry ``placeholder`` is renamed ``raw`` (as many bytes) without the UTF-8 flag: a name as
    Windows' "Compressed folder" writes it, in its OEM code page."""
    assert len(placeholder.encode()) == len(raw)
    return data.replace(placeholder.encode(), raw)


def slots(info: zipfile.ZipInfo) -> dict[str, object]:
    return {slot: getattr(info, slot, None) for slot in zipfile.ZipInfo.__slots__}


def same_as_zipfile(data: bytes) -> zipdir.Listing:
    """The listing of ``data``, held to zipfile's: each member's name, flags, size and CRC, and every field of
    the ``ZipInfo`` it makes."""
    listing = zipdir.listing(io.BytesIO(data))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
    assert [(m.name, m.orig, m.flags, m.size, m.crc) for m in listing.members] == [
        (i.filename, i.orig_filename, i.flag_bits, i.file_size, i.CRC) for i in infos
    ]
    assert [slots(listing.info(m)) for m in listing.members] == [slots(i) for i in infos]
    return listing


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(NAME, st.binary(max_size=300), EXTRA, st.sampled_from([b"", b"note"])), max_size=8))
def test_a_plain_zip_is_listed_lean_as_zipfile_lists_it(
    entries: list[tuple[str, bytes, bytes, bytes]],
) -> None:
    data = written(entries)
    lean = zipdir.listing(io.BytesIO(data))
    assert lean.records or not entries  # read the lean way: no ZipInfo made before one is asked for
    assert not lean.built
    same_as_zipfile(data)


@pytest.mark.parametrize(
    ("raw", "name", "orig"),
    [(b"caf\x82.txt", "caf\u00e9.txt", "caf\u00e9.txt"), (b"x\x00yz.txt", "x", "x\x00yz.txt")],
)
def test_a_name_written_by_hand_is_listed_as_zipfile_takes_it(raw: bytes, name: str, orig: str) -> None:
    """A name in a code page (Windows' "Compressed folder" writes its OEM one, unflagged), and one holding a
    NUL (ZipInfo cuts it there)."""
    data = cp437_named(written([("a.txt", b"x", b"", b""), ("nnn_.txt", b"y", b"", b"")]), "nnn_.txt", raw)
    listing = same_as_zipfile(data)
    assert listing.records and (listing.members[1].name, listing.members[1].orig) == (name, orig)


@pytest.mark.parametrize(
    "shape",
    [
        "an archive comment",
        "bytes before the archive",
        "a corrupt extra field",
        "a truncated directory",
        "none",
    ],
)
def test_a_zip_off_the_plain_path_is_listed_by_zipfile(shape: str) -> None:
    """What the lean reading does not take is zipfile's to list, or to refuse with its own error."""
    entries = [("a.txt", b"hello", b"", b""), ("b/c.json", b"{}", b"", b"")]
    data = {
        "an archive comment": written(entries, comment=b"made by hand"),
        "bytes before the archive": b"#!/bin/sh\nexit 0\n" + written(entries),
        "a corrupt extra field": written([("a.txt", b"hello", b"UT\x09\x00\x01", b"")]),
        "a truncated directory": written(entries)[:-30] + written(entries)[-22:],
        "none": b"not a zip at all, only text" * 3,
    }[shape]
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            expected: object = [slots(i) for i in zf.infolist()]
    except Exception as exc:
        expected = (type(exc), str(exc))
    try:
        listing = zipdir.listing(io.BytesIO(data))
        got: object = [slots(listing.info(m)) for m in listing.members]
        assert not listing.records  # zipfile's listing
    except Exception as exc:
        got = (type(exc), str(exc))
    assert got == expected


def test_a_lean_listed_zip_opens_and_reads_its_members(tmp_path: Path) -> None:
    entries = [(f"d/{n}.txt", f"text {n} ".encode() * (n + 1), b"", b"") for n in range(20)]
    path = tmp_path / "x.zip"
    path.write_bytes(written(entries))
    with container.open_zip(path) as zf:
        assert zf.namelist() == [e[0] for e in entries]
        assert [zf.read(name) for name in zf.namelist()] == [e[1] for e in entries]
        assert container.declared_sizes(zf) == [(e[0], len(e[1])) for e in entries]
        assert (
            container.member_stamp(zf, "d/3.txt") == f"crc32 {zf.getinfo('d/3.txt').CRC:08x} size 28".encode()
        )
        with pytest.raises(KeyError):
            zf.getinfo("d/none.txt")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.integers(0, 200_000), size=st.integers(-1, 200_000))
def test_a_part_of_a_file_inside_a_zip_is_that_part_of_the_file(
    tmp_path: Path, start: int, size: int
) -> None:
    """Parts within the held head and beyond it, as a whole read gives them."""
    body = b"".join(f"{n:07d} line of text\n".encode() for n in range(9_000))  # 180 kB
    path = tmp_path / "big.zip"
    if not path.exists():
        path.write_bytes(written([("chat/big.txt", body, b"", b"")]))
    part = container.read_file_part(path / "chat" / "big.txt", start, size)
    assert part == (body[start:] if size < 0 else body[start : start + size])


def tarred(mode: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tf:
        # A name longer than a header holds: the tar opens with a long-name record before its first header.
        for name in ("chat.txt", "x" * 300 + ".txt"):
            data = b"12/01/2024, 10:00 - Ann: hi\n" * 2000
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("inner", "kind"),
    [
        ("w:gz", "zip"),
        ("w:bz2", "zip"),
        ("w:xz", "zip"),
        ("w", "zip"),
        ("zip", "zip"),
        ("json", "file"),
    ],
)
def test_an_archive_inside_a_zip_is_told_by_its_head(tmp_path: Path, inner: str, kind: str) -> None:
    if inner == "zip":
        data = written([("a.txt", b"x" * 100_000, b"", b"")])
    elif inner == "json":
        data = json.dumps([{"n": n, "text": "words " * 20} for n in range(2_000)]).encode()  # > the head
    else:
        data = tarred(inner)
    path = tmp_path / "outer.zip"
    path.write_bytes(written([("inner", data, b"", b""), ("other.txt", b"x", b"", b"")]))
    assert container.member_kind(path / "inner") == kind


def slack_export(days: int, *, edit: int | None = None, gone: int | None = None) -> bytes:
    """A Slack workspace zip of two channels (the second grows a day a version), a message a day."""
    start = datetime(2024, 3, 1, 9, tzinfo=UTC)
    channels = [{"id": "C1", "name": "general"}, {"id": "C2", "name": "random"}]
    users = [{"id": "U1", "name": "ann", "real_name": "Ann"}, {"id": "U2", "name": "bo", "real_name": "Bo"}]
    entries = [
        ("channels.json", json.dumps(channels).encode(), b"", b""),
        ("users.json", json.dumps(users).encode(), b"", b""),
    ]
    for channel, length in (("general", 5), ("random", days)):
        for d in range(length):
            if channel == "random" and d == gone:
                continue
            when = start + timedelta(days=d)
            text = f"{channel} day {d}" + (" (edited)" if channel == "random" and d == edit else "")
            message = {
                "type": "message",
                "user": f"U{d % 2 + 1}",
                "text": text,
                "ts": f"{when.timestamp():.6f}",
            }
            entries.append((f"{channel}/{when:%Y-%m-%d}.json", json.dumps([message]).encode(), b"", b""))
    return written(entries)


@pytest.mark.parametrize("change", ["append", "an edit in the middle", "a deletion in the middle", "twice"])
def test_a_grown_slack_zip_read_lean_leaves_what_a_reread_leaves(tmp_path: Path, change: str) -> None:
    later = {
        "append": slack_export(9),
        "an edit in the middle": slack_export(9, edit=3),
        "a deletion in the middle": slack_export(9, gone=3),
        "twice": slack_export(9),
    }[change]
    versions = [slack_export(6), later] + ([slack_export(12)] if change == "twice" else [])
    assert zipdir.listing(io.BytesIO(later)).records  # the lean reading is the one under test
    resumed, reread, results = both_ways(tmp_path, "slack.zip", versions)
    assert resumed == reread
    grown = [c for c in results[-1].chats if "random" in c.name]
    assert [c.messages_added + c.messages_skipped for c in grown] == [
        len(versions) * 3 + 3 - (change == "a deletion in the middle")
    ]


@pytest.mark.parametrize(
    ("names", "held"),
    [
        (["Takeout/Gemini Apps/MyActivity.json", "a.txt"], True),
        (["Takeout/BARD/x.html"], True),
        (["general/2024-01-02.json", "users.json"], False),
        (["Takeout/GEM\u0130N\u0130 Apps/MyActivity.json"], True),  # not ASCII: may fold to the word
    ],
)
def test_a_word_in_a_zips_names_is_found_in_any_case(tmp_path: Path, names: list[str], held: bool) -> None:
    path = tmp_path / "x.zip"
    path.write_bytes(written([(n, b"{}", b"", b"") for n in names]))
    with container.open_zip(path) as zf:
        assert container.may_name(zf, ("gemini", "bard")) == held
