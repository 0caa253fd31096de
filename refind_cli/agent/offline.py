"""The offline planner: the same search rounds without a model, and an extractive answer. No network, and
nothing here imports litellm.

Round 1 searches the question's content words, narrowed to any time expression the question contains
("last week", "in March"). Later rounds add the most frequent new words of the previous round's best hits
(query expansion from pseudo-relevance feedback); the toolbox's seen-session exclusion sends each round to
new conversations. A block is noted when its hit turn matches at least half of the question's terms.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from refind_cli.agent import prompts
from refind_cli.agent.answer import Numbered, citation
from refind_cli.agent.builtin_tools import DEFAULT_TOP_K, search_between
from refind_cli.agent.events import Citation, Note
from refind_cli.analysis import FULL_STOPWORDS, analyze
from refind_cli.records import said

if TYPE_CHECKING:
    from refind_cli.agent.tools import Toolbox

# Words that shape a question but never appear in the answer's messages.
QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how whats tell remind remember know knew say said mention"
    " mentioned ever anything something someone anyone please could would should might may shall also"
    " recall recently".split()
)
WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
EXPANSION_TERMS = 3
FEEDBACK_HITS = 3
ANSWER_QUOTES = 4
QUOTE_CHARS = 300
EXTRACTIVE_LABEL = (
    "Extractive answer (offline, no language model): the messages that best match the question."
)


@dataclass(frozen=True, slots=True)
class Plan:
    keywords: tuple[str, ...]
    terms: frozenset[str]  # the analysed keywords: what a hit must cover to be noted
    since: datetime | None  # the question's first time expression, as instants (inclusive)
    until: datetime | None


def content_words(text: str) -> list[str]:
    """The words of ``text`` worth searching for, in order, once each."""
    words = []
    for word in WORD_RE.findall(text.lower()):
        word = word.replace("’", "'")
        base = word.split("'", 1)[0]
        if base in FULL_STOPWORDS or base in QUESTION_WORDS or word in FULL_STOPWORDS:
            continue
        if len(base) < 2 and not base.isdigit():
            continue
        words.append(base)
    return list(dict.fromkeys(words))


def plan(question: str, *, now: datetime, tz: tzinfo) -> Plan:
    """Keywords and an optional time range from the question alone."""
    from refind_cli.timeexpr import find_ranges

    ranges = find_ranges(question, now=now, tz=tz)
    rest = question
    for r in ranges:
        rest = rest.replace(r.text, " ")
    since, until = (ranges[0].start, ranges[0].end) if ranges else (None, None)
    words = content_words(rest) or content_words(question) or question.split()
    return Plan(tuple(words), frozenset(analyze(" ".join(words))), since, until)


def coverage(hit_terms: Sequence[str], terms: frozenset[str]) -> int:
    return len(set(hit_terms) & terms)


def worth_noting(hit_terms: Sequence[str], terms: frozenset[str]) -> bool:
    return coverage(hit_terms, terms) >= max(1, math.ceil(len(terms) / 2))


def expansion(hits: Sequence, used: set[str], limit: int = EXPANSION_TERMS) -> list[str]:
    """New words from the best hits, weighted by 1/rank and counted once per hit; ties keep text order."""
    score: dict[str, float] = {}
    for rank, hit in enumerate(hits[:FEEDBACK_HITS], 1):
        for word in dict.fromkeys(content_words(hit.turn.text)):
            if len(word) < 3 or word.isdigit():
                continue
            stems = analyze(word)
            if not stems or any(s in used for s in stems):
                continue
            score[word] = score.get(word, 0.0) + 1.0 / rank
    best = sorted(score, key=lambda w: -score[w])[:limit]
    for word in best:
        used.update(analyze(word))
    return best


def run_planner(question: str, toolbox: Toolbox, *, now: datetime, tz: tzinfo) -> str:
    """Drive the toolbox like a model would. Returns why the search stopped."""
    p = plan(question, now=now, tz=tz)
    used = set(p.terms)
    keywords = list(p.keywords)
    since, until = p.since, p.until
    while not toolbox.exhausted:
        search_between(toolbox, " ".join(keywords), DEFAULT_TOP_K, since, until)
        hits = toolbox.last_hits
        if not hits:
            if toolbox.searches == 1 and (since or until):
                # The time expression may be read too narrowly: try the whole archive before giving up.
                since = until = None
                continue
            break
        # The first round's hits are the question's own best matches: all of them are kept, as one search
        # would show them. Expansion rounds drift, so their hits must cover half of the question's terms.
        first = not toolbox.notes
        picks = [i for i, h in enumerate(hits, 1) if first or worth_noting(h.terms, p.terms)]
        if picks:
            toolbox.call("take_note", {"indices": picks})
        extra = expansion(hits, used)
        if not extra:
            break
        keywords = [*p.keywords, *extra]
    reason = "max_rounds" if toolbox.exhausted else "finish_search"
    toolbox.call("finish_search", {})
    return reason


def extractive_answer(
    question: str, notes: Sequence[Note], *, now: datetime, tz: tzinfo
) -> tuple[str, list[Citation]]:
    """The best noted hit turns, quoted with their place and time: evidence, not a model's answer."""
    from refind_cli.agent.answer import NOTHING_FOUND

    if not notes:
        return NOTHING_FOUND, []
    terms = plan(question, now=now, tz=tz).terms
    scored = []
    for order, note in enumerate(notes):
        turn = next(t for t in note.turns if t.id == note.hit_turn_id)
        scored.append((-coverage(analyze(turn.text), terms), order, Numbered(0, turn, note.chat)))
    scored.sort(key=lambda s: (s[0], s[1]))
    # One quote per day, best first: a question about something that changed over time ("when did I move
    # the appointment?") wants evidence from each point of the timeline, not three lines from one day.
    chosen: dict[str, Numbered] = {}
    for _, _, item in scored:
        day = item.turn.start.astimezone(tz).date().isoformat()
        if day not in chosen:
            chosen[day] = item
            if len(chosen) == ANSWER_QUOTES:
                break
    lines = [EXTRACTIVE_LABEL]
    citations = []
    for k, item in enumerate(sorted(chosen.values(), key=lambda i: i.turn.start), 1):
        t = item.turn
        quote = " ".join(said(t.speaker, t.text).split())
        if len(quote) > QUOTE_CHARS:
            quote = quote[: QUOTE_CHARS - 1] + "…"
        lines.append(f"[{k}] {prompts.fmt_time(t.start, tz)} {t.speaker} in {item.chat.name}: {quote}")
        citations.append(citation(item))
    return "\n".join(lines), citations
