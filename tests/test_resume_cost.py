"""What a re-import of a grown export costs beside what it stores (issue 26 item 1, session 13): the ledger
keeps one entry of a file's fingerprints, not one more each import; a reading from a head is not given the
fingerprints of the chats before it; a value's end is found without numpy where it closes in its first
block; a piped import's rows are escaped only where they hold a control character, and it never loads rich.
Counted, not timed."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_resume_conversations import export, gpt
from test_resume_heads import read_from, versions
from test_resume_import import BERLIN, archive_rows

from refind_cli.frontends.render import rows
from refind_cli.importers import conversations, jsonstream
from refind_cli.ingest import import_file, resume
from refind_cli.storage.archive import Archive


@pytest.fixture(autouse=True)
def scanned_with_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", 0)
    monkeypatch.setattr(resume, "HEAD_EVERY", 3_000)  # a head every few conversations


def entries(archive: Archive) -> list[dict]:
    """The ledger entries that still hold fingerprints, oldest first."""
    texts = archive.db.execute("SELECT resume FROM imports WHERE resume IS NOT NULL ORDER BY seq")
    return [json.loads(text) for (text,) in texts]


def test_each_import_of_a_grown_export_leaves_one_entry_to_go_on_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    earlier, later = versions("append")
    grown = [*later, gpt(18, 2)]
    edited = [gpt(5, 6, edit=2) if n == 5 else c for n, c in enumerate(grown)]
    walked = read_from(monkeypatch)
    path = tmp_path / "conversations.json"
    with Archive.open(tmp_path / "home") as archive:
        for n, version in enumerate([earlier, later, grown]):
            path.write_bytes(export(version))
            walked.clear()
            assert import_file(archive, path, tz=BERLIN, worker=False).error is None
            # The entry before is superseded: its chats are all in this one's, and its heads before the
            # one this import started at are carried into it.
            assert len(entries(archive)) == 1
            assert len(entries(archive)[0]["chats"]) == len(version)
            assert len(entries(archive)[0]["heads"]) >= 3, n
        assert walked == ["[17]", "[18]"]
        # An edit in the middle: the reading goes on from a head the first import left, carried twice.
        path.write_bytes(export(edited))
        walked.clear()
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
        assert 0 < int(walked[0][1:-1]) <= 5 and walked[-1] == "[18]"
        resumed = archive_rows(archive)
    with Archive.open(tmp_path / "reread") as archive:
        for version in (earlier, later, grown, edited):
            path.write_bytes(export(version))
            import_file(archive, path, tz=BERLIN, worker=False, reread=version is edited)
        assert archive_rows(archive) == resumed


def test_a_reading_from_a_head_is_not_given_the_fingerprints_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    earlier, later = versions("append")
    given: list[int] = []
    original = jsonstream.Items.__init__

    def counted(self: jsonstream.Items, path: Path, paths: list, known: frozenset, *args: object) -> None:
        given.append(len(known))
        original(self, path, paths, known, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(jsonstream.Items, "__init__", counted)
    path = tmp_path / "conversations.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        path.write_bytes(export(later))
        result = import_file(archive, path, tz=BERLIN, worker=False)
    # The first reading was given nothing; the second the fingerprint of the conversation at the head (the
    # one that grew) and the head, not the 15 conversations before it.
    assert given == [0, 2]
    assert sum(c.messages_added for c in result.chats) == 3 + 4 + 3


def test_a_value_that_closes_in_its_first_block_is_found_without_numpy(tmp_path: Path):
    path = tmp_path / "conversations.json"
    path.write_bytes(export([gpt(n, 6) for n in range(3)]))
    # A fresh interpreter: another test may have loaded numpy in this one.
    script = (
        "import sys; from pathlib import Path; from refind_cli.importers import jsonstream;"
        f"items = jsonstream.Items(Path({str(path)!r}), [()], ());"
        "ends = [];"
        "exec('while (start := items.begin()) is not None: ends.append(items.end_of(start))');"
        "print(len(ends), items.whole, 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "True", "False"]


def test_piped_rows_are_escaped_only_where_they_hold_a_control_character(
    monkeypatch: pytest.MonkeyPatch,
):
    table = [("a.txt", "whatsapp", "Mum", 1, 2), ("b.txt", "slack", "\x1b]0;pwned\x07", 3, 4)]
    for given, said in [
        (table[:1], "path\tformat\tchat\tadded\tskipped\na.txt\twhatsapp\tMum\t1\t2\n"),
        (
            table,
            "path\tformat\tchat\tadded\tskipped\na.txt\twhatsapp\tMum\t1\t2\n"
            "b.txt\tslack\t\\x1b]0;pwned\\x07\t3\t4\n",
        ),
    ]:
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        rows.write_rows(("path", "format", "chat", "added", "skipped"), iter(given), "tsv")
        assert out.getvalue() == said


def test_a_piped_import_never_loads_rich(tmp_path: Path):
    chat = tmp_path / "WhatsApp Chat with Jonas.txt"
    chat.write_text("[01.02.24, 10:00:00] Jonas: hello there\n", encoding="utf-8")
    script = (
        "import sys, atexit; atexit.register(lambda: print('rich' in sys.modules, file=sys.stderr));"
        "from refind_cli.frontends.cli import main;"
        f"sys.argv = ['refind', '--home', {str(tmp_path / 'home')!r}, 'import', '--tz', 'UTC', {str(chat)!r}];"
        "main()"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].split("\t")[2] == "Jonas"
    assert out.stderr.split() == ["False"]
