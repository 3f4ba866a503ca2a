"""The posting-list BM25 gives rank-bm25's scores (the reference implementation)."""

import numpy as np
from hypothesis import given, settings, strategies as st

from rank_bm25 import BM25Okapi

from repobot.engine.bm25 import Bm25Index, fit, scores

WORDS = st.sampled_from(["redirect", "timeout", "client", "proxy", "http", "follow", "default", "重定", "超时"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=12), min_size=1, max_size=25), st.lists(WORDS, min_size=1, max_size=6))
def test_scores_match_rank_bm25(corpus, query):
    reference = BM25Okapi([list(t) or [""] for t in corpus])
    assert np.allclose(scores(fit(corpus), query), reference.get_scores(query))


def test_search_ranks_by_score_and_keeps_zero_idf_matches():
    corpus = [["redirect", "follow"], ["timeout"], ["redirect"], ["proxy"]]
    index = Bm25Index(corpus)
    hits = index.search(["redirect"], 5)  # in 2 of 4 documents: IDF 0
    assert sorted(i for i, _ in hits) == [0, 2]
    assert index.search(["follow", "redirect"], 5)[0][0] == 0
    assert index.search(["absent"], 5) == []
    assert index.share("redirect") == 0.5 and index.share("absent") == 0.0
