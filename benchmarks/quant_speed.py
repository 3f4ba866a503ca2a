"""What the default model's weights would gain on these cores stored in another llama.cpp layout.

    python benchmarks/quant_speed.py [--json] [--rounds 3] [--model FILE]

DESIGN.md pins the default model as Qwen2.5-Coder-0.5B-Instruct Q4_K_M, and the
time to the first token is mostly prompt evaluation. This script asks what the
same weights would give if RepoBot stored them differently: it re-quantizes the
installed file (``llama_model_quantize``, ``allow_requantize``) into a temporary
folder as Q8_0 (a lossless-in-practice widening of the 4-bit values, about 185 MB
more) and as Q4_0 (a second rounding, which llama.cpp repacks for AVX2), then
measures bare llama-cpp-python on each, with RepoBot's own settings (a thread
per physical core, batch 512, flash attention):

- prompt evaluation of the same 1,000 tokens of the httpx docs, and greedy
  decoding of 64 tokens after it, in alternating order over ``--rounds`` rounds
  (medians);
- how far each copy's greedy answers agree with the original's on a few
  questions put with a docs page (the share of identical answers, and the mean
  share of the original's answer that the copy repeats word for word from the
  start): a rough proxy for whether the copy would answer as the default does.

Nothing is written outside the temporary folder, and nothing here changes what
RepoBot installs.
"""

from __future__ import annotations

import ctypes
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import HTTPX_QUESTIONS, machine, parse_args, show  # noqa: E402

LAYOUTS = ("Q8_0", "Q4_0")
PROMPT_TOKENS, DECODE_TOKENS, ANSWER_TOKENS = 1000, 64, 96
# Each question with the httpx page that answers it (put whole, up to 2,500 characters, before the question).
AGREEMENT = [(HTTPX_QUESTIONS[0], "compatibility.md"), (HTTPX_QUESTIONS[2], "advanced/ssl.md"),
             (HTTPX_QUESTIONS[4], "advanced/transports.md"), (HTTPX_QUESTIONS[5], "http2.md")]


def requantize(source: Path, target: Path, layout: str) -> float:
    """Write ``source`` re-quantized to ``layout`` at ``target``; the seconds it took."""
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{layout}")
    params.allow_requantize = True
    start = time.perf_counter()
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params)) != 0:
        raise SystemExit(f"llama.cpp could not re-quantize {source.name} to {layout}")
    return time.perf_counter() - start


def load(path: Path):
    import llama_cpp

    from repobot.engine.config import physical_cores
    from repobot.engine.llama import Tuning, load_cpu_backends

    load_cpu_backends()
    tuning = Tuning()
    return llama_cpp.Llama(model_path=str(path), n_ctx=4096, n_threads=tuning.threads or physical_cores(),
                           n_batch=tuning.batch, flash_attn=tuning.flash_attn, seed=42, verbose=False)


def speed(path: Path, text: str) -> tuple[float, float]:
    """Prompt and decode tokens per second of a freshly loaded model."""
    llm = load(path)
    tokens = llm.tokenize(text.encode())[:PROMPT_TOKENS]
    start = time.perf_counter()
    llm.eval(tokens)
    prompt = len(tokens) / (time.perf_counter() - start)
    start = time.perf_counter()
    for _ in range(DECODE_TOKENS):
        llm.eval([llm.sample(temp=0.0)])
    return prompt, DECODE_TOKENS / (time.perf_counter() - start)


def answers(path: Path, corpus: Path) -> list[str]:
    llm = load(path)
    out = []
    for question, page in AGREEMENT:
        passage = (corpus / page).read_text(encoding="utf-8")[:2500]
        messages = [{"role": "system", "content": "Answer the question from the passage, briefly."},
                    {"role": "user", "content": f"Passage:\n{passage}\n\nQuestion: {question}"}]
        reply = llm.create_chat_completion(messages=messages, max_tokens=ANSWER_TOKENS, temperature=0.0)
        out.append(reply["choices"][0]["message"]["content"])
    return out


def shared_start(original: str, copy: str) -> float:
    """The share of ``original``'s words that ``copy`` repeats from the start.

    >>> shared_start("Use verify=False to turn it off.", "Use verify=False to disable it.")
    0.5
    """
    words, other = original.split(), copy.split()
    same = next((i for i, (a, b) in enumerate(zip(words, other)) if a != b), min(len(words), len(other)))
    return same / len(words) if words else 1.0


def main() -> int:
    def extra(parser):
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--model", help="a Q4_K_M .gguf (default: the installed default model)")

    args = parse_args("httpx", __doc__, extra)
    os.environ.setdefault("REPOBOT_HOME", tempfile.mkdtemp(prefix="repobot-quant-"))
    from repobot.engine.models import default_model_path

    source = Path(args.model) if args.model else default_model_path()
    if not source.is_file():
        print(f"benchmark skipped: no model at {source} (run `make install`)", file=sys.stderr)
        return 2
    corpus = Path(args.corpus)
    text = (corpus / "quickstart.md").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="repobot-quant-") as folder:
        files = {"Q4_K_M (as installed)": source}
        made = {}
        for layout in LAYOUTS:
            files[layout] = Path(folder) / f"{source.stem}.{layout}.gguf"
            made[layout] = round(requantize(source, files[layout], layout), 1)
        rates: dict[str, list[tuple[float, float]]] = {name: [] for name in files}
        for n in range(args.rounds):
            for name in (list(files) if n % 2 == 0 else list(files)[::-1]):
                rates[name].append(speed(files[name], text))
                print(f"round {n + 1}: {name}: prompt {rates[name][-1][0]:.1f}, decode {rates[name][-1][1]:.1f} "
                      "tokens/s", file=sys.stderr)
        original = answers(source, corpus)
        result = {"machine": machine(), "model": source.name, "prompt_tokens": PROMPT_TOKENS, "rounds": args.rounds}
        for name, path in files.items():
            row = {"size_mb": round(path.stat().st_size / 1e6),
                   "prompt_tokens_per_s": round(statistics.median(r[0] for r in rates[name]), 1),
                   "decode_tokens_per_s": round(statistics.median(r[1] for r in rates[name]), 1)}
            if name in made:
                mine = answers(path, corpus)
                row |= {"requantize_s": made[name],
                        "same_answers": f"{sum(a == b for a, b in zip(original, mine))} of {len(original)}",
                        "shared_start": round(statistics.mean(map(shared_start, original, mine)), 2)}
            result[name] = row
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
