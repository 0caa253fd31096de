"""The quick path: `refind search`, `refind chats` and `refind stats` parsed without building the typer app
(typer and click are a third of a cold search's imports). Both read the same declarations (``params``) and
run the same command (``read``). Only a command line in the plain forms (``--opt value``, ``--opt=value``,
``-k 5``, flags, the positional words) is taken here, each read as click reads it; anything else (--help, a
usage error, an unusual spelling, a value that starts with a dash) goes to the typer app, which prints its
help or its one-line error as always. Not argparse: it and the gettext and locale it loads and asks for
every help string cost ~8 ms of CPU of every search at load (bench/RESULTS.md, issue 26 item 3, session 11),
and it reads some spellings otherwise than click (abbreviations, ``-k=5``) where this reader declines them."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence

from refind_cli import COMPLETE_VAR
from refind_cli.frontends.cli import read
from refind_cli.frontends.cli.output import guarded, set_color
from refind_cli.frontends.cli.params import CHATS_LIST, HOME, ROOT, SEARCH, STATS, Param
from refind_cli.storage.home import resolve_home

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The commands this path runs: their declarations and what runs them (the home folder, then each option).
COMMANDS: dict[str, tuple[Sequence[Param], Callable[..., int]]] = {
    "search": (SEARCH, read.search),
    "chats": (CHATS_LIST, read.chats),
    "stats": (STATS, read.stats),
}
# Words that need typer wherever they stand (help, the eager version option).
_TYPER_ONLY = frozenset({"-h", "--help", "--version"})


def _parsed(params: Sequence[Param], args: Sequence[str]) -> dict[str, Any] | None:
    """Each parameter's value in ``args`` as click reads them, or None where click could read them otherwise
    or refuse them (typer then says so)."""
    options = {d: p for p in params for d in (p.decls[0].split("/") if p.kind is bool else p.decls)}
    values: dict[str, Any] = {p.name: p.default for p in params}
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            words += args[i:]
            break
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        name, given, text = arg.partition("=")
        p = options.get(name)
        if p is None or (given and (p.kind is bool or not name.startswith("--"))):
            return None  # unknown, abbreviated, a flag given a value, or `-k=5` (click's "=5")
        if p.kind is bool:
            values[p.name] = name == p.decls[0].split("/")[0]
            continue
        if not given:
            if i == len(args) or (args[i].startswith("-") and args[i] != "-"):
                return None
            text = args[i]
            i += 1
        value: object = text
        if p.kind is int:
            try:
                value = int(text)
            except ValueError:
                return None
        if p.choices and value not in p.choices:
            return None
        got = values[p.name]
        values[p.name] = ([*got, value] if isinstance(got, list) else [value]) if p.many else value
    positional = [p.name for p in params if not p.decls]
    if len(words) != len(positional):
        return None
    values.update(zip(positional, words, strict=True))
    return values


def _in_bounds(params: Sequence[Param], values: dict[str, object]) -> bool:
    for p in params:
        value = values[p.name]
        if isinstance(value, int) and not isinstance(value, bool):
            if (p.low is not None and value < p.low) or (p.high is not None and value > p.high):
                return False
        elif not p.decls and isinstance(value, str) and value.startswith("-") and value != "-":
            return False  # a word with a dash first (after `--`): left to click
    return True


def serve(args: list[str], *, collecting: bool = True) -> int | None:
    """The exit status of ``args`` run here, or None when typer must run them. The caller has paused the
    cyclic collector for the start-up; ``collecting``: whether it ran before, and runs again for a search
    of queries read from stdin (a batch that may run long)."""
    if COMPLETE_VAR in os.environ or _TYPER_ONLY.intersection(args):
        return None
    at = command_at(args)
    if at is None or args[at] not in COMMANDS:
        return None
    params, body = COMMANDS[args[at]]
    root, values = _parsed(ROOT, args[:at]), _parsed(params, args[at + 1 :])
    if root is None or values is None:
        return None
    home = root["home"] if root["home"] is not None else os.environ.get(HOME.envvar or "") or None
    if (home is not None and not home.strip()) or not _in_bounds(params, values):
        return None
    set_color(root["color"])
    if collecting and values.get("query") == "-":
        gc.enable()
    return guarded(lambda: body(resolve_home(home), **values))


def command_at(args: Sequence[str]) -> int | None:
    """Where a command line names its command: its first word that is neither a root option nor its value."""
    value_next = False
    with_value = {d for p in ROOT for d in p.decls}
    for i, arg in enumerate(args):
        if value_next:
            value_next = False
        elif arg in with_value:
            value_next = True
        elif not arg.startswith("-"):
            return i
    return None
