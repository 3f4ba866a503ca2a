import threading

from repobot.engine.generate import Generation
from repobot.engine.copied import WHOLE_TAG
from tests.conftest import FakeLLM


def test_streams_all_tokens_and_records_stats():
    gen = Generation(FakeLLM("Redirects are off by default [1]."), [], max_tokens=100)
    pieces = list(gen)
    assert "".join(pieces) == "Redirects are off by default [1]."
    assert gen.tokens == len(pieces) and gen.stop_reason == "end"
    assert gen.first_token_s is not None


def test_thinking_is_hidden_from_stream_and_text():
    gen = Generation(FakeLLM("<think>maybe [7]?</think>Off by default [1]."), [], max_tokens=100)
    shown = "".join(gen)
    assert "think" not in shown and "[7]" not in shown
    assert gen.text == "Off by default [1]."


def test_repetition_stops_generation():
    gen = Generation(FakeLLM("Intro. " + "Use follow_redirects=True [1]. " * 20), [], max_tokens=1000)
    list(gen)
    assert gen.stop_reason == "repetition"
    assert gen.text.count("follow_redirects") < 6


def test_a_numbered_list_going_round_stops_generation():
    steps = "".join(f"{n}. **Use camelCase**: turn `create_item` into `createItem`.\n" for n in range(1, 30))
    gen = Generation(FakeLLM("Options:\n" + steps), [], max_tokens=1000)
    list(gen)
    assert gen.stop_reason == "repetition"
    assert gen.text.count("camelCase") == 3  # stopped once a line came back a third time


def test_a_reply_ends_where_the_model_starts_writing_its_passages_out_again():
    echoed = 'Talk to the socket with `uds=` [1].\n</doc>\n<doc id="2" source="third_party_packages.md">\n### httpx-sse'
    gen = Generation(FakeLLM(echoed, piece=3), [], max_tokens=1000, echo=WHOLE_TAG)
    shown = "".join(gen)
    assert gen.stop_reason == "echo" and gen.text == "Talk to the socket with `uds=` [1]."
    assert "<" not in shown and "httpx-sse" not in shown  # not even the beginning of the tag was streamed
    plain = Generation(FakeLLM(echoed), [], max_tokens=1000)  # without ``echo``: the reply as written
    list(plain)
    assert plain.stop_reason == "end" and "httpx-sse" in plain.text


def test_a_tag_before_any_answer_does_not_end_the_reply():
    gen = Generation(FakeLLM("<docs> Off by default [1]."), [], max_tokens=100, echo=WHOLE_TAG)
    list(gen)
    assert gen.stop_reason == "end" and gen.text == "<docs> Off by default [1]."


class CutLLM(FakeLLM):
    """Reports being cut at max_tokens after fewer pieces than tokens, as llama-cpp-python does for CJK: a character
    that takes several tokens comes out as one piece."""

    def stream_chat(self, messages, *, max_tokens):
        self.finish_reason = None
        yield from super().stream_chat(messages, max_tokens=max_tokens)
        self.finish_reason = "length"


def test_an_answer_cut_at_the_cap_says_so_even_when_pieces_held_several_tokens():
    gen = Generation(CutLLM("默认情况下不会自动跟随重定向", piece=1), [], max_tokens=40)
    list(gen)
    assert gen.tokens < 40 and gen.stop_reason == "length"


class PiecesLLM(FakeLLM):
    """Streams the given pieces as they are: a real tokenizer may end a line and open a code block in one piece."""

    def __init__(self, pieces):
        super().__init__("".join(pieces))
        self.pieces = pieces

    def stream_chat(self, messages, *, max_tokens):
        self.calls.append(list(messages))
        yield from self.pieces[:max_tokens]


def test_a_line_coming_back_before_each_example_stops_generation():
    def example(n):  # the code differs each time, so the text never repeats back to back (``is_repeating``)
        return ["如果你需要提供用户名和密码，", "可以使用 `DigestAuth` 类", "：\n\n```", "pycon\n",
                f">>> auth = httpx.DigestAuth('user{n}', 'password{n}')\n", "```", "\n\n"]

    gen = Generation(PiecesLLM(["Use `auth=`.\n\n"] + sum((example(n) for n in range(6)), [])), [], max_tokens=1000)
    list(gen)
    assert gen.stop_reason == "repetition"
    assert gen.text.count("DigestAuth` 类") == 3  # stopped with the piece that finished the third copy


def test_code_repeated_across_examples_does_not_stop_generation():
    block = "```python\nclient = httpx.Client(timeout=10.0)\n```\n"
    reply = "".join(f"Example {n} [1]:\n{block}" for n in ("one", "two", "three", "four"))
    gen = Generation(FakeLLM(reply), [], max_tokens=1000)
    list(gen)
    assert gen.stop_reason == "end" and gen.text == reply.strip()


def test_cancel_is_checked_at_every_token():
    cancel = threading.Event()
    gen = Generation(FakeLLM("x" * 400, piece=1), [], max_tokens=1000, cancel=cancel)
    got = []
    for piece in gen:
        got.append(piece)
        if len(got) == 5:
            cancel.set()
    assert len(got) == 5 and gen.stop_reason == "cancelled"


def test_a_load_failure_without_a_message_still_says_what_failed(tmp_path, monkeypatch):
    """llama.cpp may raise a bare ValueError(): the user still gets one line naming the file and the fix."""
    import llama_cpp
    import pytest

    from repobot.engine import llama
    from repobot.engine.errors import ModelError
    from tests.conftest import tiny_gguf

    class Refuses:
        def __init__(self, **_):
            raise ValueError()

    monkeypatch.setattr(llama_cpp, "Llama", Refuses)
    monkeypatch.setattr(llama, "load_cpu_backends", lambda: None)
    model = tmp_path / "odd.gguf"
    model.write_bytes(tiny_gguf())  # a sound file, as far as its header goes
    with pytest.raises(ModelError, match=r"could not load odd\.gguf \(ValueError\)\. .*choose another GGUF"):
        llama.LlamaCppLLM(model)


def test_a_thinking_block_split_across_pieces_never_stalls_the_stream():
    for pieces in (["\n", "<think>", "hmm", "</think>", "Redirects", " are off", " [1]."],
                   ["<thi", "nk>", "hmm", "</thi", "nk>", "Redirects", " are off", " [1]."]):
        gen = Generation(PiecesLLM(pieces), [], max_tokens=100)
        assert "".join(gen) == "Redirects are off [1]." == gen.text


def test_a_held_back_tail_is_shown_at_the_end():
    gen = Generation(PiecesLLM(["Compare with a", " <"]), [], max_tokens=100)
    assert "".join(gen) == "Compare with a <" == gen.text
