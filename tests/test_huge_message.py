"""Issue 24, item 4: one huge message costs each command memory bounded by something other than its size.

A turn is indexed and searched by its first ``INDEXED_CHARS`` characters and shown by its first
``SHOWN_CHARS``; the archive keeps it whole. Each command's peak RSS is measured in a process of its own
(``/proc/self/clear_refs`` resets the peak between commands) on a home holding one 8-MB message, beside the
same commands on a home holding a one-line chat.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runs import run

from refind_cli.index import INDEXED_CHARS
from refind_cli.storage.archive import Archive

MB = 1 << 20
LINE = "all work and no play makes jack a dull boy "

# Runs refind commands one after another in this process, its output to /dev/null, and prints each one's
# peak RSS (kB): its own, or its import worker's where that was larger.
CHILD = r"""
import os, resource, sys
from refind_cli.frontends.cli import main
def children():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
def peak(before):
    with open("/proc/self/status") as fh:
        own = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
    return max(own, children()) if children() > before else own
home, *commands = sys.argv[1:]
devnull, out = os.open(os.devnull, os.O_WRONLY), os.dup(1)
peaks = []
for command in commands:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    sys.argv = ["refind", "--home", home, *command.split("|")]
    before = children()
    os.dup2(devnull, 1)
    try:
        main()
    except SystemExit as exc:
        assert not exc.code, (command, exc.code)
    sys.stdout.flush()
    os.dup2(out, 1)
    peaks.append(peak(before))
print(" ".join(map(str, peaks)))
"""

SHOW = "show|--chat|Jack|--date|2024-02-01|--tz|UTC"
READS = ("search|abc", "search|abc|--json", SHOW, f"{SHOW}|--json", "ask|--offline|abc?")


def _clear_refs_works() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not _clear_refs_works(), reason="needs Linux's clear_refs"
)


def peaks(home: Path, *commands: str) -> list[int]:
    """The peak RSS of each command, in bytes."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), *commands],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return [int(kb) * 1024 for kb in out.stdout.split()]


def whatsapp(folder: Path, chars: int) -> Path:
    """A chat of one message of about ``chars`` characters, "abc" in its indexed part."""
    lines = chars // len(LINE)
    folder.mkdir()
    path = folder / "WhatsApp Chat with Jack.txt"
    path.write_text(f"01/02/2024, 11:00 - Jack: {LINE * (lines // 100)}abc {LINE * (lines - lines // 100)}\n")
    return path


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict[str, int]]]:
    """For a one-line chat and an 8-MB message: the message's size, and each command's peak RSS."""
    out = {}
    for name, chars in (("small", 0), ("huge", 8 * MB)):
        tmp = tmp_path_factory.mktemp(name)
        path, home = whatsapp(tmp / "in", chars), tmp / "home"
        # The import in a process of its own: memory it freed stays in its RSS, under the next command's peak.
        [imported] = peaks(home, f"import|--tz|UTC|{path}")
        figures = dict(
            zip([*READS, "stats", "reindex"], peaks(home, *READS, "stats", "reindex"), strict=True)
        )
        out[name] = (path.stat().st_size, {"import": imported, **figures})
    return out


def more(measured: dict[str, tuple[int, dict[str, int]]], command: str) -> tuple[int, int]:
    """(the huge message's size, how much more the command's peak was on it than on a one-line chat)."""
    size, huge = measured["huge"]
    return size, huge[command] - measured["small"][1][command]


@pytest.mark.parametrize("command", [*READS, "stats"])
def test_reading_a_home_with_a_huge_message_costs_what_a_small_one_does(measured, command: str):
    # Before: search 3 times the message, show 4 times, ask --offline 3 times (bench/RESULTS.md, issue 24).
    size, extra = more(measured, command)
    assert extra < 10 * MB, f"{command}: {extra / MB:.1f} MB more for a {size / MB:.0f}-MB message"


def test_reindexing_a_huge_message_costs_its_indexed_part_not_the_message(measured):
    # Before: 5 times the message (read whole, analysed whole, one tantivy document of all its terms).
    size, extra = more(measured, "reindex")
    assert extra < 16 * MB, f"{extra / MB:.1f} MB more for a {size / MB:.0f}-MB message"


def test_importing_a_huge_message_holds_it_a_bounded_number_of_times(measured):
    # Before: 6.7 times the message (the index build, the identity hashed from two more copies, the worker's
    # pickle). What is left: the writer holds the text, SQLite's bound copy and the record it builds from it.
    size, extra = more(measured, "import")
    assert extra < 4 * size, f"{extra / size:.1f} times the message"


def test_a_word_past_the_indexed_part_is_not_found_but_the_text_is_kept_and_counted_whole(tmp_path: Path):
    body = LINE * (INDEXED_CHARS // len(LINE) // 2) + "abc " + LINE * (INDEXED_CHARS // len(LINE)) + "zebra"
    path = tmp_path / "WhatsApp Chat with Jack.txt"
    path.write_text(f"01/02/2024, 11:00 - Jack: {body}\n01/02/2024, 11:01 - Ann: a zebra\n")
    home = tmp_path / "home"
    assert run(home, "import", "--tz", "UTC", str(path)).exit_code == 0
    [hit] = json.loads(run(home, "search", "abc", "--json").stdout)["results"]
    assert hit["truncated"] and hit["text_length"] == len(body) and "abc" in hit["text"]
    assert body[hit["text_offset"] :].startswith(hit["text"])
    zebras = json.loads(run(home, "search", "zebra", "--json").stdout)["results"]
    assert [z["text"] for z in zebras] == ["a zebra"]
    with Archive.open(home, readonly=True) as archive:
        assert next(m.text for m in archive.stored_messages(1)) == body


def test_a_long_text_is_read_a_piece_at_a_time_to_the_same_start_and_length(tmp_path: Path):
    from datetime import UTC, datetime

    from refind_cli.ingest import import_chat
    from refind_cli.records import Chat, Message

    # Two-byte characters, so that pieces of whole bytes cut characters in two.
    text = "é" * 700_000 + "x"
    with Archive.open(tmp_path / "home") as archive:
        import_chat(archive, Chat("test", "c", "C"), [Message(datetime(2024, 1, 1, tzinfo=UTC), "A", text)])
        [turn] = archive.window(1, 1, 1, chars=600_001)
        assert (turn.text, turn.length) == (text[:600_001], len(text))
        [turn] = archive.window(1, 1, 1, chars=len(text))
        assert (turn.text, turn.length) == (text, None)
        [(*_, indexed)] = archive.index_rows(None, chars=10)
        assert indexed == text[:10]
    assert os.path.getsize(tmp_path / "home" / "archive.db") > 0


def test_a_long_text_hashed_in_pieces_keeps_the_identity_it_had():
    """An archive stores identities: one hashed another way would make a re-import add the message again."""
    import hashlib

    from refind_cli.storage.identity import Identity

    text = "é and 好 " * 400_000
    whole = hashlib.blake2b(f"1/2/24, 10:00\x00Bob\x00{text}".encode(), digest_size=10).hexdigest()
    assert Identity().uid(None, "1/2/24, 10:00", 0, "Bob", text) == "w:" + whole


def test_long_texts_reach_the_writer_from_the_worker_in_pieces_whole_and_in_order(tmp_path: Path):
    from datetime import UTC

    from refind_cli.ingest import import_file
    from refind_cli.ingest.worker import PIECE

    texts = [LINE * (PIECE // len(LINE) + 1), "ok", "é" * (PIECE + 3), "fine"]
    path = tmp_path / "WhatsApp Chat with Jack.txt"
    path.write_text("".join(f"01/02/2024, 11:0{i} - Jack: {text}\n" for i, text in enumerate(texts)))
    with Archive.open(tmp_path / "home") as archive:
        result = import_file(archive, path, tz=UTC, worker=True)
        assert result.error is None
        assert [m.text for m in archive.stored_messages(1)] == texts
