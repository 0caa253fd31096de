"""Start-up, session 19: a cold read loads no pathlib (the home is a ``str`` path read with ``os.path``: pathlib
imports urllib.parse and ipaddress, a tenth of a cold search), no warnings, and compiles no pattern its output
does not use; the archive is opened read-only by its plain name, whatever characters the home's path holds, with
one plan a statement."""

from __future__ import annotations

import os
from datetime import UTC
from pathlib import Path

import apsw
import pytest
from cold_runs import ColdRun, cold_run
from samples import JONAS

from refind_cli.facade import Home
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_file
from refind_cli.storage import schema
from refind_cli.storage.archive import Archive
from refind_cli.storage.home import resolve_home

# What a cold read must not load: pathlib and what it brings (urllib.parse with ipaddress, fnmatch), warnings.
_HEAVY = {"pathlib", "urllib.parse", "ipaddress", "fnmatch", "warnings"}
# Patterns compiled only where their output is made: the terminal's controls, JSON's, the Latin letter names.
_TERMINAL, _JSON, _NAMED = "\\x00-\\x08", "\\u2028\\u2029", "LATIN (?:SMALL"


def _cold(home: Path, *args: str) -> ColdRun:
    """``refind ARGS`` as installed: its stdout, the modules it loaded, those whose code ran an import of one
    of ``_HEAVY``, and the patterns it compiled."""
    return cold_run(home, args, _HEAVY)


@pytest.mark.parametrize(
    ("args", "shown", "unused"),
    [
        (("search", "dentist"), "dentist", (_JSON, _NAMED)),
        (("search", "zzzqqq"), "", (_TERMINAL, _JSON, _NAMED)),
        (("search", "dentist", "--json"), '"query": "dentist"', (_TERMINAL, _NAMED)),
        (("search", "dentist", "--timeline", "--tz", "Europe/Berlin"), "matching turns", (_JSON, _NAMED)),
        (("chats",), "Family", (_JSON,)),
        (("stats", "--tz", "UTC"), "Who writes most", (_JSON,)),
    ],
)
def test_a_cold_read_loads_no_pathlib_and_compiles_what_it_shows(
    sample_home: Path, args: tuple[str, ...], shown: str, unused: tuple[str, ...]
):
    out, loaded, by, patterns = _cold(sample_home, *args)
    assert shown in out
    assert "refind_cli.storage.archive" in loaded
    # Only a dependency may: stop-words does (and the typing it imports), for the chats in a language it
    # holds a list for (German here); and stats' dataclasses (the inspect they load imports importlib).
    assert not {m for m in by if m.startswith("refind_cli")}, by
    assert by <= _HEAVY | {"stop_words", "typing", "importlib"}, by
    assert not [p for p in patterns for part in unused if part in p], patterns


def _english_home(tmp_path: Path, text: str) -> Path:
    chat = tmp_path / "WhatsApp Chat with Sam.txt"
    chat.write_text(
        f"12/03/2024, 19:02 - Sam: {text}\n12/03/2024, 19:05 - Alex: yes, dinner\n", encoding="utf-8"
    )
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        assert import_file(archive, chat, tz=UTC).error is None
        Index.open(home).sync(archive)  # a read catches up an index left behind: a write, not measured here
    return home


def test_a_cold_read_of_english_chats_loads_none_of_it(tmp_path: Path):
    home = _english_home(tmp_path, "dinner at eight?")
    for args, shown in (
        (("search", "dinner"), "dinner at eight"),
        (("search", "zzzqqq"), ""),
        (("search", "dinner", "--json"), "dinner at eight"),
        (("chats",), "Sam"),
    ):
        out, loaded, _, _ = _cold(home, *args)
        assert shown in out and not loaded & _HEAVY, (args, loaded & _HEAVY)


def test_a_search_shows_a_control_character_escaped_and_json_keeps_it(tmp_path: Path):
    # The patterns compiled on first use still do their work: ESC shown as \x1b, U+2028 escaped in JSON.
    home = _english_home(tmp_path, "dinner \x1b[2J at\u2028eight")
    out, _, _, _ = _cold(home, "search", "dinner")
    assert "\\x1b[2J" in out and "\x1b" not in out
    out, _, _, _ = _cold(home, "search", "dinner", "--json")
    assert "\\u2028" in out and "\u2028" not in out and "\\u001b[2J" in out


# Characters a SQLite URI reads otherwise (query, fragment, escape) or a shell would split on.
_ODD = "we?ird #home% 20 ~"


def test_a_home_whose_path_holds_uri_characters_is_read(tmp_path: Path):
    home = tmp_path / _ODD
    with Archive.open(home) as archive:
        assert import_file(archive, JONAS, tz=UTC).error is None
        names = [c.info.name for c in archive.chats()]
        assert archive.db.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, -1) == 0  # a writer keeps SQLite's default
    with Archive.open(str(home), readonly=True) as reader:
        assert reader.db.filename == str(home / "archive.db")
        assert [c.info.name for c in reader.chats()] == names
        # One plan a statement: the turns' window is not prepared again at each hit (schema._tune_reader).
        assert reader.db.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, -1) == 1


def test_a_read_only_archive_in_a_folder_nobody_writes_is_read_immutable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # The folder cannot be made unwritable to root: SQLite's refusal is stood in for, once, as it comes.
    home = tmp_path / _ODD
    with Archive.open(home) as archive:
        assert import_file(archive, JONAS, tz=UTC).error is None
        names = [c.info.name for c in archive.chats()]
    tune, refused = schema._tune, []

    def refusing(db: apsw.Connection) -> None:
        if not refused:
            refused.append(db.filename)
            raise apsw.ReadOnlyError("attempt to write a readonly database")
        tune(db)

    monkeypatch.setattr(schema, "_tune", refusing)
    with Archive.open(home, readonly=True) as reader:
        assert refused == [str(home / "archive.db")]
        assert [c.info.name for c in reader.chats()] == names
        assert reader.db.filename == str(home / "archive.db")  # the URI named this very file
        assert reader.db.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, -1) == 1


def test_the_home_is_a_str_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("REFIND_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert resolve_home() == os.path.join(str(tmp_path), ".local", "share", "refind")
    monkeypatch.setenv("XDG_DATA_HOME", "~/data")
    assert resolve_home() == os.path.join(str(tmp_path), "data", "refind")
    monkeypatch.setenv("REFIND_HOME", "~/r")
    assert resolve_home() == os.path.join(str(tmp_path), "r")
    assert resolve_home("~/given") == os.path.join(str(tmp_path), "given")
    assert resolve_home(tmp_path / "p") == str(tmp_path / "p")
    home = Home(tmp_path / "h")
    assert home.path == str(tmp_path / "h") and repr(home) == f"Home({str(tmp_path / 'h')!r})"
