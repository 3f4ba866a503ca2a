"""The answering path with deterministic fakes: gate, verified, extractive, prompt trimming."""

import pytest

from repobot.engine.errors import RepoBotError
from repobot.engine.pipeline import AskOptions, Done, Pipeline, Retrieved, Token
from repobot.engine.prompt import system_prompt
from tests.conftest import FakeLLM


def make(docs, fake_embedder, reply):
    return Pipeline(docs, embedder=fake_embedder, llm=FakeLLM(reply))


def test_streams_events_in_order_and_verifies_a_good_answer(docs, fake_embedder):
    pipe = make(docs, fake_embedder, "HTTPX does not follow redirects by default [1].")
    events = list(pipe.ask_stream("Does HTTPX follow redirects by default?", AskOptions(k=3)))
    assert isinstance(events[0], Retrieved) and isinstance(events[-1], Done)
    assert any(isinstance(e, Token) for e in events)
    answer = events[-1].answer
    assert answer.verdict == "verified"
    assert answer.final_answer == "HTTPX does not follow redirects by default [1]."
    assert [h.chunk.source for h in answer.sources] == ["guide/redirects.md"]
    assert answer.to_json()["check"] == {"cited": [1], "invalid": [], "uncited": []}


def test_invented_citation_falls_back_to_an_extractive_answer(docs, fake_embedder):
    pipe = make(docs, fake_embedder, "Redirects are followed automatically [7].")
    answer = pipe.ask("Does HTTPX follow redirects by default?", AskOptions(k=3))
    assert answer.check.invalid == [7]
    assert answer.verdict == "extractive"
    assert answer.final_answer.startswith("Quoted from the documents:")
    assert "[7]" not in answer.final_answer and "does not follow redirects" in answer.final_answer


def test_gate_refuses_before_generation_and_names_missing_terms(docs, fake_embedder):
    llm = FakeLLM("should never be called [1].")
    pipe = Pipeline(docs, embedder=fake_embedder, llm=llm)
    answer = pipe.ask("Does HTTPX support HTTP/3?")
    assert answer.verdict == "not_found" and answer.missing_terms == ["HTTP/3"]
    assert answer.final_answer.startswith("The documents do not cover this.")
    assert llm.calls == []


def test_model_escape_phrase_gives_not_found(docs, fake_embedder):
    pipe = make(docs, fake_embedder, "The documents do not cover this.")
    assert pipe.ask("How do I disable timeouts?").verdict == "not_found"


def test_empty_question_is_refused(docs, fake_embedder):
    with pytest.raises(RepoBotError, match="empty"):
        Pipeline(docs, embedder=fake_embedder, llm=FakeLLM()).ask("  \x00 \n")


def test_passages_are_trimmed_never_the_rules(docs, fake_embedder):
    llm = FakeLLM("HTTPX does not follow redirects by default [1].")
    llm.n_ctx = 600
    pipe = Pipeline(docs, embedder=fake_embedder, llm=llm)
    answer = pipe.ask("Does HTTPX follow redirects by default?", AskOptions(k=4, max_tokens=200))
    assert any("context" in n for n in answer.notes)
    assert answer.prompt[0]["content"] == system_prompt("en")  # the rules are intact


def test_context_too_small_for_the_rules_is_a_clear_error(docs, fake_embedder):
    llm = FakeLLM()
    llm.n_ctx = 300
    with pytest.raises(RepoBotError, match="too small"):
        Pipeline(docs, embedder=fake_embedder, llm=llm).ask("Does HTTPX follow redirects?")


def test_query_rewriting_asks_the_model_and_searches_both_queries(docs, fake_embedder):
    llm = FakeLLM("timeout disable None")
    pipe = Pipeline(docs, embedder=fake_embedder, llm=llm)
    hits = pipe.search("How can I stop waiting forever?", rewrite=True, mode="bm25")
    assert "Rewrite the user's question" in llm.calls[0][0]["content"]
    assert hits and hits[0].chunk.source == "timeouts.md"


def test_strict_rule_switch_reaches_the_prompt(docs, fake_embedder):
    pipe = Pipeline(docs, embedder=fake_embedder, llm=FakeLLM("HTTPX does not follow redirects by default [1]."))
    loose = pipe.ask("Does HTTPX follow redirects by default?", AskOptions(strict=False))
    assert "even if you know it" not in loose.prompt[0]["content"]
    assert "even if you know it" in pipe.ask("Does HTTPX follow redirects?").prompt[0]["content"]
