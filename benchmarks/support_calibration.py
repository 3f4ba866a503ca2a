"""Precision and recall of the support check on hand-labelled answer sentences.

    python benchmarks/support_calibration.py [--labels tests/data/support_labels.jsonl] [--json]

Each label says whether a sentence is supported by the 5 passages that hybrid
retrieval gives for its question on the httpx docs. The checker predicts
"supported" when some passage's support score reaches the threshold. A sweep
of thresholds shows the trade-off; the current threshold is marked.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from common import parse_args

ROOT = Path(__file__).resolve().parents[1]


def precision_recall(pairs, threshold):
    tp = sum(1 for score, label in pairs if score >= threshold and label)
    fp = sum(1 for score, label in pairs if score >= threshold and not label)
    fn = sum(1 for score, label in pairs if score < threshold and label)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return round(precision, 3), round(recall, 3), tp, fp, fn


def main() -> int:
    def extra(parser):
        parser.add_argument("--labels", default=str(ROOT / "tests" / "data" / "support_labels.jsonl"))
        parser.add_argument("--verbose", action="store_true")

    args = parse_args("httpx", __doc__, extra)
    os.environ.setdefault("REPOBOT_HOME", tempfile.mkdtemp(prefix="repobot-calib-"))
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.support import SUPPORT_THRESHOLD, SupportChecker

    labels = [json.loads(line) for line in Path(args.labels).read_text(encoding="utf-8").splitlines() if line.strip()]
    pipe = Pipeline(args.corpus)
    checkers = {}
    pairs = []
    for row in labels:
        if row["question"] not in checkers:
            hits, _ = pipe.search(row["question"])
            checkers[row["question"]] = SupportChecker(pipe.models.embedder, [h.chunk.text for h in hits])
        scores = checkers[row["question"]].scores(row["sentence"])
        best = max(scores.values())
        pairs.append((best, row["supported"]))
        if args.verbose:
            print(f"{best:.3f} {'T' if row['supported'] else 'F'} {row['sentence'][:90]}")
    sweep = {f"{t:.2f}": precision_recall(pairs, t) for t in [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]}
    p, r, tp, fp, fn = precision_recall(pairs, SUPPORT_THRESHOLD)
    result = {"sentences": len(pairs), "labelled_supported": sum(l for _, l in pairs), "threshold": SUPPORT_THRESHOLD,
              "precision": p, "recall": r, "tp": tp, "fp": fp, "fn": fn,
              "sweep": {t: {"precision": v[0], "recall": v[1]} for t, v in sweep.items()}}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{len(pairs)} labelled sentences ({result['labelled_supported']} supported)")
    print(f"threshold {SUPPORT_THRESHOLD}: precision {p:.3f}, recall {r:.3f} (tp {tp}, fp {fp}, fn {fn})")
    print("threshold  precision  recall")
    for t, (pp, rr, *_rest) in sweep.items():
        mark = "  <- current" if abs(float(t) - SUPPORT_THRESHOLD) < 1e-9 else ""
        print(f"{t:>9}  {pp:>9.3f}  {rr:>6.3f}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
