"""The answering path with deterministic fakes: preview, gate, verified, attributed, extractive, prompt trimming."""

import pytest

from repobot.engine.errors import RepoBotError
from repobot.engine.events import WRITING, Checking, Done, Drafting, Preview, Retrieved, Token
from repobot.engine.pipeline import SECOND_DRAFT, SECOND_FAILED, AskOptions, Pipeline
from repobot.engine.prompt import PromptStyle, system_prompt
from tests.conftest import ByTaskLLM, FakeLLM, fake_models


def make(docs, reply):
    return Pipeline(docs, models=fake_models(reply))


def test_streams_events_in_order_and_verifies_a_good_answer(docs):
    pipe = make(docs, "HTTPX does not follow redirects by default [1].")
    events = list(pipe.ask_stream("Does HTTPX follow redirects by default?", AskOptions(k=3)))
    kinds = [type(e) for e in events]
    assert kinds[0] is Retrieved and kinds[1] is Preview and kinds[-1] is Done
    assert kinds.index(Preview) < kinds.index(Drafting) < kinds.index(Token)  # quotes, then the model's first token
    [drafting] = [e for e in events if isinstance(e, Drafting)]
    assert drafting == Drafting("en", "en") and drafting.label == WRITING
    assert kinds[-2] is Checking and Token not in kinds[kinds.index(Checking):]  # the draft is in, and checked
    assert events[-2] == Checking("en", "en", "en") and not events[-2].translates
    answer = events[-1].answer
    assert answer.verdict == "verified"
    assert answer.final_answer == "HTTPX does not follow redirects by default [1]."
    assert [h.chunk.source for h in answer.sources] == ["guide/redirects.md"]
    assert answer.to_json()["check"] == {"cited": [1], "invalid": [], "uncited": []}
    assert answer.final_sentences[0].cited_by == "model"
    assert answer.timings.first_content_ms <= answer.timings.first_token_ms


def test_an_uncited_supported_sentence_is_attributed_by_the_checker(docs):
    pipe = make(docs, "HTTPX does not follow redirects by default.")
    answer = pipe.ask("Does HTTPX follow redirects by default?", AskOptions(k=3))
    assert answer.verdict == "verified"
    assert answer.check.uncited == ["HTTPX does not follow redirects by default."]
    [shown] = answer.final_sentences
    assert shown.cited_by == "checker" and shown.cited == [1]
    assert answer.final_answer == "HTTPX does not follow redirects by default [1]."
    assert [h.chunk.source for h in answer.sources] == ["guide/redirects.md"]  # the page that says it
    assert answer.to_json()["final_sentences"][0]["cited_by"] == "checker"


def test_a_paste_of_the_worked_example_is_left_out_of_what_is_checked_and_shown(docs):
    """The 0.5B once followed its own answer with the example's coffee-machine sentence and code."""
    pasted = ("HTTPX does not follow redirects by default [1]. Start a descaling cycle from Python [1]:\n\n"
              "```python\nmachine.descale(tablets=1)\n```")
    answer = make(docs, pasted).ask("Does HTTPX follow redirects by default?", AskOptions(k=3))
    assert answer.model_answer == pasted  # kept as written
    assert answer.verdict == "verified"
    assert answer.final_answer == "HTTPX does not follow redirects by default [1]."
    assert [s.text for s in answer.sentences] == ["HTTPX does not follow redirects by default [1]."]


def test_invented_citation_falls_back_to_an_extractive_answer(docs):
    pipe = make(docs, "Redirects are followed automatically [7].")
    answer = pipe.ask("Does HTTPX follow redirects by default?", AskOptions(k=3))
    assert answer.check.invalid == [7]
    assert answer.verdict == "extractive"
    assert answer.final_answer.startswith("Quoted from the documents:")
    assert "[7]" not in answer.final_answer and "does not follow redirects" in answer.final_answer


def test_a_question_that_tells_a_story_before_it_asks_is_quoted_for_what_it_asks(docs):
    """Seen on the calibrate halves: a long question matches each passage sentence weakly, so a failed draft got the
    fixed phrase though the sentence that asks finds the answer alone (11 answerable questions of both corpora)."""
    story = ("Every night our job pulls large reports from a slow partner portal that keeps building them for many "
             "minutes, and the job dies half way through the export. How do I disable timeouts completely?")
    answer = make(docs, "Use the `--forever` flag [1].").ask(story, AskOptions(k=3))
    assert answer.verdict == "extractive" and "disable timeouts completely" in answer.final_answer


def test_gate_refuses_before_generation_and_names_missing_terms(docs):
    models = fake_models("should never be called [1].")
    answer = Pipeline(docs, models=models).ask("Does HTTPX support HTTP/3?")
    assert answer.verdict == "not_found" and answer.missing_terms == ["HTTP/3"]
    assert answer.final_answer.startswith("The documents do not cover this.")
    assert models.llm.calls == []


def test_gate_lets_a_bystander_term_through(docs):
    """Kubernetes is absent from the documents, but the rest of the question is about their timeouts."""
    models = fake_models("The default timeout is 5 seconds of network inactivity [1].")
    answer = Pipeline(docs, models=models).ask("Our Kubernetes job hangs on network inactivity: what is the default timeout?")
    assert answer.stop_reason != "gate" and answer.verdict == "verified"


def test_a_failed_answer_about_what_the_documents_lack_gives_the_fixed_phrase_and_names_it(docs):
    """Kubernetes is absent and the question names nothing else the documents have: the model's answer is about
    Kubernetes, so quotes about HTTPX's timeouts would answer something else."""
    models = fake_models("Raise the Kubernetes liveness probe to 30 seconds of network inactivity.")
    answer = Pipeline(docs, models=models).ask("Our Kubernetes job hangs on network inactivity: what is the default timeout?")
    assert answer.stop_reason != "gate" and answer.verdict == "not_found"
    assert answer.missing_terms == ["Kubernetes"] and answer.sentences[0].status == "unsupported"


def test_model_escape_phrase_gives_not_found(docs):
    assert make(docs, "The documents do not cover this.").ask("How do I disable timeouts?").verdict == "not_found"


def test_empty_question_is_refused(docs):
    with pytest.raises(RepoBotError, match="empty"):
        make(docs, "x").ask("  \x00 \n")


def test_a_question_of_symbols_alone_is_refused_not_answered(docs):
    """"🚀🔥💯" got a verified sentence about text encodings from the real model."""
    for symbols in ("🚀🔥💯", "?!.,;:--"):
        with pytest.raises(RepoBotError, match="no words"):
            make(docs, "HTTPX does not follow redirects by default [1].").ask(symbols)


def test_passages_are_trimmed_never_the_rules(docs):
    llm = FakeLLM("HTTPX does not follow redirects by default [1].")
    llm.n_ctx = 720
    pipe = Pipeline(docs, models=fake_models(llm=llm))
    answer = pipe.ask("Does HTTPX follow redirects by default?", AskOptions(k=4, max_tokens=200))
    assert any("context" in n for n in answer.notes)
    assert answer.prompt[0]["content"] == system_prompt("en")  # the rules are intact


def test_a_passage_left_out_to_fit_the_context_is_never_cited(docs):
    """The checker would attribute the sentence to the timeouts page, which the model never read: quotes instead."""
    llm = FakeLLM("The default timeout is 5 seconds of network inactivity.")
    llm.n_ctx = 740
    pipe = Pipeline(docs, models=fake_models(llm=llm))
    answer = pipe.ask("Does HTTPX follow redirects or time out by default?", AskOptions(k=3, max_tokens=200))
    assert len(answer.retrieved) == 1 and any("left out" in n for n in answer.notes)
    assert answer.verdict == "extractive"
    assert {i for s in answer.final_sentences for i in s.cited} == {1}


def test_context_too_small_for_the_rules_is_a_clear_error(docs):
    llm = FakeLLM()
    llm.n_ctx = 300
    with pytest.raises(RepoBotError, match="too small"):
        Pipeline(docs, models=fake_models(llm=llm)).ask("Does HTTPX follow redirects?")


def test_forced_query_rewriting_asks_the_model_and_searches_both_queries(docs):
    models = fake_models("timeout disable None")
    hits, rewritten, *_ = Pipeline(docs, models=models).search("How can I stop waiting forever?",
                                                             AskOptions(rewrite="always", mode="bm25"))
    assert "Rewrite the user's question" in models.llm.calls[0][0]["content"]
    assert rewritten == "timeout disable None"
    assert hits and hits[0].chunk.source == "timeouts.md"


def test_a_question_in_another_language_is_translated_and_fused(docs):
    models = fake_models("What is the default timeout?")
    hits, rewritten, *_ = Pipeline(docs, models=models).search("Quel est le délai par défaut ?", AskOptions(mode="bm25"))
    assert "into English" in models.llm.calls[0][0]["content"]
    assert rewritten == "What is the default timeout?"
    assert hits[0].chunk.source == "timeouts.md"


def test_no_translation_is_asked_for_that_could_only_give_the_question_back(tmp_path):
    """German docs, an English question: the model translates only into its answer languages, here English."""
    (tmp_path / "zeit.md").write_text("# Zeitlimits\n\nDie Standardzeitüberschreitung beträgt fünf Sekunden, wenn "
                                      "das Netzwerk nicht aktiv ist und der Client wartet.\n", encoding="utf-8")
    models = fake_models("What is the default timeout?")
    pipe = Pipeline(tmp_path, models=models)
    hits, rewritten, *_ = pipe.search("What is the default timeout of the client?", AskOptions(mode="bm25"))
    assert pipe.index.primary_language == "de" and rewritten is None and models.llm.calls == []


def test_the_lessons_search_terms_are_searched_but_never_put_to_the_model_as_the_question(tmp_path):
    (tmp_path / "zeit.md").write_text("# Zeitlimits\n\nDie Standardzeitüberschreitung beträgt fünf Sekunden, wenn "
                                      "das Netzwerk nicht aktiv ist und der Client wartet.\n", encoding="utf-8")
    models = fake_models("Zeitlimit Standard Sekunden")  # the rewrite's search terms (and, here, every reply)
    question = "Wie lange wartet der Client standardmäßig?"
    answer = Pipeline(tmp_path, models=models).ask(question, AskOptions(mode="bm25", rewrite="always", gate=False))
    assert answer.searched_for == "Zeitlimit Standard Sekunden"
    assert answer.prompt[-1]["content"].endswith(f"Question: {question}")


def test_a_count_below_one_is_a_clear_error(docs):
    for options in (AskOptions(k=0), AskOptions(max_tokens=0)):
        with pytest.raises(RepoBotError, match="must be at least 1"):
            make(docs, "x").ask("Does HTTPX follow redirects?", options)


def test_a_failed_rewrite_still_retrieves_what_the_original_finds(docs):
    original = Pipeline(docs, models=fake_models("x")).search("timeout=None 怎么用？", AskOptions(rewrite="never")).hits
    for garbage in ("", "Yes, it is supported.", "是的"):
        hits, rewritten, *_ = Pipeline(docs, models=fake_models(garbage)).search("timeout=None 怎么用？")
        assert rewritten is None
        assert [h.chunk_id for h in hits] == [h.chunk_id for h in original]


def test_a_question_whose_words_find_nothing_does_not_reorder_what_its_rewrite_finds(tmp_path):
    """"httpx 怎么设置代理？" over English pages: its only word the pages have is "httpx", on every page, so its ranking
    would put the page that says "httpx" most first. Beside its rewrite it is not searched (``retrieve.blind``)."""
    for n in range(60):  # enough chunks for "httpx" to count as common (tokens.COMMON_FROM)
        (tmp_path / f"topic{n}.md").write_text(f"# Topic {n}\n\nhttpx handles topic {n} well.\n", encoding="utf-8")
    (tmp_path / "plugins.md").write_text("# Plugins\n\nhttpx-socks, httpx-ws, httpx-cache: httpx plugins for httpx.\n",
                                         encoding="utf-8")
    (tmp_path / "proxies.md").write_text("# Proxies\n\nSet a proxy with httpx.Client(proxy=...).\n", encoding="utf-8")
    question, rewrite = "httpx 怎么设置代理？", "How do I set a proxy with httpx?"
    alone = Pipeline(tmp_path, models=fake_models("")).search(question).hits  # rewrite refused: searched as asked
    assert alone[0].chunk.source == "plugins.md"
    hits, rewritten, *_ = Pipeline(tmp_path, models=fake_models(rewrite)).search(question)
    assert rewritten == rewrite
    assert hits[0].chunk.source == "proxies.md"
    assert "plugins.md" not in [h.chunk.source for h in hits[:2]]


def test_a_wrong_rewrite_cannot_push_out_what_the_question_finds(tmp_path):
    """A fluent rewrite about something else is accepted, and both its rankings agree on other pages; the page the
    question finds by its own words stays among the hits."""
    pages = {
        "timeouts.md": "# Timeouts\n\nPass timeout=None to wait forever.\n",
        "streaming.md": "# Streaming\n\nStream a large download with client.stream() to keep memory low.\n",
        "downloads.md": "# Downloads\n\nA large download can show a progress bar.\n",
        "uploads.md": "# Uploads\n\nUpload a large file with files=.\n",
    }
    for name, text in pages.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    question, wrong = "timeout=None 怎么用？", "How do I stream a large download?"
    alone = Pipeline(tmp_path, models=fake_models("")).search(question, AskOptions(k=3)).hits  # rewrite refused
    assert alone[0].chunk.source == "timeouts.md"
    hits, rewritten, *_ = Pipeline(tmp_path, models=fake_models(wrong)).search(question, AskOptions(k=3))
    assert rewritten == wrong
    assert [h.chunk.source for h in hits][:2] == ["streaming.md", "downloads.md"]  # what the rewrite finds leads
    assert "timeouts.md" in [h.chunk.source for h in hits]  # fused alone, it would have come 4th of 4


def test_strict_rule_switch_reaches_the_prompt(docs):
    pipe = make(docs, "HTTPX does not follow redirects by default [1].")
    loose = pipe.ask("Does HTTPX follow redirects by default?", AskOptions(strict=False))
    assert "even if you know it" not in loose.prompt[0]["content"]
    strict = pipe.ask("Does HTTPX follow redirects?", AskOptions(style=PromptStyle(shape=True)))
    assert "even if you know it" in strict.prompt[0]["content"] and "… [2]." in strict.prompt[0]["content"]


def test_the_model_reads_each_hit_with_the_chunk_after_it(tmp_path):
    filler = "More words about the old status code and why it changed. " * 8
    (tmp_path / "auth.md").write_text(f"# Old status codes\n\n## Before\nUntil 0.122.0 a failed login got 403. {filler}\n\n"
                                      f"## Going back\nOverride make_not_authenticated_error to get 403 again. {filler}\n")
    question = "Until 0.122.0 a failed login got 403?"
    alone = make(tmp_path, "A failed login got 403 [1].").ask(question, AskOptions(k=1, read=0))
    wide = make(tmp_path, "A failed login got 403 [1].").ask(question, AskOptions(k=1))
    assert "make_not_authenticated_error" not in alone.prompt[-1]["content"]
    assert "make_not_authenticated_error" in wide.prompt[-1]["content"]
    assert wide.sources[0].chunk.end > alone.sources[0].chunk.end  # the viewer highlights what the model read


def test_a_quote_from_a_chunk_without_its_heading_line_comes_under_its_section(tmp_path):
    filler = "This plugin page has a long introduction about many unrelated matters of packaging. " * 30
    (tmp_path / "plugins.md").write_text(f"# Plugins\n\n## httpx-ws\n\n{filler}\n\n"
                                         "WebSocket connections are supported by this package for clients.\n")
    answer = make(tmp_path, "Made up [7].").ask("Are WebSocket connections supported for clients?",
                                                 AskOptions(k=1, read=0))
    assert "## httpx-ws" not in answer.sources[0].chunk.text  # the hit starts after the heading line
    assert answer.verdict == "extractive"
    assert answer.final_answer.splitlines()[2:] == [
        "**httpx-ws**", "> WebSocket connections are supported by this package for clients. [1]"]
    assert answer.to_json()["final_sentences"][0]["section"] == "httpx-ws"


def test_stop_means_no_more_model_calls(docs):
    """A Chinese answer over English docs is translated for the check, unless the user pressed Stop."""
    import threading

    models = fake_models("默认情况下不会跟随重定向 [1]。你可以启用它 [1]。")
    stop, pieces = threading.Event(), 0
    for event in Pipeline(docs, models=models).ask_stream("HTTPX 默认会跟随重定向吗？", cancel=stop):
        pieces += isinstance(event, Token)
        if pieces == 5:  # a sentence and more on screen
            stop.set()
        if isinstance(event, Done):
            assert event.answer.stop_reason == "cancelled"
    asked = [call[0]["content"] for call in models.llm.calls]
    assert len(asked) == 2, asked  # the question's translation and the answer, no translation of the answer


def answers_in_english(first_translation: str) -> ByTaskLLM:
    """A model that rewrites the Chinese redirect question, answers it in English, and translates the two sentences
    (the first as given)."""
    return ByTaskLLM("Does HTTPX follow redirects by default?",
                     "HTTPX does not follow redirects by default [1]. Pass `follow_redirects=True` to enable them [1].",
                     {"HTTPX does not follow redirects by default.": first_translation,
                      "Pass `follow_redirects=True` to enable them.": "传入 `follow_redirects=True` 即可启用。"})


def test_a_question_in_another_language_is_answered_in_the_documents_language_then_translated(docs):
    llm = answers_in_english("HTTPX 默认不跟随重定向。")
    events = list(Pipeline(docs, models=fake_models(llm=llm)).ask_stream("HTTPX 默认会跟随重定向吗？", AskOptions(k=3)))
    answer = events[-1].answer
    [drafting] = [e for e in events if isinstance(e, Drafting)]  # the streamed draft is English, and says so
    assert drafting == Drafting("en", "zh") and "writing in English" in drafting.label and "Chinese" in drafting.label
    assert events[-2] == Checking("en", "zh", "en") and events[-2].translates  # the translation's wait is said
    assert "into Chinese" in events[-2].label
    prompt = answer.prompt[-1]["content"]
    assert prompt.endswith("Question: Does HTTPX follow redirects by default?")  # the rewrite, alone
    assert "Answer in English" in answer.prompt[0]["content"]
    assert answer.verdict == "verified" and answer.language == "zh"
    assert answer.final_answer == ("HTTPX 默认不跟随重定向 [1]。 传入 `follow_redirects=True` 即可启用 [3]。\n\n"
                                   "```\nclient.get(url, follow_redirects=True)\n```")  # [3]: the checker's correction
    assert [s.checked_as for s in answer.final_sentences] == [  # the code block the sentence introduces is as is
        "HTTPX does not follow redirects by default.", "Pass `follow_redirects=True` to enable them.", None]
    # checked in English, as written: the second cites [1], but the passage that says it is [3]
    assert [s.status for s in answer.sentences] == ["supported", "miscited"]
    assert any(note.startswith("Translated into Chinese by the local model") for note in answer.notes)
    assert len(llm.calls) == 4  # the question's translation, the answer, a translation for each shown sentence
    assert llm.calls[-1][-1]["content"] == "Pass `follow_redirects=True` to enable them."  # one sentence, without ids


def test_a_question_in_a_language_repobot_does_not_answer_in_is_answered_in_english_and_says_so(docs):
    llm = ByTaskLLM("Does HTTPX follow redirects by default?",
                    "HTTPX does not follow redirects by default [1]. Pass `follow_redirects=True` to enable them [1].", {})
    answer = Pipeline(docs, models=fake_models(llm=llm)).ask("¿HTTPX sigue las redirecciones por defecto?",
                                                             AskOptions(k=3))
    assert answer.searched_for == "Does HTTPX follow redirects by default?"  # translated for retrieval
    assert answer.prompt[-1]["content"].endswith("Question: Does HTTPX follow redirects by default?")  # and answered
    assert answer.language == "en" and answer.verdict == "verified"
    assert answer.final_answer.startswith("HTTPX does not follow redirects by default [1].")
    assert any(note.startswith("Asked in Spanish, which RepoBot reads but does not answer in") for note in answer.notes)
    chosen = Pipeline(docs, models=fake_models(llm=llm)).ask("¿HTTPX sigue las redirecciones por defecto?",
                                                             AskOptions(k=3, language="en"))
    assert not any(note.startswith("Asked in") for note in chosen.notes)  # the user chose English: nothing to explain


def test_a_translation_that_adds_a_name_is_not_shown_the_checked_english_is(docs):
    llm = answers_in_english("`requests` 默认不跟随重定向。")  # a name the English sentence does not give
    answer = Pipeline(docs, models=fake_models(llm=llm)).ask("HTTPX 默认会跟随重定向吗？", AskOptions(k=3))
    assert answer.verdict == "verified"
    assert answer.final_answer.startswith("HTTPX does not follow redirects by default [1]. 传入 `follow_redirects=True`")
    assert "requests" not in answer.final_answer
    assert [s.checked_as for s in answer.final_sentences][:2] == [None, "Pass `follow_redirects=True` to enable them."]
    assert "One sentence is shown in English: the local model gave no faithful Chinese translation of it." in answer.notes
    whole = Pipeline(docs, models=fake_models(llm=answers_in_english("HTTPX 默认不跟随重定向。"))).ask(
        "HTTPX 默认会跟随重定向吗？", AskOptions(k=3))
    assert not any("shown in English" in note for note in whole.notes)  # every sentence translated: nothing to say


def test_when_the_rewrite_fails_the_question_is_answered_in_its_language_and_checked_through_a_translation(docs):
    llm = ByTaskLLM("", "HTTPX 默认不跟随重定向 [1]。",  # no rewrite: the model answers the Chinese question itself
                    {"HTTPX 默认不跟随重定向 [1]。": "HTTPX does not follow redirects by default [1]."})
    answer = Pipeline(docs, models=fake_models(llm=llm)).ask("HTTPX 默认会跟随重定向吗？", AskOptions(k=3))
    assert "Answer in English" not in answer.prompt[0]["content"]
    assert answer.verdict == "verified" and answer.final_answer == "HTTPX 默认不跟随重定向 [1]。"
    assert answer.final_sentences[0].checked_as == "HTTPX does not follow redirects by default [1]."
    assert not any(note.startswith("Translated into") for note in answer.notes)  # shown as the model wrote it


def test_a_translation_that_drops_a_name_is_not_shown(docs):
    """The line that loses `follow_redirects=True` is shown in English, as it was checked."""
    llm = ByTaskLLM("Does HTTPX follow redirects by default?",
                    "HTTPX does not follow redirects by default [1]. Pass `follow_redirects=True` to enable them [1].",
                    {"HTTPX does not follow redirects by default.": "HTTPX 默认不跟随重定向。",
                     "Pass `follow_redirects=True` to enable them.": "传入参数即可启用。"})
    answer = Pipeline(docs, models=fake_models(llm=llm)).ask("HTTPX 默认会跟随重定向吗？", AskOptions(k=3))
    assert answer.final_answer.startswith("HTTPX 默认不跟随重定向 [1]。 Pass `follow_redirects=True` to enable them [3].")
    assert answer.final_sentences[0].checked_as and answer.final_sentences[1].checked_as is None


def test_a_registered_model_does_its_short_calls_itself_and_a_switch_forgets_the_second_context():
    models = fake_models("x")
    assert models.side_llm is models.llm  # a fake has no evaluated prefix to keep
    models.use_llm(models.llm_name)
    assert models._side is None  # the next model gets its own second context


def test_the_same_short_call_again_is_answered_from_memory_until_the_model_changes():
    llm = FakeLLM("Does HTTPX follow redirects?")
    models = fake_models(llm=llm)
    asked = [{"role": "user", "content": "httpx 会跟随重定向吗？"}]
    assert models.complete(asked, 16) == models.complete(asked, 16) == "Does HTTPX follow redirects?"
    assert len(llm.calls) == 1  # greedy decoding: the same call gets the same reply
    models.use_llm(models.llm_name)
    models.complete(asked, 16)
    assert len(llm.calls) == 2  # another model may reply otherwise


class ByDraftLLM(FakeLLM):
    """Writes ``first`` from the passages alone, and ``second`` when the question comes before them (a second draft)."""

    def __init__(self, first: str, second: str):
        super().__init__(first)
        self.first, self.second = first, second

    def stream_chat(self, messages, *, max_tokens):
        self.reply = self.first if messages[-1]["content"].startswith("<docs>") else self.second
        return super().stream_chat(messages, max_tokens=max_tokens)


def test_a_draft_the_check_fails_is_written_again_question_first_and_shown_when_it_holds(docs):
    llm = ByDraftLLM("Redirects are followed automatically [7].", "HTTPX does not follow redirects by default [1].")
    events = list(Pipeline(docs, models=fake_models(llm=llm)).ask_stream("Does HTTPX follow redirects by default?",
                                                                         AskOptions(k=3)))
    drafts = [e for e in events if isinstance(e, Drafting)]
    assert [d.attempt for d in drafts] == [1, 2] and drafts[1].label != drafts[0].label  # the window starts over
    kinds = [type(e) for e in events]
    assert kinds.count(Checking) == 2 and kinds.index(Checking) < kinds.index(Drafting, kinds.index(Drafting) + 1)
    assert llm.calls[1][-1]["content"].startswith("Question: Does HTTPX follow redirects by default?")
    answer = events[-1].answer
    assert answer.verdict == "verified" and answer.attempts == 2 and answer.to_json()["attempts"] == 2
    assert answer.final_answer == "HTTPX does not follow redirects by default [1]."
    assert answer.model_answer == "HTTPX does not follow redirects by default [1]." and SECOND_DRAFT in answer.notes


def test_a_second_draft_that_fails_too_leaves_the_first_drafts_quotes(docs):
    llm = ByDraftLLM("Redirects are followed automatically [7].", "Redirects need a Kerberos ticket [2].")
    answer = Pipeline(docs, models=fake_models(llm=llm)).ask("Does HTTPX follow redirects by default?", AskOptions(k=3))
    assert len(llm.calls) == 2
    assert answer.verdict == "extractive" and answer.attempts == 2 and SECOND_FAILED in answer.notes
    assert answer.model_answer == "Redirects are followed automatically [7]." and answer.check.invalid == [7]


def test_no_second_draft_when_the_first_holds_or_when_asked_not_to(docs):
    holds = ByDraftLLM("HTTPX does not follow redirects by default [1].", "unused")
    Pipeline(docs, models=fake_models(llm=holds)).ask("Does HTTPX follow redirects by default?", AskOptions(k=3))
    fails = ByDraftLLM("Redirects are followed automatically [7].", "HTTPX does not follow redirects by default [1].")
    answer = Pipeline(docs, models=fake_models(llm=fails)).ask("Does HTTPX follow redirects by default?",
                                                              AskOptions(k=3, retry=False))
    assert len(holds.calls) == 1 and len(fails.calls) == 1 and answer.verdict == "extractive"


def test_a_failed_answer_that_ranks_what_no_passage_ranks_gives_the_fixed_phrase(docs):
    """The lesson's exercise: the documents never say which is faster, so quotes about timeouts would answer
    something else, and the model's claim is its own."""
    answer = make(docs, "HTTPX is faster than requests, with a default timeout of 5 seconds [2].").ask(
        "Is HTTPX faster than requests with its default timeout?", AskOptions(k=3))
    assert answer.stop_reason != "gate" and answer.verdict == "not_found"
    assert answer.missing_terms == ["faster"] and answer.sentences[0].status == "unsupported"
    assert make(docs, "The default timeout is 5 seconds of network inactivity [2].").ask(
        "Is HTTPX faster than requests with its default timeout?", AskOptions(k=3)).verdict == "verified"


def test_an_answer_cut_off_inside_its_code_is_shown_with_the_block_closed(docs):
    """At its length cap the 0.5B stopped inside a code block, and the quotes shown after it read as code."""
    cut = "Pass `follow_redirects=True` to enable it [1]:\n\n```python\nclient.get(url, follow_redirects=True)"
    answer = make(docs, cut).ask("How do I make HTTPX follow redirects?", AskOptions(k=3))
    assert answer.verdict == "verified"
    assert answer.final_answer.count("```") % 2 == 0
    assert "```python\nclient.get(url, follow_redirects=True)\n```" in answer.final_answer


def test_an_answer_stopped_by_the_user_is_never_shown_as_verified(docs):
    """Stopped mid-answer, what the model wrote may be half a claim that the check still finds supported: it is
    listed, checked, under the quotes (the window says it was stopped), not shown as the verified answer."""
    import threading

    whole = "HTTPX does not follow redirects by default [1]. Pass `follow_redirects=True` to enable it [1]."
    assert Pipeline(docs, models=fake_models(whole)).ask("Does HTTPX follow redirects by default?").verdict == "verified"
    stop, pieces, done = threading.Event(), 0, None
    for event in Pipeline(docs, models=fake_models(whole)).ask_stream("Does HTTPX follow redirects by default?",
                                                                     cancel=stop):
        pieces += isinstance(event, Token)
        if pieces == 8:  # the first sentence written, the second not
            stop.set()
        if isinstance(event, Done):
            done = event.answer
    assert done.stop_reason == "cancelled" and done.verdict == "extractive"
    assert done.sentences and all(s.status == "supported" for s in done.sentences if s.cited)  # it was verified
    assert "follow_redirects=True" not in done.model_answer


def test_a_page_in_the_questions_language_among_the_best_is_read_in_it_without_translating(tmp_path):
    """Seen in a folder of English notes with one French page: "À qui dois-je envoyer ma demande de vacances ?" found
    that page second, was translated, and the 0.5B answered in English from the first passage ("To send your vacation
    request, ask the on-call engineer"). It is now asked in French, and answered and checked against that page."""
    (tmp_path / "backup.md").write_text(
        "# Backup routine\n\nThe staging database is backed up every night. Backups are kept for fourteen days.\n\n"
        "## Restoring\n\nTo restore a backup, ask the on-call engineer. Restores take about forty minutes.\n",
        encoding="utf-8")
    (tmp_path / "reunion.md").write_text(
        "# Réunion d'équipe\n\nLa réunion hebdomadaire a lieu chaque mardi à dix heures dans la salle Rivoli.\n\n"
        "## Congés\n\nLes demandes de congés doivent être envoyées à Claire au moins deux semaines à l'avance.\n",
        encoding="utf-8")
    llm = ByTaskLLM("Who do I send my vacation request to?",
                    "Les demandes de congés doivent être envoyées à Claire au moins deux semaines à l'avance.", {})
    question = "À qui dois-je envoyer ma demande de congés ?"
    answer = Pipeline(tmp_path, models=fake_models(llm=llm)).ask(question, AskOptions(k=3))
    prompt = answer.prompt[-1]["content"]
    assert prompt.endswith(f"Question : {question}") and "Who do I" not in prompt  # as written, not its rewrite
    assert answer.verdict == "verified" and answer.language == "fr"
    assert answer.final_answer.startswith("Les demandes de congés doivent être envoyées à Claire")
    assert answer.final_sentences[0].checked_as is None  # checked in French against the French page: no translation
    assert not any(note.startswith("Translated into French") for note in answer.notes)
