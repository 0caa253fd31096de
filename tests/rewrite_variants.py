"""The sample exports as tools and people rewrite them whole, keeping every field: a text file saved again in
another encoding or with other line ends, a JSON file re-serialised, a CSV re-saved by a spreadsheet, an XML
backup edited and saved again, an archive re-packed, a download renamed, two exports zipped together. Every
variant is made by rule from the files in ``sample_exports/`` (``tests/ablation_variants.py`` holds the
field-level ones and the machinery):

- ``encoding``: every text file of an export with a BOM added (or dropped), in UTF-16 LE or BE with a BOM,
  or in a Windows "ANSI" code page that holds all of its characters, where the format allows one (not JSON,
  which RFC 8259 holds to UTF-8; an XML or HTML declaration of its charset is rewritten to match).
- ``line-ends``: CR LF, a lone CR, or LF and CR LF mixed line by line.
- ``final-newline``: the last line end dropped, or doubled.
- ``json-resaved``: pretty-printed with four spaces or tabs, minified, every non-ASCII character escaped (or
  written raw where it was escaped), keys sorted, ``/`` escaped as PHP writes it.
- ``csv-resaved``: as Excel saves it in German (``;``, CR LF, BOM), as LibreOffice does (every field quoted),
  tab-separated, as Excel's plain "CSV" in the machine's ANSI code page.
- ``xml-saved``: a backup re-serialised by ElementTree, its attributes reversed, quoted with ``'``, every
  non-ASCII character as a reference; and each attribute of each element removed or set to "null" (as the
  app writes a field without value), told lossy as the JSON paths are.
- ``repacked``: a file or folder export zipped, or a zip export re-packed: stored, bzip2 or LZMA compression,
  under an extra top folder, with ``__MACOSX/``, ``._`` and ``.DS_Store`` entries, inside another zip, as a
  ``.tar.gz``, or unpacked to a folder.
- ``renamed``: a downloaded file renamed ``NAME (1).ext`` by a browser, read alone or from the folder it lies
  in.
- ``two-exports``: two exports of one format in one zip, each in its own folder: the other samples of the
  format where there are such, else the same export downloaded twice.

Each keeps what an import needs (except the XML fields removed), so each is held to the stricter rule
(``Variant.whole``): the same messages, in the same chats, with the same identities as the original (a
second import of either adds nothing), and at most one warning line more.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, Literal
from xml.etree import ElementTree as ET

from ablation_variants import (
    _SENDERISH,
    Files,
    Variant,
    _bears,
    _files,
    _load,
    _rows,
    bearers,
    exports,
    with_messages,
)

from refind_cli import importers
from refind_cli.importers import container

KINDS = (
    "encoding",
    "line-ends",
    "final-newline",
    "json-resaved",
    "csv-resaved",
    "xml-saved",
    "repacked",
    "renamed",
    "two-exports",
)
_TEXT = (".txt", ".csv", ".json", ".html", ".htm", ".xml", ".md")
# The code pages Windows writes as "ANSI" (Notepad, Excel's "CSV"), one per script: a file takes the first
# that holds every character of it.
_ANSI = ("cp1252", "cp1250", "cp1251", "cp1253", "cp1254", "cp1257", "cp932", "cp949", "cp936", "cp950")
# Where a file declares its own encoding: an XML declaration, an HTML meta charset.
_DECLARED = re.compile(r"""(?i)(encoding|charset)(\s*=\s*["']?)utf-8""")


def _texts(files: Files, export: Path) -> dict[str, str]:
    """The text files of an export, decoded (UTF-8, with or without a BOM)."""
    found = {}
    for member, data in files.items():
        if (member or export.name).lower().endswith(_TEXT):
            try:
                found[member] = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
    return found


def _each_text(export: Path, rewrite: Callable[[str, str], bytes | None]) -> Callable[[Files], Files]:
    """``rewrite(name, text)`` on every text file of an export (None: leave it as it is)."""

    def change(files: Files) -> Files:
        out = dict(files)
        for member, text in _texts(files, export).items():
            data = rewrite(member or export.name, text)
            if data is not None:
                out[member] = data
        return out

    return change


def _variant(
    export: Path, kind: str, place: str, change: Callable[[Files], Files], **more: Any
) -> Variant | None:
    """A variant that changes something (None where ``change`` leaves every file as it is)."""
    files = _files(export)
    if "pack" not in more and change(files) == files:
        return None
    fmt = importers.detect(export)
    return Variant(export.name, fmt, kind, place, frozenset(), change, whole=True, **more)


# --- text ------------------------------------------------------------------------------------------------


def _encoded(codec: str, bom: bytes) -> Callable[[str, str], bytes | None]:
    def rewrite(name: str, text: str) -> bytes | None:
        label = codec.upper().replace("-LE", "").replace("-BE", "")
        declared = _DECLARED.sub(r"\1\g<2>" + label, text.removeprefix("\ufeff"))
        try:
            return bom + declared.encode(codec)
        except UnicodeEncodeError:
            return None

    return rewrite


def _bom_toggled(name: str, text: str) -> bytes:
    return text[1:].encode() if text.startswith("\ufeff") else codecs.BOM_UTF8 + text.encode()


def _ansi(name: str, text: str) -> bytes | None:
    if name.lower().endswith(".json") or text.isascii():
        return None
    for codec in _ANSI:
        rewritten = _encoded(codec, b"")(name, text)
        if rewritten is not None:
            return rewritten
    return None


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _ended(end: str) -> Callable[[str, str], bytes]:
    return lambda name, text: end.join(_lines(text)).encode()


def _mixed(name: str, text: str) -> bytes:
    lines = _lines(text)
    return (
        "".join(line + ("\r\n" if n % 2 else "\n") for n, line in enumerate(lines[:-1])).encode()
        + lines[-1].encode()
    )


def _text_variants(export: Path) -> Iterator[Variant | None]:
    for how, rewrite in (
        ("BOM added or dropped", _bom_toggled),
        ("UTF-16 LE with BOM", _encoded("utf-16-le", codecs.BOM_UTF16_LE)),
        ("UTF-16 BE with BOM", _encoded("utf-16-be", codecs.BOM_UTF16_BE)),
        ("a Windows ANSI code page", _ansi),
    ):
        yield _variant(export, "encoding", how, _each_text(export, rewrite))
    for how, end in (("CR LF", "\r\n"), ("CR", "\r")):
        yield _variant(export, "line-ends", how, _each_text(export, _ended(end)))
    yield _variant(export, "line-ends", "LF and CR LF mixed", _each_text(export, _mixed))
    yield _variant(
        export, "final-newline", "dropped", _each_text(export, lambda n, t: t.rstrip("\r\n").encode())
    )
    yield _variant(
        export,
        "final-newline",
        "doubled",
        _each_text(export, lambda n, t: (t + ("\r\n" if t.endswith("\r\n") else "\n")).encode()),
    )


# --- JSON ------------------------------------------------------------------------------------------------


def json_rewrite(make: Callable[[Any], bytes]) -> Callable[[str, str], bytes | None]:
    """``make(value)`` written in place of every JSON file of an export (its value, parsed)."""

    def rewrite(name: str, text: str) -> bytes | None:
        if not name.lower().endswith(".json"):
            return None
        try:
            value = _load(text.encode())
        except ValueError:
            return None
        return make(value)

    return rewrite


def _json(**options: Any) -> Callable[[str, str], bytes | None]:
    slashes = options.pop("slashes", False)

    def make(value: Any) -> bytes:
        out = json.dumps(value, **options)
        return (out.replace("/", "\\/") if slashes else out).encode()

    return json_rewrite(make)


def _json_variants(export: Path) -> Iterator[Variant | None]:
    escaped = any("\\u" in t for n, t in _texts(_files(export), export).items() if n.endswith(".json"))
    for how, rewrite in (
        ("indented by 4", _json(ensure_ascii=False, indent=4)),
        ("indented by tabs", _json(ensure_ascii=False, indent="\t")),
        ("minified", _json(ensure_ascii=False, separators=(",", ":"))),
        ("non-ASCII raw" if escaped else "non-ASCII escaped", _json(ensure_ascii=not escaped, indent=1)),
        ("keys sorted", _json(ensure_ascii=False, indent=2, sort_keys=True)),
        ("/ escaped", _json(ensure_ascii=False, slashes=True)),
    ):
        yield _variant(export, "json-resaved", how, _each_text(export, rewrite))


# --- CSV -------------------------------------------------------------------------------------------------


def _spreadsheet(
    delimiter: str, end: str, quoting: Literal[0, 1, 2, 3], head: bytes, codec: str = "utf-8"
) -> Callable[[str, str], bytes | None]:
    def rewrite(name: str, text: str) -> bytes | None:
        if not name.lower().endswith(".csv"):
            return None
        out = io.StringIO(newline="")
        csv.writer(out, delimiter=delimiter, lineterminator=end, quoting=quoting).writerows(
            _rows(text.encode())
        )
        if codec == "ansi":
            return _ansi(name, out.getvalue())
        return head + out.getvalue().encode(codec)

    return rewrite


def _csv_variants(export: Path) -> Iterator[Variant | None]:
    for how, rewrite in (
        ("Excel, German", _spreadsheet(";", "\r\n", csv.QUOTE_MINIMAL, codecs.BOM_UTF8)),
        ("LibreOffice, every field quoted", _spreadsheet(",", "\n", csv.QUOTE_ALL, b"")),
        ("tab-separated", _spreadsheet("\t", "\r\n", csv.QUOTE_MINIMAL, b"")),
        ("Excel, ANSI", _spreadsheet(",", "\r\n", csv.QUOTE_MINIMAL, b"", "ansi")),
    ):
        yield _variant(export, "csv-resaved", how, _each_text(export, rewrite))


# --- XML -------------------------------------------------------------------------------------------------


def _tree(text: str) -> ET.Element:
    """A backup's tree. The app writes an emoji as two references to UTF-16 surrogates, which XML forbids: a
    tool that reads the file (as the importer does) joins them first."""
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True, insert_pis=True))
    parser.feed(_SURROGATES.sub(_joined, text.removeprefix("\ufeff")))
    return parser.close()


_SURROGATES = re.compile(r"&#(5[5-6]\d{3});&#(5[6-7]\d{3});")


def _joined(m: re.Match[str]) -> str:
    high, low = int(m.group(1)), int(m.group(2))
    return f"&#{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)};"


def _xml_out(root: ET.Element, *, ascii_only: bool = False, quote: str = '"') -> bytes:
    body = ET.tostring(root, encoding="us-ascii" if ascii_only else "unicode", xml_declaration=False)
    body = body.decode() if isinstance(body, bytes) else body
    if quote == "'":
        body = re.sub(
            r'(\s[\w:-]+)="([^"]*)"',
            lambda m: f"{m.group(1)}='{m.group(2).replace(chr(39), '&apos;')}'",
            body,
        )
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n" + body + "\n").encode()


def _xml(change: Callable[[ET.Element], None], **out: Any) -> Callable[[str, str], bytes | None]:
    def rewrite(name: str, text: str) -> bytes | None:
        if not name.lower().endswith(".xml"):
            return None
        root = _tree(text)
        change(root)
        return _xml_out(root, **out)

    return rewrite


def _every(op: Callable[[ET.Element], None]) -> Callable[[ET.Element], None]:
    def change(root: ET.Element) -> None:
        for element in root.iter():
            if isinstance(element.tag, str):
                op(element)

    return change


def _reverse_attributes(element: ET.Element) -> None:
    items = list(reversed(element.attrib.items()))
    element.attrib.clear()
    element.attrib.update(items)


def _attribute(path: str, name: str, op: Callable[[ET.Element, str], None]) -> Callable[[ET.Element], None]:
    def change(root: ET.Element) -> None:
        for at, element in _elements(root):
            if at == path and name in element.attrib:
                op(element, name)

    return change


def _elements(root: ET.Element) -> list[tuple[str, ET.Element]]:
    """Every element of a tree with its path of tags (``smses/mms/parts/part``)."""
    found = []

    def walk(element: ET.Element, path: str) -> None:
        if isinstance(element.tag, str):  # not a comment or an instruction
            found.append((path, element))
            for child in element:
                walk(child, f"{path}/{child.tag}")

    walk(root, str(root.tag))
    return found


def _xml_variants(export: Path) -> Iterator[Variant | None]:
    texts = {n: t for n, t in _texts(_files(export), export).items() if (n or export.name).endswith(".xml")}
    if not texts:
        return
    for how, rewrite in (
        ("ElementTree", _xml(lambda root: None)),
        ("attributes reversed", _xml(_every(_reverse_attributes))),
        ("quoted with '", _xml(lambda root: None, quote="'")),
        ("non-ASCII as references", _xml(lambda root: None, ascii_only=True)),
    ):
        yield _variant(export, "xml-saved", how, _each_text(export, rewrite))
    b = bearers(export)
    fmt = importers.detect(export)
    for member, text in texts.items():
        values: dict[tuple[str, str], list[str]] = {}
        for path, element in _elements(_tree(text)):
            for name, value in element.attrib.items():
                values.setdefault((path, name), []).append(value)
        for (path, name), found in values.items():
            bears = _bears(b, found)
            if _SENDERISH.search(name) or name == "address":
                bears.add("named")
            if name == "address":  # what a row's thread is told by
                bears.add("chat")
            for kind, op in (("removed", _drop_attribute), ("null", _null_attribute)):
                yield Variant(
                    export.name,
                    fmt,
                    kind,
                    f"{member or export.name}: {path}@{name}",
                    frozenset(bears),
                    _each_text(export, _xml(_attribute(path, name, op))),
                )


def _drop_attribute(element: ET.Element, name: str) -> None:
    del element.attrib[name]


def _null_attribute(element: ET.Element, name: str) -> None:
    element.attrib[name] = "null"


# --- packing ---------------------------------------------------------------------------------------------

Pack = Callable[[Path, Files, Path], Path]


def _zipped(
    entries: Callable[[str, Files], dict[str, bytes]], method: int = zipfile.ZIP_DEFLATED, name: str = ""
) -> Pack:
    """An export's files zipped as ``entries(stem, files)`` names them, under ``into``."""

    def pack(export: Path, files: Files, into: Path) -> Path:
        into.mkdir(parents=True, exist_ok=True)
        stem = _stem(export)
        target = into / (name or f"{stem}.zip")
        with zipfile.ZipFile(target, "w", method) as zf:
            for member, data in entries(stem, files).items():
                zf.writestr(member, data)
        return target

    return pack


def _stem(export: Path) -> str:
    return container.archive_stem(export.name) or export.name


def _named(export: Path, files: Files) -> dict[str, bytes]:
    """An export's files by the names a zip of it would give them: a single file by its own name."""
    return {(member or export.name): data for member, data in files.items()}


def _as_it_was(export: Path) -> Callable[[str, Files], dict[str, bytes]]:
    """The files as the export has them: a zip's names, a folder's below the folder's name (as Finder's or
    Explorer's "Compress" writes them), a single file at the top."""
    top = f"{export.name}/" if export.is_dir() else ""
    return lambda stem, files: {top + n: d for n, d in _named(export, files).items()}


def _macos(entries: dict[str, bytes]) -> dict[str, bytes]:
    """What macOS's "Compress" adds: a resource fork for each file under ``__MACOSX/``, and Finder's
    ``.DS_Store`` in each folder."""
    out = dict(entries)
    folders = {n.rsplit("/", 1)[0] + "/" if "/" in n else "" for n in entries}
    for folder in sorted(folders):
        out[f"{folder}.DS_Store"] = b"\x00\x00\x00\x01Bud1" + bytes(64)
    for name in entries:
        head, _, leaf = name.rpartition("/")
        out[f"__MACOSX/{head + '/' if head else ''}._{leaf}"] = b"\x00\x05\x16\x07" + bytes(80)
    return out


def _tgz(export: Path, files: Files, into: Path) -> Path:
    return tarred(_as_it_was(export)("", files), into / f"{_stem(export)}.tar.gz")


def tarred(entries: dict[str, bytes], target: Path) -> Path:
    """Entries in a tar, compressed as its name says (``.tar.gz``, ``.tar.xz``, ``.tar.bz2``)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = "w:" + target.name.rsplit(".", 1)[-1]  # "w:gz": a mode only the name tells, not a literal
    with tarfile.open(target, mode) as tf:  # type: ignore[call-overload]
        for member, data in entries.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return target


def _zip_in_zip(export: Path, files: Files, into: Path) -> Path:
    inner = _zipped(_as_it_was(export))(export, files, into / "inner")
    outer = into / f"{_stem(export)} (archived).zip"
    into.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(outer, "w", zipfile.ZIP_STORED) as zf:
        zf.write(inner, inner.name)
    return outer


def _unpacked(export: Path, files: Files, into: Path) -> Path:
    """A zip export unpacked to a folder named after it (Explorer's "Extract all"), or a folder export
    with Finder's ``.DS_Store`` files in it."""
    target = into / _stem(export)
    entries = _named(export, files) if not export.is_dir() else files
    for member, data in {**entries, ".DS_Store": b"\x00\x00\x00\x01Bud1" + bytes(64)}.items():
        (target / member).parent.mkdir(parents=True, exist_ok=True)
        (target / member).write_bytes(data)
    return target


def _repacked(export: Path) -> Iterator[Variant | None]:
    same = _as_it_was(export)
    packs: list[tuple[str, Pack]] = [
        ("zipped, stored", _zipped(same, zipfile.ZIP_STORED)),
        ("zipped, bzip2", _zipped(same, zipfile.ZIP_BZIP2)),
        ("zipped, LZMA", _zipped(same, zipfile.ZIP_LZMA)),
        ("under an extra top folder", _zipped(lambda s, f: {f"{s}/{n}": d for n, d in same(s, f).items()})),
        ("with macOS's __MACOSX and .DS_Store", _zipped(lambda s, f: _macos(same(s, f)))),
        ("inside another zip", _zip_in_zip),
        ("as a .tar.gz", _tgz),
    ]
    if export.is_dir() or len(_files(export)) > 1:
        packs.append(("unpacked to a folder" if not export.is_dir() else "with .DS_Store", _unpacked))
    for how, pack in packs:
        yield _variant(export, "repacked", how, lambda files: files, pack=pack)


def _renamed(export: Path) -> Iterator[Variant | None]:
    stem, dot, ext = export.name.rpartition(".")
    if export.is_dir() or not dot:
        stem, ext = export.name, ""

    def renamed(n: int, folder: bool) -> Pack:
        def pack(original: Path, files: Files, into: Path) -> Path:
            name = f"{stem} ({n}){'.' + ext if ext else ''}"
            place = into / "Downloads" if folder else into
            target = place / name
            if "" in files:
                place.mkdir(parents=True, exist_ok=True)
                target.write_bytes(files[""])
            elif original.is_dir():
                for member, data in files.items():
                    (target / member).parent.mkdir(parents=True, exist_ok=True)
                    (target / member).write_bytes(data)
            else:
                _zipped(lambda s, f: dict(f), name=name)(original, files, place)
            return place if folder else target

        return pack

    yield _variant(export, "renamed", f"{stem} (1)", lambda files: files, pack=renamed(1, False))
    yield _variant(export, "renamed", f"{stem} (2), in a folder", lambda files: files, pack=renamed(2, True))


@cache
def _by_format() -> dict[str, tuple[Path, ...]]:
    found: dict[str, list[Path]] = {}
    for export in exports():
        found.setdefault(importers.detect(export), []).append(export)
    return {fmt: tuple(paths) for fmt, paths in found.items()}


def _two(export: Path) -> Iterator[Variant | None]:
    """Two exports of the format in one zip: this one and the next sample of its format, or this one twice
    (downloaded twice: ``NAME`` and ``NAME (1)``)."""
    fmt = importers.detect(export)
    same = _by_format()[fmt]
    other = same[(same.index(export) + 1) % len(same)]
    folders = (export.name, other.name) if other != export else (export.name, f"{export.name} (1)")

    def pack(original: Path, files: Files, into: Path) -> Path:
        entries = {}
        for folder, source, its in ((folders[0], export, files), (folders[1], other, _files(other))):
            entries.update({f"{_stem(Path(folder))}/{n}": d for n, d in _named(source, its).items()})
        return _zipped(lambda s, f: entries, name="exports.zip")(original, files, into)

    yield _variant(
        export, "two-exports", f"with {other.name}", lambda files: files, pack=pack, copies=(other.name,)
    )


# --- all of them -----------------------------------------------------------------------------------------


@cache
def variants() -> tuple[Variant, ...]:
    makers = (_text_variants, _json_variants, _csv_variants, _xml_variants, _repacked, _renamed, _two)
    return tuple(v for export in with_messages() for make in makers for v in make(export) if v is not None)
