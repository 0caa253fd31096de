"""The offline answer: what the question asks for (a date, a person, a place, a number, yes or no), the noted
sentences scored by the question's words and by holding an answer of that kind, and one direct answer line
before the supporting quotes. Deterministic, no model; nothing here imports litellm.

A sentence's score is the weighted share of the question's terms it holds (its speaker's name counts as
held: "when did Caroline go ..." is answered by Caroline's own "I went ... yesterday"), plus a bonus when it
holds an answer of the asked kind. Rare terms weigh more (the index's document frequency when the search
has one). A "when" answer is the date a time expression in the sentence names, read against the message's
own date ("yesterday" said on 8 May is 7 May), or else the message's date itself.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from refind_cli.agent import prompts
from refind_cli.agent.answer import NOTHING_FOUND, Numbered, citation
from refind_cli.agent.events import Citation, Direct, Note
from refind_cli.dates.timeexpr import TimeRange
from refind_cli.records import Turn, said
from refind_cli.text.analysis import DEFAULT_ANALYZER, Analyzer

if TYPE_CHECKING:
    from refind_cli.agent.meaning import Meaning

WHEN, WHO, WHERE, NUMBER, YESNO, WHAT = "when", "who", "where", "number", "yes/no", "what"

# What a question asks for, by its interrogative, per language: the kind whose pattern matches first in the
# question (on a tie, the first in the table).
# ("how long ago" asks for a date; "how long" alone for an amount.)
ASKING: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        (
            WHEN,
            r"\bwhen\b|\bwhat (?:date|day|time|year|month)\b|\bwhich (?:date|day|year|month)\b|how long ago",
        ),
        (NUMBER, r"\bhow (?:many|much|often|long|old|far)\b"),
        (WHO, r"\bwho(?:m|se)?\b"),
        (WHERE, r"\bwhere\b|\b(?:what|which) (?:city|country|place|town|state|restaurant|shop|store)\b"),
        (YESNO, r"^(?:did|does|do|is|are|was|were|has|have|had|can|could|will|would|should)\b"),
    ),
    "de": (
        (WHEN, r"\bwann\b"),
        (NUMBER, r"\bwie (?:viele?|oft|lange|alt|weit)\b|\bwieviele?\b"),
        (WHO, r"\bwer\b|\bwen\b|\bwem\b|\bwessen\b"),
        (WHERE, r"\bwo(?:hin|her)?\b"),
        (YESNO, r"^(?:hat|hast|habe|haben|hatte|ist|bist|sind|war|waren|wird|kann)\b"),
    ),
    "es": (
        (WHEN, r"\bcu[aá]ndo\b"),
        (NUMBER, r"\bcu[aá]nt[oa]s?\b"),
        (WHO, r"\bqui[eé]n(?:es)?\b"),
        (WHERE, r"\b(?:a)?d[oó]nde\b"),
    ),
    "fr": (
        (WHEN, r"\bquand\b"),
        (NUMBER, r"\bcombien\b"),
        (WHO, r"\bqui\b"),
        (WHERE, r"(?:^|\s)o[uù](?:\s|$)"),
    ),
    "pt": ((WHEN, r"\bquando\b"), (NUMBER, r"\bquant[oa]s?\b"), (WHO, r"\bquem\b"), (WHERE, r"\bonde\b")),
    "it": ((WHEN, r"\bquando\b"), (NUMBER, r"\bquant[ioea]\b"), (WHO, r"\bchi\b"), (WHERE, r"\bdove\b")),
    "nl": (
        (WHEN, r"\bwanneer\b"),
        (NUMBER, r"\bhoeveel\b|\bhoe (?:vaak|lang|oud)\b"),
        (WHO, r"\bwie\b"),
        (WHERE, r"\bwaar\b"),
    ),
    "ru": ((WHEN, r"когда"), (NUMBER, r"сколько"), (WHO, r"(?<!\w)кто(?!\w)"), (WHERE, r"где|куда|откуда")),
    "tr": ((WHEN, r"\bne zaman\b"), (NUMBER, r"\bka[çc]\b"), (WHO, r"\bkim"), (WHERE, r"\bnere")),
}
# A question about what happened ("when did ...") is answered by a date at or before the message, not by
# the date of a plan it mentions ("moved the dentist to 28 April").
PAST_RE = {
    # "has lost" is past, "does she have" is not
    "en": r"\b(?:did|was|were|had)\b|\b\w+ed\b|^(?!.*\bdo(?:es)?\b).*\b(?:has|have)\b",
    "de": r"\b(?:hat|hast|habe|haben|hatte|war|waren|wurde)\b",
}
_COMPILED = {
    lang: tuple((kind, re.compile(rx, re.I)) for kind, rx in table) for lang, table in ASKING.items()
}


@dataclass(frozen=True, slots=True)
class Scoring:
    """The weights of a sentence's score, chosen by cross-validation over the LoCoMo dev conversations
    (bench/answer_cv.py, bench/RESULTS.md "issue 23")."""

    # Bonus of a sentence holding an answer of the asked kind, on top of its share of the question's terms.
    kind_bonus: float = 0.15
    # The note's hit turn: the search ranked it first among its block.
    hit_bonus: float = 0.0
    # A question's share of the terms, kept by the question itself and given to the reply after it.
    asked: float = 1.0
    reply: float = 0.8
    # A question that names people of the chat is answered by what they said: another's sentence weighs this.
    other_speaker: float = 0.5
    # A report of the asked event scoring this share of the best sentence's score is close enough to answer.
    report_floor: float = 0.5
    # A turn is read with the turns before it in its session, up to ``reach`` turns back: the question's
    # terms they hold and the sentence does not count ``context`` of theirs ("the charity race" said, then
    # "I'm starting to realize that self-care is really important").
    reach: int = 3
    context: float = 0.25
    # Bonus of a sentence whose date (its time expression's, else its message's) lies in the time the
    # question names ("camping in June").
    in_time: float = 0.3
    # A turn is also weighed by where it was said, as the search's session fusion weighs it: this share of
    # the best score in its session counts with its own.
    session: float = 0.5
    # A question's term the sentence lacks counts this share of its weight times its best cosine with one of
    # the sentence's words (``agent.meaning``), from ``SOFT_FROM`` ("kids" held by "children"), weighed by
    # how much of the question the model knows.
    soft: float = 0.25

    @property
    def reads_meaning(self) -> bool:
        """Whether the meaning model counts: it is loaded only then."""
        return bool(self.soft)


SCORING = Scoring()
QUOTES = 5
# Words this close in WordLlama's vectors are another form or a near meaning ("kids" and "children" 0.87, "car"
# and "vehicle" 0.69, "picture" and "photo" 0.77); below, mostly a shared topic ("doctor" and "dentist" 0.19).
SOFT_FROM = 0.5
# A turn is read this far for sentences: a pasted book would cost seconds of date reading for nothing.
TURN_CHARS = 20_000
QUOTE_CHARS = 300
LABEL = "Extractive answer (offline, no language model): the noted messages that best answer the question."
NO_ANSWER = {
    WHO: "No person in the notes answers this",
    WHERE: "No place in the notes answers this",
    NUMBER: "No number in the notes answers this",
}

# The words that make a time expression relative to the day it is said ("yesterday", "last", "ago"), for
# English; the other languages' come from their tables in ``timewords``.
RELATIVE_EN = frozenset("today yesterday tomorrow tonight last previous past this ago next coming".split())
WORD_RE = re.compile(r"[^\W\d_]+")
DAY = timedelta(days=1)
YEAR_RE = re.compile(r"(?<!\d)\d{4}(?!\d)")
# A past form of a verb, and the words that make a sentence a plan or a duty rather than a report.
REPORTS = {
    "en": (
        re.compile(r"\b[a-z]+ed\b"),
        re.compile(
            r"\b(?:will|shall|gonna|going to|have to|had to|has to|need to|needs to|want to|plan to)\b|'ll\b"
        ),
    )
}
# A sentence ends at . ! ? before a space or the end, but not after a title ("Dr. Okafor"), and at a line.
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b[A-Z][a-z]\.)(?<!\b[A-Z]\.)\s+|\n+")
# Nor after a number with a dot before a word in lower case or a number: the day or year of a date
# ("14. marca 2025", "2025. március 14.", "2025. 3. 14.").
DATE_DOT = re.compile(r"[0-9]\.\Z")
# A capitalised word not at a sentence's start: a name (of a person or a place).
NAME_RE = re.compile(r"(?<=[\w,;:)] )[A-ZÀ-ÖØ-ÞА-Я][\w'’-]+(?:\.? [A-ZÀ-ÖØ-ÞА-Я][\w'’-]+)*")
PLACE_BEFORE = {"en": r"\b(?:in|at|to|from|near|visited|visit|moved to)\s+(?:the\s+)?$"}
DIGITS_RE = re.compile(r"\d+(?:[.,]\d+)?")
BRACKETED_RE = re.compile(r"\([^)]*\)|\[[^\]]*\]")


@dataclass(frozen=True, slots=True)
class Asked:
    kind: str  # WHEN, WHO, WHERE, NUMBER, YESNO or WHAT (anything else)
    past: bool  # about what happened: a date at or before the message answers it


def asked(question: str, lang: str = "en") -> Asked:
    """What ``question`` asks for, read in ``lang``. A language without interrogatives in ``ASKING`` (no
    maintained library lists them) asks for a date when it names a date field as CLDR writes it ("w którym
    roku", "hangi yılda"); anything else it asks is WHAT, read by its terms alone."""
    text = " ".join(question.lower().split())
    table = _COMPILED.get(lang)
    if table is None:
        from refind_cli.dates import cldr

        return Asked(WHEN if cldr.names_a_date_field(text, lang) else WHAT, False)
    # The interrogative that comes first asks: "who supports her when she ..." asks for a person.
    found = [(m.start(), n, k) for n, (k, rx) in enumerate(table) if (m := rx.search(text))]
    kind = min(found)[2] if found else WHAT
    past = PAST_RE.get(lang)
    return Asked(kind, bool(past and re.search(past, text)))


@dataclass(frozen=True, slots=True)
class Scored:
    """One noted sentence, scored; ``value`` is the answer of the asked kind it holds, as shown."""

    score: float
    sentence: str
    item: Numbered
    value: str | None
    # For WHEN: the range it answers (an expression read against the message's date, or the message's day)
    when: tuple[datetime, datetime] | None
    said_on: bool  # for WHEN: the day is the message's own, no expression in it named one
    report: bool = False  # tells of the asked event as done ("moved the dentist"), for a past question
    expression: str = ""  # for WHEN: the time expression the date was read from


@dataclass(frozen=True, slots=True)
class Extracted:
    asked: Asked
    ranked: tuple[Scored, ...]  # best first; one per turn

    @property
    def best(self) -> Scored | None:
        return self.ranked[0] if self.ranked else None


def _next_year(t: datetime) -> datetime:
    try:
        return t.replace(year=t.year + 1)
    except ValueError:  # 29 February
        return t.replace(year=t.year + 1, day=28)


def day_text(t: datetime, tz: tzinfo) -> str:
    local = t.astimezone(tz)
    return f"{local.day} {local:%B %Y}"


class _Reader:
    """What each kind of answer looks like in one language."""

    def __init__(self, analyzer: Analyzer, speakers: frozenset[str], tz: tzinfo) -> None:
        from refind_cli.agent.offline import NUMBERS
        from refind_cli.dates import cldr
        from refind_cli.dates.timewords import LANGUAGES

        lang = analyzer.lang
        self.lang, self.tz, self.stopwords = lang, tz, analyzer.stopwords
        # A language with no time-word table of its own reads its dates from CLDR (``dates.cldr``), its
        # numbers as digits only.
        self.cldr = cldr.reads(lang)
        # A language with a grammar reads other languages' date words after it; English reads none.
        self.kin = not self.cldr and lang.split("+")[0] not in ("en", "und", "")
        words = LANGUAGES[lang].numbers if lang in LANGUAGES else {}
        if lang == "en":
            words = {w: 0 for w in NUMBERS if w.isalpha()}
        alternatives = "|".join(map(re.escape, sorted(words, key=len)[::-1]))
        self.number_re = re.compile(rf"\b(?:{alternatives})\b", re.I) if words else None
        self.place_before = re.compile(PLACE_BEFORE.get(lang, PLACE_BEFORE["en"]), re.I)
        self.speakers = speakers
        self.relative = RELATIVE_EN
        if lang in LANGUAGES:
            w = LANGUAGES[lang]
            tables = (w.days, w.rel_before, w.rel_after, w.ago_before, w.ago_after, w.now)
            self.relative = frozenset(
                word.lower() for table in tables for phrase in table for word in phrase.split()
            )

    def date(self, sentence: str, at: datetime, past: bool) -> TimeRange | None:
        """The first date ``sentence`` names, said at ``at``. A date without a year ("on 14 April", "the
        14th") is a plan as often as a memory: for what happened (``past``) only an expression read
        against the day it was said ("yesterday", "last week", "3 days ago") or one with its year counts;
        otherwise only a date from the day it was said on answers, a date without a year being its next
        occurrence ("camping in June", said in July, is next June)."""
        from refind_cli.dates.timeexpr import find_ranges

        if self.cldr:
            from refind_cli.dates import cldr

            # CLDR says nothing of tenses: the first date the sentence names answers.
            found = cldr.find_any(sentence, now=at, tz=self.tz, lang=self.lang)
            return found[0] if found else None
        for r in find_ranges(sentence, now=at, tz=self.tz, lang=self.lang):
            dated = bool(YEAR_RE.search(r.text))
            deictic = any(w in self.relative for w in WORD_RE.findall(r.text.lower()))
            if past:
                if (dated or deictic) and r.start <= at:
                    return r
            elif r.end >= at.replace(hour=0, minute=0, second=0, microsecond=0):
                return r
            elif not (dated or deictic) and r.end < at - timedelta(days=31):
                return TimeRange(_next_year(r.start), _next_year(r.end), r.text)
        if self.kin:  # a word of another language the grammar does not read (Tatar in a chat told Russian)
            from refind_cli.dates import cldr

            return next(iter(cldr.kin(sentence, [], now=at, tz=self.tz)), None)
        return None

    def reports(self, sentence: str, terms: frozenset[str], analyzer: Analyzer) -> bool:
        """Whether ``sentence`` tells of one of ``terms`` as done ("moved the dentist"), not as a plan
        ("I'll move it", "I had to move it"): English's past tense, where the language has a rule."""
        rule = REPORTS.get(self.lang)
        if rule is None:
            return False
        past, plan = rule
        lowered = sentence.lower()
        done = any(set(analyzer.analyze(m[0])) & terms for m in past.finditer(lowered))
        return done and not plan.search(lowered)

    def name(self, m: re.Match[str]) -> bool:
        """Whether a capitalised word is a name, not a function word written with a capital ("I'll")."""
        return re.split(r"['’]", m[0].lower(), maxsplit=1)[0] not in self.stopwords

    def person(self, sentence: str, speaker: str) -> str | None:
        for m in NAME_RE.finditer(sentence):
            if m[0] != speaker and self.name(m) and not self.place_before.search(sentence[: m.start()]):
                return m[0]
        for other in sorted(self.speakers - {speaker}):  # sorted: the same answer every run
            first = other.split()[:1]
            if first and re.search(rf"(?<!\w){re.escape(first[0])}(?!\w)", sentence, re.I):
                return other
        return None

    def place(self, sentence: str) -> str | None:
        for m in NAME_RE.finditer(sentence):
            if self.place_before.search(sentence[: m.start()]) and m[0] not in self.speakers and self.name(m):
                return m[0]
        return None

    def number(self, sentence: str) -> str | None:
        m = DIGITS_RE.search(sentence) or (self.number_re and self.number_re.search(sentence))
        return m[0] if m else None


@dataclass(frozen=True, slots=True)
class Sentence:
    """One noted sentence as read, before any weighing."""

    text: str
    held: frozenset[str]  # the question's terms it holds (its speaker's name among them)
    share: float  # their weight, as a share of all the question's terms
    asks: bool  # it is a question itself
    value: str | None  # the answer of the asked kind it holds, as shown
    when: tuple[datetime, datetime] | None  # for WHEN: the range it answers
    expression: str  # for WHEN: the time expression the range was read from ("": the message's day)
    report: bool  # for a past question: it tells of the asked event as done
    soft: float = 0.0  # the share of the terms it lacks, held by a word near in meaning (``Scoring.soft``)


@dataclass(frozen=True, slots=True)
class Read:
    """One noted turn, read sentence by sentence."""

    item: Numbered
    hit: bool  # the search's hit turn of a note
    theirs: bool  # said by a person the question names (or it names none)
    sentences: tuple[Sentence, ...]
    held: frozenset[str]  # the question's terms any of its sentences holds


@dataclass(frozen=True, slots=True)
class Reading:
    """The notes of a question, read: what ``rank`` weighs (as many times as a tuning needs)."""

    asked: Asked
    weight: tuple[tuple[str, float], ...]  # each term's weight
    turns: tuple[Read, ...]  # in session order
    known: float = 0.0  # the share of the question's words the meaning model knows (0: none, or no model)


def read(
    question: str,
    terms: frozenset[str],
    notes: Sequence[Note],
    *,
    tz: tzinfo,
    analyzer: Analyzer = DEFAULT_ANALYZER,
    doc_freq: Callable[[str], int] | None = None,
    meaning: Meaning | None = None,
) -> Reading:
    """Every sentence of every noted turn: the question's ``terms`` (analysed) it holds, and the answer of
    the asked kind in it; with ``meaning``, also the terms it holds in other words."""
    what = asked(question, analyzer.lang)
    people = frozenset(t.speaker for n in notes for t in n.turns)
    reader = _Reader(analyzer, people, tz)
    # A person's name is held by what they say, not by a message that names them: in a chat, a name in
    # the text mostly speaks to someone ("thanks, Caroline!"), and the question asks about them.
    names = terms & set(analyzer.analyze(" ".join(map(person_name, people))))
    turns: dict[str, tuple[Numbered, bool]] = {}
    for note in notes:
        for turn in note.turns:
            hit = turn.id == note.hit_turn_id
            if turn.id not in turns or hit:
                turns[turn.id] = (Numbered(0, turn, note.chat), hit)
    ordered = sorted(turns.values(), key=lambda v: (v[0].turn.session_id, v[0].turn.ordinal))
    weight = _weights(terms, doc_freq)
    total = math.fsum(weight.values()) or 1.0
    texts = [_sentences(said(item.turn.speaker, item.turn.text)[:TURN_CHARS]) for item, _ in ordered]
    known = meaning.known(question, analyzer.stopwords) if meaning is not None else 0.0
    # The question's words by the term each reads as (a name is held by its speaker, not by a near word).
    wording = {t: w for w in WORD_RE.findall(question) for t in analyzer.analyze(w) if t in terms}
    wording = {t: w for t, w in wording.items() if t not in names}
    flat = [s for parts in texts for s in parts]
    words = [[w for w in WORD_RE.findall(s) if w.lower() not in analyzer.stopwords] for s in flat]
    near_by = iter(
        meaning.nearest(list(wording.values()), words, SOFT_FROM)
        if meaning is not None and known and wording
        else [[0.0] * len(wording) for _ in flat]
    )
    out = []
    for (item, hit), parts in zip(ordered, texts, strict=True):
        turn = item.turn
        own = set(analyzer.analyze(person_name(turn.speaker)))
        sentences = []
        for text in parts:
            held = frozenset(((set(analyzer.analyze(text)) - names) | own) & terms)
            value, when, expression = _value(what, reader, text, turn, tz)
            report = what.past and reader.reports(text, terms, analyzer)
            share = math.fsum(weight[t] for t in held) / total
            cos = dict(zip(wording, next(near_by), strict=True))
            soft = math.fsum(weight[t] * c for t, c in cos.items() if t not in held) / total
            sentences.append(
                Sentence(text, held, share, text.endswith("?"), value, when, expression, report, soft)
            )
        theirs = not names or bool(own & names)
        held_any = frozenset().union(*(s.held for s in sentences))
        out.append(Read(item, hit, theirs, tuple(sentences), held_any))
    return Reading(what, tuple(weight.items()), tuple(out), known)


def rank(
    reading: Reading,
    *,
    scoring: Scoring = SCORING,
    during: tuple[datetime, datetime] | None = None,
    speakers: Sequence[str] | None = None,
) -> Extracted:
    """Each noted turn's best sentence, best first. A sentence that asks (ends in "?") is no answer
    itself: its share of the terms goes to the reply after it, the next turn by someone else, which answers
    it in the words of the question it answers. With ``speakers``, only their turns are quoted; ``during``:
    the time the question names (the planner's range)."""
    what = reading.asked
    weight = dict(reading.weight)
    total = math.fsum(weight.values()) or 1.0
    best: dict[str, Scored] = {}
    asking = 0.0  # the share of the question's terms the previous turn asked about
    previous = None
    # The turns before this one in its session: (turn, the question's terms it holds).
    before: list[tuple[Turn, frozenset[str]]] = []
    for read_turn in reading.turns:
        item, turn = read_turn.item, read_turn.item.turn
        follows = previous is not None and previous.session_id == turn.session_id
        replying = follows and previous is not None and previous.speaker != turn.speaker
        reply = scoring.reply * asking if replying else 0.0
        before = [
            b
            for b in before
            if b[0].session_id == turn.session_id and turn.ordinal - b[0].ordinal <= scoring.reach
        ]
        around = frozenset().union(*(b[1] for b in before))
        # A question about someone is answered by what they said: others' turns weigh less.
        factor = 1.0 if read_turn.theirs else scoring.other_speaker
        asking = 0.0
        top, top_score = read_turn.sentences[0], -1.0
        # A turn holding none of the question, with nothing before it that does, scores nothing.
        idle = not (read_turn.held or around or reply)
        for sentence in () if idle else read_turn.sentences:
            share = sentence.share + reading.known * scoring.soft * sentence.soft
            if sentence.asks:
                asking = max(asking, share)
                share *= scoring.asked
            if around and scoring.context:
                share += scoring.context * math.fsum(weight[t] for t in around - sentence.held) / total
            lifted = share + reply
            score = 0.0
            if lifted:
                said_on = what.kind == WHEN and not sentence.expression
                bonus = scoring.kind_bonus if sentence.value is not None and not said_on else 0.0
                if during and scoring.in_time:
                    lo, hi = sentence.when or (turn.start, turn.end)
                    bonus += scoring.in_time if lo <= during[1] and hi >= during[0] else 0.0
                score = factor * lifted + bonus + (scoring.hit_bonus if read_turn.hit else 0.0)
            if score > top_score:
                top, top_score = sentence, score
        top_score = max(top_score, 0.0)
        best[turn.id] = Scored(
            top_score,
            top.text,
            item,
            top.value,
            top.when,
            what.kind == WHEN and not top.expression,
            top.report,
            top.expression,
        )
        previous = turn
        before.append((turn, read_turn.held))
    # Its own score, before its session's: what makes a report of the event close enough to the best.
    own = {k: s.score for k, s in best.items()}
    if scoring.session:
        session_best: dict[str, float] = {}
        for s in best.values():
            sid = s.item.turn.session_id
            session_best[sid] = max(session_best.get(sid, 0.0), s.score)
        best = {
            k: replace(s, score=s.score + scoring.session * session_best[s.item.turn.session_id])
            for k, s in best.items()
        }
    ranked = sorted(
        (s for s in best.values() if speakers is None or s.item.turn.speaker in speakers),
        key=lambda s: (-s.score, s.item.turn.start, s.item.turn.session_id, s.item.turn.ordinal),
    )
    if what.kind == WHEN and what.past and ranked and ranked[0].said_on:
        # Where no sentence names a date, the first report of the event dates it: before it are plans
        # ("I'll move it"), after it retellings ("Mum I moved the dentist!").
        floor = scoring.report_floor * max(own[s.item.turn.id] for s in ranked)
        near_best = [s for s in ranked if s.report and own[s.item.turn.id] >= floor]
        if near_best:
            first = min(near_best, key=lambda s: s.item.turn.start)
            ranked.remove(first)
            ranked.insert(0, first)
    return Extracted(what, tuple(ranked))


def time_named(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime] | None:
    """The planner's time range as ``rank``'s ``during`` (open ends open); None when it set none."""
    if since is None and until is None:
        return None
    return since or datetime.min.replace(tzinfo=UTC), until or datetime.max.replace(tzinfo=UTC)


def _value(
    what: Asked, reader: _Reader, sentence: str, turn: Turn, tz: tzinfo
) -> tuple[str | None, tuple[datetime, datetime] | None, str]:
    """The answer of the asked kind ``sentence`` holds, as shown; for WHEN also its range and the
    expression it was read from ("" when it is only the day the sentence was said)."""
    if what.kind == WHEN:
        found = reader.date(sentence, turn.start, what.past)
        if found is None:
            return day_text(turn.start, tz), (turn.start, turn.end), ""
        return span_text(found.start, found.end, tz), (found.start, found.end), found.text
    if what.kind == WHO:
        return reader.person(sentence, turn.speaker), None, ""
    if what.kind == WHERE:
        return reader.place(sentence), None, ""
    if what.kind == NUMBER:
        return reader.number(sentence), None, ""
    return None, None, ""


def person_name(speaker: str) -> str:
    """A speaker's name without what a display name adds in brackets (a title, a team, pronouns):
    "Sophie (People & Office)" is Sophie, and a question about the office is not about her."""
    return BRACKETED_RE.sub(" ", speaker)


def _weights(terms: frozenset[str], doc_freq: Callable[[str], int] | None) -> dict[str, float]:
    """A term's weight: its inverse document frequency, so a rare word counts more than a common one.
    Weights are summed with ``math.fsum``: a set's order changes with PYTHONHASHSEED, and a float sum taken
    in another order can differ in its last bit and break a tie between two sentences the other way."""
    if doc_freq is None:
        return dict.fromkeys(terms, 1.0)
    return {t: 1.0 / math.log2(2 + doc_freq(t)) for t in terms}


def _sentences(text: str) -> list[str]:
    found: list[str] = []
    for part in SENTENCE_END.split(text):
        part = " ".join(part.split())
        if found and DATE_DOT.search(found[-1]) and (part[:1].islower() or part[:1].isdigit()):
            found[-1] += " " + part
        elif part:
            found.append(part)
    return found or [" ".join(text.split())]


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def span_text(start: datetime, end: datetime, tz: tzinfo) -> str:
    """A range as a person says it: a day, a month, a year, or from one day to another."""
    lo, hi = start.astimezone(tz), end.astimezone(tz)
    if lo.date() == hi.date():
        return day_text(lo, tz)
    if (lo.day, lo.month, hi.month, hi.day) == (1, 1, 12, 31) and lo.year == hi.year:
        return str(lo.year)
    if lo.day == 1 and (lo.year, lo.month) == (hi.year, hi.month) and (hi + DAY).day == 1:
        return f"{lo:%B %Y}"
    return f"{day_text(lo, tz)} to {day_text(hi, tz)}"


def answer_line(found: Extracted, tz: tzinfo) -> str:
    """The direct answer: the best sentence, led by the answer of the asked kind it holds (a date read
    from an expression names the expression and the day it was said)."""
    best = found.best
    if best is None:
        return NOTHING_FOUND
    t, said_in = best.item.turn, f"{best.item.turn.speaker} in {best.item.chat.name}"
    quote = clip(best.sentence)
    kind = found.asked.kind
    if kind == WHEN and best.when is not None:
        if best.said_on:
            return f"{best.value} — {said_in}: {quote} [1]"
        return f'{best.value} ("{best.expression}", said {day_text(t.start, tz)}) — {said_in}: {quote} [1]'
    if best.value is not None:
        return f"{best.value} — {said_in}, {day_text(t.start, tz)}: {quote} [1]"
    lead = NO_ANSWER.get(kind)
    if lead:
        return f"{lead}; the closest message — {said_in}, {day_text(t.start, tz)}: {quote} [1]"
    return f"{said_in}, {day_text(t.start, tz)}: {quote} [1]"


def quoted(found: Extracted) -> list[Scored]:
    """The sentences the answer quotes, best first: those that score (they, the turns before them or their
    session hold any of the question), else the best."""
    return [s for s in found.ranked if s.score > 0][:QUOTES] or list(found.ranked[:1])


def extractive_answer(found: Extracted, *, tz: tzinfo) -> tuple[str, list[Citation], Direct | None]:
    """The answer ``rank`` found as text: the direct answer line, the extractive label, then the
    supporting quotes best first, each cited; and the direct answer as a record (None: nothing noted)."""
    quotes = quoted(found)
    if not quotes:
        return NOTHING_FOUND, [], None
    lines = [answer_line(Extracted(found.asked, tuple(quotes)), tz), LABEL]
    for k, s in enumerate(quotes, 1):
        t = s.item.turn
        # Cut before splitting: a 50-MB turn split into words is a list of millions (issue 24).
        text = clip(" ".join(said(t.speaker, t.text)[: 4 * QUOTE_CHARS].split()))
        lines.append(f"[{k}] {prompts.fmt_time(t.start, tz)} {t.speaker} in {s.item.chat.name}: {text}")
    best = quotes[0]
    start, end = best.when if best.when else (None, None)
    direct = Direct(found.asked.kind, best.value, start, end)
    return "\n".join(lines), [citation(s.item) for s in quotes], direct
