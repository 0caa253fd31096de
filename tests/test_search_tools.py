"""The search-tools layer: one search_chat for refind's agent and the MCP server, and result schemas that say
exactly what the JSON builders of `refind search/show/chats --json` write."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from jsonschema import Draft202012Validator

from refind_cli.agent import prompts
from refind_cli.agent.builtin_tools import PRESENT, SEARCH_CHAT, reading_tool
from refind_cli.agent.tools import Registry, Toolbox
from refind_cli.facade import Home
from refind_cli.frontends.mcp import server as mcp_server
from refind_cli.frontends.render.imports import chats_json
from refind_cli.frontends.render.search import session_json, to_json
from refind_cli.method.search_tools import (
    CHATS_SCHEMA,
    READ_TOOLS,
    SEARCH_GUIDE,
    SEARCH_PARAMETERS,
    SEARCH_SCHEMA,
    SESSION_SCHEMA,
    Reading,
    ReadTool,
    Seen,
    parse_search,
    search_request,
)

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 1, 12, tzinfo=BERLIN)


def same_shape(schema: dict[str, Any], value: Any, where: str = "$") -> None:
    """``value`` has every field ``schema`` requires and none it does not declare, all the way down (where
    the schema lists its fields), and is valid JSON Schema-wise."""
    Draft202012Validator(schema).validate(value)
    if "properties" in schema and isinstance(value, dict):
        declared, required = set(schema["properties"]), set(schema.get("required", ()))
        assert set(value) <= declared, f"{where}: undeclared {sorted(set(value) - declared)}"
        assert required <= set(value), f"{where}: missing {sorted(required - set(value))}"
        for key, item in value.items():
            same_shape(schema["properties"][key], item, f"{where}.{key}")
    if "items" in schema and isinstance(value, list):
        for i, item in enumerate(value):
            same_shape(schema["items"], item, f"{where}[{i}]")


@pytest.fixture(scope="module")
def home(sample_home: Path) -> Any:
    with Home.open(sample_home) as h:
        yield h


def test_the_schemas_are_the_json_builders_shapes(home: Home) -> None:
    request = home.request("dentist appointment", k=3, exclude_sessions=["none"], now=NOW, tz=BERLIN)
    result = home.search(request)
    assert result.hits
    same_shape(SEARCH_SCHEMA, to_json(result, BERLIN))
    same_shape(SESSION_SCHEMA, session_json(home.show(result.hits[0].turn.id, context=2), BERLIN))
    same_shape(CHATS_SCHEMA, chats_json(home.chats(), BERLIN))


def test_a_field_the_schema_does_not_declare_is_caught(home: Home) -> None:
    out = chats_json(home.chats(), BERLIN)
    out["chats"][0]["colour"] = "blue"
    with pytest.raises(AssertionError, match=r"chats\[0\]: undeclared \['colour'\]"):
        same_shape(CHATS_SCHEMA, out)


def test_the_agent_and_the_mcp_server_serve_one_search_chat(home: Home) -> None:
    assert SEARCH_CHAT.parameters is SEARCH_PARAMETERS and SEARCH_CHAT.parse is parse_search
    served = next(tool for tool, _ in mcp_server._TOOLS if tool.name == SEARCH_CHAT.name)
    assert served.description == SEARCH_CHAT.description
    assert served.input_schema["properties"].items() >= SEARCH_PARAMETERS["properties"].items()
    assert served.output_schema == SEARCH_SCHEMA
    # One copy of the method's instructions, in both prompts.
    agent = prompts.search_system_prompt(asked_at=NOW, tz=BERLIN, span=None, max_rounds=3)
    with home.reading():
        served_prompt = mcp_server.ArchiveTools(home, BERLIN).prompt("when is the dentist?")
    assert SEARCH_GUIDE in agent and SEARCH_GUIDE in served_prompt


def test_tool_arguments_become_a_request_without_the_seen_sessions(home: Home) -> None:
    seen = Seen()
    parsed = parse_search({"keywords": ["dentist", "appointment"], "top_k": "30", "from": "Jonas"})
    first = home.search(search_request(parsed, None, None, chats=None, exclude=seen))
    assert first.request.k == 20 and first.request.speakers == ("Jonas",)
    seen.add(first)
    assert seen.excluded() == tuple(sorted({h.turn.session_id for h in first.hits}))
    again = home.search(search_request(parsed, None, None, chats=None, exclude=seen))
    assert not {h.turn.session_id for h in again.hits} & set(seen.excluded())


def _this_week(reading: Reading, parsed: dict[str, Any]) -> Any:
    """A toy read tool: search_chat over the week before now."""
    now = reading.clock(reading.tz)
    return reading.search({**parsed, "chats": [], "include_seen": False}, now - timedelta(days=7), now)


def test_a_read_tool_declared_once_is_served_by_the_mcp_server_and_the_agent(home: Home) -> None:
    """One declaration (its schema, parse, run and result shape) and nothing else: the MCP server lists and
    runs it, and refind's agent has it, each rendering the result its own way."""
    toy = ReadTool(
        name="search_this_week",
        description="search_chat over the last seven days.",
        parameters=SEARCH_PARAMETERS,
        parse=parse_search,
        run=_this_week,
        shape="search",
        agent_parameters=SEARCH_PARAMETERS,
        agent_parse=parse_search,
    )
    listed, runs = mcp_server.served((*READ_TOOLS, toy))
    assert [tool.name for tool, _ in listed] == [*(t.name for t in READ_TOOLS), "search_this_week"]
    served = mcp_server.ArchiveTools(home, BERLIN, now=lambda tz: datetime(2026, 4, 10, 12, tzinfo=tz))
    with home.reading():
        out = runs["search_this_week"](served, {"keywords": "dentist"})
    same_shape(SEARCH_SCHEMA, out)
    assert out["results"] and all("2026-04-03" <= r["timestamp"][:10] <= "2026-04-10" for r in out["results"])
    assert out["filters"]["since"].startswith("2026-04-03")

    registry = Registry([reading_tool(toy, PRESENT[toy.shape])])
    box = Toolbox(home.search, datetime(2026, 4, 10, 12, tzinfo=BERLIN), BERLIN, 3, tools=registry)
    with home.reading():
        result = box.call("search_this_week", registry.parse("search_this_week", '{"keywords": "dentist"}'))
    assert result.turn_ids and box.searches == 1 and box.last_hits
    assert "dentist" in result.text.lower()
    assert {h.turn.id for h in box.last_hits} == {r["turn_id"] for r in out["results"]}
