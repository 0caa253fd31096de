"""The quick path: `refind search`, `refind chats` and `refind stats` parsed by the standard library's argparse, without building the typer app
(typer and click are a third of a cold search's imports). Both parsers are built from the same declarations
(``params``) and run the same command (``read``). Only a command line this path reads exactly as click would
is taken here; anything else (--help, a usage error, an unusual spelling) goes to the typer app, which
prints its help or its one-line error as always."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from typing import NoReturn

from refind_cli import COMPLETE_VAR
from refind_cli.frontends.cli import read
from refind_cli.frontends.cli.output import guarded, set_color
from refind_cli.frontends.cli.params import CHATS_LIST, HOME, ROOT, SEARCH, STATS, Param
from refind_cli.storage.home import resolve_home

# The commands this path runs: their declarations and what runs them (the home folder, then each option).
COMMANDS: dict[str, tuple[Sequence[Param], Callable[..., int]]] = {
    "search": (SEARCH, read.search),
    "chats": (CHATS_LIST, read.chats),
    "stats": (STATS, read.stats),
}
# Words that need typer wherever they stand (help, the eager version option).
_TYPER_ONLY = frozenset({"-h", "--help", "--version"})


class _NotQuick(Exception):
    """The command line is left to typer."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _NotQuick(message)


def _formatter(prog: str) -> argparse.HelpFormatter:
    # A width, so that argparse does not import shutil to ask the terminal's (it never prints help here).
    return argparse.HelpFormatter(prog, width=80)


def _parser(params: Sequence[Param]) -> _Parser:
    # No abbreviations and no -h: click takes neither here.
    parser = _Parser(add_help=False, allow_abbrev=False, formatter_class=_formatter)
    for p in params:
        if not p.decls:
            parser.add_argument(p.name)
        elif p.kind is bool:
            on, _, off = p.decls[0].partition("/")
            parser.add_argument(on, dest=p.name, action="store_true", default=p.default)
            if off:
                parser.add_argument(off, dest=p.name, action="store_false")
        else:
            parser.add_argument(
                *p.decls,
                dest=p.name,
                type=p.kind,
                action="append" if p.many else "store",
                default=p.default,
                choices=p.choices or None,
            )
    return parser


def _in_bounds(params: Sequence[Param], values: dict[str, object]) -> bool:
    for p in params:
        value = values[p.name]
        if isinstance(value, int) and not isinstance(value, bool):
            if (p.low is not None and value < p.low) or (p.high is not None and value > p.high):
                return False
        elif not p.decls and isinstance(value, str) and value.startswith("-") and value != "-":
            return False  # after `--`: click's parser and argparse differ on what is an option there
    return True


def serve(args: list[str]) -> int | None:
    """The exit status of ``args`` run here, or None when typer must run them."""
    if COMPLETE_VAR in os.environ or _TYPER_ONLY.intersection(args):
        return None
    at = command_at(args)
    if at is None or args[at] not in COMMANDS:
        return None
    params, body = COMMANDS[args[at]]
    # A short option's `-k=5` is an error to click (its value "=5") and 5 to argparse.
    if any(a.startswith("-") and not a.startswith("--") and "=" in a for a in args):
        return None
    try:
        root = vars(_parser(ROOT).parse_args(args[:at]))
        values = vars(_parser(params).parse_args(args[at + 1 :]))
    except (_NotQuick, argparse.ArgumentError):
        return None
    home = root["home"] if root["home"] is not None else os.environ.get(HOME.envvar or "") or None
    if (home is not None and not home.strip()) or not _in_bounds(params, values):
        return None
    set_color(root["color"])
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
