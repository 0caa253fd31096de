"""Session 19 (gather1): the shared helpers that copies were folded into.

Every reader of a text tells its encoding from the same first bytes, gathered until
``container.more_to_tell`` is satisfied, whatever the chunks: ``linelog.iter_text`` now gathers them as
``container.told_encoding`` does (before, a loop of its own), and ``container.file_encoding`` reads a file's
start as far as a stream's reading gathers it. The JSON importers walk an object's keys with
``jsonstream.JsonEvents.members`` (before, eight loops of their own)."""

from __future__ import annotations

import functools
import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container, jsonstream, linelog

_WRITTEN = st.text(st.characters(codec="utf-8"), max_size=60)  # no lone surrogate: no file holds one
# Unicode with and without a BOM, UTF-8 encoded twice, and a legacy code page (a text file may be one).
_CODEC = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32", container.TWICE, "cp1252"])
_ASCII_START = st.sampled_from([0, container.ENCODING_BYTES - 3, container.ENCODING_BYTES + 200])
_CHUNK = st.integers(min_value=1, max_value=64) | st.sampled_from([1000, container.CHUNK])


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _lines_text(chunks: list[bytes]) -> str | None:
    """The text ``iter_text`` reads (None: it refused the bytes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)  # a legacy code page is said
        try:
            return "".join(linelog.iter_text(chunks, "x.txt", None, lambda: 0))
        except InputError:
            return None


def _decoded(data: bytes) -> str | None:
    """The text ``container.decoded_chunks`` reads from the bytes whole, as a text file (None: refused)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        try:
            return "".join(container.decoded_chunks([data], "x.txt", legacy=True))
        except InputError:
            return None


@settings(max_examples=50, deadline=None)
@given(text=_WRITTEN, codec=_CODEC, ascii_start=_ASCII_START, chunk=_CHUNK, cut=st.booleans())
def test_a_line_reader_tells_the_encoding_as_every_reader_does_in_any_chunks(
    text: str, codec: str, ascii_start: int, chunk: int, cut: bool
) -> None:
    data = ("a" * ascii_start + text).encode(codec, "replace")
    if cut:
        data = data[:-1]  # a character cut short at the end: invalid in UTF-16 and 32, and often in UTF-8
    whole = _lines_text([data])
    assert _lines_text(_chunks(data, chunk)) == whole
    decoded = _decoded(data)
    assert whole == (None if decoded is None else linelog.unify_newlines(decoded))
    told = container.told_encoding(iter(_chunks(data, chunk)), legacy=True)[0]
    assert told == container.text_encoding(data)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chat.txt"
        path.write_bytes(data)
        assert container.file_encoding(path) == told


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


def _events(data: bytes, chunk: int) -> jsonstream.JsonEvents:
    rules = jsonstream.Rules(block=64, max_token=1 << 20, max_depth=16)
    error = functools.partial(InputError, Path("x.json"))
    return jsonstream.JsonEvents(jsonstream.Stream(iter(_chunks(data, chunk)), error, rules))


@settings(max_examples=40, deadline=None)
@given(obj=st.dictionaries(st.text(max_size=5), _JSON, max_size=6), chunk=st.integers(1, 32))
def test_an_objects_members_are_its_keys_each_with_its_value_read_on(obj: dict[str, Any], chunk: int) -> None:
    """``JsonEvents.members``, which the JSON importers' walks of an object's keys share: each key in the
    order written, its value's first event, the rest read on by the caller; through the ``}``."""
    data = json.dumps({"before": obj, "after": 1}).encode()
    events = _events(data, chunk)
    assert events.next()[0] == "start_map"
    read: dict[str, Any] = {}
    for key, event, value in events.members():
        if key == "before":
            assert event == "start_map"
            read[key] = {k: events.value(e, v, k) for k, e, v in events.members()}
        else:
            read[key] = events.value(event, value, key)
    events.finish()
    assert read == {"before": obj, "after": 1} and list(read) == ["before", "after"]
    truncated = _events(data[: data.index(b"after")], chunk)
    truncated.next()
    with pytest.raises(InputError, match="truncated JSON"):
        for key, event, value in truncated.members():
            truncated.value(event, value, key)
