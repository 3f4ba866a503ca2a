"""BM25: Okapi scoring through posting lists, as small pure functions, fitted with rank-bm25's statistics.

rank-bm25 fits the model (IDF with its epsilon floor, document lengths,
k1 = 1.5, b = 0.75). Its ``get_scores`` walks every document for every query
term in Python (48 ms per query at 20k chunks); here each term's postings are
precomputed (``postings``) and added with numpy (``scores``): the same scores,
which ``tests/unit/test_bm25.py`` checks against rank-bm25. The postings are
saved with the index, so loading skips the fit.

>>> p = fit([["follow", "redirects"], ["timeout"], ["timeout", "none"]])
>>> [round(float(s), 3) for s in scores(p, ["timeout"])]
[0.0, 0.078, 0.059]
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import numpy as np

from .search import LexicalIndex


class Postings(NamedTuple):
    """Every term's documents and weights in one sorted array (CSR layout)."""

    vocab: dict[str, int]  # term -> row
    idf: np.ndarray  # per term
    docs: np.ndarray  # document ids, grouped by term
    weights: np.ndarray  # tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl)), same order
    start: np.ndarray  # term i's postings are docs[start[i]:start[i + 1]]
    n_docs: int


def okapi_weights(tf: np.ndarray, doc_len: np.ndarray, avgdl: float, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """The term-frequency part of Okapi BM25 for each (term, document) pair.

    >>> okapi_weights(np.array([1.0, 2.0]), np.array([10.0, 10.0]), 10.0).round(3).tolist()
    [1.0, 1.429]
    """
    return tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / avgdl))


def postings(doc_freqs: Sequence[Mapping[str, int]], idf: Mapping[str, float], doc_len: Sequence[int],
             avgdl: float, k1: float = 1.5, b: float = 0.75) -> Postings:
    """Posting lists from fitted statistics: per document term counts, the IDF table, document lengths."""
    vocab = {term: i for i, term in enumerate(idf)}
    counts = [len(f) for f in doc_freqs]
    docs = np.repeat(np.arange(len(counts)), counts)
    term_ids = np.fromiter((vocab[t] for f in doc_freqs for t in f), dtype=np.int64, count=len(docs))
    tf = np.fromiter((v for f in doc_freqs for v in f.values()), dtype=np.float64, count=len(docs))
    lengths = np.asarray(doc_len, dtype=np.float64)[docs]
    order = np.argsort(term_ids, kind="stable")
    return Postings(
        vocab, np.fromiter(idf.values(), dtype=np.float64, count=len(idf)), docs[order].astype(np.int32),
        okapi_weights(tf, lengths, avgdl, k1, b)[order], np.searchsorted(term_ids[order], np.arange(len(vocab) + 1)),
        len(doc_len),
    )


def fit(corpus_tokens: Sequence[Sequence[str]]) -> Postings:
    """Fit rank-bm25 (the reference) and turn its statistics into postings."""
    from rank_bm25 import BM25Okapi

    # rank-bm25 divides by the corpus size; an empty corpus gets one empty document.
    bm = BM25Okapi([list(t) or [""] for t in corpus_tokens] or [[""]])
    return postings(bm.doc_freqs, bm.idf, bm.doc_len, bm.avgdl, bm.k1, bm.b)


def posting(p: Postings, term: str) -> tuple[np.ndarray, np.ndarray, float] | None:
    """A term's documents, weights and IDF; None for a term no document has."""
    i = p.vocab.get(term)
    if i is None:
        return None
    span = slice(p.start[i], p.start[i + 1])
    return p.docs[span], p.weights[span], float(p.idf[i])


def scores(p: Postings, tokens: Sequence[str]) -> np.ndarray:
    """BM25 score of every document (as rank-bm25's ``get_scores``)."""
    out = np.zeros(p.n_docs)
    for term in tokens:
        found = posting(p, term)
        if found is not None:
            out[found[0]] += found[2] * found[1]
    return out


def matching(p: Postings, tokens: Sequence[str]) -> np.ndarray:
    """Ids of the documents that contain at least one of ``tokens``, sorted."""
    lists = [found[0] for found in (posting(p, t) for t in set(tokens)) if found is not None]
    return np.unique(np.concatenate(lists)) if lists else np.zeros(0, dtype=np.int32)


class Bm25Index(LexicalIndex):
    """The lexical seam over postings; ``state``/``from_state`` save and restore them without fitting again."""

    def __init__(self, corpus_tokens: Sequence[Sequence[str]] | None = None, *, fitted: Postings | None = None,
                 size: int | None = None):
        self.postings = fitted if fitted is not None else fit(corpus_tokens or [])
        self._size = size if size is not None else len(corpus_tokens or [])

    def __len__(self) -> int:
        return self._size

    def search(self, tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        if not tokens or not self._size:
            return []
        query = list(tokens)
        all_scores = scores(self.postings, query)[: self._size]
        # A term found in half the chunks of a small corpus has an Okapi IDF of 0;
        # such chunks still match, so rank every chunk that contains a query term.
        candidates = matching(self.postings, query)
        candidates = candidates[candidates < self._size]
        top = candidates[np.argsort(-all_scores[candidates], kind="stable")][:k]
        return [(int(i), float(all_scores[i])) for i in top]

    def share(self, token: str) -> float:
        found = posting(self.postings, token)
        return len(found[0]) / self._size if found is not None and self._size else 0.0

    def state(self) -> dict[str, np.ndarray]:
        """The postings as plain arrays (the vocabulary as NUL-separated UTF-8), for np.savez."""
        p = self.postings
        vocab = "\0".join(p.vocab).encode("utf-8")
        return {
            "vocab": np.frombuffer(vocab, dtype=np.uint8), "idf": p.idf, "docs": p.docs, "weights": p.weights,
            "start": p.start, "sizes": np.array([self._size, p.n_docs]),
        }

    @classmethod
    def from_state(cls, state) -> "Bm25Index":
        """The index ``state`` describes, without fitting again.

        >>> saved = Bm25Index([["follow", "redirects"], ["timeout"]])
        >>> Bm25Index.from_state(saved.state()).search(["timeout"], 2) == saved.search(["timeout"], 2)
        True
        """
        idf = np.asarray(state["idf"])
        words = bytes(state["vocab"]).decode("utf-8")
        vocab = {term: i for i, term in enumerate(words.split("\0"))} if len(idf) else {}
        if len(vocab) != len(idf):
            raise ValueError("the BM25 vocabulary does not match its IDF table")
        size, n_docs = (int(v) for v in state["sizes"])
        fitted = Postings(vocab, idf, np.asarray(state["docs"]), np.asarray(state["weights"]),
                          np.asarray(state["start"]), n_docs)
        return cls(fitted=fitted, size=size)
