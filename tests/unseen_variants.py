"""Rewrites of the sample exports that no importer was tuned on (session 14): the kinds of
``tests/rewrite_variants.py`` were fixed one by one; these were written after, to measure how the shared
machinery carries to tools nobody looked at. Each is made by rule from the files in ``sample_exports/``:

- ``zip-names``: an archive whose names are written as other tools write them: UTF-8 without the zip's
  UTF-8 flag (Info-ZIP, macOS's ``ditto``), Windows' OEM code page without it (CP437 for Western text, CP932
  for Japanese: Explorer's "Send to compressed folder"), decomposed Unicode (macOS file names), back slashes
  between folders (PowerShell 5's ``Compress-Archive``). A file export is renamed with a non-ASCII name
  first, a folder export put under a non-ASCII folder: each is held to the same files zipped as zipfile
  writes them (UTF-8, flagged), not to the sample.
- ``zip-layout``: an entry for every folder (Info-ZIP), written as a stream (sizes in data descriptors, as
  a zip written to a pipe has them), ZIP64 records on every entry, an archive comment; a zip inside a folder
  inside a zip (a backup of downloads).
- ``json-tool``: PowerShell 5.1's ``ConvertTo-Json | Out-File`` (UTF-16 LE with a BOM, CR LF, ``":  "``,
  ``<>&'`` as ``\\u`` escapes), a JavaScript round trip (``JSON.parse``/``JSON.stringify``: a whole float
  as an integer), a data-frame tool's (every integer a float), every time with an offset written in UTC with
  ``Z`` (``toISOString``) or at +02:00, Notepad before 2019 (a BOM and CR LF).
- ``text-edited``: an editor that trims trailing white space on save (texts are compared trimmed: the tool
  changed them), UTF-16 LE without a BOM (.NET's ``Encoding.Unicode``), Notepad's "Unicode" (UTF-16 LE, BOM,
  CR LF), a blank line added at the end and a BOM.
- ``csv-tool``: Excel's ``sep=`` first line, dates shown in German (``1.10.2026 19:02:59``) or US
  (``10/1/2026 7:02:59 PM``) format (only cells Excel takes as dates: ``YYYY-MM-DD hh:mm:ss``), every field
  quoted with ``;`` and a BOM, an empty column added at the end (a trailing separator).
- ``html-tool``: a page saved by a browser with its mark of the web and a ``<meta http-equiv>`` added, tags
  in upper case (old editors), void elements closed as XHTML (``<br />``).
- ``xml-tool``: an SMS backup indented by a pretty-printer with CR LF.

Each keeps what an import needs, so each is held to ``as_read``: the same messages in the same chats with the
same identities as what it must equal, and at most one warning line more. ``bench/ablation_probe.py --set
unseen`` reads them all.
"""

from __future__ import annotations

import codecs
import csv
import functools
import io
import json
import re
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from ablation_variants import SAMPLES, Files, Variant, _files, _rows, as_read, original, read
from rewrite_variants import (
    _as_it_was,
    _each_text,
    _lines,
    _stem,
    _tree,
    _variant,
    _xml_out,
    json_rewrite,
    with_messages,
)

KINDS = (
    "zip-names",
    "zip-layout",
    "json-tool",
    "text-edited",
    "csv-tool",
    "html-tool",
    "xml-tool",
    "held-out",
)
Pack = Callable[[Path, Files, Path], Path]


@dataclass(frozen=True)
class Unseen:
    """A variant and, where it is not the sample's reading, what it must read as: the same files laid down
    by ``control`` (a renamed file zipped plainly)."""

    variant: Variant
    control: Pack | None = None
    squash: Callable[[str], str] | None = None  # texts as the tool changed them (trailing white space)


def check(unseen: Unseen, work: Path) -> str | None:
    variant = unseen.variant
    first = read(variant.write(work / "a"))
    again = read(variant.write(work / "b"))
    if first.crash:
        return f"crash: {first.crash}"
    if first.error is not None:
        return f"refused: {first.error}"
    if unseen.control is None:
        base = original(SAMPLES / variant.export)
    else:
        base = read(unseen.control(SAMPLES / variant.export, _files(SAMPLES / variant.export), work / "c"))
    return as_read(first, again, [base], unseen.squash or (lambda t: t))


def _unseen(
    variant: Variant | None, control: Pack | None = None, squash: Callable[[str], str] | None = None
) -> Unseen | None:
    return None if variant is None else Unseen(variant, control, squash)


# --- zip names ---------------------------------------------------------------------------------------------


class _Named(zipfile.ZipInfo):
    """An entry whose name is written in ``codec``, flagged as UTF-8 or not, as another tool writes it."""

    codec = "utf-8"
    flagged = True

    def _encodeFilenameFlags(self) -> tuple[bytes, int]:
        flags = self.flag_bits | 0x800 if self.flagged else self.flag_bits & ~0x800
        return self.filename.encode(self.codec), flags


def _zip(
    entries: dict[str, bytes], target: Path, codec: str = "utf-8", flagged: bool = True, **options: Any
) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, **options) as zf:
        for name, data in entries.items():
            info = _Named(name, (2026, 10, 5, 12, 0, 0))
            info.codec, info.flagged = codec, flagged
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return target


# A file export's new name (before its extension), a folder export's new folder: Latin letters CP437 holds,
# Japanese CP932 holds.
_LATIN = " für Zoë"
_JAPANESE = " 友子"


def _names_in(export: Path, add: str) -> Callable[[str, Files], dict[str, bytes]]:
    """The files as a zip of the renamed export names them: a file under its new name, a folder's files under
    the new folder (``NAME für Zoë/...``)."""
    if "" in _files(export):
        stem, dot, ext = export.name.rpartition(".")
        return lambda s, files: {f"{stem}{add}{dot}{ext}": files[""]}
    top = _stem(export) + add
    inner = _as_it_was(export)
    return lambda s, files: {f"{top}/{n}": d for n, d in inner(s, files).items()}


def _named_zip(export: Path, add: str, how: Callable[[dict[str, bytes], Path], Path]) -> Pack:
    names = _names_in(export, add)
    return lambda original, files, into: how(names("", files), into / f"{_stem(export)}{add}.zip")


def _zip_names(export: Path) -> Iterator[Unseen | None]:
    def plain(entries: dict[str, bytes], target: Path) -> Path:
        return _zip(entries, target)

    for add, codec, how in (
        (_LATIN, "utf-8", "UTF-8 without the flag"),
        (_LATIN, "cp437", "CP437 (Explorer, Western)"),
        (_JAPANESE, "utf-8", "UTF-8 without the flag, Japanese"),
        (_JAPANESE, "cp932", "CP932 (Explorer, Japanese)"),
    ):
        pack = _named_zip(export, add, functools.partial(_zip, codec=codec, flagged=False))
        variant = _variant(export, "zip-names", how, lambda f: f, pack=pack)
        yield _unseen(variant, _named_zip(export, add, plain))

    def nfd(entries: dict[str, bytes], target: Path) -> Path:
        return _zip({unicodedata.normalize("NFD", n): d for n, d in entries.items()}, target)

    variant = _variant(
        export, "zip-names", "decomposed (macOS)", lambda f: f, pack=_named_zip(export, _LATIN, nfd)
    )
    yield _unseen(variant, _named_zip(export, _LATIN, plain))
    if len(_files(export)) > 1 or export.is_dir():

        def backslashed(original: Path, files: Files, into: Path) -> Path:
            entries = _as_it_was(export)("", files)
            return _zip({n.replace("/", "\\"): d for n, d in entries.items()}, into / f"{_stem(export)}.zip")

        variant = _variant(
            export, "zip-names", "back slashes (Compress-Archive)", lambda f: f, pack=backslashed
        )
        yield _unseen(variant)


# --- zip layout --------------------------------------------------------------------------------------------


class _Pipe(io.RawIOBase):
    """A stream that cannot seek or tell: zipfile writes sizes after each entry (data descriptors)."""

    def __init__(self) -> None:
        self.out = io.BytesIO()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return self.out.write(data)

    def tell(self) -> int:
        raise OSError("a pipe")

    def seekable(self) -> bool:
        return False


def _layouts(export: Path) -> Iterator[Unseen | None]:
    same = _as_it_was(export)

    def folders(original: Path, files: Files, into: Path) -> Path:
        entries = same("", files)
        dirs = sorted({n.rsplit("/", 1)[0] for n in entries if "/" in n} | set())
        every = {}
        for d in dirs:
            parts = d.split("/")
            for n in range(1, len(parts) + 1):
                every["/".join(parts[:n]) + "/"] = b""
        every.update(entries)
        return _zip(every, into / f"{_stem(export)}.zip")

    def streamed(original: Path, files: Files, into: Path) -> Path:
        pipe = _Pipe()
        with zipfile.ZipFile(pipe, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in same("", files).items():
                with zf.open(name, "w") as out:
                    out.write(data)
        into.mkdir(parents=True, exist_ok=True)
        target = into / f"{_stem(export)}.zip"
        target.write_bytes(pipe.out.getvalue())
        return target

    def zip64(original: Path, files: Files, into: Path) -> Path:
        into.mkdir(parents=True, exist_ok=True)
        target = into / f"{_stem(export)}.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.comment = b"Created by 7-Zip"
            for name, data in same("", files).items():
                with zf.open(name, "w", force_zip64=True) as out:
                    out.write(data)
        return target

    def in_folder_in_zip(original: Path, files: Files, into: Path) -> Path:
        inner = _zip(same("", files), into / "inner" / f"{_stem(export)}.zip")
        return _zip({f"Backup/Downloads/{inner.name}": inner.read_bytes()}, into / "Backup.zip")

    for how, pack in (
        ("an entry for every folder", folders),
        ("streamed (data descriptors)", streamed),
        ("ZIP64 records and a comment", zip64),
        ("a zip in a folder in a zip", in_folder_in_zip),
    ):
        variant = _variant(export, "zip-layout", how, lambda f: f, pack=pack)
        yield _unseen(variant)


# --- JSON --------------------------------------------------------------------------------------------------


def _walk(value: Any, leaf: Callable[[Any], Any]) -> Any:
    if isinstance(value, dict):
        return {k: _walk(v, leaf) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, leaf) for v in value]
    return leaf(value)


def _powershell(value: Any) -> bytes:
    out = json.dumps(value, ensure_ascii=False, indent=4, separators=(",", ":  "))
    for c in "<>&'":
        out = out.replace(c, f"\\u{ord(c):04x}")  # JavaScriptSerializer's escapes; never inside a key here
    return codecs.BOM_UTF16_LE + out.replace("\n", "\r\n").encode("utf-16-le")


def _js_number(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2**53 else v


def _frame_number(v: Any) -> Any:
    return float(v) if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**53 else v


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def _in_zone(zone: timezone) -> Callable[[Any], Any]:
    """A time with an offset written at another offset, its fraction of a second kept to the digit."""

    def leaf(v: Any) -> Any:
        if not isinstance(v, str) or not _ISO.fullmatch(v):
            return v
        fraction = _ISO.fullmatch(v).group(1) or ""  # type: ignore[union-attr]
        moved = datetime.fromisoformat(v.replace("Z", "+00:00")).astimezone(zone)
        head = moved.strftime("%Y-%m-%dT%H:%M:%S") + fraction
        return head + ("Z" if zone is UTC else moved.strftime("%z")[:3] + ":" + moved.strftime("%z")[3:])

    return leaf


def _json_tools(export: Path) -> Iterator[Unseen | None]:
    dumped = lambda v: json.dumps(v, ensure_ascii=False, indent=2).encode()  # noqa: E731
    for how, make in (
        ("PowerShell 5.1", _powershell),
        ("a JavaScript round trip", lambda v: json.dumps(_walk(v, _js_number), ensure_ascii=False).encode()),
        ("every integer a float", lambda v: dumped(_walk(v, _frame_number))),
        ("times in UTC with Z", lambda v: dumped(_walk(v, _in_zone(UTC)))),
        ("times at +02:00", lambda v: dumped(_walk(v, _in_zone(timezone(timedelta(hours=2)))))),
        (
            "Notepad: a BOM and CR LF",
            lambda v: (
                codecs.BOM_UTF8 + json.dumps(v, ensure_ascii=False, indent=2).replace("\n", "\r\n").encode()
            ),
        ),
    ):
        variant = _variant(export, "json-tool", how, _each_text(export, json_rewrite(make)))
        yield _unseen(variant)


# --- text --------------------------------------------------------------------------------------------------


def _trimmed(text: str) -> str:
    return "\n".join(line.rstrip(" \t") for line in text.split("\n"))


def _plain_text(name: str) -> bool:
    return name.lower().endswith((".txt", ".md", ".csv"))


def _text_edits(export: Path) -> Iterator[Unseen | None]:
    def only_plain(rewrite: Callable[[str], bytes]) -> Callable[[str, str], bytes | None]:
        return lambda name, text: rewrite(text) if _plain_text(name) else None

    def trim(text: str) -> bytes:
        ends = re.split(r"(\r\n|\r|\n)", text)
        return "".join(p if n % 2 else p.rstrip(" \t") for n, p in enumerate(ends)).encode()

    crlf = lambda text: "\r\n".join(_lines(text.removeprefix("\ufeff")))  # noqa: E731
    for how, rewrite, squash in (
        ("trailing white space trimmed", only_plain(trim), _trimmed),
        ("UTF-16 LE without a BOM", lambda n, t: t.removeprefix("\ufeff").encode("utf-16-le"), None),
        (
            "Notepad's Unicode: UTF-16 LE, BOM, CR LF",
            lambda n, t: codecs.BOM_UTF16_LE + crlf(t).encode("utf-16-le"),
            None,
        ),
        (
            "a BOM and a blank line at the end",
            only_plain(
                lambda t: codecs.BOM_UTF8 + (t.removeprefix("\ufeff").rstrip("\r\n") + "\n\n").encode()
            ),
            None,
        ),
    ):
        variant = _variant(export, "text-edited", how, _each_text(export, rewrite))
        yield _unseen(variant, squash=squash)


# --- CSV ---------------------------------------------------------------------------------------------------

_EXCEL_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})")


def _german(m: re.Match[str]) -> str:
    y, mo, d, h, mi, s = m.groups()
    return f"{int(d)}.{int(mo)}.{y} {h}:{mi}:{s}"


def _us(m: re.Match[str]) -> str:
    y, mo, d, h, mi, s = m.groups()
    hour = int(h) % 12 or 12
    return f"{int(mo)}/{int(d)}/{y} {hour}:{mi}:{s} {'PM' if int(h) >= 12 else 'AM'}"


def _sheet(
    cell: Callable[[str], str] = lambda c: c,
    delimiter: str = ",",
    quoting: int = csv.QUOTE_MINIMAL,
    head: str = "",
    bom: bytes = b"",
    extra: bool = False,
) -> Callable[[str, str], bytes | None]:
    def rewrite(name: str, text: str) -> bytes | None:
        if not name.lower().endswith(".csv"):
            return None
        out = io.StringIO(newline="")
        out.write(head)
        rows = [[cell(c) for c in row] + ([""] if extra else []) for row in _rows(text.encode())]
        csv.writer(out, delimiter=delimiter, lineterminator="\r\n", quoting=quoting).writerows(rows)  # type: ignore[arg-type]
        return bom + out.getvalue().encode()

    return rewrite


def _csv_tools(export: Path) -> Iterator[Unseen | None]:
    for how, rewrite in (
        ("Excel's sep= line", _sheet(head="sep=,\r\n")),
        ("dates in German", _sheet(lambda c: _EXCEL_DATE.sub(_german, c) if _EXCEL_DATE.fullmatch(c) else c)),
        ("dates in US", _sheet(lambda c: _EXCEL_DATE.sub(_us, c) if _EXCEL_DATE.fullmatch(c) else c)),
        (
            "; with every field quoted and a BOM",
            _sheet(delimiter=";", quoting=csv.QUOTE_ALL, bom=codecs.BOM_UTF8),
        ),
        ("an empty last column", _sheet(extra=True)),
    ):
        variant = _variant(export, "csv-tool", how, _each_text(export, rewrite))
        yield _unseen(variant)


# --- HTML --------------------------------------------------------------------------------------------------

_SCRIPT = re.compile(r"(?is)(<script\b.*?</script>|<style\b.*?</style>)")
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)")
_VOID = re.compile(r"(?i)<(br|hr|meta|link|img|input)\b([^>]*?)\s*/?>")


def _outside_scripts(change: Callable[[str], str]) -> Callable[[str], str]:
    return lambda text: "".join(p if n % 2 else change(p) for n, p in enumerate(_SCRIPT.split(text)))


def _saved_by_browser(text: str) -> str:
    mark = "<!-- saved from url=(0014)about:internet -->\r\n"
    meta = '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">'
    at = text.lower().find("<html")
    if at < 0:
        return mark + meta + text
    close = text.index(">", at) + 1
    return text[:at] + mark + text[at:close] + meta + text[close:]


def _html_tools(export: Path) -> Iterator[Unseen | None]:
    for how, change in (
        ("saved by a browser (mark of the web)", _saved_by_browser),
        ("tags in upper case", _outside_scripts(lambda t: _TAG.sub(lambda m: f"<{m[1]}{m[2].upper()}", t))),
        ("void elements as XHTML", _outside_scripts(lambda t: _VOID.sub(r"<\1\2 />", t))),
    ):
        rewrite = lambda n, t, c=change: c(t).encode() if n.lower().endswith((".html", ".htm")) else None  # noqa: E731
        variant = _variant(export, "html-tool", how, _each_text(export, rewrite))
        yield _unseen(variant)


# --- XML ---------------------------------------------------------------------------------------------------


def _xml_tools(export: Path) -> Iterator[Unseen | None]:
    def pretty(name: str, text: str) -> bytes | None:
        if not name.lower().endswith(".xml"):
            return None
        root = _tree(text)
        ET.indent(root)
        return _xml_out(root).replace(b"\n", b"\r\n")

    variant = _variant(export, "xml-tool", "indented, CR LF", _each_text(export, pretty))
    yield _unseen(variant)


# --- held out ------------------------------------------------------------------------------------------
# Written after the kinds above were fixed, and measured once before any change (RESULTS, session 14): how
# the fixes carry to tools they were not made for.


def _held_out(export: Path) -> Iterator[Unseen | None]:
    def plain(entries: dict[str, bytes], target: Path) -> Path:
        return _zip(entries, target)

    for add, codec, how in (
        (" для Зои", "cp866", "names in CP866 (Explorer, Russian)"),
        (" 小张", "gbk", "names in GBK (Explorer, Chinese)"),
        (" Ayşe için", "cp857", "names in CP857 (Explorer, Turkish)"),
    ):
        pack = _named_zip(export, add, functools.partial(_zip, codec=codec, flagged=False))
        yield _unseen(
            _variant(export, "held-out", how, lambda f: f, pack=pack), _named_zip(export, add, plain)
        )
    japanese = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}:\d{2}:\d{2})")
    for how, rewrite in (
        ("CSV dates as Japanese Excel shows them", _sheet(lambda c: japanese.sub(r"\1/\2/\3 \4", c))),
        (
            "CSV: sep=; line, ; and German dates",
            _sheet(
                lambda c: _EXCEL_DATE.sub(_german, c) if _EXCEL_DATE.fullmatch(c) else c,
                ";",
                head="sep=;\r\n",
            ),
        ),
    ):
        yield _unseen(_variant(export, "held-out", how, _each_text(export, rewrite)))

    def quoted(text: str) -> str:
        return re.sub(r'(<[a-zA-Z][^<>]*?)\s(class|CLASS)="([^"]*)"', r"\1 CLASS='\3'", text)

    html = lambda n, t: quoted(t).encode() if n.lower().endswith((".html", ".htm")) else None  # noqa: E731
    yield _unseen(
        _variant(export, "held-out", "HTML: class upper case, single-quoted", _each_text(export, html))
    )
    escaped = lambda v: json.dumps(_walk(v, _in_zone(UTC)), ensure_ascii=True).encode()  # noqa: E731
    yield _unseen(
        _variant(
            export,
            "held-out",
            "JSON: escaped, compact, times in Z",
            _each_text(export, json_rewrite(escaped)),
        )
    )
    yield _unseen(
        _variant(
            export,
            "held-out",
            "UTF-16 BE with a BOM and CR LF",
            _each_text(
                export,
                lambda n, t: (
                    codecs.BOM_UTF16_BE + "\r\n".join(_lines(t.removeprefix("\ufeff"))).encode("utf-16-be")
                ),
            ),
        )
    )


# --- all of them -------------------------------------------------------------------------------------------


@cache
def variants() -> tuple[Unseen, ...]:
    makers = (
        _zip_names,
        _layouts,
        _json_tools,
        _text_edits,
        _csv_tools,
        _html_tools,
        _xml_tools,
        _held_out,
    )
    return tuple(u for export in with_messages() for make in makers for u in make(export) if u is not None)
