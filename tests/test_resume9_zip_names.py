"""A large zip's names looked at once (issue 26 item 1, session 14): the searches that stand for walks of
every name find what the walks found; a Slack channel's digests of its first days are the fingerprints of
those days."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.importers import container, detect, exports_in, slack
from refind_cli.importers.container import MAX_FOLDERS, fingerprint

# Names of the shapes the sniffs look for, their look-alikes, and the odd ones a hostile zip holds.
NAMES = [
    "WhatsApp Chat with Ann.txt",
    "media/IMG-0001.jpg",
    "export/notes.TXT",
    "messages/inbox/ann_1/message_1.json",
    "messages/inbox/ann_1/message_1 (2).json",
    "messages/inbox/ann_1/message_x.json",
    "Takeout/Gemini Apps/MyActivity.json",
    "Takeout/My Activity/Bard/MyActivity.html",
    "Takeout/Google Chat/Groups/DM 1/messages.json",
    "Takeout/Google Chat/Groups/DM 1/Messages.json",
    "package/messages/index.json",
    "package/messages/c123/messages.csv",
    "teams/t1/messages_2024.JSON",
    "users/u1/messages_.json",
    "a/b/conversations.json",
    "conversations.json",
    "general/2024-01-02.json",
    "line\nbreak.txt",
]

# The patterns the importers give ``files_matching``, each beside the walk it stands for.
WALKS = [
    (r".*\.txt", re.IGNORECASE, lambda n: n.lower().endswith(".txt")),
    (
        r"(?:.*/)?message_(\d{1,9})(?: \((\d{1,9})\))?\.json",
        0,
        lambda n: re.fullmatch(r"message_(\d{1,9})(?: \((\d{1,9})\))?\.json", n.rsplit("/", 1)[-1]),
    ),
    (
        "(?:.*/)?[^/\n]*(?:gemini|bard)[^/\n]*/[^/\n]*\\.(?:json|html)",
        re.IGNORECASE,
        lambda n: (
            "/" in n
            and re.search("gemini|bard", n.rsplit("/", 2)[-2], re.I)
            and n.lower().endswith((".json", ".html"))
        ),
    ),
    (r"(?:.*/)?messages\.json", 0, lambda n: n.rsplit("/", 1)[-1] == "messages.json"),
    (r"(?:.*/)?index\.json", re.IGNORECASE, lambda n: n.rsplit("/", 1)[-1].lower() == "index.json"),
    (
        r"(?:.*/)?messages_[^/\n]*\.json",
        re.IGNORECASE,
        lambda n: n.rsplit("/", 1)[-1].lower().startswith("messages_") and n.lower().endswith(".json"),
    ),
    (r"(?:.*/)?conversations\.json", 0, lambda n: n.rsplit("/", 1)[-1] == "conversations.json"),
]


def zip_of(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name in names:
            zf.writestr(name, b"{}")
    return path


@pytest.mark.parametrize("with_line_break", [False, True])
def test_files_matching_finds_what_a_walk_of_every_name_finds(tmp_path: Path, with_line_break: bool) -> None:
    names = NAMES if with_line_break else [n for n in NAMES if "\n" not in n]
    archive = zip_of(tmp_path / "x.zip", names)
    with container.open_zip(archive) as zf:
        every = container.member_names(zf)
        for pattern, flags, walk in WALKS:
            found = container.files_matching(zf, pattern, flags)
            assert found == [n for n in every if walk(n)], pattern
            assert found, pattern  # each pattern finds something here


def test_shallowest_takes_the_name_whole(tmp_path: Path) -> None:
    archive = zip_of(
        tmp_path / "x.zip", ["b/result.json", "result.json.bak", "xresult.json", "a/b/result.json"]
    )
    with container.open_zip(archive) as zf:
        assert container.shallowest(zf, "result.json") == "b/result.json"
        assert container.shallowest(zf, "esult.json") is None


@given(st.lists(st.sampled_from(["a", "/", ".", "..", "\\", "._x", "__MACOSX", "b.json", "é"]), max_size=12))
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_a_member_name_is_normalised_as_before(pieces: list[str]) -> None:
    name = "".join(pieces)
    assert container._member_name(name) == container._normalised(name)


def test_a_name_nested_past_the_limit_is_passed_over() -> None:
    deep = "/".join(["d"] * MAX_FOLDERS + ["x.json"])
    assert container._member_name(deep) is None
    assert container._member_name("/".join(["d"] * (MAX_FOLDERS - 1) + ["x.json"])) is not None


def slack_files(channels: dict[str, list[str]]) -> dict[str, bytes]:
    files = {
        "users.json": json.dumps([{"id": "U1", "name": "ann"}]).encode(),
        "channels.json": json.dumps([{"id": f"C{n}", "name": c} for n, c in enumerate(channels)]).encode(),
    }
    for channel, days in channels.items():
        for n, day in enumerate(days):
            message = {
                "type": "message",
                "user": "U1",
                "text": f"{channel} {day}",
                "ts": f"{1704067200 + n}.000100",
            }
            files[f"{channel}/{day}.json"] = json.dumps([message]).encode()
    return files


@pytest.mark.parametrize("prefix", ["", "Acme Slack export/"])
def test_a_zipped_slack_export_is_one_export_below_its_folder(tmp_path: Path, prefix: str) -> None:
    files = slack_files({"general": ["2024-01-01", "2024-01-02"], "random": ["2024-01-03"]})
    archive = tmp_path / "Acme Slack export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in files.items():
            zf.writestr(prefix + name, data)
    assert detect(archive) == "slack"
    assert list(exports_in(archive)) == [archive]


def test_a_zip_of_two_folders_sharing_the_start_of_their_names_is_walked(tmp_path: Path) -> None:
    """The folder every name lies below is a whole folder: "chat/" and "chat 2/" share "chat", no folder
    (each chat is an export, as main found before the top was taken from the first and last names)."""
    archive = tmp_path / "exports.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(
            "chat/WhatsApp Chat with Ann.txt", "01/02/2024, 10:00 - Ann: hi\n01/02/2024, 10:01 - Bo: yo\n"
        )
        zf.writestr(
            "chat 2/WhatsApp Chat with Bo.txt", "01/02/2024, 11:00 - Bo: hi\n01/02/2024, 11:01 - Ann: yo\n"
        )
    found = list(exports_in(archive))
    assert found == [
        archive / "chat/WhatsApp Chat with Ann.txt",
        archive / "chat 2/WhatsApp Chat with Bo.txt",
    ]


@pytest.mark.parametrize("layout", ["zip", "folder"])
def test_a_channels_digest_of_its_first_days_is_their_fingerprint(tmp_path: Path, layout: str) -> None:
    days = ["2024-01-01.json", "2024-01-02.json", "2024-01-05.json"]
    files = slack_files({"general": [d.removesuffix(".json") for d in days]})
    if layout == "zip":
        path = tmp_path / "x.zip"
        with zipfile.ZipFile(path, "w") as zf:
            for name, data in files.items():
                zf.writestr(name, data)
        opened = container.open_zip(path)
        tree = slack._zip_tree(path, opened)
    else:
        path = tmp_path / "x"
        for name, data in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
        tree = slack._folder_tree(path)
    context = [b"names", b"slack", b"key"]
    # Earlier readings' points at every count of days: the digests a reading computes are those points ask for.
    tag = fingerprint(context)[:16]
    points = {tag: [slack._Point(tag, n, (0, 0), 0, "", "") for n in range(len(days) + 1)]}
    channel = slack._Channel(tree, "general", days, slack._directory(tree), context, None, points)  # type: ignore[arg-type]
    for n in range(len(days) + 1):
        parts = [part for day in days[:n] for part in (day.encode(), tree.stamp(f"general/{day}"))]
        assert channel.digest(n) == fingerprint([*context, *parts])
