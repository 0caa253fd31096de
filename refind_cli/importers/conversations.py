"""A ``conversations.json`` of an assistant's data export (ChatGPT, Claude.ai), read one conversation at a time.

The file is a list of conversation objects; third-party tools also write one conversation alone, or the list
wrapped as ``{"conversations": [...]}``. It comes loose, in the export's zip, or in the unpacked export folder
(beside files that are not conversations: ``user.json``, ``users.json``, ``projects.json``, ...).

A year of chats makes hundreds of MB, so the file is never loaded whole: ``ijson`` walks its parse events and
each conversation is built on its own, then dropped once its messages are read. The parse events carry no
JSON paths on purpose: ijson's path prefixes grow with the nesting, so a hostile file of deep brackets costs
memory with the square of its depth; here nesting is counted and refused past ``MAX_DEPTH``.
"""

from __future__ import annotations

import contextlib
import json
import zipfile
from collections.abc import Callable, Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError
from refind_cli.importers.container import iter_file_chunks, iter_member_chunks, member_names, open_zip

FILE = "conversations.json"
SNIFF_BYTES = 64 << 10
# yajl re-scans a token that spans its read blocks, so a token's cost grows with its square over the block
# size: a 32 MB string costs 0.4 s in 1 MB blocks (6 s in 64 KB ones). An attachment's extracted text (a
# whole PDF) is the longest real string; past the cap the file is refused rather than read for minutes.
PARSER_BLOCK = 1 << 20
MAX_TOKEN = 32 << 20
# Real conversations nest about ten levels (a message's metadata holds the deepest); far beyond that is a
# hostile file.
MAX_DEPTH = 100
_BOM = b"\xef\xbb\xbf"
_STARTS = frozenset({"start_map", "start_array"})
_ENDS = frozenset({"end_map", "end_array"})


# --- where the file is -----------------------------------------------------------------------------------


def _zip_member(zf: zipfile.ZipFile) -> str | None:
    """The shallowest ``conversations.json``: a zip of the unpacked folder adds one level."""
    found = [n for n in member_names(zf) if n.rsplit("/", 1)[-1] == FILE]
    return min(found, key=lambda n: (n.count("/"), n)) if found else None


def head(path: Path) -> bytes:
    """The first bytes of the conversations file of a loose file, a zip or a folder (b"" if there is none),
    without a BOM or leading white space. Never raises."""
    try:
        if path.is_dir():
            data = _file_head(path / FILE) if (path / FILE).is_file() else b""
        elif zipfile.is_zipfile(path):
            with open_zip(path) as zf:
                name = _zip_member(zf)
                data = next(iter_member_chunks(zf, name, path), b"")[:SNIFF_BYTES] if name else b""
        else:
            data = _file_head(path)
    except (InputError, OSError, ValueError):
        return b""
    return data.removeprefix(_BOM).lstrip()


def _file_head(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(SNIFF_BYTES)


def read(path: Path, what: str) -> Iterator[tuple[str, dict[str, Any], Reader]]:
    """Each conversation object of the export at ``path``: where it is (``[3]``), the object, and the reader,
    which names places in errors. ``what`` names the format in errors ("a ChatGPT data export")."""
    if path.is_dir():
        file = path / FILE
        if not file.is_file():
            raise InputError(path, f"no {FILE} in this folder; not {what}")
        yield from _read(iter_file_chunks(file), file, None, what)
    elif zipfile.is_zipfile(path):
        with open_zip(path) as zf:
            name = _zip_member(zf)
            if name is None:
                raise InputError(path, f"no {FILE} in this zip; not {what}")
            yield from _read(iter_member_chunks(zf, name, path), path, f"entry {name!r}", what)
    else:
        yield from _read(iter_file_chunks(path), path, None, what)


def _read(
    chunks: Generator[bytes, None, None], path: Path, entry: str | None, what: str
) -> Iterator[tuple[str, dict[str, Any], Reader]]:
    # Closed here, not by the garbage collector, so that a run over many bad files keeps no files open.
    with contextlib.closing(chunks):
        reader = Reader(chunks, path, entry, what)
        for where, obj in reader.conversations():
            yield where, obj, reader


# --- the stream ------------------------------------------------------------------------------------------


class _Stream:
    """A read-only binary file over byte chunks, for ijson: strips a BOM, counts the bytes taken, and stops
    a single value that runs past MAX_TOKEN."""

    def __init__(self, chunks: Iterator[bytes], error: Callable[[str, str | None], InputError]) -> None:
        self._chunks = chunks
        self._error = error
        self._started = False
        self._since_quote = 0
        self._buf = b""
        self._pos = 0
        self.consumed = 0
        self.at_eof = False

    def read(self, size: int = -1) -> bytes:
        while self._pos >= len(self._buf):
            if self.at_eof or not self._refill():
                return b""
        end = len(self._buf) if size < 0 else self._pos + size
        out = self._buf[self._pos : end]
        self._pos += len(out)
        return out

    def _refill(self) -> bool:
        chunk = next(self._chunks, None)
        if chunk is None:
            self.at_eof = True
            if not self._started and self._buf:  # a file of one or two bytes
                self._started, self._pos = True, 0
                return True
            return False
        self.consumed += len(chunk)
        last_quote = chunk.rfind(b'"')
        self._since_quote = self._since_quote + len(chunk) if last_quote < 0 else len(chunk) - last_quote - 1
        if self._since_quote > MAX_TOKEN:
            raise self._error(f"a single JSON value runs past {MAX_TOKEN >> 20} MB", f"byte {self.consumed}")
        if not self._started:
            chunk = self._buf + chunk
            if len(chunk) < len(_BOM) and _BOM.startswith(chunk):
                self._buf, self._pos = chunk, len(chunk)  # too short yet to tell a BOM; held back
                return True
            self._started = True
            chunk = chunk.removeprefix(_BOM)
        self._buf, self._pos = chunk, 0
        return True


class Reader:
    """Walks the parse events of one conversations file and builds each conversation object."""

    def __init__(self, chunks: Iterator[bytes], path: Path, entry: str | None, what: str) -> None:
        import ijson  # only imports of these exports pay for the parser

        self._ijson = ijson
        self.path = path
        self.entry = entry
        self.what = what
        self._stream = _Stream(chunks, self.error)
        self._events: Iterator[tuple[str, Any]] = ijson.basic_parse(
            self._stream, use_float=True, buf_size=PARSER_BLOCK
        )

    def error(self, what: str, where: str | None = None) -> InputError:
        """An InputError naming the file, the zip entry if any, and the place."""
        place = ", ".join(p for p in (self.entry, where) if p) or None
        return InputError(self.path, what, place)

    def _next(self) -> tuple[str, Any]:
        try:
            return next(self._events)
        except (self._ijson.JSONError, UnicodeDecodeError) as exc:
            raise self._json_error(exc) from None
        except StopIteration:
            raise self.error("truncated JSON", f"byte {self._stream.consumed}") from None

    def _json_error(self, exc: Exception) -> InputError:
        if isinstance(exc, UnicodeDecodeError):
            return self.error("invalid UTF-8 in the JSON text", f"near byte {self._stream.consumed}")
        # yajl's message is several lines with a caret drawing; its first line says what went wrong.
        # It can come as the repr of bytes, with its line breaks written as "\\n".
        lines = str(exc).strip().removeprefix("b'").removeprefix('b"').replace("\\n", "\n").splitlines()
        detail = lines[0].strip().rstrip(".") if lines else type(exc).__name__
        if self._stream.at_eof and "premature EOF" in detail:
            return self.error("truncated JSON: the data stops in the middle", f"byte {self._stream.consumed}")
        # The parser reads ahead a block at a time, so the fault lies in the block before this byte.
        return self.error(f"invalid JSON ({detail})", f"near byte {self._stream.consumed}")

    def conversations(self) -> Iterator[tuple[str, dict[str, Any]]]:
        event, _ = self._next()
        if event == "start_array":
            yield from self._items("")
        elif event == "start_map":
            yield from self._object()
        else:
            raise self.error(f"not {self.what}: the top level is neither a list nor an object")
        try:
            for _ in self._events:  # the rest, so that trailing garbage is an error rather than ignored
                pass
        except (self._ijson.JSONError, UnicodeDecodeError) as exc:
            raise self._json_error(exc) from None

    def _items(self, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
        index = 0
        while True:
            event, value = self._next()
            if event == "end_array":
                return
            place = f"{where}[{index}]"
            obj = self._build(event, value, place)
            if obj is not None:  # Claude exports hold null entries
                if not isinstance(obj, dict):
                    raise self.error("a conversation is not a JSON object", place)
                yield place, obj
            index += 1

    def _object(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """A top-level object: ``{"conversations": [...]}``, or one conversation alone."""
        meta: dict[str, Any] = {}
        wrapped = False
        while True:
            event, key = self._next()
            if event == "end_map":
                break
            event, value = self._next()
            if key == "conversations" and event == "start_array":
                wrapped = True
                yield from self._items("conversations")
            else:
                meta[key] = self._build(event, value, key)
        if not wrapped:
            yield "", meta

    def _build(self, event: str, value: Any, where: str) -> Any:
        """The value whose first event was just read. This loop runs once per event of every message, so it
        is written flat: one branch per event, no calls."""
        if event not in _STARTS:
            return value
        root: Any = {} if event == "start_map" else []
        top, containers, keys = root, [root], [None]
        try:
            for event, value in self._events:
                if event == "map_key":
                    keys[-1] = value
                elif event == "start_map" or event == "start_array":
                    new: Any = {} if event == "start_map" else []
                    if type(top) is dict:
                        top[keys[-1]] = new
                    else:
                        top.append(new)
                    top = new
                    containers.append(new)
                    keys.append(None)
                    if len(containers) > MAX_DEPTH:
                        raise self.error(f"nested more than {MAX_DEPTH} levels deep", where)
                elif event == "end_map" or event == "end_array":
                    containers.pop()
                    keys.pop()
                    if not containers:
                        return root
                    top = containers[-1]
                elif type(top) is dict:
                    top[keys[-1]] = value
                else:
                    top.append(value)
        except (self._ijson.JSONError, UnicodeDecodeError) as exc:
            raise self._json_error(exc) from None
        raise self.error("truncated JSON", f"byte {self._stream.consumed}")


# --- values ----------------------------------------------------------------------------------------------


def epoch_time(value: Any) -> datetime | None:
    """Epoch seconds (a number, or a numeric string) as aware UTC; None for anything else or out of range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return iso_time(value)
    if not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (ValueError, OverflowError, OSError):
        return None


def iso_time(value: Any) -> datetime | None:
    """An ISO-8601 time (``2026-04-07T09:48:12.123456Z``) as aware UTC; a time without an offset is UTC.
    None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)


def text_of(value: Any) -> str:
    """A string value, or "" for anything else (null, a number, a list where a string belongs)."""
    return value if isinstance(value, str) else ""


def join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def as_list(value: Any) -> list[Any]:
    """A list value, or [] for anything else."""
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[str, Any]:
    """An object value, or {} for anything else."""
    return value if isinstance(value, dict) else {}


def dump(obj: Any) -> str:
    """A record's raw JSON as the archive keeps it."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)
