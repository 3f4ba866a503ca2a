"""Collect sentences the default model writes, with the passages they were written from, for labelling.

    python benchmarks/support_sentences.py --questions tests/data/httpx_questions.jsonl --out /tmp/to_label.jsonl

Each line: the question, its language and split, the question the model was
given (``checked_against``: its rewrite when it answered that in the documents'
language), one sentence of the model's answer (prose, not the escape phrase or
a line introducing code), its translation into the documents' language when it
is in another one, and the five passages (id, source, text). The checker's own
verdict is written to a separate ``--verdicts`` file, so that whoever labels
does not see it.
Labelled lines go to ``tests/data/support_labels.jsonl.gz`` with ``"supported"`` (appended as one more gzip
member: ``gzip -c labelled.jsonl >> tests/data/support_labels.jsonl.gz``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import parse_args  # noqa: E402


def main() -> int:
    def extra(parser):
        parser.add_argument("--questions", required=True)
        parser.add_argument("--out", required=True)
        parser.add_argument("--verdicts", default=None)
        parser.add_argument("--model", default=None)

    args = parse_args("httpx", "Collect model sentences to label.", extra)
    from repobot.engine.questions import load_questions
    from repobot.engine.prompt import given_question
    from repobot.engine.pipeline import Pipeline

    pipe = Pipeline(args.corpus, model=args.model)
    pipe.build_index()
    out, verdicts = open(args.out, "w", encoding="utf-8"), []
    for q in load_questions(args.questions):
        answer = pipe.ask(q.question)
        passages = [{"id": h.rank, "source": h.chunk.source, "text": h.chunk.text} for h in answer.retrieved]
        put = given_question(answer.prompt) or q.question
        for s in answer.sentences:
            if s.status == "exempt" or s.is_code:
                continue
            row = {"question": q.question, "language": q.language, "split": q.split, "checked_against": put,
                   "sentence": s.text, "translation": s.checked_as, "passages": passages, "origin": answer.model}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            verdicts.append({"sentence": s.text, "status": s.status, "support": s.support})
        print(f"{q.question[:60]}: {len(answer.sentences)} sentence(s)", file=sys.stderr, flush=True)
    out.close()
    if args.verdicts:
        Path(args.verdicts).write_text("\n".join(json.dumps(v, ensure_ascii=False) for v in verdicts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
