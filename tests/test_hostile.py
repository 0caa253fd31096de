"""Hostile input: zip tricks, path traversal, deep nesting, huge lines and strings, NUL bytes, wrong
encodings, huge metadata. Whatever the input, refind imports it or stops with one clean line; it never
shows a traceback and never writes outside its home.

The malformed-zip, bad-Unicode, direction-mark, attachment-marker and long-string tests are regressions
for bugs that fuzzing (``fuzz/``) and probing found.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import struct
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from samples import JONAS
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.search  # noqa: F401
from refind_cli.errors import InputError
from refind_cli.frontends.cli import app
from refind_cli.importers import slack, telegram, whatsapp
from refind_cli.records import Kind

TZ = ZoneInfo("Europe/Berlin")
DEPTH = 100_000
runner = CliRunner()


# --- helpers --------------------------------------------------------------------------------------------


def refind_import(home: Path, path: Path, *args: str) -> tuple[int, dict, str]:
    """Exit code, the --json result and stderr of `refind import`, after checking that no exception
    escaped and no traceback was printed."""
    r = runner.invoke(
        app, ["--home", str(home), "import", "--tz", "Europe/Berlin", "--json", *args, str(path)]
    )
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.stdout and "Traceback" not in r.stderr
    assert r.exit_code in (0, 2), r.exit_code
    return r.exit_code, json.loads(r.stdout), r.stderr


def assert_clean_error(code: int, out: dict, stderr: str, path: Path, *phrases: str) -> None:
    """Exit code 2 and one line on stderr that names the file and says what is wrong."""
    assert code == 2
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("refind: error: "), stderr
    assert str(path) in lines[0]
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    assert out["files"][0]["error"] and out["files"][0]["chats"] == []


def imported(out: dict) -> int:
    return sum(c["messages_added"] for f in out["files"] for c in f["chats"])


def messages(exports) -> list:
    return [m for export in exports for m in export.messages]


def whatsapp_lines(n: int, start: int = 0) -> str:
    return "".join(
        f"01/02/2024, 10:{(start + i) % 60:02d} - Ann: message number {start + i}\n" for i in range(n)
    )


def zip_with(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data)
    return path


def tree(root: Path, skip: Path) -> set[Path]:
    return {p for p in root.rglob("*") if skip not in (p, *p.parents)}


def telegram_dialog(messages: str) -> bytes:
    return ('{"name": "Ann", "type": "personal_chat", "id": 7, "messages": [' + messages + "]}").encode()


def telegram_message(text: str = '"hi"', extra: str = "") -> str:
    return (
        '{"id": 1, "type": "message", "date": "2024-01-01T10:00:00", "date_unixtime": "1704099600", '
        f'"from": "Ann", "from_id": "user7", "text": {text}{extra}}}'
    )


def slack_folder(root: Path, day: bytes, users: bytes | None = None) -> Path:
    (root / "general").mkdir(parents=True)
    (root / "channels.json").write_text('[{"id": "C1", "name": "general"}]')
    (root / "general" / "2024-01-01.json").write_bytes(day)
    if users is not None:
        (root / "users.json").write_bytes(users)
    return root


HANG_FACTOR = 30


def finishes_within(seconds: float, path: Path, importer: str) -> None:
    """Imports ``path`` in a child process and fails if that takes more than ``seconds`` of CPU: a regular
    expression that backtracks cannot be interrupted from inside the process. CPU time, not wall, because the
    suite shares its cores (at load 30 a 2 s wall limit failed linear code); a child still running after
    ``HANG_FACTOR`` times the limit in wall time is killed and fails the test."""
    code = textwrap.dedent(f"""
        from pathlib import Path
        from zoneinfo import ZoneInfo
        from refind_cli.errors import InputError
        from refind_cli.importers import {importer} as module
        path = Path({str(path)!r})
        module.sniff(path)
        try:
            for export in module.read(path, tz=ZoneInfo("Europe/Berlin")):
                for _ in export.messages:
                    pass
        except InputError:
            pass
    """)
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    hang = threading.Timer(seconds * HANG_FACTOR, child.kill)
    hang.start()
    try:
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        hang.cancel()
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    size = f"{path.name} ({path.stat().st_size:,} bytes)"
    if child.returncode == -signal.SIGKILL:
        pytest.fail(f"importing {size} still ran after {seconds * HANG_FACTOR:.0f} s")
    assert child.returncode == 0, f"importing {size} ended with {child.returncode}"
    if cpu > seconds:
        pytest.fail(f"importing {size} took {cpu:.1f} s of CPU, over {seconds} s")


# --- zips ----------------------------------------------------------------------------------------------


def _patch_sizes(data: bytes, declared: int) -> bytes:
    """Rewrite the uncompressed size in the local header and the central directory entry of a
    one-member zip, leaving the compressed stream (and its true, larger size) alone."""
    buf = bytearray(data)
    local = buf.index(b"PK\x03\x04")
    central = buf.index(b"PK\x01\x02")
    struct.pack_into("<I", buf, local + 22, declared)
    struct.pack_into("<I", buf, central + 24, declared)
    return bytes(buf)


def test_member_expanding_past_its_declared_size_is_a_clean_error(tmp_path: Path):
    text = whatsapp_lines(60).encode() * 4000  # ~10 MB of chat that deflates to a few KB
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_chat.txt", text)
    path = tmp_path / "WhatsApp Chat - Liar.zip"
    path.write_bytes(_patch_sizes(buffer.getvalue(), declared=300))
    with zipfile.ZipFile(path) as zf:
        assert zf.getinfo("_chat.txt").file_size == 300
    started = time.monotonic()
    # The zip reader stops at the declared size and the CRC then disagrees: nothing past 300 bytes is read.
    # No importer reads the zip as one export, so it stands for its files: the chat file's import, like the
    # named format's, reports the entry itself.
    assert_clean_error(*refind_import(tmp_path / "home", path), path, "entry '_chat.txt'", "CRC")
    code, out, stderr = refind_import(tmp_path / "home", path, "--format", "whatsapp")
    assert_clean_error(code, out, stderr, path, "entry '_chat.txt'", "CRC")
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("member", "name"),
    [
        ("../../evil/_chat.txt", "Trip"),
        ("/tmp/refind-evil/_chat.txt", "Trip"),
        # Not a folder separator in a zip: one odd file name, and still the only chat file.
        ("..\\..\\evil\\_chat.txt", "..\\..\\evil\\_chat"),
    ],
)
def test_path_traversal_names_in_a_whatsapp_zip_write_nothing_outside_home(
    tmp_path: Path, member: str, name: str
):
    path = zip_with(tmp_path / "WhatsApp Chat - Trip.zip", {member: whatsapp_lines(3).encode()})
    home = tmp_path / "a" / "b" / "home"
    home.parent.mkdir(parents=True)
    before = tree(tmp_path, home)
    code, out, _ = refind_import(home, path)
    assert code == 0 and imported(out) == 3
    assert out["files"][0]["chats"][0]["name"] == name
    assert tree(tmp_path, home) == before
    assert not Path("/tmp/refind-evil").exists()


def test_path_traversal_names_in_slack_and_telegram_zips(tmp_path: Path):
    day = json.dumps([{"type": "message", "user": "U1", "text": "over the wall", "ts": "1704099600.000100"}])
    slack_zip = zip_with(tmp_path / "slack.zip", {"../2024-01-01.json": day.encode(), "channels.json": b"[]"})
    tg_zip = zip_with(
        tmp_path / "telegram.zip",
        {"../../result.json": telegram_dialog(telegram_message('"over the wall"'))},
    )
    home = tmp_path / "x" / "home"
    home.parent.mkdir(parents=True)
    before = tree(tmp_path, home)
    for path in (slack_zip, tg_zip):
        code, out, _ = refind_import(home, path)
        assert code == 0 and imported(out) == 1, out
    assert tree(tmp_path, home) == before


# --- deep nesting --------------------------------------------------------------------------------------

NESTED = "[" * DEPTH + "]" * DEPTH


@pytest.mark.parametrize(
    "body",
    [
        telegram_dialog(NESTED),  # a message that is one deep list
        telegram_dialog(telegram_message(extra=f', "reactions": {NESTED}')),  # inside a message
        ('{"type": "personal_chat", "id": 7, "name": ' + NESTED + ', "messages": []}').encode(),
        ('{"about": "x", "contacts": ' + NESTED + ', "chats": {"list": []}}').encode(),  # a skipped section
    ],
    ids=["message", "field", "dialog-name", "skipped-section"],
)
def test_deeply_nested_telegram_json_is_an_error_or_an_import(tmp_path: Path, body: bytes):
    path = tmp_path / "result.json"
    path.write_bytes(body)
    try:
        found = messages(telegram.read(path, tz=TZ))
    except InputError as exc:
        assert str(path) in str(exc)
    else:
        assert len(found) <= 1


def test_deeply_nested_telegram_message_through_the_cli(tmp_path: Path):
    path = tmp_path / "result.json"
    path.write_bytes(telegram_dialog(telegram_message(extra=f', "reactions": {NESTED}')))
    code, out, stderr = refind_import(tmp_path / "home", path)
    assert_clean_error(code, out, stderr, path, "messages[0]", "nested too deeply")


@pytest.mark.parametrize(
    "day",
    [NESTED, json.dumps([{"ts": "1704099600.000100", "text": "x"}])[:-2] + ', "blocks": ' + NESTED + "}]"],
    ids=["day-file", "inside-a-message"],
)
def test_deeply_nested_slack_day_file_is_a_clean_error(tmp_path: Path, day: str):
    root = slack_folder(tmp_path / "slack", day.encode())
    code, out, stderr = refind_import(tmp_path / "home", root)
    assert_clean_error(code, out, stderr, root / "general" / "2024-01-01.json", "nested too deeply")


def test_deeply_nested_slack_users_file_is_a_clean_error(tmp_path: Path):
    root = slack_folder(tmp_path / "slack", b"[]", users=NESTED.encode())
    with pytest.raises(InputError, match=r"users\.json: JSON nested too deeply"):
        messages(slack.read(root, tz=TZ))


# --- big lines and strings -----------------------------------------------------------------------------


def test_a_10_mb_whatsapp_line_is_one_message(tmp_path: Path):
    body = "all work and no play makes jack a dull boy " * 240_000  # 10.3 MB, one line
    path = tmp_path / "WhatsApp Chat with Jack.txt"
    path.write_text(whatsapp_lines(1) + "01/02/2024, 11:00 - Jack: " + body + "\n" + whatsapp_lines(1, 1))
    started = time.monotonic()
    found = messages(whatsapp.read(path, tz=TZ))
    assert time.monotonic() - started < 15
    assert [m.sender for m in found] == ["Ann", "Jack", "Ann"]
    text = found[1].text
    assert (text if isinstance(text, str) else text.whole()) == body  # a text this long is held in a file
    assert found[1].kind == Kind.TEXT


def test_a_5_mb_telegram_string_imports_whole(tmp_path: Path):
    text = "x" * (5 << 20)
    path = tmp_path / "result.json"
    path.write_bytes(telegram_dialog(telegram_message(json.dumps(text))))
    (found,) = messages(telegram.read(path, tz=TZ))
    assert found.text == text and len(found.raw) > len(text)


def test_slack_export_with_50000_users(tmp_path: Path):
    users = [
        {"id": f"U{i:07d}", "name": f"user{i}", "profile": {"real_name": f"User {i}"}} for i in range(50_000)
    ]
    day = [
        {"type": "message", "user": "U0049999", "text": "hi <@U0000001>", "ts": "1704099600.000100"},
        {"type": "message", "user": "U0000002", "text": "hello", "ts": "1704099660.000100"},
    ]
    root = slack_folder(tmp_path / "slack", json.dumps(day).encode(), users=json.dumps(users).encode())
    started = time.monotonic()
    code, out, _ = refind_import(tmp_path / "home", root)
    assert time.monotonic() - started < 20
    assert code == 0 and imported(out) == 2
    found = messages(slack.read(root, tz=TZ))
    assert [(m.sender, m.text) for m in found] == [("User 49999", "hi @User 1"), ("User 2", "hello")]


# --- NUL bytes and encodings ---------------------------------------------------------------------------


def test_nul_bytes_in_text_survive_every_importer(tmp_path: Path):
    wa = tmp_path / "WhatsApp Chat with Nul.txt"
    wa.write_bytes(b"01/02/2024, 10:00 - Ann: hel\x00lo\n01/02/2024, 10:01 - Bo\x00b: ok\n")
    (a, b) = messages(whatsapp.read(wa, tz=TZ))
    assert a.text == "hel\x00lo" and b.sender == "Bo\x00b"
    tg = tmp_path / "result.json"
    tg.write_bytes(telegram_dialog(telegram_message('"hel\\u0000lo"')))
    assert [m.text for m in messages(telegram.read(tg, tz=TZ))] == ["hel\x00lo"]
    root = slack_folder(
        tmp_path / "slack", b'[{"ts": "1704099600.000100", "user": "U1", "text": "hel\\u0000lo"}]'
    )
    assert [m.text for m in messages(slack.read(root, tz=TZ))] == ["hel\x00lo"]
    for path in (wa, tg, root):
        code, out, _ = refind_import(tmp_path / "home", path)
        assert code == 0 and imported(out) >= 1


def test_a_raw_nul_byte_inside_a_telegram_string_is_a_clean_error(tmp_path: Path):
    path = tmp_path / "result.json"
    path.write_bytes(telegram_dialog(telegram_message('"hel\x00lo"')))
    with pytest.raises(InputError, match="invalid JSON"):
        messages(telegram.read(path, tz=TZ))


def test_utf16_le_whatsapp_export_with_bom_imports_like_utf8(tmp_path: Path):
    text = whatsapp_lines(3) + "01/02/2024, 10:09 - Zoë: größer ✓ 🎉\n"
    utf8 = tmp_path / "WhatsApp Chat with Zoë.txt"
    utf8.write_text(text, encoding="utf-8")
    utf16 = tmp_path / "utf16" / "WhatsApp Chat with Zoë.txt"
    utf16.parent.mkdir()
    utf16.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    expected = messages(whatsapp.read(utf8, tz=TZ))
    assert messages(whatsapp.read(utf16, tz=TZ)) == expected and len(expected) == 4
    code, out, _ = refind_import(tmp_path / "home", utf16)
    assert code == 0 and imported(out) == 4


def test_a_damaged_utf8_whatsapp_export_is_an_error_naming_the_line(tmp_path: Path):
    path = tmp_path / "WhatsApp Chat with Zoë.txt"
    data = whatsapp_lines(1) + "01/02/2024, 10:08 - Zoë: schön\n"
    path.write_bytes(data.encode() + "01/02/2024, 10:09 - Zoë: größer\n".encode("latin-1"))
    code, out, stderr = refind_import(tmp_path / "home", path)
    assert_clean_error(code, out, stderr, path, "line 3", "invalid UTF-8")


def test_a_latin1_whatsapp_export_is_read_in_its_code_page_with_one_warning(tmp_path: Path):
    path = tmp_path / "WhatsApp Chat with Zoë.txt"
    path.write_bytes((whatsapp_lines(2) + "01/02/2024, 10:09 - Zoë: größer\n").encode("latin-1"))
    code, out, stderr = refind_import(tmp_path / "home", path)
    assert code == 0 and imported(out) == 3
    (line,) = stderr.splitlines()
    assert line.startswith("refind: warning: ") and "not UTF-8: read as CP125" in line


def test_latin1_in_a_slack_day_file_is_an_error_naming_the_file(tmp_path: Path):
    root = slack_folder(tmp_path / "slack", '[{"ts": "1704099600.1", "text": "größer"}]'.encode("latin-1"))
    code, out, stderr = refind_import(tmp_path / "home", root)
    assert_clean_error(code, out, stderr, root / "general" / "2024-01-01.json", "line 1", "invalid UTF-8")


# --- regressions from fuzzing (fuzz/fuzz_importer.py) ---------------------------------------------------


def _zip_with_empty_name() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(zipfile.ZipInfo(""), whatsapp_lines(1))
    return buffer.getvalue()


def _zip_needing_version(version: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("_chat.txt", whatsapp_lines(1))
    data = bytearray(buffer.getvalue())
    struct.pack_into("<H", data, data.index(b"PK\x01\x02") + 6, version)  # "version needed to extract"
    return bytes(data)


@pytest.mark.parametrize("fmt", ["auto", "whatsapp", "slack", "telegram"])
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_zip_with_empty_name(), id="empty-entry-name"),
        pytest.param(_zip_needing_version(235), id="zip-version-23.5"),
    ],
)
def test_malformed_zip_directory_is_a_clean_error(tmp_path: Path, fmt: str, data: bytes):
    path = tmp_path / "export.zip"
    path.write_bytes(data)
    code, out, stderr = refind_import(tmp_path / "home", path, "--format", fmt)
    assert_clean_error(code, out, stderr, path)


@pytest.mark.parametrize(
    "text",
    [
        b'"Sintra \xc1\x9fe 21"',  # overlong UTF-8, as the fuzzer found it: yajl passes it, Python does not
        b'"a \xed\xa0\x80 b"',  # a surrogate written as raw UTF-8 bytes
        b'"lone \\udc00 low"',  # an escaped low surrogate without its pair
        b'"hi", "k\xed\xb0\x80": 1',  # the same in a key
    ],
    ids=["overlong-utf8", "raw-surrogate", "lone-low-surrogate-escape", "in-a-key"],
)
def test_telegram_bad_unicode_in_a_string_is_a_clean_error(tmp_path: Path, text: bytes):
    path = tmp_path / "result.json"
    path.write_bytes(telegram_dialog(telegram_message('"TEXT"')).replace(b'"TEXT"', text))
    with pytest.raises(InputError, match=re.escape(str(path))):
        messages(telegram.read(path, tz=TZ))


def test_telegram_lone_high_surrogate_escape_imports(tmp_path: Path):
    path = tmp_path / "result.json"
    path.write_bytes(telegram_dialog(telegram_message('"torn \\ud83d pair"')))
    code, out, _ = refind_import(tmp_path / "home", path)
    assert code == 0 and imported(out) == 1


@pytest.mark.parametrize("prefix", ["", "01/02/2024"], ids=["line-start", "after-date"])
def test_whatsapp_line_of_direction_marks_is_linear(tmp_path: Path, prefix: str):
    path = tmp_path / "WhatsApp Chat with Marks.txt"
    path.write_text(whatsapp_lines(1) + prefix + "\u200e" * 50_000 + "x\n", encoding="utf-8")
    finishes_within(2, path, "whatsapp")


def test_the_time_budget_fails_an_import_over_it(tmp_path: Path):
    # The guard of the tests above: a budget under the interpreter's own start is exceeded (in CPU, or by the
    # wall-time kill when the machine is loaded).
    path = tmp_path / "WhatsApp Chat with Budget.txt"
    path.write_text(whatsapp_lines(1), encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match=r"s of CPU, over|still ran after"):
        finishes_within(0.01, path, "whatsapp")


def test_whatsapp_body_of_attachment_markers_is_linear(tmp_path: Path):
    path = tmp_path / "WhatsApp Chat with Attach.txt"
    path.write_text("01/02/2024, 10:00 - Ann: " + "<attached:" * 50_000 + ")\n", encoding="utf-8")
    finishes_within(2, path, "whatsapp")


def test_telegram_overlong_string_is_refused_quickly(tmp_path: Path):
    # ijson's yajl2_c re-scans a token that spans its read blocks (time grows with the square of a string's
    # length: 16 MB took 2 s, 40 MB 11 s); strings past telegram.MAX_TOKEN are refused before that bites.
    path = tmp_path / "result.json"
    path.write_bytes(telegram_dialog(telegram_message('"TEXT"')).replace(b"TEXT", b"a" * (40 << 20)))
    started = time.perf_counter()
    with pytest.raises(InputError, match="runs past 8 MB"):
        messages(telegram.read(path, tz=TZ))
    assert time.perf_counter() - started < 5


# --- a home that is not one ---------------------------------------------------------------------------


def test_an_archive_file_that_is_not_a_database_is_a_clean_error(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "archive.db").write_bytes(b"not a database, just some bytes " * 100)
    for args in (["search", "x"], ["chats"]):
        r = runner.invoke(app, ["--home", str(home), *args])
        assert r.exit_code == 2 and "Traceback" not in r.stderr
        assert (
            r.stderr
            == f"refind: error: {home / 'archive.db'}: cannot open the archive (file is not a database)\n"
        )
    code, out, stderr = refind_import(home, JONAS)
    assert code == 2 and len(stderr.splitlines()) == 1
    assert out == {"error": f"{home / 'archive.db'}: cannot open the archive (file is not a database)"}


def test_a_home_that_is_a_file_is_a_clean_error(tmp_path: Path):
    home = tmp_path / "a-file"
    home.write_text("x")
    r = runner.invoke(app, ["--home", str(home / "sub"), "chats"])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"refind: error: {home / 'sub'}: cannot use this as the home folder")
    assert len(r.stderr.splitlines()) == 1
