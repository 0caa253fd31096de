"""`refind stats`."""

from __future__ import annotations

from refind_cli.frontends.cli import read
from refind_cli.frontends.cli.common import app, table_callback
from refind_cli.frontends.cli.params import STATS

# Its options are declared in params.py, which the quick path parses too.
app.command("stats")(table_callback("stats", STATS, read.stats, __name__))
