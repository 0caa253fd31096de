"""The sample exports as other tools rewrite them: anonymisers, converters, spreadsheets and viewers keep a
format's shape but drop, null or retype fields, add their own, reorder keys and columns, or save a page
again. Every variant is generated from the files in ``sample_exports/``, not written by hand:

- JSON: each key path (list items generalised: ``messages[].id``; a map keyed by ids: ``mapping.*``) removed
  everywhere (``removed``), its value set to null (``null``), a number written as a string and a string of
  digits as a number (``retyped``); unknown keys added to every object (``extra-keys``); every object's keys
  in reverse order (``shuffled``).
- CSV: each column dropped (``removed``) or emptied (``null``); the columns reversed (``shuffled``), one
  added (``extra-keys``), ``;`` as separator (``separator``), every field quoted (``quoting``), Excel's BOM
  and CR LF (``bom``).
- HTML: saved again by a browser-like serializer over the stdlib parser (``html-saved``: attributes in
  another order, entities as a browser writes them), every non-ASCII character as a character reference
  (``html-entities``), white space collapsed as a minifier does (``html-whitespace``).
- A folder or zip export without one kind of its files (``member-dropped``).

A variant ``lossy`` lost what a message needs: a path (or CSV column, or file) that bears the messages'
text or time as the original reading has them, with no sibling in the same record that bears it too. The
rule (``verdict``): a variant that is not lossy imports every message with its text and time (its sender,
where the sender is there), with at most one warning line more than the original, under chat keys that do
not depend on where the file lies and message identities that do not collapse; a lossy one imports, skips
records with a warning, or refuses with one ``InputError`` line. Never another exception, never a silent
loss. ``tests/test_ablation.py`` holds one variant per format and kind to it; ``bench/ablation_probe.py``
every variant.
"""

from __future__ import annotations

import copy
import csv
import html
import io
import json
import re
import shutil
import warnings
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from dateutil import parser as dateparser

from refind_cli import importers
from refind_cli.errors import InputError, InputWarning
from refind_cli.storage.identity import Identity

SAMPLES = Path(__file__).resolve().parent.parent / "sample_exports"
KINDS = (
    "removed",
    "null",
    "retyped",
    "extra-keys",
    "shuffled",
    "member-dropped",
    "separator",
    "quoting",
    "bom",
    "html-saved",
    "html-entities",
    "html-whitespace",
)
Files = dict[str, bytes]  # an export's files by their names inside it ("" for a single file)
Step = str  # a key, "[]" (every item of a list) or "*" (every value of a map keyed by ids)
KeyPath = tuple[Step, ...]


@dataclass(frozen=True)
class Variant:
    export: str  # the sample's name in sample_exports/
    format: str  # what it is read as
    kind: str  # one of KINDS
    place: str  # what was changed: "conversations.json: mapping.*.message.id"
    # What the changed values (and those below them) bear of the messages as the original reading has
    # them: "text" (a message's whole text), "part" (a piece of one: an attachment's name, a call's length),
    # "time", "sender"; "named" where a key's name says it may hold a sender; "chat" where it tells which
    # chat a record belongs to.
    bears: frozenset[str]
    change: Callable[[Files], Files] = field(compare=False, repr=False)
    # A rewrite of the whole export that keeps every field (``tests/rewrite_variants.py``): it must read as
    # the original does, in the same chats with the same identities.
    whole: bool = False
    # How it is laid down (a zip re-packed, a file renamed): ``pack(sample, files, into)`` gives the path read.
    pack: Callable[[Path, Files, Path], Path] | None = field(default=None, compare=False, repr=False)
    copies: tuple[str, ...] = ()  # other samples packed beside it, read too

    @property
    def lossy(self) -> bool:
        """It lost what a message needs: its text or its time."""
        return bool(self.bears & {"text", "time"})

    @property
    def reworded(self) -> bool:
        """A message's text may read otherwise: a piece of it, or the sender it names, is gone."""
        return bool(self.bears & {"part", "sender", "named"})

    @property
    def name(self) -> str:
        return f"{self.format} {self.kind} {self.place}"

    def write(self, into: Path) -> Path:
        """The variant as a file, folder or zip named as the sample is, under ``into``."""
        if self.pack is not None:
            return self.pack(SAMPLES / self.export, self.change(_files(SAMPLES / self.export)), into)
        return _write(SAMPLES / self.export, self.change(_files(SAMPLES / self.export)), into)


# --- an export's files -----------------------------------------------------------------------------------


def exports() -> list[Path]:
    """The sample exports an importer recognises (the generator scripts and the README are not)."""
    found = []
    for path in sorted(SAMPLES.iterdir()):
        try:
            importers.detect(path)
        except InputError:
            continue
        found.append(path)
    return found


def _files(export: Path) -> Files:
    if export.is_dir():
        return {
            f.relative_to(export).as_posix(): f.read_bytes() for f in sorted(export.rglob("*")) if f.is_file()
        }
    if importers.path_kind(export) == "zip":
        with zipfile.ZipFile(export) as zf:
            return {i.filename: zf.read(i) for i in zf.infolist() if not i.is_dir()}
    return {"": export.read_bytes()}


def _write(export: Path, files: Files, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    target = into / export.name
    if target.is_dir():
        shutil.rmtree(target)
    if export.is_dir():
        for name, data in files.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(data)
        target.mkdir(exist_ok=True)
    elif "" in files:
        target.write_bytes(files[""])
    else:
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in files.items():
                zf.writestr(name, data)
    return target


def _group(member: str, export: Path) -> str:
    """Which files of an export are one kind: a name with its ids and dates as ``*`` (Slack's day files,
    Teams' ``messages_<id>.json``, Discord's channel folders)."""
    name = member or export.name
    return re.sub(r"[0-9a-f]*\d[0-9a-f-]*", "*", name.rsplit("/", 1)[-1])


# --- what the original reading holds ---------------------------------------------------------------------


@dataclass
class Reading:
    """What ``refind import`` reads of a path: each export found in it read with ``read_export``."""

    messages: list[tuple[str, str, str | None, str]] = field(
        default_factory=list
    )  # chat key, time, sender, text
    keys: list[str] = field(default_factory=list)  # every chat's key, in order
    uids: int = 0  # distinct message identities, summed over chats
    identities: set[tuple[str, str]] = field(default_factory=set)  # each message's chat key and identity
    warnings: list[str] = field(default_factory=list)
    error: str | None = None  # an InputError's line, where the whole import was refused
    crash: str | None = None  # any other exception


def read(path: Path) -> Reading:
    reading = Reading()
    refused: list[str] = []
    found = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for export in importers.exports_in(path):
                try:
                    _read_export(export, reading)
                    found += 1
                except InputError as err:  # one export of several is passed over with a warning
                    refused.append(str(err))
        except InputError as err:
            refused.append(str(err))
        except Exception as err:
            reading.crash = f"{type(err).__name__}: {err}"
    reading.warnings = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    if refused and not found:
        reading.error = refused[0]
    else:
        reading.warnings += refused
    return reading


def _read_export(export: Path, reading: Reading) -> None:
    for chat in importers.read_export(export, "auto", UTC):
        identity = Identity()
        uids = set()
        for m in chat.messages:
            text = m.text if isinstance(m.text, str) else m.text.whole()  # a long one is held in a file
            reading.messages.append((chat.chat.key, m.timestamp.isoformat(), m.sender, text))
            uids.add(
                identity.uid(m.source_id, m.local_time, int(m.timestamp.timestamp() * 1e6), m.sender, m.text)
            )
        reading.identities |= {(chat.chat.key, uid) for uid in uids}
        reading.keys.append(chat.chat.key)
        reading.uids += len(uids)


@cache
def original(export: Path) -> Reading:
    return read(export)


@dataclass(frozen=True)
class Bearers:
    """What the original reading's messages hold, to tell which values of a file bear them."""

    texts: frozenset[str]
    verbatim: frozenset[str]  # the texts some value of the file holds as they are (not built from several)
    blob: str  # every text, joined: a long value inside one bears it too
    times: tuple[float, ...]
    senders: frozenset[str]

    def text(self, value: object) -> str | None:
        """ "text" for a value that is a message's whole text (or holds one), "part" for a piece of one."""
        if isinstance(value, int | float) and not isinstance(value, bool) and len(str(value)) >= 3:
            return "part" if str(value) in self.blob else None
        if not isinstance(value, str):
            return None
        plain = _plain(value)
        if not plain:
            return None
        if plain in self.texts or any(len(t) >= 12 and t in plain for t in self.texts):
            return "text"
        return "part" if plain in self.blob else None

    def time(self, value: object) -> bool:
        return any(self._near(t) for t in _instants(value))

    def sender(self, value: object) -> bool:
        return isinstance(value, str) and value.strip() in self.senders

    def _near(self, t: float) -> bool:
        import bisect

        at = bisect.bisect_left(self.times, t - 1.0)
        return at < len(self.times) and self.times[at] <= t + 1.0


def _plain(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())


def _instants(value: object) -> list[float]:
    """The epoch seconds a value may be: a number (or a string of one) in seconds, ms or us; a date string."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float) or (isinstance(value, str) and re.fullmatch(r"-?\d+(\.\d+)?", value)):
        n = float(value)
        return [n, n / 1e3, n / 1e6]
    if isinstance(value, str) and 8 <= len(value) <= 80 and re.search(r"\d", value):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                when = dateparser.parse(value.replace(" at ", " "), fuzzy=True)
            return [(when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()]
        except (ValueError, OverflowError):
            return []
    return []


@cache
def bearers(export: Path) -> Bearers:
    messages = original(export).messages
    times = sorted(datetime.fromisoformat(t).timestamp() for _, t, _, _ in messages)
    texts = [" ".join(text.split()) for *_, text in messages]
    values = {_plain(v) for f in _files(export).values() for v in _strings(f)}
    return Bearers(
        frozenset(t for t in texts if t),
        frozenset(t for t in texts if t in values),
        "\x00".join(texts),
        tuple(times),
        frozenset(s for _, _, s, _ in messages if s),
    )


def _strings(data: bytes) -> list[str]:
    """Every string a file holds: a JSON file's values, a CSV's fields, else nothing."""
    try:
        value = _load(data)
    except ValueError:
        try:
            return [f for r in _rows(data) for f in r]
        except (UnicodeDecodeError, csv.Error):
            return []
    return [v for _, v in _paths(value) if isinstance(v, str)]


# A key whose value may name a sender though not as the reading writes it (a role "user" read as "You").
_SENDERISH = re.compile(r"(?i)author|sender|from|role|user|creator|participant|name|owner")


# --- JSON ------------------------------------------------------------------------------------------------


def _ids(obj: dict[str, Any]) -> bool:
    """A map keyed by ids (ChatGPT's ``mapping``, Discord's ``index.json``), not a record."""
    return (
        bool(obj)
        and all(isinstance(v, dict) or v is None or isinstance(v, str) for v in obj.values())
        and all(len(k) >= 6 and re.search(r"\d", k) and not re.fullmatch(r"[A-Za-z_]+", k) for k in obj)
    )


def _paths(value: Any, prefix: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    if isinstance(value, dict):
        wild = _ids(value)
        for k, v in value.items():
            step = "*" if wild else k
            yield (*prefix, step), v
            yield from _paths(v, (*prefix, step))
    elif isinstance(value, list):
        for v in value:
            yield from _paths(v, (*prefix, "[]"))


def label(path: KeyPath) -> str:
    out = ""
    for step in path:
        out += "[]" if step == "[]" else f".{step}" if out else step
    return out or "(top)"


def _change(value: Any, path: KeyPath, op: Callable[[dict[str, Any], str], None]) -> None:
    """``op(obj, key)`` on every object that holds ``path``'s last key at ``path``."""
    step, rest = path[0], path[1:]
    if step == "[]":
        for item in value if isinstance(value, list) else ():
            _change(item, rest, op)
    elif isinstance(value, dict):
        keys = list(value) if step == "*" else [step] if step in value else []
        for k in keys:
            if rest:
                _change(value[k], rest, op)
            else:
                op(value, k)


def _remove(obj: dict[str, Any], key: str) -> None:
    del obj[key]


def _null(obj: dict[str, Any], key: str) -> None:
    obj[key] = None


def _retype(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str) and re.fullmatch(r"-?[1-9]\d{0,30}|0", value):
        return int(value)
    return value


def _retyped(obj: dict[str, Any], key: str) -> None:
    obj[key] = _retype(obj[key])


def _each_object(value: Any, op: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    if isinstance(value, dict):
        return op({k: _each_object(v, op) for k, v in value.items()})
    if isinstance(value, list):
        return [_each_object(v, op) for v in value]
    return value


def _extra(obj: dict[str, Any]) -> dict[str, Any]:
    return obj if _ids(obj) else {**obj, "x_rewritten_by": {"tool": "anonymiser", "version": 2}}


def _reversed(obj: dict[str, Any]) -> dict[str, Any]:
    return dict(reversed(obj.items()))


def _load(data: bytes) -> Any:
    return json.loads(data.decode("utf-8-sig"))


def _dump(value: Any, like: bytes) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=2 if b"\n" in like.strip() else None).encode()


def _json_variants(export: Path, fmt: str, files: Files) -> Iterator[Variant]:
    b = bearers(export)
    groups: dict[str, list[str]] = {}
    for member, data in files.items():
        if (member or export.name).lower().endswith(".json"):
            try:
                _load(data)
            except ValueError:
                continue
            groups.setdefault(_group(member, export), []).append(member)
    for group, members in groups.items():
        values: dict[KeyPath, list[Any]] = {}
        for member in members:
            for path, value in _paths(_load(files[member])):
                values.setdefault(path, []).append(value)
        bearing = {p: _bears(b, vs) for p, vs in values.items()}
        for path in values:
            if path[-1] in ("[]", "*"):
                continue
            # What the path and the paths below it bear.
            bears = set().union(*(bearing[q] for q in values if q[: len(path)] == path))
            if any(_SENDERISH.search(s) for s in path if s not in ("[]", "*")):
                bears.add("named")
            place = f"{group}: {label(path)}"
            for kind, op in (("removed", _remove), ("null", _null)):
                yield Variant(
                    export.name, fmt, kind, place, frozenset(bears), _json_change(members, path, op)
                )
            if any(_retype(v) != v or type(_retype(v)) is not type(v) for v in values[path]):
                yield Variant(
                    export.name, fmt, "retyped", place, frozenset(), _json_change(members, path, _retyped)
                )
        for kind, whole in (("extra-keys", _extra), ("shuffled", _reversed)):
            yield Variant(
                export.name, fmt, kind, f"{group}: every object", frozenset(), _json_whole(members, whole)
            )


def _bears(b: Bearers, values: list[Any]) -> set[str]:
    found = {t for v in values if (t := b.text(v))}
    if any(b.time(v) for v in values):
        found.add("time")
    if any(b.sender(v) for v in values):
        found.add("sender")
    return found


def _json_change(
    members: list[str], path: KeyPath, op: Callable[[dict[str, Any], str], None]
) -> Callable[[Files], Files]:
    def change(files: Files) -> Files:
        out = dict(files)
        for member in members:
            value = copy.deepcopy(_load(files[member]))
            _change(value, path, op)
            out[member] = _dump(value, files[member])
        return out

    return change


def _json_whole(
    members: list[str], op: Callable[[dict[str, Any]], dict[str, Any]]
) -> Callable[[Files], Files]:
    def change(files: Files) -> Files:
        return {**files, **{m: _dump(_each_object(_load(files[m]), op), files[m]) for m in members}}

    return change


# --- CSV -------------------------------------------------------------------------------------------------


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def _csv(rows: list[list[str]], **options: Any) -> bytes:
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n", **options).writerows(rows)
    return out.getvalue().encode()


def _csv_variants(export: Path, fmt: str, files: Files) -> Iterator[Variant]:
    b = bearers(export)
    members = [m for m in files if (m or export.name).lower().endswith(".csv")]
    for member in members:
        rows = _rows(files[member])
        if not rows:
            continue
        header, body = rows[0], rows[1:]
        place = _group(member, export)
        for at, column in enumerate(header):
            bears = _bears(b, [r[at] for r in body if at < len(r)])
            if _SENDERISH.search(column):
                bears.add("named")
            dropped = [[v for i, v in enumerate(r) if i != at] for r in rows]
            emptied = [header] + [[("" if i == at else v) for i, v in enumerate(r)] for r in body]
            for kind, data in (("removed", _csv(dropped)), ("null", _csv(emptied))):
                yield Variant(
                    export.name, fmt, kind, f"{place}: {column}", frozenset(bears), _member(member, data)
                )
        whole = (
            ("shuffled", "columns reversed", _csv([list(reversed(r)) for r in rows])),
            ("extra-keys", "a column added", _csv([[*header, "Notes"]] + [[*r, ""] for r in body])),
            ("separator", "; between fields", _csv(rows, delimiter=";")),
            ("quoting", "every field quoted", _csv(rows, quoting=csv.QUOTE_ALL)),
            ("bom", "Excel's BOM and CR LF", b"\xef\xbb\xbf" + _csv(rows).replace(b"\n", b"\r\n")),
        )
        for kind, what, data in whole:
            yield Variant(export.name, fmt, kind, f"{place}: {what}", frozenset(), _member(member, data))


def _member(member: str, data: bytes) -> Callable[[Files], Files]:
    return lambda files: {**files, member: data}


# --- HTML ------------------------------------------------------------------------------------------------


class _Saved(HTMLParser):
    """A page as a browser saves it again: tags and attributes as parsed, attributes in another order, text
    escaped the browser's way (``how``: "saved"), every non-ASCII character as a reference ("entities"), or
    white space collapsed ("whitespace")."""

    def __init__(self, how: str) -> None:
        super().__init__(convert_charrefs=True)
        self.how = how
        self.out: list[str] = []
        self.raw = False

    def _text(self, text: str) -> str:
        if self.raw:
            return text
        if self.how == "whitespace":
            return re.sub(r"\s+", " ", text) if text.strip() else ""
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\xa0", "&nbsp;")
        if self.how == "entities":
            return "".join(c if ord(c) < 128 else f"&#{ord(c)};" for c in text).replace("'", "&#39;")
        return text

    def _attrs(self, attrs: list[tuple[str, str | None]]) -> str:
        if self.how == "saved":
            attrs = list(reversed(attrs))
        return "".join(
            f" {k}" if v is None else f' {k}="{v.replace("&", "&amp;").replace(chr(34), "&quot;")}"'
            for k, v in attrs
        )

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(f"<{tag}{self._attrs(attrs)}>")
        self.raw = tag in ("script", "style")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(f"<{tag}{self._attrs(attrs)}>")

    def handle_endtag(self, tag: str) -> None:
        self.out.append(f"</{tag}>")
        self.raw = False

    def handle_data(self, data: str) -> None:
        self.out.append(self._text(data))

    def handle_comment(self, data: str) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")


def saved(data: bytes, how: str) -> bytes:
    page = _Saved(how)
    page.feed(data.decode("utf-8-sig"))
    page.close()
    return "".join(page.out).encode()


def _html_variants(export: Path, fmt: str, files: Files) -> Iterator[Variant]:
    for member, data in files.items():
        if (member or export.name).lower().endswith((".html", ".htm")):
            for how in ("saved", "entities", "whitespace"):
                yield Variant(
                    export.name,
                    fmt,
                    f"html-{how}",
                    _group(member, export),
                    frozenset(),
                    _member(member, saved(data, how)),
                )


# --- files dropped ---------------------------------------------------------------------------------------


def _dropped_variants(export: Path, fmt: str, files: Files) -> Iterator[Variant]:
    if len(files) < 2:
        return
    b = bearers(export)
    groups: dict[str, list[str]] = {}
    for member in files:
        groups.setdefault(_group(member, export), []).append(member)
    for group, members in groups.items():
        held = {"named"}  # a folder's users.json names the senders
        for member in members:
            try:
                text = files[member].decode("utf-8-sig")
            except UnicodeDecodeError:
                continue
            if any(len(t) >= 12 and t in text for t in b.texts):
                held.add("text")
            if any(s in text for s in b.senders):
                held.add("sender")
        if len(groups) > 1:
            yield Variant(export.name, fmt, "member-dropped", group, frozenset(held), _without(set(members)))


def _without(members: set[str]) -> Callable[[Files], Files]:
    return lambda files: {k: v for k, v in files.items() if k not in members}


# --- all of them -----------------------------------------------------------------------------------------


def with_messages() -> list[Path]:
    """The sample exports whose original reading holds messages: those variants are made of."""
    return [export for export in exports() if original(export).messages]


@cache
def variants() -> tuple[Variant, ...]:
    found: list[Variant] = []
    for export in with_messages():
        fmt = importers.detect(export)
        files = _files(export)
        for make in (_json_variants, _csv_variants, _html_variants, _dropped_variants):
            found += make(export, fmt, files)
    return tuple(found)


# --- the rule --------------------------------------------------------------------------------------------


def verdict(variant: Variant, first: Reading, again: Reading) -> str | None:
    """What is wrong with a variant's reading (``first``; ``again``: the same variant read from another
    place), or None if it keeps the rule above."""
    if first.crash:
        return f"crash: {first.crash}"
    if first.error is not None:
        if "\n" in first.error:
            return f"an error of several lines: {first.error!r}"
        return None if variant.lossy else f"refused: {first.error}"
    if any("\n" in w for w in first.warnings):
        return "a warning of several lines"
    base = original(SAMPLES / variant.export)
    if variant.whole:
        return _as_the_original(variant, first, again)
    new_warnings = len(first.warnings) - len(base.warnings)
    if first.keys != again.keys:
        return f"chat keys depend on where the file lies: {first.keys[:2]} / {again.keys[:2]}"
    if first.uids < len(first.messages) and first.uids < base.uids:
        return f"message identities collapse: {len(first.messages)} messages, {first.uids} identities"
    squash = (lambda t: " ".join(t.split())) if variant.kind.startswith("html") else (lambda t: t)
    have = Counter((t, squash(x)) for _, t, _, x in first.messages)
    want = Counter((t, squash(x)) for _, t, _, x in base.messages)
    missing = want - have
    if variant.lossy:
        if missing and new_warnings < 1:
            return f"silent loss: {sum(missing.values())} of {len(base.messages)} messages, no warning"
        return None
    if len(set(first.keys)) < len(set(base.keys)) and not ("chat" in variant.bears and new_warnings):
        # Rows that lost what their chat is told by may share one, said in a warning; others may not.
        return f"chats merged: {len(set(base.keys))} chats read as {len(set(first.keys))}"
    if new_warnings > 1:
        return f"warnings: {new_warnings} more than the original, e.g. {first.warnings[-1]}"
    # A text the file holds as it is must be read as it is; one built from several values (an attachment's
    # name after the words, a call's length) may read otherwise where one of them changed.
    verbatim = [k for k in missing if k[1] in bearers(SAMPLES / variant.export).verbatim]
    if verbatim and not variant.reworded:
        when, text = verbatim[0]
        return f"changed: {len(verbatim)} of {len(base.messages)} messages, e.g. {when} {text[:40]!r}"
    gone = Counter(t for t, _ in want.elements()) - Counter(t for t, _ in have.elements())
    if gone:
        return f"lost: {sum(gone.values())} of {len(base.messages)} messages, e.g. at {next(iter(gone))}"
    if not variant.reworded:
        senders = {(t, squash(x)): s for _, t, s, x in first.messages}
        wrong = [(t, s) for _, t, s, x in base.messages if senders.get((t, squash(x)), s) != s]
        if wrong:
            return f"senders: {len(wrong)} changed, e.g. {wrong[0]}"
    return None


def _as_the_original(variant: Variant, first: Reading, again: Reading) -> str | None:
    """A whole rewrite's reading against the original's (and those of the samples packed beside it)."""
    return as_read(first, again, [original(SAMPLES / name) for name in (variant.export, *variant.copies)])


def as_read(
    first: Reading,
    again: Reading,
    bases: list[Reading],
    squash: Callable[[str], str] = lambda t: t,
    when: Callable[[str], str] = lambda t: t,
    fresh: bool = False,
) -> str | None:
    """A whole rewrite's reading (``first``; ``again``: read from another place) against the readings it must
    equal, texts compared as ``squash`` leaves them and times as ``when`` does (where the rewrite changed a
    text or a time as its tool does: such a message is another message to a second import, as a text edited
    is). ``fresh``: the tool rewrote what the identities are made of (ids a spreadsheet showed as ``1.2E+17``):
    they may all be new, but as many as the original's."""
    new_warnings = len(first.warnings) - sum(len(b.warnings) for b in bases)
    if new_warnings > 1:
        return f"warnings: {new_warnings} more than the original, e.g. {first.warnings[-1]}"
    if first.keys != again.keys:
        return f"chat keys depend on where the file lies: {first.keys[:2]} / {again.keys[:2]}"
    have = Counter((when(t), s, squash(x)) for _, t, s, x in first.messages)
    want = Counter((when(t), s, squash(x)) for b in bases for _, t, s, x in b.messages)
    if missing := want - have:
        at, _, text = next(iter(missing))
        how = "lost or changed" if len(first.messages) >= sum(want.values()) else "lost"
        return f"{how}: {sum(missing.values())} of {sum(want.values())} messages, e.g. {at} {text[:40]!r}"
    if extra := have - want:
        return f"more: {sum(extra.values())} messages the original does not hold"
    ids = set().union(*(b.identities for b in bases))
    changed = sum(squash(x) != x or when(t) != t for b in bases for _, t, _, x in b.messages)
    if fresh:
        changed = len(ids)
    if len(first.identities - ids) > changed or len(first.identities) != len(ids):
        new = len(first.identities - ids)
        return f"identities: a second import after the original's adds {new} of {len(first.identities)}"
    return None


def check(variant: Variant, work: Path) -> str | None:
    """The variant written under ``work`` twice, in two places, each read as ``refind import`` reads it."""
    first = read(variant.write(work / "a"))
    again = read(variant.write(work / "b"))
    return verdict(variant, first, again)
