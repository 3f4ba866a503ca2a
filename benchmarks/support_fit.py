"""Fit the support score's logistic weights on the "calibrate" labels, and choose its threshold there.

    python benchmarks/support_fit.py [--labels tests/data/support_labels.jsonl.gz] [--c 0.1] [--json]

The labels say whether a sentence is supported by its passages, not which
passage supports it, so the fit is a multiple-instance one: each sentence is
represented by its passage with the highest score (over the sentence as written
and, for a sentence in another language, its translation), first by the sum of
similarity and overlap, then, for three rounds, by the model just fitted.
Exempt sentences (a heading, a line leading into code) are left out; the rules
on top of the model (``CAP``, ``POLARITY_PENALTY`` in ``engine/support_score.py``)
apply when a passage is picked and when a sentence is scored. The threshold is
the one with the best F1 on the calibrate labels. The script prints the weights
to put in ``engine/support_score.py`` and whether they are the ones there; the
report labels are judged by ``benchmarks/support_calibration.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import parse_args  # noqa: E402
from benchmarks.support_calibration import ROOT, labelled_checks, precision_recall  # noqa: E402

ROUNDS = 3
THRESHOLDS = [round(0.3 + 0.05 * i, 2) for i in range(12)]  # 0.3 .. 0.85


def fit_logistic(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method (the intercept is not penalised): sum of log losses
    plus ||w||^2 / (2c), as scikit-learn's ``LogisticRegression(C=c)``."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    penalty = np.full(xb.shape[1], 1.0 / c)
    penalty[-1] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-xb @ w))
        gradient = xb.T @ (p - y) + penalty * w
        hessian = xb.T @ (xb * (p * (1 - p))[:, None]) + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w[:-1], float(w[-1])


def main() -> int:
    def extra(parser):
        parser.add_argument("--labels", default=str(ROOT / "tests" / "data" / "support_labels.jsonl.gz"))
        parser.add_argument("--c", type=float, default=0.1, help="inverse regularisation strength")

    args = parse_args("httpx", __doc__, extra)
    from repobot.engine.support_score import INTERCEPT, SUPPORT_THRESHOLD, WEIGHTS, features, support_score
    from repobot.engine.text import strip_citations

    sentences = []  # per calibrate sentence: (label, every passage's Signals under each reading)
    for row, checker in labelled_checks(args.labels, args.corpus):
        if row.get("split", "calibrate") != "calibrate":
            continue
        if checker.check_sentence(row["sentence"], row.get("translation")).status == "exempt":
            continue
        readings = [row["sentence"]] + ([row["translation"]] if row.get("translation") else [])
        signals = [s for text in readings for s in checker.signals(strip_citations(text), row["sentence"]).values()]
        if signals:
            sentences.append((bool(row["supported"]), signals))

    def pick(weights, intercept):
        if weights is None:
            return [max(s, key=lambda x: x.similarity + x.overlap) for _, s in sentences]
        return [max(s, key=lambda x: support_score(x, weights, intercept)) for _, s in sentences]

    labels = np.array([label for label, _ in sentences], dtype=float)
    weights, intercept = None, 0.0
    for _ in range(ROUNDS + 1):
        chosen = pick(weights, intercept)
        weights, intercept = fit_logistic(np.array([features(s) for s in chosen]), labels, args.c)
    weights = [round(float(w), 2) for w in weights]
    intercept = round(intercept, 2)
    scores = [max(support_score(x, weights, intercept) for x in s) for _, s in sentences]
    sweep = {t: precision_recall(list(zip(scores, labels.astype(bool))), t) for t in THRESHOLDS}

    def f1(v):
        return 2 * v["precision"] * v["recall"] / (v["precision"] + v["recall"]) if v["tp"] else 0.0

    best = max(THRESHOLDS, key=lambda t: f1(sweep[t]))
    current = list(WEIGHTS) == weights and INTERCEPT == intercept and SUPPORT_THRESHOLD == best
    result = {"sentences": len(sentences), "c": args.c, "weights": weights, "intercept": intercept,
              "threshold": best, "calibrate": sweep[best], "same_as_engine": current}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{len(sentences)} calibrate sentences (exempt ones left out), C={args.c}")
    print(f"WEIGHTS = {tuple(weights)}\nINTERCEPT = {intercept}\nSUPPORT_THRESHOLD = {best}")
    print("calibrate sweep:  threshold  precision  recall  F1")
    for t, v in sweep.items():
        print(f"{t:>26.2f}  {v['precision']:>9.3f}  {v['recall']:>6.3f}  {f1(v):.3f}{'  <- best' if t == best else ''}")
    print("engine/support_score.py has these:", "yes" if current else "no, copy them there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
