"""Large exports are read in a worker process while this one writes: the archive must come out exactly as
when everything runs in one process, for every format and for the awkward cases (out-of-order lines,
identical messages, threads, re-imports, forgotten messages, unreadable files)."""

from __future__ import annotations

import subprocess
from datetime import UTC
from pathlib import Path

import pytest
from samples import EXPORTS
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401  (registers the command)
from refind_cli import ingest, processes
from refind_cli.frontends.cli import app
from refind_cli.ingest import import_file
from refind_cli.ingest import rows as ingest_rows
from refind_cli.ingest import worker as ingest_worker
from refind_cli.storage.archive import Archive

AWKWARD = (
    "01/03/2024, 09:00 - Ana: first\n"
    "01/03/2024, 09:01 - Ben: same words\n"
    "01/03/2024, 09:01 - Ben: same words\n"
    "01/03/2024, 08:59 - Ana: a line out of order\n"
    "01/03/2024, 12:30 - Ana: a new session\n"
    "that goes on\n"
    "over lines\n"
    "01/03/2024, 12:31 - Ben: <Media omitted>\n"
)
IN_ORDER = "".join(f"02/03/2024, 10:{i:02d} - {'Ana' if i % 3 else 'Ben'}: message {i}\n" for i in range(60))


def dump(home: Path) -> dict[str, list[tuple]]:
    """Everything the import wrote, but for the ledger's clock times."""
    with Archive.open(home) as archive:
        q = archive.db.execute
        return {
            "chats": q("SELECT * FROM chats ORDER BY seq").fetchall(),
            "messages": q("SELECT * FROM messages ORDER BY seq").fetchall(),
            "sessions": q("SELECT * FROM sessions ORDER BY seq").fetchall(),
            "turns": q("SELECT * FROM turns ORDER BY session_seq, ordinal").fetchall(),
            "queue": q("SELECT * FROM index_queue ORDER BY session_seq").fetchall(),
            "imports": q("SELECT path, sha256, format, counts FROM imports ORDER BY seq").fetchall(),
        }


def import_all(home: Path, paths: list[Path], worker: bool) -> list[ingest.FileImportResult]:
    with Archive.open(home) as archive:
        return [import_file(archive, p, tz=UTC, worker=worker, reread=True) for p in paths]


def test_every_format_comes_out_the_same(tmp_path: Path):
    here = import_all(tmp_path / "here", EXPORTS, worker=False)
    there = import_all(tmp_path / "there", EXPORTS, worker=True)
    assert [r.error for r in there] == [None] * len(EXPORTS)
    assert there == here
    assert dump(tmp_path / "there") == dump(tmp_path / "here")


def test_awkward_lines_and_reimports_come_out_the_same(tmp_path: Path):
    awkward = tmp_path / "WhatsApp Chat with Ana.txt"
    awkward.write_text(AWKWARD + IN_ORDER, encoding="utf-8")
    older = tmp_path / "WhatsApp Chat with Ben.txt"
    older.write_text("".join(IN_ORDER.splitlines(keepends=True)[:30]), encoding="utf-8")
    newer = tmp_path / "newer" / "WhatsApp Chat with Ben.txt"  # the same chat, exported later
    newer.parent.mkdir()
    newer.write_text(IN_ORDER, encoding="utf-8")
    sequence = [awkward, older, newer, awkward]
    here = import_all(tmp_path / "here", sequence, worker=False)
    there = import_all(tmp_path / "there", sequence, worker=True)
    assert there == here
    assert [c.messages_added for r in there for c in r.chats] == [66, 30, 30, 0]
    assert dump(tmp_path / "there") == dump(tmp_path / "here")


def test_batches_are_bounded_by_characters_and_come_out_the_same(tmp_path: Path, monkeypatch):
    """Long messages make batches of fewer rows (a batch is held whole on both sides of the pipe); where
    the batches are cut changes nothing that is stored."""
    long_lines = "".join(f"03/03/2024, 11:{i:02d} - Ana: {'long words ' * (200 + i)}\n" for i in range(40))
    export = tmp_path / "WhatsApp Chat with Ana.txt"
    export.write_text(AWKWARD + long_lines + IN_ORDER, encoding="utf-8")
    sizes: list[tuple[int, int]] = []
    rows = ingest_rows.Rows.__iter__

    def counted(self: ingest_rows.Rows):
        for batch in rows(self):
            sizes.append((len(batch), sum(len(row[7]) + len(row[13]) for row in batch)))
            yield batch

    here = import_all(tmp_path / "here", [export], worker=False)
    monkeypatch.setattr(ingest_rows, "BATCH_CHARS", 5_000)
    monkeypatch.setattr(ingest_rows.Rows, "__iter__", counted)
    cut = import_all(tmp_path / "cut", [export], worker=False)
    assert cut == here
    assert dump(tmp_path / "cut") == dump(tmp_path / "here")
    # Each batch stops at the first row that reaches the bound: under it before that row (2,600 at most).
    assert len(sizes) > 5 and all(chars < 5_000 + 2_600 for _, chars in sizes)
    assert sum(n for n, _ in sizes) == 106  # every message read


def test_forgotten_messages_stay_forgotten(tmp_path: Path):
    export = EXPORTS[0]
    with Archive.open(tmp_path / "home") as archive:
        import_file(archive, export, tz=UTC, worker=False)
        seq = archive.db.execute("SELECT min(seq) FROM messages").fetchone()[0]
        with archive.transaction():
            archive.forget_messages([seq])
        result = import_file(archive, export, tz=UTC, worker=True, reread=True)
        assert result.chats[0].messages_added == 0
        assert archive.db.execute("SELECT count(*) FROM messages WHERE seq = ?", (seq,)).fetchone()[0] == 0


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("WhatsApp Chat with X.txt", "this is not a chat\n"),
        ("result.json", '{"name": "x", "type": "personal_chat", "id": 1, "messages": [{"id": 1, '),
    ],
)
def test_an_unreadable_export_gives_the_same_error_and_writes_nothing(
    tmp_path: Path, name: str, content: str
):
    export = tmp_path / name
    export.write_text(content, encoding="utf-8")
    fmt = "telegram" if name.endswith(".json") else "whatsapp"
    with Archive.open(tmp_path / "home") as archive:
        here = import_file(archive, export, fmt=fmt, tz=UTC, worker=False)
        there = import_file(archive, export, fmt=fmt, tz=UTC, worker=True)
        assert here.error and there == here
        assert archive.counts() == {"chats": 0, "messages": 0, "sessions": 0, "turns": 0}
        assert archive.db.execute("SELECT count(*) FROM imports").fetchone()[0] == 0


def spy_on_workers(monkeypatch) -> list:
    started = []
    popen = subprocess.Popen

    def spy(*args, **kwargs):
        started.append(args[0])
        return popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", spy)
    return started


def test_the_command_uses_a_worker_for_large_exports(tmp_path: Path, monkeypatch):
    started = spy_on_workers(monkeypatch)
    monkeypatch.setattr(ingest_worker, "WORKER_MIN_BYTES", 0)
    monkeypatch.setattr(processes, "cores", lambda: 2)
    result = CliRunner().invoke(
        app, ["--home", str(tmp_path / "home"), "import", "--tz", "UTC", str(EXPORTS[0])]
    )
    assert result.exit_code == 0, result.output
    assert len(started) == 1 and "serve_worker" in started[0][-1]
    with Archive.open(tmp_path / "home") as archive:
        assert archive.counts()["messages"] > 0


@pytest.mark.parametrize("cores", [1, 2])
def test_small_exports_and_single_cores_stay_in_process(tmp_path: Path, monkeypatch, cores: int):
    started = spy_on_workers(monkeypatch)
    monkeypatch.setattr(processes, "cores", lambda: cores)
    with Archive.open(tmp_path / "home") as archive:
        import_file(archive, EXPORTS[0], tz=UTC)  # a few kilobytes
        monkeypatch.setattr(ingest_worker, "WORKER_MIN_BYTES", 0)
        import_file(archive, EXPORTS[3], tz=UTC)
    assert len(started) == (1 if cores > 1 else 0)


def check_progress(seen: list[tuple[int, float | None]], total: int) -> None:
    counts = [n for n, _ in seen]
    shares = [share for _, share in seen]
    assert len(seen) > 2 and counts[-1] == total
    assert all(share is not None and 0 < share <= 1 for share in shares)
    assert shares == sorted(shares) and counts == sorted(counts)
    assert shares[-1] > 0.5  # most of an export is its messages


@pytest.mark.parametrize("export", EXPORTS[1:], ids=["whatsapp-zip", "slack", "telegram"])
def test_progress_counts_messages_and_the_share_of_the_export_read(tmp_path: Path, monkeypatch, export: Path):
    monkeypatch.setattr(ingest_rows, "BATCH", 7)  # several reports even for a small export
    seen: list[tuple[int, float | None]] = []
    with Archive.open(tmp_path / "home") as archive:
        result = import_file(archive, export, tz=UTC, progress=lambda n, share: seen.append((n, share)))
    check_progress(seen, sum(c.messages_added for c in result.chats))


def test_progress_from_a_worker(tmp_path: Path):
    export = tmp_path / "WhatsApp Chat with Ana.txt"
    lines = (
        f"02/03/2024, {i // 60 % 24:02d}:{i % 60:02d} - Ana: message {i}\n"
        for i in range(3 * ingest_rows.BATCH)
    )
    export.write_text("".join(lines), encoding="utf-8")
    seen: list[tuple[int, float | None]] = []
    with Archive.open(tmp_path / "home") as archive:
        result = import_file(
            archive, export, tz=UTC, worker=True, progress=lambda n, share: seen.append((n, share))
        )
    check_progress(seen, 3 * ingest_rows.BATCH)
    assert result.chats[0].messages_added == 3 * ingest_rows.BATCH
