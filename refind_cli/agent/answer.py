"""Stage 2: the notes, grouped by session and ordered in time, go to the answering model with the question
and its date; the answer's [n] markers are mapped back to the turns they number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from refind_cli.agent import prompts
from refind_cli.agent.events import Citation, Note
from refind_cli.records import ChatInfo, Turn, said
from refind_cli.text.snippet import JSON_CHARS, snippet

if TYPE_CHECKING:
    from refind_cli.agent.llm import Completion, LLMClient

NOTHING_FOUND = "Nothing in the archive matched the question."

_MARKER_RE = re.compile(r"\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]")


@dataclass(frozen=True, slots=True)
class SessionNotes:
    session_id: str
    chat: ChatInfo
    turns: tuple[Turn, ...]  # deduplicated, in session order


@dataclass(frozen=True, slots=True)
class Numbered:
    n: int
    turn: Turn
    chat: ChatInfo


def group_notes(notes: Iterable[Note]) -> list[SessionNotes]:
    """One group per session, overlapping windows merged; sessions ordered by their first noted turn."""
    by_session: dict[str, tuple[ChatInfo, dict[int, Turn]]] = {}
    for note in notes:
        _, turns = by_session.setdefault(note.session_id, (note.chat, {}))
        for turn in note.turns:
            turns[turn.ordinal] = turn
    groups = [
        SessionNotes(sid, chat, tuple(turns[o] for o in sorted(turns)))
        for sid, (chat, turns) in by_session.items()
    ]
    groups.sort(key=lambda g: (g.turns[0].start, g.session_id))
    return groups


def evidence(notes: Iterable[Note], tz: tzinfo) -> tuple[str, list[Numbered]]:
    """The notes as stage 2 reads them, every turn numbered [n] in reading order."""
    numbered: list[Numbered] = []
    parts: list[str] = []
    for i, group in enumerate(group_notes(notes), 1):
        first, last = group.turns[0], group.turns[-1]
        parts.append(
            f"Session {i}: chat {prompts.quote_data(group.chat.name)} ({group.chat.source}), "
            f"{prompts.fmt_day(first.start, tz)} {first.start.astimezone(tz).strftime('%H:%M')} to "
            f"{prompts.fmt_time(last.end, tz)}"
        )
        for turn in group.turns:
            numbered.append(Numbered(len(numbered) + 1, turn, group.chat))
            text = said(turn.speaker, turn.text)
            body = prompts.turn_text(text, length=turn.whole(text)).replace("\n", "\n    ")
            parts.append(
                f"[{len(numbered)}] {prompts.fmt_time(turn.start, tz)} {prompts.quote_data(turn.speaker)}: {body}"
            )
        parts.append("")
    return "\n".join(parts).strip(), numbered


def estimate_tokens(text: str) -> int:
    """Tokens by the common rule of thumb of 4 characters per token (OpenAI's estimate for English)."""
    return math.ceil(len(text) / 4)


def citation(item: Numbered) -> Citation:
    """A cited turn, its text whole or its first ``JSON_CHARS`` characters (with the whole length): a turn
    read for the search holds up to a million characters of a huge message, and a citation is shown,
    written as JSON and kept with the conversation."""
    t = item.turn
    view = snippet(t.text, (), JSON_CHARS, length=t.length)
    length = view.length if view.truncated else None
    return Citation(t.session_id, t.id, item.chat.name, t.start, t.speaker, view.text, length)


def cite(text: str, numbered: Sequence[Numbered]) -> tuple[str, list[Citation]]:
    """Renumber the answer's markers 1..k in order of first use and return the cited turns in that order.
    Markers that point at no note are dropped from the text: a citation must lead to a real turn."""
    by_n = {item.n: item for item in numbered}
    order: dict[int, int] = {}

    def replace(match: re.Match[str]) -> str:
        new = []
        for part in re.split(r"[,;]", match.group(1)):
            n = int(part)
            if n in by_n:
                new.append(order.setdefault(n, len(order) + 1))
        return "".join(f"[{k}]" for k in dict.fromkeys(new))

    rewritten = _MARKER_RE.sub(replace, text)
    rewritten = re.sub(r"[ \t]+([.,;:!?])", r"\1", rewritten).strip()
    return rewritten, [citation(by_n[n]) for n in order]


def answer(
    client: LLMClient, question: str, asked_at: datetime, tz: tzinfo, notes: Sequence[Note]
) -> tuple[str, list[Citation], Completion]:
    notes_text, numbered = evidence(notes, tz)
    messages = [
        {"role": "system", "content": prompts.ANSWER_SYSTEM},
        {"role": "user", "content": prompts.answer_user_message(question, asked_at, tz, notes_text)},
    ]
    completion = client.complete(messages)
    text, citations = cite(completion.content, numbered)
    return text, citations, completion
