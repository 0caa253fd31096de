"""Styled text without rich: what the renderers build (runs of text, each with a rich style name), drawn by
rich on a terminal (``__rich__``) and written as plain text into a pipe (``Plain``), so that piped output
never imports rich (a fifth of the start-up of `refind search`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from rich.text import Text


class Styled:
    """Text made of styled runs: the part of ``rich.text.Text`` the renderers use."""

    __slots__ = ("runs",)

    def __init__(self, text: str = "", style: str = "") -> None:
        self.runs: list[tuple[str, str]] = [(text, style)] if text else []

    def append(self, text: str, style: str = "") -> Styled:
        if text:
            self.runs.append((text, style))
        return self

    def append_text(self, other: Styled) -> Styled:
        self.runs.extend(other.runs)
        return self

    def stylize(self, style: str) -> None:
        """``style`` over the whole text, on top of each run's own (as rich combines them)."""
        self.runs = [(text, f"{own} {style}".strip()) for text, own in self.runs]

    def join(self, lines: Iterable[Styled]) -> Styled:
        """The lines with this text between them."""
        joined = Styled()
        for i, line in enumerate(lines):
            if i:
                joined.append_text(self)
            joined.append_text(line)
        return joined

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.runs)

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text.assemble(*self.runs)


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
