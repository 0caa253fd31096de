import codecs
import zipfile
from pathlib import Path

import pytest

from refind_cli.errors import InputError
from refind_cli.importers import container


def make_zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def test_member_names_skip_folders_and_macos_forks(tmp_path: Path):
    zf = container.open_zip(
        make_zip(
            tmp_path / "a.zip", {"__MACOSX/._chat.txt": b"x", "dir/._x": b"x", "_chat.txt": b"hi", "d/": b""}
        )
    )
    assert container.member_names(zf) == ["_chat.txt"]


def test_declared_size_beyond_the_limit_is_refused(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(container, "MAX_MEMBER_BYTES", 1000)
    path = make_zip(tmp_path / "a.zip", {"_chat.txt": b"a" * 2000})
    with pytest.raises(InputError, match="zip bomb") as exc:
        container.open_zip(path)
    assert str(exc.value).startswith(f"{path}: entry '_chat.txt'")


def test_member_expanding_far_beyond_its_compressed_size_is_stopped(tmp_path: Path, monkeypatch):
    # What a zip declares is not trusted: the ratio check runs on the bytes actually produced.
    monkeypatch.setattr(container, "RATIO_FLOOR_BYTES", 1 << 20)
    monkeypatch.setattr(container, "CHUNK", 1 << 16)
    path = make_zip(tmp_path / "a.zip", {"_chat.txt": b"\0" * (8 << 20)})
    zf = container.open_zip(path)
    with pytest.raises(InputError, match="zip bomb"):
        container.read_member(zf, "_chat.txt", path)


def test_not_a_zip(tmp_path: Path):
    path = tmp_path / "x.zip"
    path.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(InputError, match="not a readable zip"):
        container.open_zip(path)


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (codecs.BOM_UTF8 + "héllo".encode(), "héllo"),
        ("héllo".encode("utf-16"), "héllo"),
        (codecs.BOM_UTF16_BE + "héllo".encode("utf-16-be"), "héllo"),
        (b"plain", "plain"),
    ],
)
def test_decode_text(data: bytes, text: str):
    assert container.decode_text(data, "f.txt") == text


def test_invalid_utf8_names_the_line():
    with pytest.raises(InputError) as exc:
        container.decode_text(b"ok\nstill ok\nbad \xff here\n", "f.txt", "entry '_chat.txt'")
    assert str(exc.value) == "f.txt: entry '_chat.txt', line 3: invalid UTF-8 (byte 0xff); not a text export"
