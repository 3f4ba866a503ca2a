"""The whole path with the real default models (Qwen2.5-Coder-0.5B-Instruct, all-MiniLM-L6-v2), on corpus/ and httpx."""

import json
import subprocess
import sys

import pytest

from repobot.engine.support import ALSO
from repobot.engine.config import default_corpus
from repobot.engine.languages import detect_language
from repobot.engine.models import default_entry
from repobot.engine.pipeline import AskOptions, Pipeline
from repobot.engine.support import HEADING, SupportChecker
from tests.conftest import LESSON_HTTP3, LESSON_REDIRECTS, LESSON_RETRIES

pytestmark = pytest.mark.integration
REDIRECTS = "Does httpx follow redirects by default? How do I enable it?"


def model_part(sentences):
    """The shown sentences of the model's own answer: those before the quotes after it ("Also in the documents")."""
    labels = [n for n, s in enumerate(sentences) if s.reason == ALSO]
    return sentences[: labels[0]] if labels else list(sentences)


@pytest.fixture(scope="module")
def httpx_pipe(httpx_docs, models):
    pipe = Pipeline(httpx_docs, models=models)
    pipe.build_index()
    return pipe


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "dense"])
def test_redirect_question_retrieves_the_redirect_pages(httpx_pipe, mode):
    hits = httpx_pipe.search(REDIRECTS, AskOptions(mode=mode)).hits
    assert len(hits) == 5
    assert {"compatibility.md", "quickstart.md"} & {h.chunk.source for h in hits}


def test_lesson_redirects_in_chinese_is_answered_in_chinese_and_cited(httpx_pipe):
    answer = httpx_pipe.ask(LESSON_REDIRECTS)
    assert answer.searched_for != LESSON_REDIRECTS and "redirect" in answer.searched_for.lower()
    assert answer.verdict == "verified", answer.model_answer
    assert "follow_redirects=True" in answer.final_answer
    assert {"compatibility.md", "quickstart.md"} & {h.chunk.source for h in answer.sources}
    # written in English to the question's rewrite, checked in English, shown translated into Chinese
    assert answer.prompt[-1]["content"].endswith(f"\n\nQuestion: {answer.searched_for}")
    prose = [s for s in model_part(answer.final_sentences) if not s.is_code and s.status != "exempt"]
    assert prose and all(any("\u4e00" <= ch <= "\u9fff" for ch in s.text) for s in prose), answer.final_answer
    assert all(s.checked_as and not any("\u4e00" <= ch <= "\u9fff" for ch in s.checked_as) for s in prose)


def test_lesson_http3_gives_exactly_the_escape_phrase(httpx_pipe):
    answer = httpx_pipe.ask(LESSON_HTTP3)
    assert answer.final_answer == "文档里没有找到相关说明"
    assert answer.verdict == "not_found" and "HTTP/3" in answer.missing_terms


def test_lesson_retries_names_the_transports_retries_option_cited(httpx_pipe):
    answer = httpx_pipe.ask(LESSON_RETRIES)
    assert answer.verdict in ("verified", "extractive"), answer.model_answer
    assert "retries" in answer.final_answer
    assert "advanced/transports.md" in {h.chunk.source for h in answer.sources}


def test_an_uncited_supported_sentence_is_attributed(httpx_pipe, models):
    hits = httpx_pipe.search(REDIRECTS).hits
    checker = SupportChecker(models.embedder, [h.chunk.text for h in hits])
    [s] = checker.check_answer("Unlike requests, HTTPX does not follow redirects by default.")
    assert s.status == "uncited" and hits[s.suggested - 1].chunk.source in ("compatibility.md", "quickstart.md")


def test_the_model_rewrites_the_lessons_question_into_english(httpx_pipe):
    assert httpx_pipe.rewrite(LESSON_HTTP3, "en") in (None, "Does HTTPX support HTTP/3?", "Does httpx support HTTP/3?",
                                                      "Does HTTPx support HTTP/3?")


@pytest.mark.parametrize("question, target", [
    ("How do I read configuration values from environment variables?", "zh"),
    ("How do I make a path parameter only accept a fixed set of values?", "zh"),
    ("How do I make a path parameter only accept a fixed set of values?", "ja"),
])
def test_an_english_question_is_translated_for_documents_in_another_language(httpx_pipe, question, target):
    """A Chinese or Japanese folder is searched with the question in its language too (given back unchanged before)."""
    assert detect_language(httpx_pipe.rewrite(question, target) or "") == target


class Rewrites(Pipeline):
    """The real pipeline, whose model gives the rewrite this test chooses (a failed one: empty, or garbage)."""

    def __init__(self, pipe: Pipeline, rewrite: str | None):
        self.models, self.collection, self.given = pipe.models, pipe.collection, rewrite

    def rewrite(self, question, target, setting="auto"):
        return self.given


@pytest.mark.parametrize("garbage", [None, "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
                                     "How do I upload a file with a multipart request?"])
def test_a_failed_rewrite_still_retrieves_what_the_original_finds(httpx_pipe, garbage):
    question = "httpx 怎么用 verify=False 关闭 SSL 证书验证？"  # its own words find the page: verify=False, SSL
    alone = [h.chunk.source for h in Rewrites(httpx_pipe, None).search(question).hits]
    assert alone[0] == "advanced/ssl.md"
    fused = [h.chunk.source for h in Rewrites(httpx_pipe, garbage).search(question).hits]
    assert "advanced/ssl.md" in fused, fused


def test_ask_json_has_the_whole_contract(httpx_docs):
    result = subprocess.run(
        [sys.executable, "-m", "repobot", "ask", REDIRECTS, "--corpus", str(httpx_docs), "--json"],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ["question", "language", "model", "prompt", "retrieved", "answer", "check", "sources", "timings",
                "sentences", "verdict", "final_answer", "model_answer", "searched_for"]:
        assert key in data
    assert data["language"] == "en" and data["model"] == default_entry().file
    assert [m["role"] for m in data["prompt"]] == ["system", "user", "assistant", "user"]  # with the worked example
    assert data["prompt"][-1]["content"].startswith('<docs>\n<doc id="1" source="')
    assert [r["id"] for r in data["retrieved"]] == [1, 2, 3, 4, 5]
    assert set(data["retrieved"][0]) >= {"id", "source", "lines", "heading"}
    assert set(data["check"]) == {"cited", "invalid", "uncited"}
    assert set(data["timings"]) >= {"retrieve_ms", "first_token_ms", "total_ms", "tokens_per_s", "first_content_ms"}
    assert data["timings"]["tokens_per_s"] > 0
    assert data["timings"]["first_content_ms"] <= data["timings"]["first_token_ms"]
    assert data["verdict"] in ("verified", "extractive", "not_found")
    cited = {s["id"] for s in data["sources"]}
    assert all(f"[{i}]" in data["final_answer"] for i in cited)
    for sentence in data["sentences"] + data["final_sentences"]:
        assert sentence["status"] in ("supported", "miscited", "unsupported", "uncited", "exempt")
    assert all(s["cited_by"] in ("model", "checker") for s in data["final_sentences"] if s["cited"])


def test_final_answer_never_shows_an_unsupported_sentence_as_sourced(httpx_pipe, models):
    answer = httpx_pipe.ask(REDIRECTS)
    assert answer.verdict == "verified", answer.model_answer  # the default model answers this one itself
    assert "follow_redirects" in answer.final_answer
    # checked afresh, as shown: every sentence that claims something has an id, and that passage supports it
    checker = SupportChecker(models.embedder, [h.chunk.text for h in answer.retrieved], question=REDIRECTS)
    # labels, not claims: the quotes' section titles, and a heading the model copied (shown in bold, without ids)
    headings = {f"**{s.section}**" for s in answer.final_sentences if s.section}
    headings |= {s.text for s in answer.final_sentences if s.reason == HEADING}
    shown = [s for s in checker.check_answer(answer.final_answer) if s.status != "exempt" and s.text not in headings]
    assert shown and all(s.status == "supported" for s in shown), shown


def test_http3_in_english_is_refused_without_generating(httpx_pipe):
    answer = httpx_pipe.ask("Does httpx support HTTP/3?")
    assert answer.verdict == "not_found" and answer.stop_reason == "gate" and "HTTP/3" in answer.missing_terms
    assert answer.final_answer == "The documents do not cover this."


def test_the_lessons_exercise_is_httpx_faster_than_requests_gets_no_invented_answer(httpx_pipe):
    """No httpx page says which is faster; the 0.5B claims HTTPX is, and the compatibility guide shares its words."""
    answer = httpx_pipe.ask("Is httpx faster than requests?")
    assert "faster" not in answer.final_answer.lower(), answer.final_answer
    assert answer.verdict != "verified", answer.final_answer


def test_real_support_check_on_the_lessons_redirect_answer(httpx_pipe, models):
    hits = httpx_pipe.search(REDIRECTS).hits
    timeouts = httpx_pipe.search("How long does httpx wait before a request times out?").hits[0].chunk.text
    assert "redirect" not in timeouts.lower()
    passages = [h.chunk.text for h in hits] + [timeouts]  # a sixth passage that says nothing about redirects
    compat = next(h.rank for h in hits if h.chunk.source == "compatibility.md" and "Redirects" in h.chunk.heading)
    other = len(passages)
    checker = SupportChecker(models.embedder, passages)
    good = checker.check_sentence(f"HTTPX does not follow redirects by default [{compat}].")
    assert good.status == "supported"
    bad = checker.check_sentence(f"HTTPX does not follow redirects by default [{other}].")
    assert bad.status == "miscited"
    invented = checker.check_sentence(f"HTTPX retries every failed request ten times automatically [{compat}].")
    assert invented.status == "unsupported"


def test_bundled_user_guide_answers_out_of_the_box(models):
    pipe = Pipeline(default_corpus(), models=models)
    answer = pipe.ask("How do I add my own documentation folder?", AskOptions())
    assert answer.retrieved[0].chunk.source in {"indexing-folders.md", "getting-started.md", "command-line.md"}
    assert answer.verdict in ("verified", "extractive")
    assert answer.sources


def test_a_follow_up_about_it_retrieves_the_redirect_passages(httpx_pipe):
    first = httpx_pipe.ask("Does httpx follow redirects by default?")
    earlier = [(first.question, first.final_answer)]
    found = httpx_pipe.search("How do I turn it on for one request only?", AskOptions(), earlier)
    stood = found.standalone or found.context  # the model's rewrite, or (refused) the follow-up after the question
    assert stood and found.searched_for == stood  # shown as "searched for: …"
    redirect_pages = [h for h in found.hits if h.chunk.source in ("compatibility.md", "quickstart.md")]
    assert any("redirect" in h.chunk.text.lower() for h in redirect_pages)
