"""Issue 24, item 4 (session 16): one huge message in an iMessage TXT conversation (imessage-exporter).

The reader held a block's lines in two lists and joined them twice, its record and its text: 4.4 times the
message beside the same file with a 1 KB message (session 15). Now a line longer than ``linelog.SPILL`` comes
as a ``linelog.Cut`` (its middle in an unnamed file), the body lines that end a block are gathered into one
once longer than a spill, and where the text (its lines, then its attachments) is one run of the record's
lines it is held in a file (``HeldText``), the record holding ``HELD`` in its place. Measured in a child
process (its peak RSS, VmHWM); read with tiny thresholds, every message gives the same text, record and
identity as read whole.
"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_huge_message_worker import WORDS, _hold_in_part, bounded, read_as_whole
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.search  # noqa: F401 (registers `import` and `search`)
from refind_cli.frontends.cli import app
from refind_cli.importers import container, imessage, read_export
from refind_cli.records import HeldText, Message
from refind_cli.storage.archive import Archive

MB = 1 << 20


def _long(mb: int, pasted: bool) -> str:
    if pasted:
        return "\n".join(f"{WORDS}{i}" for i in range(mb * MB // (len(WORDS) + 7)))
    return WORDS * (mb * MB // len(WORDS))


def _conversation(folder: Path, body: str, after: str = "") -> Path:
    """Three blocks, the middle one's body ``body`` then the lines ``after`` it (attachments, tapbacks)."""
    path = folder / "Jack.txt"
    path.write_text(
        "May 17, 2022  5:29:42 PM\nJack\nhi\n\n"
        f"May 17, 2022  5:30:00 PM (Read by you after 1 hour, 49 seconds)\nMe\n{body or 'hi'}{after}\n\n"
        "May 17, 2022  5:31:00 PM\nJack\nok\n"
    )
    return path


def _read(path: Path) -> list[Message]:
    return [m for export in read_export(path, "imessage", UTC) for m in export.messages]


@pytest.mark.parametrize("pasted", [False, True])
def test_a_long_imessage_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path, pasted: bool):
    # Before: the line as written, the block's lines, its record and its text joined (16 and 32 MB over a
    # one-line chat for 8 and 16 MB one line; more as short lines). Now the head, the tail and a piece.
    bounded(tmp_path, "imessage", lambda folder, mb: _conversation(folder, _long(mb, pasted)))


@pytest.mark.parametrize("pasted", [False, True])
def test_a_long_imessage_is_held_and_its_record_rebuilt(tmp_path: Path, pasted: bool):
    body = _long(2, pasted)
    after = "\n/Users/me/Attachments/IMG_1.HEIC\nTapbacks:\nLoved by Jack"
    messages = _read(_conversation(tmp_path, body, after))
    assert [type(m.text) for m in messages] == [str, HeldText, str]
    held = messages[1]
    assert isinstance(held.text, HeldText)
    assert held.text.whole() == body + "\n/Users/me/Attachments/IMG_1.HEIC"
    assert held.kind == "attachment" and held.own
    rebuilt = held.raw.replace("\x00", held.text.whole())
    assert rebuilt == (f"May 17, 2022  5:30:00 PM (Read by you after 1 hour, 49 seconds)\nMe\n{body}{after}")


def test_a_long_imessage_is_imported_and_shown_as_written(tmp_path: Path):
    body = _long(2, True) + "\n é😀 \u2028 end"
    path = _conversation(tmp_path, body)
    home = tmp_path / "home"
    runner = CliRunner()
    r = runner.invoke(app, ["--home", str(home), "import", str(path)])
    assert r.exit_code == 0, r.output
    with Archive.open(home) as archive:
        stored = list(archive.stored_messages(1))
    assert [m.text for m in stored] == ["hi", body, "ok"]
    assert stored[1].raw == f"May 17, 2022  5:30:00 PM (Read by you after 1 hour, 49 seconds)\nMe\n{body}"
    r = runner.invoke(app, ["--home", str(home), "search", "dull boy end", "--json"])
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.stdout)["results"]) == 1


# A block's lines: body lines, then what the exporter writes among them (attachments, tapbacks, a reply's
# copy, effects, notes) and lines that look like a stamp or a marker, then perhaps body lines again.
_BODY = st.sampled_from(["word", WORDS, *[WORDS * 6] * 4, "", " ", "é😀", "\x01", "    "])
_LINE = st.sampled_from(
    [
        "/Users/me/Attachments/a.jpg",
        "/" + WORDS * 6 + ".png",
        "Sticker from Jack",
        "Tapbacks:",
        "Loved by Jack",
        "    May 17, 2022  5:29:42 PM",
        "    indented " + WORDS * 6,
        "Sent with Echo",
        "This message responded to an earlier message.",
        "Attachment missing!",
        "Edited 5 seconds later: " + WORDS * 6,
        "May 18, 2022  1:00:00 PM " + WORDS * 6,
    ]
)
_BLOCK = st.builds(
    lambda stamp, who, body, notes, more: (
        f"May 17, 2022  5:{stamp:02d}:00 PM\n{who}\n" + "\n".join(body + notes + more)
    ),
    st.integers(0, 59),
    st.sampled_from(["Me", "Jack", "Ann"]),
    st.lists(_BODY, max_size=14),
    st.lists(_LINE | _BODY, max_size=4),
    st.lists(_BODY, max_size=4),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(_BLOCK, min_size=1, max_size=4), chunk=st.integers(16, 300))
def test_an_imessage_held_in_part_reads_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: list[str], chunk: int
):
    """Tiny thresholds (lines and bodies over 300 characters cut and gathered, texts over 200 held): the
    same messages, records and identities as read whole."""
    path = tmp_path / "Jack.txt"
    path.write_text("\n\n".join(["May 17, 2022  4:00:00 PM\nJack\nfirst"] * 40 + blocks) + "\n")
    monkeypatch.setattr(container, "CHUNK", chunk)
    expected = _read(path)
    with monkeypatch.context() as held_in_part:
        _hold_in_part(held_in_part)
        held_in_part.setattr(imessage, "LONG_TEXT", 200)
        got = _read(path)
    read_as_whole(expected, got, "an iMessage body held in part")
