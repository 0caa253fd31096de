"""Tables for scripts: CSV or TSV with a header row (as sqlite-utils prints them), written to stdout. A
table that goes into a pipe becomes TSV, so `cut -f2` and `sort -t$'\\t'` work on it."""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterable, Sequence

from refind_cli.frontends.render import has_control, visible

FORMATS = ("table", "tsv", "csv")


def table_format(*, csv_out: bool, tsv_out: bool) -> str:
    """What ``--csv``/``--tsv`` ask for; without either, a table on a terminal and TSV into a pipe."""
    if csv_out:
        return "csv"
    if tsv_out or not sys.stdout.isatty():
        return "tsv"
    return "table"


# What makes the csv module quote a field (``QUOTE_MINIMAL``): the delimiter, the quote, a line's end.
_QUOTED = {"tsv": re.compile('[\t"\r\n]'), "csv": re.compile('[,"\r\n]')}


def write_rows(header: Sequence[str], rows: Iterable[Sequence[object]], fmt: str) -> None:
    """Rows as CSV, or as TSV (a field holding a tab, a newline or a quote is quoted, CSV-style)."""
    # Piped text may still reach a terminal (`| less -R`, `| cat`): chat text shows its control characters
    # as escapes here as everywhere but JSON. Looked for in the whole table's text at once (each a class of
    # single characters, so the fields are joined with nothing between), and escaped field by field only
    # where found: a re-import reports 20,000 chats, whose rows took 0.14 s of CPU with a look a field (load
    # 13).
    table = rows if isinstance(rows, list) else list(rows)
    text = "".join([v for row in table for v in row if isinstance(v, str)])
    if has_control(text):
        table = [[visible(v) if isinstance(v, str) else v for v in row] for row in table]
    elif len(header) > 1 and _QUOTED[fmt].search(text) is None:
        # No field to quote (a row of one empty field is quoted, hence more than one column): each row its
        # fields joined, as the csv module writes them (None as nothing), in half its time (20,000 rows of
        # a re-import: 25 ms against 50).
        sep = "\t" if fmt == "tsv" else ","
        lines = [sep.join(header)]
        lines += [sep.join(["" if v is None else str(v) for v in row]) for row in table]
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
        return
    writer = csv.writer(sys.stdout, dialect="excel-tab" if fmt == "tsv" else "excel", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(table)
    sys.stdout.flush()
