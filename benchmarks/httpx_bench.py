"""Speed on the lesson's corpus: index, retrieval and generation figures.

    python benchmarks/httpx_bench.py [--corpus ../shared/corpora/httpx/docs] [--json]

Prints index seconds, chunks per second, hybrid retrieval p50/p95 (query
embedding, FAISS, BM25 and fusion included), time to first token and tokens/s
of the default model, and how many chunks exceed the embedder's 256-piece window.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from common import HTTPX_QUESTIONS as QUESTIONS, machine, parse_args, percentile, show



def main() -> int:
    args = parse_args("httpx", __doc__)
    os.environ["REPOBOT_HOME"] = tempfile.mkdtemp(prefix="repobot-bench-")

    from repobot.engine.index import embedding_text
    from repobot.engine.pipeline import AskOptions, Pipeline

    pipe = Pipeline(args.corpus)
    t = time.perf_counter()
    embedder = pipe.models.embedder
    load_embedder_s = time.perf_counter() - t
    t = time.perf_counter()
    report = pipe.build_index()
    index_s = time.perf_counter() - t
    chunks = len(pipe.index.chunks)
    over = sum(embedder.count_pieces(embedding_text(c)) + 2 > embedder.max_pieces for c in pipe.index.chunks)

    pipe.search(QUESTIONS[0])  # warm-up: builds the BM25 and FAISS searchers
    times = []
    for _ in range(5):
        for q in QUESTIONS:
            t = time.perf_counter()
            pipe.search(q)
            times.append((time.perf_counter() - t) * 1000)

    ttft, tps = [], []
    for q in QUESTIONS[:4]:
        answer = pipe.ask(q, AskOptions(gate=False))
        if answer.timings.first_token_ms is not None:
            ttft.append(answer.timings.first_token_ms - answer.timings.retrieve_ms)
            tps.append(answer.timings.tokens_per_s)

    result = {
        "machine": machine(),
        "embedder": embedder.name,
        "files": len(pipe.index.files),
        "chunks": chunks,
        "chunks_over_256_pieces": over,
        "embedder_load_s": round(load_embedder_s, 2),
        "index_s": round(index_s, 2),
        "chunks_per_s": round(report.embedded_chunks / index_s, 1),
        "retrieve_p50_ms": round(statistics.median(times), 1),
        "retrieve_p95_ms": round(percentile(times, 0.95), 1),
        "ttft_ms_p50": round(statistics.median(ttft), 0) if ttft else None,
        "tokens_per_s_p50": round(statistics.median(tps), 1) if tps else None,
    }
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
