"""Precision and recall of the support check on hand-labelled answer sentences, calibrated on one half, reported on the other.

    python benchmarks/support_calibration.py [--labels tests/data/support_labels.jsonl.gz] [--json] [--verbose]

Each label says whether a sentence is supported by the passages it was written
from. Lines that carry their passages (and, for a sentence in another language
than the passages, its translation) are checked exactly as they were; older
lines without passages are checked against the 5 passages hybrid retrieval
gives for their question on the httpx docs. Each sentence is judged as the
pipeline judges it (``check_sentence``, knowing the question the model was
given: ``checked_against`` when the line has it, the question's rewrite for a
question in another language than the documents'): the checker predicts
"supported" when some passage's support score reaches the threshold, and a
sentence it exempts (one that only repeats the question, a docs-build include
line) counts as "not supported", since it is never shown as sourced. The
score's weights and threshold are fitted on the "calibrate" split
(``benchmarks/support_fit.py``; the sweep here shows the trade-off) and
the figures that count are those of the "report" split, by the question's
language and by the way the sentence was judged: "as written" (a sentence in
the documents' language, which is how the pipeline checks every answer since
the model answers in the documents' language) or "translated" (a sentence in
another language, judged through its translation: older answers, and answers
whose question could not be rewritten).
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import parse_args  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SWEEP = [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]


class Judged(NamedTuple):
    """One labelled sentence as the checker judged it."""

    split: str
    language: str
    score: float  # its best support score (0 when exempt)
    supported: bool  # the label
    path: str  # "as written" or "translated"


def precision_recall(pairs, threshold):
    tp = sum(1 for score, label in pairs if score >= threshold and label)
    fp = sum(1 for score, label in pairs if score >= threshold and not label)
    fn = sum(1 for score, label in pairs if score < threshold and label)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "tp": tp, "fp": fp, "fn": fn, "n": len(pairs)}


def labelled_checks(labels_path, corpus):
    """Each label line with the checker that judges it: its own passages (or, for an older line without them, the 5
    hybrid retrieval gives for its question on ``corpus``) and the question the model was given."""
    os.environ.setdefault("REPOBOT_HOME", tempfile.mkdtemp(prefix="repobot-calib-"))
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.support import SupportChecker

    with gzip.open(labels_path, "rt", encoding="utf-8") as lines:  # gzip: the passages make the plain file 3 MB
        labels = [json.loads(line) for line in lines if line.strip()]
    pipe = Pipeline(corpus)
    checkers: dict[str, SupportChecker] = {}
    for row in labels:
        passages = [p["text"] for p in row["passages"]] if row.get("passages") else None
        put = row.get("checked_against", row["question"])  # the question the model answered (its rewrite, if any)
        key = json.dumps([passages, put])
        if key not in checkers:
            passages = passages or [h.chunk.text for h in pipe.search(row["question"]).hits]
            checkers[key] = SupportChecker(pipe.models.embedder, passages, question=put)
        yield row, checkers[key]


def main() -> int:
    def extra(parser):
        parser.add_argument("--labels", default=str(ROOT / "tests" / "data" / "support_labels.jsonl.gz"))
        parser.add_argument("--verbose", action="store_true")

    args = parse_args("httpx", __doc__, extra)
    from repobot.engine.support import SUPPORT_THRESHOLD

    rows = []
    for row, checker in labelled_checks(args.labels, args.corpus):
        verdict = checker.check_sentence(row["sentence"], row.get("translation"))
        best = 0.0 if verdict.status == "exempt" else max(verdict.support.values(), default=0.0)
        path = "translated" if row.get("translation") else "as written"
        rows.append(Judged(row.get("split", "calibrate"), row.get("language", "en"), best, bool(row["supported"]), path))
        if args.verbose:
            print(f"{best:.3f} {'T' if row['supported'] else 'F'} {row.get('split', '?')[:3]} {row['sentence'][:90]}")

    def pairs(split=None, language=None, path=None):
        return [(r.score, r.supported) for r in rows
                if split in (None, r.split) and language in (None, r.language) and path in (None, r.path)]

    result = {
        "sentences": len(rows), "labelled_supported": sum(r.supported for r in rows), "threshold": SUPPORT_THRESHOLD,
        "calibrate_sweep": {f"{t:.2f}": precision_recall(pairs("calibrate"), t) for t in SWEEP},
        "report": {"all": precision_recall(pairs("report"), SUPPORT_THRESHOLD)}
        | {lang: precision_recall(pairs("report", lang), SUPPORT_THRESHOLD) for lang in sorted({r.language for r in rows})},
        "report_by_path": {how: precision_recall(pairs("report", path=how), SUPPORT_THRESHOLD)
                           for how in ("as written", "translated")},
        "calibrate": precision_recall(pairs("calibrate"), SUPPORT_THRESHOLD),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{len(rows)} labelled sentences ({result['labelled_supported']} supported), threshold {SUPPORT_THRESHOLD}")
    print("calibrate split, sweep:  threshold  precision  recall")
    for t, v in result["calibrate_sweep"].items():
        mark = "  <- current" if abs(float(t) - SUPPORT_THRESHOLD) < 1e-9 else ""
        print(f"{t:>33}  {v['precision']:>9.3f}  {v['recall']:>6.3f}{mark}")
    print("report split (held out):")
    for name, v in list(result["report"].items()) + list(result["report_by_path"].items()):
        print(f"  {name:>4}: precision {v['precision']:.3f}, recall {v['recall']:.3f} "
              f"(n {v['n']}: tp {v['tp']}, fp {v['fp']}, fn {v['fn']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
