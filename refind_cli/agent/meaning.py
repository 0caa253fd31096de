"""What a noted sentence means beside the words it shares with the question, for the offline answer: the
cosine of their WordLlama embeddings ("what did Caroline research?" and "I looked into adoption agencies"
share no term, but their vectors lean the same way).

WordLlama (the ``wordllama`` wheel on PyPI) ships its model inside the wheel: a 32,000 x 256 table of static
token vectors (``weights/l2_supercat_256.safetensors``, 16 MB) trained from the token embeddings of Llama 2
70B and other models of the Llama 2 vocabulary, and that vocabulary's tokenizer
(``tokenizers/l2_supercat_tokenizer_config.json``). A text's vector is the mean of its tokens' rows, made
unit length, as WordLlama's own ``embed`` computes it. The files are read here by path: importing the
package would set the root logger's level (its ``__init__`` calls ``logging.basicConfig``), import
``requests`` and ``pydantic``, and its loader falls back to a download from a model hub when a file is
missing; reading the two files never reaches the network.

Loaded once per process, and only by the offline answer (``refind ask`` without a model): never by a
search, ``--version`` or an import of refind. Anything that keeps it from loading (the package absent, a
file missing or unreadable) leaves the answer to its words alone: ``load`` returns None.

The vocabulary is mostly English: a question in another language splits into pieces of words whose vectors
mean little. ``known`` is the share of a text's content words the vocabulary holds whole; the answer
weighs the cosine by it, so a question the model cannot read leaves the ranking as it was.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from tokenizers import Tokenizer

PACKAGE = "wordllama"
WEIGHTS = ("weights", "l2_supercat_256.safetensors")
TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")
# The most tokens a word the model knows falls into.
WHOLE = 2
WORD_RE = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True, eq=False)
class Meaning:
    """The token table (rows: token ids) and the tokenizer that reads a text into its ids."""

    table: NDArray[np.float32]
    tokenizer: Tokenizer

    def vectors(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One unit-length row per text: the mean of its tokens' rows (zeros for a text of no token)."""
        import numpy as np

        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        for i, enc in enumerate(self.tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            if enc.ids:
                v = self.table[enc.ids].mean(0)
                norm = float(np.linalg.norm(v))
                if norm:
                    out[i] = v / norm
        return out

    def similarity(self, question: str, texts: Sequence[str]) -> list[float]:
        """The cosine of ``question`` with each of ``texts``, at least 0 (a text leaning away means as
        little as one unrelated)."""
        if not texts:
            return []
        q = self.vectors([question])[0]
        return [max(0.0, float(c)) for c in self.vectors(texts) @ q]

    def known(self, text: str, stopwords: Iterable[str] = ()) -> float:
        """The share of ``text``'s words, stop words aside, that the vocabulary holds whole or as a stem and
        an ending (two tokens: "pets" is "▁pet" + "s"); a word of a language the model did not learn falls
        into more pieces ("Zahnarzttermin", "стоматологу": five). 0 for a text of no such word."""
        skip = frozenset(stopwords)
        words = [w for w in WORD_RE.findall(text) if w.lower() not in skip]
        if not words:
            return 0.0
        pieces = self.tokenizer.encode_batch(words, add_special_tokens=False)
        return sum(len(p.ids) <= WHOLE for p in pieces) / len(words)


def files() -> tuple[Path, Path] | None:
    """The package's weights and tokenizer files, found without importing it (None: not installed)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    return root.joinpath(*WEIGHTS), root.joinpath(*TOKENIZER)


@functools.cache
def load() -> Meaning | None:
    """The model, read once per process; None when it cannot be (the answer then weighs words alone)."""
    found = files()
    if found is None:
        return None
    weights, tokenizer_file = found
    try:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        tables = load_file(str(weights))
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
    # Whatever keeps the model from loading (a package without the module, a file missing, a table or a
    # tokenizer that does not parse: tokenizers raises a bare Exception) leaves the answer lexical.
    except Exception:
        return None
    table = next(iter(tables.values()), None)
    if table is None or table.ndim != 2 or table.shape[0] < tokenizer.get_vocab_size():
        return None
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return Meaning(np.ascontiguousarray(table, dtype=np.float32), tokenizer)
