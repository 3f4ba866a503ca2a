"""The hand labels the support check's precision and recall rest on (``benchmarks/support_calibration.py``)."""

import gzip
import json
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "tests" / "data" / "support_labels.jsonl.gz"


def _labels():
    with gzip.open(LABELS, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_every_label_is_a_sentence_with_a_verdict():
    for row in _labels():
        assert row["question"].strip() and row["sentence"].strip(), row
        assert isinstance(row["supported"], bool), row
        assert row.get("split", "calibrate") in ("calibrate", "report"), row
        for passage in row.get("passages") or []:
            assert passage["text"].strip() and passage["source"], row["sentence"]


def test_the_labels_cover_what_the_issue_asks_of_the_default_model():
    qwen = [row for row in _labels() if row.get("origin", "").startswith("qwen2.5-coder-0.5b")]
    by_language = Counter(row["language"] for row in qwen)
    assert by_language["en"] >= 40 and by_language["zh"] >= 30
    # sentences checked the way the pipeline checks them now (in the documents' language), never calibrated on
    as_written = [row for row in qwen if row["split"] == "report" and not row.get("translation")]
    assert len(as_written) >= 100


def test_the_question_the_model_was_given_is_read_off_its_prompt():
    from repobot.engine.prompt import given_question

    passages = '<docs>\n<doc id="1" source="a.md">\nRedirects.\n</doc>\n</docs>'
    prompt = [{"role": "system", "content": "Rules."},
              {"role": "user", "content": f"{passages}\n\n问题：httpx 会重试吗？\n\n第二段。"}]
    assert given_question(prompt) == "httpx 会重试吗？\n\n第二段。"
    assert given_question([]) is None
