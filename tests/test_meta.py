"""Messenger and Instagram exports (refind_cli/importers/meta.py): layouts, mojibake, order, kinds, copies,
identity across two exports, hostile files, and the samples."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import INSTAGRAM, MESSENGER, SAMPLES
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # registers the commands (and search below)
import refind_cli.frontends.cli.search  # noqa: F401
from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.frontends.cli import app
from refind_cli.importers import meta
from refind_cli.ingest import import_file
from refind_cli.records import Kind
from refind_cli.storage.archive import Archive

sys.path.insert(0, str(SAMPLES))
import generate_meta

runner = CliRunner()
T0 = 1_783_000_000_000  # 2026-07-02, in milliseconds


def mojibake(text: str) -> str:
    return text.encode("utf-8").decode("latin-1")


def thread(messages: list[dict], title: str = "Aylin Demir", path: str = "inbox/aylin_1", **extra) -> bytes:
    """A message file as Meta writes it: mojibake, newest first, ASCII escapes."""
    data = {
        "participants": [{"name": mojibake(title)}, {"name": "Maya Lindqvist"}],
        "messages": sorted(messages, key=lambda m: -m.get("timestamp_ms", 0)),
        "title": mojibake(title),
        "is_still_participant": True,
        "thread_path": path,
        "magic_words": [],
        **extra,
    }
    return json.dumps(data, indent=2, ensure_ascii=True).encode()


def msg(ms: int, text: str | None = None, sender: str = "Aylin Demir", **extra) -> dict:
    out: dict = {"sender_name": mojibake(sender), "timestamp_ms": ms}
    if text is not None:
        out["content"] = mojibake(text)
    return {**out, **extra, "is_geoblocked_for_viewer": False}


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def read(path: Path, fmt: str = "auto") -> list[tuple[str, str, list]]:
    return [(e.chat.source, e.chat.key, list(e.messages)) for e in importers.read_export(path, fmt, UTC)]


def texts(path: Path) -> list[str]:
    return [m.text for _, _, messages in read(path) for m in messages]


# --- mojibake ----------------------------------------------------------------------------------------


def test_mojibake_is_repaired_and_text_that_does_not_round_trip_stays():
    assert meta.repair("Cze\u00c5\u009b\u00c4\u0087") == "Cze\u015b\u0107"
    assert meta.repair("\u00f0\u009f\u0098\u0082") == "\U0001f602"
    for proper in ("Cze\u015b\u0107", "caf\u00e9", "\u00e9", "plain", "", "\u4e2d\u6587", "\ud83d"):
        assert meta.repair(proper) == proper


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_repair_undoes_mojibake_of_any_text(text: str):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate has no UTF-8 bytes for Meta to mangle
        return
    assert meta.repair(mojibake(text)) == text


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_repair_leaves_text_that_is_not_mojibake(text: str):
    repaired = meta.repair(text)
    assert repaired == text or mojibake(repaired) == text


# --- layouts and services -------------------------------------------------------------------------------


def test_the_samples_are_the_generated_ones_and_name_their_service(tmp_path: Path):
    generate_meta.write(tmp_path)
    assert (tmp_path / MESSENGER.name).read_bytes() == MESSENGER.read_bytes()
    made = sorted(p.relative_to(tmp_path) for p in (tmp_path / INSTAGRAM.name).rglob("*") if p.is_file())
    kept = sorted(p.relative_to(SAMPLES) for p in INSTAGRAM.rglob("*") if p.is_file())
    assert made == kept
    assert all((tmp_path / p).read_bytes() == (SAMPLES / p).read_bytes() for p in made)
    assert importers.detect(MESSENGER) == "messenger"
    assert importers.detect(INSTAGRAM) == "instagram"


def test_every_message_of_every_file_is_read_once_in_time_order_and_repaired():
    with zipfile.ZipFile(MESSENGER) as zf:
        written = {
            n.split("/")[-2]: len(json.loads(zf.read(n))["messages"])
            for n in zf.namelist()
            if n.endswith("_1.json")
        }
        written["aylindemir_10159384726154832"] += len(
            json.loads(zf.read(next(n for n in zf.namelist() if n.endswith("_2.json"))))["messages"]
        )
    got, names = {}, {}
    for e in importers.read_export(MESSENGER, "auto", UTC):
        got[e.chat.key] = list(e.messages)
        names[e.chat.key] = (e.chat.name, e.chat.source, e.chat.kind)
    assert {k: len(v) for k, v in got.items()} == written
    aylin = got["aylindemir_10159384726154832"]
    assert [m.timestamp for m in aylin] == sorted(m.timestamp for m in aylin)
    assert names["inescarvalho_10160011223344556"] == ("In\u00eas Carvalho", "messenger", "direct")
    ines = [m.text for m in got["inescarvalho_10160011223344556"]]
    assert "A chave est\u00e1 no cofre ao lado da porta, o c\u00f3digo \u00e9 4711." in ines[1]
    assert {m.sender for m in aylin} == {"Aylin Demir", "Maya Lindqvist"}
    assert all(m.source_id is None and m.local_time is None for m in aylin)


def aylin() -> list:
    return next(ms for _, key, ms in read(MESSENGER) if key.startswith("aylin"))


def test_kinds_flag_what_is_not_plain_text():
    by_text = {m.text: m.kind for m in aylin()}
    assert by_text["missed call"] == Kind.SYSTEM
    assert by_text["call, 4 min 23 s"] == Kind.SYSTEM
    assert by_text["sticker"] == Kind.ATTACHMENT
    assert by_text[""] == Kind.DELETED  # the unsent one
    assert by_text["audio 10159384726154832_3.mp4"] == Kind.ATTACHMENT
    assert by_text["the view from Santa Luzia\nvideo 10159384726154832_2.mp4"] == Kind.ATTACHMENT
    assert "https://www.parquesdesintra.pt" in next(t for t in by_text if t.startswith("tickets"))
    assert by_text["taxi or metro?"] == Kind.TEXT
    kasia = [m for _, _, ms in read(INSTAGRAM) for m in ms]
    assert [m.kind for m in kasia if not m.text] == [Kind.MEDIA]  # Instagram's unavailable message
    assert kasia[0].sender == "Kasia Wi\u015bniewska"


def test_reactions_are_kept_in_the_raw_record_only():
    taxi = next(m for m in aylin() if m.text == "taxi or metro?")
    assert json.loads(taxi.raw)["reactions"][0]["actor"] == "Aylin Demir"


@pytest.mark.parametrize(
    "layout",
    [
        "messages/inbox/aylin_1",
        "your_facebook_activity/messages/archived_threads/aylin_1",
        "facebook-maya/messages/filtered_threads/aylin_1",
        "your_facebook_activity/messages/message_requests/aylin_1",
        "your_facebook_activity/messages/e2ee_cutover/aylin_1",
    ],
)
def test_every_layout_and_category_reads_from_the_root_or_any_folder_down_to_the_thread(
    tmp_path: Path, layout: str
):
    root = write(tmp_path / "export", {f"{layout}/message_1.json": thread([msg(T0, "oi")])})
    # The export is the folder that holds messages/ or your_facebook_activity/: the root, or facebook-maya/.
    top = root if layout.startswith(("messages/", "your_")) else root / layout.split("/")[0]
    folder = root / layout
    while True:
        assert [(s, k, [m.text for m in ms]) for s, k, ms in read(folder)] == [
            ("messenger", "aylin_1", ["oi"])
        ]
        if folder == top:
            break
        folder = folder.parent
    assert list(importers.exports_in(root)) == [top]
    assert texts(root / layout / "message_1.json") == ["oi"]


def test_instagram_is_told_by_its_paths(tmp_path: Path):
    body = thread([msg(T0, "cze\u015b\u0107")])
    newer = write(tmp_path / "a", {"your_instagram_activity/messages/inbox/kasia_1/message_1.json": body})
    older = write(tmp_path / "instagram-maya-2026-10-05", {"messages/inbox/kasia_1/message_1.json": body})
    assert importers.detect(newer) == importers.detect(older) == "instagram"
    assert importers.detect(older / "messages/inbox/kasia_1") == "instagram"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("your_instagram_activity/messages/inbox/kasia_1/message_1.json", body)
    (tmp_path / "export.zip").write_bytes(buffer.getvalue())
    assert importers.detect(tmp_path / "export.zip") == "instagram"
    # A forced format is obeyed: the chat's source is the importer's name.
    assert read(newer, "messenger")[0][0] == "messenger"


def test_files_of_a_thread_merge_newest_first_files_and_copies_once(tmp_path: Path):
    old = [msg(T0 + i * 60_000, f"old {i}") for i in range(3)]
    new = [msg(T0 + (10 + i) * 60_000, f"new {i}") for i in range(3)]
    twice = msg(T0 + 20 * 60_000, "ha")
    root = write(
        tmp_path / "t",
        {
            "messages/inbox/aylin_1/message_1.json": thread([*new, twice, twice]),
            "messages/inbox/aylin_1/message_1 (2).json": thread([*new, twice, twice]),
            "messages/inbox/aylin_1/message_2.json": thread(old),
            "messages/archived_threads/aylin_1/message_2.json": thread(old[1:]),
        },
    )
    assert texts(root) == ["old 0", "old 1", "old 2", "new 0", "new 1", "new 2", "ha", "ha"]


def test_seconds_in_timestamp_ms_are_decided_per_file(tmp_path: Path):
    seconds = write(
        tmp_path / "s", {"message_1.json": thread([msg(T0 // 1000, "a"), msg(T0 // 1000 + 5, "b")])}
    )
    millis = write(tmp_path / "m", {"message_1.json": thread([msg(T0, "a"), msg(T0 + 5000, "b")])})
    [(_, _, a)], [(_, _, b)] = read(seconds), read(millis)
    assert [m.timestamp for m in a] == [m.timestamp for m in b]
    assert a[0].timestamp.year == 2026


# --- identity ------------------------------------------------------------------------------------------


def test_a_thread_that_grew_between_exports_adds_only_its_new_messages(tmp_path: Path):
    first = [msg(T0 + i * 1000, f"m{i}", reactions=[]) for i in range(5)] + [msg(T0 + 5000, "m4")]
    grown = [*first, msg(T0 + 9000, "later")]
    # The second export lists a reaction added since, and the thread has moved to the archive.
    grown[0] = {**grown[0], "reactions": [{"reaction": mojibake("\u2764"), "actor": "Maya Lindqvist"}]}
    a = write(tmp_path / "a", {"messages/inbox/aylin_1/message_1.json": thread(first)})
    b = write(
        tmp_path / "b",
        {
            "your_facebook_activity/messages/archived_threads/aylin_1/message_1.json": thread(
                grown, path="archived_threads/aylin_1"
            )
        },
    )
    with Archive.open(tmp_path / "home") as archive:
        one = import_file(archive, a, tz=UTC)
        two = import_file(archive, b, tz=UTC)
        assert [c.messages_added for c in one.chats] == [6]
        assert [(c.messages_added, c.messages_skipped) for c in two.chats] == [(1, 6)]
        assert [c.info.name for c in archive.chats()] == ["Aylin Demir"]


# --- hostile files -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (b'{"participants": [], "messages": [', "invalid JSON"),
        (b"[1, 2]", "the top level is not a JSON object"),
        (b'{"participants": [], "messages": {}}', "messages is not a list"),
        (b'{"participants": [], "messages": [7]}', "a message is not a JSON object"),
        (b'{"participants": [], "messages": [{"sender_name": "a"}]}', "no valid timestamp_ms"),
        (b'{"participants": [], "messages": [{"timestamp_ms": NaN}]}', "out of range"),
        (b'{"participants": [], "messages": [{"timestamp_ms": 1e300}]}', "out of range"),
        (b'{"participants": [], "messages": [{"timestamp_ms": true}]}', "no valid timestamp_ms"),
        (
            b'{"participants": [], "messages": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}",
            "nested too deeply",
        ),
        (b'{"participants": [], "messages": [], "x": "\xff"}', "invalid UTF-8"),
    ],
)
def test_a_broken_file_is_one_error_naming_the_place(tmp_path: Path, body: bytes, what: str):
    root = write(tmp_path / "e", {"messages/inbox/aylin_1/message_1.json": body})
    with pytest.raises(InputError, match=what) as caught:
        read(root)
    assert caught.value.path.endswith("message_1.json")


def test_a_type_that_is_not_a_string_is_no_type(tmp_path: Path):
    # A list or an object is not hashable: the check against the system types once raised TypeError.
    odd = [msg(T0, "one", type=["Subscribe"]), msg(T0 + 1000, "two", type={"a": 1}), msg(T0 + 2000, type=[])]
    root = write(tmp_path / "t", {"messages/inbox/aylin_1/message_1.json": thread(odd)})
    [(_, _, messages)] = read(root)
    assert [(m.text, m.kind) for m in messages] == [("one", Kind.TEXT), ("two", Kind.TEXT), ("", Kind.MEDIA)]


def test_lone_surrogates_and_huge_strings_are_stored_or_refused(tmp_path: Path, monkeypatch):
    body = b'{"participants": [{"name": "\\ud83d"}], "messages": [{"sender_name": "\\ud83d", "timestamp_ms": '
    body += str(T0).encode() + b', "content": "a\\udc00b"}], "title": "\\udfff"}'
    root = write(tmp_path / "s", {"message_1.json": body})
    [export] = importers.read_export(root, "auto", UTC)
    export.chat.name.encode("utf-8")
    for _, _, messages in read(root):
        for m in messages:
            for value in (m.text, m.raw, m.sender or ""):
                value.encode("utf-8")
    monkeypatch.setattr(meta, "MAX_FILE_BYTES", 1000)
    body = thread([msg(T0, "x" * 2000)])
    big = write(tmp_path / "big", {"message_1.json": body})
    with pytest.raises(InputError, match="larger than"):
        read(big)
    zipped = tmp_path / "big.zip"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("messages/inbox/aylin_1/message_1.json", body)
    with pytest.raises(InputError, match="larger than"):
        read(zipped)


def test_a_broken_export_is_one_error_line_and_exit_code_2(tmp_path: Path):
    root = write(tmp_path / "e", {"messages/inbox/aylin_1/message_1.json": b'{"messages": [}'})
    r = runner.invoke(app, ["--home", str(tmp_path / "home"), "import", "--format", "messenger", str(root)])
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        f"refind: error: {root}/messages/inbox/aylin_1/message_1.json: line 1 column 15: invalid JSON (Expecting value)"
    ]


# --- end to end ----------------------------------------------------------------------------------------


def test_the_samples_import_and_search_finds_repaired_portuguese(tmp_path: Path):
    home = str(tmp_path / "home")
    r = runner.invoke(app, ["--home", home, "import", "--json", str(MESSENGER), str(INSTAGRAM)])
    assert r.exit_code == 0, r.output
    files = json.loads(r.stdout)["files"]
    assert [f["format"] for f in files] == ["messenger", "instagram"]
    assert sum(c["messages_added"] for f in files for c in f["chats"]) == 38 + 12
    # The demo query: a word whose letters exist only once the mojibake is repaired.
    r = runner.invoke(app, ["--home", home, "search", "--json", "anfitri\u00e3"])
    [hit] = json.loads(r.stdout)["results"]
    assert hit["chat"] == {"id": hit["chat"]["id"], "name": "In\u00eas Carvalho", "source": "messenger"}
    assert "A chave est\u00e1 no cofre" in hit["text"]
