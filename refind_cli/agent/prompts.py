"""Every text the models read: the stage-1 search prompt, the plain-text action protocol (its list of
actions comes from the tool registry; each tool declares its own description and schema), the result blocks,
the stage-2 answer prompt, and the way chat text is quoted into them.

Chat text is data written by other people. It is always fenced in ``<chat_data>`` tags with a line saying
so, and a closing tag inside a message is defused, so a message cannot end the fence and speak as the user.
The tools are read-only, which bounds what an injected instruction could do anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from refind_cli.method.search_tools import DATA_NOTE, SEARCH_GUIDE, fmt_day, situation
from refind_cli.records import said

if TYPE_CHECKING:
    from refind_cli.agent.tools import Tool
    from refind_cli.records import Turn
    from refind_cli.results import Hit


def fmt_time(t: datetime, tz: tzinfo) -> str:
    return t.astimezone(tz).strftime("%Y-%m-%d %H:%M")


def quote_data(text: str) -> str:
    """Chat text made safe to put inside the fence: no message can close it."""
    return text.replace("</chat_data", "<\\/chat_data").replace("<chat_data", "<\\chat_data")


# A turn as a model reads it, at most: about 2,000 tokens. A 50 MB message would be 12 million tokens; a
# note needs the part around the match (bench figures: no turn of the human-chat data comes near this).
MODEL_CHARS = 8_000


def turn_text(text: str, terms: Iterable[str] = (), lang: str = "", length: int | None = None) -> str:
    """A turn's text (of a chat in ``lang``) for a model: whole, or a window of ``MODEL_CHARS`` around its
    first match with the cut said in brackets; fenced-data safe. ``length``: the whole text's, where
    ``text`` is only its start."""
    from refind_cli.text.snippet import snippet

    view = snippet(text, terms, MODEL_CHARS, lang, length)
    body = quote_data(view.text)
    if not view.truncated:
        return body
    end = view.start + len(view.text)
    before = f"[… {view.start:,} characters before …] " if view.start else ""
    after = f" [… {view.length - end:,} characters after …]" if end < view.length else ""
    return before + body + after


def fence(body: str) -> str:
    return f"{DATA_NOTE}\n<chat_data>\n{body}\n</chat_data>"


def search_system_prompt(
    *,
    asked_at: datetime,
    tz: tzinfo,
    span: tuple[datetime, datetime] | None,
    max_rounds: int,
    languages: Sequence[str] = (),
) -> str:
    return f"""You search a person's own chat archive (messaging apps and AI assistant chats) to collect evidence for a question.
You do NOT answer the question: a later step answers it from your notes alone, so anything you do not save is lost.

{situation(asked_at, tz, span, languages)}

How to search:
{SEARCH_GUIDE}
- After EVERY search, call take_note with the numbers of all blocks that might be relevant, even partly.
- You have {max_rounds} searches. Call finish_search when the notes hold the evidence or nothing more turns up.
{DATA_NOTE} The tools only read the archive."""


def question_message(question: str, asked_at: datetime, tz: tzinfo) -> str:
    return f"Question (asked {fmt_time(asked_at, tz)}): {question}\nCollect the evidence with the tools."


def either(names: Sequence[str]) -> str:
    """``a, b or c``."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


def text_protocol(tools: Iterable[Tool]) -> str:
    tools = tuple(tools)
    usage = ";\n".join(f"{t.name} {t.usage}" for t in tools)
    return f"""You have no native tool calls. Reply in exactly this format, one action per reply:

Thought: <one short line of reasoning>
Action: <{" | ".join(t.name for t in tools)}>
Action Input: <a JSON object with the arguments>

Arguments: {usage}.
After each action you receive "Observation:" with the result. Never write an Observation yourself."""


def text_correction(problem: str, names: Sequence[str]) -> str:
    return (
        f"Your last reply could not be used: {problem}. Reply with one Thought line, one Action line "
        f"({either(names)}) and one Action Input line holding a JSON object."
    )


def tool_correction(problem: str, names: Sequence[str]) -> str:
    return f"error: {problem}. Call {either(names)} with valid JSON arguments."


def format_block(hit: Hit, tz: tzinfo) -> str:
    """One search result as the model sees it, and as a note keeps it: header, then the window, the hit
    turn marked with ">>". Chat text is defused so it cannot close the data fence."""
    turns = [w.turn for w in hit.window] or [hit.turn]
    speakers = ", ".join(dict.fromkeys(t.speaker for t in turns))
    head = (
        f"chat: {quote_data(hit.chat.name)} ({hit.chat.source}) | session {hit.turn.session_id} | "
        f"{fmt_time(turns[0].start, tz)} to {fmt_time(turns[-1].end, tz)} | speakers: {quote_data(speakers)}"
    )
    lines = [head]
    for w in hit.window or ():
        lines.append(_turn_line(w.turn, tz, hit=w.hit, terms=hit.terms, lang=hit.chat.lang))
    if not hit.window:
        lines.append(_turn_line(hit.turn, tz, hit=True, terms=hit.terms, lang=hit.chat.lang))
    return "\n".join(lines)


def _turn_line(turn: Turn, tz: tzinfo, *, hit: bool, terms: Sequence[str], lang: str) -> str:
    mark = ">>" if hit else "  "
    text = said(turn.speaker, turn.text)
    body = turn_text(text, terms if hit else (), lang, turn.whole(text)).replace("\n", "\n      ")
    return f"{mark} {fmt_time(turn.start, tz)} {quote_data(turn.speaker)}: {body}"


LAST_SEARCH = "This was the last search of the budget. Call take_note for every relevant block above, then finish_search."

ANSWER_SYSTEM = f"""You answer a question about a person's own chat history using ONLY the notes given: excerpts
of their chats, grouped by conversation session and ordered in time. Each message line starts with a number in
brackets.

Rules:
- Use only the notes. Do not guess or use outside knowledge. If the notes do not contain the answer, say plainly
  that the chats found do not answer it (and what they do show, if anything useful).
- Cite the lines you rely on with their bracket numbers, e.g. [3] or [3][7], right after the claim.
- Resolve relative dates ("tomorrow", "next Friday") against the date of the message that says them, and
  answer time questions relative to the date the question is asked.
- Be brief: a direct answer in one to four sentences.
{DATA_NOTE}"""


def answer_user_message(question: str, asked_at: datetime, tz: tzinfo, notes_text: str) -> str:
    return f"Question (asked {fmt_day(asked_at, tz)} {asked_at.astimezone(tz).strftime('%H:%M')}): {question}\n\nNotes:\n{fence(notes_text)}"
