"""A large ChatGPT or Claude export exported again: the import left heads in its entry (``ingest.resume.Head``: places
between two conversations, with the hash of the bytes before them, taken in the ledger's pass), and a later
import whose file's bytes before one of them are unchanged takes the conversations before it as they are and
walks the list from there only. The archive ends as a full re-read (``--reread``) of the new file leaves it,
after an append, an edit in the middle, a deletion and a forgotten message; a file broken after the head says
what a whole reading says."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from test_resume_conversations import MAKERS, MODULES, earlier_and_later, export, gpt
from test_resume_import import BERLIN, both_ways, forgotten_both_ways

from refind_cli.importers import conversations
from refind_cli.ingest import import_file, resume
from refind_cli.operations import Selection
from refind_cli.storage.archive import Archive


@pytest.fixture(autouse=True)
def scanned_with_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", 0)
    monkeypatch.setattr(resume, "HEAD_EVERY", 3_000)  # a head every few conversations


def versions(change: str, fmt: str = "chatgpt") -> tuple[list[dict], list[dict]]:
    """16 conversations; the last grows, two new ones follow it; 5 is edited, 7 deleted or 8 loses one."""
    return earlier_and_later(fmt, change, count=16, grown=15)


def read_from(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The places of the conversations the reading walks to (``conversations.Scanned.where``)."""
    walked: list[str] = []
    original = conversations.found
    monkeypatch.setattr(
        conversations, "found", lambda item, *a: walked.append(item.where) or original(item, *a)
    )
    return walked


@pytest.mark.parametrize("fmt", MAKERS)
@pytest.mark.parametrize("change", ["append", "edit", "deletion", "message deleted"])
def test_a_reimport_from_a_head_leaves_the_archive_a_full_reread_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, fmt: str
):
    earlier, later = versions(change, fmt)
    walked = read_from(monkeypatch)
    resumed, reread, results = both_ways(tmp_path, "conversations.json", [export(earlier), export(later)])
    assert resumed == reread
    assert len(results[-1].chats) == len(later)
    # The first import walked every conversation; the second only those from a head on.
    first = walked[: len(earlier)]
    assert first == [f"[{n}]" for n in range(len(earlier))]
    # Then the other home walks both files whole (the second with --reread).
    again = walked[len(earlier) : -len(earlier) - len(later)]
    first_changed = {"append": 15, "edit": 5, "deletion": 7, "message deleted": 8}[change]
    assert again[-1] == f"[{len(later) - 1}]"
    assert 0 < int(again[0][1:-1]) <= first_changed


IDS = {"chatgpt": ("id", "conversation_id"), "claude": ("uuid",)}


@pytest.mark.parametrize("fmt", MAKERS)
def test_a_conversation_without_its_id_is_keyed_alike_scanned_and_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
):
    earlier, later = versions("append", fmt)
    # A tool dropped the ids of one conversation that stays and of the one that grows.
    for conversations_ in (earlier, later):
        for n in (4, 15):
            conversations_[n] = {k: v for k, v in conversations_[n].items() if k not in IDS[fmt]}
    resumed, reread, results = both_ways(tmp_path, "conversations.json", [export(earlier), export(later)])
    assert resumed == reread
    assert len(results[-1].chats) == len(later)
    path = tmp_path / "conversations.json"
    path.write_bytes(export(later))
    read = []
    for min_bytes in (1 << 40, 0):  # read whole, then scanned
        monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", min_bytes)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            keys = [e.chat.key for e in MODULES[fmt].read(path, tz=BERLIN)]
        read.append((keys, [str(w.message) for w in said]))
    assert read[0] == read[1]
    assert len(set(read[0][0])) == len(later)
    assert len(read[0][1]) == 1 and "2 conversations have no" in read[0][1][0]


def grown_once(tmp_path: Path, earlier: list[dict], later: list[dict], walked: list[str], worker: bool):
    """``earlier`` imported (``worker``: in the import worker), then ``later`` in this process: the archive
    open on it, the file, and the second import's result; ``walked`` holds what the second walked."""
    path = tmp_path / "conversations.json"
    archive = Archive.open(tmp_path / "home")
    path.write_bytes(export(earlier))
    import_file(archive, path, tz=BERLIN, worker=worker)
    walked.clear()
    path.write_bytes(export(later))
    return archive, path, import_file(archive, path, tz=BERLIN, worker=False)


def test_an_append_is_walked_from_the_last_conversation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    earlier, later = versions("append")
    walked = read_from(monkeypatch)
    archive, path, result = grown_once(tmp_path, earlier, later, walked, worker=False)
    with archive:
        assert walked == ["[15]", "[16]", "[17]"]
        assert sum(c.messages_added for c in result.chats) == 3 + 4 + 3
        walked.clear()
        again = import_file(archive, path, tz=BERLIN, worker=False)  # the same file: the ledger's hash
        assert again.unchanged_since is not None and walked == []
        path.write_bytes(export([*later, gpt(18, 2)]))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert walked == ["[17]", "[18]"]  # from the head the second import left


def test_the_worker_leaves_heads_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Large enough to be scanned in the worker, which reads the module's own SCAN_MIN_BYTES.
    padding = "x" * ((4 << 20) // 15)  # conversations.SCAN_MIN_BYTES, which the fixture lowered here
    earlier, later = ([{**c, "padding": padding} for c in v] for v in versions("append"))
    walked = read_from(monkeypatch)
    archive, _, result = grown_once(tmp_path, earlier, later, walked, worker=True)
    with archive:
        assert walked == ["[15]", "[16]", "[17]"]
        assert result.error is None


@pytest.mark.parametrize("what", [Selection(matching="weather"), Selection(chat=2)], ids=["messages", "chat"])
def test_what_was_forgotten_before_the_head_stays_forgotten(tmp_path: Path, what: Selection):
    earlier, later = versions("append")
    resumed, reread = forgotten_both_ways(
        tmp_path, "conversations.json", export(earlier), export(later), what
    )
    assert resumed == reread


@pytest.mark.parametrize("cut", [b"", b" x", b"]"])
def test_a_file_broken_after_the_head_says_what_a_whole_reading_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: bytes
):
    earlier, later = versions("append")
    text = export(later)
    broken = text[: len(text) - 200] if not cut else text + cut
    path = tmp_path / "conversations.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        path.write_bytes(broken)
        said = import_file(archive, path, tz=BERLIN, worker=False).error
    monkeypatch.setattr(conversations, "SCAN_MIN_BYTES", 1 << 40)
    with Archive.open(tmp_path / "whole") as archive:
        assert said == import_file(archive, path, tz=BERLIN, worker=False).error
    assert said
