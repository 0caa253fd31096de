"""Words near in meaning, for the offline answer: a question's word that a sentence does not hold may be held
in other words ("how many kids ..." and "my three children ..."; "what car ..." and "the new vehicle ...").
WordLlama's static token vectors tell how near two words are.

WordLlama (the ``wordllama`` wheel on PyPI) ships its model inside the wheel: a 32,000 x 256 table of static
token vectors (``weights/l2_supercat_256.safetensors``, 16 MB) trained from the token embeddings of Llama 2
70B and other models of the Llama 2 vocabulary, and that vocabulary's tokenizer
(``tokenizers/l2_supercat_tokenizer_config.json``). A word's vector is the mean of its tokens' rows, made
unit length, as WordLlama's own ``embed`` computes a text's. The files are read here by path: importing the
package would set the root logger's level (its ``__init__`` calls ``logging.basicConfig``), import
``requests`` and ``pydantic``, and its loader falls back to a download from a model hub when a file is
missing; reading the two files never reaches the network.

Loaded once per process, and only by the offline answer (``refind ask`` without a model): never by a
search, ``--version`` or an import of refind. Anything that keeps it from loading (the package absent, a
file missing or unreadable) leaves the answer to its words alone: ``load`` returns None.

The vocabulary is mostly English: a word of another language splits into pieces whose vectors mean little.
``known`` is the share of a question's words the vocabulary holds whole or nearly; the answer weighs the
near words by it, so a question the model cannot read leaves the ranking as it was. (The cosine of the whole
question with a whole sentence was measured too and gained nothing held out: bench/RESULTS.md, answer8.)
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

    def nearest(
        self, wanted: Sequence[str], texts: Sequence[Sequence[str]], floor: float
    ) -> list[list[float]]:
        """For each of ``texts`` (each a list of words), each word of ``wanted``'s best cosine with one of
        its words; 0 below ``floor`` (words that close are another form or a near meaning: "kids" and
        "children" 0.87, "car" and "vehicle" 0.69; below, mostly a shared topic)."""
        vocab = sorted({w for words in texts for w in words})
        if not wanted or not vocab:
            return [[0.0] * len(wanted) for _ in texts]
        where = {w: k for k, w in enumerate(vocab)}
        cos = self.vectors(list(wanted)) @ self.vectors(vocab).T  # (wanted, vocab)
        out = []
        for words in texts:
            if not words:
                out.append([0.0] * len(wanted))
                continue
            best = cos[:, [where[w] for w in words]].max(1)
            out.append([float(b) if b >= floor else 0.0 for b in best])
        return out

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
