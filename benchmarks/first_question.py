"""The first question of a fresh model: asked at once, after the window had it read its rules ahead, or in a process
after one that saved them.

    python benchmarks/first_question.py [--json] [--questions 4]

Every answer prompt begins with the same rules and worked example. For each
question, a fresh model (loaded anew, nothing evaluated) answers it three ways,
rotating the order: ``cold``, at once, with no saved state; ``prepared``, after
the window's ``Pipeline.prepare`` read them ahead (no saved state either); and
``restored``, at once, in a process after one that evaluated them, whose state
was saved (``engine/saved_state.py``), as for a second ``repobot ask``. The
first token is counted from the question, as the window counts it. Bare
llama-cpp-python is measured on the same answer prompts in the same run: a fresh
``Llama`` to its first token, with nothing evaluated and with the same constant
part evaluated first.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import HTTPX_QUESTIONS, machine, parse_args, show  # noqa: E402


def fresh_pipeline(corpus: str):
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.registry import ModelSet

    pipe = Pipeline(corpus, models=ModelSet())
    pipe.build_index()
    _ = pipe.models.embedder, pipe.models.side_llm  # loaded, as the window loads them, before anything is asked
    return pipe


def first_token_ms(corpus: str, question: str, way: str) -> tuple[float, float, list]:
    """A fresh model asked ``question`` one ``way``: (the prepare call's ms, the first token's ms after the question,
    the answer prompt). The states saved on disk are removed first, except to be ``restored``."""
    from repobot.engine.config import data_dir
    from repobot.engine.pipeline import AskOptions

    if way != "restored":
        shutil.rmtree(data_dir() / "prompt-states", ignore_errors=True)
    pipe = fresh_pipeline(corpus)
    reading = 0.0
    if way == "prepared":
        start = time.perf_counter()
        pipe.prepare()
        reading = (time.perf_counter() - start) * 1000
    answer = pipe.ask(question, AskOptions(gate=False, retry=False))
    return reading, answer.timings.first_token_ms, answer.prompt


def bare_first_token_ms(path: Path, messages, constant: list[int]) -> float:
    """A fresh bare ``Llama`` with RepoBot's settings: ms from the call to the first content delta, after
    evaluating ``constant`` first when it is given."""
    from llama_cpp import Llama

    from repobot.engine.config import physical_cores
    from repobot.engine.llama import Tuning, load_cpu_backends

    load_cpu_backends()
    tuning = Tuning()
    llama = Llama(model_path=str(path), n_ctx=4096, n_threads=tuning.threads or physical_cores(),
                  n_batch=tuning.batch, flash_attn=tuning.flash_attn, seed=42, verbose=False)
    if constant:
        llama.eval(constant)
    start = time.perf_counter()
    for part in llama.create_chat_completion(messages=list(messages), stream=True, max_tokens=8, temperature=0.0):
        if part["choices"][0]["delta"].get("content"):
            break
    return (time.perf_counter() - start) * 1000


def main() -> int:
    args = parse_args("httpx", __doc__, lambda p: p.add_argument("--questions", type=int, default=4))
    os.environ.setdefault("REPOBOT_HOME", tempfile.mkdtemp(prefix="repobot-first-"))
    from repobot.engine.models import resolve_model
    from repobot.engine.registry import load_llm

    questions = HTTPX_QUESTIONS[: args.questions]
    ways = ["cold", "prepared", "restored"]
    first: dict[str, list[float]] = {way: [] for way in ways}
    reading, bare_cold, bare_prepared = [], [], []
    for n, question in enumerate(questions):
        order = ways[n % 3:] + ways[: n % 3]
        if order[0] == "restored":
            order = order[1:] + order[:1]  # something must have saved the state before
        for way in order:
            read, ms, messages = first_token_ms(args.corpus, question, way)
            first[way].append(ms)
            if way == "prepared":
                reading.append(read)
        print(question + ": " + ", ".join(f"{way} {first[way][-1]:.0f} ms" for way in ways), file=sys.stderr)
        llm = load_llm(None)
        constant = llm.constant_part(messages)
        del llm
        bare_cold.append(bare_first_token_ms(resolve_model(None), messages, []))
        bare_prepared.append(bare_first_token_ms(resolve_model(None), messages, constant))
    result = {"machine": machine(), "model": resolve_model(None).name, "questions": len(questions)}
    result.update({f"first_token_{way}_ms_p50": round(statistics.median(first[way])) for way in ways})
    result.update(prepare_ms_p50=round(statistics.median(reading)),
                  bare_first_token_cold_ms_p50=round(statistics.median(bare_cold)),
                  bare_first_token_prepared_ms_p50=round(statistics.median(bare_prepared)),
                  constant_tokens=len(constant))
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
