"""Should an assistant conversation (ChatGPT, Claude) be one session, or be cut by silences?

LongMemEval-S stands in for a person's assistant chats: each haystack session is a conversation with an
assistant, dated. Real exports also hold conversations that are resumed days later; to stand for those,
consecutive haystack sessions (by date) are chained into one conversation of ``--chain`` sessions, each
message a minute after the one before inside its haystack session. Then three ways to cut:

- ``source``: each haystack session its own session (the ideal the benchmark defines),
- ``conversation``: the conversation id as an explicit thread, one session per conversation,
- ``silence``: the conversation cut wherever a silence is longer than the session gap (1 hour).

Score: one search per question (K=5, W=2, exchange turns); the haystack sessions of the top 5 hits' own turns,
and whether any / all answer sessions are among them (abstention questions excluded). Also printed: how many
conversations the silence cut splits, and into how many pieces against the haystack sessions they hold.

    python bench/assistant_sessions.py [--longmemeval PATH] [--chain 3]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# ruff: noqa: E402  (the imports below need the path above)

from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_chat
from refind_cli.method.benchmarks import Question, load_questions
from refind_cli.method.search import search
from refind_cli.records import Message
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

K = 5
GAP = timedelta(hours=1)
WAYS = ("source", "conversation", "silence")


def _threads(messages: tuple[Message, ...], chain: int, way: str) -> list[Message]:
    """The haystack's messages with the thread each way gives them. A haystack that holds a session twice
    keeps its first copy."""
    kept: dict[str | None, Message] = {}
    for m in messages:
        kept.setdefault(m.source_id, m)
    messages = tuple(kept.values())
    if way == "source":
        return list(messages)
    first: dict[str, Message] = {}
    for m in messages:
        first.setdefault(str(m.thread), m)
    order = sorted(first, key=lambda sid: (first[sid].timestamp, sid))
    conversation = {sid: f"c{n // chain}" for n, sid in enumerate(order)}
    by_conv: dict[str, list[Message]] = defaultdict(list)
    for m in messages:
        by_conv[conversation[str(m.thread)]].append(m)
    out: list[Message] = []
    for conv, ms in by_conv.items():
        ms.sort(key=lambda m: m.timestamp)
        piece, last = 0, None
        for m in ms:
            if way == "silence" and last is not None and m.timestamp - last > GAP:
                piece += 1
            last = m.timestamp
            out.append(m._replace(thread=conv if way == "conversation" else f"{conv}.{piece}"))
    return out


def _score(work: Path, questions: list[Question], messages: list[Message]) -> tuple[list[float], list[float]]:
    any_, all_ = [], []
    haystack = questions[0].haystack
    with Archive.open(work) as archive:
        import_chat(archive, haystack.chat, messages, pairing="exchange")
        index = Index.open(work)
        index.sync(archive)
        sources = archive.turn_source_ids()
        for q in questions:
            if q.abstention or not q.evidence:
                continue
            found: list[str] = []
            for hit in search(archive, index, SearchRequest(q.question, k=K, window=2)).hits:
                for source in sorted(sources.get(hit.turn.id, ())):
                    sid = source.rsplit("#", 1)[0]
                    if sid not in found:
                        found.append(sid)
            top, gold = set(found[:K]), set(q.evidence)
            any_.append(float(bool(gold & top)))
            all_.append(float(gold <= top))
    shutil.rmtree(work)
    return any_, all_


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--longmemeval", type=Path, default=REPO / "../shared/data/longmemeval_s_dev60.jsonl.gz")
    ap.add_argument("--chain", type=int, default=3)
    args = ap.parse_args()
    by_haystack: dict[str, list[Question]] = defaultdict(list)
    for q in load_questions(args.longmemeval):
        by_haystack[q.haystack.key].append(q)
    scores: dict[str, tuple[list[float], list[float]]] = {way: ([], []) for way in WAYS}
    conversations = split = pieces = sources_in_split = 0
    work = Path(tempfile.mkdtemp(prefix="refind-assistant-sessions-"))
    try:
        for n, questions in enumerate(by_haystack.values()):
            for way in WAYS:
                messages = _threads(questions[0].haystack.messages, args.chain, way)
                if way == "silence":
                    per_conv: dict[str, set[str]] = defaultdict(set)
                    for m in messages:
                        per_conv[str(m.thread).split(".")[0]].add(str(m.thread))
                    held: dict[str, set[str]] = defaultdict(set)
                    for m in messages:
                        held[str(m.thread).split(".")[0]].add(str(m.source_id).rsplit("#", 1)[0])
                    conversations += len(per_conv)
                    for conv, ps in per_conv.items():
                        if len(ps) > 1:
                            split += 1
                            pieces += len(ps)
                            sources_in_split += len(held[conv])
                a, b = _score(work / f"h{n}-{way}", questions, messages)
                scores[way][0].extend(a)
                scores[way][1].extend(b)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    n_q = len(scores["source"][0])
    print(f"LongMemEval-S dev: {n_q} questions, conversations of {args.chain} haystack sessions, gap {GAP}")
    print(
        f"silence cut: {split} of {conversations} conversations split, into {pieces} pieces "
        f"(they hold {sources_in_split} haystack sessions)"
    )
    print(f"| {'sessions are':14s} | recall_any@{K} | recall_all@{K} |")
    for way in WAYS:
        a, b = scores[way]
        print(f"| {way:14s} | {sum(a) / len(a):12.3f} | {sum(b) / len(b):12.3f} |")


if __name__ == "__main__":
    main()
