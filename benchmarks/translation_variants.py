"""How faithfully the default model translates checked answers: prompt variants, labelled blind by reviewers.

    python benchmarks/translation_variants.py score [--labels tests/data/translation_labels.jsonl] [--json]
    python benchmarks/translation_variants.py translate EVAL.json... --split calibrate --out rows.jsonl

A question in another language than the documents' is answered in theirs and
its checked sentences are translated after (``engine/translate.py``). The
``translate`` step takes ``repobot eval --json`` runs, keeps their verified
non-English answers, and translates up to five prose sentences of each model
answer with every variant; it writes one row per distinct translation, shuffled
and without the variant's name (kept in ``rows.jsonl.key.json``), for reviewers
to label ``faithful``, ``flawed`` (meaning kept, form broken: left in English,
ungrammatical, a minor detail dropped) or ``wrong`` (a reader takes away another
claim: a negation lost, a condition dropped, something added, another sentence).

The ``score`` step counts the labels by split, variant and language. The
variant was chosen on the ``calibrate`` rows; the ``report`` rows are the figure.

Variants: ``numbered`` (all sentences in one call, as numbered lines: the old
way), ``one_per_call`` (each sentence alone), ``one_per_call_example`` (each
sentence alone after the languages' fixed example sentence: the engine's way).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "data" / "translation_labels.jsonl"
VARIANTS = ("numbered", "one_per_call", "one_per_call_example")
KINDS = ("faithful", "flawed", "wrong", "missing")


def numbered_messages(sentences: list[str], target: str) -> list[dict[str, str]]:
    """The old prompt: every sentence in one call, as numbered lines."""
    from repobot.engine.languages import language

    system = (f"Translate each numbered line into {language(target).name}. Keep code, identifiers, numbers and [n] "
              "markers exactly. Reply with the same numbered lines only.")
    return [{"role": "system", "content": system},
            {"role": "user", "content": "\n".join(f"{i}. {s.strip()}" for i, s in enumerate(sentences, 1))}]


def parse_numbered(output: str, count: int) -> list[str | None]:
    """Each numbered line's text, None where the model gave none.

    >>> parse_numbered("2) second\\n1、 first\\nnoise\\n7. out of range", 3)
    ['first', 'second', None]
    """
    found: list[str | None] = [None] * count
    for line in output.splitlines():
        match = re.match(r"^\s*(\d+)[.)、:：]\s*(.+)$", line)
        if match and 1 <= int(match.group(1)) <= count and found[int(match.group(1)) - 1] is None:
            found[int(match.group(1)) - 1] = match.group(2).strip()
    return found


def translations(complete, sentences: list[str], target: str) -> dict[str, list[str | None]]:
    """Each variant's translation of each sentence (English, the documents' language, into ``target``)."""
    from repobot.engine.rewrite import accept_translation, sentence_messages

    def alone(sentence: str, example: bool) -> str | None:
        system, *shown, asked = sentence_messages(sentence, "en", target)  # the engine's prompt, with its example
        return accept_translation(complete([system, *(shown if example else []), asked], 120), target)

    return {"numbered": parse_numbered(complete(numbered_messages(sentences, target), 80 * len(sentences) + 32),
                                       len(sentences)),
            "one_per_call": [alone(s, False) for s in sentences],
            "one_per_call_example": [alone(s, True) for s in sentences]}


def translate(args) -> int:
    from repobot.engine.generate import Generation
    from repobot.engine.languages import answer_language, detect_language
    from repobot.engine.registry import ModelSet
    from repobot.engine.support import answer_sentences
    from repobot.engine.text import segments, strip_citations

    llm = ModelSet(None, None).llm

    def complete(messages, cap):
        return "".join(Generation(llm, messages, max_tokens=cap)).strip()

    rows, key, seconds = [], {}, collections.Counter()
    for run in args.runs:
        for r in json.loads(Path(run).read_text(encoding="utf-8"))["questions"]:
            if r["verdict"] != "verified" or r["language"] == "en":
                continue
            target = answer_language(detect_language(r["question"])).code
            sentences = [strip_citations(s).strip() for seg in segments(r["model_answer"]) if not seg.is_code
                         for s in answer_sentences(seg.text)]
            sentences = [s for s in sentences if s and "<doc" not in s and not s.startswith("#")][:5]
            if not sentences:
                continue
            started = time.perf_counter()
            found = translations(complete, sentences, target)
            seconds["all variants"] += time.perf_counter() - started
            for j, english in enumerate(sentences):
                distinct: dict[str | None, list[str]] = {}
                for variant, texts in found.items():
                    distinct.setdefault(texts[j], []).append(variant)
                for text, variants in distinct.items():
                    row = {"id": f"{len(rows)}", "split": args.split, "question": r["question"], "target": target,
                           "english": english, "translation": text}
                    rows.append(row)
                    key[row["id"]] = variants
    random.Random(7).shuffle(rows)
    Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    Path(args.out + ".key.json").write_text(json.dumps(key), encoding="utf-8")
    print(f"{len(rows)} rows to label in {args.out} ({seconds['all variants']:.0f} s of translation)")
    return 0


def score(rows: list[dict]) -> dict:
    """Label counts by split, variant and language ("all" for every language).

    >>> score([{"split": "report", "variants": ["numbered"], "target": "zh", "label": "wrong"}])["report"]["numbered"]["all"]
    {'n': 1, 'faithful': 0, 'flawed': 0, 'wrong': 1, 'missing': 0}
    """
    out: dict = {}
    for row in rows:
        for variant in row["variants"]:
            for lang in ("all", row["target"]):
                counts = out.setdefault(row["split"], {}).setdefault(variant, {}).setdefault(
                    lang, {"n": 0, **{k: 0 for k in KINDS}})
                counts["n"] += 1
                counts[row["label"]] += 1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score")
    s.add_argument("--labels", default=str(LABELS))
    s.add_argument("--json", action="store_true")
    t = sub.add_parser("translate")
    t.add_argument("runs", nargs="+", help="repobot eval --json outputs")
    t.add_argument("--split", required=True, choices=["calibrate", "report"])
    t.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.command == "translate":
        return translate(args)
    rows = [json.loads(line) for line in Path(args.labels).read_text(encoding="utf-8").splitlines() if line.strip()]
    table = score(rows)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    print(f"{'split':10s} {'variant':22s} {'lang':4s} {'n':>4s} " + " ".join(f"{k:>8s}" for k in KINDS))
    for split in ("calibrate", "report"):
        for variant in VARIANTS:
            for lang, c in sorted(table.get(split, {}).get(variant, {}).items(), key=lambda kv: kv[0] != "all"):
                print(f"{split:10s} {variant:22s} {lang:4s} {c['n']:4d} "
                      + " ".join(f"{c[k] / c['n']:8.3f}" for k in KINDS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
