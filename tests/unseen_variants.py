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
import email.message
import email.policy
import functools
import io
import json
import re
import struct
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from ablation_variants import SAMPLES, Files, Variant, _files, _rows, _write, as_read, original, read
from rewrite_variants import (
    _SURROGATES,
    _as_it_was,
    _each_text,
    _joined,
    _lines,
    _named,
    _stem,
    _tree,
    _variant,
    _xml_out,
    json_rewrite,
    tarred,
    with_messages,
)
from rewrite_variants import _macos as rv_macos

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
    # What the tool wrote is not a thing refind can be asked to read (a zip under a password, a zip cut in
    # volumes, a page saved as MHTML): a one-line refusal that names the file is right too.
    may_refuse: bool = False
    when: Callable[[str], str] | None = None  # times as the tool left them (a spreadsheet drops seconds)
    fresh: bool = False  # the tool rewrote the ids identities are made of (see ``as_read``)


def outcome(unseen: Unseen, work: Path) -> tuple[str, str | None]:
    """How a variant reads: ("read", None) as it must; ("refused", the line) where the import was refused in
    one line that names the file or archive read; ("wrong", what) otherwise: read other than it must be (what
    ends "(said in a warning: ...)" where the reading warned more than the original's), a refusal of several
    lines or naming no file, a crash."""
    variant = unseen.variant
    path = variant.write(work / "a")
    first = read(path)
    again = read(variant.write(work / "b"))
    if first.crash:
        return "wrong", f"crash: {first.crash}"
    if first.error is not None:
        named = {path.name, *(p.name for p in path.rglob("*"))} if path.is_dir() else {path.name}
        if "\n" in first.error or not any(n in first.error for n in named):
            return "wrong", f"an unclear refusal: {first.error!r}"
        return "refused", first.error
    if unseen.control is None:
        base = original(SAMPLES / variant.export)
    else:
        base = read(unseen.control(SAMPLES / variant.export, _files(SAMPLES / variant.export), work / "c"))
    same = lambda t: t  # noqa: E731
    wrong = as_read(first, again, [base], unseen.squash or same, unseen.when or same, unseen.fresh)
    if wrong and len(first.warnings) > len(base.warnings):
        wrong += f" (said in a warning: {first.warnings[-1]})"
    return ("wrong", wrong) if wrong else ("read", None)


def check(unseen: Unseen, work: Path) -> str | None:
    """What is wrong with a variant's reading: read otherwise than it must be, or refused where the file holds
    all it needs (None: read as it must, or refused in one line where it may be)."""
    how, what = outcome(unseen, work)
    if how == "refused" and not unseen.may_refuse:
        return f"refused: {what}"
    return what if how == "wrong" else None


def _unseen(
    variant: Variant | None,
    control: Pack | None = None,
    squash: Callable[[str], str] | None = None,
    **more: Any,
) -> Unseen | None:
    return None if variant is None else Unseen(variant, control, squash, **more)


# --- zip names ---------------------------------------------------------------------------------------------


class _Named(zipfile.ZipInfo):
    """An entry whose name is written in ``codec``, flagged as UTF-8 or not, as another tool writes it."""

    codec = "utf-8"
    flagged = True

    def _encodeFilenameFlags(self) -> tuple[bytes, int]:
        flags = self.flag_bits | 0x800 if self.flagged else self.flag_bits & ~0x800
        return self.filename.encode(self.codec, "replace"), flags  # "?" where the code page has no letter


def _zip(
    entries: dict[str, bytes],
    target: Path,
    codec: str = "utf-8",
    flagged: bool = True,
    streamed: bool = False,
    extra: Callable[[str], bytes] = lambda name: b"",
    **options: Any,
) -> Path:
    """Entries zipped with their names in ``codec`` (flagged UTF-8 or not), each with ``extra(name)`` as its
    extra fields; ``streamed``: written to a pipe, sizes in data descriptors (a folder is an empty entry)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    pipe = _Pipe()
    with zipfile.ZipFile(pipe if streamed else target, "w", zipfile.ZIP_DEFLATED, **options) as zf:
        for name, data in entries.items():
            info = _Named(name, (2026, 10, 5, 12, 0, 0))
            info.codec, info.flagged = codec, flagged
            info.compress_type = zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED
            info.extra = extra(name)
            if streamed and not name.endswith("/"):
                with zf.open(info, "w") as out:
                    out.write(data)
            else:
                zf.writestr(info, data)
    if streamed:
        target.write_bytes(pipe.out.getvalue())
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


# --- held out, session 15 ---------------------------------------------------------------------------------
# Written from what real tools do to an export, before any of them was read by refind (RESULTS, session 15):
# how the archive tools of macOS, 7-Zip, WinZip and tar lay one down; what a phone's or a browser's share, a
# cloud drive's download and Explorer's "Extract all" make of its name and its folders; JSON libraries of
# other languages; spreadsheets that show dates and long numbers their own way; an editor that read UTF-8 as
# Windows-1252; a browser's single-file page; a canonicaliser of XML.


def _ditto(export: Path) -> Pack:
    """macOS's Archive Utility (``ditto -c -k --sequesterRsrc --keepParent``): names decomposed and in UTF-8
    without the flag, an entry for every folder, each file streamed (data descriptors), and its resource fork
    under ``__MACOSX/``."""
    names = _names_in(export, _LATIN)

    def pack(original: Path, files: Files, into: Path) -> Path:
        entries = rv_macos(names("", files))
        folders = {n.rsplit("/", 1)[0] for n in entries if "/" in n}
        every = {f"{'/'.join(f.split('/')[: k + 1])}/": b"" for f in folders for k in range(f.count("/") + 1)}
        every.update(entries)
        decomposed = {unicodedata.normalize("NFD", n): d for n, d in sorted(every.items())}
        return _zip(decomposed, into / f"{_stem(export)}{_LATIN}.zip", flagged=False, streamed=True)

    return pack


def _ntfs_times(name: str) -> bytes:
    """7-Zip's NTFS extra field (0x000a): the entry's three times in 100 ns ticks since 1601."""
    ticks = (
        (datetime(2026, 10, 5, 12, tzinfo=UTC) - datetime(1601, 1, 1, tzinfo=UTC))
        // timedelta(microseconds=1)
        * 10
    )
    body = struct.pack("<IHHQQQ", 0, 1, 24, ticks, ticks, ticks)
    return struct.pack("<HH", 0x000A, len(body)) + body


def _unicode_path(name: str) -> bytes:
    """WinZip's and Info-ZIP's Unicode Path extra field (0x7075): the name in UTF-8, beside a name in the OEM
    code page that could not hold it."""
    body = b"\x01" + struct.pack("<I", zlib.crc32(name.encode("cp437", "replace"))) + name.encode()
    return struct.pack("<HH", 0x7075, len(body)) + body


def _crypto_keys(password: bytes) -> list[int]:
    keys = [0x12345678, 0x23456789, 0x34567890]
    for c in password:
        _crypto_update(keys, c)
    return keys


def _crypto_update(keys: list[int], c: int) -> None:
    keys[0] = _crc_byte(keys[0], c)
    keys[1] = ((keys[1] + (keys[0] & 0xFF)) * 134775813 + 1) & 0xFFFFFFFF
    keys[2] = _crc_byte(keys[2], keys[1] >> 24)


def _crc_byte(crc: int, c: int) -> int:
    return zlib.crc32(bytes([c]), crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


def _raw_zip(
    entries: dict[str, bytes], target: Path, pack: Callable[[bytes], tuple[int, int, bytes]]
) -> Path:
    """A zip of entries written as ``pack(data)`` gives them: (flags, method, the bytes stored), which zipfile
    cannot make itself (it writes neither a cipher nor Deflate64) but lays down as it is told."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w") as zf:
        for name, data in entries.items():
            flags, method, stored = pack(data)
            info = zipfile.ZipInfo(name, (2026, 10, 5, 12, 0, 0))
            info.flag_bits |= flags
            info.compress_type = method
            info.CRC, info.compress_size, info.file_size = zlib.crc32(data), len(stored), len(data)
            zf.fp.seek(zf.start_dir)  # type: ignore[union-attr]
            info.header_offset = zf.start_dir
            zf.fp.write(info.FileHeader(False) + stored)  # type: ignore[union-attr]
            zf.start_dir = zf.fp.tell()  # type: ignore[union-attr]
            zf.filelist.append(info)
            zf.NameToInfo[name] = info
            zf._didModify = True  # type: ignore[attr-defined]  # so that closing writes the directory
    return target


def _enciphered(data: bytes, password: bytes = b"secret") -> tuple[int, int, bytes]:
    """An entry under a password (7-Zip's and Explorer's "ZipCrypto"): deflated, then enciphered after a
    12-byte header whose last byte is the high byte of the entry's CRC (APPNOTE 6.1)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    plain = bytes(11) + bytes([zlib.crc32(data) >> 24]) + deflate.compress(data) + deflate.flush()
    keys = _crypto_keys(password)
    out = bytearray()
    for c in plain:
        temp = (keys[2] | 2) & 0xFFFF
        out.append(c ^ (((temp * (temp ^ 1)) >> 8) & 0xFF))
        _crypto_update(keys, c)
    return 0x1, zipfile.ZIP_DEFLATED, bytes(out)


def _deflate64(data: bytes) -> tuple[int, int, bytes]:
    """An entry in Deflate64 (method 9), as 7-Zip writes with ``-mm=Deflate64``."""
    import inflate64

    deflater = inflate64.Deflater()
    return 0, 9, deflater.deflate(data) + deflater.flush()


def _macos_tar(export: Path, files: Files, into: Path) -> Path:
    """``tar -czf`` on macOS: names under ``./``, an AppleDouble ``._NAME`` before each file, its extended
    attributes (the quarantine mark of a download) in PAX records."""
    into.mkdir(parents=True, exist_ok=True)
    target = into / f"{_stem(export)}.tar.gz"
    with tarfile.open(target, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for member, data in _as_it_was(export)("", files).items():
            head, _, leaf = member.rpartition("/")
            for name, body, pax in (
                (f"./{head + '/' if head else ''}._{leaf}", b"\x00\x05\x16\x07" + bytes(80), {}),
                (
                    f"./{member}",
                    data,
                    {"LIBARCHIVE.xattr.com.apple.quarantine": "MDA4MTs2NzAwMDAwMDtTYWZhcmk7"},
                ),
            ):
                info = tarfile.TarInfo(name)
                info.size, info.pax_headers = len(body), pax
                tf.addfile(info, io.BytesIO(body))
    return target


def _in_parts(
    export: Path, files: Files, into: Path, count: int = 2, stamp: str = "20261005T120000Z"
) -> Path:
    """A cloud drive's download of a large folder: the files dealt over ``NAME-<stamp>-001.zip``, ``-002.zip``
    (``count`` of them), each under the folder's name, in one folder (read as a whole)."""
    place = into / "Downloads"
    stem = _stem(export)
    entries = list(_named(export, files).items()) if not export.is_dir() else list(files.items())
    for part in range(count):
        _zip({f"{stem}/{n}": d for n, d in entries[part::count]}, place / f"{stem}-{stamp}-00{part + 1}.zip")
    return place


def _volumes(export: Path, files: Files, into: Path, count: int = 2) -> Path:
    """7-Zip's "split to volumes": one zip cut in ``count``, ``NAME.zip.001``, ``NAME.zip.002``, ..., in one
    folder."""
    whole = _zip(_as_it_was(export)("", files), into / "whole" / f"{_stem(export)}.zip").read_bytes()
    place = into / "Downloads"
    place.mkdir(parents=True, exist_ok=True)
    step = -(-len(whole) // count)
    for n in range(count):
        (place / f"{_stem(export)}.zip.00{n + 1}").write_bytes(whole[n * step : (n + 1) * step])
    return place


def _nested(export: Path, files: Files, into: Path) -> Path:
    """Explorer's "Extract all" of a zip of the export's folder: the folder inside a folder of its own name,
    inside the folder read (an export one folder deeper than the one it was in)."""
    stem = _stem(export) if "" not in files else Path(export.name).stem
    target = into / "Downloads"
    entries = files if export.is_dir() else _named(export, files)
    for member, data in entries.items():
        place = target / stem / stem / member
        place.parent.mkdir(parents=True, exist_ok=True)
        place.write_bytes(data)
    return target


def _shared_as(rename: Callable[[str], str]) -> Pack:
    """The export under the name a share or a download gave it."""

    def pack(original: Path, files: Files, into: Path) -> Path:
        into.mkdir(parents=True, exist_ok=True)
        target = into / rename(original.name)
        if original.is_dir():
            for member, data in files.items():
                (target / member).parent.mkdir(parents=True, exist_ok=True)
                (target / member).write_bytes(data)
        elif "" in files:
            target.write_bytes(files[""])
        else:
            _zip(files, target)
        return target

    return pack


def _drive_download(export: Path, files: Files, into: Path) -> Path:
    """A cloud drive's download of the folder the export was unpacked to: ``NAME-<stamp>-001.zip`` holding
    ``NAME/...``."""
    stem = _stem(export)
    entries = files if export.is_dir() else _named(export, files)
    return _zip({f"{stem}/{n}": d for n, d in entries.items()}, into / f"{stem}-20261005T120000Z-001.zip")


def _upper_extension(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{ext.upper()}" if dot else name


def _json_text(
    value: Any,
    char: Callable[[str], str],
    number: Callable[[int | float], str],
    sort: bool = False,
    indent: str | None = None,
    depth: int = 0,
) -> str:
    """A JSON value as another language's library writes it: each character of a string as ``char`` writes
    it, each number as ``number`` does, keys sorted or not, compact or indented by ``indent``."""
    more = lambda v: _json_text(v, char, number, sort, indent, depth + 1)  # noqa: E731
    gap = "" if indent is None else "\n" + indent * (depth + 1)
    end = "" if indent is None else "\n" + indent * depth
    colon = ":" if indent is None else ": "
    if isinstance(value, dict):
        items = sorted(value.items()) if sort else list(value.items())
        if not items:
            return "{}"
        return "{" + ",".join(f"{gap}{_json_string(k, char)}{colon}{more(v)}" for k, v in items) + end + "}"
    if isinstance(value, list):
        return "[" + ",".join(f"{gap}{more(v)}" for v in value) + end + "]" if value else "[]"
    if isinstance(value, str):
        return _json_string(value, char)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return number(value)


_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _json_string(text: str, char: Callable[[str], str]) -> str:
    return '"' + "".join(char(c) for c in text) + '"'


def _escaping(escaped: Callable[[str], bool], hex_digits: str = "{:04x}") -> Callable[[str], str]:
    """A library's string escapes: ``escaped(c)`` as ``\\uXXXX`` (an astral character as two surrogates),
    a control character or a quote as JSON's short escape where it has one."""

    def char(c: str) -> str:
        if escaped(c):
            units = c.encode("utf-16-be")
            return "".join(
                "\\u" + hex_digits.format(int.from_bytes(units[k : k + 2], "big"))
                for k in (0, 2)[: len(units) // 2]
            )
        if c in _SHORT:
            return _SHORT[c]
        return c if ord(c) >= 0x20 else "\\u" + hex_digits.format(ord(c))

    return char


def _java_double(value: int | float) -> str:
    """Java's ``Double.toString``: a number Gson read into a Map as a double and wrote back (``123.0``,
    ``1.7278E12``: the shortest digits, in E notation outside 1e-3 to 1e7)."""
    d = float(value)
    if d == 0 or 1e-3 <= abs(d) < 1e7:
        return format(Decimal(repr(d)), "f") if "e" in repr(d) else repr(d)
    sign, digits, exponent = Decimal(repr(d)).normalize().as_tuple()
    shown = "".join(map(str, digits))
    power = len(digits) - 1 + int(exponent)
    return f"{'-' if sign else ''}{shown[0]}.{shown[1:] or '0'}E{power}"


def _double(value: int | float) -> str:
    """A number through a double and written out whole, as Go's ``encoding/json`` and jq 1.6 write one below
    1e21: an integer past 2**53 rounded to the nearest double."""
    return (
        format(Decimal(repr(float(value))), "f")
        if isinstance(value, float) or abs(value) >= 2**53
        else str(value)
    )


_DOTNET = _escaping(lambda c: ord(c) > 0x7E or c in "\"&'<>+`", "{:04X}")
_GSON = _escaping(lambda c: c in "<>&='")
_GO = _escaping(lambda c: c in "<>&\u2028\u2029")


def _json_libraries(export: Path) -> Iterator[tuple[str, Callable[[Any], bytes]]]:
    yield (
        ".NET System.Text.Json (non-ASCII as \\uXXXX, compact)",
        lambda v: _json_text(v, _DOTNET, lambda n: _double(n) if isinstance(n, float) else str(n)).encode(),
    )
    yield (
        "Gson through a Map (numbers as Java doubles)",
        lambda v: _json_text(v, _GSON, _java_double).encode(),
    )
    yield (
        "Go through map[string]interface{} (keys sorted)",
        lambda v: _json_text(v, _GO, _double, sort=True).encode(),
    )
    yield (
        "jq 1.6",
        lambda v: (_json_text(v, _escaping(lambda c: c == "\x7f"), _double, indent="  ") + "\n").encode(),
    )


_UK_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):\d{2}")
_LONG_NUMBER = re.compile(r"\d{12,}")


def _excel_number(cell: str) -> str:
    """Excel's General format for a number of 12 digits or more: six significant digits, ``1.05766E+17``."""
    mantissa, _, exponent = f"{int(cell):.5E}".partition("E")
    return f"{mantissa.rstrip('0').rstrip('.')}E+{int(exponent):02d}"


def _minute(stamp: str) -> str:
    """An ISO time to the minute: what a sheet that shows no seconds kept of it."""
    return stamp[:16] + stamp[19:] if len(stamp) >= 19 and stamp[16] == ":" else stamp


def _sheets(export: Path) -> Iterator[Unseen | None]:
    def excel(sep: str, date: Callable[[re.Match[str]], str]) -> Callable[[str], str]:
        def cell(c: str) -> str:
            if _EXCEL_DATE.fullmatch(c):
                return _UK_DATE.sub(date, c)
            return _excel_number(c) if _LONG_NUMBER.fullmatch(c) else c

        return cell

    uk = lambda m: f"{m[3]}/{m[2]}/{m[1]} {m[4]}:{m[5]}"  # noqa: E731
    us = lambda m: f"{int(m[2])}/{int(m[3])}/{m[1]} {int(m[4])}:{m[5]}"  # noqa: E731
    for how, cell in (
        ("Excel (UK): dd/mm/yyyy hh:mm, long numbers as 1.23457E+17", excel(",", uk)),
        ("Excel (US): m/d/yyyy h:mm, long numbers as 1.23457E+17", excel(",", us)),
    ):
        yield _unseen(
            _variant(export, "held-out-15", how, _each_text(export, _sheet(cell))), when=_minute, fresh=True
        )

    def sheets(cell: str) -> str:
        return _EXCEL_DATE.sub(lambda m: f"{int(m[2])}/{int(m[3])}/{m[1]} {int(m[4])}:{m[5]}:{m[6]}", cell)

    yield _unseen(
        _variant(
            export, "held-out-15", "Google Sheets (US): M/D/YYYY H:MM:SS", _each_text(export, _sheet(sheets))
        )
    )


def _double_encoded(name: str, text: str) -> bytes | None:
    """UTF-8 read as Windows-1252 and saved as UTF-8 again (an editor told the wrong encoding); a byte
    Windows-1252 leaves undefined becomes the control character of its number, as Windows maps it."""
    if text.isascii():
        return None
    raw = text.encode()
    return "".join(
        bytes([b]).decode("cp1252", errors="replace").replace("\ufffd", chr(b)) for b in raw
    ).encode()


_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u200e": None, "\u200f": None})


def _mhtml(name: str, text: str) -> bytes | None:
    """Chrome's "Save as: Webpage, single file": the page quoted-printable in a MIME message."""
    if not name.lower().endswith((".html", ".htm")):
        return None
    message = email.message.EmailMessage()
    message["From"] = "<Saved by Blink>"
    message["Snapshot-Content-Location"] = f"file:///C:/Users/me/Downloads/{name}"
    message["Subject"] = name
    message["MIME-Version"] = "1.0"
    message.make_related()
    part = email.message.EmailMessage()
    part.set_content(text, subtype="html", cte="quoted-printable")
    part["Content-Location"] = f"file:///C:/Users/me/Downloads/{name}"
    message.attach(part)
    return message.as_bytes(policy=email.policy.SMTP)


def _renamed_to(ext: str) -> Pack:
    return _shared_as(lambda name: name.rpartition(".")[0] + ext)


def _held_out_15(export: Path) -> Iterator[Unseen | None]:
    kind = "held-out-15"
    plain = lambda entries, target: _zip(entries, target)  # noqa: E731
    same = _as_it_was(export)
    for how, pack, control, may in (
        (
            "macOS Archive Utility (NFD, no UTF-8 flag, streamed, __MACOSX)",
            _ditto(export),
            _named_zip(export, _LATIN, plain),
            False,
        ),
        (
            "7-Zip: NTFS times, names in CP437 without the flag",
            _named_zip(
                export, _LATIN, functools.partial(_zip, codec="cp437", flagged=False, extra=_ntfs_times)
            ),
            _named_zip(export, _LATIN, plain),
            False,
        ),
        (
            "WinZip: names in CP437 as '?', UTF-8 in the Unicode Path field",
            _named_zip(
                export, _JAPANESE, functools.partial(_zip, codec="cp437", flagged=False, extra=_unicode_path)
            ),
            _named_zip(export, _JAPANESE, plain),
            False,
        ),
        (
            "7-Zip: Deflate64",
            lambda o, f, into: _raw_zip(same("", f), into / f"{_stem(export)}.zip", _deflate64),
            None,
            True,
        ),
        (
            "a zip under a password (ZipCrypto)",
            lambda o, f, into: _raw_zip(same("", f), into / f"{_stem(export)}.zip", _enciphered),
            None,
            True,
        ),
        ("tar on macOS (./, ._ files, PAX attributes)", _macos_tar, None, False),
        ("a drive's download in two parts", _in_parts, None, False),
        ("7-Zip volumes .zip.001, .zip.002", _volumes, None, True),
        ("Explorer's Extract all: one folder deeper", _nested, None, False),
        ("a drive's download of the folder", _drive_download, None, False),
    ):
        if "two parts" in how and len(_files(export)) < 2 and not export.is_dir():
            continue
        yield _unseen(_variant(export, kind, how, lambda f: f, pack=pack), control, may_refuse=may)
    for how, rename in (
        ("shared: spaces as _", lambda n: n.replace(" ", "_")),
        ("downloaded: %20 for spaces", lambda n: n.replace(" ", "%20")),
        ("renamed: extension in capitals", _upper_extension),
    ):
        if rename(export.name) != export.name:
            yield _unseen(_variant(export, kind, how, lambda f: f, pack=_shared_as(rename)))
    for how, make in _json_libraries(export):
        yield _unseen(_variant(export, kind, how, _each_text(export, json_rewrite(make))))
    yield from _sheets(export)
    yield _unseen(
        _variant(
            export, kind, "UTF-8 saved again as read in Windows-1252", _each_text(export, _double_encoded)
        )
    )
    yield _unseen(
        _variant(
            export,
            kind,
            "no-break spaces as spaces, direction marks dropped",
            _each_text(export, lambda n, t: t.translate(_SPACES).encode() if _plain_text(n) else None),
        ),
        squash=lambda t: t.translate(_SPACES),
    )
    mhtml = _variant(export, kind, "Chrome: a single-file page (MHTML)", _each_text(export, _mhtml))
    if mhtml is not None and "" in _files(export):
        yield Unseen(replace(mhtml, pack=_renamed_to(".mhtml")), may_refuse=True)
    c14n = lambda n, t: ET.canonicalize(_tree_text(t)).encode() if n.lower().endswith(".xml") else None  # noqa: E731
    yield _unseen(_variant(export, kind, "XML canonicalised (C14N 2.0)", _each_text(export, c14n)))


def _tree_text(text: str) -> str:
    """A backup as a canonicaliser reads it (surrogate references joined, as ``_tree`` does)."""
    return _SURROGATES.sub(_joined, text.removeprefix("\ufeff"))


@cache
def held_out_15() -> tuple[Unseen, ...]:
    """Session 15's held-out family (not in ``variants``: measured apart, once before any fix)."""
    return tuple(u for export in with_messages() for u in _held_out_15(export) if u is not None)


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


# --- held out, session 16 ---------------------------------------------------------------------------------
# Written before any of it was read by refind (RESULTS, session 16): what people and their tools do to an
# export on its way to a new computer that no test named before: Finder compressing a single file, Explorer's
# Thumbs.db and desktop.ini, a zip made from the home folder, gzip and xz, a mail client that kept an
# attachment's encoded name, a copy's name on Windows and macOS, an extension dropped or doubled,
# spreadsheets in Dutch and French, an SMS backup opened and saved with its style sheet, Chrome's "Webpage,
# complete", an editor that expands tabs, the export in a folder beside a note and a photo.


def _finder_alone(export: Path, files: Files, into: Path) -> Path:
    """Finder's "Compress" of the export itself: a single file as ``NAME.txt.zip`` (its extension kept), a
    folder or zip as ``NAME.zip``, each file's AppleDouble fork under ``__MACOSX/``."""
    into.mkdir(parents=True, exist_ok=True)
    entries = rv_macos(_as_it_was(export)("", files))
    entries = {n: d for n, d in entries.items() if not n.endswith(".DS_Store")}
    return _zip(entries, into / f"{export.name}.zip", flagged=False)


def _explorer_extras(export: Path, files: Files, into: Path) -> Path:
    """Explorer's "Send to compressed folder" of a folder browsed in thumbnails: ``Thumbs.db`` and
    ``desktop.ini`` in every folder, names with back slashes."""
    entries = _as_it_was(export)("", files)
    folders = {n.rsplit("/", 1)[0] + "/" if "/" in n else "" for n in entries}
    extras = {}
    for folder in sorted(folders):
        extras[f"{folder}Thumbs.db"] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
        extras[f"{folder}desktop.ini"] = "\ufeff[.ShellClassInfo]\r\nIconResource=C:\\x.ico,0\r\n".encode(
            "utf-16-le"
        )
    every = {n.replace("/", "\\"): d for n, d in {**extras, **entries}.items()}
    return _zip(every, into / f"{_stem(export)}.zip")


def _from_home(export: Path, files: Files, into: Path) -> Path:
    """``zip -r ~/x.zip ~/Downloads/NAME`` run from ``/``: every name under ``home/maya/Downloads/``."""
    entries = _as_it_was(export)("", files)
    return _zip({f"home/maya/Downloads/{n}": d for n, d in entries.items()}, into / f"{_stem(export)}.zip")


def _gzipped(export: Path, files: Files, into: Path) -> Path:
    """A single file gzipped (a server's log rotation, a mail's ``.gz``): ``NAME.txt.gz``; a folder or zip as
    ``tar -cJf NAME.tar.xz``."""
    import gzip

    into.mkdir(parents=True, exist_ok=True)
    if "" in files:
        target = into / f"{export.name}.gz"
        target.write_bytes(gzip.compress(files[""], mtime=0))
        return target
    return tarred(_as_it_was(export)("", files), into / f"{_stem(export)}.tar.xz")


def _encoded_word(name: str) -> str:
    """An attachment's name as a mail client saved it without decoding it (RFC 2047's encoded word)."""
    import email.header

    return email.header.Header(name, "utf-8").encode()


def _copy_windows(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem} - Copy.{ext}" if dot else f"{name} - Copy"


def _copy_macos(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem} copy.{ext}" if dot else f"{name} copy"


def _without_extension(name: str) -> str:
    return name.rpartition(".")[0] or name


_DUTCH = lambda m: f"{int(m[3])}-{int(m[2])}-{m[1]} {int(m[4])}:{m[5]}:{m[6]}"  # noqa: E731
_FRENCH = lambda m: f"{m[3]}/{m[2]}/{m[1]} {m[4]}:{m[5]}:{m[6]}"  # noqa: E731


def _stylesheet(name: str, text: str) -> bytes | None:
    """An SMS backup opened in an editor that shows its style sheet and saved with tabs: the
    ``xml-stylesheet`` instruction the app can write, a comment, tabs for indents."""
    if not name.lower().endswith(".xml"):
        return None
    root = _tree(text)
    ET.indent(root, space="\t")
    body = _xml_out(root).decode().split("\n", 1)[1]
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="sms.xsl"?>\n'
    return (head + "<!--File Created By SMS Backup & Restore-->\n" + body).encode()


def _webpage_complete(export: Path, files: Files, into: Path) -> Path:
    """Chrome's "Save as: Webpage, complete" of a page export: ``NAME.html`` beside ``NAME_files/`` with the
    page's style sheet, in the Downloads folder read."""
    place = into / "Downloads"
    place.mkdir(parents=True, exist_ok=True)
    stem = export.name.rpartition(".")[0]
    (place / export.name).write_bytes(files[""])
    (place / f"{stem}_files").mkdir()
    (place / f"{stem}_files" / "style.css").write_bytes(b"body { font-family: sans-serif }\n")
    return place


def _beside_a_note(export: Path, files: Files, into: Path) -> Path:
    """The export in a folder the person made for the move, beside a note of their own and a photo."""
    place = into / "for the new laptop"
    _write(export, files, place)
    (place / "notes.txt").write_bytes(b"Remember: move the photos too, and the passwords.\n")
    (place / "IMG_0001.jpg").write_bytes(b"\xff\xd8\xff\xe0" + bytes(64))
    return place


def _tabs_expanded(name: str, text: str) -> bytes | None:
    """An editor set to turn tabs into spaces on save (tab stops of 8)."""
    if not _plain_text(name) or "\t" not in text:
        return None
    return "\n".join(line.expandtabs(8) for line in text.split("\n")).encode()


def _held_out_16(export: Path) -> Iterator[Unseen | None]:
    kind = "held-out-16"
    single = "" in _files(export)
    for how, pack in (
        ("Finder: the export compressed alone (NAME.txt.zip, __MACOSX)", _finder_alone),
        ("zipped from the home folder (home/maya/Downloads/...)", _from_home),
        ("gzip of the file (NAME.txt.gz), or the folder as .tar.xz", _gzipped),
    ):
        yield _unseen(_variant(export, kind, how, lambda f: f, pack=pack))
    if not single:
        yield _unseen(
            _variant(
                export,
                kind,
                "Explorer: Thumbs.db, desktop.ini, back slashes",
                lambda f: f,
                pack=_explorer_extras,
            )
        )
    for how, rename in (
        ("a mail client kept the attachment's encoded name (=?utf-8?q?...?=)", _encoded_word),
        ("Windows' copy: NAME - Copy.ext", _copy_windows),
        ("macOS's duplicate: NAME copy.ext", _copy_macos),
        ("the extension dropped", _without_extension),
        ("an extension added (.txt)", lambda n: n + ".txt"),
    ):
        if rename(export.name) != export.name and (single or not export.is_dir() or "extension" not in how):
            yield _unseen(_variant(export, kind, how, lambda f: f, pack=_shared_as(rename)))
    for how, date, sep in (
        ("Excel (Dutch): d-m-yyyy h:mm:ss", _DUTCH, ","),
        ("LibreOffice (French): dd/mm/yyyy hh:mm:ss, separated by ;", _FRENCH, ";"),
    ):
        cell = lambda c, d=date: _EXCEL_DATE.sub(d, c) if _EXCEL_DATE.fullmatch(c) else c  # noqa: E731
        yield _unseen(_variant(export, kind, how, _each_text(export, _sheet(cell, delimiter=sep))))
    yield _unseen(
        _variant(
            export, kind, "XML: a style sheet instruction, a comment, tabs", _each_text(export, _stylesheet)
        )
    )
    if single and export.name.lower().endswith((".html", ".htm")):
        yield _unseen(
            _variant(
                export, kind, "Chrome: Webpage, complete (NAME_files/)", lambda f: f, pack=_webpage_complete
            )
        )
    yield _unseen(
        _variant(export, kind, "an editor expands tabs to spaces", _each_text(export, _tabs_expanded)),
        may_refuse=True,
    )
    yield _unseen(
        _variant(export, kind, "in a folder beside a note and a photo", lambda f: f, pack=_beside_a_note)
    )


@cache
def held_out_16() -> tuple[Unseen, ...]:
    """Session 16's held-out family (not in ``variants``: measured apart, once before any fix)."""
    return tuple(u for export in with_messages() for u in _held_out_16(export) if u is not None)


# --- held out after session 16's fixes -----------------------------------------------------------------------
# Written after the fixes above were made on ``held_out_16`` and measured once (RESULTS, session 16): the same
# kinds of thing done by other tools and in other words, and a few kinds not seen at all, to tell how the
# fixes carry: a mail's name in base64 or as RFC 2231 writes it, Dropbox's and OneDrive's conflicted copies,
# Finder's "Keep both", a copy's mark in French and Spanish, bzip2 alone and a zip gzipped, a drive's download
# and volumes in three pieces, Finder's "Archive.zip", Excel's dates in Polish and Swedish.


def _single_compressed(export: Path, files: Files, into: Path) -> Path:
    """A single file as ``bzip2`` leaves it (``NAME.txt.bz2``); a zip export gzipped (``NAME.zip.gz``); a
    folder as ``tar -cjf NAME.tar.bz2``."""
    import bz2

    into.mkdir(parents=True, exist_ok=True)
    if "" in files:
        target = into / f"{export.name}.bz2"
        target.write_bytes(bz2.compress(files[""]))
        return target
    if not export.is_dir():
        target = into / f"{export.name}.gz"
        target.write_bytes(__import__("gzip").compress(export.read_bytes(), mtime=0))
        return target
    return tarred(_as_it_was(export)("", files), into / f"{_stem(export)}.tar.bz2")


def _finder_archive(export: Path, files: Files, into: Path) -> Path:
    """Finder's "Compress" of a file and a note selected together: ``Archive.zip``."""
    entries = rv_macos({**_as_it_was(export)("", files), "notes.txt": b"move the photos too\n"})
    return _zip({n: d for n, d in entries.items() if not n.endswith(".DS_Store")}, into / "Archive.zip")


def _base64_word(name: str) -> str:
    import base64

    return f"=?UTF-8?B?{base64.b64encode(name.encode()).decode()}?="


def _rfc2231(name: str) -> str:
    """A name as RFC 2231 writes a parameter a mail client saved undecoded (``filename*=``)."""
    import urllib.parse

    return "utf-8''" + urllib.parse.quote(name)


def _with(mark: str) -> Callable[[str], str]:
    def rename(name: str) -> str:
        stem, dot, ext = name.rpartition(".")
        return f"{stem}{mark}.{ext}" if dot else f"{name}{mark}"

    return rename


_POLISH = lambda m: f"{m[3]}.{m[2]}.{m[1]} {m[4]}:{m[5]}:{m[6]}"  # noqa: E731
_SWEDISH = lambda m: f"{m[1]}-{m[2]}-{m[3]} {m[4]}:{m[5]}"  # noqa: E731


def _held_out_16b(export: Path) -> Iterator[Unseen | None]:
    kind = "held-out-16b"
    single = "" in _files(export)
    for how, pack in (
        ("bzip2 alone (NAME.txt.bz2), a zip gzipped, a folder as .tar.bz2", _single_compressed),
        ("7-Zip volumes in three pieces", functools.partial(_volumes, count=3)),
    ):
        yield _unseen(_variant(export, kind, how, lambda f: f, pack=pack))
    if len(_files(export)) >= 3 or export.is_dir():
        yield _unseen(
            _variant(
                export,
                kind,
                "a drive's download in three parts",
                lambda f: f,
                pack=functools.partial(_in_parts, count=3, stamp="20261105T093000Z"),
            )
        )
    if single:
        yield _unseen(
            _variant(
                export, kind, "Finder: Archive.zip of the file and a note", lambda f: f, pack=_finder_archive
            )
        )
    for how, rename in (
        ("a mail's name in base64 (=?UTF-8?B?...?=)", _base64_word),
        ("a mail's name as RFC 2231 writes it (utf-8''...)", _rfc2231),
        ("Dropbox: a conflicted copy", _with(" (Maya's conflicted copy 2026-10-05)")),
        ("OneDrive: a copy named after the computer", _with("-DESKTOP-4F2K9QL")),
        ("Finder's Keep both: NAME 2.ext", _with(" 2")),
        ("Windows in French: NAME - Copie.ext", _with(" - Copie")),
        ("macOS in Spanish: NAME copia 2.ext", _with(" copia 2")),
    ):
        if rename(export.name) != export.name:
            yield _unseen(_variant(export, kind, how, lambda f: f, pack=_shared_as(rename)))
    for how, date in (
        ("Excel (Polish): dd.mm.yyyy hh:mm:ss", _POLISH),
        ("Excel (Swedish): yyyy-mm-dd hh:mm", _SWEDISH),
    ):
        cell = lambda c, d=date: _EXCEL_DATE.sub(d, c) if _EXCEL_DATE.fullmatch(c) else c  # noqa: E731
        minute = _minute if date is _SWEDISH else None
        yield _unseen(_variant(export, kind, how, _each_text(export, _sheet(cell))), when=minute)


@cache
def held_out_16b() -> tuple[Unseen, ...]:
    """Held out after session 16's fixes: measured once, not tuned on."""
    return tuple(u for export in with_messages() for u in _held_out_16b(export) if u is not None)
