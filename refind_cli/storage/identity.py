"""Message identity: what makes two readings of an export the same message, so a re-import adds only what
is new and a forgotten message stays forgotten.

The source's own id where there is one. Otherwise a hash of what the file says: the wall-clock time as
written (WhatsApp's times have no offset, so the instant depends on the zone used to read the file, and the
identity must not), the sender and the text, and the occurrence among identical ones. Only a message with
neither an id nor a written time falls back to its instant.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from refind_cli.records import HeldText

# Duplicate identities are told apart by their order of occurrence; duplicates share a time, so only the
# counts of recent times are kept, which bounds memory on a million-message file.
RECENT_STAMPS = 256

# Archives before named migrations hashed the instant of every message without a source id; their
# forgotten entries are such hashes, and cannot be rewritten (no text is kept to hash again).
LEGACY_PREFIX = "h:"

# A longer text is hashed this many characters at a time: encoded whole with its header, a 50-MB message took
# two more copies of itself (100 MB).
_PIECE = 1 << 20
# Each hash starts as a copy of this one: blake2b's constructor reads its keyword arguments and sets up the
# state again, which cost a message half a microsecond more than the copy (the hash is the same).
_BLAKE2B = hashlib.blake2b(digest_size=10)


@dataclass
class Identity:
    """Identities of one chat's messages, in the order the export lists them. ``legacy``: the identity the
    archive used before named migrations (the instant, not the written time), to recognise old forgotten
    entries."""

    legacy: bool = False
    recent: dict[str, dict[str, int]] = field(default_factory=dict)  # insertion-ordered: oldest first

    def uid(
        self, source_id: str | None, local_time: str | None, ts: int, sender: str | None, text: str | HeldText
    ) -> str:
        # Once a message on the import's hot path (in the worker): the hash and two dict look-ups.
        if source_id is not None:
            return "id:" + source_id
        if local_time is None or self.legacy:
            prefix, when = LEGACY_PREFIX, str(ts)
        else:
            prefix, when = "w:", local_time
        if len(text) <= _PIECE and isinstance(text, str):
            h = _BLAKE2B.copy()
            h.update(f"{when}\x00{sender or ''}\x00{text}".encode())
            digest = h.hexdigest()
        else:
            digest = _digest_in_pieces(f"{when}\x00{sender or ''}\x00", text)
        recent = self.recent
        seen = recent.get(when)
        if seen is None:
            # The common case: a time not met yet, so the first occurrence.
            recent[when] = {digest: 1}
            if len(recent) > RECENT_STAMPS:
                del recent[next(iter(recent))]
            return prefix + digest
        n = seen.get(digest, 0)
        seen[digest] = n + 1
        return f"{prefix}{digest}:{n}" if n else prefix + digest


def _digest_in_pieces(head: str, text: str | HeldText) -> str:
    """The digest of ``head + text``, encoded a piece at a time (a text held in a file: read so)."""
    h = _BLAKE2B.copy()
    h.update(head.encode())
    if isinstance(text, HeldText):
        for piece in text.pieces():
            h.update(piece)
        return h.hexdigest()
    for start in range(0, len(text), _PIECE):
        h.update(text[start : start + _PIECE].encode())
    return h.hexdigest()


def chat_key(chat_uid: str) -> str:
    """What the archive keeps of a chat it forgot (its forgotten messages' ids, its ledger entries): a hash,
    since the chat's uid holds its name."""
    return "c:" + hashlib.blake2b(chat_uid.encode(), digest_size=16).hexdigest()


def path_key(path: str) -> str:
    """What the import ledger keeps of the path of an export whose chat was forgotten: a hash."""
    return "p:" + hashlib.blake2b(path.encode(), digest_size=16).hexdigest()
