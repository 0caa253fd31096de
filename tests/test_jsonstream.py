"""The shared streaming-JSON reader (importers/jsonstream.py): each format keeps its own wording of a fault,
and a fault's place is near it whatever the format's read block."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest

from refind_cli.errors import InputError
from refind_cli.importers import conversations, discord, jsonstream, telegram


def _telegram(path: Path) -> None:
    for export in telegram.read(path, tz=UTC):
        list(export.messages)


def _assistant(path: Path) -> None:
    list(conversations.read(path, "a ChatGPT data export"))


def _discord(path: Path) -> None:
    for export in discord.read(path, tz=UTC):
        list(export.messages)


TELEGRAM = b'{"name": "X", "type": "personal_chat", "id": 1, "messages": [{"id": 1, "text": BAD}]}'
ASSISTANT = b'[{"id": "c", "mapping": BAD}]'
DISCORD = b'{"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": [{"id": "3", "content": BAD}]}'
LEXICAL = "invalid JSON (lexical error: invalid char in json text.)"
CODEC = "invalid JSON ('utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte)"


@pytest.mark.parametrize(
    ("read", "template", "bad", "what"),
    [
        (_telegram, TELEGRAM, b"x", LEXICAL),
        (_telegram, TELEGRAM, b'"\xed\xa0\x80"', CODEC),
        (_discord, DISCORD, b"x", LEXICAL),
        (_discord, DISCORD, b'"\xed\xa0\x80"', CODEC),
        # ChatGPT and Claude have always said it their own way
        (_assistant, ASSISTANT, b"x", "invalid JSON (lexical error: invalid char in json text)"),
        (_assistant, ASSISTANT, b'"\xed\xa0\x80"', "invalid UTF-8 in the JSON text"),
    ],
    ids=[
        "telegram-lexical",
        "telegram-utf8",
        "discord-lexical",
        "discord-utf8",
        "assistant-lexical",
        "assistant-utf8",
    ],
)
def test_each_format_words_a_fault_as_it_always_has(
    tmp_path: Path, read, template: bytes, bad: bytes, what: str
):
    path = tmp_path / "export.json"
    path.write_bytes(template.replace(b"BAD", bad))
    with pytest.raises(InputError) as err:
        read(path)
    assert err.value.what == what
    assert err.value.where == f"near byte {len(template) - 3 + len(bad)}"


def test_a_fault_deep_in_a_large_discord_file_is_placed_within_a_read_block_of_it(tmp_path: Path):
    filler = b'{"id": "3", "content": "' + b"a" * 200 + b'"}, '
    head = b'{"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": [' + filler * 2000
    path = tmp_path / "export.json"
    path.write_bytes(head + b"x]}" + filler * 5000)
    with pytest.raises(InputError) as err:
        _discord(path)
    near = int((err.value.where or "").removeprefix("near byte "))
    assert len(head) < near <= len(head) + (64 << 10)


def _reads_to_parse(text: bytes) -> int:
    rules = jsonstream.Rules(block=64 << 10, max_token=8 << 20, max_depth=8)
    stream = jsonstream.Stream(
        iter([text[i : i + (1 << 20)] for i in range(0, len(text), 1 << 20)]), _error, rules
    )
    events = jsonstream.JsonEvents(stream)
    events.finish()
    return stream.reads


def _error(what: str, where: str | None) -> InputError:
    return InputError(Path("export.json"), what if where is None else f"{where}: {what}")


@pytest.mark.parametrize(
    "string",
    ["é" * 2_000_000, "\\u00e9" * 1_000_000, '\\"' * 2_000_000, "a\\\\" * 1_000_000],
    ids=["utf8", "escaped", "escaped-quotes", "escaped-backslashes"],
)
def test_a_long_string_is_read_in_blocks_that_grow_with_it(string: str):
    # yajl re-scans a token from its start on every read block it spans: in blocks of a fixed size a 4-MB
    # string took seconds (time grew with the square of its length); blocks that double keep it linear.
    text = ('{"a": "' + string + '", "b": [1, 2, 3]}').encode()
    assert _reads_to_parse(text) <= 16  # fixed 64-KB blocks: 60 and more


def test_short_strings_keep_the_formats_read_block():
    text = ("[" + ", ".join(f'"{i:06d}"' for i in range(100_000)) + "]").encode()
    assert _reads_to_parse(text) >= len(text) // (64 << 10)
