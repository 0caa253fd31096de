"""A WhatsApp group where two senders are saved as phone numbers, which WhatsApp writes between direction
marks (U+202A .. U+202C): for tests/test_further_rests.py and tests/fixtures/make_release5_archive.py."""

from __future__ import annotations

PHONE_CHAT = "WhatsApp Chat with Boulder Crew.txt"


def phone_chat() -> str:
    """Forty lines: Maya, and two numbers between LRE and PDF marks (one also in a line of its own text)."""
    senders = ("Maya Lindqvist", "\u202a+49 151 2345 6789\u202c", "\u202a+351 912 345 678\u202c")
    lines = [
        f"{3 + i // 12:02d}/05/2026, {8 + i % 12:02d}:{(7 * i) % 60:02d} - {senders[i % 3]}: route {i} is open"
        for i in range(40)
    ]
    lines[5] += "\nsee you at \u202a+49 151 2345 6789\u202c then"
    return "\n".join(lines) + "\n"
