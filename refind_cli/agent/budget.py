"""The stage-1 budget and the meter that adds up usage across both stages and checks it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from refind_cli.agent.events import AgentWarning, EventSink, ModelCall, Usage

if TYPE_CHECKING:
    from refind_cli.agent.llm import Completion


# Evidence tokens a question (characters / 4 of the notes stage 2 reads) the offline planner spends: the
# least budget whose held-out figures on the dev sets reach every recall the planner is held to, where
# LoCoMo's recall per budget bends (bench/recall_cv.py; bench/RESULTS.md, issue 27).
EVIDENCE_TOKENS = 5000


@dataclass(frozen=True, slots=True)
class Budget:
    max_rounds: int = 4  # searches per run
    max_tokens: int | None = None  # prompt + completion tokens of stage 1
    max_cost: float | None = None  # USD of stage 1, when the model's price is known
    evidence_tokens: int = EVIDENCE_TOKENS  # the offline planner's notes, as stage 2 reads them

    @property
    def max_calls(self) -> int:
        """A ceiling on stage-1 model calls: a search, its notes and a retry per round, plus finishing."""
        return self.max_rounds * 3 + 2


DEFAULT_BUDGET = Budget()


@dataclass
class Meter:
    """Usage across both stages, and the stage-1 budget check."""

    budget: Budget
    on_event: EventSink
    usage: Usage = field(default_factory=Usage)
    search_usage: Usage = field(default_factory=Usage)
    warned_cost: bool = False

    def record(self, stage: str, model: str, completion: Completion) -> None:
        call = Usage().add(completion.prompt_tokens, completion.completion_tokens, completion.cost_usd)
        self.usage = self.usage + call
        if stage == "search":
            self.search_usage = self.search_usage + call
        self.on_event(ModelCall(stage, model, call, self.usage))

    def over_budget(self) -> str | None:
        b, u = self.budget, self.search_usage
        if b.max_tokens is not None and u.tokens >= b.max_tokens:
            return "max_tokens"
        if b.max_cost is not None:
            if u.cost_usd is None:
                if not self.warned_cost:
                    self.warned_cost = True
                    self.on_event(AgentWarning("the model's price is unknown: --max-cost cannot be enforced"))
            elif u.cost_usd >= b.max_cost:
                return "max_cost"
        return None
