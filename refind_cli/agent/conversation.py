"""A conversation with the agent: follow-up questions that carry the ones before them.

The state is a frozen ``Conversation``: the exchanges so far (each question, its answer, citations and
notes as ``Earlier``) and the scope the person set (chats, a start date, a model or offline). A follow-up
runs the same agent with the earlier exchanges: a model reads the earlier questions, answers and notes
before the new question; the offline planner keeps the earlier question's people, time range and chats
unless the new question names other people (``carried``), and its words when the new one has too few of
its own to stand alone ("and who moved it?"). The conversation is kept in the home, private, so
``refind ask -c`` continues it from a script.

Input lines are read here too (``read_line``): a question, or one of ``COMMANDS``, or a problem to tell
in one line. Front ends render; nothing here prints.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from refind_cli.agent import prompts
from refind_cli.agent.events import AskResult, Citation, Note
from refind_cli.errors import RefindError

if TYPE_CHECKING:
    from _typeshed import StrPath

    from refind_cli.agent.offline import Plan
    from refind_cli.operations import AskRequest
    from refind_cli.text.analysis import Analyzer

FILE = "conversation.json"
HISTORY = "ask_history"
# A question longer than this is no question (a paste gone wrong): it is refused, not searched.
MAX_QUESTION = 2_000
# Exchanges a model is shown again, and the characters of their notes: the recent ones matter most.
MODEL_EXCHANGES = 3
MODEL_NOTE_CHARS = 6_000
# A follow-up with fewer of its own words than this leans on the earlier question's.
STANDS_ALONE = 3
# Commands and what they do, for /help; their arguments are read by ``read_line``.
COMMANDS = {
    "/show N": "open the conversation of citation N of the last answer",
    "/more": "search further for the last question, in sessions not seen yet",
    "/chat [NAME ...]": "ask only in these chats (no names: all chats)",
    "/since [DATE]": "ask only about messages since DATE, e.g. 2026-03 or 'last month' (none: all)",
    "/model NAME": "answer with this model from now on",
    "/offline": "answer without a model from now on",
    "/save FILE": "write the conversation as Markdown, with its citations",
    "/help": "this list",
}
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class Earlier:
    """One exchange, as a follow-up and a transcript need it."""

    question: str
    answer: str
    asked_at: datetime
    mode: str
    model: str | None
    citations: tuple[Citation, ...]
    notes: tuple[str, ...]  # the notes' texts, as a model read them
    sessions: tuple[str, ...]  # the sessions noted: /more searches past them
    speakers: tuple[str, ...]  # who speaks in the notes: the people a question may name
    chats: tuple[int, ...]  # the chats the answer quotes

    @classmethod
    def of(cls, result: AskResult) -> Earlier:
        cited = {c.session_id for c in result.citations}
        return cls(
            question=result.question,
            answer=result.answer,
            asked_at=result.asked_at,
            mode=result.mode,
            model=result.model,
            citations=result.citations,
            notes=tuple(n.text for n in result.notes),
            sessions=tuple(dict.fromkeys(n.session_id for n in result.notes)),
            speakers=tuple(sorted({t.speaker for n in result.notes for t in n.turns})),
            chats=tuple(dict.fromkeys(n.chat.seq for n in result.notes if n.session_id in cited)),
        )


@dataclass(frozen=True, slots=True)
class Conversation:
    exchanges: tuple[Earlier, ...] = ()
    chats: tuple[str, ...] | None = None  # /chat: names, ids or numbers as `--chat` takes them
    since: str | None = None  # /since, as typed
    model: str | None = None  # /model; None: the default (REFIND_MODEL, or offline without one)
    offline: bool = False
    # The last answer in full (its notes, for /more): this session only, never saved.
    last: AskResult | None = field(default=None, compare=False)

    def answered(self, result: AskResult) -> Conversation:
        return replace(self, exchanges=(*self.exchanges, Earlier.of(result)), last=result)

    def starting(self, since: str | None, *, now: datetime, tz: tzinfo) -> Conversation:
        """The conversation asking only about messages from ``since`` on (as ``--since`` reads it; None:
        all); RefindError when it names no date."""
        from refind_cli.request import time_bound

        time_bound("/since", since, now=now, tz=tz, end=False)
        return replace(self, since=since)

    def last_question(self) -> str:
        """The question /more searches further for; RefindError before an answer of this session."""
        if self.last is None:
            raise RefindError("/more needs an answer of this session to search further from")
        return self.last.question

    def citation(self, n: int) -> Citation:
        """Citation ``n`` (1-based) of the last answer; RefindError when there is none."""
        if not self.exchanges:
            raise RefindError("no answer yet: ask a question first")
        cited = self.exchanges[-1].citations
        if not 1 <= n <= len(cited):
            raise RefindError(f"the last answer has no citation {n} (it has {len(cited)})")
        return cited[n - 1]


@dataclass(frozen=True, slots=True)
class FollowUp:
    """One question of a conversation, as ``Home.follow_up`` takes it: the question as ``Home.ask`` takes
    it (its model, budget, chats, speakers); ``more``: search further for the last question instead (the
    question is then the last one's); ``keep``: write the conversation to the home."""

    ask: AskRequest
    more: bool = False
    keep: bool = True


# ---- follow-ups --------------------------------------------------------------------------------------------


def framed(question: str, earlier: Sequence[Earlier], tz: tzinfo) -> str:
    """The question as a model reads it in a conversation: the earlier exchanges (their questions, answers
    and notes) before it, so "and after that?" can be searched and answered."""
    if not earlier:
        return question
    parts = [
        "Earlier in this conversation (the person's questions, the answers and the notes they came from):"
    ]
    for e in earlier[-MODEL_EXCHANGES:]:
        notes = "\n\n".join(e.notes)
        if len(notes) > MODEL_NOTE_CHARS:
            notes = notes[:MODEL_NOTE_CHARS] + " …"
        parts.append(f"Question (asked {prompts.fmt_time(e.asked_at, tz)}): {e.question}")
        parts.append(f"Answer: {e.answer}")
        if notes:
            parts.append(f"Notes:\n{prompts.fence(prompts.quote_data(notes))}")
    parts.append(f"The new question, which may refer to the ones before: {question}")
    return "\n\n".join(parts)


def carried(
    plan: Plan,
    earlier: Sequence[Earlier],
    *,
    tz: tzinfo,
    span: tuple[datetime, datetime] | None,
    analyzer: Analyzer,
) -> tuple[Plan, tuple[int, ...] | None]:
    """The offline planner's ``plan`` of a follow-up, carrying the exchange before it (itself carried from
    the ones before, as far back as a model would read): its people when the new question names none, its
    time range when the new one has none, its words when the new one is too short to stand alone; and the
    chats to search, the earlier answer's, unless the new question names people the earlier one did not
    (None: the scope the question was asked in)."""
    from refind_cli.agent.offline import plan as make_plan

    if not earlier:
        return plan, None
    last = earlier[-1]
    first = make_plan(last.question, now=last.asked_at, tz=tz, span=span, analyzer=analyzer)
    old, _ = carried(first, earlier[-MODEL_EXCHANGES:-1], tz=tz, span=span, analyzer=analyzer)
    stems = {s for speaker in last.speakers for s in analyzer.analyze(speaker)}
    named, named_before = plan.terms & stems, old.terms & stems
    # The question's own words; a question of stop words alone ("and how was it then?") has none.
    words = [w for w in plan.keywords if analyzer.analyze(w)]
    if not named:
        words += [w for w in old.keywords if set(analyzer.analyze(w)) & named_before]
    if len(words) < STANDS_ALONE:
        words += old.keywords
    words = list(dict.fromkeys(words)) or list(plan.keywords)
    since, until = (plan.since, plan.until) if plan.since or plan.until else (old.since, old.until)
    carried_plan = replace(
        plan,
        keywords=tuple(words),
        terms=frozenset(analyzer.analyze(" ".join(words))),
        since=since,
        until=until,
    )
    others = bool(named - named_before)
    return carried_plan, None if others or not last.chats else last.chats


def earlier_notes(conversation: Conversation) -> tuple[Note, ...]:
    """The last answer's notes, which /more adds to."""
    return conversation.last.notes if conversation.last else ()


# ---- input lines --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ask:
    question: str


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # "show", "more", "chat", "since", "model", "offline", "save", "help"
    argument: str


@dataclass(frozen=True, slots=True)
class Problem:
    message: str


Line = Ask | Command | Problem
_NAMES = {spec.split()[0][1:] for spec in COMMANDS}
_NEEDS = {"show": "a citation number", "model": "a model name", "save": "a file name"}


def read_line(line: str) -> Line:
    """What one typed line asks for. A line with control characters (a stray escape sequence) is refused
    whole: what it meant cannot be told."""
    text = line.strip()
    if not text:
        return Problem("type a question, or /help for the commands")
    if _CONTROL_RE.search(text):
        return Problem("the line holds control characters (an escape sequence?); type it again")
    if len(text) > MAX_QUESTION:
        return Problem(f"the question is too long ({len(text):,} characters; at most {MAX_QUESTION:,})")
    if not text.startswith("/"):
        return Ask(text)
    name, _, argument = text[1:].partition(" ")
    name, argument = name.lower(), argument.strip()
    if name not in _NAMES:
        return Problem(f"unknown command /{name}; /help lists the commands")
    if name in _NEEDS and not argument:
        return Problem(f"/{name} needs {_NEEDS[name]}")
    if name == "show" and not argument.isdigit():
        return Problem(f"/show needs a citation number, not {argument!r}")
    return Command(name, argument)


# ---- kept in the home ----------------------------------------------------------------------------------------


def save(conversation: Conversation, home: StrPath) -> None:
    """Write the conversation to the home, private (0600), whole or not at all."""
    data = {
        "chats": list(conversation.chats) if conversation.chats is not None else None,
        "since": conversation.since,
        "model": conversation.model,
        "offline": conversation.offline,
        "exchanges": [_earlier_json(e) for e in conversation.exchanges],
    }
    path = os.path.join(home, FILE)
    tmp = os.path.join(home, f".{FILE}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def load(home: StrPath) -> Conversation:
    """The conversation kept in the home; RefindError when there is none or it cannot be read."""
    path = os.path.join(home, FILE)
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        chats = data["chats"]
        return Conversation(
            exchanges=tuple(_earlier(e) for e in data["exchanges"]),
            chats=None if chats is None else tuple(str(c) for c in chats),
            since=data["since"],
            model=data["model"],
            offline=bool(data["offline"]),
        )
    except FileNotFoundError:
        raise RefindError("no conversation to continue: ask a question first") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise RefindError(f"{path}: the kept conversation cannot be read ({err})") from None


def _earlier_json(e: Earlier) -> dict[str, Any]:
    return {
        "question": e.question,
        "answer": e.answer,
        "asked_at": e.asked_at.isoformat(),
        "mode": e.mode,
        "model": e.model,
        "citations": [
            {
                "session_id": c.session_id,
                "turn_id": c.turn_id,
                "chat": c.chat,
                "timestamp": c.timestamp.isoformat(),
                "speaker": c.speaker,
                "text": c.text,
                "length": c.length,
            }
            for c in e.citations
        ],
        "notes": list(e.notes),
        "sessions": list(e.sessions),
        "speakers": list(e.speakers),
        "chats": list(e.chats),
    }


def _earlier(d: dict[str, Any]) -> Earlier:
    return Earlier(
        question=str(d["question"]),
        answer=str(d["answer"]),
        asked_at=datetime.fromisoformat(d["asked_at"]),
        mode=str(d["mode"]),
        model=d["model"],
        citations=tuple(
            Citation(
                str(c["session_id"]),
                str(c["turn_id"]),
                str(c["chat"]),
                datetime.fromisoformat(c["timestamp"]),
                str(c["speaker"]),
                str(c["text"]),
                None if c.get("length") is None else int(c["length"]),
            )
            for c in d["citations"]
        ),
        notes=tuple(str(n) for n in d["notes"]),
        sessions=tuple(str(s) for s in d["sessions"]),
        speakers=tuple(str(s) for s in d["speakers"]),
        chats=tuple(int(c) for c in d["chats"]),
    )
