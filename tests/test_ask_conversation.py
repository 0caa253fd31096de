"""`refind ask` as a conversation: the library's conversation (lines read, follow-ups carried, kept in the
home), and the terminal loop through a pseudo-terminal (typing, reading the screen, Ctrl-C, Ctrl-D),
offline and with the scripted model over HTTP."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from cli_runs import refind
from scripted_llm import Reply, ScriptedLLM, text, tool, tools

from refind_cli.agent.conversation import (
    FILE,
    HISTORY,
    MAX_QUESTION,
    Ask,
    Command,
    Conversation,
    FollowUp,
    Problem,
    carried,
    framed,
    load,
    read_line,
    save,
)
from refind_cli.errors import RefindError
from refind_cli.facade import Home
from refind_cli.operations import AskRequest
from refind_cli.text.analysis import DEFAULT_ANALYZER

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 5, 1, 12, tzinfo=BERLIN)
QUESTION = "when did I move the dentist appointment?"


# ---- the library -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "told"),
    [
        ("", "type a question"),
        ("   ", "type a question"),
        ("x" * (MAX_QUESTION + 1), "too long"),
        ("\x1b[31mred\x1b[0m dentist", "control characters"),
        ("/frobnicate", "unknown command /frobnicate"),
        ("/show", "/show needs a citation number"),
        ("/show two", "not 'two'"),
        ("/save", "/save needs a file name"),
    ],
)
def test_a_line_it_cannot_use_is_told_why(line: str, told: str) -> None:
    read = read_line(line)
    assert isinstance(read, Problem) and told in read.message and "\n" not in read.message


def test_questions_and_commands_are_read() -> None:
    assert read_line("  when was it?  ") == Ask("when was it?")
    assert read_line("/SHOW 2") == Command("show", "2")
    assert read_line("/chat Family  Jonas") == Command("chat", "Family  Jonas")
    assert read_line("/since") == Command("since", "")


@pytest.fixture(scope="module")
def answered(sample_home: Path) -> Conversation:
    with Home.open(sample_home) as home:
        return home.follow_up(Conversation(), FollowUp(AskRequest(QUESTION, NOW, BERLIN), keep=False))


def test_a_follow_up_carries_the_question_before(sample_home: Path, answered: Conversation) -> None:
    assert answered.last is not None and answered.last.answer.startswith("8 April 2026 — ")
    with Home.open(sample_home) as home:
        alone = home.follow_up(
            Conversation(), FollowUp(AskRequest("what did Mum say?", NOW, BERLIN), keep=False)
        )
        after = home.follow_up(answered, FollowUp(AskRequest("what did Mum say?", NOW, BERLIN), keep=False))
    assert alone.last is not None and after.last is not None
    # Alone, "what did Mum say?" has one word to search; after the dentist question it searches that too.
    assert alone.last.rounds[0].arguments["keywords"] == "mum"
    assert after.last.rounds[0].arguments["keywords"] == "mum move dentist appointment"
    assert [e.question for e in after.exchanges] == [QUESTION, "what did Mum say?"]


def test_the_planner_carries_people_time_and_chats(sample_home: Path, answered: Conversation) -> None:
    from refind_cli.agent.offline import plan

    first = answered.exchanges[-1]

    def carry(question: str) -> tuple[tuple[str, ...], datetime | None, tuple[int, ...] | None]:
        carried_plan, chats = carried(
            plan(question, now=NOW, tz=BERLIN),
            answered.exchanges,
            tz=BERLIN,
            span=None,
            analyzer=DEFAULT_ANALYZER,
        )
        return carried_plan.keywords, carried_plan.since, chats

    words, since, chats = carry("and how was it then?")
    assert words == ("move", "dentist", "appointment") and since is None and chats == first.chats
    words, since, chats = carry("what did Jonas say in March?")
    # Jonas is new to the conversation: every chat again; March is the new question's own time.
    assert words[0] == "jonas" and since is not None and since.astimezone(BERLIN).month == 3 and chats is None
    assert carry("dentist appointment cancelled ill")[0] == ("dentist", "appointment", "cancelled", "ill")


def test_more_searches_past_the_sessions_seen(sample_home: Path, answered: Conversation) -> None:
    assert answered.last is not None
    seen = {n.session_id for n in answered.last.notes}
    with Home.open(sample_home) as home:
        more = home.follow_up(answered, FollowUp(AskRequest(QUESTION, NOW, BERLIN), more=True, keep=False))
        with pytest.raises(RefindError, match="/more needs an answer"):
            home.follow_up(Conversation(), FollowUp(AskRequest(QUESTION, NOW, BERLIN), more=True, keep=False))
    assert more.last is not None and more.last.question == QUESTION
    new = [n for n in more.last.notes if n.session_id not in seen]
    assert more.last.notes[: len(answered.last.notes)] == answered.last.notes and new


def test_since_keeps_every_search_to_later_messages(sample_home: Path) -> None:
    later = Conversation().starting("2026-04-20", now=NOW, tz=BERLIN)
    with Home.open(sample_home) as home:
        after = home.follow_up(later, FollowUp(AskRequest(QUESTION, NOW, BERLIN), keep=False))
    assert after.last is not None and after.last.notes
    start = datetime(2026, 4, 20, tzinfo=BERLIN)
    # Every search kept to it: each note's hit turn is from then on (its context may be older).
    assert all(next(t for t in n.turns if t.id == n.hit_turn_id).start >= start for n in after.last.notes)


def test_a_model_reads_the_earlier_exchanges(answered: Conversation) -> None:
    shown = framed("and after that?", answered.exchanges, BERLIN)
    assert shown.startswith("Earlier in this conversation")
    assert QUESTION in shown and "8 April 2026 — Maya" in shown and "<chat_data>" in shown
    assert shown.endswith("The new question, which may refer to the ones before: and after that?")
    assert framed("first", (), BERLIN) == "first"


def test_the_conversation_is_kept_private(tmp_path: Path, answered: Conversation) -> None:
    kept = replace(answered, chats=("Family",), since="2026-03", model="openai/x")
    save(kept, tmp_path)
    assert (tmp_path / FILE).stat().st_mode & 0o777 == 0o600
    back = load(tmp_path)
    assert back == kept and back.last is None  # the full notes stay in the session that took them
    (tmp_path / FILE).write_text("{not json")
    with pytest.raises(RefindError, match="cannot be read"):
        load(tmp_path)
    with pytest.raises(RefindError, match="no conversation to continue"):
        load(tmp_path / "elsewhere")


def test_scope_is_checked_when_set(sample_home: Path, answered: Conversation) -> None:
    with Home.open(sample_home) as home, pytest.raises(RefindError, match="/chat: no chat matches"):
        home.in_chats(answered, ["no-such-chat"])
    with pytest.raises(RefindError, match="/since"):
        answered.starting("the day after never", now=NOW, tz=BERLIN)
    assert answered.starting("2026-04", now=NOW, tz=BERLIN).since == "2026-04"


# ---- the terminal ----------------------------------------------------------------------------------------


class Terminal:
    """refind on a pseudo-terminal of its own (its controlling terminal, so Ctrl-C is a signal)."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: refind, nothing else
            # Ctrl-C as a terminal gives it, even when the tests run where SIGINT is ignored (a background
            # job of a shell without job control): an ignored signal stays ignored across exec.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execve(sys.executable, [sys.executable, "-m", "refind_cli", *args], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
        self.screen = ""
        self.seen = 0

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the child left: its side of the terminal is closed
            data = b""
        if not data:
            raise EOFError
        self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, text: str, timeout: float = 60) -> str:
        """Read until ``text`` shows (after what was expected before); the screen since then."""
        deadline = time.monotonic() + timeout
        while (at := self.screen.find(text, self.seen)) < 0:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} did not show; the screen ends:\n{self.screen[-3000:]}")
            try:
                self._read(left)
            except EOFError:
                raise AssertionError(f"refind left before {text!r}:\n{self.screen[-3000:]}") from None
        shown = self.screen[self.seen : at + len(text)]
        self.seen = at + len(text)
        return shown

    def type(self, text: str) -> None:
        """Type ``text`` a little at a time, reading the echo as it comes (a full terminal would block)."""
        data = text.encode()
        for i in range(0, len(data), 256):
            os.write(self.fd, data[i : i + 256])
            while self._read(0.01):
                pass

    def ask(self, line: str) -> str:
        """Type a line and wait for the next prompt; what showed in between."""
        self.type(line + "\r")
        return self.expect(PROMPT)

    def wait(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            try:
                self._read(0.05)
            except EOFError:
                time.sleep(0.05)
        os.kill(self.pid, 9)
        raise AssertionError(f"refind did not leave:\n{self.screen[-3000:]}")


PROMPT = "refind> "


def terminal_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFIND_")}
    # A plain terminal: no colours, no readline escapes, so the screen is the text.
    return env | {"TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "250"} | extra


@pytest.fixture
def home(sample_home: Path, tmp_path: Path) -> Iterator[Path]:
    """The sample home with no conversation or history kept yet."""
    for name in (FILE, HISTORY):
        (sample_home / name).unlink(missing_ok=True)
    yield sample_home


def test_an_offline_conversation_on_a_terminal(home: Path, tmp_path: Path) -> None:
    term = Terminal(
        ["--home", str(home), "ask", "--now", "2026-05-01T12:00", "--tz", "Europe/Berlin"], terminal_env()
    )
    assert "a conversation with your chats (offline: no model)" in term.expect(PROMPT)
    first = term.ask(QUESTION)
    assert "round 1: search_chat 'move dentist appointment'" in first
    assert "\n8 April 2026 — Maya in #team-data: moved the dentist to 28 April" in first
    # A follow-up that depends on the first answer: its words are searched with the new one.
    follow = term.ask("what did Mum say about it?")
    assert "round 1: search_chat 'mum move dentist appointment'" in follow
    # Bad lines: one line each, and the session goes on.
    for line, told in [
        ("", "refind: type a question"),
        ("why" * 3334, "refind: the question is too long (10,002 characters; at most 2,000)"),
        ("\x16\x1b[31mred\x16\x1b[0m", "refind: the line holds control characters"),  # Ctrl-V ESC: a raw ESC
        ("/frobnicate", "refind: unknown command /frobnicate; /help lists the commands"),
        ("/show 99", "refind: the last answer has no citation 99"),
    ]:
        shown = term.ask(line)
        assert told in shown and "Traceback" not in shown
        assert shown.count("refind: ") == 1
    assert "/save FILE" in term.ask("/help")
    opened = term.ask("/show 1")
    assert "session" in opened and "previous:" in opened
    transcript = tmp_path / "talk.md"
    assert "saved 2 questions" in term.ask(f"/save {transcript}")
    assert transcript.read_text().startswith("# refind conversation\n\n## 1. when did I move the dentist")
    assert "asking in Family" in term.ask("/chat Family")
    assert "asking about messages since 2026-04" in term.ask("/since 2026-04")
    assert "refind: /since: cannot read" in term.ask("/since the day after never")
    assert "answering offline" in term.ask("/offline")
    # Ctrl-C at the prompt drops the line typed; the session goes on.
    term.type("half a question\x03")
    term.expect(PROMPT)
    assert "refind: asking in all chats" in term.ask("/chat")
    term.type("\x04")  # Ctrl-D leaves
    assert term.wait() == 0
    assert (home / HISTORY).stat().st_mode & 0o777 == 0o600
    assert QUESTION in (home / HISTORY).read_text()
    # From a script, -c continues the conversation the terminal kept.
    piped = refind("--home", str(home), "ask", "-c", "and when was it moved again?", "--now", "2026-05-01")
    assert piped.returncode == 0, piped.stderr
    assert "round 1: search_chat 'moved mum move dentist appointment'" in piped.stderr
    assert [e.question for e in load(home).exchanges][-1] == "and when was it moved again?"


def test_no_history_and_no_terminal(home: Path) -> None:
    term = Terminal(["--home", str(home), "ask", "--no-history", "--offline"], terminal_env())
    term.expect(PROMPT)
    term.ask("dentist")
    term.type("\x04")
    assert term.wait() == 0
    assert not (home / HISTORY).exists()
    assert not (home / FILE).exists()  # nothing asked is kept: no conversation for -c either
    once = refind("--home", str(home), "ask", "--no-history", "dentist", "--now", "2026-05-01")
    assert once.returncode == 0 and not (home / FILE).exists()
    env = terminal_env(REFIND_NO_HISTORY="1")  # the setting for every ask
    once = refind("--home", str(home), "ask", "dentist", "--now", "2026-05-01", env=env)
    assert once.returncode == 0 and not (home / FILE).exists()
    piped = refind("--home", str(home), "ask")
    assert piped.returncode == 2 and piped.stdout == ""
    assert piped.stderr == "refind: error: a question is needed (a conversation opens only on a terminal)\n"


def test_a_conversation_with_a_model_and_ctrl_c(home: Path) -> None:
    script: list[Reply] = [
        tool("search_chat", {"keywords": "dentist appointment moved"}),
        tools(("take_note", {"indices": [1, 2]}), ("finish_search", {})),
        text("You moved it to 28 April [1]."),
        replace(tool("search_chat", {"keywords": "dentist"}), delay=30),  # Ctrl-C comes first
        tool("search_chat", {"keywords": "dentist cancelled"}),
        tools(("take_note", {"indices": [1]}), ("finish_search", {})),
        text("After that it was cancelled and moved to 6 May [1]."),
    ]
    with ScriptedLLM(script) as server:
        env = terminal_env(
            REFIND_MODEL="openai/scripted", REFIND_API_BASE=server.api_base, REFIND_API_KEY="k"
        )
        term = Terminal(["--home", str(home), "ask", "--now", "2026-05-01T12:00"], terminal_env() | env)
        assert "(model openai/scripted)" in term.expect(PROMPT)
        first = term.ask(QUESTION)
        assert "You moved it to 28 April [1]." in first and "[1] " in first.split("28 April [1].")[1]
        term.type("what happened next?\r")
        deadline = time.monotonic() + 30
        while len(server.requests) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        term.type("\x03")
        assert "refind: stopped; ask again, or Ctrl-D to leave" in term.expect(PROMPT)
        after = term.ask("and after that?")
        assert "After that it was cancelled and moved to 6 May [1]." in after
        term.type("\x04")
        assert term.wait() == 0
    # The follow-up's model read the first question and its answer before its own.
    opening = server.requests[4]["messages"][1]["content"]
    assert QUESTION in opening and "You moved it to 28 April" in opening
    assert opening.index(QUESTION) < opening.index("and after that?")
    kept = json.loads((home / FILE).read_text())
    assert [e["question"] for e in kept["exchanges"]] == [QUESTION, "and after that?"]


@pytest.mark.parametrize("flag", [[], ["--offline"]])
def test_model_switches_to_a_model_and_back_offline(home: Path, flag: list[str]) -> None:
    script: list[Reply] = [
        tool("search_chat", {"keywords": "dentist appointment moved"}),
        tools(("take_note", {"indices": [1]}), ("finish_search", {})),
        text("The model says: you moved it to 28 April [1]."),
    ]
    with ScriptedLLM(script) as server:
        # The server and key are set, the model is not: the conversation opens offline.
        env = terminal_env(REFIND_API_BASE=server.api_base, REFIND_API_KEY="k")
        term = Terminal(["--home", str(home), "ask", "--now", "2026-05-01T12:00", *flag], env)
        assert "(offline: no model)" in term.expect(PROMPT)
        offline = term.ask(QUESTION)
        assert "\n8 April 2026 — Maya in #team-data: moved the dentist to 28 April" in offline
        assert not server.requests
        assert "refind: answering with openai/scripted" in term.ask("/model openai/scripted")
        modelled = term.ask("and when was it moved?")
        assert "The model says: you moved it to 28 April [1]." in modelled
        assert "Extractive answer" not in modelled and len(server.requests) == 3
        # The model read the offline exchange before the question it answered.
        assert QUESTION in server.requests[0]["messages"][1]["content"]
        assert "answering offline" in term.ask("/offline")
        again = term.ask(QUESTION)
        assert "\n8 April 2026 — Maya in #team-data: moved the dentist to 28 April" in again, again
        assert "Extractive answer" in again and len(server.requests) == 3
        term.type("\x04")
        assert term.wait() == 0
    kept = json.loads((home / FILE).read_text())
    assert [e["model"] for e in kept["exchanges"]] == [None, "openai/scripted", None]
