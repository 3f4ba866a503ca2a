"""Search: the two seams retrieval ranks chunks through, and the FAISS one.

``VectorIndex`` (dense, by embedding) and ``LexicalIndex`` (by tokens) each
return ``(chunk id, score)`` pairs, best first; ``engine/bm25.py`` is the
lexical one.

>>> import numpy as np
>>> FaissIndex(np.eye(3, dtype=np.float32)).search(np.array([0, 1, 0], np.float32), 2)
[(1, 1.0), (0, 0.0)]
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Sequence

import numpy as np


class VectorIndex(ABC):
    @abstractmethod
    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Ids and scores of the k nearest rows, best first."""


class LexicalIndex(ABC):
    @abstractmethod
    def search(self, tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Ids and scores of the k best-matching documents, best first (matching documents only)."""

    @abstractmethod
    def share(self, token: str) -> float:
        """The share of documents that contain ``token``."""


class FaissIndex(VectorIndex):
    """Exact inner-product search over unit vectors (cosine similarity); ``ids`` names the rows (default 0..n-1)."""

    def __init__(self, vectors: np.ndarray, ids: np.ndarray | None = None):
        import faiss

        self._index = faiss.IndexFlatIP(vectors.shape[1])
        self._ids = ids
        if len(vectors):
            self._index.add(np.ascontiguousarray(vectors, dtype=np.float32))

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        k = min(k, self._index.ntotal)
        if k <= 0:
            return []
        scores, rows = self._index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), k)
        ids = rows[0] if self._ids is None else self._ids[np.maximum(rows[0], 0)]
        return [(int(i), float(s)) for i, s, row in zip(ids, scores[0], rows[0]) if row >= 0]
