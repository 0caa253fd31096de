"""A zip on disk is not asked about by a format none of whose file names it holds (``Importer.zipped``): the
table passes over only zips the format's sniff would refuse, whatever other tools called the files (upper
case, copy marks, a folder above them, names in other scripts), so detection says what it said before."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import SAMPLES

from refind_cli import importers
from refind_cli.importers import container

ZIPPING = [name for name in importers.names() if "zip" in importers.get(name).takes]


def _files(sample: Path) -> dict[str, bytes]:
    """A sample export's files by the names a zip of it holds (a zip's own entries, a folder's below its
    name, a file's its name)."""
    if sample.is_dir():
        return {
            str(f.relative_to(sample.parent)): f.read_bytes()
            for f in sorted(sample.rglob("*"))
            if f.is_file()
        }
    if zipfile.is_zipfile(sample):
        with zipfile.ZipFile(sample) as zf:
            return {i.filename: zf.read(i) for i in zf.infolist() if not i.is_dir()}
    return {sample.name: sample.read_bytes()}


def _marked(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem} (1).{ext}" if dot and "/" not in ext else f"{name} (1)"


# How other tools rename what they pack (the rewrite tests' renames, and more).
RENAMES = {
    "as made": lambda n: n,
    "upper case": str.upper,
    "lower case": str.lower,
    "copy marks": _marked,
    "a folder above": lambda n: f"Export 2026/{n}",
    "a folder in Cyrillic above": lambda n: f"Экспорт/{n}",
    "names in Turkish case": lambda n: n.replace("i", "İ").replace("s", "ſ"),
}
SAMPLED = sorted(p for p in SAMPLES.iterdir() if not p.name.endswith((".py", ".md")))


def _zips(tmp_path: Path) -> Iterator[Path]:
    for sample in SAMPLED:
        files = _files(sample)
        for how, rename in RENAMES.items():
            path = tmp_path / f"{sample.name} {how}.zip"
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
                for name, data in files.items():
                    zf.writestr(rename(name), data)
            yield path


def test_every_format_says_of_every_renamed_sample_zip_what_its_own_sniff_says(tmp_path: Path) -> None:
    passed_over = 0
    accepted = 0
    for path in _zips(tmp_path):
        for name in ZIPPING:
            importer = importers.get(name)
            own = bool(importer.load().sniff(path))
            assert importer.sniff(path) == own, (name, path.name)
            passed_over += not container.may_hold(path, importer.zipped)
            accepted += own
    # The table does pass over most formats of each zip, and the samples are recognised in their renames.
    assert passed_over > len(ZIPPING) * len(SAMPLED) * len(RENAMES) // 2
    assert accepted >= len(SAMPLED)


def test_a_slack_zip_imports_no_module_of_a_format_whose_files_it_does_not_hold(tmp_path: Path) -> None:
    archive = tmp_path / "slack.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in _files(SAMPLES / "slack-export-acme").items():
            zf.writestr(name.split("/", 1)[1], data)
    script = (
        "import sys; from pathlib import Path; from refind_cli import importers; "
        f"p = Path({str(archive)!r}); print(importers.detect(p), list(importers.exports_in(p)) == [p]); "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('refind_cli.importers.'))))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    found, modules = out.splitlines()
    assert found == "slack True"
    loaded = set(modules.split())
    assert "refind_cli.importers.slack" in loaded
    unasked = (
        "whatsapp",
        "chatgpt",
        "claude",
        "hangouts",
        "grok",
        "teams",
        "kakaotalk",
        "google_chat",
        "meta",
    )
    assert not loaded & {f"refind_cli.importers.{m}" for m in unasked}


def test_a_format_is_asked_about_a_zip_whose_names_hold_its_words_in_any_case(tmp_path: Path) -> None:
    chat = (SAMPLES / "WhatsApp Chat with Jonas Becker.txt").read_bytes()
    for name in ("_chat.txt", "_CHAT.TXT", "Chats/WhatsApp Chat - Jonas.Txt"):
        path = tmp_path / f"{len(name)}-{name.replace('/', '_')}.zip"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr(name, chat)
        assert importers.detect(path) == "whatsapp", name
    renamed = tmp_path / "renamed.zip"
    with zipfile.ZipFile(renamed, "w") as zf:
        zf.writestr("chat.log", chat)  # no .txt: WhatsApp's sniff takes none, nor does the table ask it
    assert not importers.get("whatsapp").load().sniff(renamed)
    assert not importers.get("whatsapp").sniff(renamed)


_NAME = st.text(alphabet="abcsiIKkxyz._- 0123ſİıKé/", min_size=1, max_size=12).filter(
    lambda n: not n.endswith("/") and not n.startswith("/") and "//" not in n
)


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(_NAME, min_size=1, max_size=6, unique=True),
    words=st.lists(st.text(alphabet="abcsikxyz._-", min_size=1, max_size=4), min_size=1, max_size=3),
)
def test_may_hold_is_false_only_where_no_file_name_holds_a_word_in_any_case(
    tmp_path_factory: pytest.TempPathFactory, names: list[str], words: list[str]
) -> None:
    path = tmp_path_factory.mktemp("zips") / "any.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for name in names:
            zf.writestr(name, b"x")
    with container.open_zip(path) as zf:
        listed = container.member_names(zf)
    held = any(re.search(re.escape(w), n, re.IGNORECASE) for n in listed for w in words)
    answer = container.may_hold(path, words)
    if held:
        assert answer
    if all(n.isascii() for n in listed) and not held:
        assert not answer  # where every name is ASCII, the table does pass over
