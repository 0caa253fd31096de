"""The CRC-32 of joined bytes from the CRC-32s of their parts, as zlib's ``crc32_combine`` computes it (Python's
``zlib`` does not expose it): a zip's central directory holds each member's CRC-32, so a member whose first
bytes were read can be shown to end as an earlier member did (the CRC-32 of those earlier bytes kept) without
inflating the rest. Arithmetic on CRC-32s is multiplication of polynomials over GF(2) modulo the CRC's
polynomial, bits reflected as zlib keeps them (zlib's ``crc32.c``: ``multmodp``, ``x2nmodp``)."""

from __future__ import annotations

import zlib
from pathlib import Path

_POLYNOMIAL = 0xEDB88320  # x^32 + x^26 + ... + 1, reflected


def _times(a: int, b: int) -> int:
    """``a`` times ``b`` modulo the polynomial."""
    product, bit = 0, 1 << 31
    while a:
        if a & bit:
            product ^= b
            a ^= bit
        bit >>= 1
        b = (b >> 1) ^ _POLYNOMIAL if b & 1 else b >> 1
    return product


def _powers() -> list[int]:
    """x to the power 2**k, for k below 32 (x**1 is the bit 1 << 30)."""
    found = [1 << 30]
    for _ in range(31):
        found.append(_times(found[-1], found[-1]))
    return found


_X_2N = _powers()


def _shift(length: int) -> int:
    """x to the power 8 * ``length`` (``length`` zero bytes appended) modulo the polynomial."""
    power, k = 1 << 31, 3
    while length:
        if length & 1:
            power = _times(_X_2N[k & 31], power)
        length >>= 1
        k += 1
    return power


def joined(first: int, second: int, second_length: int) -> int:
    """The CRC-32 of A followed by B, of A's (``first``), B's (``second``) and B's length."""
    return _times(_shift(second_length), first) ^ second


def after(whole: int, first: int, rest_length: int) -> int:
    """The CRC-32 of B, of A followed by B's (``whole``), A's (``first``) and B's length."""
    return whole ^ _times(_shift(rest_length), first)


class Running:
    """The CRC-32 of a file's first bytes, carried on as the offset asked for grows (``reach``): a file's
    places are asked for in its order, and it is read once."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("rb")
        self.at = 0
        self.crc = 0

    def reach(self, offset: int) -> int:
        """The CRC-32 of the first ``offset`` bytes (at or past the latest asked for)."""
        while self.at < offset:
            chunk = self._file.read(min(offset - self.at, 1 << 20))
            if not chunk:
                break
            self.crc = zlib.crc32(chunk, self.crc)
            self.at += len(chunk)
        return self.crc

    def close(self) -> None:
        self._file.close()
