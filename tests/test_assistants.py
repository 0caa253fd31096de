"""ChatGPT and Claude.ai data exports: what is kept, flagged, shown and indexed; the conversation tree; growing
conversations on re-import; hostile and large files."""

from __future__ import annotations

import copy
import importlib.util
import io
import json
import shutil
import sys
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import SAMPLES
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401  (registers the command)
from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.frontends.cli import app
from refind_cli.importers import chatgpt, claude, container, conversations
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_file
from refind_cli.method import search
from refind_cli.records import Kind
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

sys.path.insert(0, str(SAMPLES))
from generate_assistants import chatgpt_chain

CHATGPT = SAMPLES / "chatgpt-export.zip"
CLAUDE = SAMPLES / "claude-export"
runner = CliRunner()


def read_all(module: Any, path: Path) -> dict[str, tuple[Any, list]]:
    return {e.chat.name: (e.chat, list(e.messages)) for e in module.read(path, tz=UTC)}


def chatgpt_conversations() -> list[dict]:
    with zipfile.ZipFile(CHATGPT) as zf:
        return json.loads(zf.read("conversations.json"))


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path


# --- the samples ----------------------------------------------------------------------------------------


def test_the_samples_are_what_the_script_writes(tmp_path: Path):
    spec = importlib.util.spec_from_file_location("generate_assistants", SAMPLES / "generate_assistants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    module.main(tmp_path)
    assert (tmp_path / "chatgpt-export.zip").read_bytes() == CHATGPT.read_bytes()
    for name in ("conversations.json", "users.json", "projects.json", "memories.json"):
        assert (tmp_path / "claude-export" / name).read_bytes() == (CLAUDE / name).read_bytes(), name


def test_each_format_is_detected_and_says_no_to_the_others(tmp_path: Path):
    loose = tmp_path / "conversations.json"
    with zipfile.ZipFile(CHATGPT) as zf:
        loose.write_bytes(zf.read("conversations.json"))
    assert importers.detect(CHATGPT) == "chatgpt"
    assert importers.detect(loose) == "chatgpt"
    assert importers.detect(CLAUDE) == "claude"
    assert importers.detect(CLAUDE / "conversations.json") == "claude"
    for other in (CLAUDE / "users.json", CLAUDE / "projects.json", SAMPLES / "telegram-result.json"):
        assert not chatgpt.sniff(other) and not claude.sniff(other), other


def test_chatgpt_keeps_every_message_and_shows_the_branch_last_seen():
    chats = read_all(chatgpt, CHATGPT)
    assert list(chats) == [
        "Reschedule dentist appointment",
        "Lisbon week itinerary",
        "Kartoffelsalat for the moving crew",
    ]
    for conv in chatgpt_conversations():
        nodes = [n for n in conv["mapping"].values() if n["message"] is not None]
        assert len(chats[conv["title"]][1]) == len(nodes)  # every message of the tree, none twice
    chat, messages = chats["Reschedule dentist appointment"]
    assert chat.kind == "direct" and chat.key == chatgpt_conversations()[0]["conversation_id"]
    by_text = {m.text.split("\n")[0]: m for m in messages}
    # The first draft was regenerated: kept, hidden. So are the system message and the custom instructions.
    assert by_text["Subject: Request to reschedule appointment"].kind == Kind.HIDDEN
    assert by_text["Subject: Moving my appointment on 14 April"].kind == Kind.TEXT
    hidden = [m for m in messages if m.kind == Kind.HIDDEN]
    assert [m.sender_id for m in hidden] == ["system", "user", "assistant"]
    assert "I'm Maya, a data analyst in Berlin." in hidden[1].text
    # A message without a time takes its parent's; the system message without one the conversation's.
    german = by_text["Betreff: Terminverschiebung 14. April"]
    assert german.timestamp == by_text["Shorter please, and in German"].timestamp
    assert hidden[0].timestamp == datetime.fromtimestamp(chatgpt_conversations()[0]["create_time"], UTC)
    assert german.reply_to == by_text["Shorter please, and in German"].source_id
    assert {m.sender for m in messages} == {"system", "You", "ChatGPT"}


def test_chatgpt_content_types_become_text_attachments_or_hidden():
    _, messages = read_all(chatgpt, CHATGPT)["Lisbon week itinerary"]  # every children list is empty
    kinds = [(m.sender, m.kind, m.text.split("\n")[0][:30]) for m in messages]
    assert kinds == [
        ("You", Kind.ATTACHMENT, "Here are our flights. Aylin an"),
        ("ChatGPT", Kind.TEXT, "from datetime import date"),
        ("python", Kind.TEXT, "7"),
        ("ChatGPT", Kind.TEXT, "You have 7 nights. A plan that"),
        ("You", Kind.TEXT, "Is Pena Palace open on Mondays"),
        ("ChatGPT", Kind.TEXT, 'search("Pena Palace opening da'),
        ("browser", Kind.TEXT, "# 【0†Park and Palace of Pena –"),
        ("browser", Kind.TEXT, "Park and Palace of Pena | Parq"),
        ("ChatGPT", Kind.HIDDEN, "Checking Monday opening"),
        ("ChatGPT", Kind.HIDDEN, "Thought for 4 seconds"),
        ("ChatGPT", Kind.TEXT, "Yes. Pena Palace is open every"),
    ]
    assert messages[0].text.endswith("\nIMG_4471.PNG")  # the uploaded file's name is searchable
    assert "open every day of the year except 25 December" in messages[7].text


def test_claude_keeps_thinking_hidden_and_attachments_searchable():
    chats = read_all(claude, CLAUDE)
    assert list(chats) == ["Moving checklist for 30 May", "Farewell card for Jonas", "Untitled conversation"]
    _, moving = chats["Moving checklist for 30 May"]
    assert [(m.sender, m.kind) for m in moving] == [
        ("You", Kind.ATTACHMENT),
        ("Claude", Kind.HIDDEN),
        ("Claude", Kind.TEXT),
        ("You", Kind.TEXT),
        ("Claude", Kind.TEXT),
    ]
    assert "[attachment: Mietvertrag_Schliemannstrasse21.pdf]\nWOHNRAUMMIETVERTRAG" in moving[0].text
    assert "Kaution: drei Nettokaltmieten" in moving[0].text
    assert moving[1].source_id == moving[2].source_id + ":thinking"
    assert moving[1].text.startswith("She moves on 30 May") and "She moves" not in moving[2].text
    _, farewell = chats["Farewell card for Jonas"]  # the older shape: text only
    assert farewell[1].text.startswith("Dear Jonas,")
    _, charger = chats["Untitled conversation"]  # an empty name; a null among the messages
    assert len(charger) == 4
    assert charger[1].text.startswith(
        "[tool use: web_search]\nPiriquita Sintra address\n[tool result: web_search]"
    )
    assert "Rua das Padarias 1, 2710-603 Sintra" in charger[1].text


# --- shown, indexed, re-imported ------------------------------------------------------------------------


def test_hidden_messages_are_stored_but_in_no_turn_and_not_found(tmp_path: Path):
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        for export in (CHATGPT, CLAUDE):
            assert import_file(archive, export, fmt="auto", tz=UTC).error is None
        stored = [r[0] for r in archive.db.execute("SELECT text FROM messages WHERE kind = 'hidden'")]
        assert len(stored) == 6 and any(t.startswith("Subject: Request to reschedule") for t in stored)
        turns = "\n".join(t.text for t in archive.iter_turns())
        index = Index.open(home)
        index.sync(archive)
        assert not search.search(archive, index, SearchRequest("respectfully obligation faithfully")).hits
        assert not search.search(archive, index, SearchRequest("thought seconds")).hits
        found = search.search(archive, index, SearchRequest("email reschedule dentist Okafor"))
        assert found.hits[0].chat.name == "Reschedule dentist appointment"
    assert "respectfully" not in turns and "She moves on 30 May" not in turns
    # A question and its answer are one turn; the conversation resumed three weeks later is a new session.
    assert "You: Shorter please, and in German\nChatGPT: Betreff" in turns


def test_sessions_of_a_conversation_are_cut_by_silences(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:
        result = import_file(archive, CHATGPT, fmt="auto", tz=UTC)
    counts = {c.name: (c.sessions, c.turns) for c in result.chats}
    assert counts["Reschedule dentist appointment"] == (2, 3)
    assert counts["Lisbon week itinerary"] == (1, 2)


def test_a_grown_conversation_adds_its_new_messages_to_the_same_chat(tmp_path: Path):
    convs = chatgpt_conversations()
    (tmp_path / "old").mkdir()
    first = write_json(tmp_path / "old" / "conversations.json", convs)
    grown = copy.deepcopy(convs)
    dentist = grown[0]
    added = [
        ("user", "Thanks! Was it the 6th at 9:00?", dentist["current_node"]),
        ("assistant", "No idea, sorry.", "new-0"),  # regenerated: a branch left behind, hidden
        ("assistant", "Yes, 6 May.", "new-0"),
    ]
    for n, (role, text, parent) in enumerate(added):
        nid = f"new-{n}"
        dentist["mapping"][nid] = {
            "id": nid,
            "parent": parent,
            "children": [],
            "message": {
                "id": nid,
                "author": {"role": role},
                "create_time": 1778050000.0 + n,
                "content": {"content_type": "text", "parts": [text]},
                "metadata": {},
            },
        }
    dentist["current_node"] = "new-2"
    (tmp_path / "new").mkdir()
    second = write_json(tmp_path / "new" / "conversations.json", grown)
    with Archive.open(tmp_path / "home") as archive:
        import_file(archive, first, fmt="auto", tz=UTC)
        again = import_file(archive, second, fmt="auto", tz=UTC)
        assert [(c.name, c.messages_added) for c in again.chats if c.messages_added] == [
            ("Reschedule dentist appointment", 3)
        ]
        assert len(archive.chats()) == 3
        turns = [t.text for t in archive.iter_turns()]
    # Sessions from the one the new messages follow on were cut again from the stored rows: hidden ones
    # stay out.
    assert "You: Thanks! Was it the 6th at 9:00?\nChatGPT: Yes, 6 May." in turns
    assert not any("No idea" in t for t in turns)


# --- hostile input --------------------------------------------------------------------------------------


def import_cli(home: Path, path: Path, *args: str) -> tuple[int, str]:
    r = runner.invoke(app, ["--home", str(home), "import", "--tz", "UTC", *args, str(path)])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.stderr
    return r.exit_code, r.stderr


CHATGPT_HEAD = '[{"id": "c1", "title": "t", "create_time": 1.0, "mapping": {'


@pytest.mark.parametrize(
    ("fmt", "body", "phrase"),
    [
        ("chatgpt", CHATGPT_HEAD + '"a": {"message": ' + "[" * 100_000, "nested more than 100 levels deep"),
        ("chatgpt", CHATGPT_HEAD + '"a": {"message": {"id": "a",,}}}}]', "invalid JSON"),
        ("chatgpt", CHATGPT_HEAD + '"a": {"message": {"id": "a"', "truncated JSON"),
        ("chatgpt", CHATGPT_HEAD + "}}] trailing", "invalid JSON"),
        ("chatgpt", '[{"id": "c1", "mapping": {"a": {"message": {"id": "a"}}}}]', "without a time"),
        ("chatgpt", '[{"title": "t", "mapping": {}}]', "[0]: a conversation without an id"),
        ("chatgpt", '[{"id": "c", "mapping": {}}, 7]', "[1]: a conversation is not a JSON object"),
        ("claude", '[{"uuid": "u", "chat_messages": [{"uuid": "m", "text": "hi"}]}]', "without a time"),
        ("claude", '[{"uuid": "u", "chat_messages": {"a": 1}}]', "[0].chat_messages: chat_messages is not a"),
        ("claude", '{"chat_messages": [] "x"}', "invalid JSON"),
        (
            "claude",
            b'[{"uuid": "u", "chat_messages": [{"text": "\xff"}]}]',
            "(lexical error: invalid bytes in UTF8 string)",
        ),
    ],
)
def test_broken_files_are_one_error_line(tmp_path: Path, fmt: str, body: str | bytes, phrase: str):
    path = tmp_path / "conversations.json"
    path.write_bytes(body.encode() if isinstance(body, str) else body)
    code, stderr = import_cli(tmp_path / "home", path, "--format", fmt)
    assert code == 2
    assert stderr.splitlines() == [stderr.strip()] and stderr.startswith(f"refind: error: {path}: ")
    assert phrase in stderr, stderr


def test_a_chatgpt_content_type_that_is_not_a_string_is_no_type(tmp_path: Path):
    # A list or an object is not hashable: the check against the hidden types once raised TypeError.
    mapping = {
        f"n{i}": {
            "parent": f"n{i - 1}" if i else None,
            "message": {
                "author": {"role": "user"},
                "create_time": 1.7e9 + i,
                "content": {"content_type": odd, "parts": [f"part {i}"]},
            },
        }
        for i, odd in enumerate((["thoughts"], {"a": 1}, 7))
    }
    path = write_json(
        tmp_path / "conversations.json", [{"id": "c", "current_node": "n2", "mapping": mapping}]
    )
    (export,) = list(chatgpt.read(path, tz=UTC))
    assert [(m.text, m.kind) for m in export.messages] == [(f"part {i}", Kind.TEXT) for i in range(3)]


def test_an_overlong_string_is_refused_quickly(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(conversations, "MAX_TOKEN", 2 << 20)
    path = tmp_path / "conversations.json"
    path.write_text(CHATGPT_HEAD + '"a": {"message": {"id": "' + "a" * (5 << 20) + '"}}}}]')
    with pytest.raises(InputError, match="runs past 2 MB"):
        [message for export in chatgpt.read(path, tz=UTC) for message in export.messages]


def test_a_zip_bomb_is_refused_by_the_safe_zip_reader(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(container, "RATIO_FLOOR_BYTES", 1 << 20)
    body = (CHATGPT_HEAD + "}}]").encode() + b" " * (8 << 20)  # deflates about a thousandfold
    path = tmp_path / "chatgpt.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("conversations.json", body)
    with pytest.raises(
        InputError, match=r"entry 'conversations.json': expands far beyond .* refusing a zip bomb"
    ):
        list(chatgpt.read(path, tz=UTC))


def test_a_zip_or_folder_without_conversations_is_one_error_line(tmp_path: Path):
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("user.json", "{}")
    code, stderr = import_cli(tmp_path / "home", path, "--format", "claude")
    assert (
        code == 2
        and stderr.strip()
        == f"refind: error: {path}: no conversations.json in this zip; not a Claude.ai data export"
    )


# --- properties -----------------------------------------------------------------------------------------

times = st.one_of(st.none(), st.floats(min_value=1e9, max_value=2e9))


@st.composite
def chatgpt_trees(draw: st.DrawFn) -> dict:
    """A conversation tree: each node's parent an earlier node; any message's time may be missing."""
    n = draw(st.integers(1, 12))
    mapping: dict[str, dict] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    ids = ["root"]
    for i in range(n):
        nid = f"n{i}"
        role = draw(st.sampled_from(["user", "assistant", "tool", "system"]))
        mapping[nid] = {
            "id": nid,
            "parent": draw(st.sampled_from(ids)),
            "children": [],
            "message": {
                "id": nid,
                "author": {"role": role},
                "create_time": draw(times),
                "content": {"content_type": "text", "parts": [draw(st.text(max_size=5))]},
                "metadata": {},
            },
        }
        ids.append(nid)
    current = draw(st.one_of(st.none(), st.sampled_from(ids)))
    return {"id": "c", "title": "t", "create_time": draw(times), "mapping": mapping, "current_node": current}


def _ancestors(mapping: dict, nid: str) -> list[str]:
    out = []
    while nid is not None:
        out.append(nid)
        nid = mapping[nid]["parent"]
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(conv=chatgpt_trees())
def test_chatgpt_tree_property(tmp_path: Path, conv: dict):
    path = write_json(tmp_path / "conversations.json", [conv])
    mapping = conv["mapping"]
    try:
        (export,) = list(chatgpt.read(path, tz=UTC))
        messages = list(export.messages)  # built as they are read
    except InputError as exc:
        # Only a conversation with no time anywhere on a message's way up may fail, and says so.
        assert "without a time" in str(exc) and conv["create_time"] is None
        return
    assert sorted(m.source_id for m in messages) == sorted(k for k in mapping if k != "root")
    current = conv["current_node"]
    path_ids = set(_ancestors(mapping, current)) if current else None
    for m in messages:
        node = mapping[m.source_id]
        if path_ids is not None and m.source_id not in path_ids:
            assert m.kind == Kind.HIDDEN  # off the branch last seen
        # The node's own time, else the nearest ancestor's, else the conversation's: never the clock's.
        known = [
            mapping[a]["message"]["create_time"] for a in _ancestors(mapping, m.source_id) if a != "root"
        ]
        expected = next((t for t in known if t is not None), conv["create_time"])
        assert m.timestamp == datetime.fromtimestamp(expected, UTC)
        assert m.reply_to == (node["parent"] if node["parent"] != "root" else None)


blocks = st.lists(
    st.one_of(
        st.none(),
        st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=5)}),
        st.fixed_dictionaries({"type": st.just("thinking"), "thinking": st.text(max_size=5)}),
        st.fixed_dictionaries(
            {
                "type": st.just("tool_use"),
                "name": st.text(max_size=3),
                "input": st.dictionaries(st.text(max_size=2), st.text(max_size=3), max_size=2),
            }
        ),
    ),
    max_size=4,
)
claude_entries = st.lists(
    st.one_of(
        st.none(),
        st.builds(
            lambda content, text, minute: {
                "content": content,
                "text": text,
                "sender": "human",
                "created_at": f"2026-01-01T10:{minute:02d}:00Z",
            },
            st.one_of(st.none(), blocks),
            st.text(max_size=5),
            st.integers(0, 59),
        ),
    ),
    max_size=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=claude_entries)
def test_claude_messages_property(tmp_path: Path, entries: list):
    for i, entry in enumerate(entries):
        if entry is not None:
            entry["uuid"] = f"m{i}"
    # A null where a conversation belongs is passed over too.
    path = write_json(
        tmp_path / "conversations.json", [None, {"uuid": "c", "name": "", "chat_messages": entries}]
    )
    (export,) = list(claude.read(path, tz=UTC))
    messages = list(export.messages)
    shown = [m for m in messages if m.kind != Kind.HIDDEN]
    # One message per entry, in order, nulls skipped; one hidden message more per thinking block.
    assert [m.source_id for m in shown] == [e["uuid"] for e in entries if e is not None]
    thinking = [
        b for e in entries if e is not None for b in (e["content"] or []) if b and b["type"] == "thinking"
    ]
    assert len(messages) - len(shown) == len(thinking)


@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 500])
def test_the_chunk_size_never_changes_what_is_read(tmp_path: Path, monkeypatch, chunk: int, bom: bool):
    path = tmp_path / "conversations.json"
    with zipfile.ZipFile(CHATGPT) as zf:
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + zf.read("conversations.json"))
    whole = [(e.chat, list(e.messages)) for e in chatgpt.read(path, tz=UTC)]
    monkeypatch.setattr(container, "CHUNK", chunk)
    assert [(e.chat, list(e.messages)) for e in chatgpt.read(path, tz=UTC)] == whole


# --- large files ------------------------------------------------------------------------------------------


def big_chatgpt(n_conversations: int, per_conversation: int) -> bytes:
    out = io.BytesIO()
    out.write(b"[")
    for c in range(n_conversations):
        conv = chatgpt_chain(f"c{c}", ["lisbon dentist flat move " * 20] * per_conversation, 1.7e9 + c * 1000)
        out.write((b"," if c else b"") + json.dumps(conv).encode())
    out.write(b"]")
    return out.getvalue()


def _peak_reading(path: Path) -> tuple[int, int]:
    tracemalloc.start()
    try:
        n = sum(1 for e in chatgpt.read(path, tz=UTC) for _ in e.messages)
        return n, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_file_is_read_one_conversation_at_a_time(tmp_path: Path):
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    small.write_bytes(big_chatgpt(100, 20))  # 1.5 MB
    large.write_bytes(big_chatgpt(600, 20))  # 8.7 MB
    n_small, peak_small = _peak_reading(small)
    n_large, peak_large = _peak_reading(large)
    assert (n_small, n_large) == (2_000, 12_000)
    # A conversation, the parser's block and the file's chunk: the same whatever the file's size.
    assert peak_large < peak_small + (1 << 20), (peak_small, peak_large)


def test_an_unpacked_export_in_a_folder_of_exports_is_one_export(tmp_path: Path):
    root = tmp_path / "exports"
    shutil.copytree(CLAUDE, root / "claude-export")
    unpacked = root / "chatgpt"
    with zipfile.ZipFile(CHATGPT) as zf:
        zf.extractall(unpacked)
    shutil.copy(CHATGPT, root)
    r = runner.invoke(app, ["--home", str(tmp_path / "home"), "import", "--tz", "UTC", "--json", str(root)])
    assert r.exit_code == 0, r.stderr  # users.json, projects.json, user.json, chat.html: not looked at
    files = {Path(f["path"]).name: (f["format"], len(f["chats"])) for f in json.loads(r.stdout)["files"]}
    assert files == {
        "chatgpt": ("chatgpt", 3),
        "chatgpt-export.zip": ("chatgpt", 3),
        "claude-export": ("claude", 3),
    }
