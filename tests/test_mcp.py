"""`refind mcp` driven by the SDK's own stdio client: a real server process, the real protocol, no mocks.
One server serves most of the module; the tests search different words, so the sessions one test was shown
(excluded from that connection's later searches) never touch another's."""

from __future__ import annotations

import contextlib
import copy
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.search  # noqa: F401  (register the commands compared against)
from refind_cli.agent.tools import TOOLS
from refind_cli.frontends.cli import app
from refind_cli.frontends.render import json_text
from refind_cli.ingest import import_chat
from refind_cli.method.search_tools import SEARCH_SCHEMA
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)

# (chat, day offset, [(speaker, text)]): each line of a conversation a minute after the last; the
# conversations days apart, so each is a session of its own.
CONVERSATIONS = [
    ("Family", 0, [("Ann", "dentist on monday?"), ("Ben", "yes at 9, the dentist near the station")]),
    ("Family", 36, [("Ann", "dentist moved to friday"), ("Ben", "ok")]),
    ("Family", 69, [("Ann", "piano lesson today"), ("Ben", "bring the piano book")]),
    ("Family", 105, [("Ann", "piano recital in may"), ("Ben", "I will film it")]),
    ("Family", 117, [("Ben", "the tortoise escaped again"), ("Ann", "check under the shed")]),
    ("Work", 15, [("Cem", "my dentist appointment clashes with the standup"), ("Dee", "move the standup")]),
    ("Work", 51, [("Cem", "dentist again, sorry"), ("Dee", "no worries")]),
    ("Work", 84, [("Cem", "a piano in the office lobby?"), ("Dee", "for the party")]),
    ("Work", 147, [("Dee", "are dentist bills reimbursed"), ("Cem", "yes with a receipt")]),
]

runner = CliRunner()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two chats; nothing indexed yet (the server's first call catches the index up)."""
    home = tmp_path_factory.mktemp("mcp") / "home"
    with Archive.open(home) as arch:
        for name in ("Family", "Work"):
            messages = [
                Message(T0 + day * DAY + i * MINUTE, speaker, text)
                for chat, day, lines in CONVERSATIONS
                if chat == name
                for i, (speaker, text) in enumerate(lines)
            ]
            import_chat(arch, Chat("whatsapp", name.lower(), name), messages)
    return home


@dataclass
class Client:
    """A connected MCP client, called from synchronous tests through a portal to its event loop."""

    portal: BlockingPortal
    session: ClientSession

    def call(self, name: str, **arguments: Any) -> types.CallToolResult:
        return self.portal.call(partial(self.session.call_tool, name, arguments))

    def result(self, name: str, **arguments: Any) -> dict[str, Any]:
        r = self.call(name, **arguments)
        assert not r.is_error, r.content
        assert r.content[0].text == json_text(r.structured_content, compact=True)  # the same result as text
        return r.structured_content

    def error(self, name: str, **arguments: Any) -> str:
        r = self.call(name, **arguments)
        assert r.is_error, r.structured_content
        return r.content[0].text


@contextlib.asynccontextmanager
async def _session(home: Path, args: tuple[str, ...], errlog: Any) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "refind_cli", "--home", str(home), "mcp", "--tz", "UTC", *args]
    )
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@contextlib.contextmanager
def serving(home: Path, *args: str) -> Iterator[Client]:
    with (
        open(home.parent / "server.log", "a") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(_session(home, args, errlog)) as session,
    ):
        yield Client(portal, session)


@pytest.fixture(scope="module")
def client(home: Path) -> Iterator[Client]:
    with serving(home) as c:
        yield c


def cli_json(home: Path, *args: str) -> Any:
    r = runner.invoke(app, ["--home", str(home), *args, "--json"])
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_tools_and_prompt_are_listed_with_the_agents_schema(client: Client) -> None:
    tools = {t.name: t for t in client.portal.call(client.session.list_tools).tools}
    assert list(tools) == ["search_chat", "get_context", "list_chats"]
    agent = TOOLS.get("search_chat")
    search = tools["search_chat"]
    assert search.description == agent.description
    assert {
        k: v for k, v in search.input_schema["properties"].items() if k in agent.parameters["properties"]
    } == (agent.parameters["properties"])
    assert set(search.input_schema["properties"]) - set(agent.parameters["properties"]) == {
        "chats",
        "include_seen",
    }
    assert search.input_schema["required"] == ["keywords"]
    assert all(t.output_schema and t.annotations and t.annotations.read_only_hint for t in tools.values())
    prompts = client.portal.call(client.session.list_prompts).prompts
    assert [(p.name, [a.name for a in p.arguments or ()]) for p in prompts] == [("refind", ["question"])]
    prompt = client.portal.call(client.session.get_prompt, "refind", {"question": "when is the dentist?"})
    text = prompt.messages[0].content.text
    assert "search_chat" in text and "turn id" in text and "2026-01-05" in text
    assert text.endswith("Question: when is the dentist?")


def test_search_chat_is_refind_search_and_excludes_what_it_returned(client: Client, home: Path) -> None:
    # A model searches in rounds: search_chat fuses sessions (request.ROUNDS_SESSION_RANK), as
    # `refind search --session-rank` does.
    first = client.result("search_chat", keywords="dentist", top_k=2)
    assert first == cli_json(home, "search", "--session-rank", "dentist", "-k", "2", "--tz", "UTC")
    assert len(first["results"]) == 2
    shown = sorted({hit["session_id"] for hit in first["results"]})
    second = client.result("search_chat", keywords="dentist", top_k=2)
    excluded = [arg for s in shown for arg in ("--exclude-session", s)]
    assert second == cli_json(
        home, "search", "--session-rank", "dentist", "-k", "2", *excluded, "--tz", "UTC"
    )
    assert second["filters"]["exclude_sessions"] == shown
    assert not {hit["session_id"] for hit in second["results"]} & set(shown)
    # include_seen: as if nothing had been shown (and the default top_k is refind search's)
    again = client.result("search_chat", keywords="dentist", include_seen=True)
    assert again == cli_json(home, "search", "--session-rank", "dentist", "--tz", "UTC")


def test_dates_and_chats_filter_like_refind_search(client: Client, home: Path) -> None:
    got = client.result(
        "search_chat", keywords="piano", date_from="2026-03-20", date_to="2026-04", include_seen=True
    )
    expected = cli_json(
        home,
        "search",
        "--session-rank",
        "piano",
        "--since",
        "2026-03-20",
        "--until",
        "2026-04",
        "--tz",
        "UTC",
    )
    assert got == expected
    assert sorted(hit["text"] for hit in got["results"]) == [
        "a piano in the office lobby?",
        "piano recital in may",
    ]
    family = client.result("search_chat", keywords="piano", chats=["fam"], include_seen=True)
    assert family == cli_json(home, "search", "--session-rank", "piano", "--chat", "fam", "--tz", "UTC")
    assert {hit["chat"]["name"] for hit in family["results"]} == {"Family"}
    said = client.result("search_chat", keywords="piano", include_seen=True, **{"from": ["ann", "Ce"]})
    assert said == cli_json(
        home, "search", "--session-rank", "piano", "--from", "ann", "--from", "Ce", "--tz", "UTC"
    )
    assert {hit["speaker"] for hit in said["results"]} == {"Ann", "Cem"} and said["total"] == 3


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"keywords": "piano", "date_from": "the day after never"}, "date_from: cannot read"),
        ({"keywords": "piano", "date_from": "2026-05-01", "date_to": "2026-04-01"}, "is after date_to"),
        ({"keywords": "piano", "top_k": 0}, "top_k must be between 1 and 20, not 0"),
        ({"keywords": "piano", "top_k": 21}, "top_k must be between 1 and 20, not 21"),
        ({"keywords": "piano", "top_k": "many"}, "top_k must be an integer"),
        ({"keywords": "   "}, "search_chat needs keywords"),
        ({}, "search_chat needs keywords"),
        ({"keywords": "piano", "chats": ["Nowhere"]}, "chats: no chat matches 'Nowhere' (see list_chats)"),
        ({"keywords": "piano", "include_seen": "yes"}, "include_seen must be true or false"),
        ({"keywords": "piano", "from": ["Nobody"]}, "from 'Nobody': no speaker is called that"),
        ({"keywords": "piano", "from": 3}, "from must be a list of speaker names"),
        ({"keywords": "piano", "since": "2026-01"}, "search_chat has no argument 'since'"),
    ],
)
def test_bad_search_arguments_are_tool_errors_and_the_server_serves_on(
    client: Client, arguments: dict[str, Any], message: str
) -> None:
    assert message in client.error("search_chat", **arguments)
    assert client.result("search_chat", keywords="piano", include_seen=True)["total"] == 4


def test_get_context_is_refind_show_around_a_returned_turn(client: Client, home: Path) -> None:
    hit = client.result("search_chat", keywords="tortoise")["results"][0]
    around = client.result("get_context", turn_id=hit["turn_id"])
    assert around == cli_json(home, "show", hit["turn_id"], "--tz", "UTC")
    assert [t["text"] for t in around["turns"] if t["hit"]] == ["the tortoise escaped again"]
    after = client.result("get_context", turn_id=hit["turn_id"], before=0, after=0)
    assert [t["turn_id"] for t in after["turns"]] == [hit["turn_id"]]
    assert len(client.result("get_context", turn_id=hit["turn_id"], before=0, after=1)["turns"]) == 2
    assert "no session or turn 'nope-1'" in client.error("get_context", turn_id="nope-1")
    assert "before must be between 0 and 100, not 101" in client.error(
        "get_context", turn_id=hit["turn_id"], before=101
    )
    assert "no turn" in client.error("get_context", turn_id=hit["session_id"])  # a session id is not one


def test_list_chats_is_refind_chats(client: Client, home: Path) -> None:
    assert client.result("list_chats") == cli_json(home, "chats", "--tz", "UTC")
    assert "unknown tool 'forget'" in client.error("forget", chat="Family")


def test_an_import_or_forget_in_another_process_is_seen_by_the_next_call(client: Client, home: Path) -> None:
    assert client.result("search_chat", keywords="zeppelin")["total"] == 0
    export = home.parent / "WhatsApp Chat with Eve.txt"
    export.write_text("05/01/2026, 10:00 - Eve: a zeppelin over the lake!\n", encoding="utf-8")
    imported = subprocess.run(
        [sys.executable, "-m", "refind_cli", "--home", str(home), "import", "--tz", "UTC", str(export)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    found = client.result("search_chat", keywords="zeppelin")
    assert [(hit["chat"]["name"], hit["text"]) for hit in found["results"]] == [
        ("Eve", "a zeppelin over the lake!")
    ]
    assert "Eve" in {chat["name"] for chat in client.result("list_chats")["chats"]}
    # Forgetting rebuilds the index as a new generation: the server follows it.
    forgot = subprocess.run(
        [sys.executable, "-m", "refind_cli", "--home", str(home), "forget", "--chat", "Eve", "--yes"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert forgot.returncode == 0, forgot.stderr
    assert client.result("search_chat", keywords="zeppelin", include_seen=True)["total"] == 0
    assert "Eve" not in {chat["name"] for chat in client.result("list_chats")["chats"]}


def test_two_concurrent_calls(client: Client) -> None:
    alone = [client.result("search_chat", keywords=w, include_seen=True) for w in ("piano", "receipt")]
    together: list[types.CallToolResult] = [None, None]  # type: ignore[list-item]

    async def both() -> None:
        async def one(i: int, word: str) -> None:
            together[i] = await client.session.call_tool(
                "search_chat", {"keywords": word, "include_seen": True}
            )

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, 0, "piano")
            tg.start_soon(one, 1, "receipt")

    client.portal.call(both)
    assert [r.structured_content for r in together] == alone


def test_chat_option_limits_the_server(home: Path) -> None:
    with serving(home, "--chat", "Work") as work:
        assert [c["name"] for c in work.result("list_chats")["chats"]] == ["Work"]
        hits = work.result("search_chat", keywords="dentist", top_k=10)["results"]
        assert {hit["chat"]["name"] for hit in hits} == {"Work"} and len(hits) == 3
        assert work.result("search_chat", keywords="dentist")["filters"]["chat"] == ["Work"]
        assert "no chat matches 'Family'" in work.error("search_chat", keywords="piano", chats=["Family"])
        family_turn = cli_json(home, "search", "tortoise")["results"][0]["turn_id"]
        assert "no turn" in work.error("get_context", turn_id=family_turn)
        prompt = work.portal.call(work.session.get_prompt, "refind", {"question": "q"}).messages[0]
        assert "from 2026-01-20" in prompt.content.text  # the span of Work's messages only


def test_stdout_carries_only_the_protocol(home: Path) -> None:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_chat", "arguments": {"keywords": "dentist"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "search_chat", "arguments": {"keywords": "x", "top_k": 99}},
        },
    ]
    with subprocess.Popen(
        [sys.executable, "-m", "refind_cli", "--home", str(home), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as p:
        assert p.stdin and p.stdout
        p.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        p.stdin.flush()
        # Every line is a JSON-RPC message (json.loads fails on anything else), up to the last reply.
        replies = [json.loads(p.stdout.readline()) for _ in range(3)]
        p.stdin.close()
        assert p.wait(timeout=60) == 0
        assert p.stdout.read() == ""
    assert sorted(r.get("id") for r in replies) == [1, 2, 3]
    replies.sort(key=lambda r: r["id"])
    assert replies[1]["result"]["structuredContent"]["results"]
    assert replies[2]["result"]["isError"] is True


def test_bad_chat_option_and_missing_sdk_are_one_line_errors(home: Path) -> None:
    refind = [sys.executable, "-m", "refind_cli", "--home", str(home), "mcp"]
    p = subprocess.run(
        [*refind, "--chat", "Nowhere"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    assert (p.returncode, p.stdout, p.stderr) == (
        2,
        "",
        "refind: error: --chat: no chat matches 'Nowhere' (see `refind chats`)\n",
    )
    # As without the SDK installed: an import of it fails.
    code = f"import sys, runpy; sys.modules['mcp'] = None; sys.argv = {['refind', *refind[3:]]!r}; runpy.run_module('refind_cli')"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stderr) == (
        2,
        "refind: error: refind mcp needs the MCP SDK (2.x): pip install 'refind-cli[mcp]'\n",
    )


def test_the_search_schema_still_checks_the_window_turns(client: Client) -> None:
    """Window turns are described by their fields, not typed again, and the seen sessions as a list: a
    result lacking a field, with a turn that is no object or sessions that are no list, is still refused."""
    validator = Draft202012Validator(SEARCH_SCHEMA)
    result = client.result("search_chat", keywords="recital", include_seen=True)
    validator.validate(result)
    window = result["results"][0]["window"]
    for broken in ({k: v for k, v in window[0].items() if k != "hit"}, "a turn"):
        bad = copy.deepcopy(result)
        bad["results"][0]["window"][0] = broken
        assert not validator.is_valid(bad)
    bad = copy.deepcopy(result)
    bad["filters"]["exclude_sessions"] = "one id"  # the seen sessions are named, not typed, but a list
    assert not validator.is_valid(bad)
