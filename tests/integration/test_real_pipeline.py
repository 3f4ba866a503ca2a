"""The whole path with the real default models, on corpus/ and on the httpx docs."""

import json
import subprocess
import sys

import pytest

from repobot.engine.config import default_corpus
from repobot.engine.pipeline import AskOptions, Pipeline
from repobot.engine.support import SupportChecker

pytestmark = pytest.mark.integration
REDIRECTS = "Does httpx follow redirects by default? How do I enable it?"


@pytest.fixture(scope="module")
def httpx_pipe(httpx_docs, embedder, llm):
    pipe = Pipeline(httpx_docs, embedder=embedder, llm=llm)
    pipe.build_index()
    return pipe


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_redirect_question_retrieves_the_redirect_pages(httpx_pipe, mode):
    sources = [h.chunk.source for h in httpx_pipe.search(REDIRECTS, mode=mode)]
    assert len(sources) == 5
    assert {"compatibility.md", "quickstart.md"} & set(sources)


def test_ask_json_has_the_whole_contract(httpx_docs, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "repobot", "ask", REDIRECTS, "--corpus", str(httpx_docs), "--json"],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ["question", "language", "model", "prompt", "retrieved", "answer", "check", "sources", "timings",
                "sentences", "verdict", "final_answer", "model_answer"]:
        assert key in data
    assert data["language"] == "en" and data["model"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert [m["role"] for m in data["prompt"]] == ["system", "user"]
    assert data["prompt"][1]["content"].startswith('<docs>\n<doc id="1" source="')
    assert [r["id"] for r in data["retrieved"]] == [1, 2, 3, 4, 5]
    assert set(data["retrieved"][0]) >= {"id", "source", "lines", "heading"}
    assert set(data["check"]) == {"cited", "invalid", "uncited"}
    assert set(data["timings"]) == {"retrieve_ms", "first_token_ms", "total_ms", "tokens_per_s"}
    assert data["timings"]["tokens_per_s"] > 0
    assert data["verdict"] in ("verified", "extractive", "not_found")
    cited = {s["id"] for s in data["sources"]}
    assert all(f"[{i}]" in data["final_answer"] for i in cited)
    for sentence in data["sentences"]:
        assert sentence["status"] in ("supported", "miscited", "unsupported", "uncited", "exempt")


def test_final_answer_never_shows_an_unsupported_sentence_as_sourced(httpx_pipe):
    answer = httpx_pipe.ask(REDIRECTS)
    checker = SupportChecker(httpx_pipe.embedder, [h.chunk.text for h in answer.retrieved])
    if answer.verdict == "verified":
        for s in checker.check_answer(answer.final_answer):
            assert s.status in ("supported", "exempt")
    assert answer.check.invalid == [] or answer.verdict != "verified"
    assert "redirect" in answer.final_answer.lower()


def test_http3_is_refused_without_generating(httpx_pipe):
    answer = httpx_pipe.ask("Does httpx support HTTP/3?")
    assert answer.verdict == "not_found" and "HTTP/3" in answer.missing_terms
    assert answer.final_answer.startswith("The documents do not cover this.")
    zh = httpx_pipe.ask("httpx 支持 HTTP/3 吗？")
    assert zh.final_answer.startswith("文档里没有找到相关说明")


def test_real_support_check_on_the_lessons_redirect_answer(httpx_pipe):
    hits = httpx_pipe.search(REDIRECTS)
    passages = [h.chunk.text for h in hits]
    compat = next(h.rank for h in hits if h.chunk.source == "compatibility.md" and "Redirects" in h.chunk.heading)
    other = next(h.rank for h in hits if h.rank != compat and "follow_redirects" not in h.chunk.text)
    checker = SupportChecker(httpx_pipe.embedder, passages)
    good = checker.check_sentence(f"HTTPX does not follow redirects by default [{compat}].")
    assert good.status == "supported"
    bad = checker.check_sentence(f"HTTPX does not follow redirects by default [{other}].")
    assert bad.status == "miscited"
    invented = checker.check_sentence(f"HTTPX retries every failed request ten times automatically [{compat}].")
    assert invented.status == "unsupported"


def test_bundled_user_guide_answers_out_of_the_box(embedder, llm):
    pipe = Pipeline(default_corpus(), embedder=embedder, llm=llm)
    answer = pipe.ask("How do I add my own documentation folder?", AskOptions())
    assert answer.retrieved[0].chunk.source in {"indexing-folders.md", "getting-started.md", "command-line.md"}
    assert answer.verdict in ("verified", "extractive")
    assert answer.sources
