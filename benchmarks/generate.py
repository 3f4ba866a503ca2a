"""Generation overhead: RepoBot's streamed answer against a bare llama-cpp-python call on the same prompt.

    python benchmarks/generate.py --json

Time to first token for a first and a second question (the second reuses the
cached system-prompt prefix), and tokens/s through RepoBot and bare.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from common import machine, parse_args, show


def main() -> int:
    args = parse_args("httpx", __doc__, lambda p: p.add_argument("--tokens", type=int, default=128))
    os.environ.setdefault("REPOBOT_HOME", tempfile.mkdtemp(prefix="repobot-gen-"))

    from repobot.engine.generate import Generation
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.prompt import build_messages

    pipe = Pipeline(args.corpus)
    pipe.build_index()
    llm = pipe.models.llm

    def messages(question):
        hits, _ = pipe.search(question)
        return build_messages(question, [(h.chunk.source, h.chunk.text) for h in hits], lang="en")

    first = messages("Does httpx follow redirects by default?")
    second = messages("What is the default timeout?")
    runs = {}
    for name, msgs in (("first", first), ("cached", second)):
        gen = Generation(llm, msgs, max_tokens=args.tokens)
        list(gen)
        runs[name] = gen

    # The same prompt again, through RepoBot and bare, alternating to share cache effects fairly.
    repobot_tps, bare_tps = [], []
    for _ in range(3):
        gen = Generation(llm, second, max_tokens=args.tokens)
        list(gen)
        repobot_tps.append(gen.tokens_per_s)
        stream = llm._llama.create_chat_completion(messages=list(second), stream=True, max_tokens=args.tokens,
                                                   temperature=llm.temperature, top_p=0.9, repeat_penalty=1.1)
        count, first_at = 0, None
        for part in stream:
            if part["choices"][0]["delta"].get("content"):
                count += 1
                if first_at is None:
                    first_at = time.perf_counter()
        elapsed = time.perf_counter() - first_at if first_at else 0
        bare_tps.append((count - 1) / elapsed if elapsed > 0 else 0.0)

    tps, bare = max(repobot_tps), max(bare_tps)
    result = {
        "machine": machine(),
        "prompt_tokens": llm.count_tokens(first[0]["content"] + first[1]["content"]),
        "ttft_first_ms": round(runs["first"].first_token_s * 1000),
        "ttft_cached_ms": round(runs["cached"].first_token_s * 1000),
        "tokens_per_s": round(tps, 1),
        "bare_tokens_per_s": round(bare, 1),
        "ratio": round(tps / bare, 3) if bare else None,
    }
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
