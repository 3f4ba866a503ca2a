"""Compare system-prompt variants with a real model: does it cite, is it supported, does it refuse, is it right?

    python benchmarks/prompt_variants.py [--model FILE.gguf] [--split calibrate] [--questions Q.jsonl] [--json]

Each variant adds to the four rules (never removes one): ``shape`` shows the
citation format with placeholders (``… [2]. … [1][3].``), which a small model
cannot paste as its answer; ``deduction`` allows an answer the passages only
imply, marked as such; ``worked example`` puts one answered question on other
passages (a coffee machine) before the real one, so the model sees the format
done rather than described; ``refusal`` adds a worked turn before it in which
the same passages do not answer the question and the answer is the escape
phrase (for unanswerable questions, which the model otherwise answers from
neighbouring passages); ``question first`` also puts the question before the
passages, so the model reads them knowing what it is asked (not kept: see the
record). (The old copyable example sentence is gone: the 1.5B model returned it
word for word as its answer.) One table per model: run it once per model. Figures are
measured on the "calibrate" split: the variant is chosen there, and reported
on the "report" split by ``repobot eval``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, parse_args, show  # noqa: E402

VARIANTS = {
    "rules only": dict(),
    "shape": dict(shape=True),
    "deduction": dict(deduction=True),
    "worked example": dict(example=True),
    "worked example + deduction": dict(example=True, deduction=True),
    "worked example + question first": dict(example=True, ask_first=True),
    "worked example + refusal": dict(example=True, refusal=True),
}
COLUMNS = ("cited_rate", "supported_rate", "false_refusal_rate", "not_found_accuracy", "key_facts_rate", "verified_rate")


def main() -> int:
    def extra(parser):
        parser.add_argument("--model", help="a GGUF (default: the default model)")
        parser.add_argument("--questions", default=str(Path(__file__).resolve().parents[1] / "tests/data/httpx_questions.jsonl"))
        parser.add_argument("--split", default="calibrate")
        parser.add_argument("--variants", default=",".join(VARIANTS))

    args = parse_args("httpx", "Prompt variants: citations, support, refusals, key facts.", extra)
    from repobot.engine.evaluate import evaluate
    from repobot.engine.questions import load_questions
    from repobot.engine.pipeline import AskOptions, Pipeline
    from repobot.engine.prompt import PromptStyle

    questions = load_questions(args.questions, args.split)
    pipe = Pipeline(args.corpus, model=args.model)
    pipe.build_index()
    rows = {}
    for name in args.variants.split(","):
        options = AskOptions(style=PromptStyle(**VARIANTS[name]))
        summary = evaluate(pipe, questions, modes=["hybrid"], options=options)["modes"]["hybrid"]
        rows[name] = {key: summary[key] for key in COLUMNS}
        print(f"{name}: {rows[name]}", file=sys.stderr, flush=True)
    result = {"model": pipe.models.llm_label, "questions": len(questions), "split": args.split,
              "machine": machine(), "variants": rows}
    if args.json:
        show(result, True)
        return 0
    print(f"{result['model']}, {len(questions)} {args.split} questions ({machine()})")
    print("| variant | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join("-" if row[c] is None else f"{row[c]:.2f}" for c in COLUMNS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
