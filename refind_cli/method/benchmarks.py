"""The benchmark files `refind eval` reads: LongMemEval (.json, .jsonl, gzipped or not) and LoCoMo (.json),
as questions, each with the haystack of chats it is asked over and its gold evidence. Reading only: a
haystack becomes an archive in ``evaluate``."""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError
from refind_cli.records import Chat, Message

LONGMEMEVAL = "longmemeval"
LOCOMO = "locomo"


@dataclass(frozen=True, slots=True)
class Haystack:
    key: str
    chat: Chat
    messages: tuple[Message, ...]
    pairing: str


@dataclass(frozen=True, slots=True)
class Question:
    qid: str
    benchmark: str
    question: str
    answer: str
    category: str
    asked_at: datetime
    haystack: Haystack
    evidence: tuple[str, ...]  # LoCoMo dia_ids, or LongMemEval answer session ids
    abstention: bool


def _lme_time(text: str, path: Path, where: str) -> datetime:
    """LongMemEval dates like "2023/05/28 (Sun) 19:47", read as UTC."""
    try:
        return datetime.strptime(re.sub(r"\s*\(\w+\)\s*", " ", text).strip(), "%Y/%m/%d %H:%M").replace(
            tzinfo=UTC
        )
    except (TypeError, ValueError):
        raise InputError(path, f"unreadable date {text!r}", where) from None


def _locomo_time(text: str, path: Path, where: str) -> datetime:
    """LoCoMo dates like "1:56 pm on 8 May, 2023", read as UTC."""
    try:
        return datetime.strptime(" ".join(str(text).split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except (TypeError, ValueError):
        raise InputError(path, f"unreadable session date {text!r}", where) from None


def _records(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, object) for every top-level record of a .json (a list) or .jsonl file, gzipped or not."""
    opener = gzip.open if path.suffix == ".gz" else open
    name = path.name.removesuffix(".gz")
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            if name.endswith(".jsonl"):
                for n, line in enumerate(fh, 1):
                    if line.strip():
                        try:
                            yield f"line {n}", json.loads(line)
                        except json.JSONDecodeError as err:
                            raise InputError(path, f"invalid JSON ({err.msg})", f"line {n}") from None
                return
            try:
                data = json.load(fh)
            except json.JSONDecodeError as err:
                raise InputError(path, f"invalid JSON ({err.msg})", f"line {err.lineno}") from None
    except OSError as err:
        raise InputError(path, f"cannot read ({err.strerror or err})") from None
    except (EOFError, zlib.error):
        # gzip raises these (not OSError) for a download cut short or a damaged file.
        raise InputError(path, "the compressed data is cut short or damaged") from None
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text (byte {err.start} of a chunk)") from None
    items = data if isinstance(data, list) else [data]
    for i, item in enumerate(items):
        yield f"[{i}]", item


def load_questions(path: Path, *, limit: int | None = None) -> list[Question]:
    """Every question of a LongMemEval or LoCoMo file, in file order (the first ``limit``)."""
    out: list[Question] = []
    for where, record in _records(path):
        if not isinstance(record, dict):
            raise InputError(path, "expected a JSON object", where)
        if "question_id" in record:
            out.append(_longmemeval(record, path, where))
        elif "conversation" in record and "qa" in record:
            out.extend(_locomo(record, path, where))
        else:
            raise InputError(path, "neither a LongMemEval question nor a LoCoMo conversation", where)
        if limit is not None and len(out) >= limit:
            return out[:limit]
    if not out:
        raise InputError(path, "no questions")
    return out


def _field(record: dict, key: str, kind: type, path: Path, where: str) -> Any:
    value = record.get(key)
    if not isinstance(value, kind):
        raise InputError(path, f"missing or invalid {key!r}", where)
    return value


def _longmemeval(record: dict, path: Path, where: str) -> Question:
    qid = str(_field(record, "question_id", str, path, where))
    ids = _field(record, "haystack_session_ids", list, path, where)
    dates = _field(record, "haystack_dates", list, path, where)
    sessions = _field(record, "haystack_sessions", list, path, where)
    if not len(ids) == len(dates) == len(sessions):
        raise InputError(path, "haystack ids, dates and sessions differ in length", where)
    messages: list[Message] = []
    for n, (sid, day, turns) in enumerate(zip(ids, dates, sessions, strict=True)):
        at = _lme_time(day, path, f"{where}.haystack_dates[{n}]")
        if not isinstance(turns, list):
            raise InputError(path, "a session must be a list of messages", f"{where}.haystack_sessions[{n}]")
        for i, m in enumerate(turns):
            if not isinstance(m, dict) or not isinstance(m.get("content"), str):
                raise InputError(
                    path, "a message needs role and content", f"{where}.haystack_sessions[{n}][{i}]"
                )
            messages.append(
                Message(
                    at + timedelta(minutes=i),
                    str(m.get("role") or "user"),
                    m["content"],
                    source_id=f"{sid}#{i}",
                    thread=str(sid),
                )
            )
    haystack = Haystack(qid, Chat(LONGMEMEVAL, qid, "assistant chats"), tuple(messages), "exchange")
    return Question(
        qid=qid,
        benchmark=LONGMEMEVAL,
        question=str(_field(record, "question", str, path, where)),
        answer=str(record.get("answer", "")),
        category=str(record.get("question_type", "")),
        asked_at=_lme_time(record.get("question_date", ""), path, f"{where}.question_date"),
        haystack=haystack,
        evidence=tuple(str(s) for s in record.get("answer_session_ids") or ()),
        abstention=qid.endswith("_abs"),
    )


def _locomo(record: dict, path: Path, where: str) -> list[Question]:
    conv = _field(record, "conversation", dict, path, where)
    key = str(record.get("sample_id") or where)
    numbers = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    messages: list[Message] = []
    last = None
    for n in numbers:
        turns = conv[f"session_{n}"]
        if not isinstance(turns, list):
            raise InputError(path, "a session must be a list of turns", f"{where}.conversation.session_{n}")
        at = _locomo_time(
            conv.get(f"session_{n}_date_time", ""), path, f"{where}.conversation.session_{n}_date_time"
        )
        last = at
        for i, t in enumerate(turns):
            if not isinstance(t, dict) or not isinstance(t.get("text"), str):
                raise InputError(
                    path, "a turn needs speaker and text", f"{where}.conversation.session_{n}[{i}]"
                )
            text = t["text"]
            if t.get("blip_caption"):
                text += f" [image: {t['blip_caption']}]"
            messages.append(
                Message(
                    at + timedelta(minutes=i),
                    str(t.get("speaker") or ""),
                    text,
                    source_id=str(t.get("dia_id") or f"D{n}:{i + 1}"),
                    thread=f"session_{n}",
                )
            )
    if last is None:
        raise InputError(path, "a conversation without sessions", where)
    name = f"{conv.get('speaker_a', '?')} and {conv.get('speaker_b', '?')}"
    haystack = Haystack(key, Chat(LOCOMO, key, name), tuple(messages), "burst")
    out = []
    for i, qa in enumerate(_field(record, "qa", list, path, where)):
        if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
            raise InputError(path, "a question needs 'question'", f"{where}.qa[{i}]")
        category = str(qa.get("category", ""))
        out.append(
            Question(
                qid=f"{key}/{i}",
                benchmark=LOCOMO,
                question=qa["question"],
                answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
                category=category,
                asked_at=last + timedelta(days=1),
                haystack=haystack,
                evidence=tuple(str(e) for e in qa.get("evidence") or ()),
                abstention=category == "5",
            )
        )
    return out
