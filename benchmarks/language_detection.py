"""How often ``languages.detect_language`` names the language a question was written in.

    python benchmarks/language_detection.py [--split report|calibrate|fresh] [--json]

``tests/data/language_questions.tsv`` holds short questions a developer would type
(split, language, question): 150 ``calibrate`` ones that the rules were
chosen on (35 of our own, 115 by a helper), and 115 ``report`` ones written
afterwards by another helper and not read while the rules changed, and 160 ``fresh`` ones (2026-12-06, a
third helper, half of them keyword queries around English names such as "nginx redirigir http a https"),
written after the classifier was chosen and not used to change it. A question read
as the wrong language is answered in it (French for a Portuguese question), or in
English with a note naming the wrong language.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from repobot.engine.languages import detect_language

QUESTIONS = Path(__file__).resolve().parent.parent / "tests" / "data" / "language_questions.tsv"


def score(rows: list[tuple[str, str]]) -> dict:
    """Correct detections per language and overall, with the misses."""
    right, total, misses = collections.Counter(), collections.Counter(), []
    for lang, question in rows:
        found = detect_language(question)
        total[lang] += 1
        right[lang] += found == lang
        if found != lang:
            misses.append({"language": lang, "detected": found, "question": question})
    return {"correct": sum(right.values()), "total": sum(total.values()),
            "by_language": {lang: f"{right[lang]}/{total[lang]}" for lang in sorted(total)}, "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("calibrate", "report", "fresh"), default="report")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [tuple(line.split("\t")[1:]) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()
            if line.startswith(args.split + "\t")]
    result = score(rows)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return
    print(f"{args.split}: {result['correct']} of {result['total']} questions read as their language")
    for lang, share in result["by_language"].items():
        print(f"  {lang}: {share}")
    for miss in result["misses"]:
        print(f"  miss: {miss['language']} read as {miss['detected']}: {miss['question']}")


if __name__ == "__main__":
    main()
