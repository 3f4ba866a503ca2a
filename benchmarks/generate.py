"""Answer speed on the httpx docs with the default model, side by side with bare llama-cpp-python on the same prompts.

    python benchmarks/generate.py [--json] [--questions 12] [--other-languages] [--levers | --levers-only [--lever TEXT]]

For each question, RepoBot answers it whole (retrieve, quotes, prompt, stream,
check) and reports when the first useful text was ready (the quoted preview),
when the model's first token came, and when the checked answer was done; p50
and p95 over the questions. Then the same prompt is decoded twice more, once
through RepoBot's streaming ``Generation`` and once by a bare
``Llama.create_chat_completion`` stream, alternating which goes first; both
count content deltas over the same span (first delta to last) and the ratio
is the median of the per-question ratios. ``ttft_first_ms`` is the first
question of a fresh model (nothing cached: the run's data folder is a new
temporary one unless ``REPOBOT_HOME`` is set, so no saved prompt state is read
back; ``benchmarks/first_question.py`` measures that) and ``ttft_cached_ms`` the
second (the system prompt and worked example are then cached).

``--levers`` also measures what each speed lever buys on these questions:
passages trimmed for the prompt or whole, hits read with or without their
neighbouring chunks, prompt-lookup speculative decoding,
the RAM cache of evaluated prompts (which keeps the rules and worked example
ready after a translation came in between), flash attention, and llama.cpp's
thread count and batch size, and rewrites and translations run in the answer's own llama.cpp context instead of
a second one (``--levers-only``: those alone; ``--lever TEXT``: only the levers whose name holds TEXT, beside the
defaults, each run twice in the order ABBA). Each lever's figures are also printed to stderr as soon as they are
measured. ``--other-languages`` asks eight questions in Chinese, French and Japanese instead (rewritten into
English, and their checked answers translated back).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import HTTPX_QUESTIONS as QUESTIONS, OTHER_LANGUAGE_QUESTIONS, machine, parse_args, percentile, show  # noqa: E402



def bare_stream(llama, messages, max_tokens: int) -> tuple[int, float]:
    """Content deltas and seconds from the first to the last, through bare llama-cpp-python."""
    count, first, last = 0, None, None
    for part in llama.create_chat_completion(messages=list(messages), stream=True, max_tokens=max_tokens,
                                             temperature=0.0, top_p=0.9, repeat_penalty=1.1):
        if part["choices"][0]["delta"].get("content"):
            now = time.perf_counter()
            count, first, last = count + 1, first or now, now
    return count, (last - first) if first else 0.0


def repobot_stream(llm, messages, max_tokens: int) -> tuple[int, float]:
    """The same count over the same span, through RepoBot's streaming Generation."""
    from repobot.engine.generate import Generation

    count, first, last = 0, None, None
    for _ in Generation(llm, messages, max_tokens=max_tokens):
        now = time.perf_counter()
        count, first, last = count + 1, first or now, now
    return count, (last - first) if first else 0.0


def rate(count: int, span: float) -> float:
    return (count - 1) / span if count > 1 and span > 0 else 0.0


def measure_answers(pipe, questions, options) -> dict:
    """RepoBot's own timings over whole answers."""
    rows = []
    for question in questions:
        a = pipe.ask(question, options)
        rows.append(a.timings)
    first_token = [t.first_token_ms for t in rows if t.first_token_ms is not None]
    content = [t.first_content_ms for t in rows if t.first_content_ms is not None]
    total = [t.total_ms for t in rows]
    prompt = [t.prompt_tokens for t in rows if t.prompt_tokens]

    def p(values, q):
        return round(percentile(values, q)) if values else None

    return {
        "first_content_ms_p50": p(content, 0.5), "first_content_ms_p95": p(content, 0.95),
        "first_token_ms_p50": p(first_token, 0.5), "first_token_ms_p95": p(first_token, 0.95),
        "total_ms_p50": p(total, 0.5), "total_ms_p95": p(total, 0.95),
        "prompt_tokens_p50": p(prompt, 0.5),
    }


def main() -> int:
    def extra(parser):
        parser.add_argument("--questions", type=int, default=len(QUESTIONS))
        parser.add_argument("--tokens", type=int, default=96)
        parser.add_argument("--levers", action="store_true")
        parser.add_argument("--levers-only", action="store_true", help="measure the levers alone (skip the comparison)")
        parser.add_argument("--lever", default="", help="only the levers whose name holds this text, run twice (ABBA)")
        parser.add_argument("--other-languages", action="store_true", help="questions in Chinese, French, Japanese")

    args = parse_args("httpx", __doc__, extra)
    os.environ.setdefault("REPOBOT_HOME", tempfile.mkdtemp(prefix="repobot-gen-"))
    from repobot.engine.pipeline import AskOptions, Pipeline

    questions = (OTHER_LANGUAGE_QUESTIONS if args.other_languages else QUESTIONS)[: args.questions]
    pipe = Pipeline(args.corpus)
    pipe.build_index()
    llm = pipe.models.llm
    options = AskOptions(gate=False)

    result = {"machine": machine(), "model": llm.name, "questions": len(questions)}
    if args.levers_only:
        result["levers"] = levers(pipe, questions, options, args.lever)
        show(result, args.json)
        return 0
    firsts = [pipe.ask(q, options).timings.first_token_ms for q in questions[:2]]  # fresh model: nothing cached
    result.update(measure_answers(pipe, questions, options))
    result["ttft_first_ms"], result["ttft_cached_ms"] = (round(f) if f else None for f in firsts)

    # decoding: the same prompts, RepoBot and bare, alternating which goes first
    ratios, ours, bare, prompt_rates = [], [], [], []
    for n, question in enumerate(questions):
        messages = pipe.ask(question, options).prompt
        runs = [("bare", lambda: bare_stream(llm._llama, messages, args.tokens)),
                ("repobot", lambda: repobot_stream(llm, messages, args.tokens))]
        got = dict((name, rate(*run())) for name, run in (runs if n % 2 else runs[::-1]))
        if got["bare"] and got["repobot"]:
            ours.append(got["repobot"])
            bare.append(got["bare"])
            ratios.append(got["repobot"] / got["bare"])
        llm._llama.reset()  # prompt speed: the whole prompt, nothing cached (nor restored from the RAM cache)
        cache, llm._llama.cache = llm._llama.cache, None
        tokens = llm.count_tokens("".join(m["content"] for m in messages))
        start = time.perf_counter()
        next(iter(llm._llama.create_chat_completion(messages=list(messages), stream=True, max_tokens=1)))
        prompt_rates.append(tokens / (time.perf_counter() - start))
        llm._llama.cache = cache
    result.update(
        prompt_tokens=result.pop("prompt_tokens_p50"),
        prompt_tokens_per_s=round(statistics.median(prompt_rates), 1),
        tokens_per_s=round(statistics.median(ours), 1),
        bare_tokens_per_s=round(statistics.median(bare), 1),
        ratio=round(statistics.median(ratios), 3),
    )
    if args.levers:
        result["levers"] = levers(pipe, questions, options, args.lever)
    show(result, args.json)
    return 0


def levers(pipe, questions, options, only: str = "") -> dict:
    """What each lever buys, measured on the same questions; each result is also printed to stderr as it comes,
    and a lever that fails is reported as such instead of losing the others. With ``only``, the defaults and the
    levers whose name holds it are run twice each, in the order ABBA, and each figure is the mean of its two runs."""
    from dataclasses import replace

    from repobot.engine.llama import LlamaCppLLM, Tuning
    from repobot.engine.models import resolve_model

    models = pipe.models
    default, side = models.llm, models.side_llm
    runs = [("defaults", None, options)]
    runs += [(f"passages trimmed to {n} sentences", None, replace(options, trim=n)) for n in (2, 3, 4)]
    runs += [("hits read alone, without their neighbouring chunks", None, replace(options, read=0))]
    runs += [("rewrites and translations in the answer's context", "one context", options)]
    runs += [(name, tuning, options) for name, tuning in (
        ("prompt lookup 10", Tuning(prompt_lookup=10)), ("768 MB state cache", Tuning(state_cache_mb=768)),
        ("no flash attention", Tuning(flash_attn=False)), ("1 thread", Tuning(threads=1)),
        ("batch 128", Tuning(batch=128)), ("batch 2048", Tuning(batch=2048)))]
    if only:
        chosen = [r for r in runs[1:] if only in r[0]]
        runs = [runs[0], *chosen, *chosen[::-1], runs[0]]
    out: dict[str, list] = {}
    for name, tuning, run_options in runs:
        try:
            if tuning == "one context":
                models._side = models._llm
            elif tuning is not None:
                models._llm = None  # free the previous model before loading the next
                models._llm = LlamaCppLLM(resolve_model(None), tuning=tuning)
            figures = measure_answers(pipe, questions, run_options)
        except Exception as err:  # noqa: BLE001 - a benchmark reports what failed and goes on
            figures = {"error": f"{type(err).__name__}: {str(err)[:200]}"}
        finally:
            models._llm, models._side = default, side
        out.setdefault(name, []).append(figures)
        print(name, figures, file=sys.stderr, flush=True)
    return {name: got[0] if len(got) == 1 else mean_of(got) for name, got in out.items()}


def mean_of(runs: list[dict]) -> dict:
    """The mean of each figure over runs of the same lever (an error if any run failed)."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    return {key: round(statistics.mean(r[key] for r in runs)) if all(r[key] is not None for r in runs) else None
            for key in runs[0]}


if __name__ == "__main__":
    sys.exit(main())
