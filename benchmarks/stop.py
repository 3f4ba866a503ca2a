"""Stopping the model while it reads a prompt: how soon it stops, and what the abort callback costs.

    python benchmarks/stop.py [--json] [--runs 3]

An answer's prompt (about 900 tokens of the httpx docs) is read by the default
model in a worker thread, as the window and ``repobot ask`` run it. Stop is
pressed 1 s and 4 s in: ``stop_ms`` is how long until RepoBot's ``Generation``
had ended. Then the cost: bare llama-cpp-python reads the same tokens with
llama.cpp's abort callback installed (what ``LLM.stopping_on`` does) and
without, alternating, in a worker thread; prompt tokens/s each way.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time

from common import machine, parse_args, show


def in_worker(work) -> float:
    """Seconds ``work()`` took on a worker thread."""
    took = []

    def run():
        started = time.perf_counter()
        work()
        took.append(time.perf_counter() - started)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return took[0]


def main() -> int:
    def extra(parser):
        parser.add_argument("--runs", type=int, default=3, help="alternating runs with and without the callback")

    args = parse_args("httpx", __doc__, extra)
    import ctypes
    from pathlib import Path

    import llama_cpp

    from repobot.engine.generate import Generation
    from repobot.engine.registry import ModelSet

    llm = ModelSet().llm
    passage = (Path(args.corpus) / "advanced" / "clients.md").read_text(encoding="utf-8")[:3500]
    messages = [{"role": "system", "content": "Answer from the passage in one sentence."},
                {"role": "user", "content": f"{passage}\n\nWhat is a client for?"}]
    result = {"machine": machine(), "prompt_tokens": llm.count_tokens(messages[1]["content"])}

    for after in (1.0, 4.0):
        cancel = threading.Event()
        generation = Generation(llm, messages, max_tokens=16, cancel=cancel)
        worker = threading.Thread(target=lambda: "".join(generation))
        worker.start()
        time.sleep(after)
        pressed = time.perf_counter()
        cancel.set()
        worker.join()
        result[f"stop_ms_after_{after:.0f}s"] = round((time.perf_counter() - pressed) * 1000)
        result[f"stop_reason_after_{after:.0f}s"] = generation.stop_reason

    llama = llm._llama
    tokens = llama.tokenize(messages[1]["content"].encode("utf-8"))
    callback = llama_cpp.ggml_abort_callback(lambda _data: False)
    rates = {"with_callback": [], "without": []}
    for run in range(args.runs):
        for name in (("with_callback", "without") if run % 2 else ("without", "with_callback")):
            installed = callback if name == "with_callback" else ctypes.cast(None, llama_cpp.ggml_abort_callback)
            llama_cpp.llama_set_abort_callback(llama._ctx.ctx, installed, None)
            llama.reset()
            rates[name].append(len(tokens) / in_worker(lambda: llama.eval(tokens)))
    llama_cpp.llama_set_abort_callback(llama._ctx.ctx, ctypes.cast(None, llama_cpp.ggml_abort_callback), None)
    for name, values in rates.items():
        result[f"bare_prompt_tokens_per_s_{name}"] = round(statistics.median(values), 1)
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
