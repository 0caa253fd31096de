"""Export files -> archive: reading, identity, segmentation and the per-file transaction.

One file is one transaction: a file that fails to parse writes nothing (not even its ledger entry), and the
other files of the same command still import. Re-importing adds only messages whose identity is new
(refind_cli.storage.identity), then re-segments the chats that changed and rewrites only the sessions whose turns
actually differ (refind_cli.storage.sessions).

A large export is read in a worker process (parsing, identities, rows) while this process stores the rows
and plans the sessions: on two cores that took 40 % less time than doing both here (bench/RESULTS.md).

Modules: ``files`` (one export, its transaction), ``chats`` (one chat), ``rows`` (messages -> rows),
``ledger`` (the unchanged-content check), ``worker`` (the second process), ``progress``.
"""

from refind_cli.ingest.chats import import_chat
from refind_cli.ingest.files import import_file
from refind_cli.ingest.ledger import file_digest
from refind_cli.ingest.worker import serve_worker
from refind_cli.reports import ChatImportResult, FileImportResult
from refind_cli.storage.sessions import resegment_chat

__all__ = [
    "ChatImportResult",
    "FileImportResult",
    "file_digest",
    "import_chat",
    "import_file",
    "resegment_chat",
    "serve_worker",
]
