"""What people type into a search box, read by refind itself (never handed to an engine's query parser):

- plain words, as always: a turn matches any of them, and they score by BM25;
- ``"an exact phrase"``: a turn must hold the phrase's analysed terms one after another (stop words are
  not indexed, so ``"see you tomorrow"`` also finds "see, tomorrow!"); its words score like plain words;
- ``-word`` or ``-"a phrase"``: turns holding it are left out;
- ``word*``: the index's words that start with ``word`` (the most common ones), and ``word`` itself.

The syntax counts only at the start of a word (``e-mail`` and ``C++`` are plain text), and a text with an
unclosed quote is read as plain words, never as an error. A text without any of it parses to itself, so it
is analysed and ranked exactly as before the syntax existed.
"""

from __future__ import annotations

# No ``from __future__ import annotations``: a named tuple's string annotations cost a search (``records``).
import re
import unicodedata

from refind_cli.typed import NamedTuple

# A quoted phrase (with an optional "-" before it), or a run of anything else but spaces and quotes.
_TOKEN = re.compile(r'-?"[^"]*"|[^\s"]+')


class Query(NamedTuple):
    """A parsed query. ``text`` holds the plain words (the whole query when it uses no syntax); the others
    hold the texts of the phrases, of what is excluded, and of the prefixes, without their marks."""

    text: str
    phrases: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()


def parse(text: str) -> Query:
    """Read ``text`` as query syntax. Any string parses."""
    if not any(c in text for c in '"-*') or text.count('"') % 2:
        return Query(text)
    plain: list[str] = []
    phrases: list[str] = []
    excluded: list[str] = []
    prefixes: list[str] = []
    for token in _TOKEN.findall(text):
        if token.startswith('-"'):
            excluded.append(token[2:-1])
        elif token.startswith('"'):
            phrases.append(token[1:-1])
        elif token.startswith("-") and _has_word(token[1:]) and not token.startswith("--"):
            excluded.append(token[1:])
        elif token.endswith("*") and _is_word(token[:-1]):
            prefixes.append(token[:-1])
        else:
            plain.append(token)
    if not (phrases or excluded or prefixes):
        return Query(text)
    return Query(" ".join(plain), tuple(phrases), tuple(excluded), tuple(prefixes))


def _has_word(text: str) -> bool:
    return any(c.isalnum() for c in text)


def _is_word(text: str) -> bool:
    """A prefix is letters and digits only, with their combining marks (``नमस्*``, where a vowel sign or a
    virama is not "alphanumeric" to Python): ``C*`` is one, ``**`` and ``http://*`` are plain text."""
    return text[:1].isalnum() and all(c.isalnum() or unicodedata.category(c)[0] == "M" for c in text)
