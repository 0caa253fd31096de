"""Renderers build ``Styled`` text: piped it is written without rich (``Plain``) and must read exactly as rich
writes the same text into a pipe; on a terminal rich draws it exactly as it draws the ``rich.text.Text``
built by the same calls."""

from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from refind_cli.frontends.render.styled import Plain, Styled

# What reaches a renderer: chat text after ``visible`` (no control characters but tab and newline), with
# wide characters, emoji and combining marks, whose terminal cells differ from their code points.
TEXT = st.text(alphabet=st.sampled_from(list("ab \t\n-é漢字😀e\u0301…█▏")), max_size=30)
STYLE = st.sampled_from(["", "bold", "dim", "bold yellow", "cyan", "bold magenta"])
RUNS = st.lists(st.tuples(TEXT, STYLE), max_size=4)
# A line: its text and style, the runs appended, whether it is dimmed, and a line appended to it whole.
LINE = st.tuples(TEXT, STYLE, RUNS, st.booleans(), TEXT, STYLE, RUNS)


def build(kind: type[Styled] | type[Text], spec: tuple) -> Styled | Text:
    text, style, runs, dim, inner_text, inner_style, inner_runs = spec
    inner = kind(inner_text, style=inner_style)
    for t, s in inner_runs:
        inner.append(t, style=s)
    line = kind(text, style=style)
    for t, s in runs:
        line.append(t, style=s)
    if dim:
        line.stylize("dim")
    line.append_text(inner)  # type: ignore[arg-type]
    return line


def rich_output(*objects: Styled | Text | str, terminal: bool) -> str:
    out = io.StringIO()
    # Not a terminal: rich's own choice of colours (none), as refind's consoles leave it.
    colors = "standard" if terminal else "auto"
    console = Console(file=out, highlight=False, soft_wrap=True, force_terminal=terminal, color_system=colors)
    console.print(*objects, markup=False)
    return out.getvalue()


def plain(*objects: Styled | str) -> str:
    out = io.StringIO()
    Plain(out).print(*objects, markup=False)
    return out.getvalue()


# Generating the lines is cheap; on a loaded machine it can still look slow to hypothesis.
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LINE, TEXT)
def test_plain_writes_what_rich_writes_into_a_pipe(spec: tuple, text: str) -> None:
    line = build(Styled, spec)
    assert isinstance(line, Styled)
    assert plain(line) == rich_output(line, terminal=False)
    assert plain(line, text) == rich_output(line, text, terminal=False)
    assert plain() == rich_output(terminal=False)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINE, min_size=1, max_size=3), STYLE)
def test_rich_draws_styled_text_as_the_text_built_the_same_way(specs: list[tuple], style: str) -> None:
    styled = Styled("\n", style=style).join(build(Styled, s) for s in specs)  # type: ignore[misc]
    text = Text("\n", style=style).join(build(Text, s) for s in specs)  # type: ignore[misc]
    assert rich_output(styled, terminal=True) == rich_output(text, terminal=True)
    assert plain(styled) == rich_output(text, terminal=False)
