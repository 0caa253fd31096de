"""Session 14's rewrites no importer was tuned on (``tests/unseen_variants.py``), one per format and kind,
and the items seen and left by session 13: a chat really named "Family (2)", ``refind search -`` with
nothing on stdin, a zip of more entries than any export refused from its end record, legacy code pages of
short texts, zip names written without the UTF-8 flag. ``bench/ablation_probe.py --set unseen`` runs every
variant; ``bench/codepage_bench.py`` measures the code pages on held-out sentences."""

from __future__ import annotations

import codecs
import unicodedata
import warnings
import zipfile
from datetime import UTC
from pathlib import Path

import pytest
from cli_runs import run
from unseen_variants import KINDS, Unseen, _Named, check, variants

from refind_cli import importers
from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container


def _one_per_kind() -> list[Unseen]:
    chosen: dict[tuple[str, str], Unseen] = {}
    for u in variants():
        chosen.setdefault((u.variant.format, u.variant.kind), u)
    return list(chosen.values())


def test_the_unseen_set_covers_every_kind_and_many_formats() -> None:
    found = variants()
    assert {u.variant.kind for u in found} == set(KINDS)
    assert len({u.variant.format for u in found}) >= 15


@pytest.mark.parametrize("unseen", _one_per_kind(), ids=lambda u: f"{u.variant.format}-{u.variant.kind}")
def test_a_rewrite_no_importer_was_tuned_on_reads_as_the_original(tmp_path: Path, unseen: Unseen) -> None:
    assert check(unseen, tmp_path) is None


# --- "Family (2)" -------------------------------------------------------------------------------------------


def _ios_zip(path: Path, group: str) -> Path:
    """An iOS WhatsApp export of a group: the app writes the group's name as the sender of its first notices."""
    text = (
        f"[01/03/2026, 10:02:13] {group}: \u200eMessages and calls are end-to-end encrypted.\n"
        f"[01/03/2026, 10:02:13] {group}: \u200eMum created group \u201c{group}\u201d\n"
        "[01/03/2026, 10:05:00] Mum: Hello all\n"
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("_chat.txt", text)
    return path


@pytest.mark.parametrize(
    ("group", "file", "name"),
    [
        ("Family (2)", "WhatsApp Chat - Family (2).zip", "Family (2)"),
        ("Family (2)", "WhatsApp Chat - Family (2) (1).zip", "Family (2)"),  # a copy of it
        ("Family", "WhatsApp Chat - Family (1).zip", "Family"),  # a copy of "Family"
        ("Family", "WhatsApp Chat - Family (2).zip", "Family"),
    ],
)
def test_a_chat_really_named_with_a_number_keeps_it_and_a_copys_mark_goes(
    tmp_path: Path, group: str, file: str, name: str
) -> None:
    (export,) = importers.read_export(_ios_zip(tmp_path / file, group), "auto", UTC)
    assert (export.chat.name, export.chat.key) == (name, name)


def test_an_android_chat_named_with_a_number_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat with Team (3).txt"
    path.write_text('03/01/2026, 09:00 - Ana created group "Team (3)"\n03/01/2026, 09:01 - Ana: Hi\n')
    (export,) = importers.read_export(path, "auto", UTC)
    assert export.chat.name == "Team (3)"


# --- search - -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stdin", ["", "\n  \n"])
def test_search_dash_with_nothing_on_stdin_is_a_one_line_error(tmp_path: Path, stdin: str) -> None:
    result = run(tmp_path / "home", "search", "-", input=stdin)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "stdin" in result.stderr
    assert result.stdout == ""


# --- a zip of too many entries ----------------------------------------------------------------------------


def test_a_zip_of_too_many_entries_is_refused_from_its_end_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for n in range(11):
            zf.writestr(f"f/{n}.txt", b"")
    monkeypatch.setattr(container, "MAX_MEMBERS", 10)

    def no_directory(*args: object, **kw: object) -> None:
        raise AssertionError("the directory was read")

    monkeypatch.setattr(container.zipfile, "ZipFile", no_directory)
    with pytest.raises(InputError, match="more than 10 entries"):
        container.open_zip(path)


def test_the_end_record_of_a_zip64_archive_tells_its_count(tmp_path: Path) -> None:
    path = tmp_path / "wide.zip"
    entries = 0x10000 + 3  # past the count the classic end record holds: ZIP64 records are written
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for n in range(entries):
            zf.writestr(str(n), b"")
        zf.comment = b"PK\x05\x06 in a comment is not the record"
    with path.open("rb") as f:
        assert container._declared_entries(f) == entries


# --- code pages of short texts -------------------------------------------------------------------------

# Written for this test (not the benchmark's sentences): a chat's first lines in a language whose Windows
# code page an older tool saved them in.
_SHORT = [
    ("cp1254", "Yarın akşam görüşürüz, şimdi işteyim."),
    ("cp936", "明天晚上见，我现在在上班。"),
    ("cp1257", "Rytoj vakare susitiksime. Ačiū už žinutę!"),
    ("cp1250", "Zítra večer se uvidíme, teď jsem v práci."),
    ("cp1251", "Увидимся завтра вечером, я сейчас на работе."),
    ("cp1253", "Τα λέμε αύριο το βράδυ, τώρα δουλεύω."),
    ("cp932", "明日の夜に会いましょう。今は仕事中です。"),
    ("cp949", "내일 저녁에 봐요. 지금은 일하는 중이에요."),
]


@pytest.mark.parametrize(("codec", "text"), _SHORT, ids=[c for c, _ in _SHORT])
def test_a_short_text_in_a_code_page_reads_as_written(codec: str, text: str) -> None:
    data = f"{text}\r\n".encode(codec)
    encoding = container.text_encoding(data)
    assert data.decode(encoding.codec) == f"{text}\r\n"


# --- zip names -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("Chats für Zoë/WhatsApp Chat with Zoë.txt", "utf-8"),  # Info-ZIP, macOS: UTF-8 without the flag
        ("チャット/WhatsApp Chat with 友子.txt", "cp932"),  # Explorer on a Japanese Windows
        ("Chats für Zoë/WhatsApp Chat with Zoë.txt", "cp437"),  # Explorer on a US Windows
    ],
)
def test_zip_names_without_the_utf8_flag_read_as_written(tmp_path: Path, name: str, codec: str) -> None:
    path = tmp_path / "chats.zip"
    with zipfile.ZipFile(path, "w") as zf:
        info = _Named(name, (2026, 10, 5, 12, 0, 0))
        info.codec, info.flagged = codec, False
        zf.writestr(info, "03/01/2026, 09:00 - Ana: Hi\n")
    with container.open_zip(path) as zf:
        assert container.member_names(zf) == [name]
        assert zf.read(name) == b"03/01/2026, 09:00 - Ana: Hi\n"


def test_decomposed_zip_names_read_composed(tmp_path: Path) -> None:
    name = "WhatsApp Chat with Zoë.txt"
    path = tmp_path / "chats.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(unicodedata.normalize("NFD", name), "03/01/2026, 09:00 - Ana: Hi\n")
    (export,) = importers.read_export(path, "auto", UTC)
    assert export.chat.name == "Zoë"


# --- the rest --------------------------------------------------------------------------------------------


def test_sms_rows_told_apart_by_nothing_say_they_share_a_chat(tmp_path: Path) -> None:
    rows = "".join(
        f'<sms protocol="0" date="{1787213135000 + n}" type="1" body="code {n}" contact_name="{who}" />'
        for n, who in enumerate(("(Unknown)", "null"))
    )
    path = tmp_path / "sms-20261004213000.xml"
    path.write_text(
        f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><smses count=\"2\">{rows}</smses>"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exports = list(importers.read_export(path, "auto", UTC))
        count = sum(1 for e in exports for _ in e.messages)
    said = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert count == 2 and len(exports) == 1
    assert len(said) == 1 and "no address or contact name" in said[0] and "one chat" in said[0]


def test_a_page_saved_by_a_browser_is_still_a_page() -> None:
    from refind_cli.importers import htmltext

    assert htmltext.is_page("<!-- saved from url=(0014)about:internet -->\r\n<HTML><body>")
    assert htmltext.is_page("<?xml version='1.0'?>\n<!DOCTYPE html><html>")
    assert not htmltext.is_page("<!-- a comment --> plain text <html>")


def test_excels_separator_line_is_not_a_header(tmp_path: Path) -> None:
    path = tmp_path / "KakaoTalk_Chat_Jiwoo.csv"
    text = "sep=;\r\nDate;User;Message\r\n1.10.2026 19:02:59;Jiwoo;Hallo\r\n10.1.2026 7:05:29 PM;Maya;Hi\r\n"
    path.write_bytes(codecs.BOM_UTF8 + text.encode())
    (export,) = importers.read_export(path, "auto", UTC)
    assert [(m.timestamp.isoformat(), m.text) for m in export.messages] == [
        ("2026-10-01T19:02:59+00:00", "Hallo"),
        ("2026-01-10T19:05:29+00:00", "Hi"),
    ]


def test_a_child_process_imports_this_package_whatever_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -c`` puts the working folder first on sys.path: started in another checkout, the import's
    worker read with that checkout's code (``bench/import_bench.py --base`` at 1M, session 13)."""
    from refind_cli import processes

    (tmp_path / "refind_cli").mkdir()
    (tmp_path / "refind_cli" / "__init__.py").write_text("raise SystemExit('the other checkout')\n")
    monkeypatch.chdir(tmp_path)
    child = processes.python_child("import refind_cli; print(refind_cli.__file__)", 1 << 16)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0
    assert Path(out.decode().strip()).parent == Path(processes.__file__).parent
