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
        container.decode_text(b"ok\nstill ok \xc3\xa9\nbad \xff here\n", "f.txt", "entry '_chat.txt'")
    assert str(exc.value) == "f.txt: entry '_chat.txt', line 3: invalid UTF-8 (byte 0xff); not a text export"


# --- text encodings ----------------------------------------------------------------------------------

TEXT = '{"name": "Jörg 李", "text": "hi"}\n'


@pytest.mark.parametrize(
    ("data", "codec"),
    [
        (TEXT.encode(), "utf-8"),
        (codecs.BOM_UTF8 + TEXT.encode(), "utf-8"),
        (TEXT.encode("utf-16"), "utf-16-le"),  # Python writes the machine's order with a BOM
        (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16-be"),
        (TEXT.encode("utf-16-le"), "utf-16-le"),
        (TEXT.encode("utf-16-be"), "utf-16-be"),
        (TEXT.encode("utf-32"), "utf-32-le"),
        (TEXT.encode("utf-32-be"), "utf-32-be"),
        (TEXT.encode("utf-32-le"), "utf-32-le"),
        (bytes(range(256)) * 8, "utf-8"),  # a few NULs in binary junk are not UTF-16
    ],
)
def test_text_encoding_by_bom_or_by_nul_bytes(data: bytes, codec: str):
    assert container.text_encoding(data).codec == codec
    if codec != "utf-8" or data.isascii() or data.startswith(codecs.BOM_UTF8):
        assert container.decode_text(data, "f.json") == TEXT
        assert b"".join(container.utf8_chunks(_split(data, 7), _error)) == TEXT.encode()
        assert container.utf8_head(data[:21]) == TEXT.encode()[: len(container.utf8_head(data[:21]))]


def _split(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _error(what: str, where: str | None) -> InputError:
    return InputError("f.json", what, where)


def test_invalid_utf16_names_the_byte():
    data = codecs.BOM_UTF16_LE + "ok".encode("utf-16-le") + b"\x00\xdc" + "x".encode("utf-16-le")
    with pytest.raises(InputError, match=r"invalid UTF-16; not a text export") as exc:
        list(container.utf8_chunks([data], _error))
    assert "byte 6" in str(exc.value)


# --- files inside archives ---------------------------------------------------------------------------


def make_tar(path: Path, entries: dict[str, bytes], mode: str = "w:gz") -> Path:
    import io
    import tarfile

    with tarfile.open(path, mode) as tf:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("kind", ["zip", "tgz", "tar"])
def test_a_path_inside_an_archive_reads_like_a_file(tmp_path: Path, kind: str):
    entries = {"./Takeout/chat.txt": b"hello\nworld\n", "other.txt": b"x"}
    if kind == "zip":
        archive = make_zip(tmp_path / "a.zip", entries)
    else:
        archive = make_tar(tmp_path / f"a.{kind}", entries, "w:gz" if kind == "tgz" else "w")
    member = archive / "Takeout" / "chat.txt"
    assert container.member_of(member) == (archive, "Takeout/chat.txt")
    assert container.member_of(archive) is None and container.member_of(tmp_path / "nowhere" / "x") is None
    assert container.is_file(member) and not container.is_file(archive / "missing.txt")
    assert container.file_size(member) == 12
    assert container.read_file(member) == b"hello\nworld\n"
    assert container.read_file_part(member, 6, 3) == b"wor"
    assert [e.name for e in container.archive_files(archive)] == ["Takeout/chat.txt", "other.txt"]
    with pytest.raises(InputError, match="no such file in the archive") as exc:
        container.read_file(archive / "missing.txt")
    assert str(exc.value).startswith(f"{archive / 'missing.txt'}: ")


def test_a_tar_lists_no_links_devices_or_names_that_climb_out(tmp_path: Path):
    import io
    import tarfile

    path = tmp_path / "a.tar"
    with tarfile.open(path, "w") as tf:
        for name, kind in (("link", tarfile.SYMTYPE), ("hard", tarfile.LNKTYPE), ("dev", tarfile.CHRTYPE)):
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = "/etc/passwd"
            tf.addfile(info)
        for name in ("../up.txt", "/abs.txt", "ok.txt"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tf.addfile(info, io.BytesIO(b"hi"))
    assert [e.name for e in container.archive_files(path)] == ["ok.txt"]
    assert not container.is_file(path / "link")
    with pytest.raises(InputError, match="no such file"):
        container.read_file(path / "link")


def test_a_tar_declaring_more_than_it_could_hold_is_refused_before_it_is_expanded(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setattr(container, "RATIO_FLOOR_BYTES", 1 << 16)
    path = make_tar(tmp_path / "bomb.tgz", {f"{n}.txt": b"\0" * (1 << 16) for n in range(40)})
    with pytest.raises(InputError, match="refusing a tar bomb"):
        container.archive_files(path)
    monkeypatch.setattr(container, "MAX_MEMBER_BYTES", 1000)
    big = make_tar(tmp_path / "big.tar", {"chat.txt": b"a" * 2000}, "w")
    with pytest.raises(InputError, match="possible tar bomb") as exc:
        container.archive_files(big)
    assert str(exc.value).startswith(f"{big}: entry 'chat.txt'")


def test_a_tar_of_too_many_entries_is_refused(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(container, "MAX_MEMBERS", 10)
    path = make_tar(tmp_path / "many.tar", {f"{n}.txt": b"" for n in range(11)}, "w")
    with pytest.raises(InputError, match="more than 10 entries"):
        container.archive_files(path)


def test_a_damaged_tgz_is_an_input_error(tmp_path: Path):
    import random

    noise = random.Random(7).randbytes(50_000)  # does not compress: the cut falls inside the member
    path = make_tar(tmp_path / "a.tgz", {"chat.txt": noise})
    path.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(InputError):
        container.read_file(path / "chat.txt")
