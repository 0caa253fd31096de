"""Session 16's files other tools rewrite: the leftovers session 15 named (a drive's download in two parts,
ids rounded through doubles, an iMessage page named with ``_``, volumes refused as an unknown format, a TSV
header printed before a refusal) and the held-out family written before any fix (``held_out_16``): a file
compressed alone by Finder or gzip, a zip made from the home folder, Explorer's extras, an attachment's encoded
name, a copy's name on Windows and macOS, an extension dropped or added. ``bench/ablation_probe.py --set
held-out-16`` reads every variant; ``bench/RESULTS.md`` ("Files other tools rewrite, session 16") has the
counts."""

from __future__ import annotations

import gzip
import shutil
import warnings
import zipfile
from datetime import UTC
from pathlib import Path

import pytest
from ablation_variants import SAMPLES, read
from cli_runs import refind
from hypothesis import given
from hypothesis import strategies as st
from unseen_variants import Unseen, held_out_15, held_out_16, held_out_16b, outcome

from refind_cli import importers
from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container, fields
from refind_cli.records import Kind, Message

# Held out in session 16 and still read otherwise than the original, with the format it shows on and why:
# held to fail, so that a fix shows here.
KNOWN: dict[str, tuple[str, str]] = {}


# Held out after the fixes (``held_out_16b``) and read otherwise still: the kind and the format it shows on.
KNOWN_AFTER = {
    "Finder's Keep both: NAME 2.ext": ("whatsapp", "a copy's number is not told from a name's own"),
}


def _one_per_kind() -> list[Unseen]:
    chosen: dict[str, Unseen] = {}
    for u in held_out_16() + held_out_16b():
        place = u.variant.place
        if place in {**KNOWN, **KNOWN_AFTER} and u.variant.format != {**KNOWN, **KNOWN_AFTER}[place][0]:
            continue
        chosen.setdefault(place, u)
    return list(chosen.values())


@pytest.mark.parametrize("unseen", _one_per_kind(), ids=lambda u: f"{u.variant.format}-{u.variant.place}")
def test_a_rewrite_held_out_reads_as_the_original_or_is_refused_in_one_line(
    tmp_path: Path, unseen: Unseen
) -> None:
    how, what = outcome(unseen, tmp_path)
    known = {**KNOWN, **KNOWN_AFTER}
    if unseen.variant.place in known:
        assert how != "read", f"fixed: {known[unseen.variant.place][1]} (take it out of KNOWN)"
    else:
        assert how == "read" or (how == "refused" and unseen.may_refuse), what


@pytest.mark.parametrize(
    "export",
    [
        "WhatsApp Chat with Jonas Becker.txt",
        "Lars Lindqvist.html",
        "KakaoTalk_Chat_Jiwoo.csv",
        "Lena Hoffmann",
    ],
)
def test_every_copy_and_mail_name_of_an_export_reads_as_the_export(tmp_path: Path, export: str) -> None:
    """The names held out for each format that names its chat after its file."""
    for u in held_out_16():
        if u.variant.export == export and any(
            w in u.variant.place for w in ("Copy", "copy", "encoded", "extension")
        ):
            assert outcome(u, tmp_path / str(abs(hash(u.variant.place)))) == ("read", None), u.variant.place


# --- names -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stem", "told", "name"),
    [
        ("Chat with Ana - Copy", "", "Chat with Ana"),
        ("Chat with Ana - Kopie (2)", "", "Chat with Ana"),
        ("Chat with Ana copy 3", "", "Chat with Ana"),
        ("Chat with Ana copia", "", "Chat with Ana"),
        ("=?utf-8?b?Q2hhdCBtaXQgWm/Dqy50eHQ=?=", "", "Chat mit Zoë"),
        ("=?iso-8859-1?q?Chat_mit_Zo=EB?=", "", "Chat mit Zoë"),
        ("Chat with Ana.txt", "", "Chat with Ana"),
        ("Chat with Ana.zip", "", "Chat with Ana"),
        ("utf-8''Chat%20mit%20Zo%C3%AB.txt", "", "Chat mit Zoë"),
        ("utf-8''KakaoTalk_Chat_Jiwoo", "", "KakaoTalk_Chat_Jiwoo"),
        ("rock'n'roll", "", "rock'n'roll"),
        ("Chat with Ana (Maya's conflicted copy 2026-10-05)", "", "Chat with Ana"),
        ("Chat with Ana-DESKTOP-4F2K9QL", "", "Chat with Ana"),
        # Finder's "Keep both" (``NAME 2``) is not taken off: "Team 2" and "Team" may be two chats.
        ("Chat with Ana 2", "", "Chat with Ana 2"),
        # What the chat's own text names with the mark is the chat's name.
        ("Hard copy", "Hard copy: created group", "Hard copy"),
        ("Reading group - Copy", "Reading group - Copy: created group", "Reading group - Copy"),
        # Not a mark: a word that ends otherwise, a name of only the mark, an unknown charset.
        ("Copycat", "", "Copycat"),
        ("copy", "", "copy"),
        ("=?x-unknown?q?abc?=", "", "=?x-unknown?q?abc?="),
        ("Dr. Ana Smith", "", "Dr. Ana Smith"),
    ],
)
def test_unmarked_undoes_what_copies_mails_and_shares_do_to_a_name(stem: str, told: str, name: str) -> None:
    assert container.unmarked(stem, told) == name


def test_the_extensions_unmarked_takes_off_are_the_registrys_and_the_archives() -> None:
    named = {p[1:] for n in importers.names() for p in importers.get(n).names if p.startswith("*.")}
    archives = {s for s in named if container.archive_stem("x" + s) is not None}
    assert named - archives == set(container.EXPORT_SUFFIXES)
    assert set(container.ARCHIVE_SUFFIXES) | named <= set(container._export_suffixes())
    assert ".md" not in container._export_suffixes()  # Signal names chat.md alone, not every Markdown file


def test_an_imessage_page_named_with_underscores_is_read_under_its_contacts_name(tmp_path: Path) -> None:
    page = (SAMPLES / "Lars Lindqvist.html").read_bytes()
    for name, key in (
        ("Lars_Lindqvist.html", "Lars Lindqvist"),
        ("lars_lindqvist@icloud.com.html", "lars_lindqvist@icloud.com"),  # a handle keeps its _
        ("+49_171_555.html", "+49_171_555"),
    ):
        (tmp_path / name).write_bytes(page)
        (chat,) = importers.read_export(tmp_path / name, "auto", UTC)
        assert chat.chat.key == key


def test_a_kakaotalk_csv_renamed_is_told_by_its_header(tmp_path: Path) -> None:
    data = (SAMPLES / "KakaoTalk_Chat_Jiwoo.csv").read_bytes()
    want = [
        (m.timestamp, m.text)
        for c in importers.read_export(SAMPLES / "KakaoTalk_Chat_Jiwoo.csv", "auto", UTC)
        for m in c.messages
    ]
    for name in ("KakaoTalk_Chat_Jiwoo.csv.txt", "KakaoTalk_Chat_Jiwoo"):
        (tmp_path / name).write_bytes(data)
        assert importers.detect(tmp_path / name) == "kakaotalk"
        (chat,) = importers.read_export(tmp_path / name, "auto", UTC)
        assert chat.chat.key == "KakaoTalk_Chat_Jiwoo"
        assert [(m.timestamp, m.text) for m in chat.messages] == want


# --- archives in pieces ----------------------------------------------------------------------------------


def _slack_in_parts(into: Path, parts: int = 2) -> list[Path]:
    """The Slack sample as a drive's download: its files dealt over ``-001.zip``, ``-002.zip``, users.json
    in the last."""
    root = SAMPLES / "slack-export-acme"
    files = sorted(f for f in root.rglob("*") if f.is_file() and f.name != "users.json")
    into.mkdir(parents=True, exist_ok=True)
    made = []
    for n in range(parts):
        target = into / f"slack-export-acme-20261005T120000Z-00{n + 1}.zip"
        dealt = files[n::parts] + ([root / "users.json"] if n == parts - 1 else [])
        with zipfile.ZipFile(target, "w") as zf:
            for f in dealt:
                zf.write(f, f"slack-export-acme/{f.relative_to(root).as_posix()}")
        made.append(target)
    return made


def _messages(path: Path) -> list[tuple[str, str, str | None, str]]:
    return sorted(read(path).messages, key=repr)


def test_a_drives_download_in_parts_is_read_as_the_folder_it_was(tmp_path: Path) -> None:
    first, second = _slack_in_parts(tmp_path / "Downloads")
    assert list(importers.exports_in(tmp_path / "Downloads")) == [first]
    assert container.pieces(second) == (first, second)
    whole = _messages(SAMPLES / "slack-export-acme")
    assert _messages(tmp_path / "Downloads") == whole
    assert _messages(second) == whole  # a part named alone is read with the others beside it
    assert not read(tmp_path / "Downloads").warnings


def test_one_part_alone_says_its_users_are_missing(tmp_path: Path) -> None:
    first, _ = _slack_in_parts(tmp_path / "Downloads")
    alone = tmp_path / "alone" / first.name
    alone.parent.mkdir()
    shutil.move(first, alone)
    reading = read(alone)
    assert reading.messages and any("no users.json" in w for w in reading.warnings)


def _volumes(into: Path, export: Path, pieces: int) -> list[Path]:
    whole = into / "whole.zip"
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(whole, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(export.rglob("*")):
            if f.is_file():
                zf.write(f, f"{export.name}/{f.relative_to(export).as_posix()}")
    data = whole.read_bytes()
    whole.unlink()
    step = len(data) // pieces + 1
    made = []
    for n in range(pieces):
        made.append(into / f"{export.name}.zip.{n + 1:03d}")
        made[-1].write_bytes(data[n * step : (n + 1) * step])
    return made


def test_volumes_are_joined_and_a_missing_one_is_named(tmp_path: Path) -> None:
    export = SAMPLES / "teams-export"
    volumes = _volumes(tmp_path / "v", export, 3)
    assert _messages(volumes[0]) == _messages(export)
    assert list(importers.exports_in(tmp_path / "v")) == [volumes[0]]
    volumes[2].unlink()
    with pytest.raises(InputError) as caught:
        importers.detect(volumes[0])
    assert "the volume after teams-export.zip.002 is missing" in str(caught.value)
    volumes[0].unlink()
    with pytest.raises(InputError) as caught:
        importers.detect(volumes[1])
    assert "teams-export.zip.001, is not beside it" in str(caught.value)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("chats.7z.001", "a volume of a 7z or RAR archive"),
        ("chats.z01", "a zip split by WinZip or Info-ZIP"),
        ("chats.part1.rar", "RAR"),
    ],
)
def test_pieces_refind_does_not_join_are_named_as_such_by_the_command(
    tmp_path: Path, name: str, said: str
) -> None:
    folder = tmp_path / "Downloads"
    folder.mkdir()
    (folder / name).write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(200))
    result = refind("--home", str(tmp_path / "home"), "import", str(folder))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and said in result.stderr and name in result.stderr


def test_a_single_file_gzipped_is_read_as_the_file(tmp_path: Path) -> None:
    export = SAMPLES / "WhatsApp Chat with Jonas Becker.txt"
    packed = tmp_path / f"{export.name}.gz"
    packed.write_bytes(gzip.compress(export.read_bytes()))
    reading = read(packed)
    assert _messages(packed) == _messages(export) and reading.keys == read(export).keys
    damaged = tmp_path / "damaged.txt.gz"
    damaged.write_bytes(gzip.compress(export.read_bytes())[:300])
    reading = read(damaged)
    assert reading.error is not None and "damaged.txt.gz" in reading.error and "\n" not in reading.error


# --- ids rounded through doubles ----------------------------------------------------------------------------


def _message(ident: str | None) -> Message:
    from datetime import datetime

    return Message(datetime(2026, 1, 1, tzinfo=UTC), "me", "hi", Kind.TEXT, source_id=ident)


@given(st.integers(min_value=2**53, max_value=2**63))
def test_an_id_a_double_rounded_is_told_and_real_ones_are_kept(n: int) -> None:
    from decimal import Decimal

    assert fields.through_a_double(int(Decimal(repr(float(n)))))  # as Go and jq 1.6 write it
    assert fields.through_a_double(float(n))  # as Gson does
    if n % 10:  # a real id that ends in a zero is one in ten
        assert fields._chance(n) == 1.0
        ids = range(n, n + 200)  # real ids, one after another: kept
        got = list(fields.unrounded(((i, _message(str(i))) for i in ids), fields.Gaps("x.json")))
        assert [m.source_id for m in got] == [str(i) for i in ids]


def test_ids_a_tool_rounded_are_dropped_and_said_real_ones_kept() -> None:
    real = [1521601569383897830, 1522304161631057961, 1527454984721006747, 1527454984721006748]
    rounded = [int(format(__import__("decimal").Decimal(repr(float(n))), "f")) for n in real]
    for ids, dropped in ((real, False), (rounded, True), ([float(n) for n in real[:1]], True)):
        gaps = fields.Gaps("x.json")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = list(fields.unrounded(((i, _message(str(int(i)))) for i in ids), gaps))
            gaps.warn()
        assert len(got) == len(ids)
        assert all((m.source_id is None) == dropped for m in got)
        said = [w for w in caught if issubclass(w.category, InputWarning)]
        assert len(said) == (1 if dropped else 0)
        assert not dropped or "rounded" in str(said[0].message)


def test_a_discord_package_rewritten_by_gson_or_go_says_its_ids_were_rounded(tmp_path: Path) -> None:
    for u in held_out_15():
        if u.variant.format == "discord-package" and u.variant.place.startswith(("Gson", "Go ", "jq")):
            reading = read(u.variant.write(tmp_path / str(len(u.variant.place))))
            assert len(reading.messages) == len(read(SAMPLES / "discord-package").messages)
            assert reading.uids == len(reading.messages)  # none merged
            assert any("rounded" in w for w in reading.warnings)


# --- the command -------------------------------------------------------------------------------------------


def test_an_import_refused_whole_into_a_pipe_prints_no_header(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("buy milk\n")
    result = refind("--home", str(tmp_path / "home"), "import", str(folder))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    ok = refind("--home", str(tmp_path / "home"), "import", str(SAMPLES / "Noah Weber.txt"))
    assert ok.returncode == 0 and ok.stdout.startswith("path\t")


def test_a_change_to_any_part_is_a_change_to_the_download(tmp_path: Path) -> None:
    """A re-import tells an unchanged export by its digest: of a download in parts, every part's bytes."""
    from refind_cli.ingest.ledger import file_digest

    first, second = _slack_in_parts(tmp_path / "Downloads")
    before = file_digest(first)
    assert container.export_files(second) == [first, second]
    with zipfile.ZipFile(second, "a") as zf:
        zf.writestr("slack-export-acme/general/2026-12-01.json", "[]")
    assert file_digest(first) != before
