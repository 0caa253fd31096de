"""`refind ask` with no question, on a terminal: the conversation loop; and `refind ask -c`. Each line is
read by the library (``agent.conversation.read_line``), made one call on the home, and rendered; the state
is the library's ``Conversation``. Line editing and history come from the standard readline module; the
history is kept in the home, private, unless ``--no-history``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from refind_cli.errors import RefindError

if TYPE_CHECKING:
    from rich.console import Console

    from refind_cli.agent.conversation import Command, Conversation
    from refind_cli.agent.events import AskResult
    from refind_cli.facade import Home
    from refind_cli.frontends.render.ask import AskTrace
    from refind_cli.operations import AskRequest

HISTORY_LINES = 1_000


@dataclass(frozen=True)
class Typed:
    """What the command line said about asking: each question of a conversation is asked with it, and
    with what the conversation changed since (``/model``, ``/offline``; its chats and start date are the
    library's to apply)."""

    model: str | None
    answer_model: str | None
    api_base: str | None
    offline: bool
    protocol: str
    max_rounds: int
    max_tokens: int | None
    max_cost: float | None
    chats: Sequence[str] | None
    sources: Sequence[str] | None
    speakers: Sequence[str] | None
    now: str | None  # --now: every question is asked then (tests, reproducible runs)
    tz: tzinfo
    evidence_tokens: int | None = None  # --budget: what the offline planner's notes may spend

    def request(self, home: Home, question: str, conversation: Conversation | None = None) -> AskRequest:
        switched = conversation is not None and conversation.model is not None
        return home.ask_request(
            question,
            model=conversation.model if conversation is not None and switched else self.model,
            answer_model=None if switched else self.answer_model,
            api_base=self.api_base,
            # The conversation starts as --offline says; /model and /offline change it from then on.
            offline=self.offline if conversation is None else conversation.offline,
            protocol=self.protocol,
            max_rounds=self.max_rounds,
            max_tokens=self.max_tokens,
            max_cost=self.max_cost,
            chats=self.chats,
            sources=self.sources,
            speakers=self.speakers,
            now=self.now,
            tz=self.tz,
            evidence_tokens=self.evidence_tokens,
        )

    def conversation(self) -> Conversation:
        """A new conversation in the command line's scope."""
        from refind_cli.agent.conversation import Conversation

        return Conversation(chats=tuple(self.chats) if self.chats else None, offline=self.offline)


def start(
    home: Home, question: str | None, typed: Typed, *, follow: bool, trace: AskTrace, history: bool
) -> AskResult | None:
    """``refind ask -c QUESTION``: the follow-up's result. With no question: the conversation on the
    terminal (the last one continued, with ``follow``) until it ends; None. Without ``history`` nothing
    asked is kept: no line history, no conversation for the next ``-c``."""
    from refind_cli.agent.conversation import HISTORY, FollowUp, load
    from refind_cli.frontends.cli.common import stderr_console, stdout_console

    conversation = typed.conversation()
    if follow:
        kept = load(home.path)
        conversation = replace(kept, chats=conversation.chats or kept.chats, offline=typed.offline)
    if question is not None:
        request = FollowUp(typed.request(home, question, conversation), keep=history)
        return home.follow_up(conversation, request, on_event=trace).last
    session = Session(home, conversation, typed, stdout_console(), stderr_console(), trace, history)
    converse(session, os.path.join(home.path, HISTORY) if history else None)
    return None


@dataclass
class Session:
    """What the loop holds between lines: the home, the conversation, and how to ask and print."""

    home: Home
    conversation: Conversation
    typed: Typed
    out: Console
    err: Console
    trace: AskTrace
    keep: bool  # each exchange kept in the home for ``ask -c``

    def say(self, message: str) -> None:
        from rich.text import Text

        from refind_cli.frontends.render import visible

        self.err.print(Text(f"refind: {visible(message)}", style="yellow"), soft_wrap=True)


def converse(session: Session, history: str | None) -> None:
    """Read, ask, print until Ctrl-D. Ctrl-C stops the question running (or clears the line typed) and the
    session goes on; a line it cannot use gets one line saying why."""
    import readline

    from refind_cli.frontends.render.ask import PROMPT, banner

    if history is not None:
        with contextlib.suppress(OSError):  # no history yet
            readline.read_history_file(history)
        readline.set_history_length(HISTORY_LINES)
    model = None if session.typed.offline else session.typed.model or os.environ.get("REFIND_MODEL")
    session.out.print(banner(session.conversation, model), markup=False, soft_wrap=True)
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                session.out.print()
                return
            except KeyboardInterrupt:
                session.out.print()
                continue
            try:
                _one(session, line)
            except KeyboardInterrupt:
                session.say("stopped; ask again, or Ctrl-D to leave")
            except RefindError as err:
                session.say(str(err))
    finally:
        if history is not None:
            _keep_history(readline.write_history_file, history)


def _keep_history(write: Callable[[str], None], path: str) -> None:
    # The history holds what was asked of private chats: the home's own privacy (0600), even if the file
    # was made before.
    try:
        write(path)
        os.chmod(path, 0o600)
    except OSError:
        pass  # a read-only home keeps no history; the session itself went fine


def _one(session: Session, line: str) -> None:
    from refind_cli.agent.conversation import Ask, Problem, read_line

    parsed = read_line(line)
    if isinstance(parsed, Problem):
        session.say(parsed.message)
    elif isinstance(parsed, Ask):
        _ask(session, parsed.question)
    else:
        COMMANDS[parsed.name](session, parsed)


def _ask(session: Session, question: str, *, more: bool = False) -> None:
    from refind_cli.agent.conversation import FollowUp
    from refind_cli.frontends.render.ask import print_answer

    asked = session.typed.request(session.home, question, session.conversation)
    request = FollowUp(asked, more=more, keep=session.keep)
    session.conversation = session.home.follow_up(session.conversation, request, on_event=session.trace)
    assert session.conversation.last is not None
    print_answer(session.conversation.last, session.out, tz=session.typed.tz)


def _show(session: Session, command: Command) -> None:
    from refind_cli.frontends.render.search import print_session

    cited = session.conversation.citation(int(command.argument))
    print_session(session.out, session.home.show(cited.turn_id, context=5), session.typed.tz)


def _more(session: Session, _command: Command) -> None:
    _ask(session, session.conversation.last_question(), more=True)


def _chat(session: Session, command: Command) -> None:
    names = command.argument.split() or None
    session.conversation = session.home.in_chats(session.conversation, names)
    session.say(f"asking in {', '.join(names)}" if names else "asking in all chats")


def _since(session: Session, command: Command) -> None:
    since = command.argument or None
    zone = session.typed.tz
    session.conversation = session.conversation.starting(since, now=datetime.now(zone), tz=zone)
    session.say(f"asking about messages since {since}" if since else "asking about all messages")


def _model(session: Session, command: Command) -> None:
    session.conversation = replace(session.conversation, model=command.argument, offline=False)
    session.say(f"answering with {command.argument}")


def _offline(session: Session, _command: Command) -> None:
    session.conversation = replace(session.conversation, offline=True)
    session.say("answering offline, without a model")


def _save(session: Session, command: Command) -> None:
    from refind_cli.frontends.render.ask import conversation_markdown

    path = Path(command.argument).expanduser()
    text = conversation_markdown(session.conversation, tz=session.typed.tz)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise RefindError(f"{path}: cannot write ({err.strerror or err})") from None
    session.say(f"saved {len(session.conversation.exchanges)} questions to {path}")


def _help(session: Session, _command: Command) -> None:
    from refind_cli.frontends.render.ask import print_help

    print_help(session.out)


COMMANDS: dict[str, Callable[[Session, Command], None]] = {
    "show": _show,
    "more": _more,
    "chat": _chat,
    "since": _since,
    "model": _model,
    "offline": _offline,
    "save": _save,
    "help": _help,
}
