"""Checked by mypy (pyproject.toml's ``files``), never run: each call misspells a keyword of a seam between a
front end and the library, and its ignore says mypy refuses it. Were a seam to take loose keywords again
(``**options: Any``), mypy would accept the call, the ignore would be unused, and `make test` would fail."""

from __future__ import annotations

from datetime import datetime, tzinfo
from pathlib import Path

from refind_cli import agent
from refind_cli.facade import Home, eval_request
from refind_cli.index import TurnIndex
from refind_cli.method.search import search
from refind_cli.operations import AskRequest
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive


def misspelt(archive: Archive, index: TurnIndex, home: Home, now: datetime, tz: tzinfo) -> None:
    home.request("dentist", kk=3, now=now, tz=tz)  # type: ignore[call-arg]
    home.ask_request("when?", budgett=3, tz=tz)  # type: ignore[call-arg]
    home.ask(home.ask_request("when?", tz=tz), on_evnt=print)  # type: ignore[call-arg]
    home.stats_request(chat=["Mum"], now=now, tz=tz)  # type: ignore[call-arg]
    home.selection(chats="Mum", now=now, tz=tz)  # type: ignore[call-arg]
    Home.import_options(format="whatsapp")  # type: ignore[call-arg]
    agent.ask(archive, index, AskRequest("when?", now, tz), on_evnt=print)  # type: ignore[call-arg]
    search(archive, index, SearchRequest("dentist"), k=3)  # type: ignore[call-arg]
    SearchRequest("dentist", top_k=3)  # type: ignore[call-arg]
    eval_request(Path("longmemeval.json"), modle="openai/gpt-4o-mini")  # type: ignore[call-arg]
