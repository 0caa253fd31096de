"""A zipped Telegram account export exported again (issue 26 item 1, session 18).

Each dialog's print keeps where it lay in its zip member (``telegram._Place``: the member's CRC-32 and size, the
dialog's index and the CRC-32 of the member's bytes from it on). A later member whose first bytes, joined to an
earlier member's last bytes from a dialog on, give its CRC-32 and size (``crc32.joined``) is inflated only up to
there: those dialogs are told as they were, unread. Whatever changed (the top dialog grew, a new one came on
top, one below was edited, lost a message or was deleted, the account changed), the archive ends exactly as a
full re-read (``--reread``) of the new file leaves it."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_resume_import import BERLIN, both_ways
from test_resume_telegram import account, counted, dialog, zipped_account

from refind_cli.importers import container, crc32
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive


@settings(max_examples=40, deadline=None)
@given(first=st.binary(max_size=300), second=st.binary(max_size=300), zeros=st.integers(0, 1 << 40))
def test_crcs_of_parts_join_as_zlib_counts_the_whole(first: bytes, second: bytes, zeros: int):
    whole = zlib.crc32(first + second)
    assert crc32.joined(zlib.crc32(first), zlib.crc32(second), len(second)) == whole
    assert crc32.after(whole, zlib.crc32(first), len(second)) == zlib.crc32(second)
    # Lengths past what can be hashed here: joining is associative.
    a, b, c = zlib.crc32(first), zlib.crc32(second), 0x1234ABCD
    assert crc32.joined(crc32.joined(a, b, len(second)), c, zeros) == crc32.joined(
        a, crc32.joined(b, c, zeros), len(second) + zeros
    )


EARLIER = [dialog(d, 30 + d) for d in range(8)]  # dialog 7 holds the latest message: the exporter's top


def _later(change: str) -> list[dict]:
    later = [dialog(7, 45) if d == 7 else dialog(d, 30 + d) for d in range(8)]  # the top one grew
    if change == "new on top":
        later = [*EARLIER, dialog(9, 3)]
    elif change == "edit below":
        later[3] = dialog(3, 33, edit=10)
    elif change == "message deleted below":
        later[4] = dialog(4, 34, gone=5)
    elif change == "dialog deleted below":
        del later[2]
    elif change == "account's other sections changed":
        later = list(EARLIER)
    return later


def _export(dialogs: list[dict], change: str = "") -> bytes:
    data = account(dialogs, rating=0.5 if change == "account's other sections changed" else 1.0)
    return zipped_account(data.replace(b'"user_id": 101', b'"user_id": 102') if change == "owner" else data)


def _stops(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """The index of the earlier member's end each copy stops at (None: copied whole), from now on."""
    found: list[int | None] = []
    original = container.spooled_until

    def recording(*args, **kwargs):
        spool = original(*args, **kwargs)
        found.append(None if spool is None else spool[1])
        return spool

    monkeypatch.setattr(container, "spooled_until", recording)
    return found


# The messages built after each change (at most: a read block's worth before the grown dialog's head too).
BUILT = {
    "top grew": 45,
    "new on top": 3,
    "edit below": 45 + 33 + 34 + 35 + 36,
    "message deleted below": 45 + 33 + 35 + 36,
    "dialog deleted below": 45 + 36 + 35 + 34 + 33,
    "account's other sections changed": 0,
}


@pytest.mark.parametrize("change", list(BUILT))
def test_a_zipped_account_export_reads_up_to_where_it_ends_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
):
    stops = _stops(monkeypatch)
    built = counted(monkeypatch)
    versions = [_export(EARLIER), _export(_later(change), change)]
    resumed, reread, results = both_ways(tmp_path, "Telegram.zip", versions, worker=False)
    assert resumed == reread
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        len(d["messages"]) for d in _later(change)
    )
    # The resumed import (the second copy of the four) stopped where the member ends as before; the messages
    # it built: the earlier member's once, then those of what changed above where it stopped.
    assert stops[0] is None and stops[1] is not None
    first = sum(len(d["messages"]) for d in EARLIER)
    assert len(built) - first - sum(len(d["messages"]) for d in _later(change)) - first <= BUILT[change]


def test_an_export_grown_twice_stops_where_the_first_ones_dialogs_begin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The dialogs told unread keep the first member's places; the grown one the second's: both tell the third
    where it ends as before."""
    stops = _stops(monkeypatch)
    third = [dialog(7, 60) if d == 7 else dialog(d, 30 + d) for d in range(8)]
    versions = [_export(EARLIER), _export(_later("top grew")), _export(third)]
    resumed, reread, _ = both_ways(tmp_path, "Telegram.zip", versions, worker=False)
    assert resumed == reread
    assert stops[0] is None and None not in stops[1:3]  # the resumed home's second and third imports


def test_the_account_changed_reads_the_dialogs_it_would_have_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The dialogs after the place a copy stops at were read under another account: their messages (whose
    ``own`` depends on it) are read again, from the member read whole."""
    built = counted(monkeypatch)
    versions = [_export(EARLIER), _export(_later("top grew"), "owner")]
    resumed, reread, _ = both_ways(tmp_path, "Telegram.zip", versions, worker=False)
    assert resumed == reread
    first, later = (sum(len(d["messages"]) for d in v) for v in (EARLIER, _later("top grew")))
    assert len(built) >= 2 * first + 2 * later  # every message of the later export built in both homes


def test_an_error_before_the_place_is_the_one_a_whole_reading_meets(tmp_path: Path):
    path = tmp_path / "Telegram.zip"
    bad = account(_later("top grew")).replace(
        b'"dialog 7 message 40 about', b'"dialog 7 message 40 \x01bout', 1
    )
    errors = []
    for way in ("resume", "fresh"):
        with Archive.open(tmp_path / way) as archive:
            if way == "resume":
                path.write_bytes(_export(EARLIER))
                assert import_file(archive, path, tz=BERLIN).error is None
            path.write_bytes(zipped_account(bad))
            errors.append(import_file(archive, path, tz=BERLIN).error)
    assert errors[0] is not None and errors[0] == errors[1]


def test_a_zip_whose_directory_holds_another_crc_is_copied_whole(tmp_path: Path, monkeypatch):
    """Where the CRC-32 the zip's directory holds is not the member's bytes' (a damaged zip), no end joins to
    it: the member is copied whole, and the reading is what a re-read gives."""
    stops = _stops(monkeypatch)
    original = container.member_sums

    def other(member: Path) -> tuple[int, int] | None:
        sums = original(member)
        return None if sums is None else (sums[0] ^ 1, sums[1])

    path = tmp_path / "Telegram.zip"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(_export(EARLIER))
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
        monkeypatch.setattr(container, "member_sums", other)
        path.write_bytes(_export(_later("top grew")))
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
    assert stops == [None, None]


def test_the_copy_is_short_and_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The copy of a member that ends as an earlier one did holds its bytes up to there, and is gone after."""
    copies: list[tuple[Path, int]] = []
    original = container.spooled_until

    def measured(*args, **kwargs):
        spool = original(*args, **kwargs)
        if spool is not None:
            copies.append((spool[0], os.path.getsize(spool[0])))
        return spool

    monkeypatch.setattr(container, "spooled_until", measured)
    path = tmp_path / "Telegram.zip"
    with Archive.open(tmp_path / "home") as archive:
        for version in (_export(EARLIER), _export(_later("top grew"))):
            path.write_bytes(version)
            assert import_file(archive, path, tz=BERLIN, worker=False).error is None
    assert copies[0][1] == len(account(EARLIER))
    assert copies[1][1] < len(account(_later("top grew"))) // 3
    assert not any(copy.exists() for copy, _ in copies)
