"""repobot eval on a small fixture, with deterministic fakes."""

import json
import subprocess
import sys

import pytest

from repobot.engine.errors import RepoBotError
from repobot.engine.evaluate import evaluate, format_table
from repobot.engine.questions import load_questions
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
    ('{"question": null, "answerable": true}', "'question' must be a JSON string, not null"),
    ('{"answerable": true}', "'question' is missing"),
    ('{"question": " \\u0000 ", "answerable": true}', "'question' is empty"),
    ('{"question": "🚀🔥", "answerable": true}', "'question' has no words, only symbols"),
    ('{"question": "q", "answerable": true, "gold_sources": ["a.md", 1]}', "'gold_sources' must be a JSON list of strings"),
    ('{"question": "q", "answerable": true, "language": 5}', "'language' must be a JSON string, not 5"),
    ('{"question": "q", "answerable": true, "split": ["report"]}', "'split' must be a JSON string"),
    ('{"question": "q", "answerable": true, "split": "repot"}', "'split' must be one of calibrate, report"),
    ('["q", true]', "a line must be a JSON object"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_a_question_line_of_the_wrong_shape_is_refused_before_any_answer(tmp_path, line, says):
    """A string where a list belongs would be read letter by letter, and score as if it held."""
    path = tmp_path / "q.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RepoBotError, match=f"q.jsonl:1 .*{says}"):
        load_questions(path)


def test_a_question_file_that_is_not_utf8_text_in_a_regular_file_is_refused_in_one_line(tmp_path):
    """Bad bytes name their line; a pipe is refused instead of waited on; a byte-order mark is only an encoding."""
    import os

    good = b'{"question": "Redirects?", "answerable": true}\n'
    path = tmp_path / "q.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + good + b'{"question": "caf\xe9?", "answerable": true}\n')
    with pytest.raises(RepoBotError, match=r"q.jsonl:2 is not UTF-8 text \(byte 0xe9\); save the file as UTF-8"):
        load_questions(path)
    path.write_bytes(b"\xef\xbb\xbf" + good + '{"question": "Line\u2028separator?", "answerable": true}\n'.encode())
    assert [q.question for q in load_questions(path)] == ["Redirects?", "Line\u2028separator?"]
    os.mkfifo(tmp_path / "fifo.jsonl")
    for not_a_file in (tmp_path / "fifo.jsonl", tmp_path):
        with pytest.raises(RepoBotError, match="is not a regular file .*give eval a JSONL question file"):
            load_questions(not_a_file)


def test_question_file_errors_are_one_line_with_exit_2(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "q", "answerable": true}\n{"question": "", "answerable": true}\n', encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "repobot", "eval", str(path), "--no-answers", "--corpus", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.startswith(f"repobot: {path}:2 is not a question line ('question' is empty)")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_follow_up_is_asked_after_its_conversation_answered_once(docs, tmp_path):
    first = "Does HTTPX follow redirects by default?"
    lines = [{"question": "How do I turn it on?", "answerable": True, "earlier": [first],
              "gold_sources": ["guide/redirects.md"], "key_facts": ["follow"]},
             {"question": "And for one request only?", "answerable": True, "earlier": [first],
              "gold_sources": ["guide/redirects.md"], "key_facts": ["follow"]}]
    path = tmp_path / "followups.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in lines) + "\n", encoding="utf-8")
    asked = []

    class Counting(Pipeline):
        def ask(self, question, options, **kwargs):
            asked.append(question)
            return super().ask(question, options, **kwargs)

    pipe = Counting(docs, models=fake_models("HTTPX does not follow redirects by default."))
    rows = evaluate(pipe, load_questions(path), modes=["hybrid"])["questions"]
    assert asked == [first, "How do I turn it on?", "And for one request only?"]  # the shared first turn once
    for row in rows:
        assert [q for q, _ in row["earlier"]] == [first] and "redirects" in row["earlier"][0][1]
        assert row["searched_for"].startswith(first)  # the follow-up was searched in its conversation
        assert row["hit_at_5"]


def test_earlier_must_be_a_list_of_questions(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question": "And then?", "answerable": False, "earlier": "Why?"}) + "\n")
    with pytest.raises(RepoBotError, match=r"q.jsonl:1 is not a question line \('earlier' must be a JSON list"):
        load_questions(path)
    path.write_text(json.dumps({"question": "And then?", "answerable": False, "earlier": ["Why?", "\x00 "]}) + "\n")
    with pytest.raises(RepoBotError, match=r"q.jsonl:1 is not a question line \('earlier' question 2 is empty\)"):
        load_questions(path)
