"""Issue 26 item 2, session 15: the index's turns handed to tantivy as JSON documents, the import's writer with
the cycle collector paused, and the cheaper time-range check of ``read_export``: each the same result as
before, by another road."""

from __future__ import annotations

import gc
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
import tantivy
from hypothesis import given
from hypothesis import strategies as st
from test_index_analysed import FIELDS
from test_index_analysed import archive as archive  # a fixture

from refind_cli import importers
from refind_cli.errors import input_warnings
from refind_cli.index import chat_analyzers
from refind_cli.index.analysed import _analysed, json_documents
from refind_cli.index.tantivy_backend import INDEX_THREADS, WRITER_HEAP, TantivyIndex, build_schema
from refind_cli.ingest import import_file
from refind_cli.ingest import worker as ingest_worker
from refind_cli.records import TIMES, Message
from refind_cli.storage.archive import Archive

_I64 = st.integers(-(2**63), 2**63 - 1)
# Any text SQLite can hold (no lone surrogates): quotes, backslashes, control characters, emoji, CJK.
_TEXT = st.text(st.characters(exclude_categories=("Cs",)))


@given(st.lists(st.tuples(_I64, _I64, _I64, _I64, _TEXT, _TEXT), max_size=5))
def test_a_turns_document_is_the_json_object_of_its_fields(turns: list[tuple[int, int, int, int, str, str]]):
    docs = json_documents(FIELDS)(turns)
    assert [json.loads(doc) for doc in docs] == [dict(zip(FIELDS, turn, strict=True)) for turn in turns]
    assert docs == [
        json.dumps(dict(zip(FIELDS, t, strict=True)), ensure_ascii=False, separators=(",", ":"))
        for t in turns
    ]


def test_json_documents_index_as_documents_built_field_by_field(empty_home: Path, archive: Archive) -> None:
    """The index ``sync`` builds (JSON documents, ``add_json``) finds, scores and reads back every turn as an
    index of the same turns added as ``tantivy.Document``s, field by field, does."""
    index = TantivyIndex.open(empty_home)
    assert index.sync(archive) == archive.counts()["turns"]
    schema = build_schema()
    by_fields = tantivy.Index(schema)
    writer = by_fields.writer(heap_size=WRITER_HEAP, num_threads=INDEX_THREADS)
    others = chat_analyzers(index, archive)
    for sess, ordinal, chat, ts, speaker, terms in _analysed(archive, None, index.analyzer, others, True):
        doc = tantivy.Document()
        doc.add_text("text", terms)
        doc.add_text("speaker", speaker)
        doc.add_integer("sess", sess)
        doc.add_integer("ts", ts)
        doc.add_integer("chat", chat)
        doc.add_integer("turn", ordinal)
        writer.add_document(doc)
    writer.commit()
    by_fields.reload()
    index.refresh()
    mine, theirs = index._index.searcher(), by_fields.searcher()
    assert mine.num_docs == theirs.num_docs == archive.counts()["turns"]
    queries = {
        "terms": [
            tantivy.Query.term_query(schema, "text", t)
            for t in ("dentist", "wohnung", "run", "東京", "🎉", "ana")
        ],
        "speaker": [tantivy.Query.term_set_query(schema, "speaker", ["Ana", "Dora"])],
        "chat": [tantivy.Query.term_set_query(schema, "chat", [2, 3])],
        "time": [tantivy.Query.range_query(schema, "ts", tantivy.FieldType.Integer, 0, 1_767_300_000)],
    }
    # A phrase of two terms some turn holds one after the other.
    some = next(t for t in _analysed(archive, None, index.analyzer, others, True) if t[5].count(" ") > 2)
    queries["phrase"] = [tantivy.Query.phrase_query(schema, "text", some[5].split()[1:3])]
    for name, made in queries.items():
        for q in made:
            found = []
            for searcher in (mine, theirs):
                hits = searcher.search(q, 1000).hits
                addrs = [a for _s, a in hits]
                fields = [searcher.fast_field_values(f, addrs) for f in ("sess", "turn", "chat", "ts")]
                found.append(sorted(zip([s for s, _a in hits], *fields, strict=True)))
            assert found[0] and found[0] == found[1], name


def test_the_writer_stores_a_workers_rows_with_the_collector_paused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = tmp_path / "chat.txt"
    export.write_text(
        "".join(f"02/03/2024, 10:{i:02d} - Ana: message {i}\n" for i in range(60)), encoding="utf-8"
    )
    during: list[bool] = []
    write_chat = ingest_worker.write_chat

    def spy(*args, **kw):  # type: ignore[no-untyped-def]
        during.append(gc.isenabled())
        return write_chat(*args, **kw)

    monkeypatch.setattr(ingest_worker, "write_chat", spy)
    assert gc.isenabled()
    with Archive.open(tmp_path / "home") as arch:
        result = import_file(arch, export, tz=UTC, worker=True)
    assert result.error is None and result.chats[0].messages_added == 60
    assert during == [False] and gc.isenabled()


_ZONES = st.sampled_from(
    [
        UTC,
        timezone(timedelta(hours=14)),
        timezone(timedelta(hours=-12)),
        timezone(timedelta(hours=5, minutes=30)),
    ]
)
_NEAR = st.sampled_from([datetime(1970, 1, 1), datetime(2199, 12, 31, 23, 59), datetime(2100, 6, 1)])


@given(st.lists(st.tuples(_NEAR, st.integers(-30 * 60, 30 * 60), _ZONES), min_size=1, max_size=6))
def test_the_time_range_check_keeps_what_lies_in_range_in_any_zone(
    stamps: list[tuple[datetime, int, timezone]],
):
    """Times a day either side of the bounds, in zones 14 hours either way: the year-first check keeps and
    clamps exactly what comparing the instants does, and warns for the same messages."""
    low, high = TIMES
    messages = [
        Message((at + timedelta(minutes=m)).replace(tzinfo=zone), "Ana", "hi") for at, m, zone in stamps
    ]
    told: list[str] = []
    with input_warnings(told.append):
        kept = list(importers._representable(Path("x.txt"), "Chat", messages))
    assert [m.timestamp for m in kept] == [min(max(m.timestamp, low), high) for m in messages]
    outside = [n for n, m in enumerate(messages, 1) if not low <= m.timestamp <= high]
    assert [int(line.split("message ")[1].split(":")[0]) for line in told] == outside
