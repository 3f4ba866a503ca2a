"""The real default model: the RAM cache of evaluated prompts (off by default) stays within its capacity; rewrites and
translations run in a second context and leave the answer prompt evaluated; a first token in a child process; a reply
depends on its messages only, not on the call before it."""

import pytest

pytestmark = pytest.mark.integration


def test_the_prompt_cache_is_off_by_default_and_counts_what_it_really_holds_when_on(models):
    from repobot.engine.llama import LlamaCppLLM, Tuning

    assert models.llm._llama.cache is None  # saving every reply's state cost seconds per answer
    llm = LlamaCppLLM(models.llm.path, tuning=Tuning(state_cache_mb=768))
    cache = llm._llama.cache
    for topic in ("redirects", "timeouts", "proxies", "cookies"):
        messages = [{"role": "system", "content": f"Answer in one short sentence about {topic}."},
                    {"role": "user", "content": f"What are {topic}?"}]
        "".join(llm.stream_chat(messages, max_tokens=8))
    held = sum(s.llama_state_size + s.scores.nbytes + s.input_ids.nbytes for s in cache.cache_state.values())
    assert cache.cache_state and held <= cache.capacity_bytes  # what the arrays take, not only llama.cpp's part


def test_the_default_model_writes_its_first_token_in_a_child_process(llm):
    from repobot.engine.install import check_first_token

    written = check_first_token(llm.path)  # raises ModelError with the fix when this build does not suit the CPU
    assert written.strip() and llm.count_tokens(written) <= 2  # the two tokens it was asked for, written in the child


def test_short_calls_run_in_a_second_context_and_leave_the_answer_prompt_evaluated(models, httpx_docs):
    from repobot.engine.llama import LlamaCppLLM
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.registry import SIDE_BATCH

    side = models.side_llm
    assert isinstance(side, LlamaCppLLM) and side is not models.llm and side.path == models.llm.path
    assert side._llama.n_batch == SIDE_BATCH  # its logits buffer is a quarter of the answer context's
    messages = [{"role": "system", "content": "Answer in one short sentence."},
                {"role": "user", "content": "What is a redirect?"}]
    "".join(models.llm.stream_chat(messages, max_tokens=4))
    evaluated = list(models.llm._llama.input_ids)
    rewritten = Pipeline(httpx_docs, models=models).rewrite("httpx 默认会自动跟随重定向吗？", "en")
    assert rewritten and "redirect" in rewritten.lower()
    assert list(models.llm._llama.input_ids) == evaluated  # the rewrite did not evict the answer context's tokens
    assert side._llama.n_tokens > 0


def test_a_reply_depends_on_its_messages_only_not_on_the_call_before_it(models):
    """llama.cpp evaluates a prompt from the longest prefix its context still holds; greedy output moved with that,
    so this rewrite read "misconfigured" after one call and "under control" after another. The context now holds
    exactly the instructions (evaluated alone) before every call."""
    from repobot.engine.generate import Generation
    from repobot.engine.rewrite import sentence_messages, translation_messages

    side = models.side_llm
    question = ("Je veux désactiver HTTP/2 uniquement pour un domaine qui le gère mal, tout en le gardant pour le "
                "reste. C'est faisable ?")

    def reply(messages):
        return "".join(Generation(side, messages, max_tokens=48))

    first = reply(translation_messages(question, "en"))
    before = [translation_messages(question.split(". ")[0] + ".", "en"),  # the same instructions, half the question
              sentence_messages(question, "fr", "en"),  # other instructions
              translation_messages(question, "en")]  # the very same call
    for call in before:
        reply(call)
        assert reply(translation_messages(question, "en")) == first
    assert len(side.constant_part(translation_messages(question, "en"))) > 20  # the instructions and the example


def test_a_stop_while_the_model_reads_its_prompt_ends_the_stream_and_the_next_reply_is_unchanged(models, httpx_docs):
    """Stop (or Ctrl-C) used to wait for the whole prompt to be read, 8-9 s for an answer's; llama.cpp's abort
    callback now stops it between two steps of its graph (``LLM.stopping_on``), off the main thread."""
    import threading

    from repobot.engine.generate import Generation

    llm = models.llm
    passage = (httpx_docs / "advanced" / "clients.md").read_text(encoding="utf-8")[:3500]
    messages = [{"role": "system", "content": "Answer from the passage in one sentence."},
                {"role": "user", "content": f"{passage}\n\nWhat is a client for?"}]
    whole = "".join(Generation(llm, messages, max_tokens=12))
    cancel, shown = threading.Event(), []
    stopped = Generation(llm, messages, max_tokens=12, cancel=cancel)
    worker = threading.Thread(target=lambda: shown.append("".join(stopped)))
    worker.start()
    threading.Event().wait(1.0)  # about 110 tokens read of about 900
    cancel.set()
    worker.join()
    assert shown == [""] and stopped.stop_reason == "cancelled"
    assert llm._llama.n_tokens < llm.count_tokens(messages[1]["content"])  # the prompt was not read to its end
    assert "".join(Generation(llm, messages, max_tokens=12)) == whole  # what was half read leaves no trace


def test_prepare_reads_the_rules_ahead_and_the_answer_after_it_is_the_same(models, httpx_docs):
    """The window has the model read the rules and worked example while the user types (``Pipeline.prepare``): the
    first answer then skips them, and says what it says without them read ahead."""
    import threading

    from repobot.engine.options import AskOptions
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.prompt import build_messages

    pipe = Pipeline(httpx_docs, models=models)
    pipe.build_index()
    llm = models.llm
    constant = llm.constant_part(build_messages("Q?", [("a.md", "A")], lang="en", style=AskOptions().style))
    llm._llama.reset()
    stopped = threading.Event()
    stopped.set()
    pipe.prepare(cancel=stopped)  # stopped before it began: nothing read
    assert llm._llama.n_tokens == 0
    question = "How do I turn off certificate verification?"
    cold = pipe.ask(question).model_answer
    llm._llama.reset()
    pipe.prepare()
    assert llm._llama.n_tokens == len(constant) > 200
    assert list(llm._llama.input_ids[: len(constant)]) == constant
    assert pipe.ask(question).model_answer == cold


def test_the_next_process_reads_the_saved_rules_back_and_replies_the_same(models, monkeypatch, tmp_path):
    """`repobot ask` is a new process per question: it evaluated the rules and worked example every time (2.4 s).
    Their state is saved once and read back; a damaged file is evaluated again, never trusted."""
    import time

    from repobot.engine.generate import Generation
    from repobot.engine.llama import LlamaCppLLM
    from repobot.engine.options import AskOptions
    from repobot.engine.prompt import build_messages

    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path))
    messages = build_messages("How do I turn off certificate checks?",
                              [("ssl.md", "Pass verify=False to turn off SSL verification. Certificates are checked "
                                          "by default.")], lang="en", style=AskOptions().style)

    def fresh_reply() -> tuple[str, float]:
        llm = LlamaCppLLM(models.llm.path)
        start = time.perf_counter()
        llm.prepare(messages)
        took = time.perf_counter() - start
        return "".join(Generation(llm, messages, max_tokens=24)), took

    evaluated, _ = fresh_reply()
    saved = list((tmp_path / "prompt-states").glob("*.state"))
    assert len(saved) == 1 and saved[0].stat().st_size > 1_000_000
    restored, took = fresh_reply()
    assert restored == evaluated and took < 0.5  # read back, not evaluated (2.4 s here)
    saved[0].write_bytes(saved[0].read_bytes()[:-100])  # truncated
    again, _ = fresh_reply()
    assert again == evaluated and saved[0].stat().st_size > 1_000_000  # evaluated and saved whole again
