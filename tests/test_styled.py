"""Piped output is drawn without rich (``render.styled.Plain``) and must read exactly as rich writes the same
styled text into a pipe; on a terminal rich draws it, styles and all."""

from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from refind_cli.frontends.render.styled import Plain, Styled

# What reaches a renderer: chat text after ``visible`` (no control characters but tab and newline), with
# wide characters, emoji and combining marks, whose terminal cells differ from their code points.
TEXT = st.text(alphabet=st.sampled_from(list("ab \t\n-é漢字😀e\u0301…█▏")), max_size=30)
STYLE = st.sampled_from(["", "bold", "dim", "bold yellow", "cyan", "bold magenta"])


def styled_lines() -> st.SearchStrategy[Styled]:
    def build(runs: list[tuple[str, str]], dim: bool) -> Styled:
        line = Styled()
        for text, style in runs:
            line.append(text, style=style)
        if dim:
            line.stylize("dim")
        return line

    return st.builds(build, st.lists(st.tuples(TEXT, STYLE), max_size=5), st.booleans())


def rich_piped(*objects: Styled | str) -> str:
    out = io.StringIO()
    console = Console(file=out, highlight=False, soft_wrap=True)
    console.print(*objects, markup=False)
    return out.getvalue()


def plain(*objects: Styled | str) -> str:
    out = io.StringIO()
    Plain(out).print(*objects, markup=False)
    return out.getvalue()


# Generating the lines is cheap; on a loaded machine it can still look slow to hypothesis.
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(styled_lines(), TEXT)
def test_plain_writes_what_rich_writes_into_a_pipe(line: Styled, text: str) -> None:
    assert plain(line) == rich_piped(line)
    assert plain(line, text) == rich_piped(line, text)
    assert plain() == rich_piped()


def test_joined_lines() -> None:
    lines = [Styled("a", "bold"), Styled("b\tc"), Styled()]
    assert plain(Styled("\n").join(lines)) == rich_piped(Styled("\n").join(lines)) == "a\nb       c\n\n"


def test_rich_draws_the_styles_on_a_terminal() -> None:
    line = Styled("> ", "bold").append("dentist", "bold yellow")
    line.stylize("dim")
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="standard", soft_wrap=True).print(line)
    assert out.getvalue() == "\x1b[1;2m> \x1b[0m\x1b[1;2;33mdentist\x1b[0m\n"
