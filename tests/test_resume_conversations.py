"""A ChatGPT or Claude export exported again: the conversations it held before, unchanged, are not read again
(``ChatExport.fingerprint``, ``ingest.resume.Prints``: their messages are never built), and the archive ends
exactly as a full re-read of the new file would leave it: after conversations were added, one grew, one was
edited in the middle, one lost a message, one was deleted."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from test_assistants import chatgpt_chain
from test_resume_import import BERLIN, both_ways, forgotten_both_ways

from refind_cli.importers import chatgpt, claude
from refind_cli.ingest import import_file, worker
from refind_cli.operations import Selection
from refind_cli.storage.archive import Archive


def gpt(n: int, length: int, edit: int | None = None) -> dict:
    """The ``n``-th ChatGPT conversation, a chain of ``length`` messages; ``edit``: one said otherwise."""
    texts = [
        f"conversation {n} message {i} about the weather" + " (edited)" * (i == edit) for i in range(length)
    ]
    conversation = chatgpt_chain(f"conv-{n}", texts, 1_700_000_000 + 86_400 * n, 60)
    return {
        **conversation,
        "title": f"Conversation {n}",
        "update_time": 1_700_000_000 + 86_400 * n + 60 * length,
    }


def cla(n: int, length: int, edit: int | None = None) -> dict:
    """The ``n``-th Claude conversation of ``length`` messages."""
    return {
        "uuid": f"conv-{n}",
        "name": f"Conversation {n}",
        "created_at": f"2024-01-{1 + n % 28:02d}T10:00:00Z",
        "updated_at": f"2024-01-{1 + n % 28:02d}T11:00:00Z",
        "chat_messages": [
            {
                "uuid": f"c{n}-m{i}",
                "sender": "human" if i % 2 == 0 else "assistant",
                "created_at": f"2024-01-{1 + n % 28:02d}T10:{i:02d}:00Z",
                "content": [
                    {"type": "text", "text": f"conversation {n} message {i}" + (" (edited)" * (i == edit))}
                ],
            }
            for i in range(length)
        ],
    }


MAKERS = {"chatgpt": gpt, "claude": cla}
MODULES = {"chatgpt": chatgpt, "claude": claude}


def export(conversations: list[dict]) -> bytes:
    return json.dumps(conversations, indent=1).encode()


def earlier_and_later(
    fmt: str, change: str, count: int = 12, grown: int = 3
) -> tuple[list[dict], list[dict]]:
    make = MAKERS[fmt]
    earlier = [make(n, 6) for n in range(count)]
    later = [make(n, 6) for n in range(count)] + [make(count, 4), make(count + 1, 3)]  # two new conversations
    later[grown] = make(grown, 9)  # one grew
    if change == "edit":
        later[5] = make(5, 6, edit=2)
    elif change == "deletion":
        del later[7]
    elif change == "message deleted":
        later[8] = make(8, 5)
    return earlier, later


def length(fmt: str, conversation: dict) -> int:
    return len(conversation["mapping"] if fmt == "chatgpt" else conversation["chat_messages"])


@pytest.mark.parametrize("fmt", MAKERS)
@pytest.mark.parametrize("change", ["append", "edit", "deletion", "message deleted"])
def test_a_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, fmt: str, change: str):
    earlier, later = earlier_and_later(fmt, change)
    resumed, reread, results = both_ways(tmp_path, "conversations.json", [export(earlier), export(later)])
    assert resumed == reread
    last = results[-1]
    # It reports what a full reading of the later export would: every message of it seen.
    assert sum(c.messages_added + c.messages_skipped for c in last.chats) == sum(
        length(fmt, c) for c in later
    )
    if change == "edit":
        texts = [row[7] for row in resumed[1]]
        assert any("(edited)" in t for t in texts)
        assert any(t.startswith("conversation 5 message 2") and "(edited)" not in t for t in texts)


@pytest.mark.parametrize("fmt", MAKERS)
def test_only_the_conversations_that_changed_are_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
):
    earlier, later = earlier_and_later(fmt, "edit")
    module = MODULES[fmt]
    name = "_message" if fmt == "chatgpt" else "_messages"
    original = getattr(module, name)
    built: list[str] = []
    monkeypatch.setattr(module, name, lambda *a: built.append(a[0]) or original(*a))
    path = tmp_path / "conversations.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        built.clear()
        path.write_bytes(export(later))
        result = import_file(archive, path, tz=BERLIN, worker=False)
    changed = [c for c in later if c not in earlier]  # 3 grew, 5 edited, 12 and 13 new
    assert len(changed) == 4
    assert len(built) == sum(length(fmt, c) for c in changed)  # a call per message (per entry for Claude)
    assert result.chats and sum(c.messages_added for c in result.chats) == 3 + 1 + 4 + 3


def test_the_worker_skips_them_too_and_the_next_import_keeps_skipping(tmp_path: Path):
    if not worker.can_use_a_worker():
        pytest.skip("one core")
    earlier, later = earlier_and_later("chatgpt", "append")
    versions = [export(earlier), export(later), export(later[:-1])]
    resumed, reread, results = both_ways(tmp_path, "conversations.json", versions, worker=True)
    assert resumed == reread
    # The second import read the three changed conversations, the third none (the last one is gone).
    assert [sum(1 for c in r.chats if c.messages_added) for r in results] == [12, 3, 0]


def test_a_zip_export_is_skipped_the_same_way(tmp_path: Path):
    earlier, later = earlier_and_later("chatgpt", "edit")

    def zipped(conversations: list[dict]) -> bytes:
        out = tmp_path / "x.zip"
        with zipfile.ZipFile(out, "w") as zf:
            zf.writestr("conversations.json", export(conversations))
        return out.read_bytes()

    resumed, reread, results = both_ways(tmp_path / "ways", "chatgpt.zip", [zipped(earlier), zipped(later)])
    assert resumed == reread
    assert sum(1 for c in results[-1].chats if c.messages_added) == 4


@pytest.mark.parametrize("what", [Selection(matching="weather"), Selection(chat=2)], ids=["messages", "chat"])
def test_what_was_forgotten_since_stays_forgotten_as_after_a_full_reading(tmp_path: Path, what: Selection):
    earlier, later = earlier_and_later("chatgpt", "append")
    resumed, reread = forgotten_both_ways(
        tmp_path, "conversations.json", export(earlier), export(later), what
    )
    assert resumed == reread


def grok(n: int, length: int, edit: int | None = None) -> dict:
    """The ``n``-th Grok conversation of ``length`` responses, each answering the one before."""
    ms = 1_782_846_000_000 + 86_400_000 * n
    responses = [
        {
            "response": {
                "_id": f"c{n}-r{i}",
                "message": f"conversation {n} response {i}" + " (edited)" * (i == edit),
                "sender": "human" if i % 2 == 0 else "ASSISTANT",
                "create_time": {"$date": {"$numberLong": str(ms + 60_000 * i)}},
                **({"parent_response_id": f"c{n}-r{i - 1}"} if i else {}),
            }
        }
        for i in range(length)
    ]
    return {"conversation": {"id": f"conv-{n}", "title": f"Conversation {n}"}, "responses": responses}


@pytest.mark.parametrize("change", ["edit", "deletion"])
def test_a_grok_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str):
    earlier = [grok(n, 6) for n in range(8)]
    later = [grok(n, 6) for n in range(8)] + [grok(8, 4)]
    later[3] = grok(3, 9)
    if change == "edit":
        later[5] = grok(5, 6, edit=2)
    else:
        del later[6]
    versions = [json.dumps({"conversations": c}, indent=1).encode() for c in (earlier, later)]
    resumed, reread, results = both_ways(tmp_path, "prod-grok-backend.json", versions)
    assert resumed == reread
    assert sum(1 for c in results[-1].chats if c.messages_added) == 2 + (change == "edit")
