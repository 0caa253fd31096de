"""Issue 26 item 2 (an import's memory whatever the messages' shape), the shapes session 17 measured: an
unzipped Slack channel is fingerprinted by its day files' bytes, hashed as they are read, not held
(``container.prefix_fingerprints``); the digests are those the files' bytes held whole gave."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_memory_formats import _text, slack_export

from refind_cli.importers import container

_PARTS = st.lists(st.binary(max_size=40), max_size=4)


@settings(max_examples=200, deadline=None)
@given(
    head=_PARTS,
    items=st.lists(_PARTS, max_size=12),
    batch=st.integers(1, 64),
    wanted=st.sets(st.integers(0, 13)),
)
def test_prefix_fingerprints_are_the_fingerprints_of_the_prefixes(
    head: list[bytes], items: list[list[bytes]], batch: int, wanted: set[int]
) -> None:
    """Whatever the batch the parts are hashed in, each prefix asked for (and no other) has the
    ``fingerprint`` of its parts, as hashing the prefix's bytes framed whole gave."""
    old = container.PREFIX_BATCH
    container.PREFIX_BATCH = batch
    try:
        found = container.prefix_fingerprints(head, iter(items), wanted)
    finally:
        container.PREFIX_BATCH = old
    assert found == {
        n: container.fingerprint([*head, *itertools.chain.from_iterable(items[:n])])
        for n in wanted
        if n <= len(items)
    }


# A reading of a Slack folder in a process of its own, its Python memory's peak (``tracemalloc``) printed: the
# spool holds 500 messages (a real one 20,000), merges 4 runs in 8 KB slices, and the day files' bytes are
# hashed 8 KB at a time.
_READ = textwrap.dedent(
    """
    import sys, tracemalloc
    from datetime import UTC
    from pathlib import Path
    from refind_cli.importers import container, slack, spool

    spool.HELD, spool.FAN_IN, spool.SLICE_BYTES, container.PREFIX_BATCH = 500, 4, 8 << 10, 8 << 10
    tracemalloc.start()
    chats = slack.read(Path(sys.argv[1]), tz=UTC)
    count = sum(1 for chat in chats for _ in chat.messages)
    print(count, tracemalloc.get_traced_memory()[1])
    """
)


def _peak(folder: Path) -> tuple[int, int]:
    done = subprocess.run(
        [sys.executable, "-c", _READ, str(folder)], capture_output=True, text=True, check=True, timeout=300
    )
    count, peak = done.stdout.split()
    return int(count), int(peak)


def _long(i: int) -> str:
    """A message of about a KB: the day files' bytes, which the fingerprint held, outweigh the rest."""
    return " ".join(itertools.repeat(_text(i), 24))


def test_an_unzipped_slack_channel_is_read_without_holding_its_files(tmp_path: Path) -> None:
    """A channel of 16,000 messages of a KB (16 MB of day files) peaks at little more than one of 1,000 (less
    than two and a half times it and a MiB), where holding its day files' bytes for its fingerprint took
    more than 16 MB."""
    small = slack_export(tmp_path / "small", 1_000, text=_long)
    large = slack_export(tmp_path / "large", 16_000, text=_long)
    (small_count, small_peak), (large_count, large_peak) = _peak(small), _peak(large)
    assert (small_count, large_count) == (1_000, 16_000)
    assert large_peak < 2.5 * small_peak + (1 << 20), (small_peak, large_peak)
