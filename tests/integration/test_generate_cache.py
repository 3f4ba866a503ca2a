"""The real default model: the RAM cache of evaluated prompts (off by default) stays within its capacity; a first token
in a child process."""

import pytest

pytestmark = pytest.mark.integration


def test_the_prompt_cache_is_off_by_default_and_counts_what_it_really_holds_when_on(models):
    from repobot.engine.generate import LlamaCppLLM, Tuning

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
    from repobot.engine.models import check_first_token

    written = check_first_token(llm.path)  # raises ModelError with the fix when this build does not suit the CPU
    assert written.strip() and llm.count_tokens(written) <= 2  # the two tokens it was asked for, written in the child
