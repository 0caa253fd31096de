"""The words a clock time is written with in every CLDR locale: AM/PM markers ("a. m.", "午後", "오후", "ص",
"पूर्वाह्न") and the flexible day periods some locales write instead ("下午", "in the evening", "ညနေ"), each
with the hours it names, from CLDR's day periods and day-period rules (through Babel).

Reading them from Babel takes seconds (every locale's data is loaded), too long for an import to start
with: ``generate()`` writes them once into ``stampwords_data.py``, which an import loads, and a test checks
that file against Babel. ``python -m refind_cli.dates.stampwords`` writes it again (after a Babel upgrade).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

from refind_cli.dates import stampwords_data

DAY = 24 * 60
# Marks CLDR puts inside some patterns' words (RLM, ALM, LRM): not part of the word as read.
_MARKS = re.compile("[\u061c\u200e\u200f]")
_SPACES = re.compile(r"\s+")


def key(word: str) -> str:
    """A word as looked up: without direction marks, its spaces (NBSP, narrow NBSP, thin space) one
    space, case-folded. Not NFKC: a file writes CLDR's letters as they are ("ʷ" stays)."""
    return _SPACES.sub(" ", _MARKS.sub("", word)).strip().casefold()


def known(word: str) -> bool:
    """Whether CLDR writes ``word`` as an AM/PM marker or a day period in some locale."""
    return key(word) in stampwords_data.PERIODS


def hour24(hour: int, minute: int, word: str) -> int | None:
    """The hour of a 12-hour clock time (``hour`` 1 to 12, or 0) written with ``word``: the one of its two
    readings that falls in the hours the word names; None for an unknown word, or one that names both."""
    spans = stampwords_data.PERIODS.get(key(word))
    if spans is None or hour > 12:
        return None
    readings = [h for h in (hour % 12, hour % 12 + 12) if _within(h * 60 + minute, spans)]
    return readings[0] if len(readings) == 1 else None


def _within(minute: int, spans: tuple[tuple[int, int], ...]) -> bool:
    return any(lo <= minute < hi if lo < hi else minute >= lo or minute < hi for lo, hi in spans)


@cache
def words() -> tuple[str, ...]:
    """Every word, longest first (an alternation tries them in order)."""
    return tuple(sorted(stampwords_data.PERIODS, key=lambda w: (-len(w), w)))


@cache
def first_signs() -> str:
    """The characters other than letters and digits that a word starts with (Syriac's abbreviation mark,
    an apostrophe)."""
    return "".join(sorted({w[0] for w in stampwords_data.PERIODS if not w[0].isalnum()}))


@cache
def kin(word: str) -> tuple[str, ...]:
    """The words written beside ``word`` in some locale (its own locale's other markers): what the other
    stamps of a file whose first stamp carries ``word`` can carry."""
    k = key(word)
    found = {w for group in stampwords_data.GROUPS if k in group for w in group}
    return tuple(sorted(found or {k}, key=lambda w: (-len(w), w)))


@cache  # a file's first stamp's word's kin: the same few, file after file
def pattern(found: tuple[str, ...]) -> str:
    """A pattern matching ``found`` (keys) as a file writes them: any case, any space between their parts
    (space, NBSP, narrow NBSP, thin space) or none. Factored by prefix (a trie), so that a match costs
    the length of a word, not the number of words: a plain alternation of CLDR's 800 words is tried word
    by word at every position the regex engine reaches."""
    trie: dict[str, Any] = {}
    for word in found:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return "(?i:" + _trie(trie) + ")"


def _trie(node: dict[str, Any]) -> str:
    ends = "" in node
    branches = []
    for char, child in sorted(node.items()):
        if char:
            head = "[ \u00a0\u202f\u2009]?" if char == " " else re.escape(char)
            branches.append(head + _trie(child))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:  # longest first: the engine takes the first branch that leads to a match
        return "(?:" + body + ")?"
    return body


@cache
def literals(place: str) -> str:
    """An alternation matching the literal texts CLDR writes at a place of a stamp (``PLACES``), any run of
    spaces and direction marks where they have a space (Persian's "،\u200f " between date and time)."""
    found = sorted(stampwords_data.LITERALS[place], key=lambda t: (-len(t), t))
    return "(?:" + "|".join(_spaced(t, "[ \u00a0\u202f\u2009\u200e\u200f\u061c]*") for t in found) + ")"


def _spaced(text: str, space: str) -> str:
    if not text.strip():  # a separator of spaces alone is at least one: "12345" is no date
        return space.removesuffix("*").removesuffix("?") + "++"
    # Possessive: a run of marks is never given back (two runs side by side would backtrack quadratically
    # on a line of marks).
    return (space + "+" if space.endswith("*") else space).join(re.escape(p) for p in text.split(" "))


# --- generating the table ---------------------------------------------------------------------------


Table = tuple[dict[str, tuple[tuple[int, int], ...]], tuple[tuple[str, ...], ...], dict[str, tuple[str, ...]]]
# The parts of a stamp whose literal text CLDR's patterns vary: between the date's numbers and after them,
# before and after the time's numbers (words such as "Kl.", "ч.", "น."), between hour and minute and
# minute and second, between date and time (the date-time pattern) and after both.
PLACES = ("date_sep", "date_end", "time_word", "hour_sep", "minute_sep", "glue", "glue_end")
_TIME_SKELETONS = ("hm", "Hm", "hms", "Hms")


def generate(locales: tuple[str, ...] | None = None) -> Table:
    """From Babel: each word's hour spans (minutes since midnight, end excluded, wrapping past midnight),
    each locale's words, and the literal text of each place of a stamp (``PLACES``), from the short date,
    the short and medium times of either hour cycle and the short and medium date-time patterns. The
    words are what the pattern letters ``a`` (AM/PM) and ``B`` (flexible day periods) write: the
    abbreviated format forms. ``locales``: only these (all of Babel's by default)."""
    from babel import Locale, localedata

    periods: dict[str, set[tuple[int, int]]] = {}
    groups: set[tuple[str, ...]] = set()
    literals: dict[str, set[str]] = {place: set() for place in PLACES}
    for ident in locales if locales is not None else localedata.locale_identifiers():
        loc = Locale.parse(ident)
        _literals(loc, literals)
        names = loc.day_periods.get("format", {}).get("abbreviated", {})
        rules = loc.day_period_rules.get(None, {}) if loc.day_period_rules else {}
        group = set()
        for period, name in names.items():
            spans = _spans(period, rules)
            k = key(name)
            if not spans or not k:
                continue
            periods.setdefault(k, set()).update(spans)
            group.add(k)
        if group:
            groups.add(tuple(sorted(group)))
    return (
        {w: tuple(sorted(s)) for w, s in sorted(periods.items())},
        tuple(sorted(groups)),
        {place: tuple(sorted(found - {""})) for place, found in literals.items()},
    )


def _literals(loc: Any, into: dict[str, set[str]]) -> None:
    """The literal text of each place of a stamp in ``loc``'s patterns (``PLACES``), its spaces one space."""
    from babel.dates import tokenize_pattern

    def runs(pattern: str) -> list[tuple[str, str]]:
        """(field letter or "", literal text) in order, adjacent literals joined."""
        out: list[tuple[str, str]] = []
        for kind, value in tokenize_pattern(pattern):
            if kind == "field":
                out.append((str(value[0]), ""))
            elif out and not out[-1][0]:
                out[-1] = ("", out[-1][1] + str(value))
            else:
                out.append(("", str(value)))
        return out

    def add(place: str, text: str) -> None:
        into[place].add(_SPACES.sub(" ", _MARKS.sub("", unicodedata.normalize("NFKC", text))))

    date = runs(loc.date_formats["short"].pattern)
    if {f for f, _ in date if f} <= set("yMdL"):  # numbers only: no month or era names
        fields = [i for i, (f, _) in enumerate(date) if f]
        for i, (f, text) in enumerate(date):
            if not f:
                add("date_end" if i > fields[-1] else "date_sep" if i > fields[0] else "glue", text)
    times = [loc.time_formats[w].pattern for w in ("short", "medium")]
    times += [loc.datetime_skeletons[s].pattern for s in _TIME_SKELETONS if s in loc.datetime_skeletons]
    for pattern in times:
        parts = runs(pattern)
        for i, (f, text) in enumerate(parts):
            if f:
                continue
            before = parts[i - 1][0] if i else ""
            after = parts[i + 1][0] if i + 1 < len(parts) else ""
            if before in "hHkK" and before and after == "m":
                add("hour_sep", text)
            elif before == "m" and after == "s":
                add("minute_sep", text)
            else:
                for word in text.split():
                    add("time_word", word)
    for width in ("short", "medium"):
        glue = str(loc.datetime_formats[width]).replace("'", "")  # quotes mark literal text ("{1} 'à' {0}")
        first, second = sorted(("{0}", "{1}"), key=glue.index)
        add("glue", glue[glue.index(first) + 3 : glue.index(second)])
        add("glue_end", glue[glue.index(second) + 3 :])


def _spans(period: str, rules: dict[str, list[dict[str, int]]]) -> list[tuple[int, int]]:
    if period == "am":
        return [(0, DAY // 2)]
    if period == "pm":
        return [(DAY // 2, DAY)]
    out = []
    for rule in rules.get(period, []):
        if "at" in rule:
            at = rule["at"] // 60
            out.append((at, at + 60))
        elif "from" in rule and "before" in rule:
            out.append((rule["from"] // 60 % DAY, rule["before"] // 60 % DAY or DAY))
    return out


def write(path: Path = Path(stampwords_data.__file__)) -> None:
    from refind_cli.generated import write_module

    periods, groups, literals = generate()
    write_module(
        path,
        "python -m refind_cli.dates.stampwords",
        ("PERIODS", "dict[str, tuple[tuple[int, int], ...]]", periods),
        ("GROUPS", "tuple[tuple[str, ...], ...]", groups),
        ("LITERALS", "dict[str, tuple[str, ...]]", literals),
    )


if __name__ == "__main__":
    write()
