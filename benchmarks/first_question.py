"""The first question of a fresh model, asked at once or after the window had it read its rules ahead.

    python benchmarks/first_question.py [--json] [--questions 4]

The window has the model read what every answer prompt begins with (the rules
and worked example, and a rewrite's instructions) as soon as the folder and the
model are ready (``Pipeline.prepare``), while the user types. For each question,
a fresh model (loaded anew, nothing evaluated) answers it twice: at once
(``cold``), and after ``prepare`` (``prepared``), alternating which goes first.
The first token is counted from the question, as the window counts it. Bare
llama-cpp-python is measured on the same answer prompts in the same run: a fresh
``Llama`` to its first token, with nothing evaluated and with the same constant
part evaluated first (what ``prepare`` does, without RepoBot).
"""

from __future__ import annotations

import os
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


def first_token_ms(pipe, question: str, prepared: bool) -> tuple[float, float, list]:
    """(the prepare call's ms, the first token's ms after the question, the answer prompt)."""
    from repobot.engine.pipeline import AskOptions

    reading = 0.0
    if prepared:
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

    questions = HTTPX_QUESTIONS[: args.questions]
    cold, prepared, reading, bare_cold, bare_prepared = [], [], [], [], []
    model = ""
    for n, question in enumerate(questions):
        for ahead in ((False, True) if n % 2 else (True, False)):
            pipe = fresh_pipeline(args.corpus)
            read, ms, messages = first_token_ms(pipe, question, ahead)
            (prepared if ahead else cold).append(ms)
            if ahead:
                reading.append(read)
            llm, model = pipe.models.llm, pipe.models.llm.name
            constant = llm.constant_part(messages)
            del pipe, llm
        print(f"{question}: cold {cold[-1]:.0f} ms, prepared {prepared[-1]:.0f} ms", file=sys.stderr)
        bare_cold.append(bare_first_token_ms(resolve_model(None), messages, []))
        bare_prepared.append(bare_first_token_ms(resolve_model(None), messages, constant))
    result = {
        "machine": machine(), "model": model, "questions": len(questions),
        "first_token_cold_ms_p50": round(statistics.median(cold)),
        "first_token_prepared_ms_p50": round(statistics.median(prepared)),
        "prepare_ms_p50": round(statistics.median(reading)),
        "bare_first_token_cold_ms_p50": round(statistics.median(bare_cold)),
        "bare_first_token_prepared_ms_p50": round(statistics.median(bare_prepared)),
        "constant_tokens": len(constant),
    }
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
