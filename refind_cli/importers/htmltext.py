"""Readable text from the HTML an export holds (Gemini's replies in Google Takeout): paragraphs, headings,
list items and table rows on lines of their own, ``<br>`` a line break, list items marked ``- ``, entities
resolved, scripts and styles dropped, runs of white space inside a line made one space. The text a person
reads in the page, not its markup, is what gets searched."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Elements that start a line of their own; the others (b, i, a, span, code) flow within one.
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "ul",
        "ol",
        "tr",
        "table",
        "pre",
        "blockquote",
        "hr",
    }
)
_SKIPPED = frozenset({"script", "style", "head", "title"})
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line: list[str] = []
        self.skipping = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skipping += 1
        elif tag == "br":
            self.end_line(keep_empty=True)
        elif tag in _BLOCKS:
            self.end_line()
            if tag == "li":
                self.line.append("- ")
            elif tag == "pre":
                self.pre += 1
        elif tag in ("td", "th") and self.line:
            self.line.append(" | ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCKS:
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            self.end_line()

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.pre:
            *done, rest = data.split("\n")
            for piece in done:
                self.line.append(piece)
                self.end_line(keep_empty=True)
            self.line.append(rest)
        else:
            self.line.append(_SPACES.sub(" ", data))

    def end_line(self, keep_empty: bool = False) -> None:
        text = "".join(self.line).strip(" ") if not self.pre else "".join(self.line).rstrip()
        self.line = []
        if text or (keep_empty and self.lines and self.lines[-1]):
            self.lines.append(text)


def readable(html: str) -> str:
    """The text of an HTML fragment, as a reader sees it; "" for markup with no text."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    parser.end_line()
    lines = [line.replace("\xa0", " ").rstrip() for line in parser.lines]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):  # at most one blank line in a row
            out.append(line)
    return "\n".join(out).strip("\n")
