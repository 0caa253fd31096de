"""The offline planner: the same search rounds without a model, and an extractive answer. No network, and
nothing here imports litellm.

What it spends is evidence tokens: the notes as stage 2 reads them, at most the budget a question
(``Budget.evidence_tokens``; ``Tuning`` holds what the budget buys). Round 1 searches the question's content
words over the whole archive for ``FIRST_TOP_K`` blocks and notes every one that adds turns, as one search
would show them, each with up to ``NOTE_WINDOW`` turns on either side (a search shows two), the turns nearest
the hit first while the block stays within its share of the budget (a long hit turn, an assistant's reply,
cut to the part around its match). A time expression the question contains ("last week", "in March", "the
week before 23 January 2023", anchored to the date it names) becomes a filter only where the archive has
messages, reaching ``FORWARD`` past the time it names (people tell of an event afterwards), its blocks the
closest to that time of twice as many, by BM25 rank fused with closeness (``CLOSENESS``); one that finds
nothing is widened once, then dropped, and never ends the search. A question that counts, lists or aggregates
(how many, which cities, the average) repeats its words, so the seen-session exclusion spreads it over
sessions (in one person's turns only when the question names one of round 1's speakers), and the first
repeat's blocks, the question's next best matches, are noted as round 1's are; other questions add the new
words of the previous round's best hits that are rare in the archive and are no speaker's name (query
expansion from pseudo-relevance feedback). Any other later block is noted when its hit turn matches at least
half of the question's terms, the words that date the question left out. Every round also searches the other
spellings of the question's words that the archive holds (number words as digits and back, "check up" /
"check-up" as "checkup"), and a hit holding one covers the words it stands for. A block whose turns are
mostly noted already (a neighbour of a noted hit in the same session) is not noted again; the search stops
when the budget is spent.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from refind_cli.agent import prompts
from refind_cli.agent.budget import EVIDENCE_TOKENS
from refind_cli.agent.builtin_tools import search_between
from refind_cli.dates.timeexpr import TimeRange, time_words
from refind_cli.method.search import RRF_K
from refind_cli.method.search_tools import DEFAULT_TOP_K
from refind_cli.records import Turn, said
from refind_cli.results import WindowTurn
from refind_cli.text.analysis import DEFAULT_ANALYZER, FULL_STOPWORDS, Analyzer, reader_words
from refind_cli.text.snippet import snippet

if TYPE_CHECKING:
    from refind_cli.agent.tools import Toolbox
    from refind_cli.results import Hit

# Words that shape a question but never appear in the answer's messages.
QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how whats tell remind remember know knew say said mention"
    " mentioned many much often ever anything something someone anyone please could would should might may"
    " shall also recall recently".split()
)
# The same for the languages whose time words the planner reads (the stop word lists leave most of these as
# content: "wanneer", "quando", "hangi").
QUESTION_WORDS_OF = {
    lang: frozenset(words.split())
    for lang, words in {
        "de": "was wer wen wem wessen wie wo woher wohin wann warum weshalb welche welcher welches welchen"
        " wieviel wieviele viele oft erinnern erinnerst erzählt gesagt sagte schon mal jemals",
        "es": "qué que quién quiénes cuándo cuando dónde donde cómo como cuál cuáles cuánto cuánta cuántos"
        " cuántas por porqué recuerdas recuerdo dijo dije mencionó alguna vez",
        "fr": "que quoi qui quand où comment pourquoi quel quelle quels quelles combien souviens rappelle"
        " dit déjà jamais",
        "pt": "que quem quando onde como porque qual quais quanto quanta quantos quantas lembra lembro"
        " disse falou alguma vez",
        "it": "che cosa chi quando dove come perché quale quali quanto quanta quanti quante ricordi ricordo"
        " detto disse mai",
        "nl": "wat wie wanneer waar hoe waarom welke welk hoeveel vaak herinner zei gezegd ooit",
        "ru": "что кто когда где куда откуда как почему зачем какой какая какие сколько помнишь сказал"
        " говорил",
        "tr": "ne kim nerede nereye ne zaman nasıl neden niye hangi kaç hatırlıyor musun söyledi",
    }.items()
}


def question_words(lang: str) -> frozenset[str]:
    return QUESTION_WORDS_OF.get(lang, QUESTION_WORDS)


WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
EXPANSION_TERMS = 3
FEEDBACK_HITS = 3
# Expansion words held by more turns than this are too common to lead anywhere new.
RARE_MAX = 50
# The most ``_Rarity`` gives: a word two turns hold.
RAREST = 1.0 / math.log2(3)
# Ranges this long are dropped, not widened, when they find nothing: a wider one would be most of a chat.
WIDEN_UNDER = timedelta(days=60)
# The planner's choices, measured by cross-validation over the dev conversations (bench/recall_cv.py):
# round 1's blocks and each later round's, the turns on either side of a hit, the largest share of the
# budget one block may take, and how far past a named time its filter reaches, ranked by closeness to it
# (alone, the reach lowered one held-out conversation; ranked by closeness it lowers none and lifts one).
FIRST_TOP_K = 15
NOTE_WINDOW = 4
BLOCK_SHARE = 0.1
FORWARD = timedelta(days=7)
CLOSENESS = True
# A block whose turns are noted already to this share adds too little to be a note of its own.
REDUNDANT = 0.8


@dataclass(frozen=True, slots=True)
class Tuning:
    """What the planner spends: ``evidence_tokens`` of notes a question (what stage 2 reads, estimated as
    characters / 4), bought with ``first_k`` blocks in round 1 and ``later_k`` in each later round, each a
    hit with ``window`` turns on either side, cut to ``block_share`` of the budget nearest turns first. A
    time filter reaches ``forward`` past the time a question names: people tell of an event afterwards. With
    ``closeness``, that round asks for twice its blocks and notes those best by their BM25 rank fused with
    their closeness to the time named (inside it: closest), rather than by BM25 alone."""

    evidence_tokens: int
    first_k: int
    later_k: int
    window: int
    block_share: float
    forward: timedelta
    closeness: bool = CLOSENESS


def tuning(evidence_tokens: int) -> Tuning:
    """The measured choices for a budget (bench/recall_cv.py)."""
    return Tuning(evidence_tokens, FIRST_TOP_K, DEFAULT_TOP_K, NOTE_WINDOW, BLOCK_SHARE, FORWARD, CLOSENESS)


@dataclass(frozen=True, slots=True)
class Plan:
    keywords: tuple[str, ...]
    terms: frozenset[str]  # the analysed keywords
    since: datetime | None  # the question's time range, as instants (inclusive); None: no filter
    until: datetime | None
    spread: bool = False  # a how many / which ones / how often question: the answer spans sessions
    # Other ways to write the question's words, each with the stems of the words it stands for: searched
    # where the archive holds them ("check up" as "checkup", "three" as "3").
    spellings: tuple[tuple[str, frozenset[str]], ...] = ()
    # The analysis of the question's language (the chats'): its stop words, stems and time words.
    analyzer: Analyzer = field(default=DEFAULT_ANALYZER, compare=False)
    # The terms but those naming a time ("week", "May"): what a later hit must cover half of to be noted.
    topic: frozenset[str] = frozenset()

    @property
    def note_terms(self) -> frozenset[str]:
        return self.topic or self.terms


def content_words(text: str, analyzer: Analyzer = DEFAULT_ANALYZER) -> list[str]:
    """The words of ``text`` (in ``analyzer``'s language) worth searching for, in order, once each."""
    stop, asking = analyzer.stopwords, question_words(analyzer.lang)
    words = []
    for word in reader_words(text.lower()):
        word = word.replace("’", "'")
        # English "don't" is "don"; French "l'appartement" and Italian "dell'anno" are their second part.
        head, _, tail = word.partition("'")
        base = tail if tail and analyzer is not DEFAULT_ANALYZER and not analyzer.analyze(head) else head
        if base in stop or base in asking or word in stop:
            continue
        if len(base) < 2 and not base.isdigit():
            continue
        words.append(base)
    return list(dict.fromkeys(words))


# "the week before 23 January 2023", "two days after my birthday on 3 May": a span measured from a date the
# question names, not from the day it is asked.
ANCHORED_RE = re.compile(
    r"\b(?:the\s+)?(?:(?:last|previous|past|first|next)\s+)?(?:(?P<n>[0-9]{1,2}|a|one|two|three|four|few|couple"
    r"(?:\s+of)?)\s+)?(?P<unit>days?|weeks?|weekends?|months?|years?)\s+(?P<dir>before|after|prior\s+to|following)"
    r"\s+",
    re.IGNORECASE,
)
_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 31, "year": 366}
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "few": 3, "couple": 2, "couple of": 2}


def _anchored(question: str, *, now: datetime, tz: tzinfo, lang: str) -> list[TimeRange]:
    """Spans anchored to a date ("the week before 23 January 2023"), in English questions; the date itself
    is read in ``lang``."""
    from refind_cli.dates.timeexpr import find_ranges

    found = []
    for m in ANCHORED_RE.finditer(question):
        after = find_ranges(question[m.end() :], now=now, tz=tz, lang=lang)
        if not after or question.find(after[0].text, m.end()) > m.end() + 3:
            continue
        anchor = after[0]
        n = m["n"].lower() if m["n"] else "1"
        count = int(n) if n.isdigit() else _COUNTS.get(" ".join(n.split()), 1)
        span = timedelta(days=count * _UNIT_DAYS[m["unit"].lower().rstrip("s")])
        if m["dir"].lower() in ("after", "following"):
            start, end = anchor.end, anchor.end + span
        else:
            start, end = anchor.start - span, anchor.start
        text = question[m.start() : question.find(anchor.text, m.end()) + len(anchor.text)]
        found.append(TimeRange(start, end, text))
    return found


def _overlaps(r: TimeRange, span: tuple[datetime, datetime] | None) -> bool:
    return span is None or (r.start <= span[1] and r.end >= span[0])


# Counting, listing and aggregating (a total, an average, an order of events) gather facts from many places.
SPREAD_RE = re.compile(
    r"\b(?:how\s+many|how\s+often|how\s+much|list|all|every|total|average|sum|combined|altogether|order)\b",
    re.I,
)
# "what books", "which cities": a plural asks for several things; "what is", "what does" ask for one.
PLURAL_RE = re.compile(r"\b(?:what|which)\s+([^\W_]+[^\Ws_]s)\b", re.I)


# The same counting and listing words in the languages whose questions the planner reads.
SPREAD_OF = {
    lang: re.compile(rf"\b(?:{words})\b", re.I)
    for lang, words in {
        "de": r"wie\s+viele?|wieviele?|wie\s+oft|alle|jede[nrs]?|insgesamt|durchschnittlich|reihenfolge",
        "es": r"cu[aá]nt[oa]s?|cada|tod[oa]s|total|promedio|orden",
        "fr": r"combien|tou[ts]|toutes|chaque|total|moyenne|ordre",
        "pt": r"quant[oa]s?|cada|tod[oa]s|total|m[eé]dia|ordem",
        "it": r"quant[ioea]|ogni|tutt[ie]|totale|media|ordine",
        "nl": r"hoeveel|hoe\s+vaak|alle|elke|totaal|gemiddeld|volgorde",
        "ru": r"сколько|как\s+часто|все|всех|каждый|всего|средн\w*|порядок",
        "tr": r"ka[çc]|ne\s+s[ıi]kl[ıi]kla|hepsi|t[üu]m|her|toplam|ortalama|s[ıi]ra",
    }.items()
}


def spreads(question: str, lang: str = "en") -> bool:
    """Whether the answer spans sessions: a how many / how often question, or one asking which things (the
    plural rule is English's; other languages' counting and listing words are in ``SPREAD_OF``)."""
    if lang in SPREAD_OF:
        return bool(SPREAD_OF[lang].search(question))
    if SPREAD_RE.search(question):
        return True
    return any(m[1].lower() not in FULL_STOPWORDS for m in PLURAL_RE.finditer(question))


def plan(
    question: str,
    *,
    now: datetime,
    tz: tzinfo,
    span: tuple[datetime, datetime] | None = None,
    analyzer: Analyzer = DEFAULT_ANALYZER,
) -> Plan:
    """Keywords and an optional time range from the question alone, read in ``analyzer``'s language (its stop
    words, question words and time words). A time range is kept only where the archive (``span``) has
    messages; one outside it stays words ("in 2010")."""
    from refind_cli.dates.cldr import find_any

    lang = analyzer.lang
    anchored = _anchored(question, now=now, tz=tz, lang=lang)
    ranges = [*anchored]
    for r in find_any(question, now=now, tz=tz, lang=lang):
        if not any(r.text in a.text for a in anchored):
            ranges.append(r)
    ranges = [r for r in ranges if _overlaps(r, span)]
    rest = question
    for r in ranges:
        rest = rest.replace(r.text, " ")
    since, until = (ranges[0].start, ranges[0].end) if ranges else (None, None)
    words = content_words(rest, analyzer) or content_words(question, analyzer) or question.split()
    terms = frozenset(analyzer.analyze(" ".join(words)))
    timed = frozenset(analyzer.analyze(" ".join(time_words(lang))))
    return Plan(
        tuple(words),
        terms,
        since,
        until,
        spreads(question, lang),
        spellings(rest, terms, analyzer),
        analyzer,
        terms - timed,
    )


_TENS = "thirty forty fifty sixty seventy eighty ninety".split()
_DIGITS = {
    w: str(n)
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
        " seventeen eighteen nineteen twenty".split()
    )
} | {w: str(n) for n, w in zip(range(30, 100, 10), _TENS, strict=True)}
# Number words and their digits, both ways: "three" and "3".
NUMBERS = _DIGITS | {digits: word for word, digits in _DIGITS.items()}
# Two words written as one, hyphenated or apart: "check-up", "check up".
PAIR_RE = re.compile(r"(?=\b([^\W\d_]+)[\s-]+([^\W\d_]+)\b)")


def spellings(
    text: str, terms: frozenset[str], analyzer: Analyzer = DEFAULT_ANALYZER
) -> tuple[tuple[str, frozenset[str]], ...]:
    """Other ways people write the words of ``text``: number words as digits and back (English), and each
    pair of neighbouring words joined into one ("Zahnarzt Termin" as "zahnarzttermin" too). Only those
    analysed to one new stem; the planner searches those the archive holds. Query time only: the index's
    analysis stays as it is."""
    analyze = analyzer.analyze
    found: dict[str, frozenset[str]] = {}
    if analyzer is DEFAULT_ANALYZER:
        for word in WORD_RE.findall(text.lower()):
            if word in NUMBERS:
                found[NUMBERS[word]] = frozenset(analyze(word))
    asking = question_words(analyzer.lang)
    for m in PAIR_RE.finditer(text.lower()):
        if len(m[1]) > 1 and m[1] not in analyzer.stopwords and m[1] not in asking:
            found[m[1] + m[2]] = frozenset(analyze(f"{m[1]} {m[2]}"))
    out = []
    for word, stands_for in found.items():
        stems = analyze(word)
        if len(stems) == 1 and stems[0] not in terms and stands_for & terms:
            out.append((word, stands_for & terms))
    return tuple(out)


def coverage(hit_terms: Sequence[str], terms: frozenset[str]) -> int:
    return len(set(hit_terms) & terms)


def worth_noting(hit_terms: Sequence[str], terms: frozenset[str]) -> bool:
    return coverage(hit_terms, terms) >= max(1, math.ceil(len(terms) / 2))


# Of a hit's text, what new words are drawn from and what its coverage of the question is read in: all of
# any real turn; of a 50-MB message, its words took 900 MB (issue 24).
FEEDBACK_CHARS = 100_000


def expansion(
    hits: Sequence[Hit],
    used: set[str],
    rare: Callable[[str], float],
    limit: int = EXPANSION_TERMS,
    stems: dict[str, list[str]] | None = None,
    analyzer: Analyzer = DEFAULT_ANALYZER,
    rarest: float = RAREST,
) -> list[str]:
    """New words from the best hits, weighted by 1/rank and by ``rare`` of their stem (0 drops a word, and
    none is over ``rarest``); never a speaker's name or a chat's, which match everything that person said.
    ``stems`` caches each word's analysis across a run's rounds."""
    said_by = {hit.chat.name for hit in hits} | {w.turn.speaker for hit in hits for w in hit.window}
    names = set(analyzer.analyze(" ".join(said_by)))
    weight: dict[str, float] = {}
    for rank, hit in enumerate(hits[:FEEDBACK_HITS], 1):
        for word in content_words(hit.turn.text[:FEEDBACK_CHARS], analyzer):
            if len(word) >= 4 and not word.isdigit():
                weight[word] = weight.get(word, 0.0) + 1.0 / rank
    stems = {} if stems is None else stems
    # The heaviest words first, each analysed and its rarity read only while it could still be among the
    # best: a long reply holds hundreds of words, each a call to the analyzer and to the index.
    scored: list[tuple[float, int, str]] = []  # score, first appearance, word
    top: list[float] = []  # the best ``limit`` scores so far, a heap: a word must reach its least
    for at, word in sorted(enumerate(weight), key=lambda item: -weight[item[1]]):
        if top and len(top) >= limit and weight[word] * rarest < top[0]:
            break
        if word not in stems:
            stems[word] = analyzer.analyze(word)
        if not stems[word] or any(s in used or s in names for s in stems[word]):
            continue
        score = weight[word] * rare(stems[word][0])
        if score > 0:
            scored.append((score, at, word))
            if len(top) < limit:
                heapq.heappush(top, score)
            else:
                heapq.heappushpop(top, score)
    best = [word for _, _, word in sorted(scored, key=lambda item: (-item[0], item[1]))[:limit]]
    for word in best:
        used.update(stems[word])
    return best


def run_planner(p: Plan, toolbox: Toolbox, spend: Tuning | None = None) -> str:
    """Drive the toolbox like a model would, on the question's ``plan``, within ``spend`` (the default
    budget's choices when None). Returns why the search stopped."""
    spend = spend or tuning(EVIDENCE_TOKENS)
    notes = NoteBudget(spend)
    rarity = _Rarity(toolbox)
    # The other spellings the archive holds join the question's words, and a hit holding one covers the
    # words it stands for.
    same: dict[str, frozenset[str]] = {}
    others = []
    for word, stands_for in p.spellings:
        held = [t for t in p.analyzer.analyze(word) if t not in p.terms and rarity.df(t) > 0]
        if held:
            same.update(dict.fromkeys(held, stands_for))
            others.append(word)
    used = set(p.terms) | same.keys()
    stems: dict[str, list[str]] = {}
    keywords = " ".join([*p.keywords, *others])
    terms = p.note_terms

    def covered(hit_terms: Sequence[str]) -> list[str]:
        return [t for h in hit_terms for t in same.get(h, (h,))]

    search_between(toolbox, keywords, spend.first_k, None, None, window=spend.window)
    if not toolbox.last_hits:
        toolbox.call("finish_search", {})
        return "finish_search"
    # The first round's hits are the question's own best matches: all that add turns are kept, as one
    # search would show them. Later rounds drift, so their hits must cover half of the question's terms.
    last_hits = toolbox.last_hits  # as found: the notes may cut them, the next rounds read them whole
    notes.take(toolbox, range(1, len(last_hits) + 1), terms, covered)
    queue: list[tuple[str, datetime | None, datetime | None, bool]] = []  # query, range, widened already
    if p.since or p.until:
        # The time named and what follows it: an event is told of in the days after it.
        until = p.until + spend.forward if p.until else None
        queue.append((keywords, p.since, until, False))
    # A spread question about one of the people whose turns round 1 showed ("what books has Melanie
    # read?") repeats its words in that person's turns only: their own turns hold the facts about them.
    speaker = named_speaker(last_hits, p.terms, p.analyzer) if p.spread else None
    continued = False  # a spread question's words have run again once
    while not toolbox.exhausted and not notes.spent():
        own = False  # this round's blocks are the question's next best matches, noted as round 1's are
        who: tuple[str, ...] = ()
        if queue:
            query, since, until, widened = queue.pop(0)
        elif p.spread:
            # The same words again: the seen-session exclusion sends them to the next sessions, where the
            # other occurrences are. The first time, they are the question's next best matches after
            # round 1's, as a bigger first search would have shown them.
            query, since, until, widened = keywords, None, None, False
            own, continued = not continued, True
            who = (speaker,) if speaker else ()
        else:
            extra = expansion(last_hits, used, rarity, stems=stems, analyzer=p.analyzer)
            if not extra:
                break
            query, since, until, widened = " ".join([keywords, *extra]), None, None, False
        close = spend.closeness and since is not None
        # Later rounds rank by plain BM25: measured better than session fusion for these rounds.
        k = spend.later_k * (2 if close else 1)
        search_between(toolbox, query, k, since, until, session_rank=False, window=spend.window, speakers=who)
        hits = toolbox.last_hits
        if not hits:
            if since is not None and until is not None:
                # Widened once, then dropped: a filter is never the reason the search ends.
                wider = not widened and until - since < WIDEN_UNDER
                queue.insert(
                    0, (query, *_widened(since, until), True) if wider else (query, None, None, True)
                )
            continue
        picks = [i for i, h in enumerate(hits, 1) if own or worth_noting(covered(h.terms), terms)]
        if close:
            picks = closest(hits, picks, p.since, p.until)[: spend.later_k]
        notes.take(toolbox, picks, terms, covered)
        last_hits = hits
    reason = "max_rounds" if toolbox.exhausted else "finish_search"
    toolbox.call("finish_search", {})
    return reason


def closest(
    hits: Sequence[Hit], picks: Sequence[int], since: datetime | None, until: datetime | None
) -> list[int]:
    """``picks`` (1-based, in BM25 order) ordered by their BM25 rank fused with their rank by closeness in
    time to ``since``-``until`` (reciprocal rank fusion, as sessions and turns are in one search): the turns
    of the time named first, then those told of it soonest after."""

    def distance(hit: Hit) -> timedelta:
        start = hit.turn.start
        if until is not None and start > until:
            return start - until
        if since is not None and start < since:
            return since - start
        return timedelta(0)

    away = {i: distance(hits[i - 1]) for i in picks}
    near = {i: 1 + sum(d < away[i] for d in away.values()) for i in picks}  # competition ranks
    fused = {i: 1 / (RRF_K + i) + 1 / (RRF_K + near[i]) for i in picks}
    return sorted(picks, key=lambda i: -fused[i])


def named_speaker(
    hits: Sequence[Hit], terms: frozenset[str], analyzer: Analyzer = DEFAULT_ANALYZER
) -> str | None:
    """The one speaker of ``hits`` (their windows included) whose first name is among the question's
    ``terms``; None when the question names none or several."""
    names = {w.turn.speaker for h in hits for w in h.window} | {h.turn.speaker for h in hits}
    named = [n for n in names if (stems := analyzer.analyze(n)) and stems[0] in terms]
    return named[0] if len(named) == 1 else None


class NoteBudget:
    """Notes bought with evidence tokens: each block cut to its share of the budget (the turns nearest its
    hit kept), a block whose turns are mostly noted already skipped, and the rest taken while the budget
    lasts, those covering more of the question's terms first."""

    def __init__(self, spend: Tuning) -> None:
        self.budget = spend.evidence_tokens * CHARS_PER_TOKEN
        self.block = max(BLOCK_MIN, int(self.budget * spend.block_share))
        self.used = 0  # characters of the notes so far, as stage 2 reads them
        self.cut: dict[str, Turn] = {}  # turns noted in part: any later block shows them so

    def spent(self) -> bool:
        return self.used >= self.budget

    def take(
        self,
        toolbox: Toolbox,
        picks: Iterable[int],
        terms: frozenset[str],
        covered: Callable[[Sequence[str]], Sequence[str]] = list,
    ) -> None:
        """Note the last search's blocks ``picks`` (1-based) that add turns the notes lack and fit the
        budget. ``covered`` reads a hit's terms as the question's (another spelling as the words it stands
        for)."""
        hits = list(toolbox.last_hits)
        noted = {t for n in toolbox.notes for t in n.turn_ids}
        sessions = {n.session_id for n in toolbox.notes}
        chosen = []
        order = sorted(picks, key=lambda i: -coverage(covered(hits[i - 1].terms), terms))
        for i in order:
            header = 0 if hits[i - 1].turn.session_id in sessions else _header(hits[i - 1])
            hit = _cut(self.keep_cut(hits[i - 1]), noted, min(self.block, self.budget - self.used) - header)
            if hit is None:
                continue
            ids = {w.turn.id for w in hit.window}
            if len(ids & noted) >= REDUNDANT * len(ids):
                continue
            cost = header + sum(_chars(w.turn) for w in hit.window if w.turn.id not in noted)
            if self.used + cost > self.budget:  # a cut turn's newlines, indented, can tip it over
                continue
            self.used += cost
            if hit.turn.text != hits[i - 1].turn.text:
                self.cut[hit.turn.id] = hit.turn
            noted |= ids
            sessions.add(hit.turn.session_id)
            hits[i - 1] = hit
            chosen.append(i)
        if chosen:
            toolbox.last_hits = tuple(hits)
            toolbox.call("take_note", {"indices": sorted(chosen)})

    def keep_cut(self, hit: Hit) -> Hit:
        if not self.cut.keys() & {w.turn.id for w in hit.window}:
            return hit
        window = tuple(w._replace(turn=self.cut.get(w.turn.id, w.turn)) for w in hit.window)
        return hit._replace(turn=self.cut.get(hit.turn.id, hit.turn), window=window)


# How stage 2 reads the notes (``answer.evidence``): each turn a line "[n] time speaker: text" (its own
# newlines indented by four), each session a header naming its chat, source and times, and a blank line.
CHARS_PER_TOKEN = 4
TURN_CHARS = 26
SESSION_CHARS = 73
# The least of a long hit turn worth a note, and the least room a block has under a small budget.
CUT_MIN = 400
BLOCK_MIN = 600


def _chars(turn: Turn) -> int:
    text = said(turn.speaker, turn.text)
    body = prompts.turn_text(text, length=turn.whole(text))
    return len(body) + 4 * body.count("\n") + len(turn.speaker) + TURN_CHARS


def _header(hit: Hit) -> int:
    return SESSION_CHARS + len(hit.chat.name) + len(hit.chat.source)


def _cut(hit: Hit, noted: set[str], room: int) -> Hit | None:
    """``hit`` with the turns of its window nearest the hit turn that fit ``room`` characters (turns noted
    already cost nothing). A hit turn longer than the room (an assistant's long reply) is cut to the part
    around its match, as a model is shown a turn past ``MODEL_CHARS``; None when not even ``CUT_MIN``
    characters fit."""
    window = hit.window or (WindowTurn(hit.turn, True),)
    center = next(i for i, w in enumerate(window) if w.hit)

    def cost(w: WindowTurn) -> int:
        return 0 if w.turn.id in noted else _chars(w.turn)

    used = cost(window[center])
    if used > room:
        if room < CUT_MIN:
            return None
        turn = hit.turn
        limit = room - _chars(turn._replace(text="", length=None)) - 4
        view = snippet(turn.text, hit.terms, limit, hit.chat.lang, turn.length)
        end = view.start + len(view.text)
        text = ("… " if view.start else "") + view.text + (" …" if end < view.length else "")
        cut = turn._replace(text=text, length=None)
        return hit._replace(turn=cut, window=(WindowTurn(cut, True),))
    lo = hi = center
    for step in range(1, len(window)):
        grew = False
        for j in (center + step, center - step):
            if 0 <= j < len(window) and (j == hi + 1 or j == lo - 1) and used + cost(window[j]) <= room:
                used += cost(window[j])
                lo, hi, grew = min(lo, j), max(hi, j), True
        if not grew:
            break
    return hit._replace(window=window[lo : hi + 1])


def _widened(since: datetime, until: datetime) -> tuple[datetime, datetime]:
    """A range with nothing in it may be read too narrowly ("last week" may mean the one before): the range
    grown by its own length on both sides, at least a day."""
    pad = max(until - since + timedelta(microseconds=1), timedelta(days=1))
    return since - pad, until + pad


class _Rarity:
    """How rare a word is in the archive: the index's count of the turns that hold it, or, for a search
    function without one, the search's own count (a search per word, limited to the run's chats)."""

    def __init__(self, toolbox: Toolbox) -> None:
        self.toolbox = toolbox
        self._df: dict[str, int] = {}

    def df(self, term: str) -> int:
        if term not in self._df:
            if self.toolbox.doc_freq is not None:
                self._df[term] = self.toolbox.doc_freq(term)
            else:
                from refind_cli.request import SearchRequest

                request = SearchRequest(term, k=1, window=0, chats=self.toolbox.chats, session_rank=False)
                self._df[term] = self.toolbox.search_fn(request).total
        return self._df[term]

    def __call__(self, stem: str) -> float:
        """0 for a stem only one turn holds (it leads nowhere new) or a common one; else the rarer, the
        higher."""
        n = self.df(stem)
        if n < 2 or n > RARE_MAX:
            return 0.0
        return 1.0 / math.log2(1 + n)
