"""Styled text without rich: what the renderers build (runs of text, each with a rich style name), drawn by
rich on a terminal (``__rich__``) and written as plain text into a pipe (``Plain``), so that piped output
never imports rich (a fifth of the start-up of `refind search`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from refind_cli.typed import Protocol

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from rich.text import Text


class Styled:
    """The part of ``rich.text.Text`` the renderers use, held as rich holds it (the text, a style for the
    whole, styled spans), so that rich draws it exactly as the ``Text`` the same calls would build."""

    __slots__ = ("_length", "_parts", "base", "spans")

    def __init__(self, text: str = "", style: str = "") -> None:
        self._parts = [text]
        self._length = len(text)
        self.base = style
        self.spans: list[tuple[int, int, str]] = []

    @property
    def plain(self) -> str:
        return "".join(self._parts)

    def append(self, text: str, style: str = "") -> Styled:
        if text:
            if style:
                self.spans.append((self._length, self._length + len(text), style))
            self._parts.append(text)
            self._length += len(text)
        return self

    def append_text(self, other: Styled) -> Styled:
        at = self._length
        if other.base:
            self.spans.append((at, at + other._length, other.base))
        self.spans.extend((start + at, end + at, style) for start, end, style in other.spans)
        self._parts.extend(other._parts)
        self._length += other._length
        return self

    def stylize(self, style: str) -> None:
        """``style`` over the text so far, on top of what styles it."""
        if style and self._length:
            self.spans.append((0, self._length, style))

    def join(self, lines: Iterable[Styled]) -> Styled:
        """The lines with this text between them, under this text's style."""
        joined = Styled(style=self.base)
        for i, line in enumerate(lines):
            if i and self._length:
                joined.append_text(self)
            joined.append_text(line)
        return joined

    def __rich__(self) -> Text:
        from rich.text import Span, Text

        text = Text(self.plain, style=self.base)
        text.spans = [Span(*span) for span in self.spans]
        return text


class Out(Protocol):
    """Where a renderer prints: a rich Console, or ``Plain``."""

    def print(self, *objects: Styled | str, markup: bool | None = None) -> None: ...


class Plain:
    """Output that no terminal reads (a pipe, a file): each line as rich writes it there, without rich:
    no styles, no wrapping, tabs expanded to rich's 8 columns."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream

    def print(self, *objects: Styled | str, markup: bool | None = None) -> None:
        text = " ".join(o.plain if isinstance(o, Styled) else o for o in objects)
        (self.stream or sys.stdout).write((_expand_tabs(text) if "\t" in text else text) + "\n")


def _expand_tabs(text: str) -> str:
    # rich counts terminal cells (a wide character is two): only a tab needs them, so only then is its
    # table loaded.
    from rich.cells import cell_len

    lines = []
    for line in text.split("\n"):
        out, column = [], 0
        for i, part in enumerate(line.split("\t")):
            if i:
                spaces = 8 - column % 8
                out.append(" " * spaces)
                column += spaces
            out.append(part)
            column += cell_len(part)
        lines.append("".join(out))
    return "\n".join(lines)
