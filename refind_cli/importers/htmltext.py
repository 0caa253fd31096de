"""Readable text from the HTML an export holds: the text a person reads, not its markup, is what gets searched
(the markup stays in the message's ``raw``). Tags are dropped, entities decoded, blocks end lines. Two
styles, one parser:

- ``page_text``: HTML written as a page (Gemini's replies in Google Takeout): runs of white space inside a
  line made one space (``<pre>`` kept as written), every ``<br>`` a line break, list items marked ``- ``, table
  cells set off with `` | ``, scripts, styles and the head dropped, at most one blank line in a row;
- ``message_text``: a message body written as HTML (Teams) or Skype's HTML-like markup: the text's own spaces
  kept, a quoted message set off with ``> `` (and its author), a mention with ``@``, an emoji or image by its
  ``alt`` text, the subtrees of the tags a format names left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
_BLOCKS = frozenset("p div br li tr blockquote pre h1 h2 h3 h4 h5 h6 ul ol table hr".split())
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


@dataclass(frozen=True, slots=True)
class _Style:
    blocks: frozenset[str]  # tags whose start and end end a line
    dropped: frozenset[str]  # tags whose whole content is left out
    page: bool  # a page's rules (the module's notes), else a message's


_PAGE = _Style(_BLOCKS, frozenset({"script", "style", "head", "title"}), page=True)
_MESSAGE_BLOCKS = _BLOCKS | {"legacyquote", "quote"}


class _Text(HTMLParser):
    def __init__(self, style: _Style) -> None:
        super().__init__(convert_charrefs=True)
        self.style = style
        self.lines: list[str] = []
        self.line: list[str] = []
        self.skip = 0  # depth inside a dropped subtree
        self.pre = 0
        self.quotes: list[int] = []  # where each open quote's text starts in a message's ``line``

    # A message's dropped tag takes its subtree with it (Skype's <e_m>, Teams' <attachment>); a page's (script,
    # style, head) only holds back the text until it closes, and its other tags still end lines.
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        page = self.style.page
        if page:
            if tag in self.style.dropped:
                self.skip += 1
                return
        elif self.skip:
            self.skip += tag not in _VOID
            return
        elif tag in self.style.dropped:
            self.skip = tag not in _VOID
            return
        if page and tag == "br":
            self.end_line(keep_empty=True)
        elif tag in self.style.blocks:
            self.end_line()
            if page and tag == "li":
                self.line.append("- ")
            elif tag == "pre":
                self.pre += 1
        if page:
            if tag in ("td", "th") and self.line:
                self.line.append(" | ")
        elif tag == "quote":
            self.quotes.append(len(self.line))
            author = dict(attrs).get("authorname")
            if author:
                self.line.append(f"{author}: ")
        elif tag == "at":
            self.line.append("@")
        elif tag in ("img", "emoji"):
            alt = dict(attrs).get("alt")
            if alt:
                self.line.append(alt)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if not self.style.page:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.style.page:
            if tag in self.style.dropped:
                self.skip = max(0, self.skip - 1)
                return
        elif self.skip:
            self.skip -= tag not in _VOID
            return
        if tag == "quote" and self.quotes and not self.style.page:
            start = self.quotes.pop()
            quoted = "".join(self.line[start:]).strip("\n")
            del self.line[start:]
            self.line.append("\n".join("> " + line for line in quoted.split("\n")) + "\n")
        elif tag in self.style.blocks and not (self.style.page and tag == "br"):
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            self.end_line()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if not self.style.page:
            self.line.append(data)
        elif self.pre:
            *done, rest = data.split("\n")
            for piece in done:
                self.line.append(piece)
                self.end_line(keep_empty=True)
            self.line.append(rest)
        else:
            self.line.append(_SPACES.sub(" ", data))

    def end_line(self, keep_empty: bool = False) -> None:
        """A page drops a line with nothing but spaces (unless a ``<br>`` ends it after text). A message is
        one run of text in ``line`` (a quote is cut out of it when it ends): a line break is added unless
        the text ends with one."""
        if not self.style.page:
            if self.line and not self.line[-1].endswith("\n"):
                self.line.append("\n")
            return
        text = "".join(self.line).strip(" ") if not self.pre else "".join(self.line).rstrip()
        self.line = []
        if text or (keep_empty and self.lines and self.lines[-1]):
            self.lines.append(text)

    def text(self, markup: str) -> list[str]:
        """The lines of ``markup``, each without trailing spaces."""
        self.feed(markup)
        self.close()
        if self.style.page:
            self.end_line()
            return [line.rstrip() for line in self.lines]
        return [line.rstrip() for line in "".join(self.line).split("\n")]


# What a page may start with before its ``<html>`` or doctype: white space, an XML declaration (XHTML), and
# comments (the mark a browser adds to a page it saved: "<!-- saved from url=(0014)about:internet -->").
_PROLOGUE = re.compile(r"(?:\s+|<\?xml[^>]*>|<!--.*?-->)*", re.S)


def is_page(text: str) -> bool:
    """Whether ``text`` (a file's start, BOM removed) is an HTML page: its first markup after what may come
    before it is ``<html`` or an HTML doctype, in any case."""
    start = text[_PROLOGUE.match(text).end() :][:15].lower()  # type: ignore[union-attr]  # always matches
    return start.startswith(("<html", "<!doctype html"))


def page_text(html: str) -> str:
    """The text of an HTML page or fragment, as a reader sees it; "" for markup with no text."""
    out: list[str] = []
    for line in _Text(_PAGE).text(html):
        line = line.replace("\xa0", " ").rstrip()
        if line or (out and out[-1]):  # at most one blank line in a row
            out.append(line)
    return "\n".join(out).strip("\n")


def message_text(markup: str, dropped: frozenset[str] = frozenset()) -> str:
    """The text a person reads in a message's ``markup``; ``dropped`` names tags whose whole content is left
    out (lower case)."""
    if "<" not in markup and "&" not in markup:
        return markup
    return "\n".join(_Text(_Style(_MESSAGE_BLOCKS, dropped, page=False)).text(markup)).strip("\n")
