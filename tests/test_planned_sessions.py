"""A fresh chat's sessions are planned batch by batch as its rows pass on their way to be stored
(``ingest.rows.Planned``, fed by the import worker for a large export): they must be exactly the sessions that
planning the stored chat again finds, wherever the batches are cut."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import EXPORTS
from test_import_worker import AWKWARD, IN_ORDER, dump, import_all
from test_segment import SEC, SPEC, spec_messages

from refind_cli.ingest import rows as ingest_rows
from refind_cli.method import segment
from refind_cli.method.segment import PAIRINGS, Caps, GapSplit, split_by_gap
from refind_cli.storage.archive import Archive
from refind_cli.storage.sessions import resegment_chat


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=SPEC, cuts=st.lists(st.integers(0, 60), max_size=8), pairing=st.sampled_from(PAIRINGS))
def test_a_gap_split_fed_in_parts_plans_what_it_plans_whole(
    monkeypatch: pytest.MonkeyPatch, spec: list, cuts: list[int], pairing: str
):
    monkeypatch.setattr(segment, "CAPS", Caps(turn_messages=3, turn_chars=20, session_messages=5))
    ms = spec_messages(spec)
    split = GapSplit("chat", 2 * SEC, pairing)
    fed = []
    start = 0
    for end in [*sorted(cuts), len(ms)]:
        fed += split.feed(ms[start:end])
        start = max(start, end)
    fed += split.close()
    assert fed == list(split_by_gap("chat", ms, 2 * SEC, pairing))
    assert list(split.close()) == []  # closed once


def sessions(home: Path) -> dict[str, list[tuple]]:
    stored = dump(home)
    return {table: stored[table] for table in ("sessions", "turns", "queue")}


def replanned_unchanged(home: Path) -> None:
    """Planning every chat again from its stored rows changes no session."""
    with Archive.open(home) as archive:
        before = dump(home)
        chats = [seq for (seq,) in archive.db.execute("SELECT seq FROM chats")]
        with archive.transaction():
            assert [resegment_chat(archive, seq) for seq in chats] == [0] * len(chats)
        assert dump(home) == before


def test_sessions_planned_in_small_batches_are_those_planned_again(tmp_path: Path, monkeypatch):
    awkward = tmp_path / "WhatsApp Chat with Ana.txt"
    awkward.write_text(AWKWARD + IN_ORDER, encoding="utf-8")  # out of order: planned again after
    ordered = tmp_path / "WhatsApp Chat with Ben.txt"
    ordered.write_text(IN_ORDER + IN_ORDER.replace("02/03", "03/03"), encoding="utf-8")
    exports = [*EXPORTS, awkward, ordered]
    whole = import_all(tmp_path / "whole", exports, worker=False)
    monkeypatch.setattr(ingest_rows, "BATCH", 3)  # sessions run across many batches
    cut = import_all(tmp_path / "cut", exports, worker=False)
    assert cut == whole
    # Only the sessions: what a chat holds once for its rows (``Archive._chatwide_from``) is told from its
    # first batch, so the rows' stored form may differ (and rebuild the same messages).
    assert sessions(tmp_path / "cut") == sessions(tmp_path / "whole")
    replanned_unchanged(tmp_path / "cut")


def test_sessions_planned_in_the_worker_across_its_batches_are_those_planned_again(tmp_path: Path):
    # A message a minute for 12,000 minutes, two hours' silence after every 700: sessions that cross the
    # worker's batches (5,000 rows) and one of 10,000+ messages that closes at the session cap.
    lines = []
    for i in range(12_000):
        minute = i + (i // 700) * 120 if i < 1_400 else 1_400 + 240 + i
        lines.append(f"{_stamp(minute)} - {'Ana' if i % 5 else 'Ben'}: message {i}\n")
    export = tmp_path / "WhatsApp Chat with Ana.txt"
    export.write_text("".join(lines), encoding="utf-8")
    there = import_all(tmp_path / "there", [export], worker=True)
    here = import_all(tmp_path / "here", [export], worker=False)
    assert there == here
    assert [c.sessions for r in there for c in r.chats] == [4]  # 700, 700, 10,000 (the cap), 600
    assert dump(tmp_path / "there") == dump(tmp_path / "here")
    replanned_unchanged(tmp_path / "there")


def _stamp(minute: int) -> str:
    t = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=minute)
    return f"{t:%d/%m/%Y, %H:%M}"
