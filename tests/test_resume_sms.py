"""A grown SMS Backup & Restore file is read on from the mark its last import left (importers/sms.py): the
earlier backup's SMS rows and MMS rows are found among the new ones by their bytes and passed over, and the
archive ends exactly as a full re-read (``reread=True``) of the new file leaves it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_resume_import import BERLIN, archive_rows, both_ways, forgotten_both_ways, reimported

from refind_cli import importers
from refind_cli.importers import sms as sms_reader
from refind_cli.ingest import import_file
from refind_cli.operations import Selection
from refind_cli.records import NotResumable
from refind_cli.storage.archive import Archive

NAME = "sms-20260503.xml"
# A day in 2026, in milliseconds.
T0 = 1_777_660_800_000
PEOPLE = [("+49 151 2345 6789", "Jonas Becker"), ("72345", "(Unknown)"), ("+4930 1234567", "null")]
GROUP = "+4915123456789~+4917611112222"


def sms(
    n: int, who: int = 0, *, at: int | None = None, body: str | None = None, name: str | None = None
) -> str:
    address, contact = PEOPLE[who]
    text = body if body is not None else f"message {n} &#55357;&#56842;"
    return (
        f'  <sms protocol="0" address="{address}" date="{T0 + 60_000 * n if at is None else at}" '
        f'type="{1 + n % 2}" subject="null" body="{text}" toa="null" read="1" '
        f'contact_name="{name or contact}" />\n'
    )


def mms(n: int, *, text: str | None = None, name: str = "Jonas Becker, Aylin Demir", to: str = GROUP) -> str:
    return (
        f'  <mms date="{T0 + 60_000 * n}" msg_box="{1 + n % 2}" address="{to}" contact_name="{name}">\n'
        "    <parts>\n"
        '      <part seq="-1" ct="application/smil" text="&lt;smil/&gt;" />\n'
        f'      <part seq="0" ct="text/plain" text="{text or f"group {n}"}" />\n'
        "    </parts>\n"
        '    <addrs>\n      <addr address="+4917611112222" type="137" />\n    </addrs>\n'
        "  </mms>\n"
    )


def at(content: bytes, tag: bytes) -> int:
    """Where ``tag`` first lies in the bytes the reader's parser reads (references repaired): where a
    reading from the mark that file's reading left says it read from."""
    return len(sms_reader.repaired(iter([content[: content.index(tag)]])).__next__())


def backup(rows: list[str], date: int = 1) -> bytes:
    """The app's file: its head, then the rows (all SMS, then all MMS)."""
    head = (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
        f"<!--File Created By SMS Backup & Restore v10.20.002 on 0{date}/05/2026 21:14:07-->\n"
        f'<smses count="{len(rows)}" backup_set="5d4f" backup_date="{T0 + date}" type="full">\n'
    )
    return (head + "".join(rows) + "</smses>\n").encode()


def rows(sms_n: range, mms_n: range) -> list[str]:
    return [sms(n, n % len(PEOPLE)) for n in sms_n] + [mms(n) for n in mms_n]


def test_a_grown_backup_reads_only_its_new_rows_and_stores_what_a_full_reading_would(tmp_path: Path):
    old = backup(rows(range(0, 40), range(100, 110)), 1)
    new = backup(rows(range(0, 60), range(100, 125)), 2)
    resumed, results = reimported(tmp_path, NAME, [old, new], at(old, b"<mms"))
    assert sum(c.messages_added for c in results[-1].chats) == 20 + 15
    assert sum(c.messages_skipped for c in results[-1].chats) == 50
    assert len(resumed[1]) == 85
    # The chats are reported in the order and with the counts a full reading gives.
    whole = import_again(tmp_path, new)
    assert [(c.name, c.messages_added + c.messages_skipped) for c in results[-1].chats] == whole


def import_again(tmp_path: Path, content: bytes) -> list[tuple[str, int]]:
    path = tmp_path / "whole" / NAME
    path.parent.mkdir()
    path.write_bytes(content)
    with Archive.open(tmp_path / "whole" / "home") as archive:
        result = import_file(archive, path, tz=BERLIN)
    return [(c.name, c.messages_added) for c in result.chats]


def test_new_threads_take_the_place_a_full_reading_gives_them(tmp_path: Path):
    # A thread first met in the new SMS comes before one the old MMS hold, as in a full reading; their
    # chats (and the messages' seqs) are made in that order.
    old = backup([sms(0, 0), mms(100)], 1)
    new = backup([sms(0, 0), sms(1, 1), sms(2, 2), mms(100), mms(101)], 2)
    _, results = reimported(tmp_path, NAME, [old, new], at(old, b"<mms"))
    assert [c.messages_added for c in results[-1].chats] == [0, 1, 1, 1]


def test_a_contact_name_met_in_the_new_rows_names_the_thread_as_a_full_reading_does(tmp_path: Path):
    # The old SMS show the number, the old MMS one name, the new SMS another: a full reading meets the new SMS
    # before the old MMS, so their name wins.
    number = PEOPLE[2][0]
    old = backup([sms(0, 2, name="null"), mms(100, name="Bob", to=number)], 1)
    grown = [sms(0, 2, name="null"), sms(150, 2, name="Robert"), mms(100, name="Bob", to=number)]
    resumed, _ = reimported(
        tmp_path, NAME, [old, backup([*grown, mms(160, name="Bob", to=number)], 2)], at(old, b"<mms")
    )
    assert [row[4] for row in resumed[0]] == ["Robert"]


def test_a_backup_without_mms_or_without_sms_grows(tmp_path: Path):
    old = backup(rows(range(0, 10), range(0)), 1)
    new = backup(rows(range(0, 14), range(100, 103)), 2)
    reimported(tmp_path / "sms", NAME, [old, new], at(old, b"</smses>"))
    old = backup(rows(range(0), range(100, 105)), 1)
    new = backup(rows(range(0, 3), range(100, 108)), 2)
    reimported(tmp_path / "mms", NAME, [old, new], at(old, b"<mms"))


def test_the_next_import_goes_on_from_the_mark_the_resumed_one_left(tmp_path: Path):
    versions = [backup(rows(range(0, 10 * k), range(100, 100 + 4 * k)), k) for k in (1, 2, 3)]
    _, results = reimported(tmp_path, NAME, versions, at(versions[1], b"<mms"))
    assert results[1].resumed_at == at(versions[0], b"<mms")
    with Archive.open(tmp_path / "resume" / "home") as archive:  # the mark gone on from is dropped
        assert archive.db.execute("SELECT count(*) FROM imports WHERE resume IS NOT NULL").fetchone()[0] == 1


@pytest.mark.parametrize("where", ["sms", "mms"])
def test_a_backup_edited_in_the_middle_is_read_whole_and_keeps_the_older_version(tmp_path: Path, where: str):
    old_rows = rows(range(0, 20), range(100, 110))
    new_rows = rows(range(0, 25), range(100, 112))
    n = 10 if where == "sms" else 25 + 5
    new_rows[n] = new_rows[n].replace("message", "edited message").replace("group", "edited group")
    old = backup(old_rows, 1)
    resumed, _ = reimported(tmp_path, NAME, [old, backup(new_rows, 2)], None)
    texts = [row[7] for row in resumed[1]]
    assert any(t.startswith("edited") for t in texts)
    assert len(resumed[1]) == 30 + 7 + 1  # the older text is still there


@pytest.mark.parametrize("where", ["sms", "mms"])
def test_a_row_deleted_in_the_middle_is_read_whole_and_kept(tmp_path: Path, where: str):
    old_rows = rows(range(0, 20), range(100, 110))
    new_rows = rows(range(0, 25), range(100, 112))
    del new_rows[10 if where == "sms" else 25 + 5]
    resumed, _ = reimported(tmp_path, NAME, [backup(old_rows, 1), backup(new_rows, 2)], None)
    assert len(resumed[1]) == 25 + 12  # nothing lost


def test_an_unchanged_backup_made_again_adds_nothing(tmp_path: Path):
    same = rows(range(0, 20), range(100, 110))
    old = backup(same, 1)
    resumed, results = reimported(tmp_path, NAME, [old, backup(same, 2)], at(old, b"<mms"))
    assert sum(c.messages_added for c in results[-1].chats) == 0
    assert sum(c.messages_skipped for c in results[-1].chats) == 30 == len(resumed[1])


def test_a_new_message_no_later_than_its_threads_last_is_read_whole(tmp_path: Path):
    # The same time and text as a message passed over: its second occurrence, which only a whole reading
    # counts (and places among the others).
    old_rows = rows(range(0, 10), range(100, 104))
    again = sms(9, 0, at=T0 + 60_000 * 9, body="message 9 &#55357;&#56842;")
    old = backup(old_rows, 1)
    _, results = reimported(tmp_path, NAME, [old, backup([*old_rows[:10], again, *old_rows[10:]], 2)], None)
    assert sum(c.messages_added for c in results[-1].chats) == 1


def test_rows_not_laid_out_as_the_app_lays_them_leave_no_mark(tmp_path: Path):
    # An SMS after the MMS: the parts cannot be told by their bytes.
    mixed = backup([sms(0), mms(100), sms(1)], 1)
    path = tmp_path / NAME
    path.write_bytes(mixed)
    [*exports] = importers.read_export(path, "sms", BERLIN)
    for export in exports:
        list(export.messages)
    assert exports[0].end is not None and exports[0].end() is None
    _, _, results = both_ways(tmp_path / "ways", NAME, [mixed, backup([sms(0), mms(100), sms(1), sms(2)], 2)])
    assert results[-1].resumed_at is None


def test_a_grown_backup_with_a_fault_after_the_mark_is_refused_as_a_whole_reading_refuses_it(tmp_path: Path):
    old = backup(rows(range(0, 5), range(100, 102)), 1)
    cut = backup(rows(range(0, 8), range(100, 103)), 2)[:-40]
    path = tmp_path / NAME
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(old)
        assert import_file(archive, path, tz=BERLIN).error is None
        path.write_bytes(cut)
        error = import_file(archive, path, tz=BERLIN).error
        whole = import_file(archive, path, tz=BERLIN, reread=True).error
    assert error is not None and error == whole and "cut short" in error


# --- the reader: what a reading from a mark yields is what a whole reading yields after it -------------------


def read_all(path: Path, after=None) -> tuple[list[tuple[str, list, int]], object]:
    exports = list(importers.read_export(path, "sms", BERLIN, after))
    chats = [(e.chat.name, list(e.messages), e.passed) for e in exports]
    return chats, exports[0].end() if exports and exports[0].end else None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    old=st.tuples(st.integers(0, 6), st.integers(0, 4)),
    grown=st.tuples(st.integers(0, 6), st.integers(0, 4)),
    who=st.lists(st.integers(0, 2), min_size=12, max_size=12),
)
def test_reading_from_a_mark_yields_what_a_whole_reading_yields_after_it(tmp_path: Path, old, grown, who):
    def made(n_sms: int, n_mms: int, date: int) -> bytes:
        return backup([sms(n, who[n]) for n in range(n_sms)] + [mms(100 + n) for n in range(n_mms)], date)

    path = tmp_path / NAME
    path.write_bytes(made(*old, 1))
    before, mark = read_all(path)
    path.write_bytes(made(old[0] + grown[0], old[1] + grown[1], 2))
    whole, whole_end = read_all(path)
    if mark is None:
        assert old == (0, 0)
        return
    try:
        after, end = read_all(path, mark)
    except NotResumable:
        raise AssertionError("a grown backup is read on from its mark") from None
    assert [(name, len(messages)) for name, messages, _ in whole] == [
        (name, passed + len(messages)) for name, messages, passed in after
    ]
    counts = {name: len(messages) for name, messages, _ in before}
    assert [counts.get(name, 0) for name, _, _ in whole] == [passed for _, _, passed in after]
    for (name, messages, _), (_, new, passed) in zip(whole, after, strict=True):
        assert messages[passed:] == new, name
    assert end == whole_end


def test_a_count_that_disagrees_is_said_once_as_a_whole_reading_says_it(tmp_path: Path):
    old = backup(rows(range(0, 5), range(100, 102)), 1)
    grown = backup(rows(range(0, 8), range(100, 104)), 2).replace(b'count="12"', b'count="99"')
    warned = {}
    for way in ("resume", "reread"):
        path = tmp_path / way / NAME
        path.parent.mkdir()
        with Archive.open(tmp_path / way / "home") as archive:
            path.write_bytes(old)
            import_file(archive, path, tz=BERLIN)
            path.write_bytes(grown)
            result = import_file(archive, path, tz=BERLIN, reread=way == "reread")
            assert (result.resumed_at is not None) == (way == "resume")
            warned[way] = [w.replace(str(path), "FILE") for w in result.warnings]
    assert warned["resume"] == warned["reread"] and len(warned["resume"]) == 1
    assert 'count="99" but holds 12 messages' in warned["resume"][0]


def test_a_backup_named_by_a_later_time_goes_on_from_the_mark_of_the_one_before(tmp_path: Path):
    # The app names each backup by the time it was made: the earlier one's mark is found by its format.
    old = backup(rows(range(0, 20), range(100, 108)), 1)
    new = backup(rows(range(0, 26), range(100, 111)), 2)
    archives = []
    for way in ("resume", "reread"):
        folder = tmp_path / way
        folder.mkdir()
        (folder / "sms-20260501080000.xml").write_bytes(old)
        (folder / "sms-20260601080000.xml").write_bytes(new)
        with Archive.open(folder / "home") as archive:
            assert import_file(archive, folder / "sms-20260501080000.xml", tz=BERLIN).error is None
            result = import_file(
                archive, folder / "sms-20260601080000.xml", tz=BERLIN, reread=way == "reread"
            )
            assert result.resumed_at == (at(old, b"<mms") if way == "resume" else None)
            archives.append(archive_rows(archive))
    assert archives[0] == archives[1]


def test_another_phones_backup_is_read_whole(tmp_path: Path):
    mine = backup(rows(range(0, 20), range(100, 108)), 1)
    theirs = backup([sms(n, 1, body=f"theirs {n}") for n in range(30)], 2)
    path = tmp_path / "sms-2.xml"
    with Archive.open(tmp_path / "home") as archive:
        (tmp_path / "sms-1.xml").write_bytes(mine)
        import_file(archive, tmp_path / "sms-1.xml", tz=BERLIN)
        path.write_bytes(theirs)
        result = import_file(archive, path, tz=BERLIN)
    assert result.resumed_at is None and sum(c.messages_added for c in result.chats) == 30


def test_messages_forgotten_before_a_grown_backup_stay_forgotten_as_a_full_reading_keeps_them(tmp_path: Path):
    old = backup(rows(range(0, 20), range(100, 108)), 1)
    new = backup(rows(range(0, 26), range(100, 111)), 2)
    resumed, reread = forgotten_both_ways(tmp_path, NAME, old, new, Selection(matching="7"), must_resume=True)
    assert resumed == reread
    assert len(resumed[1]) == 26 + 11 - 3  # "message 7", "message 17" and "group 107" stay forgotten
