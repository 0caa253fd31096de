"""The options of the root and of the commands that both entry points parse, declared once: the typer app
builds its parameters from these (``common.typer_param``), the quick path its reader
(``quick``). Plain data: importing it imports neither typer nor click."""

from __future__ import annotations

# No ``from __future__ import annotations``: a named tuple's string annotations cost a search (``records``).
from refind_cli.frontends.cli.output import COLOR_CHOICES
from refind_cli.request import MAX_K, MAX_WINDOW, SESSION_RANK
from refind_cli.typed import NamedTuple


class Param(NamedTuple):
    """One option (``decls`` as click declares it: ``--flag``, ``-k``, ``--on/--off``) or, with no
    ``decls``, the positional argument named ``name``. ``kind`` is str, int or bool (a flag); ``many``:
    repeatable (None when not given); ``low``/``high``: an int's inclusive bounds."""

    name: str
    decls: tuple[str, ...]
    help: str
    kind: type = str
    default: object = None
    many: bool = False
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    envvar: str | None = None
    required: bool = False


HOME = Param(
    "home", ("--home",), "Data folder (default: $XDG_DATA_HOME/refind).", metavar="DIR", envvar="REFIND_HOME"
)
COLOR = Param(
    "color",
    ("--color",),
    "Colour the output: auto (on a terminal, unless NO_COLOR is set), always or never.",
    default="auto",
    choices=COLOR_CHOICES,
)
# The root's options that take a value (a command line's command is its first other word).
ROOT = (HOME, COLOR)

# Options that several commands take.
CHATS = Param("chat", ("--chat",), "Only these chats (name, id or number); repeatable.", many=True)
SOURCES = Param(
    "source", ("--source",), "Only chats from this service (whatsapp, slack, ...); repeatable.", many=True
)
SPEAKERS = Param(
    "speaker",
    ("--from",),
    "Only what this person said (a name, the start of any part of one, an id, or 'me'); repeatable.",
    many=True,
)
TZ = Param("tz", ("--tz",), "Time zone for dates (default: the system's).")
JSON = Param("json_out", ("--json",), "Print the result as JSON.", kind=bool, default=False)

SEARCH = (
    Param("query", (), "Words to look for; '-' reads one query per line from stdin.", required=True),
    Param("since", ("--since",), "Only turns from then on: 2023-05-04, 2023-05, last week, ..."),
    Param("until", ("--until",), "Only turns until then (inclusive)."),
    CHATS,
    SOURCES,
    SPEAKERS,
    Param("sort", ("--sort",), "Order hits by 'score' (best first, the default) or 'time' (newest first)."),
    Param("newest", ("--newest",), "The newest matches first: --sort time.", kind=bool, default=False),
    Param("k", ("-k",), "Number of results.", kind=int, default=5, low=1, high=MAX_K),
    Param(
        "window", ("--window",), "Turns of context either side.", kind=int, default=2, low=0, high=MAX_WINDOW
    ),
    Param("exclude_session", ("--exclude-session",), "Skip this session id; repeatable.", many=True),
    Param(
        "session_rank",
        ("--session-rank/--no-session-rank",),
        "Fuse each hit's score with its session's (RRF).",
        kind=bool,
        default=SESSION_RANK,
    ),
    TZ,
    JSON,
    Param("jsonl_out", ("--jsonl",), "One JSON object per line, one per query.", kind=bool, default=False),
    Param(
        "timeline",
        ("--timeline",),
        "First chart how all the matches spread over time, then the hits.",
        kind=bool,
        default=False,
    ),
)

# `refind chats` (its listing: `chats rename` and `chats merge` are typer's alone).
CHATS_LIST = (
    SOURCES,
    Param(
        "sort", ("--sort",), "id (import order), recent (last message first), name or messages.", default="id"
    ),
    Param("tz", ("--tz",), "Zone for the dates shown."),
    JSON,
    Param("csv_out", ("--csv",), "Print the table as CSV.", kind=bool, default=False),
    Param(
        "tsv_out",
        ("--tsv",),
        "Print the table as TSV (what a pipe gets by default).",
        kind=bool,
        default=False,
    ),
)

STATS = (
    CHATS,
    SOURCES,
    SPEAKERS,
    Param("since", ("--since",), "Only messages from then on: 2023-05-04, 2023-05, last year, ..."),
    Param("until", ("--until",), "Only messages until then (inclusive)."),
    Param("tz", ("--tz",), "Time zone for months, days and hours (default: the system's)."),
    Param("json_out", ("--json",), "Print the numbers as JSON.", kind=bool, default=False),
)
