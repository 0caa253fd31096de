"""The classes of characters the analyzer splits text by, from Unicode's own properties, read without the
``regex`` module at run time.

The classes are written once as ``regex`` (V1) property expressions (``CLASS_PROPERTIES``,
``SET_PROPERTIES``); ``generate()`` reads which code points each holds from ``regex``'s tables and writes
them into ``unicode_classes_data.py``, which an import loads; a test checks that file against ``regex`` (and
that the stdlib patterns built on it split every code point as the ``regex`` patterns do). ``python -m refind_cli.text.unicode_classes``
writes it again (after a ``regex`` upgrade, with a bump of ``analysis.ANALYSIS_VERSION`` if it changed).

Why not ``regex`` itself: importing it and compiling its property patterns was ~70 % of a search's own work
whenever a hit held an emoji, a bidi mark or a non-Latin letter. Why not stdlib classes of code point ranges:
``re`` builds a class's table one code point at a time, and the run class alone holds 42,000 of the first
65,536 (5 ms and more to compile; the token pattern ~16 ms). So each character is first mapped to the
letter of its *kind* (which of the classes it is in: ``kinds``), and the patterns run over those letters,
one per character, with classes of a few letters; a match's span is the span in the text.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Iterable

from refind_cli.text import unicode_classes_data as data

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# The classes a character's kind tells, as ``regex`` expressions:
# - run: written without spaces, so a run of them becomes bigrams: letters whose line-break class is
#   ideographic, Japanese small kana, non-starter (iteration marks) or "complex context" (Thai, Lao, Khmer,
#   Myanmar, Tai Tham, ...: scripts that need a dictionary to split into words), and Hangul, as Lucene's CJK
#   analyzer has them; never Latin (full-width "ｈｅｌｌｏ" is ideographic to line breaking, a word to a
#   reader);
# - letter: letters and digits with their combining marks (an Indic vowel sign, a Hebrew point, a Tibetan
#   subjoined letter), not of a run;
# - mark: a combining mark (it continues a run);
# - ignorable: the invisible characters that belong inside a word (ZWNJ and ZWJ in Persian and Indic text, a
#   soft hyphen, a bidi mark, a variation selector), which matching then ignores;
# - pictograph, modifier, indicator: an emoji (Extended_Pictographic, a skin tone after it) or half a flag
#   (a regional indicator);
# - apostrophe: what joins a question's word to its second part ("don't", "l'appartement").
_RUN = (
    r"[[\p{lb=ID}\p{lb=CJ}\p{lb=NS}\p{lb=SA}\p{lb=H2}\p{lb=H3}\p{lb=JL}\p{lb=JV}\p{lb=JT}]"
    r"&&[\p{L}\p{M}\p{Nl}]--\p{sc=Latin}]"
)
CLASS_PROPERTIES: dict[str, str] = {
    "run": _RUN,
    "letter": rf"[[\p{{L}}\p{{N}}\p{{M}}]--{_RUN}]",
    "mark": r"\p{M}",
    "ignorable": r"\p{DI}",
    "pictograph": r"\p{Extended_Pictographic}",
    "modifier": r"\p{Emoji_Modifier}",
    "indicator": r"\p{RI}",
    "apostrophe": "['’]",
}
# Classes a word is searched or cleaned with after it was split, small enough for a stdlib class of ranges
# (``re`` compiles each in well under a millisecond):
# - invisible: what matching ignores inside a word (Default_Ignorable_Code_Point, and the enclosing keycap
#   of "1️⃣");
# - diacritic: the marks people leave out when they type (a nonspacing Diacritic other than a virama, which
#   joins consonants and is part of the spelling; in the Arabic script every nonspacing mark: besides its
#   Diacritic vowel marks, the maddah and hamza its letters carry ("آ" typed "ا") and the vowel signs of
#   Pashto, Kashmiri and Sindhi (zwarakay), which Unicode does not call Diacritic);
# - cyrillic: a Cyrillic letter.
SET_PROPERTIES: dict[str, str] = {
    "invisible": r"[\p{DI}\p{Me}]",
    "diacritic": r"[[\p{Dia}&&\p{Mn}--\p{ccc=9}][\p{scx=Arabic}&&\p{Mn}]]",
    "cyrillic": r"\p{sc=Cyrillic}",
}
# A kind's letter where a character is in none of the classes.
_NONE = " "
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class _Kinds(dict[int, str]):
    """Code point -> its kind's letter, each looked up once (``str.translate`` reads the dict in C); it holds
    at most the code points met."""

    def __missing__(self, point: int) -> str:
        kind = data.KINDS[bisect_right(data.STARTS, point) - 1]
        self[point] = kind
        return kind


_KIND_OF = _Kinds()


def kinds(text: str) -> str:
    """``text`` with each character replaced by the letter of its kind: as long as ``text``, so that a
    match over it spans the same characters of ``text``."""
    return text.translate(_KIND_OF)


def kind_class(*names: str) -> str:
    """A stdlib class (``[...]``) of the kinds' letters in any of the ``CLASS_PROPERTIES`` named: over
    ``kinds(text)``, it matches where the character of ``text`` at that place is in one of them."""
    return "[" + "".join(sorted({k for name in names for k in data.MEMBERS[name]})) + "]"


def stdlib_set(name: str) -> str:
    """The stdlib class (``[...]`` of ranges) of one of ``SET_PROPERTIES``."""
    return data.SETS[name]


def generate() -> tuple[tuple[int, ...], str, dict[str, str], dict[str, str]]:
    """(starts, kinds, members, sets) as ``regex``'s tables give them now: the first code point of each run
    of code points of one kind, each run's kind letter, each class's kind letters, and each of
    ``SET_PROPERTIES`` as a stdlib class of ranges (``\\uXXXX`` escapes)."""
    import regex

    every = "".join(map(chr, range(sys.maxunicode + 1)))
    masks = bytearray(len(every))
    for bit, expression in enumerate(CLASS_PROPERTIES.values()):
        for ch in regex.findall(expression, every, flags=regex.V1):
            masks[ord(ch)] |= 1 << bit
    letter = {mask: _LETTERS[i - 1] if mask else _NONE for i, mask in enumerate(sorted(set(masks)))}
    starts = tuple(point for point in range(len(masks)) if point == 0 or masks[point] != masks[point - 1])
    members = {
        name: "".join(k for mask, k in letter.items() if mask >> bit & 1)
        for bit, name in enumerate(CLASS_PROPERTIES)
    }
    sets = {
        name: _ranges(ord(ch) for ch in regex.findall(expression, every, flags=regex.V1))
        for name, expression in SET_PROPERTIES.items()
    }
    return starts, "".join(letter[masks[point]] for point in starts), members, sets


def _ranges(points: Iterable[int]) -> str:
    out: list[list[int]] = []
    for point in points:
        if out and out[-1][1] == point - 1:
            out[-1][1] = point
        else:
            out.append([point, point])
    return "[" + "".join(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}" for a, b in out) + "]"


def _escape(point: int) -> str:
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


def write(path: Path | None = None) -> None:
    # Here, not at the top: a search that meets a character beyond Latin imports this module.
    from pathlib import Path

    import regex

    from refind_cli.generated import write_lines

    path = path or Path(data.__file__)
    starts, kinds_, members, sets = generate()
    per_line = 12
    lines = [
        '"""Generated by ``python -m refind_cli.text.unicode_classes`` from Unicode\'s properties (the tables'
        f' of regex {regex.__version__}): do not edit."""',
        "",
        "# The first code point of each run of code points of one kind, and each run's kind.",
        "# fmt: off",
        "STARTS: tuple[int, ...] = (",
        *(
            "    " + " ".join(f"{p:#x}," for p in starts[i : i + per_line])
            for i in range(0, len(starts), per_line)
        ),
        ")",
        "# fmt: on",
        "KINDS = (",
        *(f"    {kinds_[i : i + 100]!r}" for i in range(0, len(kinds_), 100)),
        ")",
        "# The kinds in each class.",
        f"MEMBERS: dict[str, str] = {members!r}",
        "# Each of unicode_classes.SET_PROPERTIES, as a stdlib class.",
        "SETS: dict[str, str] = {",
        *(f"    {name!r}: {pattern!r}," for name, pattern in sets.items()),
        "}",
        "",
    ]
    write_lines(path, lines)


if __name__ == "__main__":
    write()
