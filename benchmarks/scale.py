"""Indexing and retrieval at scale (the FastAPI docs: 1,656 pages in 13 languages).

    python benchmarks/scale.py [--corpus ../shared/corpora/fastapi/docs] [--languages en,zh] [--json]

The corpus is copied to a temporary folder first (the shared copy is read-only),
so that one file can be touched to measure an incremental re-index. Figures:

- ``searchable_s``: from nothing to answering with BM25 (read, chunk, tokenize, fit, save);
- ``index_s``: to fully indexed (the embeddings too), ``chunks_per_s`` the embedding rate;
- ``embedder``: the path chosen by measurement on this machine, with every path's chunks/s;
- ``plain_chunks_per_s``: the plain sentence-transformers model on a sample, in the same run,
  so that ``chunks_per_s / plain_chunks_per_s`` is a ratio any machine can check;
  ``sample_chunks_per_s``: the chosen embedder on the same sample (the embedder alone, without
  the indexing around it);
- re-index after touching one file, load time, hybrid retrieval p50/p95 (English and Chinese
  queries, every stage included), peak RSS.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, parse_args, percentile, show  # noqa: E402

QUERIES_EN = [
    "How do I declare a path parameter?", "How do I add CORS middleware?", "What is a dependency with yield?",
    "How do I return a custom status code?", "How do I upload files?", "How do I use OAuth2 with JWT tokens?",
    "How do I run background tasks?", "How do I test my app with TestClient?", "How do I define a request body?",
    "How do I set response headers?", "What are query parameter validations?", "How do I handle errors?",
    "How do I deploy with Docker?", "How do I use WebSockets?", "How do I serve static files?",
    "How do I use SQL databases?", "How do I add a custom response class?", "What is the lifespan event?",
    "How do I configure settings with environment variables?", "How do I generate OpenAPI docs?",
    "How do I read cookies?", "How do I declare header parameters?", "How do I use async def?",
    "How do I return HTML?", "How do I limit request body size?",
]
QUERIES_ZH = [
    "如何声明路径参数？", "怎么添加 CORS 中间件？", "什么是带 yield 的依赖？", "如何返回自定义状态码？", "怎么上传文件？",
    "如何使用 OAuth2 和 JWT？", "怎么运行后台任务？", "如何用 TestClient 测试？", "如何定义请求体？", "如何设置响应头？",
    "查询参数怎么校验？", "如何处理错误？", "如何用 Docker 部署？", "怎么使用 WebSocket？", "如何提供静态文件？",
    "如何使用 SQL 数据库？", "如何自定义响应类？", "什么是 lifespan 事件？", "如何用环境变量配置？", "如何生成 OpenAPI 文档？",
    "怎么读取 Cookie？", "如何声明 Header 参数？", "如何使用 async def？", "如何返回 HTML？", "如何限制请求体大小？",
]


def speed(embedder, texts) -> float:
    """Chunks/s of ``embedder`` on ``texts``, timed as the embedder choice times each path."""
    from repobot.engine.embedders import timed

    return round(timed(embedder, texts)[1], 1)


def plain_speed(texts) -> float | None:
    """Chunks/s of the plain sentence-transformers model (torch) on the sample, or None where torch is absent."""
    from repobot.engine.embedders import FACTORIES, available

    return speed(FACTORIES["torch"](), texts) if "torch" in available() else None


def main() -> int:
    args = parse_args("fastapi", __doc__, lambda p: p.add_argument("--languages", help="e.g. en,zh (default: all)"))
    work = Path(tempfile.mkdtemp(prefix="repobot-scale-"))
    os.environ["REPOBOT_HOME"] = str(work / "home")
    corpus = work / "docs"
    shutil.copytree(args.corpus, corpus)

    from repobot.engine import embedders
    from repobot.engine.index import embedding_text
    from repobot.engine.load import load_corpus
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.registry import ModelSet
    from repobot.engine.retrieve import retrieve
    from repobot.engine.store import load_index

    chosen = embedders.chosen(remeasure=True)
    measured = {m.name: m.chunks_per_s for m in embedders.last_measurements()}
    models = ModelSet(embedder=chosen)
    embedder = models.embedder
    languages = args.languages.split(",") if args.languages else sorted(load_corpus(corpus).languages) or None
    collection = Pipeline(corpus, models=models, languages=languages).collection
    marks = {}
    start = time.perf_counter()
    report = collection.update(progress=lambda stage, done, total: marks.setdefault(stage, time.perf_counter()))
    index_s = time.perf_counter() - start
    searchable_s = marks["searchable"] - start
    index = collection.index
    over = sum(embedder.count_pieces(embedding_text(c)) + 2 > embedder.max_pieces for c in index.chunks)
    sample = [embedding_text(c) for c in index.chunks[:: max(1, len(index.chunks) // 200)][:200]]

    touched = corpus / sorted(index.files)[len(index.files) // 2]
    touched.write_text(touched.read_text(encoding="utf-8") + "\n\nOne more paragraph.\n", encoding="utf-8")
    fresh = Pipeline(corpus, models=models).collection
    t = time.perf_counter()
    fresh.update()
    reindex_one_s = time.perf_counter() - t

    t = time.perf_counter()
    loaded = load_index(corpus)
    _ = loaded.dense, loaded.lexical  # the searchers are part of being ready to answer
    load_s = time.perf_counter() - t

    times = []
    for query in QUERIES_EN + QUERIES_ZH:
        t = time.perf_counter()
        retrieve(loaded, embedder, [query])
        times.append((time.perf_counter() - t) * 1000)
    chunks_per_s = report.embedded_chunks / (index_s - searchable_s) if index_s > searchable_s else None
    plain = plain_speed(sample)
    chosen_on_sample = speed(embedder, sample)
    result = {
        "machine": machine(),
        "languages": sorted(collection.selected) if collection.selected else "all",
        "embedder": {"chosen": chosen, "measured_chunks_per_s": measured},
        "files": len(loaded.files),
        "chunks": len(loaded.chunks),
        "chunks_over_256_pieces": over,
        "searchable_s": round(searchable_s, 1),
        "index_s": round(index_s, 1),
        "chunks_per_s": round(chunks_per_s, 1) if chunks_per_s else None,
        "plain_chunks_per_s": plain,
        "speedup_over_plain": round(chunks_per_s / plain, 2) if chunks_per_s and plain else None,
        "sample_chunks_per_s": chosen_on_sample,
        "sample_speedup_over_plain": round(chosen_on_sample / plain, 2) if plain else None,
        "reindex_one_s": round(reindex_one_s, 2),
        "reindex_ratio": round(reindex_one_s / index_s, 4),
        "load_s": round(load_s, 2),
        "retrieve_p50_ms": round(statistics.median(times), 1),
        "retrieve_p95_ms": round(percentile(times, 0.95), 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0),
    }
    shutil.rmtree(work, ignore_errors=True)
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
