"""The ReFind agent: stage 1 searches in rounds and keeps verbatim notes, stage 2 answers from the notes.

Importing this package is cheap: litellm is imported only when a model is actually called (``agent.llm``).
It registers the built-in tools (``builtin_tools``), through the same ``tools.register`` a new tool uses.
"""

from refind_cli.agent import builtin_tools  # noqa: F401  (registers search_chat, take_note, finish_search)
from refind_cli.agent.archive_ask import ask
from refind_cli.agent.budget import Budget
from refind_cli.agent.events import AskResult, Citation, Event, Note, Round, Usage
from refind_cli.agent.llm import ModelConfig, resolve_config
from refind_cli.agent.runner import run
from refind_cli.agent.tools import Registry, Tool, ToolFailed, ToolResult, register

__all__ = [
    "AskResult",
    "Budget",
    "Citation",
    "Event",
    "ModelConfig",
    "Note",
    "Registry",
    "Round",
    "Tool",
    "ToolFailed",
    "ToolResult",
    "Usage",
    "ask",
    "register",
    "resolve_config",
    "run",
]
