"""Bounded views of a turn's text, so that a huge turn (one 50 MB message) costs a search what its snippet
costs, not what the whole turn would.

A turn longer than a view's limit is shown as a window of that many characters around its first match (or
its beginning, for a context turn). Finding the match reads the text in chunks with a C-speed pass (a set
of the chunk's whitespace-separated tokens, so each distinct token is analysed once), and only the one chunk
that holds the match goes through the slow word-by-word highlighter. Memory stays at a chunk's worth.
"""

from __future__ import annotations

# No ``from __future__ import annotations``: a named tuple's string annotations cost a search (``records``).
import re
from collections.abc import Collection, Iterable, Iterator

from refind_cli.text.analysis import Analyzer, highlighter_for
from refind_cli.typed import NamedTuple

# A hit printed in the terminal: about one 80 x 50 screen. Longer turns are rare in real chats (none in the
# sample exports or LoCoMo; 1% of LongMemEval's assistant exchanges) and get a window around the match.
TERMINAL_CHARS = 4_000
# `text` of a turn in `refind search --json`: as much as the turn cap lets a turn of many messages hold
# (segment.Caps.turn_chars), so only a single message over that size is ever cut; `refind show --json`
# gives it whole.
JSON_CHARS = 100_000

_CHUNK = 1 << 16  # at least _SLACK
# How far a chunk boundary may move to fall on whitespace, or failing that on any non-word character. A
# token longer than this on both sides of a boundary is cut there: analysis drops words over 40 characters,
# so only a CJK bigram across the cut is lost.
_SLACK = 64
_BREAK = re.compile(r"\s|[\W_]")


class Snippet(NamedTuple):
    text: str  # the characters shown
    start: int  # where they begin in the whole text
    length: int  # the whole text's length in characters

    @property
    def truncated(self) -> bool:
        return len(self.text) < self.length


def _cut(text: str, at: int) -> int:
    """A chunk boundary near ``at``: the end of the text or after a whitespace (else a non-word character)
    within the slack ahead, else after one within the slack behind, else ``at`` itself."""
    if at + _SLACK >= len(text):
        return len(text)
    ahead = text[at : at + _SLACK]
    space = next((i for i, ch in enumerate(ahead) if ch.isspace()), None)
    if space is not None:
        return at + space + 1
    if m := _BREAK.search(ahead):
        return at + m.end()
    behind = text[max(0, at - _SLACK) : at]
    for i in range(len(behind) - 1, -1, -1):
        if _BREAK.match(behind, i):
            return at - len(behind) + i + 1
    return at


def _chunks(text: str) -> Iterator[tuple[int, str]]:
    """(offset, chunk) pieces of ``text`` of about ``_CHUNK`` characters, cut between words."""
    start = 0
    while start < len(text):
        end = _cut(text, start + _CHUNK)
        if end <= start:
            end = min(len(text), start + _CHUNK)
        yield start, text[start:end]
        start = end


def _terms(analyzer: Analyzer, chunk: str) -> set[str]:
    # Whitespace always separates words, so the distinct tokens hold the same terms as the chunk.
    return set(analyzer.analyze(" ".join(set(chunk.split()))))


def terms_in(analyzer: Analyzer, text: str, terms: Collection[str]) -> set[str]:
    """Which of ``terms`` the analysed ``text`` contains; reads no further than it takes to find them all."""
    wanted = set(terms)
    found: set[str] = set()
    for _, chunk in _chunks(text):
        found |= wanted & _terms(analyzer, chunk)
        if found == wanted:
            break
    return found


def highlight_spans(text: str, terms: Iterable[str], lang: str = "") -> list[tuple[int, int]]:
    """Character spans of the words of ``text`` (of a chat in ``lang``) whose analysed form is one of
    ``terms``, merged where they touch or overlap (CJK bigrams overlap)."""
    wanted = set(terms)
    if not wanted:
        return []
    spans: list[tuple[int, int]] = []
    for start, end, term in highlighter(lang).words(text):
        if term not in wanted:
            continue
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def first_match(text: str, terms: Iterable[str], lang: str = "") -> int | None:
    """Where the first word of ``text`` that highlights for ``terms`` begins."""
    wanted = set(terms)
    if not wanted:
        return None
    analyzer = highlighter(lang)
    for offset, chunk in _chunks(text):
        if wanted & _terms(analyzer, chunk):
            # The words up to the first match only: a long reply's match is often near its start.
            start = next((start for start, _, term in analyzer.words(chunk) if term in wanted), None)
            if start is not None:
                return offset + start
    return None


def snippet(
    text: str, terms: Iterable[str], limit: int, lang: str = "", length: int | None = None
) -> Snippet:
    """``text`` (of a chat in ``lang``) whole if it is at most ``limit`` characters, else a window of about
    that many around its first match (a quarter of it before the match), or its beginning if nothing
    matches. ``length``: the whole text's, where ``text`` is only its start (``Turn.length``)."""
    whole = len(text) if length is None else length
    if len(text) <= limit:
        return Snippet(text, 0, whole)
    at = first_match(text, terms, lang) or 0
    start = max(0, min(at - limit // 4, len(text) - limit))
    if start:
        start = min(_cut(text, start), at)
    end = start + limit
    if end < len(text):
        cut = _cut(text, end - _SLACK)
        end = cut if start < cut <= end else end
    return Snippet(text[start:end], start, whole)


# Stems do not depend on the stop word list, and stop words never reach ``terms``: one highlighter per
# stemmer, without stop words, serves indexes built with either list.
HIGHLIGHTER = Analyzer(stopwords=(), name="highlight")


def highlighter(lang: str) -> Analyzer:
    """The highlighter of a chat in ``lang``: English's for every language the default analyzer serves."""
    return highlighter_for(lang) or HIGHLIGHTER
