"""Retrieve: dense top-k and BM25 top-k, fused with Reciprocal Rank Fusion (k = 60).

>>> rrf([[7, 3, 5], [3, 9]])
[(3, 0.0325...), (7, 0.0163...), (9, 0.0161...), (5, 0.0158...)]
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from repobot.engine.chunk import Chunk
from repobot.engine.embed import Embedder
from repobot.engine.errors import RepoBotError
from repobot.engine.index import Index
from repobot.engine.tokens import tokenize

MODES = ("hybrid", "bm25", "dense")
RRF_K = 60
TOP_K = 5
POOL = 30  # candidates each ranker contributes to the fusion


class Hit(NamedTuple):
    rank: int  # 1-based, also the [n] id the model will cite
    chunk_id: int
    chunk: Chunk
    score: float  # fused RRF score in hybrid mode, else the ranker's own score


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse rankings (lists of ids, best first): score = sum of 1 / (k + rank).

    Ties keep the order in which ids were first seen. The docstring example is
    ``3``: 1/62 + 1/61; ``7``: 1/61; ``9``: 1/62; ``5``: 1/63.
    """
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise RepoBotError(f"Unknown retrieval mode {mode!r}: choose one of {', '.join(MODES)}.")
    return mode


def retrieve(
    index: Index,
    embedder: Embedder,
    query: str,
    *,
    k: int = TOP_K,
    mode: str = "hybrid",
    version: str | None = None,
    rewrite: Callable[[str], str] | None = None,
) -> list[Hit]:
    """The top ``k`` chunks for ``query``; ``version`` keeps only chunks of that docs version.

    ``rewrite`` (the lesson's query rewriting) turns the question into search
    terms; the rewritten query is searched alongside the original.
    """
    check_mode(mode)
    if k < 1:
        raise RepoBotError(f"--k must be at least 1 (got {k}).")
    queries = [query]
    if rewrite is not None:
        rewritten = rewrite(query).strip()
        if rewritten and rewritten != query:
            queries.append(rewritten)
    allowed = None
    if version is not None:
        allowed = {i for i, c in enumerate(index.chunks) if c.version == version}
        if not allowed:
            versions = sorted({c.version for c in index.chunks if c.version})
            raise RepoBotError(
                f"No chunks of version {version!r}; known versions: {', '.join(versions) or 'none'}."
            )
    pool = max(POOL, k) if allowed is None else len(index.chunks)

    def keep(pairs: list[tuple[int, float]]) -> list[tuple[int, float]]:
        return [p for p in pairs if allowed is None or p[0] in allowed]

    rankings: list[list[tuple[int, float]]] = []
    for q in queries:
        if mode in ("hybrid", "dense"):
            rankings.append(keep(index.dense.search(embedder.embed(q), pool))[: max(POOL, k)])
        if mode in ("hybrid", "bm25"):
            rankings.append(keep(index.lexical.search(tokenize(q), pool))[: max(POOL, k)])
    if mode == "hybrid" or len(rankings) > 1:
        fused = rrf([[i for i, _ in r] for r in rankings])
    else:
        fused = rankings[0]
    return [Hit(rank, i, index.chunks[i], score) for rank, (i, score) in enumerate(fused[:k], 1)]
