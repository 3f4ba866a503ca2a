"""repobot eval on a small fixture, with deterministic fakes."""

import json

import pytest

from repobot.engine.errors import RepoBotError
from repobot.engine.evaluate import evaluate, format_table, load_questions
from repobot.engine.pipeline import Pipeline
from tests.conftest import fake_models

QUESTIONS = [
    {"question": "Does HTTPX follow redirects by default?", "answerable": True,
     "gold_sources": ["guide/redirects.md"], "key_facts": ["follow redirects"]},
    {"question": "What is the default timeout?", "answerable": True,
     "gold_sources": ["timeouts.md"], "key_facts": [["5 seconds", "five seconds"]], "split": "calibrate"},
    {"question": "Quel est le délai d'attente par défaut ?", "answerable": True, "language": "fr",
     "gold_sources": ["timeouts.md"], "key_facts": [["5 seconds", "5 secondes"]]},
    {"question": "Does HTTPX support HTTP/3?", "answerable": False, "gold_sources": [], "key_facts": []},
]


@pytest.fixture
def questions_file(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return path


def test_eval_reports_every_metric_per_mode_and_language(docs, questions_file):
    pipe = Pipeline(docs, models=fake_models("HTTPX does not follow redirects by default."))
    result = evaluate(pipe, load_questions(questions_file), modes=["bm25", "hybrid"])
    assert result["n_questions"] == 4
    for mode in ("bm25", "hybrid"):
        m = result["modes"][mode]
        assert set(m) >= {"hit_at_5", "mrr", "no_invalid_rate", "supported_rate", "key_facts_rate",
                          "not_found_accuracy", "false_refusal_rate", "ttft_ms_p50", "total_ms_p50",
                          "verified_rate", "attributed_rate", "cited_rate", "shown_invalid", "by_language"}
        assert m["hit_at_5"] == 1.0
        assert m["not_found_accuracy"] == 1.0  # HTTP/3 is refused by the gate
        assert m["shown_invalid"] == 0
        assert m["attributed_rate"] == 1.0  # the scripted answer cites nothing: every shown citation is added
        assert set(m["by_language"]) == {"en", "fr"}
        assert set(m["by_language"]["fr"]) == {"hit_at_5", "key_facts_rate", "not_found_accuracy",
                                               "false_refusal_rate", "verified_rate"}
    assert len(result["questions"]) == 8
    assert [q.question for q in load_questions(questions_file, "calibrate")] == ["What is the default timeout?"]
    table = format_table(result)
    assert "hit@5" in table and "hybrid" in table


def test_bad_question_file_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "x", "answerable": true}\n{"oops": 1}\n')
    with pytest.raises(RepoBotError, match=r"bad.jsonl:2 is not a question line"):
        load_questions(path)
    with pytest.raises(RepoBotError, match="Cannot read"):
        load_questions(tmp_path / "missing.jsonl")


@pytest.mark.parametrize("line, says", [
    ('{"question": "q", "answerable": true, "gold_sources": "a.md"}', "'gold_sources' must be a JSON list"),
    ('{"question": "q", "answerable": true, "key_facts": "None"}', "'key_facts' must be a JSON list"),
    ('{"question": "q", "answerable": true, "key_facts": [5]}', "each key fact must be a string"),
    ('{"question": "q", "answerable": "false"}', "'answerable' must be a JSON true or false"),
])
def test_a_question_line_of_the_wrong_shape_is_refused_before_any_answer(tmp_path, line, says):
    """A string where a list belongs would be read letter by letter, and score as if it held."""
    path = tmp_path / "q.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RepoBotError, match=f"q.jsonl:1 .*{says}"):
        load_questions(path)
