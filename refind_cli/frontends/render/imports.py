"""Output of `refind import` and `refind chats`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from refind_cli.frontends.render import iso, short_time, visible
from refind_cli.frontends.render.rows import write_rows
from refind_cli.text.language import name as language_name

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    # rich draws tables for a terminal only: piped `refind chats` is TSV and never imports it (nor the
    # import reports, nine dataclasses to build).
    from rich.console import Console

    from refind_cli.frontends.render.styled import Out
    from refind_cli.listings import ChatSummary
    from refind_cli.reports import FileImportResult


def import_json(results: Sequence[FileImportResult]) -> dict:
    return {
        "files": [
            {
                "path": r.path,
                "format": r.format,
                "chats": [
                    {
                        "chat_id": c.chat_id,
                        "name": c.name,
                        "messages_added": c.messages_added,
                        "messages_skipped": c.messages_skipped,
                        "sessions": c.sessions,
                        "turns": c.turns,
                    }
                    for c in r.chats
                ],
                "error": r.error,
                "warnings": list(r.warnings),
                # the same content was imported before with the same settings, so it was not read again
                "unchanged": r.unchanged_since is not None,
                # the bytes an earlier import had read of this export, grown since: read from there on
                "read_from": r.resumed_at,
            }
            for r in results
        ]
    }


def write_imports(results: Sequence[FileImportResult], fmt: str) -> None:
    """`refind import` into a pipe: one row per chat read, the table's columns after the file's own."""
    write_rows(
        ("path", "format", "chat", "added", "skipped", "sessions", "turns", "unchanged"),
        (
            (
                r.path,
                r.format,
                c.name,
                c.messages_added,
                c.messages_skipped,
                c.sessions,
                c.turns,
                int(r.unchanged_since is not None),
            )
            for r in results
            if not r.error
            for c in r.chats
        ),
        fmt,
    )


def print_import(console: Console, result: FileImportResult) -> None:
    from rich.table import Table
    from rich.text import Text

    if result.error:
        return
    caption = "imported before, unchanged: not read again" if result.unchanged_since is not None else None
    if result.resumed_at is not None:
        caption = f"grown since it was imported: read from byte {result.resumed_at:,} on"
    table = Table(
        title=Text(f"{visible(result.path)} ({result.format})"),
        title_justify="left",
        caption=caption,
        caption_justify="left",
        show_edge=False,
    )
    for column in ("chat", "added", "skipped", "sessions", "turns"):
        table.add_column(column, justify="left" if column == "chat" else "right")
    for c in result.chats:
        table.add_row(
            Text(visible(c.name)),
            f"{c.messages_added:,}",
            f"{c.messages_skipped:,}",
            f"{c.sessions:,}",
            f"{c.turns:,}",
        )
    console.print(table)


def chats_json(chats: Sequence[ChatSummary], tz: tzinfo | None) -> dict:
    return {
        "count": len(chats),
        "chats": [
            {
                "id": c.info.seq,
                "name": c.info.name,
                "source": c.info.source,
                "kind": c.info.kind,
                "messages": c.messages,
                "sessions": c.sessions,
                "turns": c.turns,
                "first": iso(c.first, tz),
                "last": iso(c.last, tz),
                "lang": c.lang or None,
                "language": language_name(c.lang),
            }
            for c in chats
        ],
    }


def write_chats(chats: Sequence[ChatSummary], tz: tzinfo | None, fmt: str) -> None:
    """`refind chats --tsv/--csv` (and piped): the table's columns, numbers without separators."""
    write_rows(
        ("id", "chat", "source", "messages", "sessions", "first", "last", "lang", "language"),
        (
            (
                c.info.seq,
                c.info.name,
                c.info.source,
                c.messages,
                c.sessions,
                short_time(c.first, tz)[:10] if c.first else "",
                short_time(c.last, tz)[:10] if c.last else "",
                c.lang,
                language_name(c.lang),
            )
            for c in chats
        ),
        fmt,
    )


def print_no_chats(out: Out, *, filtered: bool = False) -> None:
    out.print(
        "No chats from that source."
        if filtered
        else "No chats yet: import an export with `refind import FILE`."
    )


def print_chats(console: Console, chats: Sequence[ChatSummary], tz: tzinfo | None) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False, caption=f"{len(chats):,} chats", caption_justify="left")
    for column in ("id", "chat", "source", "messages", "sessions", "first", "last", "language"):
        table.add_column(column, justify="right" if column in ("id", "messages", "sessions") else "left")
    for c in chats:
        table.add_row(
            str(c.info.seq),
            Text(visible(c.info.name)),
            c.info.source,
            f"{c.messages:,}",
            f"{c.sessions:,}",
            short_time(c.first, tz)[:10] if c.first else "",
            short_time(c.last, tz)[:10] if c.last else "",
            language_name(c.lang),
        )
    console.print(table)
