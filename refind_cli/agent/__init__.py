"""The ReFind agent: stage 1 searches in rounds and keeps verbatim notes, stage 2 answers from the notes.

Importing this package is cheap: litellm is imported only when a model is actually called (``agent.llm``).
"""

from refind_cli.agent.events import AskResult, Citation, Event, Note, Round, Usage
from refind_cli.agent.llm import ModelConfig, resolve_config
from refind_cli.agent.loop import Budget, ask, run

__all__ = [
    "AskResult",
    "Budget",
    "Citation",
    "Event",
    "ModelConfig",
    "Note",
    "Round",
    "Usage",
    "ask",
    "resolve_config",
    "run",
]
