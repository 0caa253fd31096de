"""Tables for scripts: CSV or TSV with a header row (as sqlite-utils prints them), written to stdout. A
table that goes into a pipe becomes TSV, so `cut -f2` and `sort -t$'\\t'` work on it."""

from __future__ import annotations

import csv
import io
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


def write_rows(header: Sequence[str], rows: Iterable[Sequence[object]], fmt: str) -> None:
    """Rows as CSV, or as TSV (a field holding a tab, a newline or a quote is quoted, CSV-style)."""
    dialect = "excel-tab" if fmt == "tsv" else "excel"
    # Piped text may still reach a terminal (`| less -R`, `| cat`): chat text shows its control characters
    # as escapes here as everywhere but JSON. Looked for in the table as written, once (the writer adds
    # none: its line ends are "\n"), and escaped field by field only where found: a re-import reports 20,000
    # chats, whose rows took 0.14 s of CPU with a look a field (load 13), and 25-40 ms with their text
    # joined to be looked at (160,000 fields tested for text; resume15).
    table = rows if isinstance(rows, list) else list(rows)
    out = io.StringIO()
    writer = csv.writer(out, dialect=dialect, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(table)
    text = out.getvalue()
    if has_control(text):
        out = io.StringIO()
        writer = csv.writer(out, dialect=dialect, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([[visible(v) if isinstance(v, str) else v for v in row] for row in table])
        text = out.getvalue()
    sys.stdout.write(text)
    sys.stdout.flush()
