"""Message bodies written as HTML (Teams) or Skype's HTML-like markup, made readable: tags dropped, line
breaks where blocks end, entities decoded, a quoted message set off with ``> ``, a mention with ``@``, an
emoji or image by its ``alt`` text. The markup itself stays in the message's ``raw``.
"""

from __future__ import annotations

from html.parser import HTMLParser

# Tags whose end starts a new line.
_BLOCKS = frozenset(
    "p div br li tr blockquote pre h1 h2 h3 h4 h5 h6 ul ol table hr legacyquote quote".split()
)
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


class _Readable(HTMLParser):
    def __init__(self, drop: frozenset[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.drop = drop
        self.out: list[str] = []
        self.quotes: list[int] = []  # where each open quote's text starts in out
        self.skip = 0  # depth inside dropped subtrees

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip:
            self.skip += tag not in _VOID
            return
        if tag in self.drop:
            self.skip = tag not in _VOID
            return
        if tag in _BLOCKS:
            self._newline()
        if tag == "quote":
            self.quotes.append(len(self.out))
            author = dict(attrs).get("authorname")
            if author:
                self.out.append(f"{author}: ")
        elif tag == "at":
            self.out.append("@")
        elif tag in ("img", "emoji"):
            alt = dict(attrs).get("alt")
            if alt:
                self.out.append(alt)

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            self.skip -= tag not in _VOID
            return
        if tag == "quote" and self.quotes:
            start = self.quotes.pop()
            quoted = "".join(self.out[start:]).strip("\n")
            del self.out[start:]
            self.out.append("\n".join("> " + line for line in quoted.split("\n")) + "\n")
        elif tag in _BLOCKS:
            self._newline()

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data)

    def _newline(self) -> None:
        if self.out and not self.out[-1].endswith("\n"):
            self.out.append("\n")


def readable(markup: str, drop: frozenset[str] = frozenset()) -> str:
    """The text a person reads in ``markup``; ``drop`` names tags whose whole content is left out
    (lower case)."""
    if "<" not in markup and "&" not in markup:
        return markup
    parser = _Readable(drop)
    parser.feed(markup)
    parser.close()
    lines = "".join(parser.out).split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")
