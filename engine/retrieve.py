"""Retrieve: dense top-k and BM25 top-k for each query, fused with Reciprocal Rank Fusion (k = 60).

Several queries (the question, and its rewrite into the documents' language)
each add their rankings to the fusion, so a poor rewrite cannot lose what the
original question finds. A question in another language than the documents
goes to BM25 only (an English embedding model reads it as noise), where it still
finds its code identifiers and the pages written in its own language.

A change log (release notes) mentions nearly every feature in a line or two,
so its chunks match most questions without answering them; they count half
unless the question asks about versions.

Fusion alone would let a confident wrong rewrite push out everything the
question found: its two rankings agree with each other, and the question's own
counts half. So when a rewrite is searched beside it, the question as asked
keeps its two best hits among the k whatever the fusion says (``keep_best``),
if its own words can find anything: one of them must be in at most a fifth of
the chunks ("verify=False", "SSL"; not "httpx" alone in the httpx docs, nor the
Chinese characters that no English page has). A question in another language
whose words cannot find anything is not searched at all beside its rewrite
(``blind``): its ranking would sort the pages by "httpx" alone.

>>> rrf([[7, 3, 5], [3, 9]])
[(3, 0.0325...), (7, 0.0163...), (9, 0.0161...), (5, 0.0158...)]
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath
from typing import Callable, Mapping, NamedTuple, Sequence

from .chunk import Chunk
from .embed import Embedder
from .errors import RepoBotError
from .index import Index
from .search import LexicalIndex
from .tokens import COMMON, common_share, tokenize

MODES = ("hybrid", "bm25", "dense")
RRF_K = 60
TOP_K = 5
POOL = 30  # candidates each ranker contributes to the fusion
PER_PAGE = 3  # hits one page may take before other pages get their turn (calibrated on the calibrate halves)
READ_CHARS = 3000  # the hits the model reads grow with their neighbours up to this many characters (calibrated)
CHANGELOG_WEIGHT = 0.5  # a change log chunk's fused score, unless the question asks about versions (calibrated)
CHANGELOGS = frozenset({"changelog", "changes", "history", "news", "release-notes", "release_notes", "releases",
                        "whatsnew", "whats-new"})
_ABOUT_VERSIONS = re.compile(
    r"\d+\.\d+|\b(?:versions?|releases?|release notes|changelog|upgrad\w*|changed|what's new|nouveaut\w*|"
    r"mise à jour|versión)\b|版本|升级|更新日志|バージョン|アップグレード|リリース", re.I)


class Hit(NamedTuple):
    rank: int  # 1-based, also the [n] id the model will cite
    chunk_id: int
    chunk: Chunk
    score: float  # fused RRF score when two rankings ran, else the one ranker's own (BM25 alone while embedding)


class Query(NamedTuple):
    """One query of a search, which rankers it goes to, its weight in the fusion, and how many of each of its
    rankings' best hits stay among the k whatever the fusion says (when its words can find anything)."""

    text: str
    dense: bool = True
    lexical: bool = True
    weight: float = 1.0
    kept: int = 0
    twin: str | None = None  # searched in the pages of this language, counted as their originals (engine/twins.py)


def search_queries(asked_texts: Sequence[str], rewrites: Sequence[str], asked: str, primary: str,
                   pages: Counter, twin: bool = False) -> list[Query]:
    """What retrieval searches for: the question as asked (and stand-alone), and its rewrites when there are some
    (the question's, and for a follow-up in another language, the earlier question's it follows).

    Text in another language than the documents' goes to BM25 alone; it counts
    fully where pages in its language exist, and half otherwise (then it
    matches only through its identifiers). With ``twin``, it is also searched in the
    pages of its language that the index leaves out, counted as their originals.

    Beside a rewrite, the question as asked keeps its two best hits (``Query.kept``): the rewrite is the model's
    guess, the question is what the user typed.

    >>> [q[:5] for q in search_queries(["重定向?"], ["Redirects?"], "zh", "en", Counter({"en": 9}))]
    [('Redirects?', True, True, 1.0, 0), ('重定向?', False, True, 0.5, 2)]
    >>> search_queries(["重定向?"], [], "zh", "en", Counter({"en": 9}), twin=True)[-1]
    Query(text='重定向?', dense=False, lexical=True, weight=1.0, kept=0, twin='zh')
    """
    twins = [Query(t, dense=False, twin=asked) for t in asked_texts] if twin else []
    if not rewrites:
        return [Query(t) for t in asked_texts] + twins
    if asked == primary:
        return [Query(t, kept=2) for t in asked_texts] + [Query(r) for r in rewrites]
    weight = 1.0 if pages.get(asked) else 0.5
    return [Query(r) for r in rewrites] + [Query(t, dense=False, weight=weight, kept=2) for t in asked_texts] + twins


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K, weights: Sequence[float] | None = None) -> list[tuple[int, float]]:
    """Fuse rankings (lists of ids, best first): score = sum of weight / (k + rank).

    Ties keep the order in which ids were first seen. The docstring example is
    ``3``: 1/62 + 1/61; ``7``: 1/61; ``9``: 1/62; ``5``: 1/63.
    """
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings)):
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def spread(ranked: Sequence[tuple[int, float]], page_of, most: int = PER_PAGE) -> list[tuple[int, float]]:
    """The ranking with each page's hits after its ``most``-th moved behind every other page's first ``most``.

    One long page whose chunks all match the question's words would otherwise fill
    the top k, and the page that answers it would not be shown.

    >>> spread([(1, .9), (2, .8), (3, .7), (4, .6)], page_of={1: "a", 2: "a", 3: "a", 4: "b"}.get, most=2)
    [(1, 0.9), (2, 0.8), (4, 0.6), (3, 0.7)]
    """
    seen: dict[str, int] = {}
    first, later = [], []
    for item in ranked:
        page = page_of(item[0])
        seen[page] = seen.get(page, 0) + 1
        (first if seen[page] <= most else later).append(item)
    return first + later


def keep_best(ranked: Sequence[tuple[int, float]], best: Sequence[int], k: int) -> list[tuple[int, float]]:
    """The top ``k`` of a fused ranking, with the items of ``best`` (hits that must stay, such as the question's own
    best beside a rewrite) among them, in place of the lowest others; the fused order is kept.

    >>> keep_best([(1, .9), (2, .8), (3, .7), (4, .6)], best=[4, 1], k=2)
    [(1, 0.9), (4, 0.6)]
    >>> keep_best([(1, .9), (2, .8), (3, .7)], best=[3, 2, 1], k=2)  # more best hits than places: the fused order
    [(1, 0.9), (2, 0.8)]
    """
    wanted = set(best)
    kept = [p for p in ranked if p[0] in wanted][:k]
    rest = [p for p in ranked if p[0] not in wanted][: k - len(kept)]
    chosen = {p[0] for p in kept + rest}
    return [p for p in ranked if p[0] in chosen]


def is_changelog(source: str) -> bool:
    """Whether a page is a change log, by its file name.

    >>> is_changelog("en/docs/release-notes.md"), is_changelog("CHANGELOG.md"), is_changelog("advanced/history-design.md")
    (True, True, False)
    """
    return PurePosixPath(source).stem.lower() in CHANGELOGS


def asks_about_versions(text: str) -> bool:
    """Whether a question is about versions or what changed between them (then a change log answers it).

    >>> asks_about_versions("What changed in 0.28?"), asks_about_versions("升级之后为什么报错？")
    (True, True)
    >>> asks_about_versions("How do I send a welcome email without making the user wait?")
    False
    """
    return bool(_ABOUT_VERSIONS.search(text))


def demote(ranked: Sequence[tuple[int, float]], demoted: Callable[[int], bool],
           weight: float = CHANGELOG_WEIGHT) -> list[tuple[int, float]]:
    """The ranking with each ``demoted`` item's score moved down (a positive one times ``weight``, a negative one
    divided by it, as a lone ranker's can be), sorted again; ties keep their order.

    >>> demote([(1, .9), (2, .8), (3, .7)], {1}.__contains__, 0.5)
    [(2, 0.8), (3, 0.7), (1, 0.45)]
    >>> demote([(1, -.2), (2, -.3)], {1}.__contains__, 0.5)
    [(2, -0.3), (1, -0.4)]
    """
    scored = [(i, (s * weight if s > 0 else s / weight) if demoted(i) else s) for i, s in ranked]
    return sorted(scored, key=lambda pair: -pair[1])


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise RepoBotError(f"Unknown retrieval mode {mode!r}: choose one of {', '.join(MODES)}.")
    return mode


def allowed_chunks(index: Index, version: str | None) -> set[int] | None:
    """The chunks of one documentation version (None: all); an error that lists the versions if there is none."""
    if version is None:
        return None
    allowed = {i for i, c in enumerate(index.chunks) if c.version == version}
    if not allowed:
        versions = sorted({c.version for c in index.chunks if c.version})
        fix = f"choose one of {', '.join(versions)}" if versions else "this folder has no versioned pages"
        raise RepoBotError(f"No chunks of version {version!r}: {fix}, or leave out --docs-version.")
    return allowed


def retrieve(
    index: Index, embedder: Embedder, queries: Sequence[Query | str], *, k: int = TOP_K, mode: str = "hybrid",
    version: str | None = None, twins: Mapping[str, LexicalIndex] | None = None,
) -> list[Hit]:
    """The top ``k`` chunks for the queries; ``version`` keeps only chunks of that docs version; ``twins``: the
    translated pages a ``Query.twin`` is searched in, by language."""
    check_mode(mode)
    if k < 1:
        raise RepoBotError(f"--k must be at least 1 (got {k}).")
    allowed = allowed_chunks(index, version)
    pool = max(POOL, k) if allowed is None else len(index.chunks)

    def keep(pairs: list[tuple[int, float]]) -> list[tuple[int, float]]:
        return [p for p in pairs if allowed is None or p[0] in allowed][: max(POOL, k)]

    searched_densely = index.size > index.pending_chunks  # chunks not embedded yet are found by BM25 alone
    rankings: list[list[tuple[int, float]]] = []
    weights: list[float] = []
    best: list[int] = []  # the question's own best hits beside a rewrite, which stay among the k
    queries = [Query(q) if isinstance(q, str) else q for q in queries]
    versions = any(asks_about_versions(q.text) for q in queries)
    for query in queries:
        if not query.text.strip():
            continue
        lexical = (twins or {}).get(query.twin or "", index.lexical)
        finds = finds_by_its_words(query.text, lexical.share, common_share(index.size))
        if blind(query, finds, mode):
            continue
        kept = query.kept if query.kept and finds else 0
        if mode in ("hybrid", "dense") and (query.dense or mode == "dense") and searched_densely:
            rankings.append(keep(index.dense.search(embedder.embed(query.text), pool)))
            weights.append(query.weight)
            best += first(rankings[-1], kept, index, versions)
        if mode in ("hybrid", "bm25") and (query.lexical or mode == "bm25"):
            rankings.append(keep(lexical.search(tokenize(query.text), pool)))
            weights.append(query.weight)
            best += first(rankings[-1], kept, index, versions)
    if not rankings:
        return []
    fused = rrf([[i for i, _ in r] for r in rankings], weights=weights) if len(rankings) > 1 else rankings[0]
    if not versions:
        fused = demote(fused, lambda i: is_changelog(index.chunks[i].source))
    fused = spread(fused, lambda i: index.chunks[i].source)
    top = keep_best(fused, best, k) if len(rankings) > 1 else fused[:k]
    return [Hit(rank, i, index.chunks[i], score) for rank, (i, score) in enumerate(top, 1)]


def blind(query: Query, finds: bool, mode: str = "hybrid") -> bool:
    """Whether a query is left out of the search: the question as asked beside its rewrite (``Query.kept``), searched
    by its words alone in this ``mode``, none of which says what it is about (``finds_by_its_words``).

    Its ranking would only order the chunks by the words every page has: "httpx 怎么设置代理？" ranked the plugin list
    (many "httpx") first, above the proxies page its rewrite found.

    >>> blind(Query("httpx 怎么设置代理？", dense=False, kept=2), finds=False)
    True
    >>> blind(Query("httpx 怎么用 verify=False？", dense=False, kept=2), finds=True)  # verify=False finds its page
    False
    >>> blind(Query("How do I set a proxy?", kept=2), finds=False)  # in the documents' language: searched by meaning
    False
    >>> blind(Query("httpx 怎么设置代理？", dense=False, kept=2), finds=False, mode="dense")  # dense mode embeds it
    False
    """
    by_words_alone = mode == "bm25" or (not query.dense and mode != "dense")
    return bool(query.kept) and by_words_alone and not finds


def first(ranking: Sequence[tuple[int, float]], n: int, index: Index, versions: bool) -> list[int]:
    """A ranking's ``n`` best hits, which it keeps among the k; a change log's only when the question asks about
    versions (the log matches nearly every question)."""
    return [i for i, _ in ranking[:n] if versions or not is_changelog(index.chunks[i].source)]


def finds_by_its_words(text: str, share: Callable[[str], float], common: float = COMMON) -> bool:
    """Whether a query has a word that says which part of the documents it is about: one found in some chunks, but
    in at most ``common`` of them.

    >>> shares = {"httpx": 0.75, "verify=false": 0.01, "ssl": 0.04}.get
    >>> finds_by_its_words("httpx 怎么关闭 SSL 证书验证？", lambda w: shares(w, 0.0))
    True
    >>> finds_by_its_words("httpx 自带请求失败自动重试的功能吗？", lambda w: shares(w, 0.0))
    False
    """
    return any(0.0 < share(word) <= common for word in tokenize(text))


def widen(hits: Sequence[Hit], chunks: Sequence[Chunk], budget: int = READ_CHARS) -> list[Hit]:
    """Each hit read with its page's neighbouring chunks (the next one, then the one before), in rank order, while
    all of them together stay within ``budget`` characters (their own text; the line breaks between joined chunks
    are not counted); a chunk already shown is not repeated.

    Chunks are sized for the embedder (about 700 characters), and the sentence that answers a question often
    comes right after the one that matches it: "Before version 0.122.0 ... 403" finds the page, and "you can
    revert to it by overriding make_not_authenticated_error" is the next chunk. The hit keeps its rank, id and
    heading; its lines now span the chunks it was read with. A page's chunks are consecutive in the index, in line
    order (``update_index`` adds them file by file).

    >>> page = [Chunk("a.md", "A", 1, 1, "Old: 403."), Chunk("a.md", "A", 3, 3, "Override it."),
    ...         Chunk("b.md", "B", 1, 1, "Other page.")]
    >>> [(h.chunk.text, h.chunk.start, h.chunk.end) for h in widen([Hit(1, 0, page[0], 0.1)], page, 30)]
    [('Old: 403.\\n\\nOverride it.', 1, 3)]
    """
    taken = {h.chunk_id for h in hits}
    used = sum(len(h.chunk.text) for h in hits)
    out = []
    for hit in hits:
        first = last = hit.chunk_id
        for j in (hit.chunk_id + 1, hit.chunk_id - 1):
            near = chunks[j] if 0 <= j < len(chunks) else None
            if near is None or j in taken or near.source != hit.chunk.source:
                continue
            if used + len(near.text) > budget:
                continue
            taken.add(j)
            used += len(near.text)
            first, last = min(first, j), max(last, j)
        out.append(hit._replace(chunk=joined(chunks[first:last + 1], hit.chunk.heading)) if first != last else hit)
    return out


def opening_section(hit: Hit, chunks: Sequence[Chunk]) -> str:
    """The section a (widened) hit's text starts in: the last part of the heading of its first chunk.

    >>> page = [Chunk("a.md", "A > Old", 1, 1, "Old: 403."), Chunk("a.md", "A > New", 3, 3, "## New\\nOverride it.")]
    >>> [opening_section(h, page) for h in widen([Hit(1, 1, page[1], 0.1)], page, 30)]
    ['Old']
    """
    first, heading = hit.chunk_id, hit.chunk.heading  # a hit from a saved answer (id -1) keeps its own heading
    if 0 <= first < len(chunks):
        while first > 0 and chunks[first - 1].source == hit.chunk.source and chunks[first - 1].start >= hit.chunk.start:
            first -= 1
        heading = chunks[first].heading
    return heading.rsplit(" > ", 1)[-1]


def joined(run: Sequence[Chunk], heading: str) -> Chunk:
    """Consecutive chunks of one page as one, their lines and blank lines as in the file, under ``heading``
    (the hit's own section, even when the chunk before it ends another)."""
    text = run[0].text
    for before, after in zip(run, run[1:]):
        text += "\n" * max(1, after.start - before.end) + after.text
    return run[0]._replace(heading=heading, end=run[-1].end, text=text)
