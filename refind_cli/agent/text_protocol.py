"""The plain-text action protocol, for models without native tool calls: a reply names one action and its
JSON input. The actions it accepts, and which of them need no Action Input, come from the tool registry."""

from __future__ import annotations

import json
import re
from typing import Any

from refind_cli.agent.tools import TOOLS, MalformedCall, Registry

_ACTION_RE = re.compile(r"^\s*\**Action\**\s*:\s*\**\s*([A-Za-z_]+)", re.MULTILINE)
_INPUT_RE = re.compile(r"^\s*\**Action[ _]Input\**\s*:", re.MULTILINE)
_OBSERVATION_RE = re.compile(r"^\s*Observation\s*:", re.MULTILINE)


def parse_text_action(content: str, tools: Registry = TOOLS) -> tuple[str, str, dict[str, Any]]:
    """(thought, tool, arguments) from a text-protocol reply. Only the first action counts, and anything
    after an invented "Observation:" is ignored."""
    cut = _OBSERVATION_RE.search(content)
    text = content[: cut.start()] if cut else content
    action = _ACTION_RE.search(text)
    if not action:
        raise MalformedCall("no 'Action:' line")
    thought = text[: action.start()].strip()
    thought = re.sub(r"^\s*\**Thought\**\s*:\s*", "", thought).strip()
    name = action.group(1)
    tool = tools.get(name)
    rest = text[action.end() :]
    marker = _INPUT_RE.search(rest)
    raw: dict[str, Any] | None = None
    if marker:
        body = rest[marker.end() :]
        brace = body.find("{")
        if brace >= 0:
            try:
                value, _ = json.JSONDecoder().raw_decode(body[brace:])
            except json.JSONDecodeError as err:
                raise MalformedCall(f"the Action Input is not valid JSON ({err.msg})") from None
            if not isinstance(value, dict):
                raise MalformedCall("the Action Input must be a JSON object")
            raw = value
        elif tool.needs_input:
            raise MalformedCall("the Action Input is not a JSON object")
    elif tool.needs_input:
        raise MalformedCall("no 'Action Input:' line")
    return thought, name, tools.parse(name, raw)
