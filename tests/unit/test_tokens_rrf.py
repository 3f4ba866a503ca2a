from repobot.engine.retrieve import rrf
from repobot.engine.tokens import tokenize


def test_code_identifiers_are_kept_whole_and_split():
    tokens = tokenize("client = httpx.Client(follow_redirects=True)")
    for t in ["httpx.client", "httpx", "client", "follow_redirects", "follow", "redirect"]:
        assert t in tokens


def test_cjk_has_unigrams_and_bigrams():
    tokens = tokenize("重定向")
    assert tokens == ["重", "定", "向", "重定", "定向"]


def test_mixed_text_and_stopwords():
    assert tokenize("The HTTP/2 support in httpx") == ["http", "2", "support", "httpx"]


def test_rrf_worked_example():
    fused = rrf([[7, 3, 5], [3, 9]])
    assert [i for i, _ in fused] == [3, 7, 9, 5]
    assert abs(fused[0][1] - (1 / 62 + 1 / 61)) < 1e-12
    assert abs(fused[1][1] - 1 / 61) < 1e-12


def test_rrf_k_changes_weights_and_empty_input():
    assert rrf([]) == []
    assert rrf([[1]], k=0) == [(1, 1.0)]
