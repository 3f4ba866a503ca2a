"""Embedding speed and fidelity on CPU: the plain model against the faster paths, on real chunks.

    python benchmarks/embed_speed.py [--corpus ../shared/corpora/fastapi/docs] [--sample 600] [--json]

Chunks a deterministic sample of the corpus (every n-th chunk, all languages)
and embeds it with each configuration, printing chunks/s, word pieces/s and the
cosine of each vector to the plain torch model's. The "before" rows are the
plain model as sentence-transformers runs it (input order, batches of 64) and
RepoBot's earlier setting (longest first, batches of 64). Retrieval quality of
each embedder on the httpx questions is `repobot eval` with REPOBOT_EMBEDDER set.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from common import machine, parse_args, show


def main() -> int:
    args = parse_args("fastapi", __doc__, lambda p: p.add_argument("--sample", type=int, default=600))

    from repobot.engine.chunk import chunk_markdown, piece_budget
    from repobot.engine.registry import load_embedder
    from repobot.engine.index import embedding_text
    from repobot.engine.load import load_corpus

    embedders = {kind: load_embedder(kind) for kind in ("torch", "onnx", "int8")}
    plain = embedders["torch"]
    budget = piece_budget(plain.count_pieces, plain.max_pieces)
    corpus = load_corpus(args.corpus)
    chunks = [c for doc in corpus.documents for c in chunk_markdown(doc.source, doc.text, budget)]
    step = max(1, len(chunks) // args.sample)
    texts = [embedding_text(c) for c in chunks[::step]][: args.sample]
    pieces = sum(min(plain.count_pieces(t) + 2, plain.max_pieces) for t in texts)

    def run(embedder, batch: int, ordered: bool) -> tuple[float, np.ndarray]:
        started = time.perf_counter()
        if ordered:
            vectors = embedder.embed_many(texts, batch_size=batch)
        else:
            vectors = np.concatenate([embedder.embed_batch(texts[i : i + batch]) for i in range(0, len(texts), batch)])
        return time.perf_counter() - started, vectors

    configs = [
        ("torch, input order, batch 64 (before)", "torch", 64, False),
        ("torch, longest first, batch 64 (before)", "torch", 64, True),
        ("torch, longest first, batch 16", "torch", 16, True),
        ("onnx fp32, one text per run, one per core", "onnx", 16, True),
        ("onnx int8, one text per run, one per core", "int8", 16, True),
    ]
    run(plain, 16, True)  # warm-up
    reference = None
    rows = []
    for label, kind, batch, ordered in configs:
        seconds, vectors = run(embedders[kind], batch, ordered)
        reference = vectors if reference is None else reference
        cosine = (vectors * reference).sum(axis=1)
        rows.append({
            "config": label, "chunks_per_s": round(len(texts) / seconds, 1), "pieces_per_s": round(pieces / seconds),
            "cosine_mean": round(float(cosine.mean()), 4), "cosine_min": round(float(cosine.min()), 4),
        })
    result = {"machine": machine(), "chunks": len(texts), "pieces": pieces, "rows": rows}
    if args.json:
        show(result, True)
    else:
        print(f"{machine()}: {len(texts)} chunks, {pieces} word pieces")
        for r in rows:
            print(f"{r['config']:<42} {r['chunks_per_s']:>7} chunks/s {r['pieces_per_s']:>7} pieces/s"
                  f"  cosine {r['cosine_mean']:.4f} (min {r['cosine_min']:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
