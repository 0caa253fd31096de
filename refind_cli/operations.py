"""What the operations other than search are asked: a forget's selection, an import's options, the
statistics, a question for the agent, a benchmark's evaluation. Each checks itself and raises ``RefindError``
naming the option. Apart from ``request`` (the search's) so that a search does not build their classes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from refind_cli.errors import RefindError
from refind_cli.request import DEFAULT_K, PROTOCOLS

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from refind_cli.agent.budget import Budget
    from refind_cli.agent.llm import ModelConfig


@dataclass(frozen=True, slots=True)
class Selection:
    """What ``refind forget`` erases; the criteria given are combined (all must hold). ``chat`` is a chat
    seq (``Home.selection`` resolves the name the user typed)."""

    chat: int | None = None
    session: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    before: datetime | None = None
    matching: str | None = None

    def is_empty(self) -> bool:
        return all(
            v is None for v in (self.chat, self.session, self.since, self.until, self.before, self.matching)
        )


@dataclass(frozen=True, slots=True)
class ImportOptions:
    fmt: str = "auto"
    tz: tzinfo | None = None  # zone of times written without an offset; None: the system's
    session_gap: timedelta = timedelta(hours=1)
    restore_forgotten: bool = False
    reread: bool = False
    lang: str | None = None  # ISO 639-1 code of the imported chats' language; None: told from their text


@dataclass(frozen=True, slots=True)
class StatsRequest:
    """What `refind stats` counts: some chats (seqs; None: all), from ``since`` to ``until`` (None: open),
    what some senders wrote (names as the archive holds them; None: everyone), in the zone ``tz``."""

    tz: tzinfo
    chats: tuple[int, ...] | None = None
    since: datetime | None = None
    until: datetime | None = None
    senders: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class AskRequest:
    """One question for the agent. ``config`` None runs the offline planner; ``answer_config`` None answers
    with ``config``'s model. ``chats`` are chat seqs (None: every chat); ``speakers`` are names as the
    archive holds them (every search keeps to what they said; None: everyone)."""

    question: str
    now: datetime
    tz: tzinfo
    config: ModelConfig | None = None
    answer_config: ModelConfig | None = None
    protocol: str = "auto"
    budget: Budget | None = None  # None: the agent's default budget
    chats: tuple[int, ...] | None = None
    speakers: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not self.question.strip():
            raise RefindError("the question is empty")
        if self.protocol not in PROTOCOLS:
            raise RefindError(f"--protocol: {self.protocol!r} is not one of {', '.join(PROTOCOLS)}")
        if self.budget is not None and self.budget.max_rounds < 1:
            raise RefindError(f"--max-rounds: {self.budget.max_rounds} is not at least 1")


@dataclass(frozen=True, slots=True)
class EvalRequest:
    """`refind eval` of a benchmark file: its first ``limit`` questions (None: all), the agent with
    ``config`` (None: the offline planner), answers graded by ``judge_config`` (None: not graded), ``k``
    hits for the single-search baseline."""

    file: Path
    config: ModelConfig | None = None
    judge_config: ModelConfig | None = None
    limit: int | None = None
    max_rounds: int = 4
    k: int = DEFAULT_K
    evidence_tokens: int | None = None  # the offline planner's budget a question; None: the measured default

    def __post_init__(self) -> None:
        for name, value in (
            ("--limit", self.limit),
            ("--max-rounds", self.max_rounds),
            ("-k", self.k),
            ("--budget", self.evidence_tokens),
        ):
            if value is not None and value < 1:
                raise RefindError(f"{name}: {value} is not at least 1")
        if self.judge_config is not None and self.config is None:
            raise RefindError("--judge-model needs --model")
