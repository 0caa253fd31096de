"""The home folder and what it holds: the archive (SQLite), message identity, sessions as stored, locks, erasure, health."""
